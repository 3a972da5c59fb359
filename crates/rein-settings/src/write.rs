//! The one door through which rein writes a settings or state file (`settings.json`,
//! `settings.local.json`, `~/.claude.json`, the plugin records): the new text goes to a
//! temporary file created fresh beside the target — a random name, opened with
//! `O_EXCL`, so a link planted in the folder under a guessable name is never followed —
//! then renamed over the target, so no reader ever sees half a file. What it wrote is
//! remembered ([`written_by_rein`]), so that a watcher of the settings can tell rein's
//! own changes (a remembered rule, `/output-style`) from the person's.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// A file as rein left it: its modification time and length.
pub type Stamp = (Option<SystemTime>, u64);

/// The files this process wrote, as it left each (the last write of each).
static OWN_WRITES: Mutex<Vec<(PathBuf, Stamp)>> = Mutex::new(Vec::new());

/// How rein last left `path`, if this process wrote it.
pub fn written_by_rein(path: &Path) -> Option<Stamp> {
    let own = OWN_WRITES.lock().unwrap_or_else(|p| p.into_inner());
    own.iter().find(|(p, _)| p == path).map(|(_, s)| *s)
}

fn remember(path: &Path) {
    let Ok(meta) = std::fs::metadata(path) else { return };
    let stamp = (meta.modified().ok(), meta.len());
    let mut own = OWN_WRITES.lock().unwrap_or_else(|p| p.into_inner());
    own.retain(|(p, _)| p != path);
    own.push((path.to_path_buf(), stamp));
}

/// Replace the file at `path` with `text`, creating its folder if needed.
pub fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut file = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_data()?;
    file.persist(path).map_err(|e| e.error)?;
    remember(path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        let target = dir.path().join("settings.local.json");
        // Every name the old writer would have used.
        for guess in [format!(".settings.local.json.{}.tmp", std::process::id()), "settings.local.rein-tmp".into()] {
            std::os::unix::fs::symlink(&victim, dir.path().join(guess)).unwrap();
        }
        write_file(&target, "{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}\n");
        assert!(!std::fs::symlink_metadata(&target).unwrap().file_type().is_symlink());
    }
}
