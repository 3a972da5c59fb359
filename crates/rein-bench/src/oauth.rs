//! The web and remote servers (issue 32): what an MCP call to a signed-in server (OAuth
//! token from the credentials file, sent with every request) costs over the same call
//! to a server that wants no token, through rein against rein-testkit's OAuth server on
//! loopback; and how many model requests a WebFetch call makes (the digest is the only
//! extra one).

use std::path::Path;

use anyhow::{Context, bail};
use rein_testkit::oauth_mcp::OAuthMcpServer;
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

use crate::{Row, ms, rein_direct, spawn_and_measure};

/// The token of `remote` written where `rein mcp login` keeps it, for server `s0`.
fn sign_in(remote: &OAuthMcpServer, home: &Path) -> anyhow::Result<()> {
    let (access, refresh) = remote.grant();
    let key = rein_mcp::oauth_store::entry_key("s0", &remote.mcp_url(), None);
    let expires_at = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs() + 3600) * 1000;
    let entry = json!({"serverName": "s0", "serverUrl": remote.mcp_url(), "clientId": "client-1",
        "accessToken": access, "refreshToken": refresh, "expiresAt": expires_at, "scope": "mcp"});
    let file = home.join(".claude/.credentials.json");
    std::fs::create_dir_all(file.parent().context("no folder")?)?;
    std::fs::write(&file, json!({"mcpOAuth": {key: entry}}).to_string())?;
    Ok(())
}

/// Model requests of a session whose one WebFetch call reads a page on loopback.
fn webfetch_requests(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<usize> {
    let page = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/page", page.local_addr()?);
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Some(Ok(mut s)) = page.incoming().next() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let body = "<html><body><h1>Release notes</h1><p>Fixed the bug.</p></body></html>";
            let _ =
                write!(s, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        }
    });
    let server = FakeServer::start(Scenario::new([
        reply([tool_use("WebFetch", json!({"url": url, "prompt": "what was fixed?"}))]),
        reply([text("The bug.")]),
        reply([text("done")]),
    ]))?;
    let mut cmd = rein_direct(bin, cwd, home, &server);
    cmd.args(["-p", "read it", "--allowedTools", "WebFetch"]);
    if !spawn_and_measure(&mut cmd)?.ok {
        bail!("the WebFetch session failed");
    }
    Ok(server.requests().len())
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let remote = OAuthMcpServer::start(3600)?;
    let config = vec![
        "--mcp-config".to_string(),
        json!({"mcpServers": {"s0": {"type": "http", "url": remote.mcp_url()}}}).to_string(),
    ];
    sign_in(&remote, home)?;
    let (signed, _) = crate::mcp::turns(bin, "mcp__s0__whoami", json!({}), &config, cwd, home)?;
    if !remote.log().bearers.iter().any(|b| b.starts_with("at-")) {
        bail!("the signed-in session sent no token");
    }
    std::fs::remove_file(home.join(".claude/.credentials.json"))?;
    remote.open();
    let (open, _) = crate::mcp::turns(bin, "mcp__s0__whoami", json!({}), &config, cwd, home)?;
    let extra = signed.as_secs_f64() * 1000.0 - open.as_secs_f64() * 1000.0;
    let requests = webfetch_requests(bin, cwd, home)?;
    Ok(vec![
        ("MCP call (HTTP), signed in with OAuth: per-turn gap (median)".into(), ms(signed), "—".into()),
        ("MCP call (HTTP), no token: per-turn gap (median)".into(), ms(open), "—".into()),
        ("MCP OAuth: added per call".into(), format!("{extra:.3} ms"), "≤ 0.3 ms".into()),
        (
            "WebFetch: model requests for one call".into(),
            requests.to_string(),
            "3 (the digest is the only extra)".into(),
        ),
    ])
}
