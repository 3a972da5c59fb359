//! The everyday session commands in a real terminal (tmux), each with its effect on disk
//! or screen: `/export FILE`, `/copy` (through a stand-in xclip, and over OSC 52 into
//! tmux's buffer when no tool runs), `/add-dir` (a file there can then be edited, and
//! DirectoryAdded hooks hear of it),
//! `/rename`, `/effort`, `/plan`, `/rewind`.

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

#[test]
fn export_copy_rename_and_effort_do_what_they_say() {
    let env = Env::new();
    let bin = env.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copied = env.home.path().join("copied.txt");
    let xclip = bin.join("xclip");
    let seen_env = env.home.path().join("xclip-env");
    std::fs::write(&xclip, format!("#!/bin/sh\nenv > '{}'\ncat > '{}'\n", seen_env.display(), copied.display()))
        .unwrap();
    std::fs::set_permissions(&xclip, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let server = serve(Scenario::new([
        reply([call("ls", "Bash", json!({"command": "echo listed"}))]),
        reply([text("The answer is forty-two.")]),
        reply([text("Second answer.")]),
    ]));
    let vars = format!("PATH='{}:{}' DISPLAY=:99", bin.display(), std::env::var("PATH").unwrap_or_default());
    let pane = Pane::start_with(&env, &server, &vars, &["--allowedTools", "'Bash(echo:*)'"]);
    pane.wait_for("manual mode on");
    pane.type_text("what is the answer");
    pane.keys(&["Enter"]);
    pane.wait_for("forty-two.");

    pane.type_text("/export notes/chat.md");
    pane.keys(&["Enter"]);
    pane.wait_for("Exported the conversation to");
    let md = std::fs::read_to_string(env.cwd().join("notes/chat.md")).unwrap();
    for part in
        ["## ❯ Prompt", "what is the answer", "### Tool: Bash", "echo listed", "listed", "The answer is forty-two."]
    {
        assert!(md.contains(part), "{part:?} missing from the export:\n{md}");
    }

    pane.type_text("/copy");
    pane.keys(&["Enter"]);
    pane.wait_for("to the clipboard via xclip");
    // rein hands the text to xclip and goes on (a real xclip stays to serve the
    // selection): the stand-in may still be writing it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(&copied).unwrap_or_default().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&copied).unwrap(), "The answer is forty-two.");
    let seen = std::fs::read_to_string(&seen_env).unwrap();
    assert!(seen.contains("DISPLAY=") && !seen.contains("ANTHROPIC_API_KEY"), "rein's key reached xclip");

    pane.type_text("/rename Answer hunt");
    pane.keys(&["Enter"]);
    pane.wait_for("Session renamed to \"Answer hunt\"");

    pane.type_text("/effort high");
    pane.keys(&["Enter"]);
    pane.wait_for("Effort set to high");
    pane.type_text("again");
    pane.keys(&["Enter"]);
    pane.wait_for("Second answer.");
    let reqs = server.requests();
    assert_eq!(reqs[2].body["output_config"]["effort"], "high", "{}", reqs[2].body["output_config"]);

    pane.type_text("/plan");
    pane.keys(&["Enter"]);
    pane.wait_for("plan mode on");
    let sessions = std::process::Command::new(assert_cmd::cargo::cargo_bin("rein"))
        .args(["sessions"])
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&sessions.stdout);
    assert!(listed.contains("Answer hunt"), "rein sessions lists the new name:\n{listed}");
}

#[test]
fn copy_without_a_clipboard_tool_goes_over_osc_52() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Copy me over the wire.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    pane.wait_for("manual mode on");
    pane.type_text("hello");
    pane.keys(&["Enter"]);
    pane.wait_for("Copy me over the wire.");
    pane.type_text("/copy");
    pane.keys(&["Enter"]);
    pane.wait_for("(OSC 52)");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let buffer = pane.tmux(&["show-buffer"]);
        if buffer == "Copy me over the wire." {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "tmux's buffer holds {buffer:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn add_dir_lets_a_file_in_another_folder_be_edited() {
    let env = Env::new();
    env.trust();
    let log = env.cwd().join("added.json");
    let hook = format!("cat > '{}'", log.display());
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"DirectoryAdded": [{"matcher": "slash_command", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let other = tempfile::tempdir().unwrap();
    let target = std::fs::canonicalize(other.path()).unwrap().join("shared.txt");
    std::fs::write(&target, "old value\n").unwrap();
    let edit = json!({"file_path": target.display().to_string(), "old_string": "old", "new_string": "new"});
    let server = serve(Scenario::new([
        reply([call("r", "Read", json!({"file_path": target.display().to_string()}))]),
        reply([call("e", "Edit", edit)]),
        reply([text("Edited the shared file.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--permission-mode", "acceptEdits"]);
    pane.wait_for("accept edits on");
    pane.type_text(&format!("/add-dir {}", other.path().display()));
    pane.keys(&["Enter"]);
    pane.wait_for("as a working directory for this session");
    pane.type_text("change the shared file");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Edited the shared file.");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "new value\n",
        "accept-edits covers the added folder:\n{screen}"
    );
    let added: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(added["hook_event_name"], "DirectoryAdded");
    assert_eq!(added["source"], "slash_command");
    assert_eq!(added["directory"], target.parent().unwrap().display().to_string());
}

/// `~/.claude/keybindings.json`: a key bound to an action does it, a key bound to null
/// does nothing; a file that is not JSON stops rein naming its line.
#[test]
fn keybindings_json_rebinds_and_unbinds_keys() {
    let env = Env::new();
    let claude = env.home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let bindings = json!({"bindings": [{"context": "Chat", "bindings": {"meta+s": "chat:submit", "ctrl+u": null}}]});
    std::fs::write(claude.join("keybindings.json"), bindings.to_string()).unwrap();
    let server = serve(Scenario::new([reply([text("Sent with meta+s.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("kept text");
    pane.keys(&["C-u"]);
    pane.keys(&["M-s"]);
    pane.wait_for("Sent with meta+s.");
    let reqs = server.requests();
    assert_eq!(reqs[0].body["messages"][0]["content"][0]["text"], "kept text", "Ctrl+U was unbound");

    std::fs::write(claude.join("keybindings.json"), "{\n  \"bindings\": [\n    {\"context\": \"Chat\",}\n  ]\n}")
        .unwrap();
    let broken = Pane::start(&env, &server, &[]);
    let screen = broken.wait_for("keybindings.json:3:");
    assert!(screen.contains("not valid JSON"), "{screen}");
    assert!(!screen.contains("manual mode on"), "rein stopped:\n{screen}");
}

/// `editorMode: "vim"`: the input box starts in insert mode; Esc, then normal-mode keys
/// edit; `/vim` turns it off.
#[test]
fn vim_mode_edits_the_prompt() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"editorMode": "vim"}).to_string());
    let server = serve(Scenario::new([reply([text("Got it.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("-- INSERT --");
    pane.type_text("hello world");
    pane.keys(&["Escape"]);
    pane.wait_for("-- NORMAL --");
    pane.type_text("0dwA!");
    pane.wait_for("-- INSERT --");
    pane.keys(&["Enter"]);
    pane.wait_for("Got it.");
    let reqs = server.requests();
    assert_eq!(reqs[0].body["messages"][0]["content"][0]["text"], "world!");
    pane.type_text("/vim");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Vim mode off");
    assert!(!screen.contains("-- INSERT --"), "{screen}");
}

/// `/tasks` lists the background commands, shows one's output and stops it.
#[test]
fn tasks_lists_shows_and_stops_background_commands() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("bg", "Bash", json!({"command": "echo serving on 8080; sleep 300", "run_in_background": true}))]),
        reply([text("Started the server.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "'Bash(echo:*)'", "--dangerously-skip-permissions"]);
    pane.wait_for("bypass permissions on");
    pane.type_text("start the server");
    pane.keys(&["Enter"]);
    pane.wait_for("Started the server.");
    // The footer says a command goes on in the background.
    pane.wait_for("1 in background (/tasks)");
    pane.type_text("/tasks");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("bash_1  running");
    assert!(screen.contains("echo serving on 8080; sleep 300"), "{screen}");
    pane.type_text("/tasks show bash_1");
    pane.keys(&["Enter"]);
    pane.wait_for("serving on 8080");
    pane.type_text("/tasks stop bash_1");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("bash_1: killed");
    let footer = screen.lines().rev().find(|l| l.contains("mode on")).unwrap_or_default();
    assert!(!footer.contains("in background"), "{footer}");
}

/// Ctrl+B while a command runs: the turn goes on, the command runs on as a background
/// job that /tasks lists with what it printed.
#[test]
fn ctrl_b_moves_a_running_command_to_the_background() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("long", "Bash", json!({"command": "echo warming up; sleep 30; echo done"}))]),
        reply([text("Carrying on while it runs.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--dangerously-skip-permissions"]);
    pane.wait_for("bypass permissions on");
    pane.type_text("start the long job");
    pane.keys(&["Enter"]);
    pane.wait_for("Bash(echo warming up");
    // Ctrl+B reaches the command once it runs: pressed again until it has.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !pane.screen().contains("Carrying on while it runs.") {
        assert!(std::time::Instant::now() < deadline, "Ctrl+B did not move the command:\n{}", pane.screen());
        pane.keys(&["C-b"]);
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let screen = pane.wait_for("Carrying on while it runs.");
    assert!(screen.contains("moved this command to the background"), "{screen}");
    let reqs = server.requests();
    let (result, failed) = crate::common::tool_result(reqs[1].body["messages"].as_array().unwrap(), "long");
    assert!(!failed && result.contains("ID: bash_1"), "{result}");
    pane.type_text("/tasks");
    pane.keys(&["Enter"]);
    pane.wait_for("bash_1  running");
    pane.type_text("/tasks show bash_1");
    pane.keys(&["Enter"]);
    pane.wait_for("warming up");
    pane.type_text("/tasks stop bash_1");
    pane.keys(&["Enter"]);
    pane.wait_for("bash_1: killed");
}

/// `/plan` typed while a turn runs takes effect at once (the mode is the session's
/// policy, not a question for the busy session): the footer says so before the turn ends,
/// and the command is echoed above its answer.
#[test]
fn plan_mode_is_entered_while_a_turn_runs() {
    let env = Env::new();
    let server =
        serve(Scenario::new([reply([call("s", "Bash", json!({"command": "sleep 3"}))]), reply([text("slept")])]));
    let pane = Pane::start_with(&env, &server, "", &["--allowedTools", "'Bash(sleep:*)'"]);
    pane.wait_for("manual mode on");
    pane.type_text("take a nap");
    pane.keys(&["Enter"]);
    pane.wait_for("sleep 3");
    pane.type_text("/plan");
    pane.keys(&["Enter"]);
    pane.wait_for("Plan mode: rein reads and plans");
    let screen = pane.screen();
    assert!(screen.contains("> /plan"), "the command is echoed:\n{screen}");
    assert!(screen.contains("plan mode on"), "the footer follows at once:\n{screen}");
    assert!(!screen.contains("slept"), "the turn had not ended yet:\n{screen}");
    pane.wait_for("slept");
}
