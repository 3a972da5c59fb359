//! Claude on Google Vertex AI, configured the way Claude Code users configure it
//! (`CLAUDE_CODE_USE_VERTEX`, `ANTHROPIC_VERTEX_PROJECT_ID`, `CLOUD_ML_REGION`): the
//! Messages API at the model's `:streamRawPredict` URL, authenticated with a Google token
//! from a real service-account key (signed JWT exchanged at the key's token URI, served
//! here on loopback), or through a gateway that authenticates itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve, tool_result};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

const MODEL: &str = "claude-sonnet-4-5@20250929";

fn vertex(env: &Env, server: &FakeServer) -> assert_cmd::Command {
    let mut c = env.rein();
    c.env("CLAUDE_CODE_USE_VERTEX", "1")
        .env("ANTHROPIC_VERTEX_PROJECT_ID", "my-project")
        .env("CLOUD_ML_REGION", "europe-west1")
        .env("ANTHROPIC_VERTEX_BASE_URL", format!("{}/v1", server.url()))
        .env("ANTHROPIC_MODEL", MODEL);
    c
}

#[test]
fn a_session_through_a_gateway_reaches_the_models_url_without_the_model_in_the_body() {
    let env = Env::new();
    env.write("a.txt", "x\n");
    let server =
        serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*.txt"}))]), reply([text("found a.txt")])]));
    vertex(&env, &server)
        .env("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
        .args(["-p", "list", "--allowedTools", "Glob"])
        .assert()
        .success()
        .stdout("found a.txt\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(
            r.path,
            format!(
                "/v1/projects/my-project/locations/europe-west1/publishers/anthropic/models/{MODEL}:streamRawPredict"
            )
        );
        assert!(r.body.get("model").is_none(), "the model is in the URL");
        assert_eq!(r.body["anthropic_version"], "vertex-2023-10-16");
        assert!(!r.headers.contains_key("authorization") && !r.headers.contains_key("x-api-key"));
    }
    // The same Messages conversation: the tool's result went back.
    let (glob, _) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "g");
    assert_eq!(glob, "a.txt");
    assert!(reqs[0].body["system"].is_array() && reqs[0].body["tools"].is_array());
}

#[test]
fn a_service_account_key_is_exchanged_for_the_bearer_token() {
    let env = Env::new();
    let key = env.cwd().join("key.pem");
    let made = std::process::Command::new("openssl")
        .args(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(made.status.success(), "openssl: {}", String::from_utf8_lossy(&made.stderr));
    // Google's token endpoint, on loopback: every request gets a token.
    let token = br#"{"access_token":"ya29.test-token","expires_in":3600,"token_type":"Bearer"}"#;
    let body = String::from_utf8_lossy(token);
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let port = common::http_answering(Box::leak(response.into_bytes().into_boxed_slice()));
    let credentials = env.write(
        "sa.json",
        &json!({
            "type": "service_account",
            "project_id": "my-project",
            "private_key_id": "k1",
            "private_key": std::fs::read_to_string(&key).unwrap(),
            "client_email": "rein@my-project.iam.gserviceaccount.com",
            "client_id": "1",
            "token_uri": format!("http://127.0.0.1:{port}/token"),
        })
        .to_string(),
    );
    let server = serve(Scenario::new([reply([text("hello from vertex")])]));
    vertex(&env, &server)
        .env("GOOGLE_APPLICATION_CREDENTIALS", &credentials)
        .args(["-p", "hi"])
        .assert()
        .success()
        .stdout("hello from vertex\n");
    let reqs = server.requests();
    assert_eq!(reqs[0].headers.get("authorization").map(String::as_str), Some("Bearer ya29.test-token"));
}

#[test]
fn without_a_project_rein_says_what_is_missing() {
    let env = Env::new();
    let out = env.rein().env("CLAUDE_CODE_USE_VERTEX", "1").args(["-p", "hi"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ANTHROPIC_VERTEX_PROJECT_ID"), "{err}");
}

#[test]
fn a_model_s_own_region_variable_overrides_the_default_region() {
    let env = Env::new();
    env.trust();
    // Set in the settings' env block, as Claude Code users often do.
    env.write(".claude/settings.json", &json!({"env": {"VERTEX_REGION_CLAUDE_4_5_SONNET": "us-central1"}}).to_string());
    let server = serve(Scenario::new([reply([text("one")]), reply([text("two")])]));
    vertex(&env, &server).env("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1").args(["-p", "hi"]).assert().success();
    vertex(&env, &server)
        .env("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
        .args(["-p", "hi", "--model", "claude-opus-4-1@20250805"])
        .assert()
        .success();
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            format!("/v1/projects/my-project/locations/us-central1/publishers/anthropic/models/{MODEL}:streamRawPredict"),
            "/v1/projects/my-project/locations/europe-west1/publishers/anthropic/models/claude-opus-4-1@20250805:streamRawPredict"
                .to_string(),
        ]
    );
}
