//! Amazon Bedrock's streaming answer, written independently of the client's decoder: AWS
//! event-stream frames (prelude with lengths and CRC32, string headers, payload, CRC32),
//! each `chunk` carrying one Messages event as base64 in `{"bytes": …}`.

use base64::Engine as _;

/// One header of type string (7).
fn header(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.push(7);
    out.extend_from_slice(&(value.len() as u16).to_be_bytes());
    out.extend_from_slice(value.as_bytes());
}

/// A whole frame with these string headers and payload.
pub fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        header(&mut head, name, value);
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(head.len() as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    let message_crc = crc32fast::hash(&out);
    out.extend_from_slice(&message_crc.to_be_bytes());
    out
}

/// The `chunk` frame of one Messages event (its JSON).
pub fn chunk(event_json: &str) -> Vec<u8> {
    let bytes = base64::engine::general_purpose::STANDARD.encode(event_json.as_bytes());
    let payload = serde_json::json!({"bytes": bytes, "p": "abcdefghijklmnopqrstuvwxyz"}).to_string();
    frame(
        &[(":event-type", "chunk"), (":content-type", "application/json"), (":message-type", "event")],
        payload.as_bytes(),
    )
}

/// An exception frame (`throttlingException`, …).
pub fn exception(kind: &str, message: &str) -> Vec<u8> {
    let payload = serde_json::json!({"message": message}).to_string();
    frame(
        &[(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")],
        payload.as_bytes(),
    )
}
