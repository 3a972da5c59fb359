//! Behaviour through the production builder, in-process: each test resolves a session
//! from options (its own working directory and home, so tests share one process), plugs
//! the testkit server in as the model, and drives it with the commands every frontend
//! sends. Real hook scripts, real bash, real temporary directories.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod live_facts;
mod turn_rules;
