//! Images, PDFs and notebooks through the real binary: what the request carries for
//! `@shot.png`, `@paper.pdf`, a Read of a PDF or a notebook, and stream-json images.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use base64::Engine as _;
use common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// The blocks of the first request's last user message.
fn prompt_blocks(server: &rein_testkit::FakeServer) -> Vec<Value> {
    let reqs = server.requests();
    let messages = reqs[0].body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].as_array().unwrap().clone()
}

fn decoded(block: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(block["source"]["data"].as_str().unwrap()).unwrap()
}

#[test]
fn a_mentioned_screenshot_is_sent_as_an_image_fitted_under_the_limits() {
    let env = Env::new();
    std::fs::write(env.cwd().join("shot.png"), rein_media::sample_png(4000, 3000)).unwrap();
    std::fs::write(env.cwd().join("small.png"), rein_media::sample_png(64, 48)).unwrap();
    let server = serve(Scenario::new([reply([text("I see it")])]));
    env.rein_at(&server)
        .args(["-p", "what is wrong in @shot.png and @small.png?"])
        .assert()
        .success()
        .stdout("I see it\n");
    assert_eq!(server.requests().len(), 1, "a screenshot is not a reason to compact");
    let blocks = prompt_blocks(&server);
    assert_eq!(blocks[0]["text"], "what is wrong in @shot.png and @small.png?");
    let images: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(images.len(), 2, "{blocks:?}");
    let big = image_size(&decoded(images[0]));
    assert_eq!(big, (2000, 1500), "scaled to a 2 000-pixel long edge");
    assert_eq!(decoded(images[1]), rein_media::sample_png(64, 48), "a small image goes as it is");
}

fn image_size(bytes: &[u8]) -> (u32, u32) {
    // A PNG's IHDR holds the size at bytes 16..24; a JPEG is scanned for its SOF marker.
    if bytes.starts_with(b"\x89PNG") {
        let n = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        return (n(16), n(20));
    }
    let at = bytes.windows(2).position(|w| w == [0xFF, 0xC0] || w == [0xFF, 0xC2]).unwrap();
    let n = |i: usize| u32::from(u16::from_be_bytes([bytes[i], bytes[i + 1]]));
    (n(at + 7), n(at + 5))
}

#[test]
fn a_mentioned_pdf_is_sent_as_a_document_and_read_takes_page_ranges() {
    let env = Env::new();
    std::fs::write(env.cwd().join("brief.pdf"), rein_media::sample_pdf(3)).unwrap();
    let long = env.cwd().join("manual.pdf");
    std::fs::write(&long, rein_media::sample_pdf(40)).unwrap();
    let server = serve(Scenario::new([
        reply([
            call("whole", "Read", json!({"file_path": long.display().to_string()})),
            call("range", "Read", json!({"file_path": long.display().to_string(), "pages": "5-7"})),
        ]),
        reply([text("read")]),
    ]));
    env.rein_at(&server).args(["-p", "summarise @brief.pdf"]).assert().success();
    let blocks = prompt_blocks(&server);
    let doc = blocks.iter().find(|b| b["type"] == "document").unwrap();
    assert_eq!(doc["source"]["media_type"], "application/pdf");
    assert_eq!(decoded(doc), rein_media::sample_pdf(3));

    let reqs = server.requests();
    let messages = reqs[1].body["messages"].as_array().unwrap();
    let (whole, failed) = common::tool_result(messages, "whole");
    assert!(failed && whole.contains("40 pages") && whole.contains("pages"), "{whole}");
    let results = messages.last().unwrap()["content"].as_array().unwrap();
    let range = results.iter().find(|b| b["tool_use_id"] == "range").unwrap();
    let parts = range["content"].as_array().unwrap();
    assert!(parts[0]["text"].as_str().unwrap().contains("pages 5-7 of 40"), "{parts:?}");
    assert_eq!(parts[1]["type"], "document");
    assert_eq!(rein_media::page_count(&decoded(&parts[1])).unwrap(), 3, "only the pages asked for");
}

/// A PDF whose cross-reference table points at the wrong place (common readers rebuild
/// it, warning) is read and sent as it is, not refused as unreadable.
#[test]
fn a_pdf_with_a_broken_cross_reference_table_is_read() {
    let env = Env::new();
    let good = rein_media::sample_pdf(2);
    let at = good.windows(9).rposition(|w| w == b"startxref").unwrap();
    let mut broken = good[..at].to_vec();
    broken.extend_from_slice(b"startxref\n9\n%%EOF\n");
    let path = env.cwd().join("scan.pdf");
    std::fs::write(&path, &broken).unwrap();
    let server = serve(Scenario::new([
        reply([call("r", "Read", json!({"file_path": path.display().to_string()}))]),
        reply([text("read")]),
    ]));
    env.rein_at(&server).args(["-p", "read the scan"]).assert().success();
    let reqs = server.requests();
    let messages = reqs[1].body["messages"].as_array().unwrap();
    let results = messages.last().unwrap()["content"].as_array().unwrap();
    let result = results.iter().find(|b| b["tool_use_id"] == "r").unwrap();
    assert_ne!(result["is_error"], true, "{result}");
    let doc = result["content"].as_array().unwrap().iter().find(|b| b["type"] == "document").expect("a document");
    assert_eq!(decoded(doc), broken, "sent as the file is");
}

#[test]
fn a_notebook_is_read_as_its_cells_and_outputs() {
    let env = Env::new();
    let nb = env.write(
        "analysis.ipynb",
        &json!({"cells": [
            {"id": "load", "cell_type": "code", "source": ["import math\n", "math.sqrt(16)"],
             "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["4.0"]}}]},
            {"id": "note", "cell_type": "markdown", "source": "The root is **4**."}
        ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        .to_string(),
    );
    let server = serve(Scenario::new([
        reply([call("r", "Read", json!({"file_path": nb.display().to_string()}))]),
        reply([text("ok")]),
    ]));
    env.rein_at(&server).args(["-p", "read the notebook"]).assert().success();
    let reqs = server.requests();
    let messages = reqs[1].body["messages"].as_array().unwrap();
    let block = messages.last().unwrap()["content"].as_array().unwrap()[0].clone();
    assert_eq!(block["tool_use_id"], "r");
    assert!(block["is_error"] != json!(true), "{block}");
    let result: String =
        block["content"].as_array().unwrap().iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n");
    assert!(result.contains("<cell id=\"load\">import math\nmath.sqrt(16)</cell id=\"load\">"), "{result}");
    assert!(result.contains("4.0"), "{result}");
    assert!(result.contains("<cell_type>markdown</cell_type>The root is **4**."), "{result}");
    assert!(!result.contains("nbformat"), "not the JSON: {result}");
}

#[test]
fn stream_json_input_takes_image_content() {
    let env = Env::new();
    let data = base64::engine::general_purpose::STANDARD.encode(rein_media::sample_png(8, 8));
    let line = json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    ]}});
    let server = serve(Scenario::new([reply([text("a square")])]));
    env.rein_at(&server)
        .args(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"])
        .write_stdin(format!("{line}\n"))
        .assert()
        .success();
    let blocks = prompt_blocks(&server);
    let image = blocks.iter().find(|b| b["type"] == "image").unwrap();
    assert_eq!(image["source"]["data"], data);
}
