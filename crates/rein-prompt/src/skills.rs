//! Skills (Claude Code's `SKILL.md`): `.claude/skills/<name>/SKILL.md` in the project
//! (nearest directory first) and `~/.claude/skills/<name>/SKILL.md`, with frontmatter
//! `name`, `description`, `allowed-tools`, `model`, `disable-model-invocation`. Only a
//! skill's name and description enter the context; its body is loaded when it is
//! invoked, and the files beside it are read on demand — progressive disclosure.

use std::path::{Path, PathBuf};

use crate::commands::{front_field, rules_list, split_frontmatter};

/// One skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillDef {
    pub name: String,
    pub description: String,
    /// Rules allowed while the skill runs.
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// `disable-model-invocation: true`: only the user calls it (`/name`).
    pub model_invocable: bool,
    pub body: String,
    /// The skill's directory (its other files are read from there).
    pub dir: PathBuf,
    /// `project` or `user`.
    pub scope: &'static str,
}

impl SkillDef {
    /// What invoking the skill gives: where its files are, its instructions, and the
    /// arguments it was called with.
    pub fn loaded(&self, args: &str) -> String {
        let mut text = format!(
            "Base directory for this skill: {}\n(Read the files it mentions from there when you need them.)\n\n{}",
            self.dir.display(),
            self.body.trim()
        );
        if !args.trim().is_empty() {
            text.push_str(&format!("\n\nARGUMENTS: {}", args.trim()));
        }
        text
    }
}

/// Every skill, project ones first (nearest directory), then the user's; a name seen
/// again is skipped.
pub fn load_skills(cwd: &Path, home: Option<&Path>) -> Vec<SkillDef> {
    let mut roots: Vec<(PathBuf, &'static str)> =
        cwd.ancestors().map(|d| (d.join(".claude/skills"), "project")).collect();
    if let Some(h) = home {
        roots.push((h.join(".claude/skills"), "user"));
    }
    let mut out: Vec<SkillDef> = Vec::new();
    for (root, scope) in roots {
        let Ok(entries) = std::fs::read_dir(&root) else { continue };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        for dir in dirs {
            if let Some(skill) = parse(&dir, scope)
                && !out.iter().any(|s| s.name == skill.name)
            {
                out.push(skill);
            }
        }
    }
    out
}

fn parse(dir: &Path, scope: &'static str) -> Option<SkillDef> {
    let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
    let (front, body) = split_frontmatter(&text);
    let field = |key: &str| front_field(&front, key).filter(|v| !v.is_empty());
    let name =
        field("name").unwrap_or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    let description =
        field("description").unwrap_or_else(|| body.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string());
    Some(SkillDef {
        name,
        description,
        allowed_tools: field("allowed-tools").map(|v| rules_list(&v)).unwrap_or_default(),
        model: field("model"),
        model_invocable: field("disable-model-invocation").is_none_or(|v| v != "true"),
        body,
        dir: dir.to_path_buf(),
        scope,
    })
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
        let skills = load_skills(project.path(), Some(home.path()));
        assert_eq!(skills.len(), 2);
        assert_eq!(skills[0].description, "Work with PDFs");
        assert_eq!(skills[0].allowed_tools, ["Bash(pdftotext:*)", "Read"]);
        assert!(skills[0].loaded("a.pdf").contains("Use pdftotext.\n\nARGUMENTS: a.pdf"));
        assert_eq!((skills[1].name.as_str(), skills[1].model_invocable), ("secret", false));
    }
}
