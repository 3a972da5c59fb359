//! Write, Edit and MultiEdit: the wall, read-before-write, exactness, atomicity.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Tools;
use serde_json::json;

#[tokio::test]
async fn write_creates_parents_but_will_not_overwrite_an_unread_file() {
    let t = Tools::new();
    t.call("Write", json!({"file_path": t.path("a/b/new.txt"), "content": "hi\n"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("a/b/new.txt")).unwrap(), "hi\n");
    t.write("old.txt", "keep me");
    let err = t.call("Write", json!({"file_path": t.path("old.txt"), "content": "x"})).await.unwrap_err();
    assert!(err.contains("has not been read"), "{err}");
    assert_eq!(std::fs::read_to_string(t.root().join("old.txt")).unwrap(), "keep me");
    t.read("old.txt").await;
    t.call("Write", json!({"file_path": t.path("old.txt"), "content": "replaced"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("old.txt")).unwrap(), "replaced");
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_is_not_touched() {
    let t = Tools::new();
    t.write("f.txt", "one\n");
    t.read("f.txt").await;
    t.write("f.txt", "someone else wrote this\n");
    let err = t.call("Edit", json!({"file_path": t.path("f.txt"), "old_string": "one", "new_string": "two"})).await;
    assert!(err.unwrap_err().contains("changed on disk"));
    let err = t.call("Write", json!({"file_path": t.path("f.txt"), "content": "x"})).await.unwrap_err();
    assert!(err.contains("changed on disk"));
    std::fs::remove_file(t.root().join("f.txt")).unwrap();
    let err = t.call("Edit", json!({"file_path": t.path("f.txt"), "old_string": "one", "new_string": "two"})).await;
    assert!(err.unwrap_err().contains("does not exist"));
}

#[tokio::test]
async fn writes_outside_the_workspace_fail_validation() {
    let t = Tools::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    let err = t.call("Write", json!({"file_path": target, "content": "x"})).await.unwrap_err();
    assert!(err.contains("outside the workspace"), "{err}");
    assert!(!target.exists());
    // A symlink inside the workspace that points outside counts as outside.
    std::os::unix::fs::symlink(outside.path(), t.root().join("escape")).unwrap();
    let err = t.call("Write", json!({"file_path": t.path("escape/y.txt"), "content": "x"})).await.unwrap_err();
    assert!(err.contains("outside the workspace"), "{err}");
    // A sibling whose name starts with the root's is outside too.
    let sibling = format!("{}-evil/z.txt", t.root().display());
    assert!(t.call("Write", json!({"file_path": sibling, "content": "x"})).await.unwrap_err().contains("outside"));
    // Relative paths are taken from the working directory, and the wall still holds.
    t.call("Write", json!({"file_path": "relative.txt", "content": "x"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("relative.txt")).unwrap(), "x");
    let up = t.call("Write", json!({"file_path": "../up.txt", "content": "x"})).await.unwrap_err();
    assert!(up.contains("outside the workspace"), "{up}");
}

#[tokio::test]
async fn edit_needs_a_unique_exact_match_and_shows_the_region() {
    let t = Tools::new();
    t.write("m.py", "def a():\n    return 1\n\ndef b():\n    return 1\n");
    t.read("m.py").await;
    let dup =
        t.call("Edit", json!({"file_path": t.path("m.py"), "old_string": "return 1", "new_string": "return 2"})).await;
    assert!(dup.unwrap_err().contains("occurs 2 times"));
    let same = t.call("Edit", json!({"file_path": t.path("m.py"), "old_string": "x", "new_string": "x"})).await;
    assert!(same.unwrap_err().contains("the same"));
    let ok = t
        .call("Edit", json!({"file_path": t.path("m.py"), "old_string": "def b():\n    return 1", "new_string": "def b():\n    return 2"}))
        .await
        .unwrap();
    assert!(ok.contains("     5\t    return 2"), "{ok}");
    let all = t
        .call(
            "Edit",
            json!({"file_path": t.path("m.py"), "old_string": "return", "new_string": "yield", "replace_all": true}),
        )
        .await;
    all.unwrap();
    assert_eq!(
        std::fs::read_to_string(t.root().join("m.py")).unwrap(),
        "def a():\n    yield 1\n\ndef b():\n    yield 2\n"
    );
}

#[tokio::test]
async fn a_missing_old_string_points_at_the_closest_line_and_changes_nothing() {
    let t = Tools::new();
    let before = "fn main() {\n    println!(\"hello world\");\n}\n";
    t.write("main.rs", before);
    t.read("main.rs").await;
    let err = t
        .call(
            "Edit",
            json!({"file_path": t.path("main.rs"), "old_string": "println!(\"hello, world\");", "new_string": "x"}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("not found") && err.contains("closest line is 2"), "{err}");
    assert_eq!(std::fs::read_to_string(t.root().join("main.rs")).unwrap(), before);
}

#[tokio::test]
async fn crlf_and_the_trailing_newline_are_kept() {
    let t = Tools::new();
    t.write("w.txt", "alpha\r\nbeta\r\ngamma");
    t.read("w.txt").await;
    t.call(
        "Edit",
        json!({"file_path": t.path("w.txt"), "old_string": "alpha\nbeta", "new_string": "alpha\nBETA\nextra"}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read(t.root().join("w.txt")).unwrap(), b"alpha\r\nBETA\r\nextra\r\ngamma");
}

#[tokio::test]
async fn non_utf8_files_are_read_lossily_but_never_edited() {
    let t = Tools::new();
    t.write("latin1.txt", b"caf\xe9\n");
    let text = t.read("latin1.txt").await;
    assert!(text.contains("caf\u{FFFD}") && text.contains("not valid UTF-8"), "{text}");
    let err =
        t.call("Edit", json!({"file_path": t.path("latin1.txt"), "old_string": "caf", "new_string": "bar"})).await;
    assert!(err.unwrap_err().contains("not valid UTF-8"));
    assert_eq!(std::fs::read(t.root().join("latin1.txt")).unwrap(), b"caf\xe9\n");
}

#[tokio::test]
async fn multiedit_is_all_or_nothing() {
    let t = Tools::new();
    t.write("c.txt", "one two three\n");
    t.read("c.txt").await;
    let err = t
        .call(
            "MultiEdit",
            json!({"file_path": t.path("c.txt"), "edits": [
                {"old_string": "one", "new_string": "1"},
                {"old_string": "missing", "new_string": "x"}
            ]}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("edit 2"), "{err}");
    assert_eq!(std::fs::read_to_string(t.root().join("c.txt")).unwrap(), "one two three\n");
    t.call(
        "MultiEdit",
        json!({"file_path": t.path("c.txt"), "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "1 two", "new_string": "1 2"}
        ]}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("c.txt")).unwrap(), "1 2 three\n");
}

#[tokio::test]
async fn paths_with_spaces_and_unicode_work() {
    let t = Tools::new();
    let rel = "dir with space/naïve файл.txt";
    t.call("Write", json!({"file_path": t.path(rel), "content": "über\n"})).await.unwrap();
    assert!(t.read(rel).await.contains("über"));
    t.call("Edit", json!({"file_path": t.path(rel), "old_string": "über", "new_string": "unter"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join(rel)).unwrap(), "unter\n");
}

#[tokio::test]
async fn edit_can_create_a_file_with_an_empty_old_string() {
    let t = Tools::new();
    t.call("Edit", json!({"file_path": t.path("fresh.txt"), "old_string": "", "new_string": "new\n"})).await.unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("fresh.txt")).unwrap(), "new\n");
}
