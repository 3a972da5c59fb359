//! In-process servers of an Agent SDK host (`"type": "sdk"`): the server lives in the
//! program that runs rein, so each JSON-RPC message rein sends travels through that
//! program (`mcp_message` control requests) and the reply comes back with the answer.
//! Presented to rmcp as a sink and a stream; requests run concurrently.

use std::sync::Arc;

use futures::channel::mpsc;
use futures::future::BoxFuture;
use futures::{SinkExt, StreamExt};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::Value;

/// Carries one JSON-RPC message to the host's server `server` and returns its reply.
pub trait Tunnel: Send + Sync {
    fn send<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, TunnelError>>;
}

/// Why the host gave no reply to a message for its server.
#[derive(Debug, thiserror::Error)]
pub enum TunnelError {
    /// The host's channel failed (it closed, or answered the request with an error).
    #[error(transparent)]
    Host(Box<dyn std::error::Error + Send + Sync>),
    #[error("no mcp_response in {0}")]
    NoResponse(Value),
}

/// A tunnel as the session keeps it.
#[derive(Clone)]
pub struct TunnelHandle(pub Arc<dyn Tunnel>);

impl std::fmt::Debug for TunnelHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TunnelHandle")
    }
}

/// The two halves rmcp drives for server `name`.
pub(crate) fn halves(
    tunnel: TunnelHandle,
    name: String,
) -> (mpsc::Sender<TxJsonRpcMessage<RoleClient>>, mpsc::Receiver<RxJsonRpcMessage<RoleClient>>) {
    let (in_tx, in_rx) = mpsc::channel::<RxJsonRpcMessage<RoleClient>>(64);
    let (out_tx, mut out_rx) = mpsc::channel::<TxJsonRpcMessage<RoleClient>>(64);
    tokio::spawn(async move {
        while let Some(message) = out_rx.next().await {
            let Ok(value) = serde_json::to_value(&message) else { continue };
            // Only a request has an answer to hand back; notifications are acknowledged.
            let is_request = value.get("id").is_some() && value.get("method").is_some();
            let (tunnel, name, mut in_tx) = (tunnel.clone(), name.clone(), in_tx.clone());
            let exchange = async move {
                let reply = tunnel.0.send(&name, value).await;
                if !is_request {
                    return;
                }
                match reply.map(serde_json::from_value::<RxJsonRpcMessage<RoleClient>>) {
                    Ok(Ok(m)) => {
                        let _ = in_tx.send(m).await;
                    }
                    Ok(Err(e)) => tracing::warn!(server = %name, error = %e, "unreadable reply from an SDK server"),
                    Err(e) => tracing::warn!(server = %name, error = %e, "an SDK server did not answer"),
                }
            };
            if is_request {
                tokio::spawn(exchange);
            } else {
                exchange.await;
            }
        }
    });
    (out_tx, in_rx)
}
