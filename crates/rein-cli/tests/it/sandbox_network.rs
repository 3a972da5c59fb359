//! The sandbox's network through the real binary: nothing leaves the namespace except
//! through rein's proxy, which lets allowed hosts through (HTTP and SOCKS5), refuses
//! denied and unknown ones with 403, and reports them in `<sandbox_violations>`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, have_bwrap, http_answering, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

/// A host web server answering every request with `hello from the host`.
fn host_server() -> u16 {
    http_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\nConnection: close\r\n\r\nhello from the host\n")
}

fn run(env: &Env, settings: &str, command: &str) -> (String, bool) {
    let server = serve(Scenario::new([
        reply([tool_use_with_id("n", "Bash", json!({"command": command}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash", "--settings", settings]).assert().success();
    tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "n")
}

/// Python fetching `url` through the HTTP proxy the sandbox names (even for the
/// loopback address, which `NO_PROXY` would otherwise send inside the namespace).
fn fetch(url: &str) -> String {
    format!(
        "python3 -c \"import os,urllib.request as u; [os.environ.pop(k, None) for k in ('NO_PROXY', 'no_proxy')]; o=u.build_opener(u.ProxyHandler({{'http': os.environ['HTTP_PROXY']}})); \
         print(o.open('{url}', timeout=5).read().decode())\""
    )
}

#[test]
fn allowed_hosts_go_through_the_proxy_and_others_are_refused_and_reported() {
    if !have_bwrap() {
        return;
    }
    let port = host_server();
    let env = Env::new();
    let settings = r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.1"], "deniedDomains": ["blocked.example"]}}}"#;
    // Direct: the host's loopback is not reachable from the namespace.
    let direct = format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\"");
    let (out, err) = run(&env, settings, &direct);
    assert!(err, "a direct connection left the sandbox: {out}");
    // Through the HTTP proxy: an allowed host works.
    let (out, err) = run(&env, settings, &fetch(&format!("http://127.0.0.1:{port}/")));
    assert!(!err && out.contains("hello from the host"), "{out}");
    // A denied domain: 403 and a violation line.
    let (out, err) = run(&env, settings, &fetch("http://blocked.example/"));
    assert!(err && out.contains("403"), "{out}");
    assert!(out.contains("<sandbox_violations>") && out.contains("deny network-outbound blocked.example:80"), "{out}");
    // A host no rule names: refused (no one to ask headless).
    let (out, err) = run(&env, settings, &fetch("http://unknown.example/"));
    assert!(err && out.contains("not in allowedDomains"), "{out}");
    // SOCKS5 to an allowed host works; to a loopback port not named in the list, refused.
    let socks = |target_port: u16| {
        format!(
            "python3 -c \"import socket,struct,sys; s=socket.create_connection(('127.0.0.1',1080)); s.sendall(b'\\x05\\x01\\x00'); \
             s.recv(2); s.sendall(b'\\x05\\x01\\x00\\x01'+socket.inet_aton('127.0.0.1')+struct.pack('>H',{target_port})); \
             r=s.recv(10); sys.exit(0 if r[1]==0 else 3)\""
        )
    };
    let allowed_socks = r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.1:PORT"]}}}"#
        .replace("PORT", &port.to_string());
    let (out, err) = run(&env, &allowed_socks, &socks(port));
    assert!(!err, "SOCKS to an allowed host: {out}");
    let (out, err) = run(&env, &allowed_socks, &socks(port + 1));
    assert!(err && out.contains("deny network-outbound 127.0.0.1"), "SOCKS to another port: {out}");
}

#[test]
fn an_allowed_name_that_resolves_to_this_machine_is_refused() {
    use std::net::ToSocketAddrs;
    if !have_bwrap() {
        return;
    }
    // This machine's own name resolves to one of its addresses: what a DNS-rebinding
    // name does to reach local services.
    let name =
        String::from_utf8_lossy(&std::process::Command::new("hostname").output().unwrap().stdout).trim().to_string();
    let local =
        (name.as_str(), 80).to_socket_addrs().is_ok_and(|mut a| a.all(|a| rein_sandbox::network::is_local(a.ip())));
    if name.is_empty() || name == "localhost" || !local {
        eprintln!("this machine's name does not resolve to a local address: skipped");
        return;
    }
    let port = host_server();
    let env = Env::new();
    let settings = format!(r#"{{"sandbox": {{"enabled": true, "network": {{"allowedDomains": ["{name}"]}}}}}}"#);
    let (out, err) = run(&env, &settings, &fetch(&format!("http://{name}:{port}/")));
    assert!(err && out.contains("local address") && !out.contains("hello from the host"), "{out}");
}

#[test]
fn webfetch_domain_rules_feed_the_proxy() {
    if !have_bwrap() {
        return;
    }
    let port = host_server();
    let env = Env::new();
    let allow = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}}"#;
    let (out, err) = run(&env, allow, &fetch(&format!("http://127.0.0.1:{port}/")));
    assert!(!err && out.contains("hello from the host"), "{out}");
    let deny = r#"{"sandbox": {"enabled": true, "network": {"allowedDomains": ["127.0.0.1"]}}, "permissions": {"deny": ["WebFetch(domain:127.0.0.1)"]}}"#;
    let (out, err) = run(&env, deny, &fetch(&format!("http://127.0.0.1:{port}/")));
    assert!(err && out.contains("deniedDomains"), "a deny rule wins: {out}");
}
