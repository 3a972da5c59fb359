//! Tests of `gitconfig.rs`, kept beside it so the code file stays small.

use super::*;

fn keys(text: &str) -> Vec<(String, Option<String>, String, Option<String>)> {
    parse(text).entries.into_iter().map(|e| (e.section, e.sub, e.key, e.value)).collect()
}

#[test]
fn config_is_read_as_git_reads_it() {
    let text = "\u{feff}[Core] FsMonitor = \"./a b\" ; c\n[remote \"Or\\\"ig\"]\n\turl = x\\\n y # z\n[a.B]\nflag\n\
                [include]\r\n\tpath=\"~/inc\"\n[x]k=  two  words  \n";
    assert_eq!(
        keys(text),
        [
            ("core".into(), None, "fsmonitor".into(), Some("./a b".into())),
            ("remote".into(), Some("Or\"ig".into()), "url".into(), Some("x y".into())),
            ("a".into(), Some("b".into()), "flag".into(), None),
            ("include".into(), None, "path".into(), Some("~/inc".into())),
            ("x".into(), None, "k".into(), Some("two  words".into())),
        ]
    );
    assert!(parse(text).complete);
    let bad = parse("[core]\n\tbare = false\n=oops\n[core]\n\tpager = x\n");
    assert!(!bad.complete && bad.entries.len() == 1);
}

#[test]
fn includes_resolve_as_git_resolves_them() {
    let e = parse("[include]\n\tpath = ../shared\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/x\n[other]\n\tpath = no\n");
    let got = includes(&e.entries, Path::new("/r/.git/config"), Some(Path::new("/h")));
    assert_eq!(got, [PathBuf::from("/r/.git/../shared"), PathBuf::from("/h/x")]);
}

#[test]
fn a_new_config_keeps_only_what_runs_nothing_and_the_original_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("config");
    let text = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[core] fsmonitor = ./evil\n\
                [remote \"origin\"]\n\turl = https://x/y\n\tuploadpack = ./evil\n[alias]\n\tst = !sh\n\
                [includeIf \"onbranch:m\"]\n\tpath = ../evil\n";
    std::fs::write(&file, text).unwrap();
    let done = neutralise(&file).unwrap().unwrap();
    assert_eq!(done.dropped, ["core.fsmonitor", "remote.origin.uploadpack", "alias.st", "includeif.onbranch:m.path"]);
    assert_eq!(std::fs::read_to_string(&done.kept_at).unwrap(), text);
    let now = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        keys(&now),
        [
            ("core".into(), None, "repositoryformatversion".into(), Some("0".into())),
            ("core".into(), None, "bare".into(), Some("false".into())),
            ("remote".into(), Some("origin".into()), "url".into(), Some("https://x/y".into())),
        ]
    );
    assert_eq!(neutralise(&file).unwrap(), None, "a clean config is left alone");
}
