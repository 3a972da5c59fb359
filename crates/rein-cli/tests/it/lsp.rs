//! Code intelligence through the real binary, with real language servers installed from
//! the registries (pyright and typescript-language-server from npm in .ci/node,
//! rust-analyzer from rustup), each given as a plugin's `.lsp.json`: an edit that breaks
//! the types gets the server's diagnostic in the same tool result, and the LSP tool finds
//! definitions and references in a real project. A small stub server checks what the
//! real ones cannot show: it starts only when a file of its language is used, rein's
//! credentials never reach it, and a server that cannot start is said once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::{Env, tool_calls, unavailable};
use serde_json::{Value, json};

/// A plugin folder in `env`'s home holding `servers` as its `.lsp.json`.
fn plugin(env: &Env, servers: Value) -> PathBuf {
    let dir = env.home.path().join("lsp-plugin");
    std::fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    std::fs::write(dir.join(".claude-plugin/plugin.json"), r#"{"name": "langs", "version": "1.0.0"}"#).unwrap();
    std::fs::write(dir.join(".lsp.json"), servers.to_string()).unwrap();
    dir
}

fn npm_bin(name: &str) -> Option<PathBuf> {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules/.bin").join(name);
    if bin.exists() {
        return Some(bin);
    }
    unavailable(&format!("{name} is not installed in .ci/node"));
    None
}

/// rust-analyzer from rustup, when its component is installed: the toolchain's own
/// binary (the rustup proxy would look for its settings in the tests' scratch HOME).
fn rust_analyzer() -> Option<PathBuf> {
    let out = std::process::Command::new("rustup").args(["which", "rust-analyzer"]).output();
    match out {
        Ok(o) if o.status.success() => Some(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())),
        _ => {
            unavailable("rust-analyzer is not installed (rustup component add rust-analyzer)");
            None
        }
    }
}

/// Read `file`, then Edit `old` into `new` in it: the Edit's result.
fn edit_result(env: &Env, dir: &Path, file: &str, old: &str, new: &str) -> String {
    edit_result_with(env, dir, file, old, new, &[])
}

fn edit_result_with(env: &Env, dir: &Path, file: &str, old: &str, new: &str, vars: &[(&str, String)]) -> String {
    let path = env.cwd().join(file);
    let calls = [
        ("Read", json!({"file_path": path})),
        ("Edit", json!({"file_path": path, "old_string": old, "new_string": new})),
    ];
    let (results, stderr, _) = tool_calls(env, &calls, |c| {
        c.arg("--plugin-dir").arg(dir).args(["--permission-mode", "acceptEdits"]);
        c.envs(vars.iter().map(|(k, v)| (k, v)));
    });
    assert!(!results[1].1, "the edit is made: {:?}\n{stderr}", results[1]);
    results[1].0.clone()
}

#[test]
fn an_edit_that_breaks_python_types_gets_pyrights_diagnostic_in_its_result() {
    let Some(pyright) = npm_bin("pyright-langserver") else { return };
    let env = Env::new();
    env.write("app.py", "def add(a: int, b: int) -> int:\n    return a + b\n\n\ntotal: int = add(1, 2)\n");
    let dir = plugin(
        &env,
        json!({"pyright": {"command": pyright, "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}}),
    );
    let result = edit_result(&env, &dir, "app.py", "add(1, 2)", "add(1, \"two\")");
    assert!(result.contains("<new-diagnostics>"), "{result}");
    assert!(result.contains("app.py") && result.contains("line 5:"), "{result}");
    assert!(result.contains("\"two\"") || result.contains("str"), "pyright's own message: {result}");
}

#[test]
fn an_edit_that_breaks_typescript_types_gets_the_servers_diagnostic_in_its_result() {
    let Some(tsls) = npm_bin("typescript-language-server") else { return };
    let env = Env::new();
    env.write("index.ts", "export function twice(n: number): number {\n  return n * 2;\n}\n\nconst x: number = twice(2);\nconsole.log(x);\n");
    let dir = plugin(
        &env,
        json!({"typescript": {"command": tsls, "args": ["--stdio"],
                              "extensionToLanguage": {".ts": "typescript", ".tsx": "typescriptreact"}}}),
    );
    let result = edit_result(&env, &dir, "index.ts", "twice(2)", "twice(\"2\")");
    assert!(result.contains("<new-diagnostics>"), "{result}");
    assert!(result.contains("index.ts") && result.contains("line 5:"), "{result}");
    assert!(result.contains("string") && result.contains("number"), "the server's own message: {result}");
}

#[test]
fn an_edit_that_breaks_rust_types_gets_rust_analyzers_diagnostic_in_its_result() {
    let Some(ra) = rust_analyzer() else { return };
    let env = Env::new();
    env.write("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n");
    env.write("src/lib.rs", "pub fn twice(n: i32) -> i32 {\n    n * 2\n}\n\npub fn four() -> i32 {\n    twice(2)\n}\n");
    let dir = plugin(&env, json!({"rust": {"command": ra, "extensionToLanguage": {".rs": "rust"}}}));
    // cargo (which rust-analyzer runs to read the workspace) is rustup's proxy: it needs
    // rustup's own folders, not the test's scratch HOME.
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let rustup = |var: &str, default: &str| {
        (std::env::var(var).ok()).unwrap_or_else(|| real_home.join(default).display().to_string())
    };
    let vars = [("RUSTUP_HOME", rustup("RUSTUP_HOME", ".rustup")), ("CARGO_HOME", rustup("CARGO_HOME", ".cargo"))];
    let result = edit_result_with(&env, &dir, "src/lib.rs", "twice(2)", "twice(\"2\")", &vars);
    assert!(result.contains("<new-diagnostics>"), "{result}");
    assert!(result.contains("src/lib.rs") && result.contains("line 6:"), "{result}");
    // rust-analyzer's own check, or rustc's through it (cargo check, when that answers first).
    assert!(result.contains("E0308") && result.contains("i32") && result.contains("str"), "{result}");
}

#[test]
fn the_lsp_tool_finds_definitions_references_and_types_in_a_real_project() {
    let Some(pyright) = npm_bin("pyright-langserver") else { return };
    let env = Env::new();
    env.write("shop/prices.py", "def net_price(gross: float, rate: float) -> float:\n    \"\"\"The price without tax.\"\"\"\n    return gross / (1 + rate)\n");
    env.write(
        "shop/cart.py",
        "from shop.prices import net_price\n\n\ndef total(items: list[float]) -> float:\n    return sum(net_price(i, 0.2) for i in items)\n\n\nfirst = net_price(12.0, 0.2)\n",
    );
    env.write("shop/__init__.py", "");
    let dir = plugin(
        &env,
        json!({"pyright": {"command": pyright, "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}}),
    );
    let cart = env.cwd().join("shop/cart.py");
    let at = |op: &str, line: u32, character: u32| {
        ("LSP", json!({"operation": op, "filePath": cart, "line": line, "character": character}))
    };
    let calls = [
        at("goToDefinition", 8, 9),
        at("findReferences", 8, 9),
        at("hover", 8, 9),
        at("documentSymbol", 1, 1),
        (
            "LSP",
            json!({"operation": "workspaceSymbol", "filePath": cart, "line": 1, "character": 1, "query": "net_pr"}),
        ),
        at("incomingCalls", 4, 5),
    ];
    let (results, stderr, server) = tool_calls(&env, &calls, |c| {
        c.arg("--plugin-dir").arg(&dir);
    });
    for (i, (text, is_error)) in results.iter().enumerate() {
        assert!(!is_error, "call {i}: {text}\n{stderr}");
    }
    assert!(results[0].0.contains("shop/prices.py:1:5: def net_price"), "definition: {}", results[0].0);
    let refs = &results[1].0;
    assert!(refs.contains("3 reference(s) in 2 file(s)") || refs.contains("4 reference(s) in 2 file(s)"), "{refs}");
    assert!(
        refs.contains("shop/cart.py:5:") && refs.contains("shop/cart.py:8:9") && refs.contains("shop/prices.py:1:5"),
        "{refs}"
    );
    assert!(results[2].0.contains("net_price") && results[2].0.contains("float"), "hover: {}", results[2].0);
    assert!(results[3].0.contains("function total") && results[3].0.contains("variable first"), "{}", results[3].0);
    assert!(results[4].0.contains("function net_price — shop/prices.py:1:5"), "{}", results[4].0);
    assert!(results[5].0.contains("Nothing calls total") || results[5].0.contains("caller"), "{}", results[5].0);
    // The tool is offered only because a server is configured.
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(tools.contains("\"LSP\"") && tools.contains(".py"), "{tools}");
}

/// The stub server (Python) as a plugin's, noting its start in `started`.
fn stub(env: &Env, started: &Path) -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/lsp/stub_server.py");
    plugin(
        env,
        json!({"stub": {"command": "python3", "args": [script], "extensionToLanguage": {".stub": "stub"},
                        "env": {"STUB_LSP_STARTED": started}}}),
    )
}

#[test]
fn a_server_starts_only_for_its_files_and_never_gets_reins_credentials() {
    let env = Env::new();
    let started = env.home.path().join("started");
    let dir = stub(&env, &started);
    env.write("notes.txt", "hello\n");
    let (results, _, server) = tool_calls(&env, &[("Read", json!({"file_path": env.cwd().join("notes.txt")}))], |c| {
        c.arg("--plugin-dir").arg(&dir);
    });
    assert!(!results[0].1);
    assert!(!started.exists(), "no file of its language was used: the server was not started");
    assert!(!server.requests()[0].body["tools"].to_string().is_empty());

    env.write("a.stub", "fine\n");
    let path = env.cwd().join("a.stub");
    let calls = [
        ("Read", json!({"file_path": path})),
        ("Edit", json!({"file_path": path, "old_string": "fine", "new_string": "BAD here"})),
        ("Edit", json!({"file_path": path, "old_string": "here", "new_string": "there"})),
    ];
    let (results, _, _) = tool_calls(&env, &calls, |c| {
        c.arg("--plugin-dir").arg(&dir).args(["--permission-mode", "acceptEdits"]);
    });
    assert_eq!(std::fs::read_to_string(&started).unwrap(), "started\n", "started once, on first use");
    let first = &results[1].0;
    assert!(first.contains("error at line 1:1: BAD is not allowed (key=no root="), "{first}");
    assert!(first.contains(&dir.display().to_string()), "CLAUDE_PLUGIN_ROOT is set: {first}");
    // Nothing new on an edit that leaves the diagnostics as they were.
    assert!(!results[2].0.contains("new-diagnostics"), "{}", results[2].0);
}

#[test]
fn a_server_that_cannot_start_is_said_once_and_the_edit_stands() {
    let env = Env::new();
    let dir =
        plugin(&env, json!({"gone": {"command": "/nonexistent/langserver", "extensionToLanguage": {".stub": "stub"}}}));
    env.write("a.stub", "one\n");
    let path = env.cwd().join("a.stub");
    let calls = [
        ("Read", json!({"file_path": path})),
        ("Edit", json!({"file_path": path, "old_string": "one", "new_string": "two"})),
        ("Edit", json!({"file_path": path, "old_string": "two", "new_string": "three"})),
    ];
    let (results, _, _) = tool_calls(&env, &calls, |c| {
        c.arg("--plugin-dir").arg(&dir).args(["--permission-mode", "acceptEdits"]);
    });
    assert!(!results[1].1 && !results[2].1, "{results:?}");
    assert!(results[1].0.contains("could not be started (/nonexistent/langserver)"), "{}", results[1].0);
    assert!(!results[2].0.contains("new-diagnostics"), "said once: {}", results[2].0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "three\n");
}

/// The settings' `lspServers` (the same form as a plugin's `.lsp.json`) work as a
/// plugin's do, and `rein doctor` no longer calls them unused.
#[test]
fn a_language_server_from_the_settings_reports_an_edits_diagnostics() {
    let env = Env::new();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/lsp/stub_server.py");
    let settings = json!({"lspServers": {"stub": {"command": "python3", "args": [script],
                                                  "extensionToLanguage": {".stub": "stub"}}}});
    env.write(".claude/settings.json", &settings.to_string());
    env.write("b.stub", "ok\n");
    let path = env.cwd().join("b.stub");
    let calls =
        [("Read", json!({"file_path": path})), ("Write", json!({"file_path": path, "content": "ok\nBAD again\n"}))];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| {
        c.args(["--permission-mode", "acceptEdits"]);
    });
    assert!(results[1].0.contains("error at line 2:1: BAD is not allowed (key=no root=-)"), "{results:?}");
    assert!(!stderr.contains("lspServers"), "an honoured key: {stderr}");
}

/// What the Read rules protect stays protected from what a server says: a server that
/// would read a protected file of its language is not started at all (its hovers and
/// diagnostics could quote it), and a location a server names through a link to a
/// protected file, or at a pipe, is left out or shown without its text (never waited on).
#[test]
fn read_rules_hold_against_what_a_language_server_says() {
    let env = Env::new();
    let started = env.home.path().join("started");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/lsp/stub_server.py");
    let server = |defs: &str| {
        json!({"stub": {"command": "python3", "args": [script], "extensionToLanguage": {".stub": "stub"},
                        "env": {"STUB_LSP_STARTED": started, "STUB_DEFINITIONS": defs}}})
    };
    // A protected file of the server's language: it is not started.
    env.write("secret.stub", "TOKEN = sk-live-123\n");
    env.write("a.stub", "use TOKEN\n");
    let settings = json!({"lspServers": server(""), "permissions": {"deny": ["Read(./secret.stub)"]}});
    env.write(".claude/settings.json", &settings.to_string());
    let a = env.cwd().join("a.stub");
    let hover = ("LSP", json!({"operation": "hover", "filePath": a, "line": 1, "character": 5}));
    let (results, _, _) = tool_calls(&env, &[hover], |_| {});
    assert!(results[0].1 && results[0].0.contains("is not started: it would read"), "{:?}", results[0]);
    assert!(results[0].0.contains("secret.stub") && !started.exists(), "{:?}", results[0]);

    // A link to a protected file of another kind, and a pipe, named as definitions.
    std::fs::remove_file(env.cwd().join("secret.stub")).unwrap();
    env.write("secret.txt", "sk-live-123\n");
    std::os::unix::fs::symlink(env.cwd().join("secret.txt"), env.cwd().join("link.txt")).unwrap();
    let fifo = env.cwd().join("pipe.txt");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let defs = std::env::join_paths([env.cwd().join("link.txt"), fifo]).unwrap();
    let settings =
        json!({"lspServers": server(defs.to_str().unwrap()), "permissions": {"deny": ["Read(./secret.txt)"]}});
    env.write(".claude/settings.json", &settings.to_string());
    let def = ("LSP", json!({"operation": "goToDefinition", "filePath": a, "line": 1, "character": 5}));
    let (results, _, _) = tool_calls(&env, &[def], |_| {});
    let text = &results[0].0;
    assert!(!results[0].1 && !text.contains("sk-live"), "{text}");
    assert!(text.contains("pipe.txt:1:1") && text.contains("1 result(s) in files the Read rules protect"), "{text}");
}

/// The official marketplace's form: a plugin whose language server is written inline in
/// the marketplace entry (`lspServers`, no file in the plugin), added and installed with
/// `rein plugin` as with `claude plugin`, then used by a session.
#[test]
fn a_marketplace_entrys_inline_language_server_is_used_once_installed() {
    let Some(pyright) = npm_bin("pyright-langserver") else { return };
    let env = Env::new();
    let market = env.home.path().join("mkt");
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(market.join("plugins/pyright-lsp")).unwrap();
    std::fs::write(market.join("plugins/pyright-lsp/README.md"), "# pyright\n").unwrap();
    let entry = json!({"name": "pyright-lsp", "description": "Python language server", "version": "1.0.0",
        "source": "./plugins/pyright-lsp", "strict": false,
        "lspServers": {"pyright": {"command": pyright, "args": ["--stdio"],
                                   "extensionToLanguage": {".py": "python", ".pyi": "python"}}}});
    let listing = json!({"name": "langmkt", "owner": {"name": "T"}, "plugins": [entry]});
    std::fs::write(market.join(".claude-plugin/marketplace.json"), listing.to_string()).unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&market)
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);
    env.rein().args(["plugin", "marketplace", "add"]).arg(&market).assert().success();
    env.rein().args(["plugin", "install", "pyright-lsp@langmkt"]).assert().success();
    env.write("app.py", "def f(a: int) -> int:\n    return a\n\n\nx: int = f(1)\n");
    let path = env.cwd().join("app.py");
    let calls = [
        ("Read", json!({"file_path": path})),
        ("Edit", json!({"file_path": path, "old_string": "f(1)", "new_string": "f(\"one\")"})),
    ];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| {
        c.args(["--permission-mode", "acceptEdits"]);
    });
    let edit = &results[1].0;
    assert!(edit.contains("plugin:pyright-lsp:pyright") && edit.contains("line 5:"), "{edit}\n{stderr}");
}
