//! Esc Esc in a real terminal (tmux) goes back in the files too: what rein's file tools
//! changed since the chosen prompt is restored, and a file changed outside rein is only
//! overwritten after a yes.

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn esc_esc_restores_the_files_and_asks_before_overwriting_an_outside_change() {
    let env = Env::new();
    let (a, b) = (env.cwd().join("a.txt"), env.cwd().join("b.txt"));
    let server = serve(Scenario::new([
        reply([call("w1", "Write", json!({"file_path": a, "content": "one\n"}))]),
        reply([text("Wrote a.")]),
        reply([call("w2", "Write", json!({"file_path": b, "content": "two\n"}))]),
        reply([text("Wrote b.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "Write"]);
    pane.wait_for("manual mode on");
    for (prompt, answer) in [("make a", "Wrote a."), ("make b", "Wrote b.")] {
        pane.type_text(prompt);
        pane.keys(&["Enter"]);
        pane.wait_for(answer);
    }
    assert!(a.exists() && b.exists());
    // Back to before "make b": b.txt goes, the prompt returns to the input box.
    pane.esc_esc();
    pane.wait_for("2. make b");
    pane.keys(&["Enter"]);
    pane.wait_for("Went back to before prompt 2");
    assert!(!b.exists() && a.exists());
    pane.wait_for("❯ make b");
    pane.keys(&["C-u"]);
    // a.txt is edited by hand; going back to before "make a" asks first.
    std::fs::write(&a, "by hand\n").unwrap();
    pane.esc_esc();
    pane.wait_for("1. make a");
    pane.keys(&["Enter"]);
    pane.wait_for("changed outside rein");
    pane.keys(&["n"]);
    pane.wait_for("Nothing was restored");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "by hand\n");
    pane.esc_esc();
    pane.wait_for("1. make a");
    pane.keys(&["Enter"]);
    pane.wait_for("Overwrite them and go back?");
    pane.keys(&["y"]);
    pane.wait_for("Went back to before prompt 1");
    assert!(!a.exists(), "a.txt did not exist before the first prompt");
}
