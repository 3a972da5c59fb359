//! The session shell's saved state: where one command saves it ([`Saving`]: two files
//! in rein's own directory, handed over as descriptors) and how it is read back
//! (`export -p` then `declare -f`, as bash prints them: the exported variables with
//! their values, and the function names).

use std::path::{Path, PathBuf};

/// (exported variables with their values, function names).
pub(super) fn parse(saved: &str) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let mut exported = Vec::new();
    let mut functions = Vec::new();
    let mut rest = saved;
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        rest = after;
        if let Some(decl) = line.strip_prefix("declare -") {
            // `declare -x NAME="value"` (flags may be `-x`, `-rx`, …).
            let Some((_flags, body)) = decl.split_once(' ') else { continue };
            match body.split_once('=') {
                None => exported.push((body.to_string(), None)),
                Some((name, value)) => {
                    let (value, remaining) = quoted(value, rest);
                    rest = remaining;
                    exported.push((name.to_string(), Some(value)));
                }
            }
        } else if let Some(name) = line.strip_suffix(" () ")
            && !name.contains(char::is_whitespace)
        {
            functions.push(name.to_string());
        }
    }
    (exported, functions)
}

/// A state rein writes itself from a saved one it does not trust: `export NAME='value'`
/// for each exported variable with a valid name, `cd` to the saved directory, the end
/// line. Nothing else of the saved text — no function, no command — survives.
pub(super) fn rebuild(saved: &str, cwd: &[u8], injected: &[&str]) -> Vec<u8> {
    let quote = |v: &str| format!("'{}'", v.replace('\'', r"'\''"));
    let valid = |n: &str| {
        let mut chars = n.chars();
        chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
    };
    let (exported, _) = parse(saved);
    let mut out = String::new();
    for (name, value) in exported.iter().filter(|(n, _)| valid(n) && !injected.contains(&n.as_str())) {
        // In bash's own `export -p` form, which `parse` (and so the policy's view of
        // the shell's environment) reads back as written.
        match value {
            Some(v) => out.push_str(&format!("declare -x {name}=\"{}\"\n", escaped(v))),
            None => out.push_str(&format!("declare -x {name}\n")),
        }
    }
    // Only a directory whose name is text (and exists): any other would be written as
    // a different name than the directory file holds.
    if let Ok(dir) = std::str::from_utf8(cwd)
        && !dir.is_empty()
        && std::path::Path::new(dir).is_dir()
    {
        out.push_str(&format!("cd -- {}\n", quote(dir)));
    }
    out.push_str(STATE_END);
    out.into_bytes()
}

/// `$NAME` and `${NAME}` in `text` replaced by their values in `env` (empty when unset).
pub(super) fn expand_with(
    text: &str,
    env: &std::collections::HashMap<std::ffi::OsString, std::ffi::OsString>,
) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(b) => match b.split_once('}') {
                Some((n, t)) => (n, t),
                None => ("", after),
            },
            None => {
                let end = after.find(|c: char| !(c == '_' || c.is_ascii_alphanumeric())).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        out.push_str(
            &env.get(std::ffi::OsStr::new(name)).map(|v| v.to_string_lossy().into_owned()).unwrap_or_default(),
        );
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `value` for the inside of double quotes, as bash writes it there.
fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A double-quoted value that may continue on the following lines; returns it unescaped
/// and what follows it.
fn quoted<'a>(first: &str, rest: &'a str) -> (String, &'a str) {
    let Some(body) = first.strip_prefix('"') else { return (first.to_string(), rest) };
    let mut out = String::new();
    let mut text = body.to_string();
    let mut rest = rest;
    loop {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(n @ ('"' | '\\' | '$' | '`')) => out.push(n),
                    Some(n) => {
                        out.push('\\');
                        out.push(n);
                    }
                    None => out.push('\\'),
                },
                '"' => return (out, rest),
                c => out.push(c),
            }
        }
        // The value goes on: a newline inside the quotes.
        if rest.is_empty() {
            return (out, rest);
        }
        out.push('\n');
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        text = line.to_string();
        rest = after;
    }
}

/// The descriptors the wrapper saves the state and the working directory through (high
/// numbers, which a command's own redirections rarely take).
pub(super) const STATE_FD: i32 = 71;
pub(super) const CWD_FD: i32 = 72;
/// The last line of a state saved whole.
pub(super) const STATE_END: &str = "# rein: end of state\n";

/// Where one command saves the shell's state: two files in rein's own directory, handed
/// to the command as [`STATE_FD`] and [`CWD_FD`], taken as the state only when the save
/// finished. The files are reused (one pair per slot, more slots than commands run at
/// once), so that a command costs the filesystem no new file.
pub(crate) struct Saving {
    state: PathBuf,
    cwd: PathBuf,
    fds: [std::os::fd::OwnedFd; 2],
}

/// Pairs of files commands save through, in turn.
const SLOTS: u32 = 16;

impl Saving {
    pub(super) fn new(dir: &Path, n: u32) -> std::io::Result<Saving> {
        let slot = n % SLOTS;
        let state = dir.join(format!("slot-{slot}.sh"));
        let cwd = dir.join(format!("slot-{slot}.cwd"));
        let open = |p: &Path| -> std::io::Result<std::os::fd::OwnedFd> {
            use std::os::unix::fs::OpenOptionsExt as _;
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(p)?;
            // Above the two numbers they are moved to in the child.
            Ok(rustix::io::fcntl_dupfd_cloexec(&f, 100)?)
        };
        let fds = [open(&state)?, open(&cwd)?];
        Ok(Saving { state, cwd, fds })
    }

    /// Give the child the two descriptors under their numbers.
    pub(super) fn attach(&self, cmd: &mut tokio::process::Command) {
        use std::os::fd::AsRawFd as _;
        let (state, cwd) = (self.fds[0].as_raw_fd(), self.fds[1].as_raw_fd());
        // SAFETY: only `dup2`, a system call, between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                for (from, to) in [(state, STATE_FD), (cwd, CWD_FD)] {
                    if libc::dup2(from, to) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }

    /// The command ended: a state saved whole becomes the shell's (copied into rein's
    /// own state files, which only rein writes). A command that ran confined (in a jail
    /// or the person's sandbox) could have written anything there — code the next
    /// command, perhaps an unconfined one, would run — so its state is not copied but
    /// rebuilt by rein from what it means: the exported variables (each quoted by rein)
    /// and the directory. Functions it defined do not carry over.
    /// `confined` names the variables the sandbox itself set (its `TMPDIR`, proxies),
    /// which are not the command's to pass on.
    pub(super) fn adopt(self, into: &Path, confined: Option<&[&str]>) {
        let Ok(state) = std::fs::read(&self.state) else { return };
        if !state.ends_with(STATE_END.as_bytes()) {
            return;
        }
        let mut cwd_file = into.as_os_str().to_os_string();
        cwd_file.push(".cwd");
        let mut cwd = std::fs::read(&self.cwd).unwrap_or_default();
        if confined.is_some() {
            // The directory a confined command reports is only a claim (it can set
            // `PWD`): kept as the directory it really names, canonical and existing,
            // else the shell stays where it was. The state and the directory file then
            // say the same, and the policy reads paths from where commands really start.
            use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
            let claimed = std::path::PathBuf::from(std::ffi::OsString::from_vec(cwd.clone()));
            cwd = match std::fs::canonicalize(&claimed) {
                Ok(real) if real.is_dir() => real.as_os_str().as_bytes().to_vec(),
                _ => std::fs::read(&cwd_file).unwrap_or_default(),
            };
        }
        let state = match confined {
            Some(injected) => rebuild(&String::from_utf8_lossy(&state), &cwd, injected),
            None => state,
        };
        let _ = std::fs::write(into, state);
        let _ = std::fs::write(cwd_file, cwd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_and_functions() {
        let saved = "declare -x HOME=\"/root\"\ndeclare -x MULTI=\"a\nb \\\"q\\\" \\$x\"\ndeclare -x EMPTY\ndeclare -rx RO=\"1\"\ngreet () \n{ \n    echo hi\n}\ncd -- /tmp\n";
        let (exported, functions) = parse(saved);
        assert_eq!(exported[0], ("HOME".into(), Some("/root".into())));
        assert_eq!(exported[1], ("MULTI".into(), Some("a\nb \"q\" $x".into())));
        assert_eq!(exported[2], ("EMPTY".into(), None));
        assert_eq!(exported[3], ("RO".into(), Some("1".into())));
        assert_eq!(functions, ["greet"]);
    }
}

#[cfg(test)]
mod rebuild_tests {
    use super::*;

    /// What a confined command planted in its saved state is not carried over; its
    /// exports and directory are, quoted by rein.
    #[test]
    fn only_exports_and_the_directory_survive() {
        let dir = tempfile::tempdir().unwrap();
        let saved =
            "declare -x FOO=\"a'b\"\ntouch /tmp/pwned\nls () \n{ \n    rm -rf /\n}\ncd -- /etc\n# rein: end of state\n";
        let out = String::from_utf8(rebuild(saved, dir.path().display().to_string().as_bytes(), &["TMPDIR"])).unwrap();
        assert!(out.starts_with("declare -x FOO=\"a'b\"\n"), "{out}");
        assert!(!out.contains("touch") && !out.contains("rm -rf") && !out.contains("/etc"), "{out}");
        assert!(out.contains(&format!("cd -- '{}'", dir.path().display())), "{out}");
        assert!(out.ends_with("# rein: end of state\n"));
    }

    /// What rein writes is what the policy reads back: every export, however quoted.
    #[test]
    fn a_rebuilt_state_reads_back_the_same() {
        let saved =
            "declare -x PATH=\"/evil:\\$x \\\"q\\\" \\`c\\` \\\\\"\ndeclare -x MULTI=\"a\nb\"\ndeclare -x EMPTY\n";
        let (before, _) = parse(saved);
        let rebuilt = String::from_utf8(rebuild(saved, b"", &[])).unwrap();
        let (after, _) = parse(&rebuilt);
        assert_eq!(before, after, "{rebuilt}");
        assert_eq!(after[0].1.as_deref(), Some("/evil:$x \"q\" `c` \\"));
    }
}
