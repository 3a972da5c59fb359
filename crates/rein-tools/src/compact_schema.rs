//! The input schema the model is shown: the schema generated from a tool's input type,
//! without what only a validator needs. The tool definitions are sent on every request,
//! so each byte here is paid once per turn.
//!
//! Optional fields lose their `null` alternative, `null` defaults and `null` enum members
//! (leaving a field out is how the model says "none"), numeric `format` annotations
//! (`uint64`, …) and the `minimum: 0` of unsigned integers go, and a choice of string
//! constants becomes one `enum`. Inputs are still checked against the full schema, which
//! accepts everything this one does (and an explicit `null`).

use serde_json::{Map, Value};

/// Numeric formats schemars adds for Rust integer and float types.
const NUMERIC_FORMATS: [&str; 10] =
    ["int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "double"];

/// `schema` made compact for the model (see the module doc).
pub fn compact_for_model(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(compact_object(map)),
        Value::Array(items) => Value::Array(items.iter().map(compact_for_model).collect()),
        other => other.clone(),
    }
}

fn compact_object(map: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("format", Value::String(f)) if NUMERIC_FORMATS.contains(&f.as_str()) => {}
            ("default", Value::Null) => {}
            ("minimum", m) if m.as_f64() == Some(0.0) => {}
            ("enum", Value::Array(values)) => {
                out.insert(key.clone(), Value::Array(values.iter().filter(|v| !v.is_null()).cloned().collect()));
            }
            ("type", Value::Array(types)) => {
                out.insert(key.clone(), without_null(types));
            }
            ("anyOf", Value::Array(alternatives)) => match not_null(alternatives) {
                Some(only) => merge_into(&mut out, only),
                None => {
                    out.insert(key.clone(), compact_for_model(value));
                }
            },
            ("oneOf", Value::Array(alternatives)) => match string_constants(alternatives) {
                Some(values) => {
                    out.insert("type".into(), Value::from("string"));
                    out.insert("enum".into(), Value::Array(values));
                }
                None => {
                    out.insert(key.clone(), compact_for_model(value));
                }
            },
            _ => {
                out.insert(key.clone(), compact_for_model(value));
            }
        }
    }
    out
}

/// `["integer", "null"]` → `"integer"`; a longer list keeps its other members.
fn without_null(types: &[Value]) -> Value {
    let kept: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
    match kept.as_slice() {
        [one] => one.clone(),
        _ => Value::Array(kept),
    }
}

/// The one alternative of `anyOf: [X, {"type": "null"}]`.
fn not_null(alternatives: &[Value]) -> Option<&Value> {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    match alternatives {
        [a, b] if is_null(b) => Some(a),
        [a, b] if is_null(a) => Some(b),
        _ => None,
    }
}

/// The alternative's keys join the enclosing schema; the enclosing keys (its
/// description) win.
fn merge_into(out: &mut Map<String, Value>, alternative: &Value) {
    if let Value::Object(inner) = compact_for_model(alternative) {
        for (k, v) in inner {
            out.entry(k).or_insert(v);
        }
    }
}

/// The values of a `oneOf` made only of `{"type": "string", "const": …}` alternatives.
fn string_constants(alternatives: &[Value]) -> Option<Vec<Value>> {
    alternatives
        .iter()
        .map(|a| {
            let is_string = a.get("type").and_then(Value::as_str) == Some("string");
            a.get("const").filter(|c| is_string && c.is_string()).cloned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_lose_null_and_numeric_formats() {
        let s = json!({"type": "object", "properties": {
            "limit": {"type": ["integer", "null"], "format": "uint64", "minimum": 0, "description": "d"},
            "url": {"type": "string", "format": "uri"}
        }, "required": []});
        let c = compact_for_model(&s);
        assert_eq!(c["properties"]["limit"], json!({"type": "integer", "description": "d"}));
        assert_eq!(c["properties"]["url"], json!({"type": "string", "format": "uri"}), "meaningful formats stay");
    }

    #[test]
    fn an_optional_choice_of_constants_becomes_an_enum() {
        let s = json!({"anyOf": [
            {"oneOf": [{"type": "string", "const": "a", "description": "x"}, {"type": "string", "const": "b"}]},
            {"type": "null"}
        ], "description": "outer"});
        assert_eq!(compact_for_model(&s), json!({"type": "string", "enum": ["a", "b"], "description": "outer"}));
    }

    #[test]
    fn null_defaults_and_null_choices_go() {
        let s = json!({"type": ["string", "null"], "enum": ["code", "markdown", null], "default": null, "minimum": 1});
        assert_eq!(compact_for_model(&s), json!({"type": "string", "enum": ["code", "markdown"], "minimum": 1}));
        let kept = json!({"type": "boolean", "default": false});
        assert_eq!(compact_for_model(&kept), kept);
    }

    #[test]
    fn other_unions_are_kept() {
        let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]});
        assert_eq!(compact_for_model(&s), s);
        let mixed = json!({"oneOf": [{"type": "string", "const": "a"}, {"type": "object"}]});
        assert_eq!(compact_for_model(&mixed), mixed);
    }
}
