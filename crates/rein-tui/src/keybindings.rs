//! `~/.claude/keybindings.json`, as Claude Code reads it: blocks of `{"context": …,
//! "bindings": {"ctrl+e": "chat:externalEditor", "ctrl+u": null}}`. A key bound to an
//! action does that action; a key bound to `null` does nothing; the rest keep their
//! defaults. rein knows the Global and Chat contexts' actions it has (others are
//! reported, not fatal); a file that is not JSON stops rein with its line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;

/// What a bound key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Submit,
    Cancel,
    CycleMode,
    ExternalEditor,
    Undo,
    ImagePaste,
    HistorySearch,
    ToggleTodos,
    ToggleTranscript,
    Redraw,
    Interrupt,
    Exit,
    /// Bound to `null`: the key does nothing.
    Unbound,
}

impl Action {
    fn parse(name: &str) -> Option<Action> {
        Some(match name {
            "chat:submit" => Action::Submit,
            "chat:cancel" => Action::Cancel,
            "chat:cycleMode" => Action::CycleMode,
            "chat:externalEditor" => Action::ExternalEditor,
            "chat:undo" => Action::Undo,
            "chat:imagePaste" => Action::ImagePaste,
            "history:search" => Action::HistorySearch,
            "app:toggleTodos" => Action::ToggleTodos,
            "app:toggleTranscript" => Action::ToggleTranscript,
            "app:redraw" => Action::Redraw,
            "app:interrupt" => Action::Interrupt,
            "app:exit" => Action::Exit,
            _ => return None,
        })
    }
}

/// The key that does `action` by default (what a bound key stands for); `None` for
/// [`Action::Unbound`].
pub(crate) fn default_key(action: Action) -> Option<KeyEvent> {
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    Some(match action {
        Action::Submit => KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        Action::Cancel => KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        Action::CycleMode => KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT),
        Action::ExternalEditor => ctrl('g'),
        Action::Undo => ctrl('_'),
        Action::ImagePaste => ctrl('v'),
        Action::HistorySearch => ctrl('r'),
        Action::ToggleTodos => ctrl('t'),
        Action::ToggleTranscript => ctrl('o'),
        Action::Redraw => ctrl('l'),
        Action::Interrupt => ctrl('c'),
        Action::Exit => ctrl('d'),
        Action::Unbound => return None,
    })
}

/// Why the keybindings file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeybindingsError {
    #[error("{path}:{line}:{column}: not valid JSON: {message}")]
    Json { path: PathBuf, line: usize, column: usize, message: String },
    #[error("{path}: expected an object with a \"bindings\" list")]
    Shape { path: PathBuf },
}

/// The person's key bindings (Chat and Global contexts).
#[derive(Debug, Clone, Default)]
pub struct Keybindings {
    keys: HashMap<(KeyCode, KeyModifiers), Action>,
    /// The key the person bound to an action, as they wrote it (for hints).
    names: HashMap<Action, String>,
    /// What was left out, and why (shown once at start).
    pub warnings: Vec<String>,
}

impl Keybindings {
    /// The bindings in `path`; none when the file does not exist.
    pub fn load(path: &Path) -> Result<Keybindings, KeybindingsError> {
        let Ok(text) = std::fs::read_to_string(path) else { return Ok(Keybindings::default()) };
        let doc: Value = serde_json::from_str(&text).map_err(|e| KeybindingsError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let blocks =
            doc.get("bindings").and_then(Value::as_array).ok_or(KeybindingsError::Shape { path: path.into() })?;
        let mut out = Keybindings::default();
        for block in blocks {
            let context = block.get("context").and_then(Value::as_str).unwrap_or_default();
            let Some(map) = block.get("bindings").and_then(Value::as_object) else { continue };
            if !matches!(context, "Chat" | "Global") {
                out.warnings
                    .push(format!("{}: the {context:?} context is not customisable in rein yet", path.display()));
                continue;
            }
            for (keys, named) in map {
                let action = match named {
                    Value::Null => Some(Action::Unbound),
                    Value::String(name) => Action::parse(name),
                    _ => None,
                };
                match (parse_key(keys), action) {
                    (Some(key), Some(action)) => {
                        out.keys.insert(key, action);
                        if action != Action::Unbound {
                            out.names.entry(action).or_insert_with(|| keys.to_lowercase());
                        }
                    }
                    (None, _) => out.warnings.push(format!("{}: rein cannot bind {keys:?}", path.display())),
                    (_, None) => out.warnings.push(format!("{}: unknown action {named} for {keys:?}", path.display())),
                }
            }
        }
        Ok(out)
    }

    /// The key that does `action` now, for a hint: the one the person bound to it, else
    /// `default` (its default key's name) unless they gave that key away.
    pub(crate) fn key_name(&self, action: Action, default: &str) -> Option<String> {
        if let Some(name) = self.names.get(&action) {
            return Some(name.clone());
        }
        let key = default_key(action)?;
        match self.action(&key) {
            Some(other) if other != action => None,
            _ => Some(default.to_string()),
        }
    }

    /// The action bound to `key`, if the person bound it.
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        let mods = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            // Terminals report Ctrl+letter in either case.
            KeyCode::Char(c) => KeyCode::Char(c.to_ascii_lowercase()),
            other => other,
        };
        let mods = if matches!(code, KeyCode::BackTab) { mods - KeyModifiers::SHIFT } else { mods };
        self.keys.get(&(code, mods)).copied()
    }
}

/// `ctrl+e`, `meta+p`, `shift+tab`, `escape`, `f2`… as a key (chords are not taken).
fn parse_key(text: &str) -> Option<(KeyCode, KeyModifiers)> {
    if text.trim().contains(' ') {
        return None;
    }
    let parts: Vec<String> = text.split('+').map(|p| p.trim().to_ascii_lowercase()).collect();
    let (last, mods) = parts.split_last()?;
    let mut modifiers = KeyModifiers::NONE;
    for m in mods {
        modifiers |= match m.as_str() {
            "ctrl" | "control" => KeyModifiers::CONTROL,
            "alt" | "meta" | "option" => KeyModifiers::ALT,
            "shift" => KeyModifiers::SHIFT,
            _ => return None,
        };
    }
    let code = match last.as_str() {
        "enter" | "return" => KeyCode::Enter,
        "escape" | "esc" => KeyCode::Esc,
        "tab" if modifiers.contains(KeyModifiers::SHIFT) => {
            modifiers -= KeyModifiers::SHIFT;
            KeyCode::BackTab
        }
        "tab" => KeyCode::Tab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "space" => KeyCode::Char(' '),
        f if f.starts_with('f') && f.len() > 1 => KeyCode::F(f[1..].parse().ok()?),
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
        _ => return None,
    };
    Some((code, modifiers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn bindings_and_unbindings_are_read_and_unknowns_reported() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("keybindings.json");
        std::fs::write(
            &path,
            r#"{"$schema": "x", "bindings": [
                {"context": "Chat", "bindings": {"ctrl+e": "chat:externalEditor", "ctrl+u": null, "ctrl+x ctrl+k": "chat:killAgents", "meta+p": "chat:modelPicker"}},
                {"context": "Global", "bindings": {"ctrl+k": "app:toggleTodos", "shift+tab": "chat:cycleMode"}},
                {"context": "Transcript", "bindings": {"q": "transcript:exit"}}
            ]}"#,
        )
        .unwrap();
        let k = Keybindings::load(&path).unwrap();
        assert_eq!(k.action(&key(KeyCode::Char('e'), KeyModifiers::CONTROL)), Some(Action::ExternalEditor));
        assert_eq!(k.action(&key(KeyCode::Char('u'), KeyModifiers::CONTROL)), Some(Action::Unbound));
        assert_eq!(k.action(&key(KeyCode::Char('k'), KeyModifiers::CONTROL)), Some(Action::ToggleTodos));
        assert_eq!(k.action(&key(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Action::CycleMode));
        assert_eq!(k.action(&key(KeyCode::Char('a'), KeyModifiers::CONTROL)), None);
        assert_eq!(k.warnings.len(), 3, "{:?}", k.warnings);
        assert!(Keybindings::load(&d.path().join("missing.json")).unwrap().keys.is_empty());
        std::fs::write(&path, "{\n  \"bindings\": [\n    {,}\n]}").unwrap();
        let e = Keybindings::load(&path).unwrap_err().to_string();
        assert!(e.contains("keybindings.json:3:"), "{e}");
    }
}
