//! A Jupyter notebook as the model reads it: each cell in order, its source in a
//! `<cell id="…">` element (markdown and raw cells say their type; code in another
//! language than Python says its language), then its outputs — stream text, results,
//! errors with their traceback (terminal colours removed), images as image blocks.

use serde_json::Value;

use rein_protocol::{ContentBlock, ImageSource};

/// One output's text is cut here (the rest is noted).
const MAX_OUTPUT_CHARS: usize = 10_000;

/// Why a notebook could not be read as one.
#[derive(Debug, thiserror::Error)]
pub enum NotebookError {
    #[error("not a notebook (invalid JSON: {0})")]
    Json(#[from] serde_json::Error),
    #[error("not a notebook: it has no \"cells\" list")]
    NoCells,
}

/// The cells of the notebook in `json`, as content blocks.
pub fn render_notebook(json: &str) -> Result<Vec<ContentBlock>, NotebookError> {
    let nb: Value = serde_json::from_str(json)?;
    let cells = nb.get("cells").and_then(Value::as_array).ok_or(NotebookError::NoCells)?;
    let language = nb
        .pointer("/metadata/language_info/name")
        .or_else(|| nb.pointer("/metadata/kernelspec/language"))
        .and_then(Value::as_str)
        .unwrap_or("python");
    let mut out = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let id = cell.get("id").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("cell-{i}"));
        let kind = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code");
        let mut text = format!("<cell id=\"{id}\">");
        if kind != "code" {
            text.push_str(&format!("<cell_type>{kind}</cell_type>"));
        } else if language != "python" {
            text.push_str(&format!("<language>{language}</language>"));
        }
        text.push_str(&joined(cell.get("source")));
        text.push_str(&format!("</cell id=\"{id}\">"));
        out.push(ContentBlock::text(text));
        for output in cell.get("outputs").and_then(Value::as_array).into_iter().flatten() {
            out.extend(output_blocks(output));
        }
    }
    if out.is_empty() {
        out.push(ContentBlock::text("<system-reminder>The notebook has no cells.</system-reminder>"));
    }
    Ok(out)
}

/// A notebook's text field: a string or a list of lines.
fn joined(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn output_blocks(output: &Value) -> Vec<ContentBlock> {
    let kind = output.get("output_type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "stream" => vec![ContentBlock::text(cut(&joined(output.get("text"))))],
        "error" => {
            let ename = output.get("ename").and_then(Value::as_str).unwrap_or("Error");
            let evalue = output.get("evalue").and_then(Value::as_str).unwrap_or_default();
            let trace: Vec<String> = output
                .get("traceback")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(without_colours)
                .collect();
            vec![ContentBlock::text(cut(&format!("{ename}: {evalue}\n{}", trace.join("\n"))))]
        }
        "execute_result" | "display_data" => {
            let data = output.get("data");
            let mut blocks = Vec::new();
            if let Some(text) = data.and_then(|d| d.get("text/plain")) {
                blocks.push(ContentBlock::text(cut(&joined(Some(text)))));
            }
            for media_type in ["image/png", "image/jpeg"] {
                if let Some(b64) = data.and_then(|d| d.get(media_type)) {
                    let b64: String = joined(Some(b64)).split_whitespace().collect();
                    blocks.push(ContentBlock::Image {
                        source: ImageSource::Base64 { media_type: media_type.into(), data: b64 },
                    });
                }
            }
            blocks
        }
        _ => Vec::new(),
    }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_OUTPUT_CHARS) {
        Some((at, _)) => format!("{}\n… [output cut: {} characters in all]", &text[..at], text.chars().count()),
        None => text.to_string(),
    }
}

/// A traceback line without its ANSI colour sequences.
fn without_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(blocks: &[ContentBlock]) -> Vec<String> {
        blocks
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.clone(),
                ContentBlock::Image { .. } => "<image>".into(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn cells_come_in_order_with_their_outputs() {
        let nb = json!({
            "metadata": {"language_info": {"name": "python"}},
            "cells": [
                {"id": "intro", "cell_type": "markdown", "source": ["# Title\n", "Some text"]},
                {"id": "c1", "cell_type": "code", "source": "print('hi')\n1 + 1", "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                    {"output_type": "execute_result", "data": {"text/plain": ["2"]}, "execution_count": 1}
                ]},
                {"cell_type": "code", "source": "plot()", "outputs": [
                    {"output_type": "display_data", "data": {"image/png": "iVBORw0K\nGgo=\n", "text/plain": "<Figure>"}}
                ]},
                {"id": "boom", "cell_type": "code", "source": "1/0", "outputs": [
                    {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                     "traceback": ["\u{1b}[0;31mZeroDivisionError\u{1b}[0m Traceback", "----> 1 1/0"]}
                ]}
            ]
        });
        let blocks = render_notebook(&nb.to_string()).unwrap();
        assert_eq!(
            texts(&blocks),
            [
                "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">",
                "<cell id=\"c1\">print('hi')\n1 + 1</cell id=\"c1\">",
                "hi\n",
                "2",
                "<cell id=\"cell-2\">plot()</cell id=\"cell-2\">",
                "<Figure>",
                "<image>",
                "<cell id=\"boom\">1/0</cell id=\"boom\">",
                "ZeroDivisionError: division by zero\nZeroDivisionError Traceback\n----> 1 1/0",
            ]
        );
        let ContentBlock::Image { source: ImageSource::Base64 { data, media_type } } = &blocks[6] else { panic!() };
        assert_eq!((data.as_str(), media_type.as_str()), ("iVBORw0KGgo=", "image/png"));
    }

    #[test]
    fn other_languages_are_named_and_non_notebooks_refused() {
        let nb =
            json!({"metadata": {"kernelspec": {"language": "julia"}}, "cells": [{"cell_type": "code", "source": "1"}]});
        assert_eq!(
            texts(&render_notebook(&nb.to_string()).unwrap())[0],
            "<cell id=\"cell-0\"><language>julia</language>1</cell id=\"cell-0\">"
        );
        assert!(matches!(render_notebook("{\"a\": 1}"), Err(NotebookError::NoCells)));
        assert!(matches!(render_notebook("not json"), Err(NotebookError::Json(_))));
    }
}
