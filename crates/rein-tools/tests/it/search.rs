//! Glob and Grep through the registry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Tools;
use serde_json::json;

fn tree() -> Tools {
    let t = Tools::new();
    t.write("src/lib.rs", "pub fn alpha() {}\n\npub fn beta() {}\n// TODO: gamma\n");
    t.write("src/main.rs", "fn main() {\n    alpha();\n}\n");
    t.write("web/app.ts", "const Alpha = 1;\n");
    t.write("notes.md", "alpha notes\n");
    t.write("build/out.rs", "fn alpha_generated() {}\n");
    t.write(".gitignore", "build/\n");
    // As with ripgrep, .gitignore applies inside a git repository.
    t.write(".git/HEAD", "ref: refs/heads/main\n");
    t.write("bin.dat", b"alpha\x00\x01\x02");
    t
}

#[tokio::test]
async fn files_with_matches_respects_gitignore_and_skips_binaries() {
    let t = tree();
    let out = t.call("Grep", json!({"pattern": "alpha"})).await.unwrap();
    let mut files: Vec<&str> = out.lines().map(|l| l.rsplit('/').next().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["lib.rs", "main.rs", "notes.md"], "{out}");
}

#[tokio::test]
async fn content_with_context_and_line_numbers() {
    let t = tree();
    let out = t
        .call("Grep", json!({"pattern": "beta", "output_mode": "content", "-B": 2, "path": t.path("src/lib.rs")}))
        .await
        .unwrap();
    assert_eq!(out, "1-pub fn alpha() {}\n2-\n3:pub fn beta() {}");
    let out =
        t.call("Grep", json!({"pattern": "fn \\w+\\(", "output_mode": "content", "-n": false, "glob": "*.rs"})).await;
    let out = out.unwrap();
    assert!(out.contains("src/lib.rs:pub fn alpha() {}"), "{out}");
    assert!(!out.contains("out.rs"), "gitignored: {out}");
}

#[tokio::test]
async fn type_case_count_and_multiline() {
    let t = tree();
    let ts = t.call("Grep", json!({"pattern": "alpha", "-i": true, "type": "ts"})).await.unwrap();
    assert!(ts.ends_with("web/app.ts") && ts.lines().count() == 1, "{ts}");
    let count = t.call("Grep", json!({"pattern": "fn", "output_mode": "count", "type": "rust"})).await.unwrap();
    assert!(count.contains("src/lib.rs:2") && count.contains("src/main.rs:1"), "{count}");
    let multi = t
        .call("Grep", json!({"pattern": "alpha\\(\\) \\{\\}\\n\\npub", "multiline": true, "output_mode": "content"}))
        .await
        .unwrap();
    assert!(multi.contains("lib.rs:1:pub fn alpha() {}") && multi.contains("lib.rs:3:pub fn beta"), "{multi}");
    let bad = t.call("Grep", json!({"pattern": "x", "type": "klingon"})).await.unwrap_err();
    assert!(bad.contains("Unknown file type"));
    let bad = t.call("Grep", json!({"pattern": "(unclosed"})).await.unwrap_err();
    assert!(bad.contains("Invalid regex"), "{bad}");
}

#[tokio::test]
async fn head_limit_and_offset_page_through_results() {
    let t = Tools::new();
    t.write("many.txt", (1..=30).map(|i| format!("hit {i}\n")).collect::<String>());
    let p = t.path("many.txt");
    let first = t.call("Grep", json!({"pattern": "hit", "output_mode": "content", "path": p, "head_limit": 10})).await;
    let first = first.unwrap();
    assert!(first.starts_with("1:hit 1\n") && first.contains("Showing results 1-10 of 30"), "{first}");
    let next = t
        .call("Grep", json!({"pattern": "hit", "output_mode": "content", "path": p, "head_limit": 10, "offset": 25}))
        .await
        .unwrap();
    assert!(next.starts_with("26:hit 26\n") && next.ends_with("30:hit 30"), "{next}");
}

#[tokio::test]
async fn glob_finds_by_pattern_and_caps_a_huge_match_quickly() {
    let t = tree();
    let rs = t.call("Glob", json!({"pattern": "src/**/*.rs"})).await.unwrap();
    assert_eq!(rs.lines().count(), 2, "{rs}");
    for i in 0..25_000 {
        t.write(&format!("huge/d{}/f{i}.txt", i % 50), "");
    }
    let start = std::time::Instant::now();
    let out = t.call("Glob", json!({"pattern": "**/*.txt"})).await.unwrap();
    assert!(out.contains("More than 20000 files match"), "{}", out.lines().last().unwrap());
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}
