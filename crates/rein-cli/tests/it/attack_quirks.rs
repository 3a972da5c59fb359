//! The second red team's attacks (issue 25), each through the real binary and, where it
//! can run here, fired in bash first: `cd` spelled so text does not show it inside a
//! loop, `${NAME:=…}` assigning bash's own variables, links inside a followed tree to a
//! denied file, index names that are not on disk, substitutions the syntax tree does
//! not see (here-documents, `${x#$(…)}`), and scripts `sh` reads otherwise than bash.

use crate::attack_globs::{Files, stopped};

const ATTACKS: &[(Files, &str, bool)] = &[
    (&[("sub/sub/sub", "->../.."), ("README.md", "hi\n")], "for f in 1 2 3; do c''d sub; done; cat .env", true),
    (&[("x/.env", "")], ": ${CDPATH:=..}; cd x; cat .env", false),
    (&[("sub/l", "->../.env")], "grep -R . sub", true),
    (&[("sub/l", "->../.env")], "cat $(find sub)", true),
    (&[("sub/l", "->../.env")], "find sub -print0 | xargs -0 cat", true),
    (&[("sub/up", "->..")], "grep -R API sub", true),
    (&[], "cat <<EOF\n\t$(cat .env)\nEOF", true),
    (&[], "cat <<$x\n$(cat .env)\n$x", true),
    (&[], "echo ${PWD#$(cat .env >&2)}", true),
    (&[], "echo \"${HOME/`cat .env >&2`/x}\"", true),
    (&[], "echo ${x-`cat .env`}", true),
    (&[], "sh -c \"echo \\$'x\\\\' ; cat .env ; echo ' #'\"", true),
    (&[("@x", "")], "strings $(find . -name '@*')", false),
];

#[test]
fn the_second_red_teams_attacks_are_not_allowed() {
    stopped(ATTACKS);
}

/// A secret committed and then removed from the index is still in history: `git log -p`
/// prints it, so with a Read deny rule on a file of the repository it is asked; `git
/// diff` (the work tree against the index) still runs.
#[test]
fn history_that_once_held_a_denied_file_is_asked() {
    let env = crate::attack_globs::project(&[("README.md", "hi\n")]);
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").args(args).current_dir(env.cwd()).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["rm", "-q", "--cached", ".env"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "untrack the secret"]);
    assert!(git(&["log", "-p"]).contains("secret-in-env"), "the secret is in history");
    for command in ["git log -p", "git show HEAD~1", "git diff --cached HEAD~1"] {
        let (behavior, why) = crate::attack_globs::decide(&env, command);
        assert_ne!(behavior, "ALLOW", "{command}:\n{why}");
    }
    for command in ["git diff", "git diff README.md", "git log --oneline"] {
        let (behavior, why) = crate::attack_globs::decide(&env, command);
        assert_eq!(behavior, "ALLOW", "{command}:\n{why}");
    }
}
