//! The integration tests of rein-engine, in one test binary (one link on a 2-core
//! machine instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod executor;
mod failure_injection;
mod query_loop;
