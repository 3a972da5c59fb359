//! Word wrap for styled lines, by display width: rows of at most `width` columns broken
//! at spaces (a word longer than a row is cut), every continuation row indented like the
//! line's own text — its leading spaces, a list marker, the `⎿` gutter, a quote bar —
//! so indents and hanging indents survive; tabs expanded, control characters dropped.
//! Everything the UI shows goes through here: the scrollback, the live area, dialogs
//! and the Ctrl+O view.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Columns a tab advances to (the next multiple of this).
const TAB: usize = 4;
/// A hanging indent never leaves fewer columns than this for the text.
const MIN_TEXT: usize = 12;

/// Wrap `line` to `width`, continuation rows indented by the line's own indent
/// ([`hanging_indent`]).
pub(crate) fn wrap(line: &Line<'_>, width: usize) -> Vec<Line<'static>> {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    wrap_indent(line, width, hanging_indent(&text), None)
}

/// `line` on one row of `width` columns: cut with `…` when longer, a command's colours
/// kept and its other escape sequences dropped.
pub(crate) fn clip(line: &Line<'_>, width: usize) -> Line<'static> {
    let cells = cells(line);
    let total: usize = cells.iter().map(|c| c.2).sum();
    let room = if total > width { width.saturating_sub(1) } else { width };
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (c, style, w) in cells {
        if used + w > room {
            break;
        }
        used += w;
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push(c),
            _ => spans.push(Span::styled(c.to_string(), style)),
        }
    }
    if total > width && width > 0 {
        spans.push(Span::raw("…"));
    }
    Line::from(spans)
}

/// Wrap `line` to `width`; continuation rows start with `indent` columns (of `gutter`'s
/// text when given — a quote's bar —, spaces otherwise).
pub(crate) fn wrap_indent(
    line: &Line<'_>,
    width: usize,
    indent: usize,
    gutter: Option<Span<'static>>,
) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent + MIN_TEXT > width { 0 } else { indent };
    let cells = cells(line);
    let total: usize = cells.iter().map(|c| c.2).sum();
    if total <= width {
        return vec![join(&cells, line.style)];
    }
    let mut rows: Vec<Vec<(char, Style, usize)>> = Vec::new();
    let mut row: Vec<(char, Style, usize)> = Vec::new();
    let mut used = 0;
    let lead = || -> Vec<(char, Style, usize)> {
        match &gutter {
            Some(g) => g.content.chars().map(|c| (c, g.style, c.width().unwrap_or(0))).collect(),
            None => vec![(' ', Style::default(), 1); indent],
        }
    };
    for word in words(&cells) {
        let w: usize = word.iter().map(|c| c.2).sum();
        let space = word.first().is_some_and(|c| c.0 == ' ');
        if used + w <= width {
            row.extend_from_slice(word);
            used += w;
            continue;
        }
        if space {
            // A break: the spaces at it are not carried to the next row.
            rows.push(std::mem::take(&mut row));
            row = lead();
            used = row.iter().map(|c| c.2).sum();
            continue;
        }
        let room = width.saturating_sub(indent).max(1);
        if w <= room && used > indent {
            rows.push(std::mem::take(&mut row));
            row = lead();
            used = row.iter().map(|c| c.2).sum();
            row.extend_from_slice(word);
            used += w;
            continue;
        }
        // A word longer than a row: cut it where the row ends.
        for &c in word {
            if used + c.2 > width && used > 0 {
                rows.push(std::mem::take(&mut row));
                row = lead();
                used = row.iter().map(|c| c.2).sum();
            }
            row.push(c);
            used += c.2;
        }
    }
    if row.iter().any(|c| c.0 != ' ') || rows.is_empty() {
        rows.push(row);
    }
    rows.iter()
        .map(|r| {
            let end = r.iter().rposition(|c| c.0 != ' ').map_or(0, |i| i + 1);
            join(&r[..end], line.style)
        })
        .collect()
}

/// The columns a continuation row is indented by: the leading spaces, plus a list
/// marker (`- `, `* `, `• `, `1. `), the tool gutter (`⎿  `), the answer bullet (`⏺ `)
/// or a diff line's number and sign.
pub(crate) fn hanging_indent(text: &str) -> usize {
    let lead = text.len() - text.trim_start_matches(' ').len();
    let rest = &text[lead..];
    for marker in ["⎿  ", "⏺ ", "- ", "* ", "• ", "◦ ", "▪ ", "☐ ", "☒ ", "❯ ", "> "] {
        if rest.starts_with(marker) {
            return lead + marker.chars().map(|c| c.width().unwrap_or(0)).sum::<usize>();
        }
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && (rest[digits..].starts_with(". ") || rest[digits..].starts_with(") ")) {
        return lead + digits + 2;
    }
    // A numbered diff line: `  15 - text`, `  16 + text`, `  17   text`.
    if digits > 0 && [" - ", " + ", "   "].iter().any(|m| rest[digits..].starts_with(m)) {
        return lead + digits + 3;
    }
    lead
}

/// Characters with their style and width; tabs expanded, a command's colours taken
/// as styles and its other escape sequences and control characters dropped.
fn cells(line: &Line<'_>) -> Vec<(char, Style, usize)> {
    let mut out = Vec::new();
    let mut col = 0;
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let mut chars = span.content.chars().peekable();
        let mut sgr = Style::default();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                crate::escapes::read(&mut chars, &mut sgr);
                continue;
            }
            let style = style.patch(sgr);
            if c == '\t' {
                let n = TAB - col % TAB;
                out.extend(std::iter::repeat_n((' ', style, 1), n));
                col += n;
                continue;
            }
            if c.is_control() {
                continue;
            }
            let w = c.width().unwrap_or(0);
            out.push((c, style, w));
            col += w;
        }
    }
    out
}

/// Runs of spaces and runs of everything else.
fn words(cells: &[(char, Style, usize)]) -> Vec<&[(char, Style, usize)]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=cells.len() {
        if i == cells.len() || (cells[i].0 == ' ') != (cells[start].0 == ' ') {
            if start < i {
                out.push(&cells[start..i]);
            }
            start = i;
        }
    }
    out
}

/// Cells back into a line, one span per run of one style.
fn join(cells: &[(char, Style, usize)], style: Style) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current: Option<Style> = None;
    for &(c, s, _) in cells {
        if current.is_some_and(|x| x != s) {
            spans.push(Span::styled(std::mem::take(&mut text), current.unwrap_or_default()));
        }
        current = Some(s);
        text.push(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, current.unwrap_or_default()));
    }
    Line::from(spans).style(style)
}

/// Wrap every line.
pub(crate) fn wrap_all(lines: impl IntoIterator<Item = Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|l| wrap(&l, width)).collect()
}

#[cfg(test)]
#[path = "wrap_tests.rs"]
mod tests;
