//! One door into a session (issue 52): a session built in process by the owner's
//! builder (the binary's), driven through the `Command` enum; the terminal's and the
//! SDK's answers to the same questions agree, because both only translate the owner's.

use std::sync::Arc;

use rein_model::{AnthropicClient, AnthropicConfig, Auth, Model};
use rein_sdk::control::Control;
use rein_sdk::requests::ControlRequest;
use rein_session::env::Env;
use rein_session::{Builder, Command, CommandError, Input, Options, Reply, Session, Setup};
use rein_testkit::{FakeServer, Scenario, reply, text};
use serde_json::Value;

struct Project {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let p = Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
        std::fs::create_dir_all(p.cwd.path().join(".git")).unwrap();
        p
    }

    /// The session the binary's builder makes for this project, talking to `server`.
    fn session(&self, server: &FakeServer) -> (Setup, Session) {
        let home = self.home.path().to_path_buf();
        let mut env = Env::read();
        env.rein_home = home.join(".rein");
        env.managed_settings_dir = home.join("managed");
        env.claude_config_dir = None;
        env.model = None;
        env.sandbox_tier = None;
        env.home = Some(home);
        let options =
            Options { print: true, cwd: Some(self.cwd.path().to_path_buf()), env: Some(env), ..Default::default() };
        let setup = Setup::from_options(&options).unwrap();
        let config = AnthropicConfig {
            base_url: server.url(),
            auth: Auth::ApiKey("test".into()),
            beta: None,
            key_helper: None,
            custom_headers: Vec::new(),
        };
        let model: Arc<dyn Model> = Arc::new(AnthropicClient::new(&config).unwrap());
        let session = Builder::new(&setup).model(model).build().unwrap();
        (setup, session)
    }
}

async fn prompt(session: &mut Session, words: &str) {
    let outcome = session.prompt(Input::Text(words.into()), &mut |_| {}).await.unwrap();
    assert!(!outcome.is_error(), "{outcome:?}");
}

/// What the SDK gets for `request` between turns.
async fn sdk(control: &Control, session: &mut Session, request: Value) -> Result<Value, String> {
    let request: ControlRequest = serde_json::from_value(request).unwrap();
    control.between_turns(session, &request).await.map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_and_the_sdk_get_the_same_answers_from_the_owner() {
    let project = Project::new();
    let server = FakeServer::start(Scenario::new([reply([text("first answer")]), reply([text("second")])])).unwrap();
    let (_setup, mut session) = project.session(&server);
    let cwd = project.cwd.path().to_path_buf();
    prompt(&mut session, "hello there").await;
    let control = Control { handle: session.handle(), abort: Default::default() };

    // How full the context is: the same figures, whoever asks.
    let owner = session.context_usage();
    assert!(owner.used > 0 && owner.window > owner.used, "{owner:?}");
    let asked = sdk(&control, &mut session, serde_json::json!({"subtype": "get_context_usage"})).await.unwrap();
    assert_eq!(asked["totalTokens"], owner.used, "{asked}");
    assert_eq!(asked["maxTokens"], owner.window, "{asked}");
    let shown = rein_tui::owner_answer(&mut session, "/context", &cwd).await.unwrap();
    assert!(shown[0].contains(&format!("{} / {} tokens", owner.used, owner.window)), "{shown:?}");
    let messages = asked["categories"][2]["tokens"].as_u64().unwrap();
    assert!(shown.iter().any(|l| l.contains("Messages") && l.contains(&format!(" {messages} tokens"))), "{shown:?}");

    // The permission mode: the terminal's /plan and the SDK's request set the one policy.
    let shown = rein_tui::owner_answer(&mut session, "/plan", &cwd).await.unwrap();
    assert!(shown[0].starts_with("Plan mode"), "{shown:?}");
    assert_eq!(session.mode().name(), "plan");
    let asked =
        sdk(&control, &mut session, serde_json::json!({"subtype": "set_permission_mode", "mode": "acceptEdits"}))
            .await
            .unwrap();
    assert_eq!(asked["mode"], "acceptEdits");
    assert_eq!(session.mode().name(), "acceptEdits");
    let refused = sdk(&control, &mut session, serde_json::json!({"subtype": "set_permission_mode", "mode": "yolo"}))
        .await
        .unwrap_err();
    let Err(said) = session.command(Command::SetMode { mode: "yolo".into(), source: String::new() }, &mut |_| {}).await
    else {
        panic!("a mode that does not exist was taken")
    };
    assert_eq!(refused, said.to_string(), "the same refusal, whoever asks");

    // The MCP servers (none here): the same empty list both ways.
    let asked = sdk(&control, &mut session, serde_json::json!({"subtype": "mcp_status"})).await.unwrap();
    assert_eq!(asked["mcpServers"], serde_json::json!([]));
    let shown = rein_tui::owner_answer(&mut session, "/mcp", &cwd).await.unwrap();
    assert!(shown[0].starts_with("No MCP servers are configured"), "{shown:?}");
    let asked = sdk(&control, &mut session, serde_json::json!({"subtype": "mcp_reconnect", "serverName": "db"})).await;
    assert_eq!(asked.unwrap_err(), "Server not found: db");
    let asked =
        sdk(&control, &mut session, serde_json::json!({"subtype": "mcp_toggle", "serverName": "db", "enabled": false}))
            .await;
    assert_eq!(asked.unwrap_err(), "Server not found: db");

    // The model: the SDK's choice applies from the next turn, as the terminal's would.
    let asked =
        sdk(&control, &mut session, serde_json::json!({"subtype": "set_model", "model": "haiku"})).await.unwrap();
    assert_eq!(asked["model"], "claude-haiku-4-5");
    prompt(&mut session, "again").await;
    let bodies: Vec<Value> = server.requests().into_iter().filter(|r| !r.is_title()).map(|r| r.body).collect();
    assert_eq!(bodies.last().unwrap()["model"], "claude-haiku-4-5");
    let shown = rein_tui::owner_answer(&mut session, "/model nonsense-model", &cwd).await.unwrap();
    assert!(shown[0].starts_with("The model stays claude-haiku-4-5"), "{shown:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_driven_through_the_command_enum() {
    let project = Project::new();
    let server = FakeServer::start(Scenario::new([reply([text("answer")])])).unwrap();
    let (_setup, mut session) = project.session(&server);
    let mut none = |_| {};
    prompt(&mut session, "the first prompt").await;

    let reply = session.command(Command::Prompts, &mut none).await.unwrap();
    assert_eq!(reply, Reply::Prompts { prompts: vec!["the first prompt".into()] });
    let reply = session.command(Command::Effort { level: Some("high".into()) }, &mut none).await.unwrap();
    assert_eq!(reply.lines(), ["Effort set to high for the turns that follow"]);
    let reply = session.command(Command::Effort { level: None }, &mut none).await.unwrap();
    assert_eq!(reply, Reply::Effort { level: Some("high".into()), changed: false });
    let bad = session.command(Command::Effort { level: Some("huge".into()) }, &mut none).await;
    assert!(matches!(bad, Err(CommandError::UnknownEffort(_))), "{bad:?}");

    let file = project.cwd.path().join("out/conversation.md");
    let reply = session.command(Command::Export { to: Some(file.clone()) }, &mut none).await.unwrap();
    assert_eq!(reply, Reply::Exported { to: file.clone() });
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains("the first prompt") && written.contains("answer"), "{written}");

    // A command sent as serde data, as a program would.
    let asked: Command = serde_json::from_str(r#"{"command": "rename", "title": "Answer hunt"}"#).unwrap();
    assert_eq!(session.command(asked, &mut none).await.unwrap(), Reply::Renamed { title: "Answer hunt".into() });

    // While a turn runs, a handle answers what needs no engine and says why not to the rest.
    let handle = session.handle();
    assert!(matches!(handle.command(Command::ContextUsage).await, Ok(Reply::Context(_))));
    let busy = handle.command(Command::Compact { instructions: String::new() }).await;
    assert!(matches!(busy, Err(CommandError::Busy(_))), "{busy:?}");

    let before = session.session_id();
    let Reply::Cleared { session_id } = session.command(Command::Clear, &mut none).await.unwrap() else {
        panic!("/clear did not start a new session")
    };
    assert_ne!(session_id, before);
    assert_eq!(session.session_id(), session_id);
    assert_eq!(session.command(Command::Prompts, &mut none).await.unwrap(), Reply::Prompts { prompts: Vec::new() });
}
