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

/// All definitions, project ones (nearest directory first) before the user's; a name
/// defined twice keeps its first definition.
pub fn load_agents(cwd: &Path, home: Option<&Path>) -> Vec<AgentDef> {
    let mut dirs: Vec<PathBuf> = cwd.ancestors().map(|d| d.join(".claude/agents")).collect();
    if let Some(h) = home {
        dirs.push(h.join(".claude/agents"));
    }
    let mut out: Vec<AgentDef> = Vec::new();
    for dir in dirs {
        let mut files: Vec<PathBuf> = Vec::new();
        let mut stack = vec![dir];
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
        for f in files {
            if let Some(def) = parse(&f)
                && !out.iter().any(|d| d.name == def.name)
            {
                out.push(def);
            }
        }
    }
    out
}

fn parse(path: &Path) -> Option<AgentDef> {
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let end = rest.find("\n---")?;
    let (front, body) = (&rest[..end], &rest[end + 4..]);
    let field = |key: &str| {
        front.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().trim_matches('"').trim_matches('\'').to_string())
        })
    };
    let name = field("name").filter(|n| !n.is_empty())?;
    let tools = field("tools").filter(|t| !t.is_empty()).map(|t| {
        t.trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|x| x.trim().trim_matches('"').to_string())
            .filter(|x| !x.is_empty())
            .collect()
    });
    Some(AgentDef {
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
        std::fs::write(d.path().join("repo/.claude/agents/bad.md"), "no frontmatter").unwrap();
        let agents = load_agents(&cwd, None);
        assert_eq!(agents.len(), 1);
        assert_eq!(agents[0].description, "Reviews diffs");
        assert_eq!(agents[0].tools.as_deref(), Some(&["Read".to_string(), "Grep".to_string()][..]));
        assert_eq!(agents[0].model.as_deref(), Some("haiku"));
        assert_eq!(agents[0].prompt, "You review code.");
    }
}
