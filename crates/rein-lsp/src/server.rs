//! One running language server: the documents rein has shown it (synchronised in full
//! from disk before each use), the diagnostics it published, and its queries, each
//! bounded in time.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_lsp::{ErrorCode, LanguageServer, ServerSocket};
use lsp_types::{
    Diagnostic, DidChangeTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams, ServerCapabilities,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem, Url, VersionedTextDocumentIdentifier,
    WorkspaceFolder,
};
use serde_json::Value;
use tokio::sync::watch;

use crate::{LspError, ServerSpec};

/// How long one query may take.
const QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a query the server says came too early ("content modified") is sent again.
const RETRIES: u32 = 5;

/// What the server last published for a document.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    pub version: Option<i32>,
    /// The order of publication (all documents): later is greater.
    pub seq: u64,
    pub items: Vec<Diagnostic>,
}

impl Published {
    pub(crate) fn new(version: Option<i32>, items: Vec<Diagnostic>) -> Self {
        Published { version, seq: 0, items }
    }
}

/// What the main loop and the queries share.
#[derive(Debug)]
pub(crate) struct Shared {
    diagnostics: Mutex<HashMap<Url, Published>>,
    /// Counts what happened (publications, progress begun or ended): later is greater.
    published: watch::Sender<u64>,
    /// The server's work in progress (`$/progress` tokens begun and not yet ended).
    working: Mutex<std::collections::HashSet<String>>,
    settings: Option<Value>,
    pub folders: Vec<WorkspaceFolder>,
}

impl Shared {
    pub(crate) fn new(settings: Option<Value>, folders: Vec<WorkspaceFolder>) -> Self {
        Shared {
            diagnostics: Mutex::default(),
            published: watch::channel(0).0,
            working: Mutex::default(),
            settings,
            folders,
        }
    }

    pub(crate) fn publish(&self, uri: Url, mut published: Published) {
        let seq = *self.published.borrow() + 1;
        published.seq = seq;
        self.diagnostics.lock().unwrap_or_else(|p| p.into_inner()).insert(uri, published);
        self.published.send_replace(seq);
    }

    /// The server began (`true`) or ended some work it reports progress of.
    pub(crate) fn progress(&self, token: String, begun: bool) {
        let mut working = self.working.lock().unwrap_or_else(|p| p.into_inner());
        if begun {
            working.insert(token);
        } else {
            working.remove(&token);
        }
        drop(working);
        self.published.send_modify(|n| *n += 1);
    }

    fn busy(&self) -> bool {
        !self.working.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    pub(crate) fn setting(&self, section: Option<&str>) -> Value {
        setting_at(self.settings.as_ref(), section)
    }

    fn get(&self, uri: &Url) -> Option<Published> {
        self.diagnostics.lock().unwrap_or_else(|p| p.into_inner()).get(uri).cloned()
    }
}

/// A document as the server has it.
struct Doc {
    version: i32,
    text: String,
}

/// A started server.
pub struct Server {
    pub spec: ServerSpec,
    socket: ServerSocket,
    shared: Arc<Shared>,
    pub capabilities: ServerCapabilities,
    docs: tokio::sync::Mutex<HashMap<Url, Doc>>,
    /// Killed with the server (the child, then its whole group).
    _process: (tokio::process::Child, rein_process::GroupGuard),
    ended: watch::Receiver<bool>,
    stderr: Arc<Mutex<String>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("name", &self.spec.name).finish_non_exhaustive()
    }
}

/// A document synchronised for a query or after a change.
pub(crate) struct Synced {
    pub uri: Url,
    pub version: i32,
    pub text: String,
    /// The server had not seen the document before.
    pub opened: bool,
    /// The server was sent the document (opened, or its text differed).
    pub sent: bool,
    /// The publication count when it was sent: diagnostics after this are about it.
    pub seq_before: u64,
    /// What the server had published for it before this change.
    pub before: Option<Vec<Diagnostic>>,
}

impl Server {
    pub(crate) fn new(
        spec: ServerSpec,
        socket: ServerSocket,
        shared: Arc<Shared>,
        capabilities: ServerCapabilities,
        process: (tokio::process::Child, rein_process::GroupGuard),
        ended: watch::Receiver<bool>,
        stderr: Arc<Mutex<String>>,
    ) -> Self {
        Server { spec, socket, shared, capabilities, docs: Default::default(), _process: process, ended, stderr }
    }

    /// Whether the server has stopped (crashed or exited).
    pub fn has_ended(&self) -> bool {
        *self.ended.borrow()
    }

    /// The end of what the server wrote to its standard error, for a message.
    pub fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().unwrap_or_else(|p| p.into_inner()).trim().to_string();
        if t.is_empty() { String::new() } else { format!("; it said: {t}") }
    }

    fn stopped(&self) -> LspError {
        LspError::Stopped { server: self.spec.name.clone(), stderr: self.stderr_tail() }
    }

    /// Show the server `path` as it is on disk now: opened the first time, changed (the
    /// whole text) when it differs from what the server has, and saved when `saved`.
    pub(crate) async fn sync(&self, path: &Path, saved: bool) -> Result<Synced, LspError> {
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|source| LspError::Read { path: path.display().to_string(), source })?;
        let uri = Url::from_file_path(path).map_err(|()| LspError::Read {
            path: path.display().to_string(),
            source: std::io::Error::other("not an absolute path"),
        })?;
        let language = self.spec.language_of(path).unwrap_or("plaintext").to_string();
        let mut docs = self.docs.lock().await;
        let seq_before = *self.shared.published.borrow();
        let before = self.shared.get(&uri).map(|p| p.items);
        let gone = |_| self.stopped();
        let (version, opened, sent) = match docs.get_mut(&uri) {
            None => {
                let item = TextDocumentItem { uri: uri.clone(), language_id: language, version: 1, text: text.clone() };
                self.socket.clone().did_open(DidOpenTextDocumentParams { text_document: item }).map_err(gone)?;
                docs.insert(uri.clone(), Doc { version: 1, text: text.clone() });
                (1, true, true)
            }
            Some(doc) if doc.text == text => (doc.version, false, false),
            Some(doc) => {
                doc.version += 1;
                doc.text = text.clone();
                let change = TextDocumentContentChangeEvent { range: None, range_length: None, text: text.clone() };
                self.socket
                    .clone()
                    .did_change(DidChangeTextDocumentParams {
                        text_document: VersionedTextDocumentIdentifier { uri: uri.clone(), version: doc.version },
                        content_changes: vec![change],
                    })
                    .map_err(gone)?;
                (doc.version, false, true)
            }
        };
        if saved {
            let params = DidSaveTextDocumentParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                text: Some(text.clone()),
            };
            self.socket.clone().did_save(params).map_err(gone)?;
        }
        Ok(Synced { uri, version, text, opened, sent, seq_before, before })
    }

    /// The diagnostics the server publishes for `synced` (a publication for its version
    /// or later, or, from a server that gives no versions, any publication after it was
    /// sent), then whatever else it publishes for the document within `settle`; `None`
    /// when nothing came within `wait` or the server stopped.
    pub(crate) async fn diagnostics_for(
        &self,
        synced: &Synced,
        wait: Duration,
        settle: Duration,
    ) -> Option<Vec<Diagnostic>> {
        let mut rx = self.shared.published.subscribe();
        let fresh = |p: &Published| match p.version {
            Some(v) => v >= synced.version && p.seq > synced.seq_before,
            None => p.seq > synced.seq_before,
        };
        let first = tokio::time::timeout(wait, async {
            loop {
                if let Some(p) = self.shared.get(&synced.uri).filter(|p| fresh(p)) {
                    return Some(p);
                }
                if rx.changed().await.is_err() || self.has_ended() {
                    return None;
                }
            }
        })
        .await
        .ok()
        .flatten()?;
        // A warm server's answer for the version is its answer; a server that has just
        // been shown the file may still be reading the workspace (and say nothing yet).
        if first.version.is_some() && (!first.items.is_empty() || !synced.opened && !self.shared.busy()) {
            return Some(first.items);
        }
        // A server may publish twice for one change (an empty list that clears the old
        // ones, or says it has not read the workspace yet, then what it found; syntax,
        // then types): take the last, once it is quiet and reports no work in progress.
        let deadline = tokio::time::Instant::now() + wait;
        let mut last = first;
        loop {
            let quiet = tokio::time::timeout(settle, rx.changed()).await.is_err();
            if let Some(p) = self.shared.get(&synced.uri).filter(|p| p.seq > last.seq) {
                last = p;
                if last.version.is_some() && !last.items.is_empty() {
                    break;
                }
            }
            if quiet && !self.shared.busy() || tokio::time::Instant::now() >= deadline || self.has_ended() {
                break;
            }
        }
        Some(last.items)
    }

    /// Send `R`, again while the server answers that it is not ready, within the
    /// query timeout.
    pub(crate) async fn request<R>(&self, params: R::Params) -> Result<R::Result, LspError>
    where
        R: lsp_types::request::Request,
        R::Params: Clone,
    {
        let method = R::METHOD;
        let name = &self.spec.name;
        let attempt = async {
            let mut tries = 0;
            loop {
                match self.socket.request::<R>(params.clone()).await {
                    Err(async_lsp::Error::Response(r)) if r.code == ErrorCode::CONTENT_MODIFIED && tries < RETRIES => {
                        tries += 1;
                        tokio::time::sleep(Duration::from_millis(200 * u64::from(tries))).await;
                    }
                    Err(async_lsp::Error::Response(r)) => {
                        return Err(LspError::Answer { server: name.clone(), method, message: r.message });
                    }
                    Err(_) => return Err(self.stopped()),
                    Ok(answer) => return Ok(answer),
                }
            }
        };
        match tokio::time::timeout(QUERY_TIMEOUT, attempt).await {
            Ok(r) => r,
            Err(_) => Err(LspError::Timeout { server: name.clone(), method, seconds: QUERY_TIMEOUT.as_secs() }),
        }
    }
}

/// `settings` at the dotted `section` (`python.analysis`), or all of it.
fn setting_at(settings: Option<&Value>, section: Option<&str>) -> Value {
    let Some(settings) = settings else { return Value::Null };
    let Some(section) = section.filter(|s| !s.is_empty()) else { return settings.clone() };
    if let Some(v) = settings.get(section) {
        return v.clone();
    }
    section.split('.').try_fold(settings, |v, k| v.get(k)).cloned().unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// `workspace/configuration` is answered from the entry's `settings`, by section.
    #[test]
    fn a_servers_settings_are_answered_by_section() {
        let settings = json!({"python": {"analysis": {"typeCheckingMode": "strict"}}, "a.b": 1});
        assert_eq!(super::setting_at(Some(&settings), Some("python.analysis"))["typeCheckingMode"], "strict");
        assert_eq!(super::setting_at(Some(&settings), Some("a.b")), json!(1));
        assert_eq!(super::setting_at(Some(&settings), None), settings);
        assert_eq!(super::setting_at(Some(&settings), Some("rust")), json!(null));
        assert_eq!(super::setting_at(None, Some("python")), json!(null));
    }
}
