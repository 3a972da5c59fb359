//! Tests of `frontmatter.rs`, kept beside it so the code file stays small.

use super::*;

#[test]
fn yaml_lists_block_scalars_and_crlf_read_as_yaml() {
    let text = "---\r\nname: reviewer\r\ntools:\r\n  - Read\r\n  - Grep\r\ndescription: |\r\n  Reviews code.\r\n  Carefully.\r\nmaxTurns: 5\r\n---\r\nBody line\r\n";
    let fm = parse(text).unwrap();
    assert!(fm.present);
    assert_eq!(fm.text("name").as_deref(), Some("reviewer"));
    assert_eq!(fm.list("tools"), Some(vec!["Read".to_string(), "Grep".to_string()]));
    assert_eq!(fm.text("description").as_deref(), Some("Reviews code.\nCarefully."));
    assert_eq!(fm.number("maxTurns"), Some(5));
    assert_eq!(fm.body, "Body line\n");
}

#[test]
fn values_yaml_rejects_are_read_key_by_key() {
    // As in public agent collections: `: ` inside an unquoted description, examples under it.
    let text = "---\nname: planner\ndescription: Use this agent when: the task is big. Examples: <example>Context: x</example>\n  more text\ntools: Read, Bash(git log:*, git diff:*)\n---\nPlan.\n";
    let fm = parse(text).unwrap();
    assert_eq!(fm.text("name").as_deref(), Some("planner"));
    assert!(fm.text("description").unwrap().starts_with("Use this agent when: the task is big."));
    assert!(fm.text("description").unwrap().ends_with("more text"));
    assert_eq!(fm.list("tools"), Some(vec!["Read".to_string(), "Bash(git log:*, git diff:*)".to_string()]));
}

#[test]
fn no_block_is_all_body_and_a_broken_one_names_its_line() {
    let fm = parse("# README\n\nThese are my agents.\n").unwrap();
    assert!(!fm.present);
    assert!(fm.fields.is_empty());
    let e = parse("---\nname: x\n---\n").map(|f| f.text("name"));
    assert_eq!(e, Ok(Some("x".to_string())));
    let e = parse("---\n  : [\n---\n").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(parse("---\nname: x\nno end").is_err());
}
