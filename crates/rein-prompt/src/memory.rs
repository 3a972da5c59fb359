//! Memory files (spec §C2): found from broad to specific, `@path` imports followed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Imports nest at most this deep.
const MAX_IMPORT_DEPTH: usize = 4;
/// A memory file larger than this is cut (a safety net against huge files).
const MAX_FILE_BYTES: usize = 256 * 1024;

/// Says whether a file may be read into the prompt (a Read deny rule does not cover
/// it, under any of its names; it is not rein's own process file).
#[derive(Clone)]
pub struct ReadableFilter(pub std::sync::Arc<dyn Fn(&Path) -> bool + Send + Sync>);

impl std::fmt::Debug for ReadableFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadableFilter")
    }
}

/// Where to look.
#[derive(Debug, Clone, Default)]
pub struct MemorySources {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub managed_dir: Option<PathBuf>,
    /// `claudeMdExcludes`: globs of memory files to leave out (managed ones stay).
    pub excludes: Vec<String>,
    /// The workspace roots: a project's memory (and what it imports) imports nothing
    /// outside them. Empty: the working directory alone.
    pub workspace: Vec<PathBuf>,
    /// What may be read at all, as the Read tool would be allowed to.
    pub readable: Option<ReadableFilter>,
}

/// Where a memory file came from, for what it may import.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    /// Managed and user memory may import any file the Read tool may read (as Claude
    /// Code allows).
    Person,
    /// The project's files (a clone ships them) import only inside the workspace.
    Project,
}

/// One memory file, its comments stripped.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFile {
    pub path: PathBuf,
    /// "managed", "user", "project", "local", "rules" or "import".
    pub kind: &'static str,
    pub content: String,
}

/// All memory files, broad to specific: managed, user (`~/.claude/CLAUDE.md`,
/// `~/.claude/rules/*.md`), then each directory from the top down to cwd (`CLAUDE.md`,
/// `.claude/CLAUDE.md`, `CLAUDE.local.md`, `AGENTS.md`), then the `.claude/rules` of
/// each directory from the top down to cwd.
/// Each file's imports follow it. A file is included once, however it is reached.
pub fn load_memory(src: &MemorySources) -> Vec<MemoryFile> {
    let mut candidates: Vec<(PathBuf, &'static str)> = Vec::new();
    if let Some(m) = &src.managed_dir {
        candidates.push((m.join("CLAUDE.md"), "managed"));
    }
    if let Some(home) = &src.home {
        candidates.push((home.join(".claude/CLAUDE.md"), "user"));
        candidates.extend(sorted_md(&home.join(".claude/rules")).into_iter().map(|p| (p, "user rules")));
    }
    let mut dirs: Vec<&Path> = src.cwd.ancestors().filter(|d| d.parent().is_some()).collect();
    dirs.reverse();
    for d in &dirs {
        candidates.push((d.join("CLAUDE.md"), "project"));
        candidates.push((d.join(".claude/CLAUDE.md"), "project"));
        candidates.push((d.join("CLAUDE.local.md"), "local"));
        candidates.push((d.join("AGENTS.md"), "project"));
    }
    // The rules of cwd's `.claude/rules` and, as Claude Code reads them, of each folder
    // above it (a repository's root, when rein runs in a subfolder).
    for d in &dirs {
        candidates.extend(sorted_md(&d.join(".claude/rules")).into_iter().map(|p| (p, "rules")));
    }

    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let walk = Walk { src, tree: project_tree(src), canon: Default::default() };
    let excludes = crate::nested_memory::glob_set(&src.excludes);
    for (path, kind) in candidates {
        if kind != "managed"
            && !src.excludes.is_empty()
            && (excludes.is_match(&path) || walk.canon.path(&path).is_some_and(|p| excludes.is_match(p)))
        {
            continue;
        }
        // The project's files are those inside its tree; a memory file in a directory
        // above the repository is the person's own (no clone can put it there).
        let in_tree = || {
            let dir = path.parent().and_then(|d| walk.canon.dir(d));
            dir.is_some_and(|d| walk.tree.iter().any(|r| d.starts_with(r)))
        };
        let person = matches!(kind, "managed" | "user" | "user rules") || !in_tree();
        let origin = if person { Origin::Person } else { Origin::Project };
        add(&path, (kind, origin), 0, &walk, &mut seen, &mut out);
    }
    out
}

/// What reading the memory files knows as it goes: the sources, the project's tree
/// and the directories already resolved.
struct Walk<'a> {
    src: &'a MemorySources,
    tree: Vec<PathBuf>,
    canon: crate::canon::Canon,
}

/// The project's tree: the repository holding the working directory (or the working
/// directory) and the workspace roots, canonical.
fn project_tree(src: &MemorySources) -> Vec<PathBuf> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let cwd = canonical(&src.cwd);
    let mut tree = vec![crate::find_git_root(&cwd).unwrap_or(cwd)];
    tree.extend(src.workspace.iter().map(|r| canonical(r)));
    tree
}

/// Whether the file at `canonical` may be read into the prompt from `origin`.
fn may_read(canonical: &Path, origin: Origin, walk: &Walk<'_>) -> bool {
    let src = walk.src;
    let in_project = walk.tree.iter().any(|r| canonical.starts_with(r));
    (origin == Origin::Person || in_project) && src.readable.as_ref().is_none_or(|f| (f.0)(canonical))
}

fn add(
    path: &Path,
    (kind, origin): (&'static str, Origin),
    depth: usize,
    walk: &Walk<'_>,
    seen: &mut HashSet<PathBuf>,
    out: &mut Vec<MemoryFile>,
) {
    let src = walk.src;
    let home = src.home.as_deref();
    let Some(canonical) = walk.canon.path(path) else { return };
    // A project's own memory file that is a link leads no further than its directory.
    let stays_home = || path.parent().and_then(|d| walk.canon.dir(d)).is_some_and(|d| canonical.starts_with(d));
    let allowed = if kind == "import" || origin == Origin::Person {
        may_read(&canonical, origin, walk)
    } else {
        (stays_home() || may_read(&canonical, origin, walk)) && src.readable.as_ref().is_none_or(|f| (f.0)(&canonical))
    };
    if !canonical.is_file() || !allowed || !seen.insert(canonical) {
        return;
    }
    let Ok(bytes) = std::fs::read(path) else { return };
    let mut text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_FILE_BYTES)]).into_owned();
    if kind == "rules" && is_path_scoped(&text) {
        // Rules with `paths:` frontmatter load only when a matching file is read.
        return;
    }
    text = strip_html_comments(&text);
    let imports = if depth < MAX_IMPORT_DEPTH { imports_of(&text) } else { Vec::new() };
    out.push(MemoryFile { path: path.to_path_buf(), kind, content: text });
    let base = path.parent().unwrap_or(Path::new("/"));
    for import in imports {
        let target = match (import.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            _ => base.join(&import),
        };
        add(&target, ("import", origin), depth + 1, walk, seen, out);
    }
}

/// `*.md` files of `dir` and its subfolders, sorted by path.
fn sorted_md(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

fn is_path_scoped(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("---\n") else { return false };
    let front = rest.split("\n---").next().unwrap_or("");
    front.lines().any(|l| l.trim_start().starts_with("paths:"))
}

/// Remove `<!-- … -->` comments.
fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `@path` imports of a memory file, outside code fences and code spans.
fn imports_of(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Drop `code spans`: every other backtick-separated piece is code.
        let prose: Vec<&str> = line.split('`').step_by(2).collect();
        for piece in prose {
            for word in piece.split_whitespace() {
                let Some(path) = word.strip_prefix('@') else { continue };
                let path = path.trim_end_matches(['.', ',', ';', ':', ')', '!', '?']);
                if !path.is_empty() && (path.contains('/') || path.contains('.')) {
                    found.push(path.to_string());
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, s: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    }

    #[test]
    fn loads_broad_to_specific_with_imports() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        let repo = d.path().join("repo");
        let cwd = repo.join("sub");
        write(&home.join(".claude/CLAUDE.md"), "user prefs");
        write(
            &repo.join("CLAUDE.md"),
            "repo rules <!-- hidden -->\nsee @docs/style.md and `@not/this.md`\n```\n@nor/this.md\n```",
        );
        write(&repo.join("docs/style.md"), "style guide, also @../AGENTS.md");
        write(&repo.join("AGENTS.md"), "agents file");
        write(&cwd.join("CLAUDE.local.md"), "local notes");
        write(&cwd.join(".claude/rules/a.md"), "rule a");
        write(&repo.join(".claude/rules/root.md"), "root rule");
        write(&cwd.join(".claude/rules/scoped.md"), "---\npaths: [\"src/**\"]\n---\nonly for src");
        std::fs::create_dir_all(&cwd).unwrap();
        let files = load_memory(&MemorySources { cwd, home: Some(home), ..MemorySources::default() });
        let contents: Vec<&str> = files.iter().map(|f| f.content.trim()).collect();
        assert_eq!(
            contents,
            [
                "user prefs",
                "repo rules \nsee @docs/style.md and `@not/this.md`\n```\n@nor/this.md\n```",
                "style guide, also @../AGENTS.md",
                "agents file",
                "local notes",
                "root rule",
                "rule a"
            ]
        );
        assert_eq!(files[2].kind, "import");
    }

    #[test]
    fn import_cycles_and_depth_are_bounded() {
        let d = tempfile::tempdir().unwrap();
        write(&d.path().join("CLAUDE.md"), "@a.md");
        write(&d.path().join("a.md"), "@b.md");
        write(&d.path().join("b.md"), "@c.md @CLAUDE.md");
        write(&d.path().join("c.md"), "@e.md");
        write(&d.path().join("e.md"), "@f.md");
        write(&d.path().join("f.md"), "too deep");
        let files = load_memory(&MemorySources { cwd: d.path().to_path_buf(), ..MemorySources::default() });
        let names: Vec<_> = files.iter().map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["CLAUDE.md", "a.md", "b.md", "c.md", "e.md"]);
    }

    /// What reaches the model obeys the Read tool's rules: no import of a file a Read
    /// deny rule covers, and a project's memory imports nothing outside the workspace
    /// (nor is a link to elsewhere); the person's own memory may import from anywhere.
    #[test]
    fn imports_obey_the_read_rules_and_the_workspace() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        let proj = d.path().join("proj");
        write(&home.join(".ssh/id_rsa"), "PRIVATE KEY");
        write(&home.join("notes.md"), "personal notes");
        write(&home.join(".claude/CLAUDE.md"), "@~/notes.md");
        write(&proj.join("CLAUDE.md"), "@~/.ssh/id_rsa @../home/notes.md @docs/ok.md @.env");
        write(&proj.join("docs/ok.md"), "fine");
        write(&proj.join(".env"), "TOKEN=secret");
        write(&proj.join("sub/x"), "");
        std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), proj.join("sub/CLAUDE.md")).unwrap();
        let env = std::fs::canonicalize(proj.join(".env")).unwrap();
        let readable = ReadableFilter(std::sync::Arc::new(move |p: &Path| p != env));
        let files = load_memory(&MemorySources {
            cwd: proj.join("sub"),
            home: Some(home),
            workspace: vec![proj.clone()],
            readable: Some(readable),
            ..MemorySources::default()
        });
        let all: String = files.iter().map(|f| f.content.as_str()).collect::<Vec<_>>().join("|");
        assert!(all.contains("personal notes"), "the person's memory imports from the home: {all}");
        assert!(all.contains("fine"), "{all}");
        assert!(!all.contains("PRIVATE KEY") && !all.contains("TOKEN=secret"), "{all}");
    }
}
