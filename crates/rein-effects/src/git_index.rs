//! The paths a repository tracks, read from its index file as git writes it (versions 2,
//! 3 and 4, SHA-1 or SHA-256): which files `git diff`/`git show` can print without a
//! path naming them, and which entries are nested repositories (gitlinks) that
//! `git status` and `git diff` recurse into, loading their configuration.

use std::path::Path;

/// The mode of a gitlink entry (a nested repository).
pub(crate) const GITLINK: u32 = 0o160000;

/// One entry of the index: its mode and its path relative to the work tree's top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub mode: u32,
    pub path: String,
}

/// The entries of the index at `git_dir/index`; `None` when it cannot be read exactly
/// (a missing index is an empty one).
pub(crate) fn entries(git_dir: &Path, sha256: bool) -> Option<Vec<Entry>> {
    let bytes = match std::fs::read(git_dir.join("index")) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Vec::new()),
        Err(_) => return None,
    };
    parse(&bytes, if sha256 { 32 } else { 20 })
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn parse(b: &[u8], hash: usize) -> Option<Vec<Entry>> {
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(b, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(b, 8)? as usize;
    let mut out = Vec::with_capacity(count.min(1 << 20));
    let mut at = 12;
    let mut prev = String::new();
    for _ in 0..count {
        let start = at;
        let mode = be32(b, at + 24)?;
        at += 40 + hash;
        let flags = u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let path = if version == 4 {
            // A varint: how many bytes of the previous path to drop, then the rest.
            let (mut strip, mut byte) = (0usize, *b.get(at)?);
            at += 1;
            strip = (strip << 7) | usize::from(byte & 0x7f);
            while byte & 0x80 != 0 {
                byte = *b.get(at)?;
                at += 1;
                strip = ((strip + 1) << 7) | usize::from(byte & 0x7f);
            }
            let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
            let keep = prev.len().checked_sub(strip)?;
            let mut p = prev.get(..keep)?.to_string();
            p.push_str(std::str::from_utf8(&b[at..end]).ok()?);
            at = end + 1;
            p
        } else {
            let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
            let p = std::str::from_utf8(&b[at..end]).ok()?.to_string();
            // Entries are padded with NULs to a multiple of eight bytes.
            let len = end - start;
            at = start + (len + 8) / 8 * 8;
            p
        };
        prev.clone_from(&path);
        out.push(Entry { mode, path });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git").args(args).current_dir(dir).output().unwrap().status.success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn real_indexes_of_every_version_are_read() {
        for version in ["2", "3", "4"] {
            let d = tempfile::tempdir().unwrap();
            git(d.path(), &["init", "-q"]);
            std::fs::create_dir_all(d.path().join("src/deep")).unwrap();
            for f in [".env", "README.md", "src/a.rs", "src/deep/b.rs", "src/deep/bb.rs"] {
                std::fs::write(d.path().join(f), "x").unwrap();
            }
            let inner = d.path().join("inner");
            std::fs::create_dir_all(&inner).unwrap();
            git(&inner, &["init", "-q"]);
            std::fs::write(inner.join("f"), "x").unwrap();
            git(&inner, &["add", "f"]);
            git(&inner, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]);
            git(d.path(), &["add", "."]);
            git(d.path(), &["update-index", "--index-version", version]);
            let e = entries(&d.path().join(".git"), false).unwrap();
            let paths: Vec<&str> = e.iter().map(|e| e.path.as_str()).collect();
            assert_eq!(
                paths,
                [".env", "README.md", "inner", "src/a.rs", "src/deep/b.rs", "src/deep/bb.rs"],
                "v{version}"
            );
            assert_eq!(e[2].mode, GITLINK, "v{version}");
        }
    }
}
