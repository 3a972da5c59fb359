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
