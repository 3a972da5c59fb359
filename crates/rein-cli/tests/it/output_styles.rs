//! Output styles through the binary: the built-in ones, a custom style (which drops the
//! coding instructions unless it keeps them), the init line, an unknown name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, json_lines, serve};
use rein_testkit::{Scenario, reply, text};
use serde_json::json;

fn system_with(env: &Env) -> (String, serde_json::Value, String) {
    let server = serve(Scenario::new([reply([text("ok")])]));
    let out = env.rein_at(&server).args(["-p", "hi", "--output-format", "stream-json", "--verbose"]).output().unwrap();
    assert!(out.status.success());
    let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
    (server.requests()[0].system_text(), init, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_output_style_setting_shapes_the_prompt() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"outputStyle": "Explanatory"}).to_string());
    let (system, init, _) = system_with(&env);
    assert!(system.contains("# Output style: Explanatory") && system.contains("# How to work"), "{system}");
    assert_eq!(init["output_style"], "Explanatory");

    env.write(".claude/output-styles/terse.md", "---\nname: Terse\ndescription: Few words\n---\nAnswer in one line.\n");
    env.write(".claude/settings.json", &json!({"outputStyle": "terse"}).to_string());
    let (system, init, _) = system_with(&env);
    assert!(system.contains("Answer in one line.") && !system.contains("# How to work"), "{system}");
    assert_eq!(init["output_style"], "Terse");

    env.write(".claude/settings.json", &json!({"outputStyle": "Nonesuch"}).to_string());
    let (system, init, stderr) = system_with(&env);
    assert!(!system.contains("# Output style") && init["output_style"] == "default");
    assert!(stderr.contains("the output style \"Nonesuch\" is not installed"), "{stderr}");
}
