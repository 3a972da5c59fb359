//! MCP OAuth end to end through the real binary, against a fake authorization server and
//! a fake remote MCP server on 127.0.0.1 (rein-testkit's `oauth_mcp`), with `$BROWSER`
//! a script that follows the authorization URL as a browser would: a server that needs
//! authentication says how to sign in; `rein mcp login` discovers, registers, signs in
//! with PKCE and keeps the tokens (0600, Claude Code's file); a session calls the
//! server's tool with the token, refreshes it once expired and again after a 401;
//! `rein mcp logout` forgets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use crate::common::{Env, json_lines, serve, tool_result};
use rein_testkit::oauth_mcp::OAuthMcpServer;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// A browser that opens the URL and follows its redirects, noting each URL it opened.
/// Before it, another local program forges a redirect with the wrong state, which rein
/// must answer and wait past.
fn browser(env: &Env) -> std::path::PathBuf {
    let opened = env.home.path().join("opened.txt");
    let script = env.home.path().join("browser.sh");
    let python = r#"
import sys, urllib.request, urllib.parse, urllib.error
url = sys.argv[1]
redirect = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["redirect_uri"][0]
try:
    urllib.request.urlopen(redirect + "?code=forged&state=forged").read()
    sys.exit("a forged redirect was taken")
except urllib.error.HTTPError as e:
    assert e.code == 400, e.code
urllib.request.urlopen(url).read()
"#;
    std::fs::write(env.home.path().join("browser.py"), python).unwrap();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\nexec python3 '{}' \"$1\" 2>>'{}'\n",
            opened.display(),
            env.home.path().join("browser.py").display(),
            env.home.path().join("browser.err").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn config(remote: &OAuthMcpServer) -> String {
    json!({"mcpServers": {"remote": {"type": "http", "url": remote.mcp_url()}}}).to_string()
}

/// One headless session that calls the remote server's tool; its init line and the
/// tool's result.
fn call_whoami(env: &Env, remote: &OAuthMcpServer) -> (Value, (String, bool)) {
    let server = serve(Scenario::new([reply([call("w", "mcp__remote__whoami", json!({}))]), reply([text("done")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "who am i?", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__remote"])
        .args(["--mcp-config", &config(remote)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
    let reqs = server.requests();
    (init, tool_result(reqs.last().unwrap().body["messages"].as_array().unwrap(), "w"))
}

#[test]
fn login_call_refresh_and_logout_against_an_oauth_server() {
    let env = Env::new();
    let remote = OAuthMcpServer::start(0).unwrap();

    // Not signed in: the server needs authentication, and rein says how to sign in.
    let (_, (result, is_error)) = call_whoami(&env, &remote);
    assert!(
        is_error && result.contains("needs authentication") && result.contains("rein mcp login remote"),
        "{result}"
    );
    let listed = env.rein().arg(format!("--mcp-config={}", config(&remote))).args(["mcp", "list"]).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(listed.contains("rein mcp login remote"), "{listed}");

    // Sign in through the "browser".
    let script = browser(&env);
    let out = env
        .rein()
        .env("BROWSER", &script)
        .arg(format!("--mcp-config={}", config(&remote)))
        .args(["mcp", "login", "remote"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let browser_errors = std::fs::read_to_string(env.home.path().join("browser.err")).unwrap_or_default();
    assert!(browser_errors.is_empty(), "{browser_errors}");
    let opened = std::fs::read_to_string(env.home.path().join("opened.txt")).unwrap();
    let auth_url = opened.lines().next().unwrap();
    assert!(stdout.contains(auth_url), "the URL is printed as well as opened: {stdout}");
    assert!(auth_url.starts_with(&format!("{}/authorize?", remote.base)), "{auth_url}");
    assert!(
        auth_url.contains("code_challenge_method=S256") && auth_url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A")
    );
    {
        let log = remote.log();
        assert_eq!(log.registrations, ["client-1"], "dynamic client registration");
        assert_eq!(log.grants, ["authorization_code"]);
    }
    let file = env.home.path().join(".claude/.credentials.json");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entry = stored["mcpOAuth"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!((entry["serverName"].as_str(), entry["accessToken"].as_str()), (Some("remote"), Some("at-1")));
    assert_eq!(entry["clientId"], "client-1");

    // The first token was issued already expired: the session refreshes it first.
    let (_, (result, is_error)) = call_whoami(&env, &remote);
    assert!(!is_error && result == "token at-2", "{result}");
    assert_eq!(remote.log().grants, ["authorization_code", "refresh_token"]);
    assert!(!remote.log().bearers.contains(&"at-1".to_string()), "an expired token is not sent");

    // The server stops accepting the token: a 401, one refresh, and the call goes through.
    remote.revoke("at-2");
    let (_, (result, is_error)) = call_whoami(&env, &remote);
    assert!(!is_error && result == "token at-3", "{result}");
    assert_eq!(remote.log().grants, ["authorization_code", "refresh_token", "refresh_token"]);
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let entry = stored["mcpOAuth"].as_object().unwrap().values().next().unwrap().clone();
    assert_eq!(entry["accessToken"], "at-3", "the refreshed token is kept");

    // Signed out: needs authentication again.
    let out =
        env.rein().arg(format!("--mcp-config={}", config(&remote))).args(["mcp", "logout", "remote"]).output().unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Signed out of remote"));
    let (_, (result, is_error)) = call_whoami(&env, &remote);
    assert!(is_error && result.contains("rein mcp login remote"), "{result}");
}

#[test]
fn a_sandboxed_command_cannot_read_the_token_store() {
    if !crate::common::have_bwrap() {
        return;
    }
    let env = Env::new();
    let file = env.home.path().join(".claude/.credentials.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{"mcpOAuth": {"remote|0": {"accessToken": "SECRET-TOKEN-123"}}}"#).unwrap();
    env.write(".claude/settings.json", r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#);
    let command = format!("cat {}; echo end", file.display());
    let server = serve(Scenario::new([reply([call("b", "Bash", json!({"command": command}))]), reply([text("done")])]));
    env.rein_at(&server).args(["-p", "steal", "--allowedTools", "Bash"]).assert().success();
    let reqs = server.requests();
    let (result, _) = tool_result(reqs.last().unwrap().body["messages"].as_array().unwrap(), "b");
    assert!(!result.contains("SECRET-TOKEN-123") && result.contains("end"), "masked: it reads as empty: {result}");
}

#[test]
fn slash_mcp_authenticate_signs_in_and_connects_the_server_in_the_terminal() {
    let env = Env::new();
    let remote = OAuthMcpServer::start(3600).unwrap();
    let script = browser(&env);
    let server = serve(Scenario::new([reply([call("w", "mcp__remote__whoami", json!({}))]), reply([text("Over.")])]));
    let config = config(&remote);
    let pane = crate::tui_pane::Pane::start_with(
        &env,
        &server,
        &format!("BROWSER='{}'", script.display()),
        &["--allowedTools", "mcp__remote", "--mcp-config", &format!("'{config}'")],
    );
    pane.wait_for("manual mode on");
    pane.type_text("/mcp ");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("⚠ remote · needs-auth");
    assert!(screen.contains("rein mcp login remote") && screen.contains("/mcp authenticate"), "{screen}");
    pane.type_text("/mcp authenticate remote");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Signed in to remote; it is connected");
    assert!(screen.contains(&format!("{}/authorize?", remote.base)), "the URL is shown: {screen}");
    pane.type_text("who am i?");
    pane.keys(&["Enter"]);
    pane.wait_for("Over.");
    let reqs = server.requests();
    let (result, is_error) = tool_result(reqs.last().unwrap().body["messages"].as_array().unwrap(), "w");
    assert!(!is_error && result == "token at-1", "{result}");
}

#[test]
fn an_unapproved_project_server_is_not_signed_in_to() {
    let env = Env::new();
    let remote = OAuthMcpServer::start(3600).unwrap();
    env.write(".mcp.json", &config(&remote));
    let out = env.rein().env("BROWSER", "/bin/false").args(["mcp", "login", "remote"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("not started"), "{stderr}");
    assert!(remote.log().registrations.is_empty(), "nothing was sent to the server's authorization server");
}

#[test]
fn a_configured_client_and_callback_port_are_used_instead_of_registration() {
    let env = Env::new();
    let remote = OAuthMcpServer::start(3600).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = json!({"mcpServers": {"remote": {"type": "http", "url": remote.mcp_url(),
        "oauth": {"clientId": "pre-registered-7", "callbackPort": port, "scopes": "mcp"}}}})
    .to_string();
    let script = browser(&env);
    let out = env
        .rein()
        .env("BROWSER", &script)
        .arg(format!("--mcp-config={config}"))
        .args(["mcp", "login", "remote"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let opened = std::fs::read_to_string(env.home.path().join("opened.txt")).unwrap();
    assert!(opened.contains("client_id=pre-registered-7"), "{opened}");
    assert!(opened.contains(&format!("redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback")), "{opened}");
    assert!(remote.log().registrations.is_empty(), "no dynamic registration with a configured client");
    assert_eq!(remote.log().grants, ["authorization_code"]);
}
