//! Read: a file's lines in `cat -n` form.

use std::io::Read as _;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use base64::Engine as _;
use rein_protocol::{ContentBlock, ImageSource};

use crate::{Access, Effects, FileIdentity, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// Files larger than this must be read in pages (offset/limit).
const MAX_WHOLE_FILE_BYTES: u64 = 256 * 1024;
/// The API accepts images up to 5 MB (base64 grows them by a third).
const MAX_IMAGE_BYTES: u64 = 3_750_000;

pub struct Read;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadInput {
    pub file_path: String,
    /// The line to start at (1-based), for files too large to read at once.
    pub offset: Option<u64>,
    /// How many lines to read.
    pub limit: Option<u64>,
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
             into an edit. Shows images; cannot read directories (use Glob)."
        )
    }

    fn validate(&self, input: &ReadInput, _ctx: &ToolContext) -> Result<(), String> {
        if !Path::new(&input.file_path).is_absolute() {
            return Err(format!("file_path must be an absolute path, got {:?}", input.file_path));
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
    if let Some(media_type) = image_type(&path) {
        return read_image(&path, meta.len(), media_type, ctx);
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

fn image_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// An image comes back as an image block the model can see.
fn read_image(path: &Path, size: u64, media_type: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    if size > MAX_IMAGE_BYTES {
        return Err(ToolError::new(format!(
            "{} is {} KB; images larger than {} KB cannot be sent to the model.",
            path.display(),
            size / 1024,
            MAX_IMAGE_BYTES / 1024
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| ToolError::new(format!("Cannot read {}: {e}", path.display())))?;
    ctx.file_state.record(
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        super::files::identity(path, &bytes),
    );
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(ToolOutput::blocks(vec![ContentBlock::Image {
        source: ImageSource::Base64 { media_type: media_type.to_string(), data },
    }]))
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
        ReadInput { file_path: p.display().to_string(), offset: None, limit: None }
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
    fn images_become_image_blocks() {
        let d = tempfile::tempdir().unwrap();
        let png = d.path().join("pixel.PNG");
        std::fs::write(&png, [0x89, b'P', b'N', b'G', 0, 1]).unwrap();
        let ctx = ToolContext::new(d.path().to_path_buf(), d.path().to_path_buf());
        let out = read_file(&input(&png), &ctx).unwrap();
        let ToolResultContent::Blocks(blocks) = out.content else { panic!() };
        assert!(matches!(&blocks[0], ContentBlock::Image { source: ImageSource::Base64 { media_type, data } }
            if media_type == "image/png" && data == "iVBORwAB"));
    }
}
