//! Images, PDFs and notebooks as the model reads them. An image is fitted under the
//! Messages API's limits (its long edge at most 2 000 pixels, at most 3.75 MB before
//! base64) and re-encoded only when it must be; a PDF becomes a `document` block of the
//! pages asked for; a notebook becomes its cells in order, each with its source and its
//! outputs (text, errors, images as image blocks) instead of its JSON.
//!
//! Used by the Read tool and by the prompt's attachments (`@shot.png`, a pasted image).

mod image_fit;
mod notebook;
mod pdf;
mod pdf_repair;

use std::path::Path;

pub use image_fit::{Fitted, MAX_EDGE, MAX_IMAGE_BYTES, fit_image, sample_png, sample_screenshot};
pub use notebook::{NotebookError, render_notebook};
pub use pdf::{MAX_PAGES_PER_READ, MAX_PAGES_WHOLE, MAX_PDF_BYTES, Pdf, PdfError, page_count, read_pdf, sample_pdf};

/// What a file is, to the model, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An image the API takes (its media type).
    Image(&'static str),
    Pdf,
    Notebook,
}

/// What the file at `path` is, by its extension; `None` for anything read as text.
pub fn kind_of(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => Kind::Image("image/png"),
        "jpg" | "jpeg" => Kind::Image("image/jpeg"),
        "gif" => Kind::Image("image/gif"),
        "webp" => Kind::Image("image/webp"),
        "pdf" => Kind::Pdf,
        "ipynb" => Kind::Notebook,
        _ => return None,
    })
}

/// Why an image could not be attached.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("not an image the model can see (png, jpeg, gif or webp): {0}")]
    Unknown(String),
    #[error("the image could not be decoded: {0}")]
    Decode(String),
    #[error("the image could not be made small enough: {0}")]
    Encode(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_extension() {
        assert_eq!(kind_of(Path::new("/a/Shot.PNG")), Some(Kind::Image("image/png")));
        assert_eq!(kind_of(Path::new("paper.pdf")), Some(Kind::Pdf));
        assert_eq!(kind_of(Path::new("nb.ipynb")), Some(Kind::Notebook));
        assert_eq!(kind_of(Path::new("main.rs")), None);
        assert_eq!(kind_of(Path::new("Makefile")), None);
    }
}
