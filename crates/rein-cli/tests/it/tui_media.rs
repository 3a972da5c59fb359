//! Images in the interactive session, in a real terminal (tmux): `@shot.png`, Ctrl+V
//! through a clipboard tool (a stand-in `xclip` on PATH) and a dragged path, each shown as
//! `[Image #N]` and sent to the model as an image block; Ctrl+V with no clipboard tool
//! says what to install.

use base64::Engine as _;
use rein_testkit::{Scenario, reply, text};
use serde_json::Value;

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

/// The image blocks of request `n`'s last user message, decoded.
fn images_in(server: &rein_testkit::FakeServer, n: usize) -> Vec<Vec<u8>> {
    let reqs = server.requests();
    let messages = reqs[n].body["messages"].as_array().unwrap().clone();
    let blocks = messages.last().unwrap()["content"].as_array().unwrap().clone();
    blocks
        .iter()
        .filter(|b| b["type"] == "image")
        .map(|b: &Value| {
            base64::engine::general_purpose::STANDARD.decode(b["source"]["data"].as_str().unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn images_reach_the_model_from_a_mention_the_clipboard_and_a_dragged_path() {
    let env = Env::new();
    let (shot, clip, dragged) =
        (rein_media::sample_png(64, 48), rein_media::sample_png(32, 32), rein_media::sample_png(20, 10));
    std::fs::write(env.cwd().join("shot.png"), &shot).unwrap();
    let bin = env.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(env.home.path().join("clip.png"), &clip).unwrap();
    let xclip = bin.join("xclip");
    let seen_env = env.home.path().join("xclip-env");
    std::fs::write(
        &xclip,
        format!(
            "#!/bin/sh\nenv > '{}'\nexec cat '{}'\n",
            seen_env.display(),
            env.home.path().join("clip.png").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&xclip, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let dropped = env.home.path().join("Screen Shot.png");
    std::fs::write(&dropped, &dragged).unwrap();

    let server =
        serve(Scenario::new([reply([text("Seen one.")]), reply([text("Seen two.")]), reply([text("Seen three.")])]));
    let path = format!("PATH='{}:{}' DISPLAY=:99", bin.display(), std::env::var("PATH").unwrap_or_default());
    let pane = Pane::start_with(&env, &server, &path, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("describe @shot.png ");
    pane.keys(&["Enter"]);
    pane.wait_for("Seen one.");
    assert_eq!(images_in(&server, 0), [shot]);

    pane.keys(&["C-v"]);
    pane.wait_for("[Image #1]");
    pane.type_text("what is this?");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Seen two.");
    // The image sent is named under the prompt, with its size.
    assert!(screen.lines().any(|l| l.contains("⎿  [Image #1]") && l.contains(" KB")), "{screen}");
    assert_eq!(images_in(&server, 1), [clip]);
    let seen = std::fs::read_to_string(&seen_env).unwrap();
    assert!(seen.contains("DISPLAY=") && !seen.contains("ANTHROPIC_API_KEY"), "rein's key reached xclip:\n{seen}");
    let reqs = server.requests();
    let prompt = reqs[1].body["messages"].as_array().unwrap().last().unwrap()["content"][0]["text"].clone();
    assert_eq!(prompt, "[Image #1] what is this?");

    // A file dragged onto the terminal arrives as a bracketed paste of its quoted path.
    pane.tmux(&["set-buffer", &format!("'{}'", dropped.display())]);
    pane.tmux(&["paste-buffer", "-p", "-t", "t"]);
    pane.wait_for("[Image #2]");
    pane.keys(&["Enter"]);
    pane.wait_for("Seen three.");
    assert_eq!(images_in(&server, 2), [dragged]);
}

#[test]
fn ctrl_v_without_a_clipboard_tool_says_what_to_install() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("unused")])]));
    // No DISPLAY or WAYLAND_DISPLAY: no clipboard tool can run.
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.keys(&["C-v"]);
    let screen = pane.wait_for("no clipboard tool found");
    assert!(screen.contains("wl-paste") && screen.contains("xclip"), "{screen}");
    assert!(server.requests().is_empty());
}
