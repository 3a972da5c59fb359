use std::path::PathBuf;

use super::*;

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

/// A plan with every field set.
fn full_plan() -> Plan {
    Plan {
        write_roots: vec![p("/w/project"), p("/w/other")],
        pins: vec![p("/w/project/.claude")],
        protected: vec![p("/w/project/.git"), p("/w/project/.claude/settings.json")],
        placeholders: vec![p("/w/project/.vscode")],
        masked: vec![p("/w/project/secrets"), p("/home/me/.aws")],
        unmasked: vec![p("/w/project/secrets/public")],
        existing: [p("/w/project/.git"), p("/w/project/.husky")].into_iter().collect(),
        allow_write: vec!["/w/project/.cargo/registry".into()],
        hidden: vec![p("/home/me")],
        exposed: vec![p("/home/me/.rustup")],
        reopened: vec![p("/w/project/.claude/worktrees/a")],
    }
}

/// The profile's lines between `(action what` and its `)`, for `filter`.
fn paths_of(profile: &str, action: &str, what: &str, filter: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in profile.lines() {
        if line == format!("({action} {what}") {
            inside = true;
        } else if inside && line == ")" {
            inside = false;
        } else if inside && let Some(rest) = line.trim().strip_prefix(&format!("({filter} \"")) {
            out.push(rest.trim_end_matches("\")").to_string());
        }
    }
    out
}

/// Every rule of the plan has its counterpart in the profile (the bubblewrap tier's
/// mounts are made from the same fields).
#[test]
fn every_rule_of_the_plan_is_in_the_profile() {
    let plan = full_plan();
    let profile = profile(&plan, &p("/t/rein-tmp"), &SeatbeltNet::None, false);
    let has = |action: &str, what: &str, filter: &str, path: &PathBuf| {
        paths_of(&profile, action, what, filter).contains(&path.display().to_string())
    };
    for r in &plan.write_roots {
        assert!(has("allow", "file-write*", "subpath", r), "write root {r:?}\n{profile}");
    }
    assert!(has("allow", "file-write*", "subpath", &p("/t/rein-tmp")));
    for x in plan.protected.iter().chain(&plan.existing).chain(&plan.placeholders) {
        assert!(has("deny", "file-write*", "subpath", x), "held {x:?}\n{profile}");
    }
    for x in &plan.pins {
        assert!(has("deny", "file-write*", "literal", x), "pin {x:?}");
    }
    for x in &plan.reopened {
        assert!(has("allow", "file-write*", "subpath", x), "reopened {x:?}");
    }
    for x in plan.masked.iter().chain(&plan.hidden) {
        assert!(has("deny", "file-read*", "subpath", x), "masked {x:?}");
    }
    for x in plan.unmasked.iter().chain(&plan.exposed) {
        assert!(has("allow", "file-read*", "subpath", x), "unmasked {x:?}");
    }
    // Later rules win: each exception comes after what it excepts.
    let at = |needle: &str| profile.find(needle).unwrap();
    assert!(at("(allow file-read*)") < at("(deny file-read*"));
    assert!(at("(deny file-read*") < at("(allow file-read*\n"));
    assert!(at("(allow file-write*") < at("(deny file-write*"));
    assert!(profile.rfind("(allow file-write*").unwrap() > at("(deny file-write*"), "reopened after held");
    assert!(!profile.contains("(allow network"), "no network: {profile}");
}

#[test]
fn the_network_is_the_proxy_or_all_or_none() {
    let plan = Plan { write_roots: vec![p("/w")], ..Plan::default() };
    let proxy = profile(&plan, &p("/t"), &SeatbeltNet::Proxy(p("/r/proxy.sock")), false);
    assert!(proxy.contains("(allow network-outbound (remote unix-socket (path-literal \"/r/proxy.sock\")))"));
    assert!(!proxy.contains("(allow network*)"));
    let all = profile(&plan, &p("/t"), &SeatbeltNet::All, true);
    assert!(all.contains("(allow network*)") && all.contains("(allow network* (remote unix-socket))"));
}

#[test]
fn a_path_cannot_break_out_of_its_string() {
    let plan = Plan { write_roots: vec![p("/w/a\") (allow file-write* (subpath \"/")], ..Plan::default() };
    let text = profile(&plan, &p("/t"), &SeatbeltNet::None, false);
    assert!(text.contains(r#"(subpath "/w/a\") (allow file-write* (subpath \"/")"#), "{text}");
}

#[test]
fn profiles_of_representative_plans() {
    let workspace = Plan {
        write_roots: vec![p("/Users/me/project")],
        pins: vec![p("/Users/me/project/.claude")],
        protected: vec![p("/Users/me/project/.git"), p("/Users/me/project/.claude/settings.json")],
        masked: vec![p("/Users/me/project/.env")],
        existing: [p("/Users/me/project/.git")].into_iter().collect(),
        ..Plan::default()
    };
    insta::assert_snapshot!(
        "workspace_with_proxy",
        profile(&workspace, &p("/private/tmp/rein-1"), &SeatbeltNet::Proxy(p("/private/tmp/rein-1/proxy")), false)
    );
    let read_only = Plan { hidden: vec![p("/Users/me")], exposed: vec![p("/Users/me/.cargo")], ..Plan::default() };
    insta::assert_snapshot!(
        "read_only_tried_first",
        profile(&read_only, &p("/private/tmp/rein-2"), &SeatbeltNet::None, false)
    );
}
