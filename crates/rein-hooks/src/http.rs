//! `http` hooks: the hook's input POSTed as JSON; a 2xx response's body is read as the
//! hook's output (the same JSON a command prints), anything else is a non-blocking
//! error. `${VAR}` in a header takes its value only when `allowedEnvVars` names VAR,
//! and never one of rein's own credentials.

use std::time::Duration;

use crate::{Exit, Handler, Run};

/// `${NAME}` filled from the allowed variables; every other one becomes empty.
fn fill(value: &str, allowed: &[String]) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &rest[start + 2..start + end];
        let permitted = allowed.iter().any(|a| a == name) && !rein_process::CREDENTIAL_VARS.contains(&name);
        if permitted {
            out.push_str(&rein_process::env::named(name).unwrap_or_default());
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

pub(crate) async fn run(h: &Handler, url: &str, headers: &[(String, String)], allowed: &[String], input: &str) -> Run {
    let display = h.display();
    let timeout = h.timeout.map(Duration::from_secs_f64).unwrap_or(crate::DEFAULT_TIMEOUT);
    let client = match rein_tls::client_builder().timeout(timeout).build() {
        Ok(c) => c,
        Err(e) => return failed(display, Exit::NotStarted(e.to_string())),
    };
    let mut request = client.post(url).header("content-type", "application/json").body(input.to_string());
    for (k, v) in headers {
        request = request.header(k.as_str(), fill(v, allowed));
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            if status.is_success() {
                Run { handler: display, exit: Exit::Code(Some(0)), stdout: body, stderr: String::new() }
            } else {
                Run {
                    handler: display,
                    exit: Exit::Code(Some(1)),
                    stdout: String::new(),
                    stderr: format!("HTTP {status}: {body}"),
                }
            }
        }
        Err(e) if e.is_timeout() => failed(display, Exit::TimedOut(timeout)),
        Err(e) => failed(display, Exit::NotStarted(format!("{url}: {e}"))),
    }
}

fn failed(handler: String, exit: Exit) -> Run {
    Run { handler, exit, stdout: String::new(), stderr: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_variables_fill_headers() {
        // SAFETY: a test of this module only; nothing else reads these names.
        unsafe {
            std::env::set_var("REIN_HOOK_TEST_TOKEN", "t0k");
            std::env::set_var("REIN_HOOK_TEST_OTHER", "nope");
        }
        let allowed = vec!["REIN_HOOK_TEST_TOKEN".to_string(), "ANTHROPIC_API_KEY".to_string()];
        assert_eq!(fill("Bearer ${REIN_HOOK_TEST_TOKEN}", &allowed), "Bearer t0k");
        assert_eq!(fill("x ${REIN_HOOK_TEST_OTHER} y", &allowed), "x  y");
        assert_eq!(fill("${ANTHROPIC_API_KEY}", &allowed), "", "rein's own credentials never go out");
    }
}
