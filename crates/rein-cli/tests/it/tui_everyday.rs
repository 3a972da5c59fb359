//! The everyday commands of issue 56 in a real terminal (tmux): `/skills` lists the
//! skills with where they come from, `/doctor` shows `rein doctor`'s report inside the
//! session, `/review` and `/security-review` ask the model to review the change in
//! progress (with a focus when one is given).

use rein_testkit::{Scenario, reply, text};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

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
