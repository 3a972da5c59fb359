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

#[test]
fn simple_blocks_read_as_the_yaml_parser_reads_them() {
    let blocks = [
        "name: reviewer\ndescription: Reviews code, carefully\ntools: Read, Grep, Bash(git diff:*)\nmodel: sonnet # fast\nmaxTurns: 5\ndisable-model-invocation: true",
        "name: \"quoted name\"\ndescription: 'single quoted'\ncolor: blue",
        "description: Use when the user asks about PDFs. Examples include forms",
        "name: x\nversion: 1.5\nempty-ish: null",
        "argument-hint: [file]\ntools: [Read, Grep]\nskills: []",
    ];
    for block in blocks {
        let simple = simple_block(block).expect(block);
        let yaml: Value = serde_yaml_ng::from_str(block).unwrap();
        let yaml: BTreeMap<String, Value> =
            yaml.as_mapping().unwrap().iter().map(|(k, v)| (k.as_str().unwrap().to_string(), v.clone())).collect();
        for (k, v) in &yaml {
            let same = match (simple.get(k), v) {
                (Some(Value::String(a)), Value::Number(n)) => a == &n.to_string(),
                (got, want) => got == Some(want),
            };
            assert!(same, "{k}: {:?} vs {v:?} in {block:?}", simple.get(k));
        }
    }
    for needs_yaml in
        ["tools:\n  - Read", "description: |\n  text", "tools: [Read, [Grep]]", "a: b: c", "name: \"a\\nb\""]
    {
        assert!(simple_block(needs_yaml).is_none(), "{needs_yaml}");
    }
}
