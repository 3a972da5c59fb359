//! A stdio MCP server in a few lines of shell, slow on purpose: what the start-up rows
//! wait for.

use std::path::Path;

use serde_json::{Value, json};

/// A stdio MCP server in a few lines of shell that answers only after `delay` (and
/// writes the time it started to `stamp`).
pub(crate) fn slow_server(delay: &str, stamp: Option<&Path>) -> Value {
    slow_server_stamped(delay, stamp, None)
}

/// [`slow_server`] in bash, also writing to `ready` the time (seconds since the epoch)
/// just before it answers `tools/list`: from then on the session has all it waits for.
pub(crate) fn slow_server_stamped(delay: &str, stamp: Option<&Path>, ready: Option<&Path>) -> Value {
    let stamp = stamp.map(|p| format!("date +%s%N > '{}'; ", p.display())).unwrap_or_default();
    // bash's clock, read without starting a process: the stamp is taken just before
    // the answer is written.
    let ready_stamp = ready.map(|p| format!("echo $EPOCHREALTIME > '{}'; ", p.display())).unwrap_or_default();
    let script = format!(
        "{stamp}sleep {delay}; while IFS= read -r line; do id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p'); \
         case \"$line\" in \
         *'\"initialize\"'*) printf '{{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"slow\",\"version\":\"1\"}}}}}}\\n' \"$id\";; \
         *'\"tools/list\"'*) {ready_stamp}printf '{{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{{\"tools\":[{{\"name\":\"probe_{}\",\"description\":\"d\",\"inputSchema\":{{\"type\":\"object\"}}}}]}}}}\\n' \"$id\";; \
         *'\"id\"'*) printf '{{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{{}}}}\\n' \"$id\";; \
         esac; done",
        delay.replace('.', "_")
    );
    json!({"command": if ready.is_some() { "bash" } else { "sh" }, "args": ["-c", script]})
}
