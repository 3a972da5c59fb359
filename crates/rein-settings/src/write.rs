//! The one door through which rein writes a settings or state file (`settings.json`,
//! `settings.local.json`, `~/.claude.json`, the plugin records): the new text goes to a
//! temporary file created fresh beside the target — a random name, opened with
//! `O_EXCL`, so a link planted in the folder under a guessable name is never followed —
//! then renamed over the target, so no reader ever sees half a file.

use std::io::Write;
use std::path::Path;

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
