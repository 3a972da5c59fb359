//! Read's limits and bad inputs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Tools;
use serde_json::json;

#[tokio::test]
async fn very_long_lines_are_truncated_with_a_marker() {
    let t = Tools::new();
    t.write("long.txt", format!("{}\nshort\n", "x".repeat(5000)));
    let out = t.read("long.txt").await;
    let first = out.lines().next().unwrap();
    assert!(first.ends_with("… [line truncated]"), "{}", &first[first.len() - 40..]);
    assert!(first.len() < 2100);
    assert!(out.contains("     2\tshort"));
}

#[tokio::test]
async fn large_files_must_be_paged() {
    let t = Tools::new();
    let text: String = (1..=40_000).map(|i| format!("line number {i}\n")).collect();
    t.write("big.log", &text);
    let err = t.call("Read", json!({"file_path": t.path("big.log")})).await.unwrap_err();
    assert!(err.contains("offset and limit"), "{err}");
    let page = t.call("Read", json!({"file_path": t.path("big.log"), "offset": 30000, "limit": 3})).await.unwrap();
    assert!(page.starts_with(" 30000\tline number 30000\n 30001\t"), "{page}");
    assert!(page.contains("Showing lines 30000-30002 of 40000"));
}

#[tokio::test]
async fn a_directory_given_as_a_file_is_explained_by_every_file_tool() {
    let t = Tools::new();
    std::fs::create_dir(t.root().join("folder")).unwrap();
    let dir = t.path("folder");
    assert!(t.call("Read", json!({"file_path": dir})).await.unwrap_err().contains("is a directory"));
    assert!(t.call("Write", json!({"file_path": dir, "content": "x"})).await.unwrap_err().contains("is a directory"));
    let edit = t.call("Edit", json!({"file_path": dir, "old_string": "a", "new_string": "b"})).await;
    assert!(edit.unwrap_err().contains("is a directory"));
}

#[tokio::test]
async fn missing_files_and_relative_paths() {
    let t = Tools::new();
    let err = t.call("Read", json!({"file_path": t.path("nope.txt")})).await.unwrap_err();
    assert!(err.contains("nope.txt") && err.contains("No such file"), "{err}");
    // A relative path is read from the working directory, as the search tools name files.
    let err = t.call("Read", json!({"file_path": "nope.txt"})).await.unwrap_err();
    assert!(err.contains(&t.path("nope.txt")) && err.contains("No such file"), "{err}");
    t.write("sub/here.txt", "found\n");
    assert!(t.call("Read", json!({"file_path": "sub/here.txt"})).await.unwrap().contains("1\tfound"));
    assert!(t.call("Read", json!({"file_path": "./sub/../sub/here.txt"})).await.unwrap().contains("found"));
}

#[tokio::test]
async fn read_records_the_file_identity_for_later_edits() {
    let t = Tools::new();
    let p = t.write("a.txt", "x\n");
    t.read("a.txt").await;
    let known = t.ctx.file_state.get(&std::fs::canonicalize(&p).unwrap()).unwrap();
    assert_eq!(known.size, 2);
    assert!(known.modified.is_some());
}
