//! Starting one language server: the process (in its own process group, killed with
//! rein, with the environment every process rein starts gets — rein's credentials never
//! in it), the JSON-RPC main loop, the answers a client owes the server (its settings,
//! progress tokens, registrations), and the `initialize` handshake.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_lsp::router::Router;
use async_lsp::{LanguageServer, MainLoop};
use lsp_types::notification::{LogMessage, Progress, PublishDiagnostics, ShowMessage};
use lsp_types::request::{
    ApplyWorkspaceEdit, RegisterCapability, ShowMessageRequest, UnregisterCapability, WorkDoneProgressCreate,
    WorkspaceConfiguration, WorkspaceFoldersRequest,
};
use lsp_types::{
    ApplyWorkspaceEditResponse, ClientCapabilities, ClientInfo, InitializeParams, InitializedParams, NumberOrString,
    ProgressParamsValue, Url, WorkDoneProgress, WorkspaceFolder,
};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::server::{Published, Server, Shared};
use crate::{LspError, ServerSpec};

/// How much of a server's standard error is kept to explain why it stopped.
const STDERR_TAIL: usize = 2_000;

/// Start `spec` for the workspace `root` and complete the handshake.
pub(crate) async fn start(spec: &ServerSpec, root: &Path) -> Result<Server, LspError> {
    let root = spec.workspace_folder.clone().unwrap_or_else(|| root.to_path_buf());
    let folder_uri = Url::from_file_path(&root).map_err(|()| LspError::Start {
        server: spec.name.clone(),
        command: spec.command.clone(),
        source: std::io::Error::other(format!("{} is not an absolute path", root.display())),
    })?;
    let folders = vec![WorkspaceFolder {
        uri: folder_uri.clone(),
        name: root.file_name().map_or_else(|| "workspace".into(), |n| n.to_string_lossy().into_owned()),
    }];
    let shared = Arc::new(Shared::new(spec.settings.clone(), folders.clone()));
    let mut cmd = tokio::process::Command::new(&spec.command);
    cmd.args(&spec.args)
        .current_dir(&root)
        .process_group(0)
        .kill_on_drop(true)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    rein_process::dies_with_rein(cmd.as_std_mut());
    rein_process::env::for_child(cmd.as_std_mut());
    cmd.envs(&spec.env);
    let started = |source| LspError::Start { server: spec.name.clone(), command: spec.command.clone(), source };
    let mut child = cmd.spawn().map_err(started)?;
    let group = rein_process::GroupGuard::new(child.id());
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(started(std::io::Error::other("its standard input and output could not be connected")));
    };
    let stderr = Arc::new(Mutex::new(String::new()));
    if let Some(mut err) = child.stderr.take() {
        let tail = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                if t.len() > STDERR_TAIL {
                    let mut cut = t.len() - STDERR_TAIL;
                    while !t.is_char_boundary(cut) {
                        cut += 1;
                    }
                    t.drain(..cut);
                }
            }
        });
    }
    let (main_loop, mut socket) = MainLoop::new_client(|_| client_router(shared.clone()));
    let (ended_tx, ended) = tokio::sync::watch::channel(false);
    let name = spec.name.clone();
    tokio::spawn(async move {
        let stdout = crate::frames::checked(stdout, name);
        if let Err(e) = main_loop.run_buffered(stdout.compat(), stdin.compat_write()).await {
            tracing::debug!(error = %e, "a language server's connection ended");
        }
        let _ = ended_tx.send(true);
    });
    let handshake = async {
        let init = socket.initialize(initialize_params(spec, &folder_uri, folders)).await;
        init.map_err(|e| LspError::Answer { server: spec.name.clone(), method: "initialize", message: e.to_string() })
    };
    let tail = |stderr: &Arc<Mutex<String>>| {
        let t = stderr.lock().unwrap_or_else(|p| p.into_inner()).trim().to_string();
        if t.is_empty() { String::new() } else { format!("; it said: {t}") }
    };
    let mut ended_early = ended.clone();
    let result = tokio::select! {
        r = tokio::time::timeout(spec.startup_timeout, handshake) => r,
        _ = ended_early.wait_for(|e| *e) => {
            return Err(LspError::Stopped { server: spec.name.clone(), stderr: tail(&stderr) });
        }
    };
    let capabilities = match result {
        Ok(Ok(init)) => init.capabilities,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(LspError::StartTimeout {
                server: spec.name.clone(),
                seconds: spec.startup_timeout.as_secs(),
                stderr: tail(&stderr),
            });
        }
    };
    let gone = |e: async_lsp::Error| LspError::Answer {
        server: spec.name.clone(),
        method: "initialized",
        message: e.to_string(),
    };
    socket.initialized(InitializedParams {}).map_err(gone)?;
    if let Some(settings) = &spec.settings {
        socket
            .did_change_configuration(lsp_types::DidChangeConfigurationParams { settings: settings.clone() })
            .map_err(gone)?;
    }
    Ok(Server::new(spec.clone(), socket, shared, capabilities, (child, group), ended, stderr))
}

/// What rein tells the server it can do: documents synchronised in full, diagnostics
/// with versions, and the queries the LSP tool makes.
fn initialize_params(spec: &ServerSpec, root: &Url, folders: Vec<WorkspaceFolder>) -> InitializeParams {
    let capabilities: ClientCapabilities = serde_json::from_value(json!({
        "workspace": {"configuration": true, "workspaceFolders": true, "symbol": {"dynamicRegistration": false}},
        "window": {"workDoneProgress": true},
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"didSave": true, "dynamicRegistration": false},
            "publishDiagnostics": {"relatedInformation": false, "versionSupport": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "definition": {"linkSupport": true},
            "implementation": {"linkSupport": true},
            "references": {},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "callHierarchy": {}
        }
    }))
    .unwrap_or_default();
    #[allow(deprecated)] // Some servers still read root_uri only.
    InitializeParams {
        process_id: Some(std::process::id()),
        root_uri: Some(root.clone()),
        workspace_folders: Some(folders),
        capabilities,
        initialization_options: spec.initialization_options.clone(),
        client_info: Some(ClientInfo { name: "rein".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        ..InitializeParams::default()
    }
}

/// The client side of the conversation: diagnostics kept, the server's requests answered.
fn client_router(shared: Arc<Shared>) -> Router<Arc<Shared>> {
    let mut router = Router::new(shared);
    router
        .notification::<PublishDiagnostics>(|shared, params| {
            tracing::debug!(uri = %params.uri, version = ?params.version, count = params.diagnostics.len(), "diagnostics published");
            shared.publish(params.uri, Published::new(params.version, params.diagnostics));
            ControlFlow::Continue(())
        })
        .notification::<Progress>(|shared, params| {
            let token = match params.token {
                NumberOrString::Number(n) => n.to_string(),
                NumberOrString::String(s) => s,
            };
            match params.value {
                ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(_)) => shared.progress(token, true),
                ProgressParamsValue::WorkDone(WorkDoneProgress::End(_)) => shared.progress(token, false),
                ProgressParamsValue::WorkDone(WorkDoneProgress::Report(_)) => {}
            }
            ControlFlow::Continue(())
        })
        .notification::<ShowMessage>(|_, _| ControlFlow::Continue(()))
        .notification::<LogMessage>(|_, _| ControlFlow::Continue(()))
        .unhandled_notification(|_, _| ControlFlow::Continue(()))
        .request::<WorkspaceConfiguration, _>(|shared, params| {
            let answer: Vec<Value> = params.items.iter().map(|i| shared.setting(i.section.as_deref())).collect();
            async move { Ok(answer) }
        })
        .request::<WorkspaceFoldersRequest, _>(|shared, _| {
            let folders = shared.folders.clone();
            async move { Ok(Some(folders)) }
        })
        .request::<WorkDoneProgressCreate, _>(|_, _| async { Ok(()) })
        .request::<RegisterCapability, _>(|_, _| async { Ok(()) })
        .request::<UnregisterCapability, _>(|_, _| async { Ok(()) })
        .request::<ShowMessageRequest, _>(|_, _| async { Ok(None) })
        // rein changes files through its own tools, which the rules judge: never here.
        .request::<ApplyWorkspaceEdit, _>(|_, _| async {
            Ok(ApplyWorkspaceEditResponse {
                applied: false,
                failure_reason: Some("rein applies no edits from a language server".into()),
                failed_change: None,
            })
        });
    router
}
