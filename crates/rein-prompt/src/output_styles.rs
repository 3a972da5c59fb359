//! Output styles, as Claude Code has them: how the agent talks and works, beyond the
//! task. The built-in `default`, `Explanatory` (insights about the choices and the
//! codebase while it works) and `Learning` (the person writes small meaningful parts
//! themselves), and custom styles — Markdown files with front matter `name`,
//! `description`, `keep-coding-instructions` in `~/.claude/output-styles` and
//! `.claude/output-styles` (the project's win). The `outputStyle` setting picks one by
//! name; a custom style drops the built-in coding instructions unless it keeps them.

use crate::frontmatter::Skipped;
use std::path::{Path, PathBuf};

/// One style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputStyle {
    pub name: String,
    pub description: String,
    /// What the style adds to the system prompt (empty for `default`).
    pub prompt: String,
    /// Whether the built-in coding instructions stay.
    pub keep_coding_instructions: bool,
    /// `built in`, or the file it is read from.
    pub source: String,
}

const EXPLANATORY: &str = "Besides doing the task, help the user understand it. Before and after you write \
code, give a short educational note headed `★ Insight` — two or three points about why you chose this \
implementation, the patterns and conventions of this codebase you are following, and the trade-offs. Keep the \
notes about this code, not general programming; keep doing the task fully.";

const LEARNING: &str = "Work with the user so that they learn by doing. Do the routine parts yourself, but \
where a piece of code carries a real decision (a business rule, an error-handling choice, a design trade-off, \
5-10 lines), prepare the surrounding code, mark the spot with a `TODO(human)` comment, and ask the user to \
write it, explaining what it must do and what to consider. Add a short `★ Insight` note about the codebase's \
patterns when it helps. Never leave a TODO(human) without asking for it.";

fn builtin(name: &str, description: &str, prompt: &str) -> OutputStyle {
    OutputStyle {
        name: name.into(),
        description: description.into(),
        prompt: prompt.into(),
        keep_coding_instructions: true,
        source: "built in".into(),
    }
}

/// Every style: the built-in ones, then the project's and the user's (a name defined
/// again replaces the earlier style; the project's win over the user's).
pub fn load_output_styles(cwd: &Path, home: Option<&Path>) -> Vec<OutputStyle> {
    load_output_styles_with_skipped(cwd, home).0
}

/// [`load_output_styles`], and the files that were not taken, with why.
pub fn load_output_styles_with_skipped(cwd: &Path, home: Option<&Path>) -> (Vec<OutputStyle>, Vec<Skipped>) {
    let mut styles = vec![
        builtin("default", "rein's own way of working", ""),
        builtin("Explanatory", "Explains its choices and the codebase's patterns while it works", EXPLANATORY),
        builtin("Learning", "Learn by doing: asks you to write small, meaningful pieces yourself", LEARNING),
    ];
    let dirs: Vec<PathBuf> =
        home.map(|h| h.join(".claude/output-styles")).into_iter().chain([cwd.join(".claude/output-styles")]).collect();
    let mut skipped = Vec::new();
    for dir in dirs {
        let (found, not_taken) = styles_in(&dir);
        skipped.extend(not_taken);
        for style in found {
            styles.retain(|s| !s.name.eq_ignore_ascii_case(&style.name));
            styles.push(style);
        }
    }
    (styles, skipped)
}

/// A plugin's output styles (`dir`: its styles folder), named `plugin:name`.
pub fn load_plugin_styles(dir: &Path, plugin: &str) -> Vec<OutputStyle> {
    let (mut styles, _) = styles_in(dir);
    for s in &mut styles {
        s.name = format!("{plugin}:{}", s.name);
    }
    styles
}

/// The styles defined in the Markdown files below `dir`, and the files not taken.
fn styles_in(dir: &Path) -> (Vec<OutputStyle>, Vec<Skipped>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for path in crate::agents::markdown_files(dir) {
        let text = match crate::frontmatter::read_definition(&path) {
            Ok(text) => text,
            Err(e) => {
                skipped.push(Skipped { path, line: 0, reason: e.to_string() });
                continue;
            }
        };
        let fm = match crate::frontmatter::parse(&text) {
            Ok(fm) => fm,
            Err(e) => {
                skipped.push(Skipped { path, line: e.line, reason: e.reason });
                continue;
            }
        };
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        out.push(OutputStyle {
            description: fm.text("description").unwrap_or_default(),
            keep_coding_instructions: fm.flag("keep-coding-instructions") == Some(true),
            prompt: fm.body.trim().to_string(),
            source: path.display().to_string(),
            name: fm.text("name").unwrap_or(stem),
        });
    }
    (out, skipped)
}

/// The style named `name` (any case).
pub fn find_style<'a>(styles: &'a [OutputStyle], name: &str) -> Option<&'a OutputStyle> {
    styles.iter().find(|s| s.name.eq_ignore_ascii_case(name.trim()))
}

impl OutputStyle {
    /// The system prompt's instructions with this style: the base (or, when the style
    /// does not keep the coding instructions, only its first paragraph) and the style.
    pub fn apply(&self, base: &str) -> String {
        if self.prompt.is_empty() {
            return base.to_string();
        }
        let kept = if self.keep_coding_instructions { base } else { base.split("\n\n").next().unwrap_or(base) };
        format!("{kept}\n\n# Output style: {}\n{}", self.name, self.prompt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_and_custom_styles() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join(".claude/output-styles");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pirate.md"), "---\nname: Pirate\ndescription: Arr\n---\nTalk like a pirate.\n")
            .unwrap();
        let styles = load_output_styles(d.path(), None);
        let names: Vec<&str> = styles.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["default", "Explanatory", "Learning", "Pirate"]);
        let pirate = find_style(&styles, "pirate").unwrap();
        let base = "You are rein.\n\n# How to work\n- Read first.";
        assert_eq!(pirate.apply(base), "You are rein.\n\n# Output style: Pirate\nTalk like a pirate.");
        let explanatory = find_style(&styles, "explanatory").unwrap();
        assert!(explanatory.apply(base).starts_with(base) && explanatory.apply(base).contains("★ Insight"));
        assert_eq!(find_style(&styles, "default").unwrap().apply(base), base);
    }
}
