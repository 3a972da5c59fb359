//! A readable transcript: streamed text, each tool call, the first lines of its result.

use std::io::Write;
use std::time::Duration;

use rein_protocol::{ContentBlock, ToolResultContent};
use rein_session::events::{EngineEvent, Outcome, StreamDelta};

const RESULT_PREVIEW_LINES: usize = 6;

pub(crate) struct Human {
    out: Box<dyn Write + Send>,
    mid_line: bool,
    tool_calls: usize,
    /// Inside a thinking block.
    thinking: bool,
    /// Dim thinking with ANSI codes (the output is a terminal).
    color: bool,
}

impl Human {
    /// `color`: whether `out` is a terminal, so that thinking can be shown dimmed.
    pub(crate) fn new(out: Box<dyn Write + Send>, color: bool) -> Self {
        Human { out, mid_line: false, tool_calls: 0, thinking: false, color }
    }

    /// Thinking, dimmed, under a `✻ Thinking…` header.
    fn thinking(&mut self, text: &str) {
        if !self.thinking {
            self.end_line();
            let _ = writeln!(self.out, "\n✻ Thinking…");
            self.thinking = true;
        }
        let (on, off) = if self.color { ("\x1b[2m", "\x1b[0m") } else { ("", "") };
        let _ = write!(self.out, "{on}{text}{off}");
        self.mid_line = !text.ends_with('\n');
        let _ = self.out.flush();
    }

    pub(crate) fn event(&mut self, event: &EngineEvent) {
        match event {
            EngineEvent::Stream(StreamDelta::Thinking { thinking, .. }) => self.thinking(thinking),
            EngineEvent::Stream(StreamDelta::Text { text, .. }) => {
                if self.thinking {
                    self.end_line();
                    self.thinking = false;
                }
                if !self.mid_line {
                    let _ = write!(self.out, "\n● ");
                }
                let _ = write!(self.out, "{text}");
                self.mid_line = !text.ends_with('\n');
                let _ = self.out.flush();
            }
            EngineEvent::Assistant(_) => {
                self.end_line();
                self.thinking = false;
            }
            EngineEvent::ToolStarted(call) => {
                self.end_line();
                self.thinking = false;
                self.tool_calls += 1;
                let args = match call.input.as_object() {
                    Some(map) => map
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", shorten(&v.to_string().replace('\n', "\\n"), 80)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => call.input.to_string(),
                };
                let _ = writeln!(self.out, "\n⏺ {}({args})", call.name);
            }
            EngineEvent::ToolFinished { result: ContentBlock::ToolResult { content, is_error, .. }, .. } => {
                self.result(content, *is_error);
            }
            EngineEvent::Permission { verdict, .. } if !verdict.allowed() => {
                let _ = writeln!(self.out, "  ⊘  refused: {}", verdict.decision.source);
            }
            // A subagent's calls, under the call it works inside.
            EngineEvent::AgentStep { step: rein_session::events::AgentStep::ToolStarted(call), .. } => {
                self.end_line();
                let _ = writeln!(self.out, "  ⎿ {}", call.name);
            }
            EngineEvent::Stream(_)
            | EngineEvent::AgentStep { .. }
            | EngineEvent::Interrupted(_)
            | EngineEvent::ToolResults(_)
            | EngineEvent::ToolFinished { .. }
            | EngineEvent::Permission { .. }
            | EngineEvent::ToolDone { .. }
            | EngineEvent::Notice(_)
            | EngineEvent::ApiRetry { .. }
            | EngineEvent::Compacted { .. } => {}
        }
    }

    fn result(&mut self, content: &ToolResultContent, is_error: bool) {
        let text = content.to_text();
        let lines: Vec<&str> = text.lines().collect();
        let mark = if is_error { "  ⎿  (error) " } else { "  ⎿  " };
        for (i, l) in lines.iter().take(RESULT_PREVIEW_LINES).enumerate() {
            let lead = if i == 0 { mark } else { "     " };
            let _ = writeln!(self.out, "{lead}{}", shorten(l, 110));
        }
        if lines.len() > RESULT_PREVIEW_LINES {
            let _ = writeln!(self.out, "     … +{} lines", lines.len() - RESULT_PREVIEW_LINES);
        }
        if lines.is_empty() {
            let _ = writeln!(self.out, "{mark}(empty)");
        }
    }

    fn end_line(&mut self) {
        if self.mid_line {
            let _ = writeln!(self.out);
            self.mid_line = false;
        }
    }

    pub(crate) fn finish(&mut self, outcome: &Outcome, elapsed: Duration) {
        self.end_line();
        let _ = writeln!(
            self.out,
            "\n— {} model turns, {} tool calls, {} ms{}",
            outcome.num_turns,
            self.tool_calls,
            elapsed.as_millis(),
            if outcome.cost_usd > 0.0 { format!(", ${:.4}", outcome.cost_usd) } else { String::new() }
        );
        let _ = self.out.flush();
    }
}

fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}
