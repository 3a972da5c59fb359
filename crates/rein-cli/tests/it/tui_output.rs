//! What a command prints, as the terminal UI shows it (issue 53): its colour and title
//! sequences leave no `[31m` junk on screen.

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

#[test]
fn a_commands_colours_leave_no_junk_on_screen() {
    let env = Env::new();
    let command = r"printf '\033[31mred-word\033[0m plain \033[1;32mgreen-word\033[m\n'";
    let server =
        serve(Scenario::new([reply([call("a", "Bash", json!({"command": command}))]), reply([text("Printed.")])]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "Bash"]);
    pane.wait_for("manual mode on");
    pane.type_text("print in colour");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Printed.");
    // The output's line (the command's own line shows its text as written).
    let output = screen.lines().find(|l| l.contains("⎿")).unwrap_or_default();
    assert_eq!(output.trim(), "⎿  red-word plain green-word", "{screen}");
}
