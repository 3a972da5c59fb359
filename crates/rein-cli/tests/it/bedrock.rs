//! Claude on Amazon Bedrock, configured the way Claude Code users configure it
//! (`CLAUDE_CODE_USE_BEDROCK`, `AWS_REGION`, the AWS keys or a Bedrock API key): the
//! Messages API at the model's `invoke-with-response-stream` URL, SigV4-signed, answered in
//! AWS's binary event stream (the fake server writes real frames, CRCs included).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve, tool_result};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

const MODEL: &str = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0";

fn bedrock(env: &Env, server: &FakeServer) -> assert_cmd::Command {
    let mut c = env.rein();
    c.env("CLAUDE_CODE_USE_BEDROCK", "1")
        .env("AWS_REGION", "eu-west-3")
        .env("ANTHROPIC_BEDROCK_BASE_URL", server.url())
        .env("ANTHROPIC_MODEL", MODEL);
    c
}

#[test]
fn a_signed_session_streams_through_event_stream_frames() {
    let env = Env::new();
    env.write("a.txt", "x\n");
    let server =
        serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*.txt"}))]), reply([text("found a.txt")])]));
    bedrock(&env, &server)
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        .env("AWS_SESSION_TOKEN", "session-token")
        .args(["-p", "list", "--allowedTools", "Glob"])
        .assert()
        .success()
        .stdout("found a.txt\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(r.path, "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream");
        assert!(r.body.get("model").is_none() && r.body.get("stream").is_none(), "{}", r.body);
        assert_eq!(r.body["anthropic_version"], "bedrock-2023-05-31");
        let auth = &r.headers["authorization"];
        assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), "{auth}");
        assert!(auth.contains("/eu-west-3/bedrock/aws4_request") && auth.contains("Signature="), "{auth}");
        assert_eq!(r.headers["x-amz-security-token"], "session-token");
        assert!(r.headers.contains_key("x-amz-date"));
    }
    let (glob, _) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "g");
    assert_eq!(glob, "a.txt");
}

#[test]
fn a_bedrock_api_key_is_a_bearer_token_that_commands_never_see() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("b", "Bash", json!({"command": "echo \"[$AWS_BEARER_TOKEN_BEDROCK]\""}))]),
        reply([text("done")]),
    ]));
    bedrock(&env, &server)
        .env("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-123")
        .args(["-p", "go", "--allowedTools", "Bash(echo:*)"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(reqs[0].headers["authorization"], "Bearer bedrock-api-key-123");
    let (out, _) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "b");
    assert_eq!(out.trim(), "[]", "the key reached a command");
}

#[test]
fn a_profile_in_the_aws_files_signs_the_requests() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.path().join(".aws")).unwrap();
    std::fs::write(
        env.home.path().join(".aws/credentials"),
        "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s0\n\n[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = s1\n",
    )
    .unwrap();
    let server = serve(Scenario::new([reply([text("signed by the profile")])]));
    bedrock(&env, &server)
        .env("AWS_PROFILE", "work")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .args(["-p", "hi"])
        .assert()
        .success()
        .stdout("signed by the profile\n");
    let auth = &server.requests()[0].headers["authorization"];
    assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDWORK/"), "{auth}");
}

#[test]
fn the_chain_is_asked_once_and_its_answer_reused_until_it_expires() {
    let env = Env::new();
    // A profile whose credentials come from a process (as SSO helpers and vaults do):
    // every time the chain is asked, the process runs.
    let counter = env.cwd().join("asked");
    let helper = env.write(
        "creds.sh",
        &format!(
            "#!/bin/sh\necho asked >> '{}'\nprintf '{{\"Version\":1,\"AccessKeyId\":\"AKIDPROCESS\",\"SecretAccessKey\":\"s\",\"Expiration\":\"2099-01-01T00:00:00Z\"}}'\n",
            counter.display()
        ),
    );
    std::fs::set_permissions(&helper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(env.home.path().join(".aws")).unwrap();
    std::fs::write(
        env.home.path().join(".aws/config"),
        format!("[profile work]\ncredential_process = {}\n", helper.display()),
    )
    .unwrap();
    let server = serve(Scenario::new([
        reply([call("g", "Glob", json!({"pattern": "*.sh"}))]),
        reply([call("g2", "Glob", json!({"pattern": "*.sh"}))]),
        reply([text("done")]),
    ]));
    bedrock(&env, &server)
        .env("AWS_PROFILE", "work")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .args(["-p", "hi", "--allowedTools", "Glob"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    for r in &reqs {
        let auth = &r.headers["authorization"];
        assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDPROCESS/"), "{auth}");
    }
    assert_eq!(std::fs::read_to_string(&counter).unwrap().lines().count(), 1, "asked once for three requests");
}

#[test]
fn without_credentials_rein_says_how_to_give_them() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("never")])]));
    // No keys, no profile; the instance-metadata step is off (tests stay on loopback).
    let out = bedrock(&env, &server).env("AWS_EC2_METADATA_DISABLED", "true").args(["-p", "hi"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("AWS_PROFILE") && err.contains("AWS_BEARER_TOKEN_BEDROCK"), "{err}");
    assert!(server.requests().is_empty(), "nothing unsigned was sent");
}
