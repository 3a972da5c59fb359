//! A language server as Claude Code's configuration describes it: a plugin's `.lsp.json`
//! (or its manifest's `lspServers`) and rein's settings key of the same name map a name
//! to `{command, args, extensionToLanguage, env, transport, initializationOptions,
//! settings, workspaceFolder, startupTimeout, restartOnCrash, maxRestarts}`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::SpecError;

/// How long a server may take to start when its entry does not say.
const DEFAULT_STARTUP: Duration = Duration::from_secs(60);
/// The longest start an entry may ask for.
const LONGEST_STARTUP: Duration = Duration::from_secs(300);
/// How often a crashed server is started again when its entry does not say.
const DEFAULT_MAX_RESTARTS: u32 = 3;

/// One language server, ready to start.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// `plugin:<plugin>:<name>` for a plugin's, the settings key otherwise.
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    /// Added to the environment rein gives every process it starts (its own credentials
    /// are never in that).
    pub env: BTreeMap<String, String>,
    /// File extension (with its dot, `.py`) → the language id the server is told.
    pub extensions: BTreeMap<String, String>,
    pub initialization_options: Option<Value>,
    /// What the server reads through `workspace/configuration` (and is sent once it
    /// has started).
    pub settings: Option<Value>,
    /// The workspace folder, when not the session's folder.
    pub workspace_folder: Option<PathBuf>,
    pub startup_timeout: Duration,
    pub restart_on_crash: bool,
    pub max_restarts: u32,
    /// Where the entry was written, for messages.
    pub origin: String,
}

impl ServerSpec {
    /// The entry `name: entry` written in `origin`; `expand` fills in `${VAR}`s (and a
    /// plugin's `${CLAUDE_PLUGIN_ROOT}`) in its strings.
    pub fn parse(name: &str, entry: &Value, origin: &str, expand: &dyn Fn(&str) -> String) -> Result<Self, SpecError> {
        let error = |reason: String| SpecError { name: name.to_string(), origin: origin.to_string(), reason };
        let Some(obj) = entry.as_object() else { return Err(error("the entry is not an object".into())) };
        let command = match obj.get("command") {
            Some(Value::String(c)) if !c.trim().is_empty() => expand(c),
            _ => return Err(error("`command` (the server's program) is missing".into())),
        };
        let strings = |key: &str| -> Result<Vec<String>, SpecError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map(expand).ok_or_else(|| error(format!("`{key}` must be a list of strings"))))
                    .collect(),
                Some(_) => Err(error(format!("`{key}` must be a list of strings"))),
            }
        };
        let map = |key: &str, expand_values: bool| -> Result<BTreeMap<String, String>, SpecError> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(BTreeMap::new()),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| match v.as_str() {
                        Some(s) => Ok((k.clone(), if expand_values { expand(s) } else { s.to_string() })),
                        None => Err(error(format!("`{key}.{k}` must be a string"))),
                    })
                    .collect(),
                Some(_) => Err(error(format!("`{key}` must be an object"))),
            }
        };
        let extensions: BTreeMap<String, String> = map("extensionToLanguage", false)?
            .into_iter()
            .map(|(ext, lang)| (if ext.starts_with('.') { ext } else { format!(".{ext}") }, lang))
            .collect();
        if extensions.is_empty() {
            return Err(error("`extensionToLanguage` names no file extension".into()));
        }
        match obj.get("transport").and_then(Value::as_str) {
            None | Some("stdio") => {}
            Some(other) => return Err(error(format!("the transport {other:?} is not supported (only stdio)"))),
        }
        let millis = |key: &str| obj.get(key).and_then(Value::as_u64).map(Duration::from_millis);
        Ok(ServerSpec {
            name: name.to_string(),
            command,
            args: strings("args")?,
            env: map("env", true)?,
            extensions,
            initialization_options: obj.get("initializationOptions").filter(|v| !v.is_null()).cloned(),
            settings: obj.get("settings").filter(|v| !v.is_null()).cloned(),
            workspace_folder: obj.get("workspaceFolder").and_then(Value::as_str).map(|w| PathBuf::from(expand(w))),
            startup_timeout: millis("startupTimeout")
                .filter(|d| !d.is_zero())
                .unwrap_or(DEFAULT_STARTUP)
                .min(LONGEST_STARTUP),
            restart_on_crash: obj.get("restartOnCrash").and_then(Value::as_bool).unwrap_or(true),
            max_restarts: obj
                .get("maxRestarts")
                .and_then(Value::as_u64)
                .map_or(DEFAULT_MAX_RESTARTS, |n| n.min(100) as u32),
            origin: origin.to_string(),
        })
    }

    /// The language id of `path` when this server handles its extension.
    pub fn language_of(&self, path: &std::path::Path) -> Option<&str> {
        let name = path.file_name()?.to_str()?;
        self.extensions.iter().find(|(ext, _)| name.ends_with(ext.as_str())).map(|(_, lang)| lang.as_str())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(entry: Value) -> Result<ServerSpec, SpecError> {
        ServerSpec::parse("py", &entry, "plugin x", &|s: &str| s.replace("${CLAUDE_PLUGIN_ROOT}", "/p"))
    }

    #[test]
    fn an_entry_as_claude_code_plugins_write_it() {
        let spec = parse(json!({
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/pyright-langserver", "args": ["--stdio"],
            "extensionToLanguage": {".py": "python", "pyi": "python"},
            "env": {"PYTHONPATH": "${CLAUDE_PLUGIN_ROOT}/lib"}, "startupTimeout": 5000, "maxRestarts": 1
        }))
        .unwrap();
        assert_eq!(spec.command, "/p/bin/pyright-langserver");
        assert_eq!(spec.args, ["--stdio"]);
        assert_eq!(spec.env["PYTHONPATH"], "/p/lib");
        assert_eq!(spec.language_of(std::path::Path::new("/w/a.pyi")), Some("python"));
        assert_eq!(spec.language_of(std::path::Path::new("/w/a.rs")), None);
        assert_eq!(spec.startup_timeout, Duration::from_secs(5));
        assert_eq!(spec.max_restarts, 1);
        let forever =
            parse(json!({"command": "x", "extensionToLanguage": {".py": "python"}, "startupTimeout": u64::MAX}));
        assert_eq!(forever.unwrap().startup_timeout, LONGEST_STARTUP);
    }

    #[test]
    fn an_entry_rein_cannot_use_says_why() {
        let no_command = parse(json!({"extensionToLanguage": {".py": "python"}})).unwrap_err();
        assert!(no_command.to_string().contains("`command`"), "{no_command}");
        let no_ext = parse(json!({"command": "x"})).unwrap_err();
        assert!(no_ext.to_string().contains("extensionToLanguage"), "{no_ext}");
        let socket = parse(json!({"command": "x", "extensionToLanguage": {".py": "python"}, "transport": "socket"}));
        assert!(socket.unwrap_err().to_string().contains("only stdio"));
    }
}
