//! What the OpenAI providers translate once and keep: the tools array (per tools array
//! the engine hands over) and each message's items (per kept message, by identity), so
//! that a long session does not re-translate and re-serialise its whole history on
//! every turn — the same economy `CachedMessage` gives the Messages API.

use std::sync::{Arc, Weak};

use rein_protocol::{Message, ToolSpec};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{CachedMessage, ModelError};

fn bad(e: serde_json::Error) -> ModelError {
    ModelError::Request(e.to_string())
}

/// Translations kept between requests of one client.
#[derive(Default)]
pub(crate) struct TranslationCache {
    tools: Option<(Arc<[ToolSpec]>, Arc<RawValue>)>,
    /// Per history position: the message it was made from and its items, serialised and
    /// joined with commas (empty when the message has none).
    messages: Vec<(Weak<CachedMessage>, Arc<str>)>,
}

impl TranslationCache {
    /// The translated tools array, made once per tools array.
    pub(crate) fn tools(
        &mut self,
        tools: &Arc<[ToolSpec]>,
        translate: impl Fn(&[ToolSpec]) -> Value,
    ) -> Result<Arc<RawValue>, ModelError> {
        if let Some((source, json)) = &self.tools
            && Arc::ptr_eq(source, tools)
        {
            return Ok(json.clone());
        }
        let json: Arc<RawValue> = serde_json::value::to_raw_value(&translate(tools)).map_err(bad)?.into();
        self.tools = Some((tools.clone(), json.clone()));
        Ok(json)
    }

    /// Every message's items, in order, joined with commas (no brackets).
    pub(crate) fn items(
        &mut self,
        messages: &[Arc<CachedMessage>],
        translate: impl Fn(&mut Vec<Value>, &Message),
    ) -> Result<String, ModelError> {
        self.messages.truncate(messages.len());
        let mut joined = String::new();
        for (i, m) in messages.iter().enumerate() {
            let kept = self.messages.get(i).filter(|(w, _)| w.upgrade().is_some_and(|k| Arc::ptr_eq(&k, m)));
            let text = match kept {
                Some((_, text)) => text.clone(),
                None => {
                    let mut items = Vec::new();
                    translate(&mut items, m.message());
                    let parts: Result<Vec<String>, _> = items.iter().map(serde_json::to_string).collect();
                    let text: Arc<str> = parts.map_err(bad)?.join(",").into();
                    let entry = (Arc::downgrade(m), text.clone());
                    if i < self.messages.len() {
                        self.messages[i] = entry;
                    } else {
                        self.messages.push(entry);
                    }
                    text
                }
            };
            if !text.is_empty() {
                if !joined.is_empty() {
                    joined.push(',');
                }
                joined.push_str(&text);
            }
        }
        Ok(joined)
    }
}

/// `[first, rest…]` as one JSON array.
pub(crate) fn array(first: Option<String>, rest: &str) -> Result<Box<RawValue>, ModelError> {
    let mut text = String::with_capacity(rest.len() + 2);
    text.push('[');
    if let Some(first) = first {
        text.push_str(&first);
        if !rest.is_empty() {
            text.push(',');
        }
    }
    text.push_str(rest);
    text.push(']');
    RawValue::from_string(text).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn kept_messages_are_translated_once_and_replaced_ones_again() {
        let m = |t: &str| Arc::new(CachedMessage::new(Message::user_text(t)).unwrap());
        let calls = Cell::new(0);
        let translate = |out: &mut Vec<Value>, msg: &Message| {
            calls.set(calls.get() + 1);
            out.push(Value::String(msg.text()));
        };
        let mut cache = TranslationCache::default();
        let mut history = vec![m("a"), m("b")];
        assert_eq!(cache.items(&history, translate).unwrap(), r#""a","b""#);
        history.push(m("c"));
        assert_eq!(cache.items(&history, translate).unwrap(), r#""a","b","c""#);
        assert_eq!(calls.get(), 3, "only the new message was translated");
        // Compaction: a new history in the same positions is translated afresh.
        let compacted = vec![m("summary"), history[2].clone()];
        assert_eq!(cache.items(&compacted, translate).unwrap(), r#""summary","c""#);
        assert_eq!(calls.get(), 5);
        assert_eq!(array(Some("\"s\"".into()), "").unwrap().get(), r#"["s"]"#);
    }
}
