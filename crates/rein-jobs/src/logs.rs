//! `rein logs`: what a background session did, read from its transcript (Claude Code's
//! line shape): the prompts, the answers, each tool call in a line with the start of its
//! result. Lines that are not messages (titles, events) and lines that do not parse (a
//! torn last line) show nothing. What a repository or a command wrote reaches the
//! person's terminal as text only: control characters (escape sequences that could move
//! the cursor, rewrite lines or set the clipboard) are dropped.

use serde_json::Value;

/// The readable lines of a whole transcript.
pub fn render_transcript(text: &str) -> Vec<String> {
    text.lines().flat_map(render_line).collect()
}

/// The readable lines of one transcript line.
pub fn render_line(line: &str) -> Vec<String> {
    rendered(line).iter().map(|l| printable(l)).collect()
}

/// `text` without control characters (a tab becomes a space).
pub fn printable(text: &str) -> String {
    text.chars().filter_map(|c| if c == '\t' { Some(' ') } else { (!c.is_control()).then_some(c) }).collect()
}

fn rendered(line: &str) -> Vec<String> {
    let Ok(record) = serde_json::from_str::<Value>(line) else { return Vec::new() };
    let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
    if record.get("isMeta").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let content = record.pointer("/message/content");
    let mut out = Vec::new();
    match (kind, content) {
        ("user", Some(Value::String(text))) => out.extend(quoted("> ", text)),
        ("user", Some(Value::Array(blocks))) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => out.extend(quoted("> ", text_of(block))),
                    Some("tool_result") => out.push(result_line(block)),
                    _ => {}
                }
            }
        }
        ("assistant", Some(Value::Array(blocks))) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => out.extend(text_of(block).lines().map(str::to_string)),
                    Some("tool_use") => out.push(call_line(block)),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

fn text_of(block: &Value) -> &str {
    block.get("text").and_then(Value::as_str).unwrap_or_default()
}

fn quoted(mark: &str, text: &str) -> Vec<String> {
    text.lines().map(|l| format!("{mark}{l}")).collect()
}

/// `● Bash(ls -la)`: the call and the first thing it names.
fn call_line(block: &Value) -> String {
    let name = block.get("name").and_then(Value::as_str).unwrap_or("?");
    let input = block.get("input");
    let keys = ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt"];
    let shown = keys
        .iter()
        .find_map(|k| input.and_then(|i| i.get(*k)).and_then(Value::as_str))
        .map(|s| s.lines().next().unwrap_or_default())
        .unwrap_or_default();
    let shown: String = shown.chars().take(100).collect();
    format!("● {name}({shown})")
}

/// `  ⎿ first line (N lines)` of a tool's result.
fn result_line(block: &Value) -> String {
    let text = match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    };
    let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
    let lines = text.lines().count();
    let first: String = text.lines().next().unwrap_or_default().chars().take(100).collect();
    let more = if lines > 1 { format!(" (+{} lines)", lines - 1) } else { String::new() };
    let mark = if failed { "  ⎿ error: " } else { "  ⎿ " };
    format!("{mark}{first}{more}")
}
