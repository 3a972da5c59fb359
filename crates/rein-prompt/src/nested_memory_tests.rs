//! Tests of `nested_memory.rs`, kept beside it so the code file stays small.

use super::*;

fn write(p: &Path, s: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, s).unwrap();
}

#[test]
fn a_file_brings_its_folders_memory_and_matching_rules_once() {
    let d = tempfile::tempdir().unwrap();
    let cwd = d.path();
    write(&cwd.join("CLAUDE.md"), "top");
    write(&cwd.join("api/CLAUDE.md"), "API rules");
    write(&cwd.join("api/v2/.claude/CLAUDE.md"), "v2 rules");
    write(&cwd.join("web/CLAUDE.md"), "web rules");
    write(&cwd.join(".claude/rules/rust.md"), "---\npaths:\n  - \"**/*.rs\"\n---\nUse anyhow only in binaries.\n");
    write(&cwd.join(".claude/rules/always.md"), "Always on.\n");
    let memory = NestedMemory::new(cwd, None, &[], &[cwd.join("CLAUDE.md")]);
    let first = memory.for_file(&cwd.join("api/v2/handler.rs"));
    let got: Vec<(&str, &str)> = first.iter().map(|m| (m.content.trim(), m.reason)).collect();
    assert_eq!(
        got,
        [
            ("API rules", "nested_traversal"),
            ("v2 rules", "nested_traversal"),
            ("Use anyhow only in binaries.", "path_glob_match")
        ]
    );
    assert!(memory.for_file(&cwd.join("api/v2/other.rs")).is_empty(), "given once");
    assert!(memory.for_file(&cwd.join("README.md")).is_empty(), "the top CLAUDE.md is in the prompt already");
    let excluded = NestedMemory::new(cwd, None, &["**/web/CLAUDE.md".to_string()], &[]);
    assert!(excluded.for_file(&cwd.join("web/app.ts")).is_empty(), "claudeMdExcludes");
}
