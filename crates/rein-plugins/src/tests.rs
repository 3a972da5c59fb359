use std::path::Path;

use serde_json::json;

use crate::enabled::{Enabled, load};
use crate::ops::parse_source;
use crate::{Store, marketplace};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn sources_are_read_as_claude_code_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let abs = dir.path().canonicalize().unwrap().display().to_string();
    assert_eq!(parse_source(&abs, dir.path()).unwrap(), json!({"source": "directory", "path": abs}));
    assert_eq!(parse_source("acme/tools", dir.path()).unwrap(), json!({"source": "github", "repo": "acme/tools"}));
    assert_eq!(
        parse_source("https://git.example.com/x.git#v2", dir.path()).unwrap(),
        json!({"source": "git", "url": "https://git.example.com/x.git", "ref": "v2"})
    );
    assert!(parse_source("not a source at all", dir.path()).is_err());
}

#[test]
fn a_marketplace_entry_never_points_outside_the_marketplace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("m");
    write(
        &root.join(".claude-plugin/marketplace.json"),
        &json!({"name": "m", "plugins": [{"name": "out", "source": "../elsewhere"}, {"name": "in", "source": "./p"}]})
            .to_string(),
    );
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    std::fs::create_dir_all(root.join("p")).unwrap();
    let m = marketplace::read(&root).unwrap();
    assert!(m.entry("out").unwrap().local_dir(&root).is_err());
    assert!(m.entry("in").unwrap().local_dir(&root).unwrap().is_some());
}

#[test]
fn the_most_specific_scope_decides_and_a_missing_plugin_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(&dir.path().join(".claude"));
    let plugin = dir.path().join("cache/p");
    write(&plugin.join(".claude-plugin/plugin.json"), r#"{"name": "p"}"#);
    std::fs::create_dir_all(store.dir()).unwrap();
    store
        .write_installed(
            &json!({"version": 2, "plugins": {"p@m": [{"scope": "user", "installPath": plugin, "version": "1"}]}}),
        )
        .unwrap();
    let e = |on: bool, scope: &str| Enabled { id: "p@m".into(), on, scope: scope.into() };
    let cwd = dir.path();
    assert_eq!(load(&store, &[e(false, "user"), e(true, "project")], &[], cwd).plugins.len(), 1);
    assert!(load(&store, &[e(true, "user"), e(false, "local")], &[], cwd).plugins.is_empty());
    let missing = load(&store, &[Enabled { id: "q@m".into(), on: true, scope: "user".into() }], &[], cwd);
    assert!(missing.plugins.is_empty() && missing.problems[0].contains("not installed"), "{:?}", missing.problems);
}

#[test]
fn manifest_paths_may_not_leave_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("p/.claude-plugin/plugin.json"), r#"{"name": "p", "commands": ["../../etc", "./extra"]}"#);
    std::fs::create_dir_all(dir.path().join("p/extra")).unwrap();
    let p = crate::Plugin::open(&dir.path().join("p"), "p@m", "user").unwrap();
    assert_eq!(p.command_paths(), vec![dir.path().join("p/extra")]);
}

/// Listed commands, agents and output styles replace the default folder (Claude Code
/// reads it no more); listed skills add to `skills/`.
#[test]
fn listed_paths_replace_the_default_folder_but_for_skills() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    for d in ["commands", "agents", "skills", "more/skills", "output-styles"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let manifest = json!({"name": "p", "commands": "./more/deploy.md", "agents": [], "skills": "./more/skills"});
    write(&root.join(".claude-plugin/plugin.json"), &manifest.to_string());
    let p = crate::Plugin::open(&root, "p@m", "user").unwrap();
    assert_eq!(p.command_paths(), vec![root.join("more/deploy.md")]);
    assert_eq!(p.agent_paths(), vec![root.join("agents")], "an empty list names nothing: the default stays");
    assert_eq!(p.skill_paths(), vec![root.join("skills"), root.join("more/skills")]);
    assert_eq!(p.output_style_paths(), vec![root.join("output-styles")]);
}

#[test]
fn names_that_would_be_paths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("m");
    write(&root.join(".claude-plugin/marketplace.json"), r#"{"name": "../../.ssh", "plugins": []}"#);
    assert!(marketplace::read(&root).is_err(), "a marketplace named like a path");
    write(
        &root.join(".claude-plugin/marketplace.json"),
        r#"{"name": "m", "plugins": [{"name": "../evil", "source": "./p"}, {"name": "ok", "source": "./p"}]}"#,
    );
    std::fs::create_dir_all(root.join("p")).unwrap();
    let m = marketplace::read(&root).unwrap();
    assert_eq!(m.plugins.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["ok"]);
    // A version that climbs out of the cache is refused before anything is copied or removed.
    write(&root.join("p/.claude-plugin/plugin.json"), r#"{"name": "ok", "version": "../../../victim"}"#);
    let victim = dir.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let ctx = crate::ops::Context { store: Store::new(&dir.path().join("home/.claude")), cwd: dir.path().into() };
    crate::ops::marketplace_add(&ctx, &root.display().to_string()).unwrap();
    let err = crate::ops::install(&ctx, "ok@m", "user").unwrap_err();
    assert!(err.to_string().contains("plugin version"), "{err}");
    assert!(victim.is_dir(), "nothing outside the cache was touched");
}

#[test]
fn a_marketplace_cannot_take_anothers_name_and_owner_repo_is_never_a_local_folder() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = crate::ops::Context { store: Store::new(&dir.path().join("home/.claude")), cwd: dir.path().into() };
    for m in ["one", "two"] {
        write(&dir.path().join(m).join(".claude-plugin/marketplace.json"), r#"{"name": "acme", "plugins": []}"#);
    }
    crate::ops::marketplace_add(&ctx, &dir.path().join("one").display().to_string()).unwrap();
    let err = crate::ops::marketplace_add(&ctx, &dir.path().join("two").display().to_string()).unwrap_err();
    assert!(err.to_string().contains("already added"), "{err}");
    let known = ctx.store.known().unwrap();
    assert!(known["acme"]["installLocation"].as_str().unwrap().ends_with("one"), "the first one stays");
    // A folder of that name in the project does not turn owner/repo into a path.
    std::fs::create_dir_all(dir.path().join("acme/plugins")).unwrap();
    assert_eq!(parse_source("acme/plugins", dir.path()).unwrap()["source"], "github");
}

#[test]
fn project_settings_are_not_written_through_a_linked_claude_folder() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join(".claude")).unwrap();
    let ctx = crate::ops::Context { store: Store::new(&dir.path().join("home/.claude")), cwd: project };
    assert!(crate::ops::set_enabled(&ctx, "p@m", "project", true).is_err());
    assert!(!elsewhere.join("settings.json").exists());
}

/// A marketplace entry may name the plugin's components (bmad-method's names its 28
/// skills so, with no plugin.json): they count with the plugin's own (`strict`, the
/// default), or alone (`"strict": false`, which a plugin.json naming components breaks).
#[test]
fn a_marketplace_entrys_components_are_the_plugins() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("m");
    let entry = json!({"name": "p", "source": "./", "skills": ["./src/one", "./src/two"],
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/stop.sh"}]}]}});
    write(&root.join(".claude-plugin/marketplace.json"), &json!({"name": "m", "plugins": [entry]}).to_string());
    for s in ["one", "two"] {
        write(&root.join(format!("src/{s}/SKILL.md")), "---\nname: x\ndescription: y\n---\n");
    }
    let ctx = crate::ops::Context { store: Store::new(&dir.path().join("home/.claude")), cwd: dir.path().into() };
    crate::ops::marketplace_add(&ctx, &root.display().to_string()).unwrap();
    crate::ops::install(&ctx, "p@m", "user").unwrap();
    let on = [Enabled { id: "p@m".into(), on: true, scope: "user".into() }];
    let loaded = load(&ctx.store, &on, &[], dir.path());
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let real = root.canonicalize().unwrap();
    assert_eq!(loaded.plugins[0].skill_paths(), vec![real.join("src/one"), real.join("src/two")]);
    let hooks = loaded.plugins[0].hooks();
    let (hooks, origin) = hooks[0].as_ref().unwrap();
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], format!("{}/stop.sh", real.display()));
    assert_eq!(origin, &root.canonicalize().unwrap().join(".claude-plugin/marketplace.json").display().to_string());

    // `"strict": false` and a plugin.json that names components too: not loaded, and why.
    let mut strict = json!({"name": "m", "plugins": [entry]});
    strict["plugins"][0]["strict"] = json!(false);
    write(&root.join(".claude-plugin/marketplace.json"), &strict.to_string());
    write(&root.join(".claude-plugin/plugin.json"), r#"{"name": "p", "skills": "./src"}"#);
    let loaded = load(&ctx.store, &on, &[], dir.path());
    assert!(loaded.plugins.is_empty());
    assert!(
        loaded.problems[0].contains("marketplace.json") && loaded.problems[0].contains("strict"),
        "{:?}",
        loaded.problems
    );
}
