//! `/reload-plugins`: this process becomes rein again, with the arguments it was given
//! (less its prompt and the choice of session), on the same conversation, in the model
//! and permission mode the person had, so that every plugin and setting is read anew.

use std::ffi::OsString;

/// Flags whose value is the next argument, dropped with it: the session is chosen
/// again, and the model and mode are the ones in use now.
const WITH_VALUE: &[&str] = &["--session-id", "--model", "--permission-mode", "--rewind-to"];
/// Flags dropped alone: the session is chosen again, and bypass is had only through the
/// mode in use now (a person who left bypass for plan must come back in plan).
const ALONE: &[&str] =
    &["-c", "--continue", "--fork-session", "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"];

/// The arguments to start again with.
pub(crate) fn relaunch_args(
    argv: Vec<OsString>,
    prompt: Option<&str>,
    session: Option<&str>,
    model: &str,
    mode: &str,
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = argv;
    if let Some(p) = prompt
        && let Some(at) = argv.iter().rposition(|a| a.to_str() == Some(p))
    {
        argv.remove(at);
    }
    let mut out: Vec<OsString> = Vec::new();
    let mut args = argv.into_iter().peekable();
    while let Some(a) = args.next() {
        let text = a.to_string_lossy().into_owned();
        let name = text.split_once('=').map_or(text.as_str(), |(n, _)| n);
        if ALONE.contains(&text.as_str()) || (text.contains('=') && WITH_VALUE.contains(&name)) {
            continue;
        }
        if WITH_VALUE.contains(&text.as_str()) {
            args.next();
            continue;
        }
        if text == "-r" || text == "--resume" {
            // Its id is optional.
            if args.peek().is_some_and(|n| !n.to_string_lossy().starts_with('-')) {
                args.next();
            }
            continue;
        }
        if name == "--resume" {
            continue;
        }
        out.push(a);
    }
    if let Some(id) = session {
        out.extend(["--resume".into(), id.into()]);
    }
    out.extend(["--model".into(), model.into(), "--permission-mode".into(), mode.into()]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: Vec<OsString>) -> Vec<String> {
        v.into_iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn the_session_model_and_mode_are_chosen_again_and_the_rest_is_kept() {
        let argv = [
            "--plugin-dir",
            "/p",
            "-r",
            "old",
            "--dangerously-skip-permissions",
            "--model=opus",
            "--permission-mode",
            "plan",
            "-c",
            "fix it",
        ]
        .map(OsString::from)
        .to_vec();
        let out = strings(relaunch_args(argv, Some("fix it"), Some("abc"), "claude-x", "acceptEdits"));
        assert_eq!(
            out,
            ["--plugin-dir", "/p", "--resume", "abc", "--model", "claude-x", "--permission-mode", "acceptEdits"]
        );
        let out = strings(relaunch_args(
            vec!["--resume".into(), "--add-dir".into(), "/x".into()],
            None,
            None,
            "m",
            "default",
        ));
        assert_eq!(out, ["--add-dir", "/x", "--model", "m", "--permission-mode", "default"]);
    }
}
