//! `rein -r` without an id (issue 53): a picker of the folder's sessions, newest first —
//! the arrows move, Enter resumes the one picked, Esc leaves.

use rein_testkit::{Scenario, reply, text};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

#[test]
fn rein_r_picks_a_session_with_the_arrows() {
    let env = Env::new();
    env.trust();
    for prompt in ["FIRST-SESSION prompt", "SECOND-SESSION prompt"] {
        let server = serve(Scenario::new([reply([text("noted")])]));
        env.rein_at(&server).args(["-p", prompt]).assert().success();
        // Sessions are ordered by their files' times: one second apart.
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    let server = serve(Scenario::new([reply([text("Carrying on.")])]));
    let pane = Pane::start(&env, &server, &["-r"]);
    let screen = pane.wait_for("Esc to leave");
    let first = screen.lines().position(|l| l.contains("SECOND-SESSION")).unwrap();
    let second = screen.lines().position(|l| l.contains("FIRST-SESSION")).unwrap();
    assert!(first < second, "newest first:\n{screen}");
    assert!(screen.lines().nth(first).is_some_and(|l| l.starts_with('❯')), "{screen}");
    pane.keys(&["Down"]);
    pane.wait_for("❯  2. FIRST-SESSION");
    pane.keys(&["Enter"]);
    pane.wait_for("mode on");
    pane.type_text("go on");
    pane.keys(&["Enter"]);
    pane.wait_for("Carrying on.");
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(sent.contains("FIRST-SESSION") && !sent.contains("SECOND-SESSION"), "{sent}");
}
