//! The integration tests of rein-tools, in one test binary (one link on a 2-core
//! machine instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod editing;
mod notebook_and_todos;
mod reading;
mod search;
mod shell;
mod web_fetch;
