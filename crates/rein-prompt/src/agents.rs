//! Subagent definitions (spec §C4): Markdown files with YAML-style frontmatter in
//! `.claude/agents/` (walked up from the working directory; nearest wins) and
//! `~/.claude/agents/`. The body is the subagent's system prompt.

use std::path::{Path, PathBuf};

/// One subagent definition.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    /// Tools it may use; `None` inherits every tool.
    pub tools: Option<Vec<String>>,
    /// `sonnet`, `opus`, `haiku`, a full id, or `None`/`inherit`.
    pub model: Option<String>,
    pub prompt: String,
    pub path: PathBuf,
}

/// A definition that does not parse: its file, the line, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentError {
    pub path: PathBuf,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: invalid subagent definition: {}", self.path.display(), self.line, self.reason)
    }
}

impl std::error::Error for AgentError {}

/// The `.md` files below `dir`, sorted (none when it does not exist).
pub(crate) fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// All definitions, project ones (nearest directory first) before the user's; a name
/// defined twice keeps its first definition. A file that does not parse stops here
/// (fail closed: a definition is never dropped silently).
pub fn load_agents(cwd: &Path, home: Option<&Path>) -> Result<Vec<AgentDef>, AgentError> {
    let mut dirs: Vec<PathBuf> = cwd.ancestors().map(|d| d.join(".claude/agents")).collect();
    if let Some(h) = home {
        dirs.push(h.join(".claude/agents"));
    }
    let mut out: Vec<AgentDef> = Vec::new();
    for dir in dirs {
        let files = markdown_files(&dir);
        for f in files {
            let def = parse(&f)?;
            if !out.iter().any(|d| d.name == def.name) {
                out.push(def);
            }
        }
    }
    Ok(out)
}

fn parse(path: &Path) -> Result<AgentDef, AgentError> {
    let err = |line: usize, reason: &str| AgentError { path: path.to_path_buf(), line, reason: reason.to_string() };
    let text = std::fs::read_to_string(path).map_err(|e| err(1, &format!("cannot read it: {e}")))?;
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| err(1, "it must start with a `---` frontmatter line"))?;
    let end = rest.find("\n---").ok_or_else(|| err(1, "the frontmatter is not closed with `---`"))?;
    let (front, body) = (&rest[..end], &rest[end + 4..]);
    for (i, l) in front.lines().enumerate() {
        let t = l.trim();
        let continued = l.starts_with([' ', '\t']) || t.starts_with('-') || t.starts_with('#');
        if !t.is_empty() && !continued && !t.contains(':') {
            return Err(err(i + 2, &format!("`{t}` is not a `key: value` line")));
        }
    }
    let field = |key: &str| {
        front.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').trim_matches('\'').to_string())
        })
    };
    let name = field("name").filter(|n| !n.is_empty()).ok_or_else(|| err(2, "the frontmatter has no `name`"))?;
    let tools = field("tools").filter(|t| !t.is_empty()).map(|t| {
        t.trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|x| x.trim().trim_matches('"').to_string())
            .filter(|x| !x.is_empty())
            .collect()
    });
    Ok(AgentDef {
        name,
        description: field("description").unwrap_or_default(),
        tools,
        model: field("model").filter(|m| !m.is_empty() && m != "inherit"),
        prompt: body.trim_start_matches(['\r', '\n']).trim_end().to_string(),
        path: path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_read_nearest_first() {
        let d = tempfile::tempdir().unwrap();
        let cwd = d.path().join("repo/sub");
        std::fs::create_dir_all(cwd.join(".claude/agents")).unwrap();
        std::fs::create_dir_all(d.path().join("repo/.claude/agents")).unwrap();
        std::fs::write(
            cwd.join(".claude/agents/reviewer.md"),
            "---\nname: code-reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: haiku\n---\nYou review code.\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("repo/.claude/agents/other.md"),
            "---\nname: code-reviewer\ndescription: shadowed\n---\nx",
        )
        .unwrap();
        let agents = load_agents(&cwd, None).unwrap();
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].description, "Reviews diffs");
        assert_eq!(agents[0].tools.as_deref(), Some(&["Read".to_string(), "Grep".to_string()][..]));
        assert_eq!(agents[0].model.as_deref(), Some("haiku"));
        assert_eq!(agents[0].prompt, "You review code.");
    }

    #[test]
    fn a_definition_that_does_not_parse_is_an_error_with_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(".claude/agents")).unwrap();
        let bad = d.path().join(".claude/agents/bad.md");
        std::fs::write(&bad, "no frontmatter").unwrap();
        let e = load_agents(d.path(), None).unwrap_err();
        assert_eq!((e.path.as_path(), e.line), (bad.as_path(), 1));
        std::fs::write(&bad, "---\nname: x\noops\n---\nbody").unwrap();
        let e = load_agents(d.path(), None).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        std::fs::write(&bad, "---\ndescription: no name\n---\nbody").unwrap();
        assert!(load_agents(d.path(), None).unwrap_err().reason.contains("name"));
    }
}
