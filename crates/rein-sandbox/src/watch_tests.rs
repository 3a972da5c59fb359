//! The watch on a real process: what it keeps, and what it leaves alone.

use std::os::fd::AsRawFd as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{Walls, Watch, child_side, prepare, socket_pair};
use crate::record::WriteRecorder;

/// What a recorder was told: each path's content at `before` (`None`: absent), and the
/// paths told `after`.
#[derive(Default)]
struct Told {
    before: Mutex<Vec<(PathBuf, Option<String>)>>,
    after: Mutex<Vec<PathBuf>>,
}

impl WriteRecorder for Told {
    fn before(&self, path: &Path) {
        let held = std::fs::read_to_string(path).ok();
        self.before.lock().unwrap().push((path.to_path_buf(), held));
    }

    fn after(&self, path: &Path) {
        self.after.lock().unwrap().push(path.to_path_buf());
    }
}

impl Told {
    fn held(&self, path: &Path) -> Option<Option<String>> {
        self.before.lock().unwrap().iter().find(|(p, _)| p == path).map(|(_, h)| h.clone())
    }
}

/// Run `script` under the watch, with `root` the only write root.
fn run(root: &Path, script: &str) -> Arc<Told> {
    let told = Arc::new(Told::default());
    prepare();
    let (ours, theirs) = socket_pair().unwrap();
    let walls = Walls {
        masked: vec![root.join("masked")],
        held: vec![root.join("held")],
        reopened: vec![root.join(".claude/worktrees")],
    };
    let watch = Watch::start(ours, vec![root.canonicalize().unwrap()], walls, told.clone());
    let mut c = std::process::Command::new("sh");
    c.args(["-c", script]).current_dir(root);
    // SAFETY: system calls only.
    unsafe {
        c.pre_exec(move || {
            child_side(theirs.as_raw_fd());
            Ok(())
        });
    }
    let status = c.status().unwrap();
    drop(c);
    assert!(status.success(), "{script}");
    watch.settle();
    told
}

#[test]
fn what_a_command_changes_is_kept_before_it_changes() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    for (name, text) in [("b", "old b"), ("c", "old c"), ("d", "old d"), ("r", "read me")] {
        std::fs::write(root.join(name), text).unwrap();
    }
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/inner"), "inner").unwrap();
    let told = run(
        &root,
        "echo new > a; echo changed > b; rm c; mv d e; cat r > /dev/null; mkdir -p sub && cd sub && echo x >> ../f; \
         cd .. && mv dir moved",
    );
    assert_eq!(told.held(&root.join("a")), Some(None), "a new file is kept as absent");
    assert_eq!(told.held(&root.join("b")), Some(Some("old b".into())));
    assert_eq!(told.held(&root.join("c")), Some(Some("old c".into())), "a removal keeps the file");
    assert_eq!(told.held(&root.join("d")), Some(Some("old d".into())), "a rename keeps its source");
    assert_eq!(told.held(&root.join("e")), Some(None), "and its destination");
    assert_eq!(told.held(&root.join("f")), Some(None), "a path relative to a changed directory");
    assert_eq!(told.held(&root.join("dir/inner")), Some(Some("inner".into())), "a moved directory's files");
    assert_eq!(told.held(&root.join("moved/inner")), Some(None));
    assert_eq!(told.held(&root.join("r")), None, "a read is not a change");
    assert_eq!(std::fs::read_to_string(root.join("b")).unwrap(), "changed\n", "the calls went on");
    let after = told.after.lock().unwrap();
    assert!(after.contains(&root.join("b")) && after.contains(&root.join("a")), "{after:?}");
}

#[test]
fn what_lies_outside_the_roots_is_not_kept() {
    let ws = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    let out = elsewhere.path().canonicalize().unwrap();
    std::fs::create_dir(out.join("deep")).unwrap();
    std::fs::write(out.join("deep/victim"), "outside").unwrap();
    std::os::unix::fs::symlink(out.join("deep"), root.join("link")).unwrap();
    std::fs::create_dir(root.join("masked")).unwrap();
    std::fs::write(root.join("masked/.env"), "TOKEN").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    let script = format!(
        "echo x > {o}/other; echo y > link/victim; echo z > link/../inside; echo w >> masked/.env; \
         cd sub && echo v > /proc/self/cwd/via-proc",
        o = out.display()
    );
    let told = run(&root, &script);
    let before = told.before.lock().unwrap();
    assert!(before.iter().all(|(p, _)| p.starts_with(&root)), "{before:?}");
    assert!(before.iter().all(|(p, _)| !p.starts_with(root.join("masked"))), "a denied read was kept: {before:?}");
    // `link/..` is the link's target's parent, as the kernel resolves it.
    assert!(out.join("inside").exists() && !before.iter().any(|(p, _)| p.ends_with("inside")), "{before:?}");
    let via_proc = root.join("sub/via-proc");
    assert!(before.iter().any(|(p, _)| *p == via_proc), "/proc/self is the command's, not rein's: {before:?}");
    assert_eq!(std::fs::read_to_string(out.join("deep/victim")).unwrap(), "y\n");
}

/// A directory renamed onto a link (the rename fails) or out of a masked directory
/// never has rein read or name what lies behind: nothing outside the roots, no masked
/// name.
#[test]
fn a_rename_never_takes_rein_through_a_link_or_into_a_mask() {
    let ws = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    let out = elsewhere.path().canonicalize().unwrap();
    std::fs::write(out.join("id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::create_dir_all(root.join("masked/inner")).unwrap();
    std::fs::write(root.join("masked/inner/secret-name"), "x").unwrap();
    let script = format!(
        "mkdir s && : > s/id_rsa && ln -s {o} d && perl -e 'rename \"s\", \"d\"'; \
         mkdir s2 && : > s2/environ && ln -s /proc/self d2 && perl -e 'rename \"s2\", \"d2\"'; \
         perl -e 'rename \"masked\", \"shown\"'; true",
        o = out.display()
    );
    let told = run(&root, &script);
    let before = told.before.lock().unwrap();
    assert!(before.iter().all(|(p, _)| p.starts_with(&root)), "{before:?}");
    assert!(before.iter().all(|(_, held)| held.as_deref() != Some("PRIVATE KEY")), "{before:?}");
    assert!(!before.iter().any(|(p, _)| p.to_string_lossy().contains("secret-name")), "{before:?}");
    assert!(!before.iter().any(|(p, _)| p.to_string_lossy().contains("environ") && !p.starts_with(root.join("s2"))));
}

/// Protected paths and git directories are never kept: a rewind never writes them from
/// what a command left there.
#[test]
fn protected_paths_are_not_kept() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(root.join(".claude/worktrees/a/.claude")).unwrap();
    std::fs::create_dir_all(root.join("held")).unwrap();
    let script = "echo x >> .git/config; echo x > .git/hooks/pre-commit; echo x > .claude/settings.json; \
                  echo x > .mcp.json; echo x > held/f; echo x > sub.bashrc; echo x > .bashrc; echo x > plain; \
                  echo x > .claude/worktrees/a/.claude/settings.json; echo x > .claude/worktrees/a/made";
    let told = run(&root, script);
    let before = told.before.lock().unwrap();
    let kept: Vec<_> = before.iter().map(|(p, _)| p.strip_prefix(&root).unwrap().to_path_buf()).collect();
    // An agent's worktree is kept like any workspace folder; the names protected in it
    // are not.
    let expected = ["sub.bashrc", "plain", ".claude/worktrees/a/made"].map(PathBuf::from);
    assert_eq!(kept, expected, "{kept:?}");
}

/// A write through a link in the workspace changes its target: the target is kept (and
/// a link to a file outside the roots keeps nothing).
#[test]
fn a_write_through_a_link_keeps_its_target() {
    let ws = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    let out = elsewhere.path().canonicalize().unwrap();
    std::fs::write(root.join("AGENTS.md"), "agents").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", root.join("CLAUDE.md")).unwrap();
    std::fs::write(out.join("far"), "far").unwrap();
    std::os::unix::fs::symlink(out.join("far"), root.join("far-link")).unwrap();
    let told = run(&root, "echo x > CLAUDE.md; echo y > far-link");
    assert_eq!(told.held(&root.join("AGENTS.md")), Some(Some("agents".into())));
    let before = told.before.lock().unwrap();
    assert!(before.iter().all(|(p, _)| p.starts_with(&root)), "{before:?}");
}

/// A file reopened for writing through `/proc/self/fd` is the file, not the name.
#[test]
fn a_reopened_descriptor_is_its_file() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    std::fs::write(root.join("f"), "old").unwrap();
    let told = run(&root, "exec 3<f; echo new > /proc/self/fd/3");
    assert_eq!(told.held(&root.join("f")), Some(Some("old".into())));
}

#[test]
fn the_filter_stops_only_writing_opens() {
    use super::{PROGRAM, WRITING};
    prepare();
    let program = PROGRAM.get().unwrap().as_ref().expect("this kernel is 5.5 or later");
    // The last two instructions: allow, then hand to the listener.
    let n = program.len();
    assert_eq!(program[n - 1].k, libc::SECCOMP_RET_USER_NOTIF);
    assert_eq!(program[n - 2].k, 0x7fff_0000);
    assert!(program.iter().any(|i| i.code == 0x45 && i.k == WRITING), "the opens' flag test");
    assert_eq!(WRITING & libc::O_RDONLY as u32, 0);
}

/// Tier B: where the recorder's own store lies in a write root (rein's home inside the
/// workspace), the guard would put back the store's writes made during the command;
/// such a command is not watched. Elsewhere it is.
#[test]
fn tier_b_does_not_watch_a_store_inside_a_write_root() {
    struct Store(PathBuf);
    impl WriteRecorder for Store {
        fn before(&self, _: &Path) {}
        fn after(&self, _: &Path) {}
        fn store_dir(&self) -> Option<&Path> {
            Some(&self.0)
        }
    }
    let ws = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    let config = crate::SandboxConfig { enabled: true, ..Default::default() };
    let sandbox =
        crate::Sandbox::new(config, std::slice::from_ref(&root), PathBuf::from("/bin/false"), Some('B')).unwrap();
    if sandbox.probe().tier.letter() != 'B' {
        return;
    }
    let wrap = |store: PathBuf| {
        let program = ["true".into()];
        sandbox.wrap_watched(crate::Profile::Configured, &program, &root, &[], Arc::new(Store(store))).after
    };
    assert!(wrap(root.join(".rein/sessions/s/checkpoints")).watch.is_none());
    assert!(wrap(elsewhere.path().join("checkpoints")).watch.is_some());
}
