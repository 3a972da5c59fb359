//! How a finished tool call reads in the history: `⏺ Tool(main argument)` and an
//! indented `⎿` summary — lines read, lines written, a numbered diff for edits, the
//! first lines of a command's output with `… +N lines (ctrl+o to expand)`.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use rein_protocol::ToolUse;
use serde_json::Value;

/// Output lines of a command shown before the rest is folded.
const SHOWN_OUTPUT_LINES: usize = 3;
/// Diff lines shown for an edit.
const SHOWN_DIFF_LINES: usize = 12;

/// The name a tool is shown with, and its main argument.
pub(crate) fn header(call: &ToolUse, cwd: &std::path::Path) -> String {
    let s = |k: &str| call.input.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let rel = |p: String| std::path::Path::new(&p).strip_prefix(cwd).map(|r| r.display().to_string()).unwrap_or(p);
    match call.name.as_str() {
        "Bash" => format!("Bash({})", one_line(&s("command"), 100)),
        "Read" => format!("Read({})", rel(s("file_path"))),
        "Write" => format!("Write({})", rel(s("file_path"))),
        "Edit" | "MultiEdit" => format!("Update({})", rel(s("file_path"))),
        "NotebookEdit" => format!("Update({})", rel(s("notebook_path"))),
        "Grep" => {
            let path = s("path");
            if path.is_empty() {
                format!("Search(pattern: \"{}\")", s("pattern"))
            } else {
                format!("Search(pattern: \"{}\", path: \"{}\")", s("pattern"), rel(path))
            }
        }
        "Glob" => format!("Search(pattern: \"{}\")", s("pattern")),
        "WebFetch" => format!("Fetch({})", s("url")),
        "TodoWrite" => "Update Todos".to_string(),
        // The agent's own name when it has one: `reviewer(check the diff)`.
        "Agent" | "Task" => match s("subagent_type") {
            t if t.is_empty() || t == "general-purpose" => format!("Agent({})", s("description")),
            t => format!("{t}({})", s("description")),
        },
        other => {
            let arg = call.input.as_object().and_then(|o| o.values().find_map(Value::as_str)).unwrap_or_default();
            if arg.is_empty() { other.to_string() } else { format!("{other}({})", one_line(arg, 80)) }
        }
    }
}

/// The summary lines under the header (without the `⎿` indent).
pub(crate) fn summary(call: &ToolUse, text: &str, is_error: bool) -> Vec<Line<'static>> {
    if is_error {
        let first = text.lines().next().unwrap_or("failed");
        let first = if first.starts_with("Error") { first.to_string() } else { format!("Error: {first}") };
        let mut out =
            vec![Line::from(Span::styled(one_line(&first, 200), Style::default().fg(crate::theme::palette().error)))];
        let rest: Vec<&str> = text.lines().skip(1).collect();
        if !rest.is_empty() {
            out.extend(folded(rest, 2));
        }
        return out;
    }
    let input = &call.input;
    let s = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
    let count = |t: &str| t.lines().count();
    match call.name.as_str() {
        "Read" => vec![Line::from(read_summary(s("file_path"), text))],
        "Write" => vec![Line::from(format!("Wrote {} lines to {}", count(s("content")), s("file_path")))],
        "Edit" => {
            let base = file_line_of(text, s("new_string"));
            diff_summary(s("file_path"), &[(s("old_string"), s("new_string"))], base)
        }
        "MultiEdit" => {
            let edits: Vec<(&str, &str)> = input
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|e| {
                    let g = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
                    (g("old_string"), g("new_string"))
                })
                .collect();
            diff_summary(s("file_path"), &edits, None)
        }
        "Grep" | "Glob" => {
            let none = text.starts_with("No files found") || text.starts_with("No matches found");
            let n = if none { 0 } else { text.lines().filter(|l| !l.trim().is_empty()).count() };
            let content = input.get("output_mode").and_then(Value::as_str) == Some("content");
            let what = match (content, n == 1) {
                (true, true) => "line",
                (true, false) => "lines",
                (false, true) => "file",
                (false, false) => "files",
            };
            vec![Line::from(format!("Found {n} {what}"))]
        }
        "TodoWrite" => todos(input),
        "WebFetch" => vec![Line::from(format!("Received {} characters", text.chars().count()))],
        _ => folded(text.lines().collect(), SHOWN_OUTPUT_LINES),
    }
}

/// The first lines, then `… +N lines (ctrl+o to expand)`.
fn folded(lines: Vec<&str>, shown: usize) -> Vec<Line<'static>> {
    let total = lines.len();
    folded_counted(lines, total, shown)
}

/// What a Read brought: lines of text, or an image, a PDF's pages, a notebook's cells.
fn read_summary(path: &str, text: &str) -> String {
    let ext = std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or_default().to_lowercase();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" => "Read image".to_string(),
        "pdf" => match text.rsplit_once(": pages ") {
            Some((_, pages)) => format!("Read PDF (pages {})", pages.trim_end_matches('.')),
            None => "Read PDF".to_string(),
        },
        "ipynb" => format!("Read {} cells", text.matches("<cell id=").count()),
        _ => format!("Read {} lines", text.lines().count()),
    }
}

/// A saved output's summary: its first lines and how many more the whole has.
pub(crate) fn folded_of(head: &[String], total: usize) -> Vec<Line<'static>> {
    folded_counted(head.iter().map(String::as_str).collect(), total, SHOWN_OUTPUT_LINES)
}

fn folded_counted(lines: Vec<&str>, total: usize, shown: usize) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = lines.iter().take(shown).map(|l| Line::from(one_line(l, 200))).collect();
    if total > shown {
        let more = format!("… +{} lines (ctrl+o to expand)", total - shown);
        out.push(Line::from(Span::styled(more, Style::default().add_modifier(Modifier::DIM))));
    }
    if out.is_empty() {
        out.push(Line::from("(no output)"));
    }
    out
}

/// Where `new` starts in the file, read off the `cat -n` region an Edit result shows.
fn file_line_of(result: &str, new: &str) -> Option<usize> {
    let first = new.lines().next().filter(|l| !l.trim().is_empty())?;
    result.lines().find_map(|l| {
        let (number, content) = l.trim_start().split_once('\t')?;
        (content == first).then(|| number.trim().parse::<usize>().ok()).flatten()
    })
}

/// `Updated path with A additions and R removals` and a coloured diff, numbered by file
/// line when `base` (the file line of the first new line) is known.
fn diff_summary(path: &str, edits: &[(&str, &str)], base: Option<usize>) -> Vec<Line<'static>> {
    let edits: Vec<(&str, &str, Option<usize>)> = edits.iter().map(|(o, n)| (*o, *n, base)).collect();
    let (body, added, removed) = diff_lines(&edits);
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut out = vec![Line::from(format!(
        "Updated {path} with {} and {}",
        plural(added, "addition", "additions"),
        plural(removed, "removal", "removals")
    ))];
    let total = body.len();
    out.extend(body.into_iter().take(SHOWN_DIFF_LINES));
    if total > SHOWN_DIFF_LINES {
        let more = format!("… +{} lines (ctrl+o to expand)", total - SHOWN_DIFF_LINES);
        out.push(Line::from(Span::styled(more, Style::default().add_modifier(Modifier::DIM))));
    }
    out
}

/// Each edit's diff (old, new, the file line where old starts), numbered by file line,
/// three lines of context around each change; and the lines added and removed.
fn diff_lines(edits: &[(&str, &str, Option<usize>)]) -> (Vec<Line<'static>>, usize, usize) {
    let (mut added, mut removed) = (0, 0);
    let mut body: Vec<Line<'static>> = Vec::new();
    let dim = Style::default().add_modifier(Modifier::DIM);
    for (old, new, base) in edits {
        let diff = similar::TextDiff::from_lines(*old, *new);
        for (g, group) in diff.grouped_ops(3).iter().enumerate() {
            if g > 0 {
                body.push(Line::from(Span::styled("     ⋮", dim)));
            }
            for op in group {
                for change in diff.iter_changes(op) {
                    let line = change.value().trim_end_matches('\n').to_string();
                    let (sign, style, number) = match change.tag() {
                        similar::ChangeTag::Delete => {
                            removed += 1;
                            ("-", Style::default().fg(crate::theme::palette().error), change.old_index())
                        }
                        similar::ChangeTag::Insert => {
                            added += 1;
                            ("+", Style::default().fg(crate::theme::palette().success), change.new_index())
                        }
                        similar::ChangeTag::Equal => (" ", dim, change.new_index()),
                    };
                    let n = number.map(|n| n + base.unwrap_or(1)).unwrap_or(0);
                    body.push(Line::from(Span::styled(format!("{n:>4} {sign} {line}"), style)));
                }
            }
        }
    }
    (body, added, removed)
}

/// The change an edit call would make, in full, for the permission dialog: the diff
/// numbered by file line (read off the file as it is now), or a new file's content.
pub(crate) fn proposed_change(call: &ToolUse) -> Vec<Line<'static>> {
    let s = |k: &str| call.input.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let path = if call.name == "NotebookEdit" { s("notebook_path") } else { s("file_path") };
    let current = std::fs::read_to_string(&path).ok();
    let line_of = |text: &str, needle: &str| {
        text.find(needle).filter(|_| !needle.is_empty()).map(|i| text[..i].matches('\n').count() + 1)
    };
    let edits: Vec<(String, String)> = match call.name.as_str() {
        "Edit" => vec![(s("old_string"), s("new_string"))],
        "MultiEdit" => call
            .input
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|e| {
                let g = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                (g("old_string"), g("new_string"))
            })
            .collect(),
        "Write" => match &current {
            Some(old) => vec![(old.clone(), s("content"))],
            None => {
                let style = Style::default().fg(crate::theme::palette().success);
                return s("content")
                    .lines()
                    .enumerate()
                    .map(|(i, l)| Line::from(Span::styled(format!("{:>4} + {l}", i + 1), style)))
                    .collect();
            }
        },
        _ => return s("new_source").lines().map(|l| Line::from(format!("  {l}"))).collect(),
    };
    // Each edit applies to the text the ones before it left.
    let mut text = current.unwrap_or_default();
    let mut numbered = Vec::new();
    for (old, new) in &edits {
        let base = if call.name == "Write" { Some(1) } else { line_of(&text, old) };
        numbered.push((old.as_str(), new.as_str(), base));
        text = text.replacen(old.as_str(), new, 1);
    }
    diff_lines(&numbered).0
}

/// `☐` pending, `☒` done (dimmed), the one in progress in bold.
fn todos(input: &Value) -> Vec<Line<'static>> {
    todo_items(input).iter().map(|(content, status)| todo_line(content, status)).collect()
}

/// A TodoWrite call's items: (content, status).
pub(crate) fn todo_items(input: &Value) -> Vec<(String, String)> {
    let field = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    input
        .get("todos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| (field(t, "content"), field(t, "status")))
        .collect()
}

/// One item of the task list as it shows.
pub(crate) fn todo_line(content: &str, status: &str) -> Line<'static> {
    match status {
        "completed" => Line::from(Span::styled(format!("☒ {content}"), Style::default().add_modifier(Modifier::DIM))),
        "in_progress" => {
            Line::from(Span::styled(format!("☐ {content}"), Style::default().add_modifier(Modifier::BOLD)))
        }
        _ => Line::from(format!("☐ {content}")),
    }
}

/// The first line of `s`, at most `max` characters.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let first = s.lines().next().unwrap_or_default();
    let more = s.lines().nth(1).is_some();
    let mut out: String = first.chars().take(max).collect();
    if more || first.chars().count() > max {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(lines: &[Line<'_>]) -> String {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn call(name: &str, input: Value) -> ToolUse {
        ToolUse { id: "t".into(), name: name.into(), input }
    }

    #[test]
    fn summaries() {
        let cwd = std::path::Path::new("/w");
        let read = call("Read", json!({"file_path": "/w/src/a.rs"}));
        assert_eq!(header(&read, cwd), "Read(src/a.rs)");
        assert_eq!(text(&summary(&read, "     1\ta\n     2\tb\n", false)), "Read 2 lines");
        let pdf = call("Read", json!({"file_path": "/w/paper.pdf", "pages": "2-4"}));
        assert_eq!(text(&summary(&pdf, "PDF /w/paper.pdf: pages 2-4 of 12.", false)), "Read PDF (pages 2-4 of 12)");
        let shot = call("Read", json!({"file_path": "/w/shot.PNG"}));
        assert_eq!(text(&summary(&shot, "", false)), "Read image");
        let nb = call("Read", json!({"file_path": "/w/nb.ipynb"}));
        assert_eq!(
            text(&summary(&nb, "<cell id=\"a\">1</cell id=\"a\">\n2\n<cell id=\"b\">x</cell id=\"b\">", false)),
            "Read 2 cells"
        );
        let bash = call("Bash", json!({"command": "seq 10"}));
        insta::assert_snapshot!("bash_folded", text(&summary(&bash, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", false)));
        let edit =
            call("Edit", json!({"file_path": "src/a.rs", "old_string": "a\nb\nc\n", "new_string": "a\nB\nc\nd\n"}));
        assert_eq!(header(&edit, cwd), "Update(src/a.rs)");
        insta::assert_snapshot!("edit_diff", text(&summary(&edit, "ok", false)));
        let updated = "Edited src/a.rs; the changed lines now read:\n    40\tx\n    41\ta\n    42\tB\n";
        let numbered = text(&summary(&edit, updated, false));
        assert!(numbered.contains("  41   a") && numbered.contains("  42 + B"), "{numbered}");
        let grep = call("Grep", json!({"pattern": "nothing"}));
        assert_eq!(text(&summary(&grep, "No files found", false)), "Found 0 files");
        assert_eq!(text(&summary(&grep, "a.rs", false)), "Found 1 file");
        let failed = call("Bash", json!({"command": "false"}));
        assert_eq!(text(&summary(&failed, "Exit code 1", true)), "Error: Exit code 1");
        let todo = call(
            "TodoWrite",
            json!({"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}),
        );
        assert_eq!(text(&summary(&todo, "", false)), "☒ a\n☐ b");
    }
}
