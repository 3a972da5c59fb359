//! The integration tests of rein-cli, in one test binary (one link on a 2-core
//! machine instead of one per file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents;
mod attack_corpus;
mod caching;
mod commands;
mod common;
mod config_errors;
mod context;
mod demo;
mod executor;
mod failures;
mod headless;
mod hooks;
mod mcp;
mod mcp_python;
mod openai_chat;
mod openai_responses;
mod permissions;
mod protected_reads;
mod pty;
mod recovery;
mod sandbox;
mod sandbox_network;
mod sandbox_session;
mod sdk_python;
mod sessions;
mod thinking;
mod tools;
mod transport;
mod tui;
mod tui_mcp;
mod tui_pane;
mod tui_sandbox;
