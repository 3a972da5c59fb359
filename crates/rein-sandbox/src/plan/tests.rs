//! The structural rules of the plan, one test each: nested and hidden repositories,
//! worktrees, bare repositories, included config, hard links of masked files, toolchain
//! files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

#[test]
fn protected_paths_are_found_pinned_and_masks_expanded() {
    let d = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(d.path()).unwrap();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::write(root.join(".git/config"), "").unwrap();
    std::fs::create_dir_all(root.join("sub/nested/.git")).unwrap();
    std::fs::write(root.join(".env"), "SECRET").unwrap();
    std::fs::write(root.join("sub/.env"), "SECRET").unwrap();
    std::fs::write(root.join(".bashrc"), "").unwrap();
    let deny_read = [format!("{}/**/.env", root.display())];
    let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &deny_read, &[]);
    assert!(plan.protected.contains(&root.join(".git/hooks")));
    assert!(plan.protected.contains(&root.join(".git/config")));
    assert!(plan.protected.contains(&root.join(".bashrc")));
    assert_eq!(plan.placeholders, [root.join("sub/nested/.git/hooks")], "a missing hooks dir is held");
    assert_eq!(plan.masked, [root.join(".env"), root.join("sub/.env")]);
    assert!(plan.pins.contains(&root.join(".git")) && plan.pins.contains(&root.join("sub")));
    assert_eq!(plan.pins[0].components().count(), root.components().count() + 1, "shallow pins first");
}

fn root() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(d.path()).unwrap();
    (d, root)
}

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// A repository's git directory at `rel`: HEAD, objects, refs, config, hooks.
fn git_dir(root: &Path, rel: &str) -> PathBuf {
    write(root, &format!("{rel}/HEAD"), "ref: refs/heads/main\n");
    write(root, &format!("{rel}/config"), "[core]\n\tbare = false\n");
    for d in ["objects/pack", "refs/heads", "hooks"] {
        std::fs::create_dir_all(root.join(rel).join(d)).unwrap();
    }
    root.join(rel)
}

fn plan(root: &Path) -> Plan {
    Plan::new(std::slice::from_ref(&root.to_path_buf()), &[], &[], &[], &[])
}

#[test]
fn repositories_at_any_depth_are_found_hidden_ignored_or_under_node_modules() {
    let (_d, root) = root();
    write(&root, ".gitignore", "hidden/\nnode_modules/\n");
    write(&root, ".ignore", "*\n");
    let deep = git_dir(&root, "a/b/c/d/e/f/.git");
    let modules = git_dir(&root, "node_modules/pkg/.git");
    let hidden = git_dir(&root, "hidden/.x/.git");
    std::fs::remove_dir(hidden.join("hooks")).unwrap();
    let p = plan(&root);
    for repo in [&deep, &modules] {
        assert!(
            p.protected.contains(&repo.join("config")) && p.protected.contains(&repo.join("hooks")),
            "{repo:?}: {p:#?}"
        );
    }
    assert!(p.protected.contains(&hidden.join("config")), "{p:#?}");
    assert!(p.placeholders.contains(&hidden.join("hooks")), "{p:#?}");
    assert!(p.pins.contains(&root.join("a/b/c/d/e/f")), "the parents are pinned: {p:#?}");
}

#[test]
fn a_worktree_protects_its_own_files_and_its_common_directory() {
    let (_d, root) = root();
    // The common directory has no HEAD (git needs only objects/ and refs/ there): only
    // the worktree's `commondir` leads to it.
    let common = root.join("store/common");
    for d in ["objects", "refs", "hooks", "info"] {
        std::fs::create_dir_all(common.join(d)).unwrap();
    }
    write(&root, "store/common/config", "[core]\n");
    let wt = root.join("store/common/worktrees/wt");
    write(&root, "store/common/worktrees/wt/HEAD", "ref: refs/heads/x\n");
    write(&root, "store/common/worktrees/wt/commondir", "../..\n");
    write(&root, "store/common/worktrees/wt/config.worktree", "[core]\n");
    write(&root, "store/common/worktrees/wt/gitdir", &format!("{}\n", root.join("checkout/.git").display()));
    let dot_git = write(&root, "checkout/.git", "gitdir: ../store/common/worktrees/wt\n");
    let p = plan(&root);
    for want in [
        dot_git,
        wt.join("commondir"),
        wt.join("gitdir"),
        wt.join("config.worktree"),
        common.join("config"),
        common.join("hooks"),
        common.join("info"),
    ] {
        assert!(p.protected.contains(&want), "{want:?} not in {:#?}", p.protected);
    }
    assert!(!p.placeholders.contains(&wt.join("hooks")), "a worktree uses the common hooks");
}

#[test]
fn a_bare_repository_is_a_git_directory_without_the_name() {
    let (_d, root) = root();
    let bare = git_dir(&root, "srv/project.git");
    std::fs::create_dir_all(bare.join("info")).unwrap();
    write(&root, "srv/project.git/objects/pack/x.pack", "");
    let not_a_repo = write(&root, "docs/HEAD", "just a file\n");
    let p = plan(&root);
    for want in ["config", "hooks", "info"] {
        assert!(p.protected.contains(&bare.join(want)), "{want}: {:#?}", p.protected);
    }
    assert!(!p.protected.iter().any(|x| x.starts_with(not_a_repo.parent().unwrap())), "{:#?}", p.protected);
    assert!(!p.pins.contains(&bare.join("objects")), "the object store is not entered");
}

#[test]
fn configs_that_a_repository_config_includes_are_protected() {
    let (_d, root) = root();
    let repo = git_dir(&root, "r/.git");
    write(
        &root,
        "r/.git/config",
        "[include]\n\tpath = ../../shared/one.inc\n[includeIf \"gitdir:/\"]\n\tpath = /nonexistent-rein/x\n",
    );
    let one = write(&root, "shared/one.inc", "[include]\n\tpath = deeper/two.inc\n");
    let two = write(&root, "shared/deeper/two.inc", "[core]\n\tpager = ./evil\n");
    let missing = root.join("shared/three.inc");
    write(&root, "shared/deeper/two.inc", "[core]\n\tpager = ./evil\n[include]\n\tpath = ../three.inc\n");
    let p = plan(&root);
    assert!(p.protected.contains(&repo.join("config")));
    assert!(p.protected.contains(&one) && p.protected.contains(&two), "{:#?}", p.protected);
    assert!(!p.protected.contains(&missing), "a missing include cannot be mounted (the guard removes it if created)");
    let found = protected_names(std::slice::from_ref(&root), &[]);
    write(&root, "shared/three.inc", "[core]\n\tfsmonitor = ./evil\n");
    let now = protected_names(std::slice::from_ref(&root), &[]);
    assert!(!found.protected.contains(&missing) && now.protected.contains(&missing), "what the guard sees");
}

#[test]
fn every_hard_link_of_a_masked_file_is_masked() {
    let (_d, root) = root();
    let secret = write(&root, ".env", "API_TOKEN=hunter2\n");
    let link = root.join("node_modules/a/b/c/d/e/copy");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::fs::hard_link(&secret, &link).unwrap();
    let allowed = root.join("allowed-copy");
    std::fs::hard_link(&secret, &allowed).unwrap();
    let other = write(&root, "other", "x");
    let deny = [secret.display().to_string()];
    let allow = [allowed.display().to_string()];
    let p = Plan::new(std::slice::from_ref(&root), &[], &[], &deny, &allow);
    assert!(p.masked.contains(&secret) && p.masked.contains(&link), "{:#?}", p.masked);
    assert!(!p.masked.contains(&allowed), "an allow naming that exact path keeps it");
    assert!(!p.masked.contains(&other));
    // Inside a masked directory too.
    let key = write(&root, "secrets/key.pem", "PRIVATE\n");
    std::fs::hard_link(&key, root.join("key-copy")).unwrap();
    let p = Plan::new(std::slice::from_ref(&root), &[], &[], &[root.join("secrets").display().to_string()], &[]);
    assert!(p.masked.contains(&root.join("key-copy")), "{:#?}", p.masked);
}

#[test]
fn deny_globs_match_at_any_depth_inside_the_roots() {
    let (_d, root) = root();
    let mut deep = String::new();
    for i in 0..8 {
        deep.push_str(&format!("d{i}/"));
    }
    let env = write(&root, &format!("node_modules/{deep}.env"), "SECRET");
    let p = Plan::new(std::slice::from_ref(&root), &[], &[], &[format!("{}/**/.env", root.display())], &[]);
    assert!(p.masked.contains(&env), "{:#?}", p.masked);
}

#[test]
fn toolchain_files_that_name_programs_are_protected_wherever_they_are() {
    let (_d, root) = root();
    let names = [
        "a/x/.npmrc",
        "a/.yarnrc",
        "a/b/.yarnrc.yml",
        "a/.pnpmfile.cjs",
        "pnpm-workspace.yaml",
        "a/b/c/d/.cargo/config.toml",
        ".cargo/config",
        "rust-toolchain.toml",
        "venv/pip.conf",
        "uv.toml",
        "a/.envrc",
        "x/.devcontainer/devcontainer.json",
        "x/.husky/pre-commit",
        ".pre-commit-config.yaml",
        "deep/er/.gitattributes",
        "sub/.gitmodules",
    ];
    for n in names {
        write(&root, n, "x");
    }
    // Installed packages' own files are loaded by no tool (and pinning them would keep
    // `rm -rf node_modules` from working).
    let plain = [
        "Makefile",
        ".venv/pyvenv.cfg",
        ".env.local",
        ".cargo/registry/x",
        "a/config.toml",
        "node_modules/x/.npmrc",
        "node_modules/y/.gitattributes",
    ];
    for n in plain {
        write(&root, n, "x");
    }
    let p = plan(&root);
    for n in names {
        let want = if n.contains(".devcontainer/") || n.contains(".husky/") {
            root.join(n).parent().unwrap().to_path_buf()
        } else {
            root.join(n)
        };
        assert!(p.protected.contains(&want), "{n}: {:#?}", p.protected);
    }
    for n in plain {
        assert!(!p.protected.contains(&root.join(n)), "{n} is not configuration");
    }
    // A rule naming the file keeps it writable; a broad one does not.
    let npmrc = root.join("a/x/.npmrc");
    let exact = Plan::new(std::slice::from_ref(&root), &[npmrc.display().to_string()], &[], &[], &[]);
    assert!(!exact.protected.contains(&npmrc) && !exact.existing.contains(&npmrc));
    let by_name = Plan::new(std::slice::from_ref(&root), &[format!("{}/**/.npmrc", root.display())], &[], &[], &[]);
    assert!(!by_name.protected.contains(&npmrc));
    let broad = Plan::new(std::slice::from_ref(&root), &[format!("{}/**", root.display())], &[], &[], &[]);
    assert!(broad.protected.contains(&npmrc));
    assert!(broad.protected.contains(&root.join("sub/.gitmodules")));
}

#[test]
fn a_submodule_checkout_leads_to_its_git_directory() {
    let (_d, root) = root();
    git_dir(&root, ".git");
    let module = git_dir(&root, ".git/modules/lib");
    let file = write(&root, "lib/.git", "gitdir: ../.git/modules/lib\n");
    let p = plan(&root);
    assert!(p.protected.contains(&file) && p.protected.contains(&module.join("config")), "{:#?}", p.protected);
}

/// Every file of every mechanism in the shared table, at some depth: held read-only.
#[test]
fn every_mechanisms_files_are_protected() {
    let (_d, root) = root();
    let mut expected = Vec::new();
    for m in rein_effects::mechanisms::MECHANISMS {
        for f in m.files {
            let rel = match *f {
                rein_effects::mechanisms::Name::Any(n) => format!("deep/a/{n}"),
                rein_effects::mechanisms::Name::In(p, n) => format!("deep/b/{p}/{n}"),
            };
            expected.push((root.join(&rel), m.runs));
            write(&root, &rel, "x");
        }
    }
    write(&root, "deep/a/README.md", "");
    let plan = plan(&root);
    for (path, runs) in &expected {
        assert!(plan.protected.contains(path), "{} ({runs}) is not protected: {:?}", path.display(), plan.protected);
    }
    assert!(!plan.protected.contains(&root.join("deep/a/README.md")));
}

/// What git's settings make it run from the tree: the hooks directory core.hooksPath
/// names and a program named by path.
#[test]
fn a_hooks_path_and_programs_named_by_path_are_protected() {
    let (_d, root) = root();
    git_dir(&root, ".git");
    write(&root, ".git/config", "[core]\n\thooksPath = .githooks\n\tfsmonitor = \"./tools/watch.sh\"\n");
    write(&root, ".githooks/pre-commit", "#!/bin/sh\n");
    write(&root, "tools/watch.sh", "#!/bin/sh\n");
    write(&root, "tools/other.sh", "#!/bin/sh\n");
    let plan = plan(&root);
    assert!(plan.protected.contains(&root.join(".githooks")), "{:?}", plan.protected);
    assert!(plan.protected.contains(&root.join("tools/watch.sh")), "{:?}", plan.protected);
    assert!(!plan.protected.contains(&root.join("tools/other.sh")));
}

/// Protected by identity: another name of a protected file is held too.
#[test]
fn a_hard_link_of_a_protected_file_is_protected() {
    let (_d, root) = root();
    git_dir(&root, ".git");
    write(&root, ".claude/settings.json", "{}");
    std::fs::hard_link(root.join(".git/config"), root.join("innocent.txt")).unwrap();
    std::fs::hard_link(root.join(".claude/settings.json"), root.join("sub-settings.json")).unwrap();
    let plan = plan(&root);
    assert!(plan.protected.contains(&root.join("innocent.txt")), "{:?}", plan.protected);
    assert!(plan.protected.contains(&root.join("sub-settings.json")), "{:?}", plan.protected);
}

/// A bare repository whose HEAD is a symbolic link (git still reads it): its config is
/// held.
#[test]
fn a_bare_repository_with_a_symlinked_head_keeps_its_config() {
    let (_d, root) = root();
    let bare = git_dir(&root, "store/x");
    std::fs::remove_file(bare.join("HEAD")).unwrap();
    std::os::unix::fs::symlink("refs/heads/main", bare.join("HEAD")).unwrap();
    let plan = plan(&root);
    assert!(plan.protected.contains(&bare.join("config")), "{:?}", plan.protected);
}

/// git takes a directory for a repository when `objects` and `refs` can be searched:
/// executable files will do, and the walk must find it all the same.
#[test]
fn a_repository_whose_objects_and_refs_are_files_is_found() {
    let (_d, root) = root();
    write(&root, "sub/HEAD", "ref: refs/heads/main\n");
    write(&root, "sub/objects", "");
    write(&root, "sub/refs", "");
    write(&root, "sub/config", "[core]\n\tfsmonitor = ./x\n");
    let plan = plan(&root);
    assert!(plan.protected.contains(&root.join("sub/config")), "{:?}", plan.protected);
}

/// Every name of a masked file is masked wherever the sandbox could read it: a hard link
/// outside the roots (here in /tmp) too.
#[test]
fn a_hard_link_of_a_denied_file_outside_the_roots_is_masked() {
    let (_d, root) = root();
    let secret = write(&root, ".env", "SECRET");
    let elsewhere = tempfile::Builder::new().prefix("rein-link-test").tempdir_in("/tmp").unwrap();
    let link = std::fs::canonicalize(elsewhere.path()).unwrap().join("copy-of-env");
    if std::fs::hard_link(&secret, &link).is_err() {
        return; // /tmp on another filesystem: no link can cross it.
    }
    // Where the plan looks (the home and /tmp) is searched within a budget; here the
    // place is the link's own directory, so that the machine's /tmp does not matter.
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(&secret).unwrap();
    let masked: std::collections::BTreeSet<PathBuf> = [secret].into();
    let places = [std::fs::canonicalize(elsewhere.path()).unwrap()];
    let found = walk::names_elsewhere(&masked, &[(meta.dev(), meta.ino())], &places);
    assert_eq!(found, [link], "the other name is found");
}

/// An agent's worktree at `.claude/worktrees/NAME`, linked both ways as `git worktree
/// add` links one.
pub(crate) fn agent_worktree(root: &Path, name: &str) -> PathBuf {
    let tree = root.join(".claude/worktrees").join(name);
    let gitdir = root.join(".git/worktrees").join(name);
    std::fs::create_dir_all(&gitdir).unwrap();
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    std::fs::write(gitdir.join("gitdir"), format!("{}\n", tree.join(".git").display())).unwrap();
    tree
}

/// Only worktrees git made are opened inside `.claude/`, one by one: not the folder
/// that holds them (where a planted `.claude/` would be config for every worktree), not
/// a folder that merely sits there, not one a `denyWrite` covers; a hard link inside a
/// worktree to a protected file is held.
#[test]
fn only_the_agents_real_worktrees_are_writable_inside_claude() {
    let (_d, root) = root();
    write(&root, ".claude/settings.json", "{}");
    let tree = agent_worktree(&root, "agent-1");
    std::fs::create_dir_all(root.join(".claude/worktrees/planted")).unwrap();
    std::fs::hard_link(root.join(".claude/settings.json"), tree.join("settings-link")).unwrap();
    let plan = plan(&root);
    assert_eq!(plan.reopened, std::slice::from_ref(&tree));
    assert!(!plan.holds(&tree.join("src/main.rs")));
    for held in [".claude/worktrees/.claude/commands/x.md", ".claude/worktrees/planted/x", ".claude/worktrees/new/x"] {
        assert!(plan.holds(&root.join(held)), "{held}");
    }
    assert!(plan.protected.contains(&tree.join("settings-link")), "{:?}", plan.protected);
    let vendor = root.join("vendor");
    std::fs::create_dir_all(&vendor).unwrap();
    let inner = agent_worktree(&vendor, "x");
    let deny = [vendor.display().to_string()];
    let plan = Plan::new(std::slice::from_ref(&root), &[], &deny, &[], &[]);
    assert!(!plan.reopened.contains(&inner) && plan.holds(&inner.join("lib.py")), "{:?}", plan.reopened);
    // A denyWrite naming the `.claude` folder itself keeps its worktrees read-only too.
    let deny = [root.join(".claude").display().to_string()];
    let plan = Plan::new(std::slice::from_ref(&root), &[], &deny, &[], &[]);
    assert!(!plan.reopened.contains(&tree) && plan.holds(&tree.join("src/main.rs")), "{:?}", plan.reopened);
    // A folder whose `.git` names itself, or a git directory that does not name it
    // back, is no worktree.
    let selfish = root.join(".claude/worktrees/selfish");
    std::fs::create_dir_all(&selfish).unwrap();
    std::fs::write(selfish.join(".git"), "gitdir: .\n").unwrap();
    let squat = root.join(".claude/worktrees/squat");
    std::fs::create_dir_all(&squat).unwrap();
    std::fs::write(squat.join(".git"), format!("gitdir: {}\n", root.join(".git/worktrees/agent-1").display())).unwrap();
    let reopened = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]).reopened;
    assert!(reopened.contains(&tree) && !reopened.contains(&selfish) && !reopened.contains(&squat), "{reopened:?}");
}
