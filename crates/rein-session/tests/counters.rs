//! Deterministic counters of the core path (issue 58), which a timed test cannot give:
//! the heap allocations and the bytes allocated per turn of a 50-turn session (the model
//! lists files with Glob each turn) built by the production builder against the fake
//! model server. Counted on the thread that drives the session (the fake server and
//! blocking tool work run on other threads). Checked against `counters.baseline.json`:
//! a change that grows a counter by more than 10 % fails here with the figures, so a
//! regression is a decision. To take a new baseline on purpose:
//! `REIN_UPDATE_COUNTERS=1 cargo test -p rein-session --test counters`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use rein_session::{Input, Options};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::{Value, json};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn note(size: usize) {
    if COUNTED.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(size as u64, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to the system allocator unchanged; only counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: a block this allocator gave, with its layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: a block this allocator gave, with its layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

// The project and session helpers of the integration tests (this binary uses a few).
#[allow(dead_code)]
#[path = "it/common.rs"]
mod common;

#[global_allocator]
static COUNT: Counting = Counting;

const TURNS: u64 = 50;
/// How much a counter may grow over its baseline before this fails.
const TOLERANCE: f64 = 1.10;

/// Allocations and bytes per turn of the session.
fn measure() -> (u64, u64) {
    let project = common::Project::new();
    for i in 0..20 {
        project.write(&format!("file{i}.txt"), "x\n");
    }
    let mut steps: Vec<rein_testkit::Step> =
        (0..TURNS).map(|_| reply([tool_use("Glob", json!({"pattern": "*.txt"}))]).into()).collect();
    steps.push(reply([text("done")]).into());
    let server = FakeServer::start(Scenario::new(steps)).unwrap();
    let options = Options { max_turns: Some(1000), ..project.options() };
    let (_setup, mut session) = project.session(&options, &server);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let before = (ALLOCATIONS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
    COUNTED.with(|c| c.set(true));
    rt.block_on(async {
        let mut sink = |_| {};
        session.prompt(Input::Text("list the files again and again".into()), &mut sink).await.unwrap();
    });
    COUNTED.with(|c| c.set(false));
    let after = (ALLOCATIONS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
    assert_eq!(server.requests().len() as u64, TURNS + 1, "every turn reached the model");
    ((after.0 - before.0) / TURNS, (after.1 - before.1) / TURNS)
}

#[test]
fn allocations_per_turn_stay_within_their_baseline() {
    let (allocations, bytes) = measure();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/counters.baseline.json");
    let now = json!({"allocations_per_turn": allocations, "bytes_per_turn": bytes});
    if std::env::var_os("REIN_UPDATE_COUNTERS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&now).unwrap() + "\n").unwrap();
        return;
    }
    let baseline: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut grown = Vec::new();
    for key in ["allocations_per_turn", "bytes_per_turn"] {
        let (was, is) = (baseline[key].as_u64().unwrap(), now[key].as_u64().unwrap());
        if is as f64 > was as f64 * TOLERANCE {
            grown.push(format!("{key}: {is} (baseline {was}, +{:.0} %)", (is as f64 / was as f64 - 1.0) * 100.0));
        }
    }
    assert!(
        grown.is_empty(),
        "a core counter grew more than 10 %: {}. If that is the price of a change, say why in its commit and \
         take a new baseline: REIN_UPDATE_COUNTERS=1 cargo test -p rein-session --test counters",
        grown.join("; ")
    );
}
