//! Hooks read the session's live facts when they run: the mode as the frontend last set
//! it, and after `clear` the new session's id (SessionStart with source `clear` first).

use rein_policy::PermissionMode;
use rein_testkit::{Scenario, reply, text};

use crate::common::{Project, hook_inputs, prompt, record_hooks};

#[tokio::test(flavor = "current_thread")]
async fn hooks_follow_set_mode_and_clear_gives_them_the_new_session() {
    let project = Project::new();
    record_hooks(&project, &["SessionStart", "UserPromptSubmit"]);
    let server = rein_testkit::FakeServer::start(Scenario::new([
        reply([text("one")]),
        reply([text("two")]),
        reply([text("three")]),
    ]))
    .unwrap();
    let (_setup, mut session) = project.session(&project.options(), &server);
    let first_id = session.session_id();
    prompt(&mut session, "first").await;
    session.set_mode(PermissionMode::AcceptEdits, "the test (Shift+Tab)");
    prompt(&mut session, "second").await;
    let new_id = session.clear();
    prompt(&mut session, "third").await;

    let seen: Vec<(String, String, String, String)> = hook_inputs(&project)
        .iter()
        .map(|i| {
            let field = |k: &str| i[k].as_str().unwrap_or_default().to_string();
            (field("hook_event_name"), field("permission_mode"), field("session_id"), field("source"))
        })
        .collect();
    let s = |e: &str, m: &str, id: &str, src: &str| (e.to_string(), m.to_string(), id.to_string(), src.to_string());
    assert_ne!(first_id, new_id);
    assert_eq!(
        seen,
        [
            s("SessionStart", "default", &first_id, "startup"),
            s("UserPromptSubmit", "default", &first_id, ""),
            s("UserPromptSubmit", "acceptEdits", &first_id, ""),
            s("SessionStart", "acceptEdits", &new_id, "clear"),
            s("UserPromptSubmit", "acceptEdits", &new_id, ""),
        ]
    );
}
