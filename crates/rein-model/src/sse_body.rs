//! The one loop that turns a streamed 200 body into model events for every provider:
//! read its events (server-sent events, or Bedrock's binary event stream, as
//! `(name, data)`), let the provider's [`Wire`] turn each into assembled model events, stop the moment the message is complete (the rest of the body is drained in
//! the background so the connection can be reused), and say why when the body ends
//! before the message does.

use std::collections::VecDeque;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};

use crate::error::error_chain;
use crate::{Assembler, ModelError, ModelEvent};

/// A body's events as `(name, data)`.
pub(crate) type EventStream = std::pin::Pin<Box<dyn Stream<Item = Result<(String, String), ModelError>> + Send>>;

/// How a provider's events become model events.
pub(crate) trait Wire: Send + 'static {
    /// The model events for one server-sent event (`name`, `data`).
    fn event(&mut self, assembler: &mut Assembler, name: &str, data: &str) -> Result<Vec<ModelEvent>, ModelError>;
    /// The body ended: the closing events if the response is whole, else why not.
    fn end(&mut self, assembler: &mut Assembler) -> Result<Vec<ModelEvent>, ModelError>;
}

/// How long to wait for the end of a body after the message is complete.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Read what is left of a response after the message is complete (normally just the
/// end of the chunked body) so that its connection goes back to the pool and the next
/// turn skips a new TCP and TLS handshake.
fn drain_in_background(sse: &mut EventStream) {
    let mut rest: EventStream = std::mem::replace(sse, Box::pin(futures::stream::empty()));
    tokio::spawn(async move {
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, async { while rest.next().await.is_some() {} }).await;
    });
}

/// The model events of a 200 server-sent-events response read through `wire`.
pub(crate) fn model_events(
    response: reqwest::Response,
    wire: impl Wire,
) -> impl Stream<Item = Result<ModelEvent, ModelError>> + Send {
    let sse = response
        .bytes_stream()
        .eventsource()
        .map(|item| item.map(|e| (e.event, e.data)).map_err(|e| ModelError::Stream(error_chain(&e))));
    events_through(Box::pin(sse), wire)
}

/// The model events of a body's `events` read through `wire`.
pub(crate) fn events_through(
    events: EventStream,
    wire: impl Wire,
) -> impl Stream<Item = Result<ModelEvent, ModelError>> + Send {
    struct State<W> {
        sse: EventStream,
        wire: W,
        assembler: Assembler,
        pending: VecDeque<ModelEvent>,
        over: bool,
    }
    let state = State { sse: events, wire, assembler: Assembler::new(), pending: VecDeque::new(), over: false };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(ev) = st.pending.pop_front() {
                return Some((Ok(ev), st));
            }
            if st.over {
                return None;
            }
            let events = match st.sse.next().await {
                Some(Ok((name, data))) => st.wire.event(&mut st.assembler, &name, &data),
                Some(Err(e)) => Err(e),
                None => {
                    st.over = true;
                    st.wire.end(&mut st.assembler)
                }
            };
            match events {
                Ok(events) => {
                    st.pending.extend(events);
                    if st.assembler.is_finished() && !st.over {
                        st.over = true;
                        drain_in_background(&mut st.sse);
                    }
                }
                Err(e) => {
                    st.over = true;
                    return Some((Err(e), st));
                }
            }
        }
    })
}
