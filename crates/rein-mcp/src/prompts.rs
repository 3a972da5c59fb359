//! MCP prompts as slash commands: `/mcp__<server>__<prompt> args…`. The arguments are
//! split on spaces (quotes group) and given to the prompt's declared arguments in order;
//! the model receives Claude Code's `<command-message>`/`<command-name>`/`<command-args>`
//! lines followed by the prompt's messages as text.

use rmcp::model::{GetPromptRequestParams, GetPromptResponse};
use serde_json::{Map, Value};

use crate::live::Live;
use crate::names::prefix;

/// Words of `args`: split on whitespace, `"…"` and `'…'` grouping.
pub fn split_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        out.push(word);
    }
    out
}

/// The server (of `lives`) and prompt a `/mcp__…` command names.
pub fn parse(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("/mcp__")?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    Some((name, args.trim()))
}

/// Expand the command `/mcp__<name> args` with `live` (whose tool prefix starts the
/// name): the user message text, or why it cannot be.
pub async fn expand(live: &Live, command: &str, args: &str) -> Result<String, crate::ServerError> {
    let server_prefix = prefix(live.name());
    let wanted = format!("mcp__{command}");
    let peer = live.peer().await?;
    let prompts =
        peer.list_all_prompts().await.map_err(|source| crate::ServerError::Request { what: "prompts/list", source })?;
    let prompt = prompts
        .iter()
        .find(|p| format!("{server_prefix}{}", clean(&p.name)) == wanted)
        .ok_or_else(|| crate::ServerError::Prompt(format!("Unknown MCP prompt: /{wanted}")))?;
    let mut arguments = Map::new();
    let declared = prompt.arguments.clone().unwrap_or_default();
    for (arg, value) in declared.iter().zip(split_args(args)) {
        arguments.insert(arg.name.clone(), Value::from(value));
    }
    let missing: Vec<&str> = declared
        .iter()
        .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(crate::ServerError::Prompt(format!("/{wanted} needs the argument(s) {}", missing.join(", "))));
    }
    let params = GetPromptRequestParams::new(prompt.name.clone()).with_arguments(arguments);
    let GetPromptResponse::Complete(result) = peer
        .get_prompt_once(params)
        .await
        .map_err(|source| crate::ServerError::Request { what: "prompts/get", source })?
    else {
        return Err(crate::ServerError::Prompt(format!("/{wanted} asks for input rein cannot give")));
    };
    let mut text = format!(
        "<command-message>{wanted}</command-message>\n<command-name>/{wanted}</command-name>\n<command-args>{args}</command-args>\n"
    );
    for m in serde_json::to_value(&result.messages).unwrap_or(Value::Null).as_array().into_iter().flatten() {
        let c = &m["content"];
        let line = match c["type"].as_str() {
            Some("text") => c["text"].as_str().unwrap_or("").to_string(),
            Some("resource") => {
                let r = &c["resource"];
                format!(
                    "[Resource from {} at {}] {}",
                    live.name(),
                    r["uri"].as_str().unwrap_or(""),
                    r["text"].as_str().unwrap_or("")
                )
            }
            _ => c.to_string(),
        };
        text.push('\n');
        text.push_str(&line);
    }
    Ok(text)
}

fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_on_spaces_with_quotes_grouping() {
        assert_eq!(split_args(r#"Bob "very grumpy" 'x y' z"#), ["Bob", "very grumpy", "x y", "z"]);
        assert_eq!(split_args("  "), Vec::<String>::new());
        assert_eq!(parse("/mcp__probe__greet Bob grumpy"), Some(("probe__greet", "Bob grumpy")));
        assert_eq!(parse("/review"), None);
    }
}
