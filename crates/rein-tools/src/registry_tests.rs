//! Tests of `registry.rs`, kept beside it so the code file stays small.

use super::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct EchoInput {
    /// What to echo.
    message: String,
    times: Option<u32>,
}

struct Echo;

impl Tool for Echo {
    type Input = EchoInput;
    fn name(&self) -> &'static str {
        "Echo"
    }
    fn description(&self) -> String {
        "Echo a message".into()
    }
    fn effects(&self, _: &EchoInput, _: &ToolContext) -> Effects {
        Effects::session_only(true)
    }
    async fn call(&self, input: EchoInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(input.message.repeat(input.times.unwrap_or(1) as usize)))
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.register(Echo).unwrap();
    r
}

#[test]
fn schema_comes_from_the_input_type() {
    let spec = &registry().specs()[0];
    assert_eq!(spec.input_schema["type"], json!("object"));
    assert_eq!(spec.input_schema["required"], json!(["message"]));
    assert_eq!(spec.input_schema["properties"]["message"]["description"], json!("What to echo."));
    assert!(spec.input_schema.get("$schema").is_none());
}

#[test]
fn unknown_tools_and_bad_inputs_are_messages_not_panics() {
    let r = registry();
    assert_eq!(r.prepare("Nope", &json!({})).err().unwrap().to_string(), "No such tool available: Nope");
    let missing = r.prepare("Echo", &json!({})).err().unwrap().to_string();
    assert!(missing.contains("\"message\" is a required property"), "{missing}");
    let wrong = r.prepare("Echo", &json!({"message": 42})).err().unwrap();
    assert!(matches!(&wrong, crate::InputError::Invalid { tool, .. } if tool == "Echo"), "{wrong:?}");
    let wrong = wrong.to_string();
    assert!(wrong.contains("`message`"), "{wrong}");
    assert!(wrong.contains("string"), "{wrong}");
}

#[tokio::test]
async fn a_prepared_call_runs_with_the_typed_input() {
    let call = registry().prepare("Echo", &json!({"message": "ab", "times": 2})).unwrap();
    let ctx = ToolContext::new("/".into(), "/tmp".into());
    let effects = call.effects(&ctx);
    assert!(effects.read_only && effects.concurrency_safe);
    let out = call.call(ctx).await.unwrap();
    assert_eq!(out, ToolOutput::text("abab"));
}

#[test]
fn duplicates_are_refused() {
    let mut r = registry();
    assert!(matches!(r.register(Echo), Err(RegistryError::Duplicate(_))));
}

/// Validators are compiled on a tool's first call: every built-in tool's schema
/// must compile (a call with an empty input is refused for its fields, never for
/// the schema).
#[test]
fn every_builtin_schema_compiles() {
    let mut registry = Registry::new();
    crate::register_builtins(&mut registry).unwrap();
    for name in registry.names() {
        if let Err(e) = registry.prepare(&name, &json!({})) {
            assert!(!matches!(e, crate::InputError::BadSchema { .. }), "{name}: {e}");
        }
    }
}
