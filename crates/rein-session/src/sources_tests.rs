#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use super::*;

fn only(user: bool, project: bool, local: bool) -> Sources {
    Sources { user, project, local }
}

/// A home folder and a project folder (inside the home when `inside`), both real.
fn layout(inside: bool) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(root.path()).unwrap();
    let home = base.join("home");
    let project = if inside { home.join("work/proj") } else { base.join("work/proj") };
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join("sub")).unwrap();
    (root, home, project)
}

fn matches(patterns: &[String], path: &Path) -> bool {
    rein_prompt::nested_memory::glob_set(patterns).is_match(path)
}

#[test]
fn definitions_in_a_folder_above_the_project_are_the_projects() {
    let (_root, home, project) = layout(false);
    let above = project.parent().unwrap().join(".claude/commands/up.md");
    let own = project.join(".claude/agents/a.md");
    let users = home.join(".claude/skills/s");
    let without = Wanted::new(only(true, false, false), &project, Some(&home));
    assert!(!without.keeps(&above), "a command of a folder above the project was kept without the project");
    assert!(!without.keeps(&own));
    assert!(without.keeps(&users));
    let with = Wanted::new(only(false, true, false), &project, Some(&home));
    assert!(with.keeps(&above) && with.keeps(&own));
    assert!(!with.keeps(&users));
}

#[test]
fn the_persons_memory_stays_when_the_project_below_the_home_is_left_out() {
    let (_root, home, project) = layout(true);
    let user_memory = home.join(".claude/CLAUDE.md");
    let excludes = Wanted::new(only(true, false, false), &project, Some(&home)).memory_excludes();
    assert!(!matches(&excludes, &user_memory), "{excludes:?}");
    assert!(matches(&excludes, &project.join("CLAUDE.md")));
    assert!(matches(&excludes, &home.join("CLAUDE.md")), "the home folder's own CLAUDE.md is a project file");
    assert!(!matches(&excludes, &home.join(".claude/rules/mine.md")), "the person's rules are theirs");
    assert!(matches(&excludes, &home.join("work/.claude/rules/up.md")));
}

/// The rules of the folders above the project (a repository's root) are the project's.
#[test]
fn the_rules_of_a_folder_above_the_project_are_the_projects() {
    let (_root, home, project) = layout(false);
    let above = project.parent().unwrap().join(".claude/rules/up.md");
    let own = project.join(".claude/rules/deep/own.md");
    let without = Wanted::new(only(true, false, true), &project, Some(&home)).memory_excludes();
    assert!(matches(&without, &above) && matches(&without, &own), "{without:?}");
    assert!(!matches(&without, &home.join(".claude/rules/mine.md")));
    let with = Wanted::new(only(false, true, false), &project, Some(&home)).memory_excludes();
    assert!(!matches(&with, &above) && !matches(&with, &own), "{with:?}");
    assert!(matches(&with, &home.join(".claude/rules/mine.md")));
}

/// As Claude Code: with only the project, the memory of a home folder above it is
/// read as the project's (its `.claude/CLAUDE.md` and rules); not when the home is
/// elsewhere.
#[test]
fn a_home_above_the_project_is_one_of_its_folders() {
    let (_root, home, project) = layout(true);
    let excludes = Wanted::new(only(false, true, false), &project, Some(&home)).memory_excludes();
    assert!(!matches(&excludes, &home.join(".claude/CLAUDE.md")), "{excludes:?}");
    assert!(!matches(&excludes, &home.join(".claude/rules/r.md")));
    let (_root, home, project) = layout(false);
    let excludes = Wanted::new(only(false, true, false), &project, Some(&home)).memory_excludes();
    assert!(matches(&excludes, &home.join(".claude/CLAUDE.md")), "{excludes:?}");
    assert!(matches(&excludes, &home.join(".claude/rules/r.md")));
    let excludes = Wanted::new(only(false, false, false), &project, Some(&home)).memory_excludes();
    assert!(matches(&excludes, &home.join(".claude/CLAUDE.md")));
}

#[test]
fn a_subfolders_memory_is_left_out_with_the_project() {
    for inside in [false, true] {
        let (_root, home, project) = layout(inside);
        let nested = Wanted::new(only(true, false, true), &project, Some(&home)).nested_excludes();
        assert!(matches(&nested, &project.join("sub/CLAUDE.md")), "{nested:?}");
        assert!(matches(&nested, &project.join("sub/deeper/.claude/CLAUDE.md")));
        assert!(!matches(&nested, &project.join("sub/CLAUDE.local.md")), "the local source is wanted");
        assert!(Wanted::new(only(false, true, false), &project, Some(&home)).nested_excludes().is_empty());
    }
}

#[test]
fn glob_characters_in_a_path_are_taken_literally() {
    assert_eq!(escape(Path::new("/a/b[1]/{x}*?/")), "/a/b[[]1[]]/[{]x[}][*][?]");
    let patterns = vec![format!("{}/CLAUDE.md", escape(Path::new("/w/p[1]")))];
    assert!(matches(&patterns, Path::new("/w/p[1]/CLAUDE.md")));
    assert!(!matches(&patterns, Path::new("/w/p1/CLAUDE.md")));
}
