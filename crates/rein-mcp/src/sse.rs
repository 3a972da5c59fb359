//! The legacy HTTP+SSE transport (`"type": "sse"`), which rmcp no longer has: a GET of
//! the URL as `text/event-stream` gives an `endpoint` event (a URL, relative to the
//! stream's) and then the server's messages as `message` events; each message to the
//! server is a POST of its JSON to that endpoint. Presented to rmcp as a sink and a
//! stream.

use std::collections::BTreeMap;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};

/// Why the event stream gave no endpoint to post to.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("cannot start an HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    #[error("{url}: {source}")]
    Url { url: String, source: url::ParseError },
    #[error("SSE error: {0}")]
    Request(#[source] reqwest::Error),
    #[error("SSE error: {status} from {url}")]
    Status { status: reqwest::StatusCode, url: String },
    #[error("SSE error: {0}")]
    Stream(String),
    #[error("the stream ended before the endpoint event")]
    Ended,
    #[error("no endpoint event from {0}")]
    NoEndpoint(String),
}

/// The two halves rmcp drives.
pub(crate) type Halves = (mpsc::Sender<TxJsonRpcMessage<RoleClient>>, mpsc::Receiver<RxJsonRpcMessage<RoleClient>>);

fn with_headers(mut req: reqwest::RequestBuilder, headers: &BTreeMap<String, String>) -> reqwest::RequestBuilder {
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    req
}

/// Open the stream, wait for the endpoint, and start the two pumps.
pub(crate) async fn connect(
    url: &str,
    headers: &BTreeMap<String, String>,
    endpoint_within: Duration,
) -> Result<Halves, SseError> {
    let client = rein_tls::client_builder().build().map_err(SseError::Client)?;
    let base = reqwest::Url::parse(url).map_err(|source| SseError::Url { url: url.to_string(), source })?;
    let response = with_headers(client.get(base.clone()).header("accept", "text/event-stream"), headers)
        .send()
        .await
        .map_err(SseError::Request)?;
    if !response.status().is_success() {
        return Err(SseError::Status { status: response.status(), url: url.to_string() });
    }
    let mut events = response.bytes_stream().eventsource();
    let endpoint = tokio::time::timeout(endpoint_within, async {
        while let Some(event) = events.next().await {
            match event {
                Ok(e) if e.event == "endpoint" => {
                    return base.join(e.data.trim()).map_err(|source| SseError::Url { url: e.data.clone(), source });
                }
                Ok(_) => {}
                Err(e) => return Err(SseError::Stream(e.to_string())),
            }
        }
        Err(SseError::Ended)
    })
    .await
    .map_err(|_| SseError::NoEndpoint(url.to_string()))??;
    let (in_tx, in_rx) = mpsc::channel::<RxJsonRpcMessage<RoleClient>>(64);
    let (out_tx, mut out_rx) = mpsc::channel::<TxJsonRpcMessage<RoleClient>>(64);
    tokio::spawn(async move {
        let mut in_tx = in_tx;
        while let Some(Ok(event)) = events.next().await {
            if event.event != "message" && !event.event.is_empty() {
                continue;
            }
            if let Ok(message) = serde_json::from_str(&event.data)
                && in_tx.send(message).await.is_err()
            {
                return;
            }
        }
    });
    let headers = headers.clone();
    tokio::spawn(async move {
        while let Some(message) = out_rx.next().await {
            let Ok(body) = serde_json::to_string(&message) else { continue };
            let post = with_headers(client.post(endpoint.clone()), &headers)
                .header("content-type", "application/json")
                .body(body);
            if post.send().await.is_err() {
                return;
            }
        }
    });
    Ok((out_tx, in_rx))
}
