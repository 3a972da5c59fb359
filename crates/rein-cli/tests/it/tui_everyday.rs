//! The everyday commands of issue 56 in a real terminal (tmux): `/skills` lists the
//! skills with where they come from, `/doctor` shows `rein doctor`'s report inside the
//! session, `/review` and `/security-review` ask the model to review the change in
//! progress (with a focus when one is given), `/theme` picks the colours and keeps them,
//! `/reload-plugins` reads a plugin's new parts and goes on with the conversation.

use rein_testkit::{Scenario, reply, text};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

/// The text of every transcript the sessions in `env` wrote.
fn transcripts(env: &Env) -> Vec<String> {
    std::fs::read_dir(env.home.path().join(".rein/projects"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .map(|f| std::fs::read_to_string(f.path()).unwrap())
        .collect()
}

#[test]
fn skills_doctor_and_the_reviews_do_what_they_say() {
    let env = Env::new();
    env.write(".claude/skills/tidy/SKILL.md", "---\nname: tidy\ndescription: Tidies the imports\n---\nSort them.\n");
    let server = serve(Scenario::new([reply([text("Nothing to change.")]), reply([text("No security problems.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");

    pane.type_text("/skills");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Tidies the imports");
    assert!(screen.contains("tidy") && screen.contains("project"), "{screen}");

    pane.type_text("/doctor");
    pane.keys(&["Enter"]);
    pane.wait_for("Settings files");

    pane.type_text("/review");
    pane.keys(&["Enter"]);
    pane.wait_for("Nothing to change.");
    pane.type_text("/security-review the login form");
    pane.keys(&["Enter"]);
    pane.wait_for("No security problems.");
    let asked: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body["messages"].as_array().unwrap().last().unwrap()["content"].to_string())
        .collect();
    assert!(asked[0].contains("Review the change in progress") && asked[0].contains("git diff"), "{asked:?}");
    assert!(asked[1].contains("for security") && asked[1].contains("Focus on: the login form"), "{asked:?}");
}

/// `/branch` forks the conversation: it goes on in a new session holding the same
/// history, and the original transcript stays as it was (both resumable).
#[test]
fn branch_goes_on_in_a_copy_and_keeps_the_original() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("First answer.")]), reply([text("Second answer.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("the first question");
    pane.keys(&["Enter"]);
    pane.wait_for("First answer.");
    pane.type_text("/branch");
    pane.keys(&["Enter"]);
    pane.wait_for("resumes it");
    pane.type_text("the second question");
    pane.keys(&["Enter"]);
    pane.wait_for("Second answer.");
    // The second request carries the whole history.
    let second = server.requests()[1].body["messages"].to_string();
    assert!(second.contains("the first question") && second.contains("First answer."), "{second}");
    let transcripts = transcripts(&env);
    assert_eq!(transcripts.len(), 2, "{transcripts:#?}");
    let (branch, original): (Vec<&String>, Vec<&String>) =
        transcripts.iter().partition(|t| t.contains("the second question"));
    assert_eq!((branch.len(), original.len()), (1, 1));
    assert!(original[0].contains("the first question") && branch[0].contains("the first question"));
    // Each line of the branch is its own session's.
    let ids: std::collections::BTreeSet<String> = branch[0]
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["sessionId"].as_str().map(str::to_string))
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
}

/// `/diff` shows what the session changed in files, as a diff against what they held
/// before: a file edited and a file made.
#[test]
fn diff_shows_what_the_session_changed() {
    let env = Env::new();
    env.write("notes.md", "one\ntwo\n");
    let notes = env.cwd().join("notes.md").display().to_string();
    let made = env.cwd().join("made.txt").display().to_string();
    let server = serve(Scenario::new([
        reply([rein_testkit::tool_use_with_id("r", "Read", serde_json::json!({"file_path": notes}))]),
        reply([rein_testkit::tool_use_with_id(
            "e",
            "Edit",
            serde_json::json!({"file_path": notes, "old_string": "two", "new_string": "deux"}),
        )]),
        reply([rein_testkit::tool_use_with_id(
            "w",
            "Write",
            serde_json::json!({"file_path": made, "content": "fresh\n"}),
        )]),
        reply([text("Edited and made.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "Read,Edit,Write"]);
    pane.wait_for("manual mode on");
    pane.type_text("change things");
    pane.keys(&["Enter"]);
    pane.wait_for("Edited and made.");
    pane.type_text("/diff");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("+fresh");
    for want in ["2 file(s) changed", "-two", "+deux", "/dev/null"] {
        assert!(screen.contains(want), "{want:?} not on screen:\n{screen}");
    }
}

/// `/statusline COMMAND` sets the status line at once and for the next sessions here.
#[test]
fn statusline_sets_the_status_line_now_and_for_later() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/statusline");
    pane.keys(&["Enter"]);
    pane.wait_for("No status line is set");
    pane.type_text("/statusline echo STATUS-FROM-$((40+2))");
    pane.keys(&["Enter"]);
    // The command's output, not the line typed.
    pane.wait_for("STATUS-FROM-42");
    let saved = std::fs::read_to_string(env.cwd().join(".claude/settings.local.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["statusLine"], serde_json::json!({"type": "command", "command": "echo STATUS-FROM-$((40+2))"}));
}

/// `/btw QUESTION` is answered from the conversation so far, without tools, and neither
/// the question nor the answer joins the conversation.
#[test]
fn btw_answers_on_the_side_and_leaves_the_conversation_alone() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("The build uses make.")]),
        reply([text("It was make, as I said.")]),
        reply([text("Next answer.")]),
    ]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("how is it built");
    pane.keys(&["Enter"]);
    pane.wait_for("The build uses make.");
    pane.type_text("/btw which tool again");
    pane.keys(&["Enter"]);
    pane.wait_for("It was make, as I said.");
    pane.type_text("go on");
    pane.keys(&["Enter"]);
    pane.wait_for("Next answer.");
    let reqs = server.requests();
    let side = &reqs[1].body;
    assert_eq!(side["tools"].as_array().map_or(0, Vec::len), 0, "{side}");
    let side_messages = side["messages"].to_string();
    assert!(side_messages.contains("how is it built") && side_messages.contains("which tool again"));
    let next = reqs[2].body["messages"].to_string();
    assert!(!next.contains("which tool again") && !next.contains("as I said"), "{next}");
    let transcript = transcripts(&env).concat();
    assert!(transcript.contains("go on") && !transcript.contains("which tool again"));
}

/// `/theme` lists the themes and takes one at once: the views draw in its colours, and it
/// is saved in the user's settings, so the next session starts in it.
#[test]
fn theme_is_picked_drawn_and_kept_for_the_next_session() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Painted.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/theme");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("light-daltonized");
    assert!(screen.contains("dark (in use)") && screen.contains("dark-ansi"), "{screen}");
    // The second item is `light`.
    pane.keys(&["Down", "Enter"]);
    pane.wait_for("Theme set to light");
    let saved = std::fs::read_to_string(env.home.path().join(".claude/settings.json")).unwrap();
    assert!(saved.contains("\"theme\": \"light\""), "{saved}");
    pane.type_text("paint it");
    pane.keys(&["Enter"]);
    pane.wait_for("Painted.");
    // The light theme's colours are exact RGB ones (the dark theme uses the terminal's own).
    let coloured = pane.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
    assert!(coloured.contains("38;2;"), "{coloured}");
    drop(pane);

    let next = serve(Scenario::new([reply([text("Again.")])]));
    let pane = Pane::start(&env, &next, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/theme");
    pane.keys(&["Enter"]);
    pane.wait_for("light (in use)");
}

/// `/reload-plugins` reads a plugin's new parts without the person starting rein again:
/// the conversation goes on, in the same session, model and mode, with the command the
/// plugin gained meanwhile.
#[test]
fn reload_plugins_picks_up_a_new_command_and_keeps_the_conversation() {
    let env = Env::new();
    let plugin = env.home.path().join("plug");
    let write = |rel: &str, text: &str| {
        let path = plugin.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(".claude-plugin/plugin.json", r#"{"name": "kit", "version": "1.0.0"}"#);
    write("commands/old.md", "---\ndescription: The old one\n---\nOLD COMMAND BODY\n");
    let server = serve(Scenario::new([reply([text("First answer.")]), reply([text("Fresh answer.")])]));
    let dir = plugin.display().to_string();
    let pane = Pane::start(&env, &server, &["--plugin-dir", &dir]);
    pane.wait_for("manual mode on");
    pane.type_text("the first question");
    pane.keys(&["Enter"]);
    pane.wait_for("First answer.");
    pane.keys(&["BTab"]);
    pane.wait_for("accept edits on");
    write("commands/fresh.md", "---\ndescription: The new one\n---\nFRESH COMMAND BODY\n");
    pane.type_text("/reload-plugins");
    pane.keys(&["Enter"]);
    pane.wait_for("Reading the plugins and settings again");
    pane.wait_for("Resumed a conversation of 2 messages");
    pane.type_text("/kit:fresh");
    pane.keys(&["Enter"]);
    pane.wait_for("Fresh answer.");
    // rein is back in the same mode (the old status line went with the old process).
    let visible = pane.tmux(&["capture-pane", "-p", "-t", "t"]);
    assert!(visible.contains("accept edits on"), "{visible}");
    let second = server.requests()[1].body["messages"].to_string();
    assert!(second.contains("FRESH COMMAND BODY"), "{second}");
    assert!(second.contains("the first question") && second.contains("First answer."), "{second}");
    assert_eq!(transcripts(&env).len(), 1, "the same session goes on");
}
