//! The session's language servers: each started the first time a file of its language
//! is used (never at session start, so none delays the first request), kept for the
//! session, started again after a crash (up to its `maxRestarts`), and given up on
//! after a start that failed — said once, in the result that first needed it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::server::Server;
use crate::{LspError, ServerSpec};

/// How long a changed file's diagnostics are waited for: longer the first time the
/// server sees the file (it may still be reading the workspace).
const WAIT_OPENED: Duration = Duration::from_secs(20);
const WAIT_CHANGED: Duration = Duration::from_secs(5);
/// After an empty publication or one without a version, how long to wait for another:
/// longer the first time the server sees the file (it may answer in parts while it reads
/// the project).
const SETTLE: Duration = Duration::from_millis(60);
const SETTLE_OPENED: Duration = Duration::from_millis(500);

enum Slot {
    Idle { restarts: u32 },
    Running { server: Arc<Server>, restarts: u32 },
    Failed { why: String, told: bool },
}

/// The configured servers, started on demand.
pub struct LanguageServers {
    specs: Vec<ServerSpec>,
    root: PathBuf,
    slots: Vec<tokio::sync::Mutex<Slot>>,
    /// The Read rules: a server is not started where it would read a file they protect.
    guard: Option<Arc<dyn rein_effects::ReadGuard>>,
}

impl std::fmt::Debug for LanguageServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.specs.iter().map(|s| &s.name)).finish()
    }
}

impl LanguageServers {
    /// `specs` for the workspace at `root`; a later spec for an extension an earlier one
    /// has is used for the extensions only it names.
    pub fn new(specs: Vec<ServerSpec>, root: &Path) -> Self {
        let slots = specs.iter().map(|_| tokio::sync::Mutex::new(Slot::Idle { restarts: 0 })).collect();
        LanguageServers { specs, root: root.to_path_buf(), slots, guard: None }
    }

    /// With the Read rules that keep files from the model: a server that would read one
    /// (a file of its languages, or JSON, in its workspace) is not started — what it
    /// says of the code (a hover, a diagnostic) could quote it.
    pub fn with_read_rules(mut self, guard: Arc<dyn rein_effects::ReadGuard>) -> Self {
        self.guard = Some(guard);
        self
    }

    pub fn specs(&self) -> &[ServerSpec] {
        &self.specs
    }

    fn index_for(&self, path: &Path) -> Option<usize> {
        self.specs.iter().position(|s| s.language_of(path).is_some())
    }

    /// Every extension some server handles, for the tool's description.
    pub fn extensions(&self) -> Vec<String> {
        let mut all: Vec<String> = self.specs.iter().flat_map(|s| s.extensions.keys().cloned()).collect();
        all.sort();
        all.dedup();
        all
    }

    /// The running server for `path`'s language, started (or started again) if need be.
    pub async fn server_for(&self, path: &Path) -> Result<Arc<Server>, LspError> {
        let Some(i) = self.index_for(path) else {
            let ext =
                path.extension().map_or_else(|| path.display().to_string(), |e| format!(".{}", e.to_string_lossy()));
            return Err(LspError::NoServer(ext));
        };
        let spec = &self.specs[i];
        let mut slot = self.slots[i].lock().await;
        let restarts = match &mut *slot {
            Slot::Running { server, .. } if !server.has_ended() => return Ok(server.clone()),
            Slot::Running { server, restarts } => {
                tracing::warn!(server = %spec.name, "a language server stopped{}", server.stderr_tail());
                if !spec.restart_on_crash || *restarts >= spec.max_restarts {
                    let why = LspError::GaveUp { server: spec.name.clone(), times: *restarts + 1 }.to_string();
                    *slot = Slot::Failed { why: why.clone(), told: true };
                    return Err(LspError::Failed { server: spec.name.clone(), why });
                }
                *restarts + 1
            }
            Slot::Idle { restarts } => *restarts,
            Slot::Failed { why, told } => {
                *told = true;
                return Err(LspError::Failed { server: spec.name.clone(), why: why.clone() });
            }
        };
        if let Some(guard) = self.guard.clone() {
            let (spec_c, root) = (spec.clone(), spec.workspace_folder.clone().unwrap_or_else(|| self.root.clone()));
            let found =
                tokio::task::spawn_blocking(move || crate::protected::file_it_would_read(&spec_c, &root, &*guard))
                    .await
                    .ok()
                    .flatten();
            if let Some(file) = found {
                let e = LspError::Protected { server: spec.name.clone(), file: file.display().to_string() };
                *slot = Slot::Failed { why: e.to_string(), told: true };
                return Err(e);
            }
        }
        match crate::start::start(spec, &self.root).await {
            Ok(server) => {
                let server = Arc::new(server);
                *slot = Slot::Running { server: server.clone(), restarts };
                Ok(server)
            }
            Err(e) => {
                tracing::warn!(server = %spec.name, error = %e, "a language server could not be started");
                *slot = Slot::Failed { why: e.to_string(), told: true };
                Err(e)
            }
        }
    }

    /// Whether the server for `path` failed before and that was already said.
    async fn failure_told(&self, path: &Path) -> bool {
        match self.index_for(path) {
            Some(i) => matches!(&*self.slots[i].lock().await, Slot::Failed { told: true, .. }),
            None => false,
        }
    }

    /// What the change to `path` brought, for the model.
    pub async fn new_diagnostics(&self, path: &Path) -> Option<String> {
        let already_told = self.failure_told(path).await;
        let server = match self.server_for(path).await {
            Ok(s) => s,
            Err(_) if already_told => return None,
            Err(e) => return Some(crate::diagnostics::unavailable(&e)),
        };
        let synced = match server.sync(path, true).await {
            Ok(s) if s.sent => s,
            Ok(_) => return None,
            Err(e) => return Some(crate::diagnostics::unavailable(&e)),
        };
        let (wait, settle) = if synced.opened { (WAIT_OPENED, SETTLE_OPENED) } else { (WAIT_CHANGED, SETTLE) };
        let after = server.diagnostics_for(&synced, wait, settle).await?;
        crate::diagnostics::report(&server.spec.name, path, &self.root, synced.before.as_deref(), &after, &synced.text)
    }
}

impl rein_tools::FileDiagnostics for LanguageServers {
    fn covers(&self, path: &Path) -> bool {
        self.index_for(path).is_some()
    }

    fn after_change<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Option<String>> {
        Box::pin(self.new_diagnostics(path))
    }
}

/// Shared by the session's tool and its chain.
pub type SharedServers = Arc<LanguageServers>;
