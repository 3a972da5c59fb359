//! For `rein-bench`: what laying out one frame of a tall live area costs — a 200-row
//! table still streaming (held, drawn with box characters, columns fitted) and a long
//! paragraph being wrapped, at 120 columns — measured in process, rendered into a
//! buffer as the terminal frame would be.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use rein_policy::{Policy, SharedPolicy};
use tokio::sync::mpsc;

use crate::app::App;

/// The median times of `runs` frames of a live area of about `rows` rows: laying it out
/// (wrapping, the table, the dialog or input box), and the whole frame (layout and
/// drawing into the frame's buffer).
pub fn live_area_frame(rows: usize, runs: usize) -> (Duration, Duration) {
    let (tx, _rx) = mpsc::unbounded_channel();
    let policy = SharedPolicy::new(Policy::allow_all(PathBuf::from("/w")));
    let mut app = App::new(PathBuf::from("/w"), PathBuf::from("/w"), "claude-bench".into(), policy, tx);
    let mut text = String::from("| file | lines | what it holds |\n|---|---:|---|\n");
    for i in 0..rows {
        text.push_str(&format!(
            "| src/module_{i}.rs | {} | the parser's helpers for case {i}, and their tests |\n",
            i * 7
        ));
    }
    text.push_str(&"a long paragraph that keeps streaming and has to be wrapped at word boundaries ".repeat(20));
    app.stream.push(&text, 120);
    let width = 120u16;
    let height = (rows + 40) as u16;
    let Ok(mut term) = Terminal::with_options(
        TestBackend::new(width, height),
        TerminalOptions { viewport: Viewport::Fixed(Rect::new(0, 0, width, height)) },
    );
    let mut layout = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let live = crate::view::live(&mut app, width, height);
        layout.push(t0.elapsed());
        let _ = term.draw(|f| crate::view::render(live, f));
        whole.push(t0.elapsed());
    }
    layout.sort();
    whole.sort();
    (layout[layout.len() / 2], whole[whole.len() / 2])
}
