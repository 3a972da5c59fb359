//! Read: a file's lines in `cat -n` form.

use std::io::Read as _;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use rein_protocol::ContentBlock;

use crate::{Access, Effects, FileIdentity, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// Files larger than this must be read in pages (offset/limit).
const MAX_WHOLE_FILE_BYTES: u64 = 256 * 1024;

pub struct Read;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadInput {
    pub file_path: String,
    /// The first line to read (1-based).
    pub offset: Option<u64>,
    /// How many lines to read.
    pub limit: Option<u64>,
    /// A PDF's pages: "3", "1-5", "10-".
    pub pages: Option<String>,
}

impl Tool for Read {
    type Input = ReadInput;

    fn name(&self) -> &'static str {
        "Read"
    }

    /// It reads and changes nothing: a repeat of an earlier identical result is a pointer.
    fn collapses_repeats(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        format!(
            "Reads a file, up to {DEFAULT_LIMIT} lines (page long files with offset and limit); lines over \
             {MAX_LINE_CHARS} characters are truncated. Lines are numbered like `cat -n`: never copy those prefixes \
             into an edit. Shows images (png, jpeg, gif, webp), PDFs (more than {} pages: read a range with `pages`, \
             at most {} at a time) and Jupyter notebooks (cells with their outputs); cannot read directories (use \
             Glob). No need to read a file again after editing it: the edit's result shows the change. Results too \
             large for the conversation are saved to files you can read here.",
            rein_media::MAX_PAGES_WHOLE,
            rein_media::MAX_PAGES_PER_READ
        )
    }

    fn validate(&self, input: &ReadInput, _ctx: &ToolContext) -> Result<(), crate::InputError> {
        if !Path::new(&input.file_path).is_absolute() {
            return Err(format!("file_path must be an absolute path, got {:?}", input.file_path).into());
        }
        if input.limit == Some(0) {
            return Err("limit must be at least 1".into());
        }
        Ok(())
    }

    fn effects(&self, input: &ReadInput, ctx: &ToolContext) -> Effects {
        Effects::reading([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Read, field: "file_path" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["file_path"]
    }

    /// Never spilled: reading a spilled result must not spill it again.
    fn max_result_chars(&self) -> Option<usize> {
        None
    }

    async fn call(&self, input: ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let ctx = ctx.clone();
        tokio::task::spawn_blocking(move || read_file(&input, &ctx))
            .await
            .map_err(|e| ToolError::new(format!("Read failed: {e}")))?
    }
}

fn read_file(input: &ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let path = ctx.resolve(&input.file_path);
    let meta = std::fs::metadata(&path).map_err(|e| ToolError::new(format!("Cannot read {}: {e}", path.display())))?;
    if meta.is_dir() {
        return Err(ToolError::new(format!(
            "{} is a directory, not a file. Use Glob to find files in it, or `ls` through Bash to list it.",
            path.display()
        )));
    }
    // A pipe, socket or device would block the read (or never end): only files are read.
    if !meta.is_file() {
        return Err(ToolError::new(format!(
            "{} is not a regular file (a pipe, socket or device), so it is not read.",
            path.display()
        )));
    }
    match rein_media::kind_of(&path) {
        Some(rein_media::Kind::Image(_)) => return read_image(&path, meta.len(), ctx),
        Some(rein_media::Kind::Pdf) => return read_pdf(&path, meta.len(), input.pages.as_deref(), ctx),
        Some(rein_media::Kind::Notebook) if input.offset.is_none() && input.limit.is_none() => {
            return read_notebook(&path, meta.len(), ctx);
        }
        _ => {}
    }
    if input.pages.is_some() {
        return Err(ToolError::new(format!("`pages` is for PDFs; {} is not one.", path.display())));
    }
    let paged = input.offset.is_some() || input.limit.is_some();
    if !paged && meta.len() > MAX_WHOLE_FILE_BYTES {
        return Err(ToolError::new(format!(
            "{} is {} KB, more than the {} KB that can be read at once. Read it in pages with offset and limit, \
             or search it with Grep.",
            path.display(),
            meta.len() / 1024,
            MAX_WHOLE_FILE_BYTES / 1024
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    crate::open_checked::open_read(&path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| ToolError::new(format!("Cannot read {}: {e}", path.display())))?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::new(format!("{} is a binary file; Read shows text files only.", path.display())));
    }
    ctx.file_state.record(
        std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()),
        FileIdentity::of(meta.modified().ok(), &bytes),
    );
    if bytes.is_empty() {
        return Ok(ToolOutput::text(format!(
            "<system-reminder>{} exists but is empty.</system-reminder>",
            path.display()
        )));
    }
    let text = String::from_utf8_lossy(&bytes);
    let start = input.offset.unwrap_or(1).max(1) as usize;
    let limit = input.limit.map(|l| l as usize).unwrap_or(DEFAULT_LIMIT);
    let mut out = String::new();
    let mut total = 0;
    for (i, line) in text.lines().enumerate() {
        total = i + 1;
        let n = i + 1;
        if n < start || n >= start + limit {
            continue;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push_str(&format!("{n:>6}\t"));
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => {
                out.push_str(&line[..cut]);
                out.push_str("… [line truncated]");
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    if out.is_empty() {
        return Ok(ToolOutput::text(format!(
            "<system-reminder>{} has {total} lines; offset {start} is past the end.</system-reminder>",
            path.display()
        )));
    }
    let shown_end = (start + limit - 1).min(total);
    if shown_end < total {
        out.push_str(&format!("\n(Showing lines {start}-{shown_end} of {total}. Use offset to read more.)\n"));
    }
    if matches!(text, std::borrow::Cow::Owned(_)) {
        out.push_str("\n(The file is not valid UTF-8; invalid bytes are shown as U+FFFD.)\n");
    }
    Ok(ToolOutput::text(out))
}

/// The largest image, PDF or notebook file read (a PDF's pages are cut out of it).
const MAX_MEDIA_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// A file read whole as bytes (and remembered as read, so it may be edited).
fn read_bytes(path: &Path, size: u64, ctx: &ToolContext) -> Result<Vec<u8>, ToolError> {
    if size > MAX_MEDIA_FILE_BYTES {
        return Err(ToolError::new(format!(
            "{} is {} MB, more than the {} MB Read takes.",
            path.display(),
            size / (1024 * 1024),
            MAX_MEDIA_FILE_BYTES / (1024 * 1024)
        )));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    crate::open_checked::open_read(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| ToolError::new(format!("Cannot read {}: {e}", path.display())))?;
    ctx.file_state.record(
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        super::files::identity(path, &bytes),
    );
    Ok(bytes)
}

/// An image comes back as an image block the model can see, scaled and re-encoded
/// when it is over the API's limits.
fn read_image(path: &Path, size: u64, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let bytes = read_bytes(path, size, ctx)?;
    let fitted = rein_media::fit_image(&bytes).map_err(|e| ToolError::new(format!("{}: {e}", path.display())))?;
    Ok(ToolOutput::blocks(vec![fitted.block]))
}

/// A PDF comes back as a document block: whole, or the pages asked for.
fn read_pdf(path: &Path, size: u64, pages: Option<&str>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let bytes = read_bytes(path, size, ctx)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let pdf =
        rein_media::read_pdf(&bytes, pages, &name).map_err(|e| ToolError::new(format!("{}: {e}", path.display())))?;
    let note = format!("PDF {}: pages {}-{} of {}.", path.display(), pdf.sent.0, pdf.sent.1, pdf.pages);
    Ok(ToolOutput::blocks(vec![ContentBlock::text(note), pdf.block]))
}

/// A notebook comes back as its cells with their outputs, not its JSON.
fn read_notebook(path: &Path, size: u64, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let bytes = read_bytes(path, size, ctx)?;
    let cells = rein_media::render_notebook(&String::from_utf8_lossy(&bytes))
        .map_err(|e| ToolError::new(format!("{}: {e}", path.display())))?;
    Ok(ToolOutput::blocks(cells))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolResultContent;

    fn run(dir: &Path, input: ReadInput) -> Result<String, ToolError> {
        let ctx = ToolContext::new(dir.to_path_buf(), dir.to_path_buf());
        read_file(&input, &ctx).map(|o| match o.content {
            ToolResultContent::Text(t) => t,
            other => panic!("{other:?}"),
        })
    }

    fn input(p: &Path) -> ReadInput {
        ReadInput { file_path: p.display().to_string(), offset: None, limit: None, pages: None }
    }

    #[test]
    fn numbers_lines_like_cat_n_and_pages() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "one\ntwo\r\nthree\n").unwrap();
        assert_eq!(run(d.path(), input(&f)).unwrap(), "     1\tone\n     2\ttwo\n     3\tthree\n");
        let paged = run(d.path(), ReadInput { offset: Some(2), limit: Some(1), ..input(&f) }).unwrap();
        assert!(paged.starts_with("     2\ttwo\n"), "{paged}");
        assert!(paged.contains("Showing lines 2-2 of 3"), "{paged}");
    }

    #[test]
    fn directories_binaries_and_empty_files_are_explained() {
        let d = tempfile::tempdir().unwrap();
        assert!(run(d.path(), input(d.path())).unwrap_err().0.contains("is a directory"));
        let bin = d.path().join("b.bin");
        std::fs::write(&bin, [0u8, 1, 2]).unwrap();
        assert!(run(d.path(), input(&bin)).unwrap_err().0.contains("binary"));
        let empty = d.path().join("e");
        std::fs::write(&empty, "").unwrap();
        assert!(run(d.path(), input(&empty)).unwrap().contains("is empty"));
    }

    #[test]
    fn images_pdfs_and_notebooks_become_blocks() {
        use rein_protocol::ImageSource;
        let d = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(d.path().to_path_buf(), d.path().to_path_buf());
        let blocks = |p: &Path, pages: Option<&str>| match read_file(
            &ReadInput { pages: pages.map(str::to_string), ..input(p) },
            &ctx,
        ) {
            Ok(ToolOutput { content: ToolResultContent::Blocks(b), .. }) => Ok(b),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.0),
        };
        // A 1×1 PNG.
        let png = d.path().join("pixel.PNG");
        let pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        std::fs::write(&png, base64::Engine::decode(&base64::engine::general_purpose::STANDARD, pixel).unwrap())
            .unwrap();
        assert!(
            matches!(&blocks(&png, None).unwrap()[0], ContentBlock::Image { source: ImageSource::Base64 { media_type, data } }
            if media_type == "image/png" && data == pixel)
        );
        let fake = d.path().join("fake.png");
        std::fs::write(&fake, "not an image").unwrap();
        assert!(blocks(&fake, None).unwrap_err().contains("not an image"));

        let pdf = d.path().join("paper.pdf");
        std::fs::write(&pdf, rein_media::sample_pdf(12)).unwrap();
        assert!(blocks(&pdf, None).unwrap_err().contains("12 pages"));
        let got = blocks(&pdf, Some("2-4")).unwrap();
        assert!(matches!(&got[0], ContentBlock::Text { text } if text.contains("pages 2-4 of 12")), "{got:?}");
        assert!(matches!(&got[1], ContentBlock::Document { .. }));
        let txt = d.path().join("a.txt");
        std::fs::write(&txt, "x").unwrap();
        assert!(blocks(&txt, Some("1")).unwrap_err().contains("for PDFs"));

        let nb = d.path().join("nb.ipynb");
        std::fs::write(&nb, r#"{"cells": [{"id": "a", "cell_type": "code", "source": "1+1", "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"}}]}]}"#).unwrap();
        let cells = blocks(&nb, None).unwrap();
        assert_eq!(cells, [ContentBlock::text("<cell id=\"a\">1+1</cell id=\"a\">"), ContentBlock::text("2")]);
    }
}
