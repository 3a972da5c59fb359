//! An MCP tool result as a `tool_result`, the way Claude Code shapes it: a list of
//! content blocks (an SDK program reads `content[0]["text"]`) — text blocks as text,
//! images as image blocks, `structuredContent` (on success) as its compact JSON,
//! `isError` as an error result, resource links and embedded resources as a line naming
//! them, binary resources saved to a file in the session directory with a note.

use std::path::Path;

use base64::Engine as _;
use rein_protocol::{ContentBlock, ImageSource, ToolResultContent};
use rein_tools::ToolOutput;
use serde_json::Value;

/// `result` (a `CallToolResult` as JSON) from `server`; blobs are saved under `dir`.
pub fn to_output(server: &str, result: &Value, dir: &Path) -> ToolOutput {
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    if !is_error && let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        return ToolOutput::blocks(vec![ContentBlock::text(structured.to_string())]);
    }
    let mut blocks: Vec<ContentBlock> = Vec::new();
    for item in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let text = |s: String| ContentBlock::Text { text: s };
        match item.get("type").and_then(Value::as_str) {
            Some("text") => blocks.push(text(item["text"].as_str().unwrap_or("").to_string())),
            Some("image") => match (item["data"].as_str(), item["mimeType"].as_str()) {
                (Some(data), Some(mime)) if mime.starts_with("image/") => blocks.push(ContentBlock::Image {
                    source: ImageSource::Base64 { media_type: mime.to_string(), data: data.to_string() },
                }),
                _ => blocks.push(text("[an image in a format rein cannot show]".into())),
            },
            Some("resource_link") => {
                let name = item["name"].as_str().unwrap_or("");
                let uri = item["uri"].as_str().unwrap_or("");
                let desc = item["description"].as_str().map(|d| format!(" ({d})")).unwrap_or_default();
                blocks.push(text(format!("[Resource link: {name}] {uri}{desc}")));
            }
            Some("resource") => blocks.push(text(resource_line(server, &item["resource"], dir))),
            Some("audio") => {
                blocks.push(text(save_blob(server, item["data"].as_str(), item["mimeType"].as_str(), dir)));
            }
            _ => blocks.push(text(item.to_string())),
        }
    }
    if is_error {
        let joined: Vec<String> = blocks
            .iter()
            .filter_map(|b| if let ContentBlock::Text { text } = b { Some(text.clone()) } else { None })
            .collect();
        return ToolOutput::failure(joined.join("\n"));
    }
    if blocks.is_empty() {
        return ToolOutput::text("(no content)");
    }
    ToolOutput { content: ToolResultContent::Blocks(blocks), is_error: false, saved: None }
}

fn resource_line(server: &str, resource: &Value, dir: &Path) -> String {
    let uri = resource["uri"].as_str().unwrap_or("");
    if let Some(t) = resource["text"].as_str() {
        return format!("[Resource from {server} at {uri}] {t}");
    }
    let saved = save_blob(server, resource["blob"].as_str(), resource["mimeType"].as_str(), dir);
    format!("[Resource from {server} at {uri}] {saved}")
}

/// Decode and save base64 `data`; the note says where (or why not).
fn save_blob(server: &str, data: Option<&str>, mime: Option<&str>, dir: &Path) -> String {
    let mime = mime.unwrap_or("application/octet-stream");
    let Some(bytes) = data.and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok()) else {
        return format!("Binary content ({mime}) that could not be decoded");
    };
    let ext = mime.rsplit('/').next().filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric())).unwrap_or("bin");
    let clean: String = server.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let path = dir.join("tool-results").join(format!("mcp-{clean}-blob-{stamp}.{ext}"));
    // A new file only: never through a link left at that name.
    let written = path.parent().is_some_and(|p| std::fs::create_dir_all(p).is_ok())
        && std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes))
            .is_ok();
    if written {
        format!("Binary content ({mime}, {} bytes) saved to {}", bytes.len(), path.display())
    } else {
        format!("Binary content ({mime}, {} bytes) that could not be saved", bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_take_claude_codes_shapes() {
        let d = tempfile::tempdir().unwrap();
        let text = to_output("s", &json!({"content": [{"type": "text", "text": "Echo: hi"}]}), d.path());
        // A list of blocks even for one text (SDK programs read `content[0]["text"]`).
        assert_eq!(text.content, ToolResultContent::Blocks(vec![ContentBlock::text("Echo: hi")]));
        let structured = to_output(
            "s",
            &json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"t": 1}}),
            d.path(),
        );
        assert_eq!(structured.content, ToolResultContent::Blocks(vec![ContentBlock::text(r#"{"t":1}"#)]));
        let err = to_output("s", &json!({"content": [{"type": "text", "text": "boom"}], "isError": true}), d.path());
        assert!(err.is_error);
        let mixed = to_output(
            "s",
            &json!({"content": [{"type": "text", "text": "pic"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "name": "n", "uri": "u://x"},
                {"type": "resource", "resource": {"uri": "b://1", "blob": "aGk=", "mimeType": "text/plain"}}]}),
            d.path(),
        );
        let ToolResultContent::Blocks(b) = mixed.content else { panic!() };
        assert!(matches!(&b[1], ContentBlock::Image { .. }));
        assert_eq!(b[2], ContentBlock::Text { text: "[Resource link: n] u://x".into() });
        let ContentBlock::Text { text } = &b[3] else { panic!() };
        assert!(text.contains("saved to") && text.contains("2 bytes"), "{text}");
    }
}
