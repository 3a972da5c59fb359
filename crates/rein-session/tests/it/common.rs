//! A project on disk and a session built for it by the session owner's builder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_engine::{EngineEvent, Outcome};
use rein_model::{AnthropicClient, AnthropicConfig, Auth, Model};
use rein_session::env::Env;
use rein_session::{Input, Options, Session, Setup};
use rein_testkit::FakeServer;

/// A working directory (a git root) and a home of its own.
pub(crate) struct Project {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

impl Project {
    pub(crate) fn new() -> Project {
        let project = Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
        std::fs::create_dir_all(project.cwd().join(".git")).unwrap();
        project
    }

    pub(crate) fn cwd(&self) -> &Path {
        self.cwd.path()
    }

    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.cwd().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Headless options for this project: its directory, its home, nothing from the
    /// machine's settings.
    pub(crate) fn options(&self) -> Options {
        let home = self.home.path().to_path_buf();
        let mut env = Env::read();
        env.rein_home = home.join(".rein");
        env.managed_settings_dir = home.join("managed");
        env.claude_config_dir = None;
        env.model = None;
        env.sandbox_tier = None;
        env.home = Some(home);
        Options { print: true, cwd: Some(self.cwd().to_path_buf()), env: Some(env), ..Options::default() }
    }

    /// The session the production builder makes of `options`, talking to `server`.
    pub(crate) fn session(&self, options: &Options, server: &FakeServer) -> (Setup, Session) {
        let setup = Setup::from_options(options).unwrap_or_else(|e| panic!("setup: {e}"));
        let model: Arc<dyn Model> = Arc::new(
            AnthropicClient::new(&AnthropicConfig {
                base_url: server.url(),
                auth: Auth::ApiKey("test".into()),
                beta: None,
                key_helper: None,
                custom_headers: Vec::new(),
            })
            .unwrap(),
        );
        let session = rein_session::Builder::new(&setup).model(model).build().unwrap_or_else(|e| panic!("build: {e}"));
        (setup, session)
    }
}

/// Run one prompt to its end.
pub(crate) async fn prompt(session: &mut Session, text: &str) -> Outcome {
    let mut sink = |_: EngineEvent| {};
    session.prompt(Input::Text(text.to_string()), &mut sink).await.unwrap_or_else(|e| panic!("prompt: {e}"))
}

/// Settings with a command hook on each of `events` that appends its stdin to
/// `hook-inputs.jsonl`.
pub(crate) fn record_hooks(project: &Project, events: &[&str]) {
    let hook = serde_json::json!([{"hooks": [{"type": "command",
        "command": "cat >> hook-inputs.jsonl; echo >> hook-inputs.jsonl"}]}]);
    let hooks: serde_json::Map<String, serde_json::Value> =
        events.iter().map(|e| (e.to_string(), hook.clone())).collect();
    project.write(".claude/settings.json", &serde_json::json!({"hooks": hooks}).to_string());
}

/// What the recording hooks were given, in order.
pub(crate) fn hook_inputs(project: &Project) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(project.cwd().join("hook-inputs.jsonl")).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str(l).ok()).collect()
}
