//! `rein-testkit serve SCENARIO.json` from the command line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

struct KillOnDrop(std::process::Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serves_a_scenario_file_and_records_requests() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("s.json");
    std::fs::write(&scenario, r#"{"steps":[{"respond":{"blocks":[{"type":"text","text":"Hello from the script"}]}}]}"#)
        .unwrap();
    let record = dir.path().join("requests.jsonl");
    let child = Command::new(env!("CARGO_BIN_EXE_rein-testkit"))
        .args(["serve", scenario.to_str().unwrap(), "--record", record.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let mut first = String::new();
    BufReader::new(child.0.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first.split_whitespace().nth(2).unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");

    let body = r#"{"model":"m","max_tokens":10,"messages":[],"stream":true}"#;
    let mut conn = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        conn,
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    conn.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("event: message_start"));
    assert!(response.contains("Hello from"));
    assert!(response.contains("event: message_stop"));
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.contains("\"max_tokens\":10"), "{recorded}");
}

#[test]
fn a_bad_scenario_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("bad.json");
    std::fs::write(&scenario, "{not json").unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_rein-testkit")).args(["serve", scenario.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json"));
}
