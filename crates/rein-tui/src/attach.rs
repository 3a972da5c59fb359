//! Images in the prompt: Ctrl+V takes one from the clipboard ([`crate::clipboard`]), and
//! a pasted or dragged path to an image file attaches that file. Each shows in the input box as `[Image #N]` and is sent after
//! the text while its marker is still there, fitted under the API's limits.

use std::path::{Path, PathBuf};

use rein_protocol::ContentBlock;

/// The images attached to prompts not yet sent, by marker.
#[derive(Debug, Default)]
pub(crate) struct Attachments {
    next: usize,
    /// Marker, what the person is shown of it, the block sent.
    images: Vec<(String, String, ContentBlock)>,
}

impl Attachments {
    /// Keep `bytes` (any image) fitted under the limits; the marker to show for it.
    pub(crate) fn add(&mut self, bytes: &[u8]) -> Result<String, rein_media::ImageError> {
        let fitted = rein_media::fit_image(bytes)?;
        self.next += 1;
        let marker = format!("[Image #{}]", self.next);
        let size = if fitted.resized() {
            format!("{}×{}, sent as {}×{}", fitted.original.0, fitted.original.1, fitted.width, fitted.height)
        } else {
            format!("{}×{}", fitted.width, fitted.height)
        };
        let shown = format!("{marker} {size}, {} KB", fitted.bytes.div_ceil(1024));
        self.images.push((marker.clone(), shown, fitted.block));
        Ok(marker)
    }

    /// The images whose markers `text` holds, taken out to be sent with it.
    pub(crate) fn take_for(&mut self, text: &str) -> Vec<(String, ContentBlock)> {
        let (sent, kept): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.images).into_iter().partition(|(marker, ..)| text.contains(marker.as_str()));
        self.images = kept;
        sent.into_iter().map(|(_, shown, block)| (shown, block)).collect()
    }
}

/// The image file a paste names, if it names one: a path as a terminal pastes a dragged
/// file — plain, quoted, with `\ ` escapes or as a `file://` URL — relative to `cwd`.
pub(crate) fn image_path(pasted: &str, cwd: &Path) -> Option<PathBuf> {
    let text = pasted.trim();
    if text.is_empty() || text.contains('\n') {
        return None;
    }
    let unquoted = ['\'', '"']
        .iter()
        .find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)))
        .map(str::to_string)
        .unwrap_or_else(|| text.replace("\\ ", " "));
    let path = unquoted.strip_prefix("file://").unwrap_or(&unquoted);
    let path = cwd.join(path);
    matches!(rein_media::kind_of(&path), Some(rein_media::Kind::Image(_))).then_some(path).filter(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_paths_to_images_are_recognised_however_the_terminal_quotes_them() {
        let d = tempfile::tempdir().unwrap();
        let shot = d.path().join("Screen Shot.png");
        std::fs::write(&shot, "x").unwrap();
        std::fs::write(d.path().join("notes.txt"), "x").unwrap();
        let cwd = d.path();
        for pasted in [
            format!("'{}'", shot.display()),
            format!("\"{}\" ", shot.display()),
            shot.display().to_string().replace(' ', "\\ "),
            format!("file://{}", shot.display()),
            "Screen\\ Shot.png".to_string(),
        ] {
            assert_eq!(image_path(&pasted, cwd), Some(shot.clone()), "{pasted}");
        }
        assert_eq!(image_path("notes.txt", cwd), None);
        assert_eq!(image_path("missing.png", cwd), None);
        assert_eq!(image_path("look at Screen Shot.png\nplease", cwd), None);
    }

    #[test]
    fn images_go_with_the_prompt_that_still_shows_their_marker() {
        let mut a = Attachments::default();
        let one = a.add(&rein_media::sample_png(4, 4)).unwrap();
        let two = a.add(&rein_media::sample_png(4, 4)).unwrap();
        assert_eq!((one.as_str(), two.as_str()), ("[Image #1]", "[Image #2]"));
        assert!(a.add(b"not an image").is_err());
        assert_eq!(a.take_for("what is [Image #2]?").len(), 1);
        assert_eq!(a.take_for("and [Image #2]?").len(), 0, "sent once");
        let first = a.take_for("[Image #1]");
        assert_eq!(first.len(), 1);
        // What the person is shown of it: the marker and the size.
        assert_eq!(first[0].0, "[Image #1] 4×4, 1 KB");
    }
}
