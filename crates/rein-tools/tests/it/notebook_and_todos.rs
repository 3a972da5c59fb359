//! NotebookEdit and TodoWrite.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Tools;
use serde_json::{Value, json};

const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "calc",
   "metadata": {
    "tags": ["keep"]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": ["2\n"]
    }
   ],
   "source": [
    "print(1 + 1)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "name": "python3",
   "display_name": "Python 3",
   "language": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

#[tokio::test]
async fn replace_insert_and_delete_keep_the_rest_intact() {
    let t = Tools::new();
    t.write("nb.ipynb", NOTEBOOK);
    let path = t.path("nb.ipynb");
    let unread = t.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "calc", "new_source": "x"})).await;
    assert!(unread.unwrap_err().contains("has not been read"));
    t.read("nb.ipynb").await;
    t.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "calc", "new_source": "print(2 + 2)\nprint(3)"}))
        .await
        .unwrap();
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(t.root().join("nb.ipynb")).unwrap()).unwrap();
    let calc = &nb["cells"][1];
    assert_eq!(calc["source"], json!(["print(2 + 2)\n", "print(3)"]));
    assert_eq!(calc["outputs"], json!([]));
    assert_eq!(calc["metadata"], json!({"tags": ["keep"]}));
    assert_eq!(nb["metadata"]["kernelspec"]["display_name"], "Python 3");
    // Key order is kept: the file differs from the original only in the edited cell.
    let written = std::fs::read_to_string(t.root().join("nb.ipynb")).unwrap();
    assert!(
        written.starts_with("{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"intro\""),
        "{written}"
    );
    assert!(written.ends_with("\"nbformat_minor\": 5\n}\n"));

    t.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "intro", "new_source": "## Notes", "cell_type": "markdown", "edit_mode": "insert"}))
        .await
        .unwrap();
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(t.root().join("nb.ipynb")).unwrap()).unwrap();
    assert_eq!(nb["cells"][1]["source"], json!(["## Notes"]));
    assert_eq!(nb["cells"].as_array().unwrap().len(), 3);
    t.call(
        "NotebookEdit",
        json!({"notebook_path": path, "cell_id": "cell-0", "new_source": "", "edit_mode": "delete"}),
    )
    .await
    .unwrap();
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(t.root().join("nb.ipynb")).unwrap()).unwrap();
    assert_eq!(nb["cells"][0]["source"], json!(["## Notes"]));
    let missing = t.call("NotebookEdit", json!({"notebook_path": path, "cell_id": "nope", "new_source": "x"})).await;
    assert!(missing.unwrap_err().contains("No cell"));
}

#[tokio::test]
async fn todos_are_kept_and_echoed() {
    let t = Tools::new();
    let out = t
        .call(
            "TodoWrite",
            json!({"todos": [
                {"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
                {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
                {"content": "Update docs", "status": "pending", "activeForm": "Updating docs"}
            ]}),
        )
        .await
        .unwrap();
    assert!(out.ends_with("[x] Write the parser\n[~] Running the tests\n[ ] Update docs"), "{out}");
    let bad = t.call("TodoWrite", json!({"todos": [{"content": "x", "status": "done", "activeForm": "x"}]})).await;
    assert!(bad.unwrap_err().contains("status"));
}
