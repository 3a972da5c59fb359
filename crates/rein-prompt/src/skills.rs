//! Skills (Claude Code's `SKILL.md`): `.claude/skills/<name>/SKILL.md` in the project
//! (nearest directory first) and `~/.claude/skills/<name>/SKILL.md`, named by their
//! directory, with YAML front matter `description`, `allowed-tools`, `model`,
//! `disable-model-invocation`, `user-invocable`, `argument-hint`, `context: fork`,
//! `agent`, `paths`, `hooks`. Only a
//! skill's name and description enter the context; its body is loaded when it is
//! invoked, and the files beside it are read on demand — progressive disclosure.

use std::path::{Path, PathBuf};

use crate::body::BodyError;
use crate::frontmatter::{self, Skipped};

/// One skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillDef {
    /// The directory's name: what a person types after `/`.
    pub name: String,
    pub description: String,
    /// Rules allowed for the turn when a person runs it as `/name` (never when the
    /// model invokes it).
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// `disable-model-invocation: true`: only the user calls it (`/name`).
    pub model_invocable: bool,
    /// `user-invocable: false`: only the model calls it (no `/name`).
    pub user_invocable: bool,
    pub argument_hint: Option<String>,
    /// `context: fork`: it runs as a subagent (of type `agent`) instead of inline.
    pub fork: bool,
    pub agent: Option<String>,
    /// `paths`: globs of the files it is about.
    pub paths: Vec<String>,
    /// `hooks`, in the settings' shape.
    pub hooks: Option<serde_json::Value>,
    /// Its instructions (the file's body, read when the skill is first used).
    pub body: crate::body::Body,
    /// The skill's directory (its other files are read from there).
    pub dir: PathBuf,
    /// `project` or `user`.
    pub scope: &'static str,
}

impl SkillDef {
    /// What invoking the skill gives: where its files are, its instructions, and the
    /// arguments it was called with.
    pub fn loaded(&self, args: &str) -> Result<String, BodyError> {
        let text = self.unexpanded()?;
        let mentions =
            text.contains("$ARGUMENTS") || text.split('$').skip(1).any(|t| t.starts_with(|c: char| c.is_ascii_digit()));
        if !mentions {
            return Ok(if args.trim().is_empty() { text } else { format!("{text}\n\nARGUMENTS: {}", args.trim()) });
        }
        // `$ARGUMENTS`, `$1`… as a command fills them; its `` !`cmd` `` lines stay as written.
        let expansion = crate::commands::expand(&text, args, &self.dir, "");
        Ok(expansion.fill(&expansion.shell.iter().map(|c| format!("!`{c}`")).collect::<Vec<_>>()))
    }

    /// The skill as the model's call loads it: its text with `$ARGUMENTS`, `$1`… filled,
    /// and its `` !`cmd` `` lines taken out (placeholders where their output goes), to run;
    /// `${CLAUDE_PROJECT_DIR}` is `project_dir`.
    pub fn prepared(&self, args: &str, project_dir: &Path) -> Result<crate::commands::Expansion, BodyError> {
        Ok(crate::commands::expand(&self.unexpanded()?, args, project_dir, ""))
    }

    /// Where its files are and its instructions, placeholders as written (what `/name`
    /// expands as a command).
    pub fn unexpanded(&self) -> Result<String, BodyError> {
        Ok(crate::body::skill_text(&self.dir, &self.body.text()?))
    }
}

/// Every skill, project ones first (nearest directory), then the user's; a name seen
/// again is skipped, and so is a `SKILL.md` whose front matter does not read.
pub fn load_skills(cwd: &Path, home: Option<&Path>) -> (Vec<SkillDef>, Vec<Skipped>) {
    let mut roots: Vec<(PathBuf, &'static str)> =
        cwd.ancestors().map(|d| (d.join(".claude/skills"), "project")).collect();
    if let Some(h) = home {
        roots.push((h.join(".claude/skills"), "user"));
    }
    let (mut out, mut skipped): (Vec<SkillDef>, Vec<Skipped>) = Default::default();
    let mut names = std::collections::HashSet::new();
    for (root, scope) in roots {
        let Ok(entries) = std::fs::read_dir(&root) else { continue };
        let is_dir = |e: &std::fs::DirEntry| match e.file_type() {
            Ok(t) if t.is_symlink() => e.path().is_dir(),
            Ok(t) => t.is_dir(),
            Err(_) => false,
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().filter(is_dir).map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            match parse(&dir, scope) {
                Some(Ok(skill)) if names.insert(skill.name.clone()) => out.push(skill),
                Some(Err(s)) => skipped.push(s),
                _ => {}
            }
        }
    }
    (out, skipped)
}

/// A plugin's skills (`paths`: folders of skill folders, or a skill folder itself),
/// named `plugin:skill` as Claude Code names them. A skill reached twice (its folder
/// listed and the folder holding it too, as oh-my-claudecode's manifest has it) is one.
pub fn load_plugin_skills(paths: &[PathBuf], plugin: &str) -> (Vec<SkillDef>, Vec<Skipped>) {
    let (mut out, mut skipped): (Vec<SkillDef>, Vec<Skipped>) = Default::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for path in paths {
        let mut dirs: Vec<PathBuf> = if path.join("SKILL.md").is_file() {
            vec![path.clone()]
        } else {
            let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
            entries.map(|e| e.path()).filter(|p| p.is_dir()).collect()
        };
        dirs.sort();
        for dir in dirs {
            let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            if seen.contains(&real) {
                continue;
            }
            seen.push(real);
            match parse(&dir, "plugin") {
                Some(Ok(mut skill)) => {
                    skill.name = format!("{plugin}:{}", skill.name);
                    out.push(skill);
                }
                Some(Err(s)) => skipped.push(s),
                None => {}
            }
        }
    }
    (out, skipped)
}

/// `None` when the directory has no `SKILL.md`.
fn parse(dir: &Path, scope: &'static str) -> Option<Result<SkillDef, Skipped>> {
    let path = dir.join("SKILL.md");
    let text = crate::frontmatter::read_definition(&path).ok()?;
    let fm = match frontmatter::parse_head(&text) {
        Ok(fm) => fm,
        Err(e) => return Some(Err(Skipped { path, line: e.line, reason: e.reason })),
    };
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let description = fm.text("description").unwrap_or_else(|| fm.body.trim().to_string());
    Some(Ok(SkillDef {
        name,
        description,
        allowed_tools: fm.list("allowed-tools").unwrap_or_default(),
        model: fm.text("model").filter(|m| m != "inherit"),
        model_invocable: fm.flag("disable-model-invocation") != Some(true),
        user_invocable: fm.flag("user-invocable") != Some(false),
        argument_hint: fm.text("argument-hint"),
        fork: fm.text("context").as_deref() == Some("fork"),
        agent: fm.text("agent"),
        paths: fm.list("paths").unwrap_or_default(),
        hooks: fm.value("hooks").and_then(|v| serde_json::to_value(v).ok()).filter(|v| !v.is_null()),
        body: crate::body::Body::of_file(&path, false),
        dir: dir.to_path_buf(),
        scope,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_skills_shadow_user_ones_and_the_body_is_kept_apart() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let write = |root: &Path, name: &str, text: &str| {
            let d = root.join(".claude/skills").join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("SKILL.md"), text).unwrap();
        };
        write(
            project.path(),
            "pdf",
            "---\nname: pdf\ndescription: Work with PDFs\nallowed-tools: Bash(pdftotext:*), Read\n---\nUse pdftotext.\n",
        );
        write(home.path(), "pdf", "---\nname: pdf\ndescription: the user's\n---\nOther.\n");
        write(home.path(), "secret", "---\ndescription: Only for me\ndisable-model-invocation: true\n---\nBody.\n");
        write(
            home.path(),
            "helper",
            "---\nname: Other Name\nuser-invocable: false\ncontext: fork\nagent: Explore\npaths: src/**/*.rs\nargument-hint: [file]\n---\nHelp.\n",
        );
        let (skills, skipped) = load_skills(project.path(), Some(home.path()));
        assert!(skipped.is_empty());
        assert!(skills.iter().all(|s| !s.body.is_loaded()), "bodies are read when used");
        let helper = skills.iter().find(|s| s.name == "helper").expect("named by its directory");
        assert!(!helper.user_invocable && helper.model_invocable && helper.fork);
        assert_eq!((helper.agent.as_deref(), helper.paths.clone()), (Some("Explore"), vec!["src/**/*.rs".to_string()]));
        assert_eq!(helper.argument_hint.as_deref(), Some("[file]"));
        let skills: Vec<SkillDef> = skills.into_iter().filter(|s| s.name != "helper").collect();
        assert_eq!(skills.len(), 2);
        assert_eq!(skills[0].description, "Work with PDFs");
        assert_eq!(skills[0].allowed_tools, ["Bash(pdftotext:*)", "Read"]);
        assert!(skills[0].loaded("a.pdf").unwrap().contains("Use pdftotext.\n\nARGUMENTS: a.pdf"));
        assert_eq!((skills[1].name.as_str(), skills[1].model_invocable), ("secret", false));
    }

    /// oh-my-claudecode's manifest lists each of its skill folders, all inside the
    /// default `skills/`: each skill is offered once.
    #[test]
    fn a_plugin_skill_reached_twice_is_one() {
        let plugin = tempfile::tempdir().unwrap();
        for name in ["ask", "plan"] {
            let d = plugin.path().join("skills").join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("SKILL.md"), "---\ndescription: d\n---\nBody.\n").unwrap();
        }
        let paths =
            [plugin.path().join("skills"), plugin.path().join("skills/ask/"), plugin.path().join("./skills/plan")];
        let (skills, skipped) = load_plugin_skills(&paths, "omc");
        assert!(skipped.is_empty());
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["omc:ask", "omc:plan"]);
    }
}
