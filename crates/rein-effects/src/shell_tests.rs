//! Tests of `shell.rs`, kept beside it so the code file stays small.

use super::*;

fn files(cmd: &str) -> (Vec<PathBuf>, Vec<PathBuf>, bool) {
    let f = ShellCommand::new(cmd, Path::new("/w"), Some(Path::new("/home/u"))).files();
    (f.reads, f.writes, f.dynamic)
}

#[test]
fn arguments_and_redirections_are_files() {
    let (r, w, d) = files("cat a.txt > out.txt < in.txt");
    assert_eq!(r, vec![PathBuf::from("/w/a.txt"), PathBuf::from("/w/in.txt")]);
    assert_eq!(w, vec![PathBuf::from("/w/out.txt")]);
    assert!(!d);
    assert!(files("cat \"$F\"").2, "a variable is only known at run time");
}

#[test]
fn relative_paths_after_cd_are_resolved_against_every_directory() {
    let (r, _, _) = files("cd src && cat ../.env");
    assert!(r.contains(&PathBuf::from("/w/.env")), "{r:?}");
    assert!(r.contains(&PathBuf::from("/.env")), "{r:?}");
    assert!(files("cd \"$D\" && cat .env").2);
    assert!(files("cd - && cat .env").2);
    let (r, _, _) = files("cd && cat .env");
    assert!(r.contains(&PathBuf::from("/home/u/.env")), "{r:?}");
}

#[test]
fn recursive_readers() {
    let within = |c: &str| ShellCommand::new(c, Path::new("/w"), None).files().reads_within;
    assert_eq!(within("grep -r KEY ."), [PathBuf::from("/w")]);
    assert_eq!(within("grep -rn KEY"), [PathBuf::from("/w")]);
    assert_eq!(within("rg KEY sub"), [PathBuf::from("/w/sub")]);
    assert_eq!(within("find . -name x -exec cat {} ;"), [PathBuf::from("/w")]);
    assert_eq!(within("tar czf /tmp/a.tgz ."), [PathBuf::from("/w")]);
    assert_eq!(within("cp -r src /tmp/x"), [PathBuf::from("/w/src")]);
    assert!(within("grep KEY file.txt").is_empty());
}

#[test]
fn shell_state() {
    let s = |c: &str| ShellCommand::new(c, Path::new("/w"), None).changes_shell_state();
    assert!(s("cd src") && s("export A=1") && s("ls && source x.sh"));
    assert!(!s("ls -la && git status"));
}
