//! What a person sees and does at a glance, in a real terminal (tmux): a dialog taller
//! than the window shows every choice and scrolls; a draft survives the history; the
//! completion menus choose with the arrows; answers wrap at word boundaries and tables
//! are drawn; a resize redraws the dialog at the new width; the exit names the session
//! to resume and echoes no cursor report.

use std::time::{Duration, Instant};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

pub(crate) fn wait_until(pane: &Pane, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let screen = pane.screen();
        if ok(&screen) {
            return screen;
        }
        assert!(Instant::now() < deadline, "waited for {what}; the screen shows:\n{screen}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_long_heredoc_shows_every_choice_and_scrolls_to_its_end() {
    let env = Env::new();
    let body: String = (1..=60).map(|i| format!("entry number {i}\n")).collect();
    let command = format!("cat > notes.txt <<'EOF'\n{body}EOF");
    let server =
        serve(Scenario::new([reply([call("a", "Bash", json!({"command": command}))]), reply([text("Written.")])]));
    let pane = Pane::start(&env, &server, &["'write the notes'"]);
    let screen = pane.wait_for("Do you want to proceed?");
    assert!(screen.contains("3. No, and tell rein"), "every choice shows:\n{screen}");
    assert!(screen.contains("entry number 1") && !screen.contains("entry number 60"), "{screen}");
    assert!(screen.contains("enter: more"), "the position shows:\n{screen}");
    // The command, then the changes it made when tried first (its diff).
    for _ in 0..16 {
        pane.keys(&["PPage"]);
        pane.keys(&["NPage"]);
        pane.keys(&["NPage"]);
    }
    wait_until(&pane, "the end of the heredoc", |s| {
        s.contains("entry number 60") && s.contains("3. No, and tell rein")
    });
    pane.keys(&["1"]);
    pane.wait_for("Written.");
    assert_eq!(std::fs::read_to_string(env.cwd().join("notes.txt")).unwrap(), body);
}

#[test]
fn a_draft_survives_the_history_and_menus_choose_with_the_arrows() {
    let env = Env::new();
    env.write("src/alpha_parser.rs", "fn a() {}\n");
    env.write("src/beta_parser.rs", "fn b() {}\n");
    let server = serve(Scenario::new([reply([text("First answer.")]), reply([text("Second answer.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("an earlier prompt");
    pane.keys(&["Enter"]);
    pane.wait_for("First answer.");
    pane.type_text("half a thought");
    pane.keys(&["Up"]);
    pane.wait_for("❯ an earlier prompt");
    pane.keys(&["Down"]);
    pane.wait_for("❯ half a thought");
    pane.keys(&["C-u"]);
    // `/` lists the commands with what they do; Down chooses; Tab takes it.
    pane.type_text("/co");
    let menu = pane.wait_for("/compact");
    assert!(menu.contains("/cost") && menu.contains("summarise the conversation"), "{menu}");
    pane.keys(&["Down", "Tab"]);
    wait_until(&pane, "the chosen command", |s| s.lines().any(|l| l.trim_end() == "❯ /context"));
    pane.keys(&["C-u"]);
    // `@` lists files; Down picks the second without touching the history.
    pane.type_text("check @parser");
    pane.wait_for("@src/beta_parser.rs");
    pane.keys(&["Down", "Enter"]);
    let screen = wait_until(&pane, "the chosen file", |s| s.contains("❯ check @src/"));
    assert!(!screen.contains("❯ an earlier prompt"), "Down did not walk the history:\n{screen}");
    pane.keys(&["Enter"]);
    pane.wait_for("Second answer.");
    let body = server.requests()[1].body.to_string();
    assert!(body.contains("fn b() {}") || body.contains("fn a() {}"), "the file chosen went with the prompt");
}

#[test]
fn answers_wrap_at_word_boundaries_and_tables_are_drawn() {
    let env = Env::new();
    let paragraph = "The configuration loader reads every settings scope in order and merges them, so that a \
                     project setting overrides the user's own and a managed one overrides both of them entirely.";
    let answer = format!(
        "{paragraph}\n\n| Scope | File |\n|---|---|\n| user | ~/.claude/settings.json |\n| project | .claude/settings.json |\n"
    );
    let server = serve(Scenario::new([reply([text(&answer)])]));
    let pane = Pane::start(&env, &server, &["'explain'"]);
    let screen = pane.wait_for("└");
    // Every row of the paragraph ends on a whole word and starts under the text.
    let words: std::collections::HashSet<&str> = paragraph.split_whitespace().collect();
    let rows: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.starts_with("⏺ The"))
        .take_while(|l| !l.trim().is_empty() && !l.contains('┌'))
        .collect();
    assert!(rows.len() >= 2, "the paragraph wraps:\n{screen}");
    for row in &rows[1..] {
        assert!(row.starts_with("  ") && !row.starts_with("   "), "continuation rows hang under the text: {row:?}");
    }
    for row in &rows {
        for word in row.trim_start_matches("⏺").split_whitespace() {
            assert!(words.contains(word), "a word was split: {word:?} in {row:?}\n{screen}");
        }
    }
    assert!(screen.contains("│ Scope   │ File"), "the table is drawn:\n{screen}");
    assert!(!screen.contains("|---|"), "{screen}");
}

#[test]
fn a_resize_while_a_dialog_waits_redraws_it_and_the_exit_names_the_session() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "touch resized.txt", "description": "Make the file"}))]),
        reply([text("Done after the resize.")]),
    ]));
    let pane = Pane::start(&env, &server, &["'go'"]);
    pane.wait_for("Do you want to proceed?");
    pane.tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    wait_until(&pane, "the dialog redrawn at the new width", |s| {
        s.lines().any(|l| l.starts_with('╰') && l.chars().count() == 80)
    });
    pane.keys(&["1"]);
    pane.wait_for("Done after the resize.");
    pane.keys(&["C-c", "C-c"]);
    let screen = wait_until(&pane, "the resume line", |s| s.contains("rein --resume "));
    assert!(!screen.contains("[14;") && !screen.contains(";3R"), "no cursor report echoed:\n{screen}");
}

/// A resize while an answer streams: the answer arrives once, whole, and no spinner is
/// left behind.
#[test]
fn a_resize_while_an_answer_streams_leaves_no_spinner_behind() {
    let env = Env::new();
    let answer = "First part of the answer.\nSecond part, after the resize.";
    // The stream pauses 1.5 s once it has begun: the window changes meanwhile.
    let server = serve(Scenario::new([reply([text(answer)]).pause_after_event(2, 1500)]));
    let pane = Pane::start(&env, &server, &["'go'"]);
    pane.wait_for("Working…");
    // Wider and shorter (a narrower window re-wraps full-width rows in tmux: see the
    // closing notes of issue 29).
    pane.tmux(&["resize-window", "-t", "t", "-x", "120", "-y", "26"]);
    pane.wait_for("Second part, after the resize.");
    let screen = wait_until(&pane, "the turn's end", |s| !s.contains("esc to interrupt"));
    assert_eq!(screen.matches("First part of the answer.").count(), 1, "once:\n{screen}");
    assert_eq!(screen.matches("Working…").count(), 0, "no stale spinner:\n{screen}");
}

/// A storm of resizes while a tall dialog waits (narrower, wider, shorter): the terminal
/// re-wraps and pushes pieces of the old frame into its scrollback as it goes; once the
/// window keeps its size, the screen is drawn again whole, so the scrollback holds one
/// copy of the question, laid out at the final width.
#[test]
fn a_resize_storm_during_a_dialog_leaves_one_clean_copy_of_it() {
    let env = Env::new();
    let command = "touch resized.txt && echo one && echo two && echo three";
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": command, "description": "Make the file"}))]),
        reply([text("Done after the storm.")]),
    ]));
    let pane = Pane::start(&env, &server, &["'go'"]);
    pane.wait_for("Do you want to proceed?");
    for width in ["60", "90", "50", "110", "70", "40", "100"] {
        pane.tmux(&["resize-window", "-t", "t", "-x", width, "-y", "24"]);
    }
    let screen = wait_until(&pane, "the dialog drawn again at 100 columns", |s| {
        s.lines().any(|l| l.starts_with('╰') && l.chars().count() == 100)
            && s.matches("Bash command").count() == 1
            && s.lines().all(|l| !l.starts_with('╰') || l.chars().count() == 100)
    });
    assert_eq!(screen.matches("Do you want to proceed?").count(), 1, "{screen}");
    assert_eq!(screen.matches("✻ rein ").count(), 1, "the banner once:\n{screen}");
    pane.keys(&["1"]);
    pane.wait_for("Done after the storm.");
}
