//! A definition's body — a subagent's system prompt, a command's or a skill's text — as
//! a handle that reads it from its file when it is first used. Installs with hundreds of
//! definitions read only their front matter at start (names and descriptions are all
//! the model is offered); the few bodies a session uses are read then, once, and kept.
//! A file that can no longer be read when its body is wanted gives an error for that
//! use, naming the file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Why a body could not be had: its file could not be read again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {path}: {reason}")]
pub struct BodyError {
    pub path: PathBuf,
    pub reason: String,
}

/// How the text is had.
#[derive(Debug)]
enum Source {
    /// Given whole (`--agents`, the Agent SDK, built-in subagents, tests).
    Given,
    /// The part of a definition file after its front matter; `trim_end` for subagents.
    File { path: PathBuf, trim_end: bool },
    /// A skill as the command `/name`: where its files are, then its body.
    SkillCommand { dir: PathBuf, skill: Body },
}

#[derive(Debug)]
struct Inner {
    source: Source,
    text: OnceLock<Result<Arc<str>, BodyError>>,
}

/// A body, read on first use and shared by its clones.
#[derive(Debug, Clone)]
pub struct Body(Arc<Inner>);

impl Body {
    /// A body given as text.
    pub fn given(text: impl Into<Arc<str>>) -> Body {
        let text = OnceLock::from(Ok(text.into()));
        Body(Arc::new(Inner { source: Source::Given, text }))
    }

    /// The body of the definition file at `path`, read when first wanted (its end
    /// trimmed when `trim_end`, as a subagent's prompt is).
    pub fn of_file(path: &Path, trim_end: bool) -> Body {
        let source = Source::File { path: path.to_path_buf(), trim_end };
        Body(Arc::new(Inner { source, text: OnceLock::new() }))
    }

    /// The text a skill gives as the command `/name`: where its files are (`dir`) and
    /// its instructions.
    pub fn skill_command(dir: &Path, skill: &Body) -> Body {
        let source = Source::SkillCommand { dir: dir.to_path_buf(), skill: skill.clone() };
        Body(Arc::new(Inner { source, text: OnceLock::new() }))
    }

    /// The text (read now if it was not yet).
    pub fn text(&self) -> Result<Arc<str>, BodyError> {
        self.0.text.get_or_init(|| self.load()).clone()
    }

    /// Whether the text has been read (or was given).
    pub fn is_loaded(&self) -> bool {
        self.0.text.get().is_some()
    }

    /// The text if it has been read (or was given), without reading it.
    pub fn if_loaded(&self) -> Option<Arc<str>> {
        self.0.text.get().and_then(|t| t.as_ref().ok()).cloned()
    }

    fn load(&self) -> Result<Arc<str>, BodyError> {
        match &self.0.source {
            Source::Given => Ok(Arc::from("")),
            Source::File { path, trim_end } => {
                let fail = |reason: String| BodyError { path: path.clone(), reason };
                let text = crate::frontmatter::read_definition(path).map_err(|e| fail(e.to_string()))?;
                let body = crate::frontmatter::body_of(&text).map_err(|e| fail(e.to_string()))?;
                Ok(Arc::from(if *trim_end { body.trim_end() } else { &body }))
            }
            Source::SkillCommand { dir, skill } => Ok(Arc::from(skill_text(dir, &skill.text()?))),
        }
    }
}

/// A skill's text as invoking it gives it: where its files are, then its instructions.
pub(crate) fn skill_text(dir: &Path, body: &str) -> String {
    format!(
        "Base directory for this skill: {}\n(Read the files it mentions from there when you need them.)\n\n{}",
        dir.display(),
        body.trim()
    )
}

impl PartialEq for Body {
    /// The same body: the same handle, the same file, or the same text.
    fn eq(&self, other: &Body) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        match (&self.0.source, &other.0.source) {
            (Source::File { path: a, trim_end: x }, Source::File { path: b, trim_end: y }) => a == b && x == y,
            (Source::SkillCommand { dir: a, skill: x }, Source::SkillCommand { dir: b, skill: y }) => a == b && x == y,
            (Source::Given, Source::Given) => self.0.text.get() == other.0.text.get(),
            _ => false,
        }
    }
}

impl From<&str> for Body {
    fn from(text: &str) -> Body {
        Body::given(text)
    }
}

impl From<String> for Body {
    fn from(text: String) -> Body {
        Body::given(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_body_is_read_on_first_use_then_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "---\nname: a\ndescription: d\n---\nThe prompt.\n\n").unwrap();
        let body = Body::of_file(&path, true);
        assert!(!body.is_loaded());
        assert_eq!(&*body.text().unwrap(), "The prompt.");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(&*body.text().unwrap(), "The prompt.", "kept, and shared by clones");
        let gone = Body::of_file(&path, false).text().unwrap_err();
        assert_eq!(gone.path, path);
    }

    #[test]
    fn a_skill_command_names_the_skill_folder() {
        let skill = Body::given("  Use pdftotext.\n");
        let text = Body::skill_command(Path::new("/s/pdf"), &skill).text().unwrap();
        assert!(text.starts_with("Base directory for this skill: /s/pdf\n") && text.ends_with("\n\nUse pdftotext."));
    }
}
