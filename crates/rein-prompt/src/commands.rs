//! Custom slash commands (spec §C5, tui.md §1.12): Markdown files in
//! `.claude/commands/` (project) and `~/.claude/commands/` (user; a project command
//! wins); `frontend/review.md` is `/frontend:review`, also `/review` while no other
//! command ends so. Front matter (YAML, the shared reader) `description`,
//! `argument-hint`, `allowed-tools` (for the turn that runs it), `model`,
//! `disable-model-invocation`. Expansion here is pure: `$ARGUMENTS`, `$ARGUMENTS[N]` and
//! `$N` (0-based: `$0` is the first argument; shell-like quoting; other `$` and
//! backslashes stay as written), `${CLAUDE_PROJECT_DIR}` and `${CLAUDE_SESSION_ID}`; the
//! `` !`cmd` `` snippets and `@path` mentions it finds are returned for the caller to
//! run through the permission chain.

use std::path::{Path, PathBuf};

use crate::body::BodyError;
use crate::frontmatter::{self, Skipped};

/// One command definition.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandDef {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    /// Permission rules allowed for the turn that runs the command.
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// `disable-model-invocation: true` keeps the model from running it (the Skill tool).
    pub model_invocable: bool,
    /// Its text (the file's body, read when the command is first used).
    pub body: crate::body::Body,
    /// Whether the body ran a `` !`cmd` `` line when the file was loaded (see
    /// [`CommandDef::runs_shell`]).
    pub shell: bool,
    /// `project`, `project:frontend`, `user`.
    pub label: String,
    pub path: PathBuf,
    /// `hooks` (the settings' shape): they run from the command's first use on.
    pub hooks: Option<serde_json::Value>,
    /// `context: fork`: the command runs as a subagent of this type instead of inline.
    pub fork: Option<String>,
}

/// What expanding a command gives: the prompt text with placeholders (`\u{0}N\u{0}`)
/// where the output of shell snippet N goes, the snippets, and the files mentioned.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    pub text: String,
    pub shell: Vec<String>,
    pub files: Vec<String>,
}

impl Expansion {
    /// The prompt with each snippet's output in its place.
    pub fn fill(&self, outputs: &[String]) -> String {
        let mut text = self.text.clone();
        for (i, out) in outputs.iter().enumerate() {
            text = text.replace(&format!("\u{0}{i}\u{0}"), out.trim_end());
        }
        text
    }
}

/// Every command, project ones first (nearest directory), then the user's; files whose
/// front matter does not read are skipped with their reason.
pub fn load_commands(cwd: &Path, home: Option<&Path>) -> (Vec<CommandDef>, Vec<Skipped>) {
    let mut dirs: Vec<(PathBuf, &str)> = cwd.ancestors().map(|d| (d.join(".claude/commands"), "project")).collect();
    if let Some(h) = home {
        dirs.push((h.join(".claude/commands"), "user"));
    }
    let (mut out, mut skipped): (Vec<CommandDef>, Vec<Skipped>) = Default::default();
    let mut names = std::collections::HashSet::new();
    for (dir, scope) in dirs {
        let files = crate::agents::markdown_files(&dir);
        for f in files {
            match parse(&f, &dir, scope) {
                Ok(def) if names.insert(def.name.clone()) => out.push(def),
                Ok(_) => {}
                Err(s) => skipped.push(s),
            }
        }
    }
    (out, skipped)
}

/// A plugin's commands (`paths`: its commands folders or files), named `plugin:name`
/// (`plugin:sub:name` in a subfolder) as Claude Code names them.
pub fn load_plugin_commands(paths: &[PathBuf], plugin: &str) -> (Vec<CommandDef>, Vec<Skipped>) {
    let (mut out, mut skipped): (Vec<CommandDef>, Vec<Skipped>) = Default::default();
    for path in paths {
        let (root, files) = match path.is_file() {
            true => (path.parent().unwrap_or(path).to_path_buf(), vec![path.clone()]),
            false => (path.clone(), crate::agents::markdown_files(path)),
        };
        for f in files {
            match parse(&f, &root, &format!("plugin {plugin}")) {
                Ok(mut def) => {
                    def.name = format!("{plugin}:{}", def.name);
                    out.push(def);
                }
                Err(s) => skipped.push(s),
            }
        }
    }
    (out, skipped)
}

/// `frontend/review.md` below the commands folder is `/frontend:review`.
fn parse(path: &Path, root: &Path, scope: &str) -> Result<CommandDef, Skipped> {
    let skip = |line: usize, reason: String| Skipped { path: path.to_path_buf(), line, reason };
    let text = crate::frontmatter::read_definition(path).map_err(|e| skip(1, format!("cannot read it: {e}")))?;
    let fm = frontmatter::parse_head(&text).map_err(|e| skip(e.line, e.reason))?;
    let relative = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let name = parts.join(":");
    let label = match parts.len() {
        0 | 1 => scope.to_string(),
        n => format!("{scope}:{}", parts[..n - 1].join(":")),
    };
    let description = fm.text("description").unwrap_or_else(|| fm.body.trim().to_string());
    Ok(CommandDef {
        name,
        description,
        argument_hint: fm.text("argument-hint"),
        allowed_tools: fm.list("allowed-tools").unwrap_or_default(),
        model: fm.text("model").filter(|m| m != "inherit"),
        model_invocable: fm.flag("disable-model-invocation") != Some(true),
        hooks: fm.value("hooks").and_then(|v| serde_json::to_value(v).ok()).filter(|v| !v.is_null()),
        fork: (fm.text("context").as_deref() == Some("fork"))
            .then(|| fm.text("agent").unwrap_or_else(|| "general-purpose".into())),
        body: crate::body::Body::of_file(path, false),
        shell: runs_shell(&text),
        label,
        path: path.to_path_buf(),
    })
}

/// The command a person means by `name`: the one of that name, else the only one in a
/// subfolder with that last part (`/review` for `/frontend:review`).
pub fn find_command<'a>(commands: &'a [CommandDef], name: &str) -> Option<&'a CommandDef> {
    if let Some(exact) = commands.iter().find(|c| c.name == name) {
        return Some(exact);
    }
    let mut tails = commands.iter().filter(|c| c.name.rsplit(':').next() == Some(name) && c.name.contains(':'));
    let first = tails.next()?;
    tails.next().is_none().then_some(first)
}

/// Arguments split like a shell would (`"two words"` is one).
fn split_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

impl CommandDef {
    /// Whether the body runs a `` !`cmd` `` line (found without expanding it): its text
    /// when it has been read, else what the file held when it was loaded.
    pub fn runs_shell(&self) -> bool {
        self.body.if_loaded().map_or(self.shell, |text| runs_shell(&text))
    }

    /// Expand the body with `args` (reading it if it was not yet).
    pub fn expand(&self, args: &str, project_dir: &Path, session_id: &str) -> Result<Expansion, BodyError> {
        Ok(expand(&self.body.text()?, args, project_dir, session_id))
    }
}

/// Whether `text` runs a `` !`cmd` `` line.
fn runs_shell(text: &str) -> bool {
    // Every snippet starts with a `!`: most bodies have none (a byte search).
    text.contains('!') && !shell_snippets(text).1.is_empty()
}

/// A command's text expanded with `args`.
pub(crate) fn expand(body: &str, args: &str, project_dir: &Path, session_id: &str) -> Expansion {
    // The shell lines are the definition's own: they are taken out before the
    // arguments go in, so text passed to the command never becomes a command.
    let args = args.replace('\u{0}', "");
    let args = args.as_str();
    let body = body
        .replace("${CLAUDE_PROJECT_DIR}", &project_dir.display().to_string())
        .replace("${CLAUDE_SESSION_ID}", session_id);
    let (body, shell) = shell_snippets(&body);
    let argv = split_args(args);
    let mut text = String::new();
    let has_arguments = body.contains("$ARGUMENTS");
    let mut positional = false;
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let rest: String = chars[i..chars.len().min(i + 12)].iter().collect();
        if rest.starts_with("$ARGUMENTS[") {
            let close = chars[i..].iter().position(|c| *c == ']').map(|p| i + p);
            let index: Option<usize> = close.and_then(|c| chars[i + 11..c].iter().collect::<String>().parse().ok());
            match (index, close) {
                (Some(n), Some(c)) => {
                    text.push_str(argv.get(n).map(String::as_str).unwrap_or(""));
                    i = c + 1;
                }
                _ => {
                    text.push('$');
                    i += 1;
                }
            }
        } else if rest.starts_with("$ARGUMENTS") {
            text.push_str(args.trim());
            i += "$ARGUMENTS".len();
        } else if chars[i] == '$' && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
            let digits: String = chars[i + 1..].iter().take_while(|c| c.is_ascii_digit()).collect();
            let n: usize = digits.parse().unwrap_or(usize::MAX);
            match argv.get(n) {
                Some(a) => text.push_str(a),
                None => text.push_str(&format!("${digits}")),
            }
            positional = true;
            i += 1 + digits.len();
        } else {
            text.push(chars[i]);
            i += 1;
        }
    }
    if !has_arguments && !positional && !args.trim().is_empty() {
        text.push_str(&format!("\n\nARGUMENTS: {}", args.trim()));
    }
    let files = text
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('@'))
        .map(|p| p.trim_end_matches([',', '.', ';', ':', ')']).to_string())
        .filter(|p| !p.is_empty())
        .collect();
    Expansion { text, shell, files }
}

/// `` !`cmd` `` at a line start or after whitespace, and ```` ```! ```` blocks: replaced
/// by placeholders, returned in order.
fn shell_snippets(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut shell = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let inline = rest.find("!`").filter(|&i| i == 0 || rest[..i].ends_with(char::is_whitespace));
        let fenced = rest.find("```!");
        let next = match (inline, fenced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let Some(at) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at]);
        let (cmd, after) = if rest[at..].starts_with("```!") {
            let body = &rest[at + 4..];
            match body.find("```") {
                Some(end) => (body[..end].trim().to_string(), &body[end + 3..]),
                None => (body.trim().to_string(), ""),
            }
        } else {
            let body = &rest[at + 2..];
            match body.find('`') {
                Some(end) => (body[..end].to_string(), &body[end + 1..]),
                None => (body.to_string(), ""),
            }
        };
        out.push_str(&format!("\u{0}{}\u{0}", shell.len()));
        shell.push(cmd);
        rest = after;
    }
    (out, shell)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(body: &str) -> CommandDef {
        CommandDef {
            name: "x".into(),
            description: String::new(),
            argument_hint: None,
            allowed_tools: Vec::new(),
            model: None,
            model_invocable: true,
            body: body.into(),
            shell: runs_shell(body),
            label: "project".into(),
            path: PathBuf::new(),
            hooks: None,
            fork: None,
        }
    }

    #[test]
    fn arguments() {
        let e = def("Review $ARGUMENTS now: $0 then $1, $ARGUMENTS[1]; $7 stays; C:\\dir\\$0 too")
            .expand("456 \"high prio\"", Path::new("/p"), "s")
            .unwrap();
        assert_eq!(e.text, "Review 456 \"high prio\" now: 456 then high prio, high prio; $7 stays; C:\\dir\\456 too");
        assert_eq!(def("Do it").expand("a b", Path::new("/p"), "s").unwrap().text, "Do it\n\nARGUMENTS: a b");
        assert_eq!(def("Fix issue $0").expand("12", Path::new("/p"), "s").unwrap().text, "Fix issue 12");
    }

    #[test]
    fn arguments_never_become_shell_lines() {
        let e = def("Say $ARGUMENTS").expand("hello !`touch pwned` and \u{0}0\u{0}", Path::new("/p"), "s").unwrap();
        assert!(e.shell.is_empty(), "{:?}", e.shell);
        assert_eq!(e.text, "Say hello !`touch pwned` and 0");
        let e = def("Status: !`git status`").expand("!`rm -rf x`", Path::new("/p"), "s").unwrap();
        assert_eq!(e.shell, ["git status"]);
        assert_eq!(e.fill(&["clean".into()]), "Status: clean\n\nARGUMENTS: !`rm -rf x`");
    }

    #[test]
    fn shell_and_files() {
        let e = def("Status: !`git status`\n```!\nls\n```\nSee @src/lib.rs, and a!`not`")
            .expand("", Path::new("/p"), "s")
            .unwrap();
        assert_eq!(e.shell, ["git status", "ls"]);
        assert_eq!(e.files, ["src/lib.rs,".trim_end_matches(',')]);
        assert_eq!(e.fill(&["clean\n".into(), "a b".into()]), "Status: clean\na b\nSee @src/lib.rs, and a!`not`");
    }

    #[test]
    fn definitions_with_frontmatter_and_folders() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join(".claude/commands/frontend");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("review.md"),
            "---\ndescription: Review a file\nargument-hint: [file]\nallowed-tools: Bash(git diff:*), Read\n---\nReview $ARGUMENTS\n",
        )
        .unwrap();
        std::fs::write(d.path().join(".claude/commands/crlf.md"), "---\r\ndescription: Windows\r\n---\r\nHi\r\n")
            .unwrap();
        std::fs::write(d.path().join(".claude/commands/status.md"), "\n\nShow the status\n\n!`git status`\n").unwrap();
        let (cmds, skipped) = load_commands(d.path(), None);
        assert!(skipped.is_empty());
        assert_eq!(cmds.len(), 3);
        assert!(cmds.iter().all(|c| !c.body.is_loaded()), "bodies are read when used");
        let status = cmds.iter().find(|c| c.name == "status").unwrap();
        assert_eq!((status.description.as_str(), status.runs_shell()), ("Show the status", true));
        assert!(!cmds[0].runs_shell() && !cmds[0].body.is_loaded());
        assert_eq!(
            (cmds[0].name.as_str(), cmds[0].description.as_str(), &*cmds[0].body.text().unwrap()),
            ("crlf", "Windows", "Hi\n")
        );
        let cmds: Vec<CommandDef> = cmds.into_iter().filter(|c| c.name != "status").collect();
        assert_eq!(cmds[1].name, "frontend:review");
        assert_eq!(cmds[1].label, "project:frontend");
        assert_eq!(cmds[1].allowed_tools, ["Bash(git diff:*)", "Read"]);
        assert_eq!(&*cmds[1].body.text().unwrap(), "Review $ARGUMENTS\n");
        assert_eq!(find_command(&cmds, "review").map(|c| c.name.as_str()), Some("frontend:review"));
        let mut twice = cmds.clone();
        twice.push(CommandDef { name: "backend:review".into(), ..cmds[1].clone() });
        assert!(find_command(&twice, "review").is_none(), "ambiguous: the full name is needed");
        assert!(find_command(&twice, "backend:review").is_some());
    }
}
