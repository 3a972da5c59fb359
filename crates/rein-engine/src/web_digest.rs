//! WebFetch's digest: the small fast model answers the call's prompt from the fetched
//! page, as Claude Code has it, so the main model reads a short answer instead of the
//! page. One request per fetch; its cost joins the session's.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_model::Model;

use crate::side_requests::{SideUsage, ask, one_message};

const SYSTEM: &str = "You answer questions about one web page, using only the page's content given to you.";

/// Answers are at most this long, in tokens.
const MAX_ANSWER_TOKENS: u32 = 4_096;

pub(crate) struct ModelDigest {
    pub model: Arc<dyn Model>,
    /// The small fast model's name.
    pub model_name: String,
    pub side: SideUsage,
}

impl std::fmt::Debug for ModelDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelDigest({})", self.model_name)
    }
}

/// The digest request's text: the page, then the question and how to answer it.
pub(crate) fn digest_prompt(url: &str, page: &str, prompt: &str) -> String {
    format!(
        "Web page content ({url}):\n---\n{page}\n---\n\n{prompt}\n\nAnswer concisely from the content above only. \
         Quote at most 125 characters from the page at a time, in quotation marks; everything outside quotation \
         marks is your own wording. If the page does not answer the question, say so."
    )
}

impl rein_tools::PageDigest for ModelDigest {
    fn answer<'a>(
        &'a self,
        url: &'a str,
        page: &'a str,
        prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, rein_tools::DigestError>> {
        Box::pin(async move {
            let request = one_message(&self.model_name, SYSTEM, digest_prompt(url, page, prompt), MAX_ANSWER_TOKENS)
                .map_err(|e| rein_tools::DigestError(Box::new(e)))?;
            let answer = ask(self.model.as_ref(), request, &self.side)
                .await
                .map_err(|e| rein_tools::DigestError(Box::new(e)))?;
            let text = answer.to_message().text();
            if text.trim().is_empty() {
                Err(rein_tools::DigestError(Box::new(crate::side_requests::SideRequestError::NoAnswer)))
            } else {
                Ok(text)
            }
        })
    }
}
