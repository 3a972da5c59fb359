//! What rein-bash sees in command lines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rein_bash::{AllowBy, analyze, file_writes};

fn forms(src: &str) -> Vec<Vec<String>> {
    analyze(src).commands.iter().map(|c| c.forms.clone()).collect()
}

fn allow_forms(src: &str) -> Vec<String> {
    analyze(src).commands.iter().filter(|c| c.allow_by == AllowBy::Rules).map(|c| c.allow_form()).collect()
}

#[test]
fn lists_pipelines_subshells_and_substitutions_are_split() {
    let a = analyze("cd sub && ls -la | wc -l; (echo a; pwd) & echo $(whoami) `date` <(id)");
    assert!(a.understood(), "{:?}", a.problems);
    let all: Vec<String> = a.commands.iter().map(|c| c.allow_form()).collect();
    for c in ["cd sub", "ls -la", "wc -l", "echo a", "pwd", "whoami", "date", "id"] {
        assert!(all.contains(&c.to_string()), "{c} missing from {all:?}");
    }
}

#[test]
fn quotes_and_escapes_are_removed() {
    assert_eq!(allow_forms(r#"echo "a && b" 'c; d' e\ f"#), ["echo a && b c; d e f"]);
    assert_eq!(allow_forms(r#"r"m" -rf x"#), ["rm -rf x"]);
    assert_eq!(allow_forms(r"\rm x"), ["rm x"]);
    assert_eq!(allow_forms("$'\\x72m' y"), ["rm y"]);
}

#[test]
fn wrappers_are_stripped_and_every_spelling_is_kept_for_deny_rules() {
    let f = forms("FOO=1 timeout 5 nice -n 3 env A=b /bin/rm -rf /");
    assert_eq!(f.len(), 1);
    assert!(f[0].contains(&"rm -rf /".to_string()), "{f:?}");
    assert!(f[0].contains(&"timeout 5 nice -n 3 env A=b /bin/rm -rf /".to_string()), "{f:?}");
    assert_eq!(allow_forms("nohup time stdbuf -o0 ls -l"), ["ls -l"]);
}

#[test]
fn runners_open_up_their_inner_commands() {
    let a = analyze("bash -c 'rm -rf / && echo done'");
    let all: Vec<String> = a.commands.iter().map(|c| c.allow_form()).collect();
    assert!(all.contains(&"rm -rf /".into()) && all.contains(&"echo done".into()), "{all:?}");
    let a = analyze("find . -name '*.tmp' -exec rm {} \\;");
    assert_eq!(a.commands[0].allow_by, AllowBy::ExactRuleOnly);
    assert!(a.commands.iter().any(|c| c.allow_by == AllowBy::DenyCheckOnly && c.program() == Some("rm")));
    let a = analyze("sudo -u root rm x");
    assert!(a.commands.iter().any(|c| c.program() == Some("rm") && c.allow_by == AllowBy::DenyCheckOnly));
    let a = analyze("ls | xargs rm");
    assert!(a.commands.iter().any(|c| c.program() == Some("rm")));
    let a = analyze("eval \"$CMD\"");
    assert!(!a.understood());
    let a = analyze("$CMD -rf /");
    assert!(!a.understood());
}

#[test]
fn redirections_and_file_writes() {
    let a = analyze("echo hi > ~/.bashrc 2>&1 >> log.txt < in.txt 2>/dev/null");
    let writes: Vec<&str> = a.redirects.iter().filter(|r| r.writes_file()).map(|r| r.target.text.as_str()).collect();
    assert_eq!(writes, ["~/.bashrc", "log.txt"]);
    assert!(a.redirects.iter().any(|r| r.reads_file() && r.target.text == "in.txt"));
    let a = analyze("cat <<EOF > out.txt\n$(rm x)\nEOF");
    assert!(a.redirects.iter().any(|r| r.writes_file() && r.target.text == "out.txt"));
    assert!(a.commands.iter().any(|c| c.program() == Some("rm")), "{:?}", a.commands);
    let a = analyze("sed -i 's/a/b/' .claude/settings.json; tee -a .git/config; cp a b/c; dd if=x of=/etc/passwd");
    let w: Vec<String> = a.commands.iter().flat_map(file_writes).map(|w| w.text).collect();
    assert_eq!(w, [".claude/settings.json", ".git/config", "b/c", "/etc/passwd"]);
}

/// A write through a descriptor the line does not open (the session shell's state is
/// saved through one) is not read-only; standard output and error are.
#[test]
fn writing_to_an_inherited_descriptor_is_not_read_only() {
    for src in ["echo 'touch x' >&71", "ls 1>&72", "cat README >&3"] {
        let a = analyze(src);
        assert!(a.redirects.iter().any(|r| r.writes_descriptor()), "{src}");
        assert!(!a.is_read_only(), "{src}");
    }
    for src in ["ls >&2", "ls 2>&1", "cat README 2>&-"] {
        assert!(analyze(src).is_read_only(), "{src}");
    }
}

#[test]
fn what_is_not_understood_is_said() {
    for src in [
        "for f in $(ls); do rm $f; done",
        "for f in *; do f=x; done",
        "echo 'unterminated",
        "ls\u{7}",
        "ls\u{a0}-la",
        "if true; then ls; fi",
    ] {
        assert!(!analyze(src).understood(), "{src:?}");
    }
    let long = vec!["true"; 60].join(" && ");
    assert!(!analyze(&long).understood());
    // Commands inside control flow are still found, for deny rules.
    assert!(analyze("for f in *; do rm $f; done").commands.iter().any(|c| c.program() == Some("rm")));
}

#[test]
fn read_only_lines() {
    for src in
        ["ls -la", "git status && git log --oneline -5", "cat a | grep b | wc -l", "echo \"a > b\"", "cd sub && ls"]
    {
        assert!(analyze(src).is_read_only(), "{src}");
    }
    for src in
        ["ls > x", "rm a", "git -c core.pager=x log", "find . -delete", "sort -o f g", "ls & rm x", "echo $(rm x)"]
    {
        assert!(!analyze(src).is_read_only(), "{src}");
    }
}
