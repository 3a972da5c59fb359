#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

#[test]
fn a_session_is_found_by_its_id_the_start_of_it_or_part_of_its_name() {
    let home = tempfile::tempdir().unwrap();
    let jobs = Jobs::at(home.path());
    let a = jobs.create("fix-readme", "update the README", home.path(), vec![]).unwrap();
    let b = jobs.create("", "investigate the flaky settings test please now", home.path(), vec![]).unwrap();
    assert_eq!(b.state.name, "investigate the flaky settings test");
    assert_eq!(jobs.find(&a.state.id).unwrap().state.name, "fix-readme");
    assert_eq!(jobs.find(&a.state.id[..6]).unwrap().state.id, a.state.id);
    assert_eq!(jobs.find("README").unwrap().state.id, a.state.id);
    assert_eq!(jobs.find("flaky").unwrap().state.id, b.state.id);
    assert!(matches!(jobs.find("nothing-like-it"), Err(JobError::NotFound(_))));
    jobs.create("fix-tests", "x", home.path(), vec![]).unwrap();
    assert!(matches!(jobs.find("fix"), Err(JobError::Ambiguous { .. })));
    assert_eq!(jobs.all().len(), 3);
}

#[test]
fn a_record_without_a_live_host_counts_as_ended_and_an_unfinished_one_as_failed() {
    let home = tempfile::tempdir().unwrap();
    let job = Jobs::at(home.path()).create("n", "p", home.path(), vec![]).unwrap();
    job.update(|s| s.status = Status::Working).unwrap();
    let job = job.reread().unwrap();
    assert!(!job.alive());
    assert_eq!(job.standing(), Standing::Ended);
    assert_eq!(job.status_word(), "failed");
    // A host holds the lock: the same record is a running session.
    let lock = std::fs::File::create(job.dir.join("host.lock")).unwrap();
    lock.lock().unwrap();
    assert!(job.alive());
    assert_eq!(job.status_word(), "working");
    job.update(|s| s.status = Status::Blocked).unwrap();
    assert_eq!(job.reread().unwrap().standing(), Standing::NeedsYou);
}

#[test]
fn the_reporter_records_a_question_its_answer_and_the_turns_cost() {
    let home = tempfile::tempdir().unwrap();
    let job = Jobs::at(home.path()).create("n", "p", home.path(), vec![]).unwrap();
    let r = Reporter::at(&job.dir).unwrap();
    r.working("run the tests\nand more");
    assert_eq!(job.reread().unwrap().state.detail, "run the tests");
    r.blocked("Bash: cargo test");
    r.blocked("Bash: cargo build");
    r.answered_question();
    assert_eq!(job.reread().unwrap().state.status, Status::Blocked, "one question still waits");
    r.answered_question();
    assert_eq!(job.reread().unwrap().state.status, Status::Working);
    r.turn_ended("All 12 tests pass.", 0.25);
    r.turn_ended("Still passing.", 0.5);
    let s = job.reread().unwrap().state;
    assert_eq!((s.status, s.output.as_str()), (Status::Done, "Still passing."));
    assert!((s.cost_usd - 0.75).abs() < 1e-9);
}

#[test]
fn logs_show_prompts_answers_and_calls_in_a_line_each() {
    let lines = [
        r#"{"type":"user","message":{"role":"user","content":"list the files"}}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls -la\necho more"}}]}}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a\nb\nc"}]}}"#,
        r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"hidden"}}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Three files."}]}}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"\u001b]52;c;ZXZpbA==\u0007fine\u001b[1A\u001b[2K"}]}}"#,
        r#"{"type":"assist"#,
    ];
    assert_eq!(
        render_transcript(&lines.join("\n")),
        [
            "> list the files",
            "Listing.",
            "● Bash(ls -la)",
            "  ⎿ a (+2 lines)",
            "Three files.",
            "]52;c;ZXZpbA==fine[1A[2K"
        ]
    );
}

#[cfg(unix)]
#[test]
fn only_the_person_may_enter_the_sessions_folders() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let job = Jobs::at(home.path()).create("n", "p", home.path(), vec![]).unwrap();
    for dir in [job.dir.as_path(), job.dir.parent().unwrap()] {
        assert_eq!(std::fs::metadata(dir).unwrap().permissions().mode() & 0o777, 0o700, "{}", dir.display());
    }
}
