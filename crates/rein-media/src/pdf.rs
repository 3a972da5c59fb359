//! A PDF as a `document` block, as Claude Code reads one: whole when it has at most
//! [`MAX_PAGES_WHOLE`] pages, else only the `pages` asked for (at most
//! [`MAX_PAGES_PER_READ`] at a time), cut out of the file with lopdf.

use base64::Engine as _;
use lopdf::{Object, Stream, dictionary};
use rein_protocol::{ContentBlock, DocumentSource};

/// A PDF with more pages than this is read a range at a time (`pages`).
pub const MAX_PAGES_WHOLE: u32 = 10;
/// The most pages one read sends.
pub const MAX_PAGES_PER_READ: u32 = 20;
/// The largest PDF (or range of one) sent, before base64 (the API takes 32 MB a request).
pub const MAX_PDF_BYTES: usize = 20 * 1024 * 1024;

/// Why a PDF could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("not a readable PDF: {0}")]
    Unreadable(String),
    #[error(
        "it has {pages} pages, more than the {MAX_PAGES_WHOLE} read at once: read a range with `pages` (for example \
         \"1-5\"), at most {MAX_PAGES_PER_READ} pages at a time"
    )]
    TooManyPages { pages: u32 },
    #[error("`pages` {spec:?}: {why}")]
    BadRange { spec: String, why: String },
    #[error("{bytes} bytes is more than the {MAX_PDF_BYTES} bytes a PDF may have to be sent{hint}")]
    TooLarge { bytes: usize, hint: &'static str },
}

/// A PDF ready to send.
#[derive(Debug, Clone)]
pub struct Pdf {
    pub block: ContentBlock,
    /// How many pages the file has.
    pub pages: u32,
    /// The pages sent (1-based, inclusive).
    pub sent: (u32, u32),
}

/// The PDF in `bytes`, whole or the `pages` range ("3", "1-5", "10-"); `title` names it.
pub fn read_pdf(bytes: &[u8], pages: Option<&str>, title: &str) -> Result<Pdf, PdfError> {
    if !bytes.starts_with(b"%PDF-") && !bytes[..bytes.len().min(1024)].windows(5).any(|w| w == b"%PDF-") {
        return Err(PdfError::Unreadable("it does not start with %PDF-".into()));
    }
    let mut doc = load(bytes)?;
    let total = doc.get_pages().len() as u32;
    let (first, last) = match pages {
        None if total > MAX_PAGES_WHOLE => return Err(PdfError::TooManyPages { pages: total }),
        None => (1, total),
        Some(spec) => range(spec, total)?,
    };
    let data = if (first, last) == (1, total) {
        if bytes.len() > MAX_PDF_BYTES {
            return Err(PdfError::TooLarge { bytes: bytes.len(), hint: ": read it a range of pages at a time" });
        }
        bytes.to_vec()
    } else {
        let dropped: Vec<u32> = (1..=total).filter(|p| *p < first || *p > last).collect();
        doc.delete_pages(&dropped);
        doc.prune_objects();
        let mut out = Vec::new();
        doc.save_to(&mut out).map_err(|e| PdfError::Unreadable(e.to_string()))?;
        if out.len() > MAX_PDF_BYTES {
            return Err(PdfError::TooLarge { bytes: out.len(), hint: ": read fewer pages at a time" });
        }
        out
    };
    let data = base64::engine::general_purpose::STANDARD.encode(&data);
    Ok(Pdf {
        block: ContentBlock::Document {
            source: DocumentSource::Base64 { media_type: "application/pdf".into(), data },
            title: Some(title.to_string()),
        },
        pages: total,
        sent: (first, last),
    })
}

/// A PDF of `n` pages, each saying "Page N" (for tests and benchmarks).
pub fn sample_pdf(n: u32) -> Vec<u8> {
    let mut doc = lopdf::Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica"});
    let mut kids = Vec::new();
    for i in 1..=n {
        let text = format!("BT /F1 24 Tf 72 720 Td (Page {i}) Tj ET");
        let content = doc.add_object(Stream::new(dictionary! {}, text.into_bytes()));
        let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! {"Font" => dictionary! {"F1" => font}},
        });
        kids.push(Object::Reference(page));
    }
    doc.objects.insert(pages_id, Object::Dictionary(dictionary! {"Type" => "Pages", "Kids" => kids, "Count" => n}));
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    let _ = doc.save_to(&mut out);
    out
}

/// How many pages the PDF in `bytes` has.
pub fn page_count(bytes: &[u8]) -> Result<u32, PdfError> {
    Ok(load(bytes)?.get_pages().len() as u32)
}

/// The document, its cross-reference table rebuilt when the file's is missing or wrong
/// (as readers do); the first error when that does not help either.
fn load(bytes: &[u8]) -> Result<lopdf::Document, PdfError> {
    let first = match lopdf::Document::load_mem(bytes) {
        Ok(doc) if !doc.get_pages().is_empty() => return Ok(doc),
        Ok(doc) => Ok(doc),
        Err(e) => Err(PdfError::Unreadable(e.to_string())),
    };
    match crate::pdf_repair::rebuilt(bytes).and_then(|fixed| lopdf::Document::load_mem(&fixed).ok()) {
        Some(doc) if !doc.get_pages().is_empty() => Ok(doc),
        _ => first,
    }
}

/// `spec` as a page range of a `total`-page PDF.
fn range(spec: &str, total: u32) -> Result<(u32, u32), PdfError> {
    let bad = |why: String| PdfError::BadRange { spec: spec.to_string(), why };
    let number = |s: &str| s.trim().parse::<u32>().map_err(|_| bad(format!("{s:?} is not a page number")));
    let (first, last) = match spec.split_once('-') {
        Some((a, b)) if b.trim().is_empty() => (number(a)?, total),
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let n = number(spec)?;
            (n, n)
        }
    };
    if first == 0 || first > last {
        return Err(bad("pages are numbered from 1, first to last".into()));
    }
    if first > total {
        return Err(bad(format!("the PDF has {total} pages")));
    }
    let last = last.min(total);
    if last - first + 1 > MAX_PAGES_PER_READ {
        return Err(bad(format!("at most {MAX_PAGES_PER_READ} pages a read")));
    }
    Ok((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent_pages(p: &Pdf) -> u32 {
        let ContentBlock::Document { source: DocumentSource::Base64 { data, media_type }, .. } = &p.block else {
            panic!()
        };
        assert_eq!(media_type, "application/pdf");
        let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        lopdf::Document::load_mem(&bytes).unwrap().get_pages().len() as u32
    }

    #[test]
    fn a_short_pdf_is_sent_whole() {
        let bytes = sample_pdf(3);
        let p = read_pdf(&bytes, None, "a.pdf").unwrap();
        assert_eq!((p.pages, p.sent), (3, (1, 3)));
        assert_eq!(sent_pages(&p), 3);
    }

    #[test]
    fn a_long_pdf_needs_a_range_and_sends_only_those_pages() {
        let bytes = sample_pdf(30);
        assert!(matches!(read_pdf(&bytes, None, "a.pdf"), Err(PdfError::TooManyPages { pages: 30 })));
        let p = read_pdf(&bytes, Some("11-15"), "a.pdf").unwrap();
        assert_eq!((p.pages, p.sent, sent_pages(&p)), (30, (11, 15), 5));
        let p = read_pdf(&bytes, Some("25-"), "a.pdf").unwrap();
        assert_eq!(p.sent, (25, 30));
        assert_eq!(read_pdf(&bytes, Some("7"), "a.pdf").unwrap().sent, (7, 7));
        for bad in ["0-3", "5-2", "31", "1-21", "x"] {
            assert!(matches!(read_pdf(&bytes, Some(bad), "a.pdf"), Err(PdfError::BadRange { .. })), "{bad}");
        }
    }

    #[test]
    fn what_is_not_a_pdf_is_refused() {
        assert!(matches!(read_pdf(b"hello", None, "a.pdf"), Err(PdfError::Unreadable(_))));
        assert!(matches!(read_pdf(b"%PDF-1.4 broken", None, "a.pdf"), Err(PdfError::Unreadable(_))));
    }

    /// A file whose cross-reference table points at the wrong place, or that has none,
    /// is read as readers read it (the table rebuilt from the objects); the file itself
    /// is what is sent.
    #[test]
    fn a_pdf_with_a_broken_or_missing_cross_reference_table_is_read() {
        let good = sample_pdf(3);
        let text = String::from_utf8_lossy(&good).into_owned();
        let xref = text.rfind("startxref").unwrap();
        // The table is said to start where it does not.
        let mut broken = good[..xref].to_vec();
        broken.extend_from_slice(b"startxref\n9\n%%EOF\n");
        // No table (lopdf writes it as a stream object, the last one), no trailer: the
        // catalogue is found by its type.
        let table = text.rfind("/Type/XRef").unwrap();
        let header = text[..table].rfind(" 0 obj").unwrap();
        let missing = good[..text[..header].rfind('\n').unwrap() + 1].to_vec();
        for (name, bytes) in [("broken", &broken), ("missing", &missing)] {
            assert!(
                lopdf::Document::load_mem(bytes).map_or(true, |d| d.get_pages().is_empty()),
                "{name}: lopdf reads it"
            );
            let pdf = read_pdf(bytes, None, "x.pdf").unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(pdf.pages, 3, "{name}");
            let ContentBlock::Document { source: DocumentSource::Base64 { data, .. }, .. } = &pdf.block else {
                panic!()
            };
            assert_eq!(
                base64::engine::general_purpose::STANDARD.decode(data).unwrap(),
                *bytes,
                "{name}: sent as it is"
            );
            assert_eq!(sent_pages(&read_pdf(bytes, Some("2-3"), "x.pdf").unwrap()), 2, "{name}: a range");
            assert_eq!(page_count(bytes).unwrap(), 3);
        }
    }
}
