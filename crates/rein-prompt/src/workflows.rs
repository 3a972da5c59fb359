//! Named workflows: JavaScript workflow scripts (`*.js`) in `.claude/workflows/` (the
//! project's, nearest folder first), `~/.claude/workflows/` and a plugin's `workflows/`
//! folder. Each is named by its `meta.name` (a plugin's as `plugin:name`), offered to
//! the model through the Workflow tool and to the person as `/name args`. A script whose
//! header does not read is skipped with its reason.

use std::path::{Path, PathBuf};

use crate::commands::CommandDef;
use crate::frontmatter::Skipped;

/// One named workflow.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowDef {
    pub name: String,
    pub description: String,
    pub when_to_use: Option<String>,
    pub path: PathBuf,
    /// `project`, `user`, `plugin NAME`.
    pub scope: String,
}

/// The project's workflows (nearest folder first), then the user's; the first of a name
/// wins.
pub fn load_workflows(cwd: &Path, home: Option<&Path>) -> (Vec<WorkflowDef>, Vec<Skipped>) {
    let mut dirs: Vec<(PathBuf, String)> =
        cwd.ancestors().map(|d| (d.join(".claude/workflows"), "project".to_string())).collect();
    if let Some(h) = home {
        dirs.push((h.join(".claude/workflows"), "user".into()));
    }
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for (dir, scope) in dirs {
        read_dir(&dir, &scope, None, &mut out, &mut skipped);
    }
    (out, skipped)
}

/// A plugin's workflows (its `workflows/` folder), named `plugin:name`.
pub fn load_plugin_workflows(root: &Path, plugin: &str) -> (Vec<WorkflowDef>, Vec<Skipped>) {
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    read_dir(&root.join("workflows"), &format!("plugin {plugin}"), Some(plugin), &mut out, &mut skipped);
    (out, skipped)
}

fn read_dir(dir: &Path, scope: &str, plugin: Option<&str>, out: &mut Vec<WorkflowDef>, skipped: &mut Vec<Skipped>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "js" || x == "mjs") && p.is_file())
        .collect();
    files.sort();
    for path in files {
        let skip = |reason: String| Skipped { path: path.clone(), line: 1, reason };
        let text = match crate::frontmatter::read_definition(&path) {
            Ok(t) => t,
            Err(e) => {
                skipped.push(skip(format!("cannot read it: {e}")));
                continue;
            }
        };
        match rein_workflow::Script::parse(&text) {
            Ok(script) => {
                let name = match plugin {
                    Some(p) => format!("{p}:{}", script.meta.name),
                    None => script.meta.name,
                };
                if out.iter().any(|w: &WorkflowDef| w.name == name) {
                    continue;
                }
                out.push(WorkflowDef {
                    name,
                    description: script.meta.description,
                    when_to_use: script.meta.when_to_use,
                    path: path.clone(),
                    scope: scope.to_string(),
                });
            }
            Err(e) => skipped.push(skip(format!("not a workflow script: {e}"))),
        }
    }
}

/// The workflow as the person's command `/name args`: the model is asked to run it
/// with the Workflow tool, the command's arguments as its `args`.
pub fn workflow_command(def: &WorkflowDef) -> CommandDef {
    let body = format!(
        "Run the workflow {name:?} now with the Workflow tool: {{\"name\": {name:?}, \"args\": <the arguments below, \
         as a string, or null when there are none>}}. Report its result when it ends.\n\nArguments: $ARGUMENTS",
        name = def.name
    );
    CommandDef {
        name: def.name.clone(),
        description: def.description.clone(),
        argument_hint: None,
        allowed_tools: Vec::new(),
        model: None,
        model_invocable: false,
        body: crate::body::Body::given(body),
        shell: false,
        label: format!("workflow ({})", def.scope),
        path: def.path.clone(),
        hooks: None,
        fork: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflows_are_found_by_their_meta_name_and_bad_ones_are_skipped() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let project = root.path().join("p");
        let home = root.path().join("h");
        std::fs::create_dir_all(project.join(".claude/workflows"))?;
        std::fs::create_dir_all(home.join(".claude/workflows"))?;
        let script =
            |name: &str, d: &str| format!("export const meta = {{ name: '{name}', description: '{d}' }}\nreturn 1\n");
        std::fs::write(project.join(".claude/workflows/review.js"), script("review", "project review"))?;
        std::fs::write(home.join(".claude/workflows/review.js"), script("review", "user review"))?;
        std::fs::write(home.join(".claude/workflows/sweep.workflow.js"), script("sweep", "sweep it"))?;
        std::fs::write(home.join(".claude/workflows/broken.js"), "const x = 1\n")?;
        std::fs::write(home.join(".claude/workflows/notes.md"), "# not a script\n")?;
        let (found, skipped) = load_workflows(&project, Some(&home));
        let names: Vec<(&str, &str)> = found.iter().map(|w| (w.name.as_str(), w.description.as_str())).collect();
        assert_eq!(names, [("review", "project review"), ("sweep", "sweep it")]);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].reason.contains("export const meta"), "{}", skipped[0]);
        let command = workflow_command(&found[1]);
        assert_eq!((command.name.as_str(), command.model_invocable), ("sweep", false));
        assert!(command.body.text().is_ok_and(|t| t.contains("Workflow tool") && t.contains("$ARGUMENTS")));
        Ok(())
    }

    #[test]
    fn a_plugin_s_workflows_carry_its_name() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        std::fs::create_dir_all(root.path().join("workflows"))?;
        std::fs::write(
            root.path().join("workflows/hunt.js"),
            "export const meta = { name: 'hunt', description: 'find bugs' }\n",
        )?;
        let (found, _) = load_plugin_workflows(root.path(), "tools");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "tools:hunt");
        Ok(())
    }
}
