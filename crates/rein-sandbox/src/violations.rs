//! Filesystem denials read from a command's own errors, for the `<sandbox_violations>`
//! block: a write refused by the read-only mounts (`Read-only file system`, `EROFS`),
//! a read of a masked path (`Permission denied` on a path the policy masks). Best
//! effort: the mounts are the boundary, this only tells the model what hit it.

use std::path::{Path, PathBuf};

/// One line per denial found in `output`.
pub(crate) fn from_output(output: &str, masked: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for line in output.lines() {
        let write = line.contains("Read-only file system");
        let read = line.contains("Permission denied") || line.contains("Operation not permitted");
        if !write && !read {
            continue;
        }
        let Some(path) = path_in(line) else { continue };
        if write {
            out.push(format!("deny file-write {path}"));
        } else if masked.iter().any(|m| Path::new(&path).file_name() == m.file_name() || m.ends_with(&path)) {
            out.push(format!("deny file-read {path}"));
        } else if line.contains("Operation not permitted") {
            out.push(format!("deny operation {path}"));
        }
    }
    out.dedup();
    out
}

/// The path a tool's error line names: quoted (`'p'`, `"p"`, `‘p’`) or the first word
/// that looks like a path.
fn path_in(line: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’')] {
        if let Some(start) = line.find(open) {
            let rest = &line[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let p = &rest[..end];
                if p.contains('/') || p.starts_with('.') {
                    return Some(p.to_string());
                }
            }
        }
    }
    line.split([' ', ':'])
        .map(str::trim)
        .find(|w| (w.starts_with('/') || w.starts_with("./") || w.starts_with("~/")) && w.len() > 1)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denials_are_read_from_common_error_lines() {
        let masked = [PathBuf::from("/p/.env")];
        let out = "touch: cannot touch '/etc/x': Read-only file system\n\
                   bash: line 1: /home/u/.bashrc: Read-only file system\n\
                   cat: .env: Permission denied\n\
                   PermissionError: [Errno 13] Permission denied: '/p/.env'\n\
                   all good\n";
        let v = from_output(out, &masked);
        assert_eq!(v, ["deny file-write /etc/x", "deny file-write /home/u/.bashrc", "deny file-read /p/.env"], "{v:?}");
    }
}
