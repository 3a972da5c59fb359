//! The persistent memory a user already has from Claude Code: one directory per project
//! (`~/.claude/projects/<project>/memory/`, named as the project's transcripts are), one
//! fact a Markdown file with front matter, and `MEMORY.md`, the index, whose first 200 lines (25 KB at most) every
//! session reads. A memory's body is read when it is relevant, with Read. The model
//! writes memories there with Write and Edit, and nowhere else without asking.

use std::path::{Path, PathBuf};

/// The index's lines that reach the prompt, at most.
const INDEX_LINES: usize = 200;
/// And its bytes.
const INDEX_BYTES: usize = 25 * 1024;

/// The index file's name.
pub const INDEX: &str = "MEMORY.md";

/// The index as the prompt gets it: its first 200 lines, 25 KB at most.
fn index_text(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(INDEX)).ok()?;
    let mut out = String::new();
    for line in text.lines().take(INDEX_LINES) {
        if out.len() + line.len() + 1 > INDEX_BYTES {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

/// The system prompt's section: where the memory is, how to keep it, and the index.
pub fn section(dir: &Path) -> String {
    let dir_text = dir.display();
    let mut out = format!(
        "# Persistent memory\nNotes that outlive this conversation live in {dir_text}/: writing Markdown files \
         directly there needs no approval (outside plan mode). Save what a later session needs and the code does \
         not show: the user's corrections and preferences, project facts, where things live. One fact a file (e.g. \
         testing-setup.md):\n```\n---\nname: Testing setup\ndescription: one line saying when it matters\ntype: \
         user | feedback | project | reference\n---\nThe fact, and why.\n```\nand a short line for it in {INDEX} \
         there (only its first {INDEX_LINES} lines reach you): `- [Testing setup](testing-setup.md): the \
         description`. Fix or delete a wrong memory rather than adding another; Read one when its line below looks \
         relevant; never store secrets.\n"
    );
    match index_text(dir) {
        Some(index) if !index.trim().is_empty() => out.push_str(&format!("\nContents of {INDEX}:\n{index}")),
        _ => out.push_str("\nThere are no memories yet.\n"),
    }
    out
}

/// The memories in `dir` with their descriptions (from the front matter), sorted.
pub fn list(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.file_name().is_some_and(|n| n != INDEX))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let description =
                crate::frontmatter::parse(&text).ok().and_then(|fm| fm.text("description")).unwrap_or_default();
            (p, description)
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_capped_and_memories_are_listed() {
        let d = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..300).map(|i| format!("- [m{i}](m{i}.md): fact {i}")).collect();
        std::fs::write(d.path().join(INDEX), lines.join("\n")).unwrap();
        let text = section(d.path());
        assert!(text.contains("fact 199") && !text.contains("fact 200"), "200 lines at most");
        std::fs::write(d.path().join("m1.md"), "---\nname: M1\ndescription: the build uses pnpm\n---\nbody\n").unwrap();
        assert_eq!(list(d.path()), vec![(d.path().join("m1.md"), "the build uses pnpm".to_string())]);
    }
}
