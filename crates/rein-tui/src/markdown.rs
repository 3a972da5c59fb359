//! Markdown as a terminal draws it, line by line as an answer streams: headings bold,
//! ordered and nested lists with hanging indents, quotes behind a bar, emphasis, inline
//! code and links styled (pulldown-cmark reads the inline part), code fences highlighted
//! without the fences, rules as a line, and tables drawn with box characters, their
//! columns fitted to the window (a table is held until its last row has arrived).
//! Everything is wrapped to the width here, so the scrollback shows what was drawn.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::wrap;

/// The block state between lines.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    /// Inside a fenced code block of this language.
    code: Option<String>,
    /// Table rows held until the table ends.
    table: Vec<String>,
    /// The held table as last drawn: (rows, width, lines) — a frame redraws it only
    /// when a row has arrived or the window changed.
    drawn: std::cell::RefCell<Option<(usize, usize, Vec<Line<'static>>)>>,
}

impl Blocks {
    /// One complete source line: the lines it renders to now (none while a table is
    /// being collected, or for a fence).
    pub(crate) fn line(&mut self, source: &str, width: usize) -> Vec<Line<'static>> {
        let trimmed = source.trim_start();
        if let Some(fence) = trimmed.strip_prefix("```").or_else(|| trimmed.strip_prefix("~~~")) {
            let out = self.end_table(width);
            self.code = match self.code {
                Some(_) => None,
                None => Some(fence.trim().to_string()),
            };
            // A fence itself shows as nothing.
            return out;
        }
        if let Some(lang) = &self.code {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(crate::highlight::line(source, lang));
            return wrap::wrap_indent(&Line::from(spans), width, 2, None);
        }
        if is_table_row(trimmed) {
            self.table.push(trimmed.to_string());
            return Vec::new();
        }
        let mut out = self.end_table(width);
        out.extend(block(source, width));
        out
    }

    /// The message ended: what is still held.
    pub(crate) fn finish(&mut self, width: usize) -> Vec<Line<'static>> {
        let out = self.end_table(width);
        *self = Blocks::default();
        out
    }

    /// What is held but not final (a table still growing), as it would show now.
    pub(crate) fn pending(&self, width: usize) -> Vec<Line<'static>> {
        if self.table.is_empty() {
            return Vec::new();
        }
        let mut drawn = self.drawn.borrow_mut();
        if let Some((rows, w, lines)) = drawn.as_ref()
            && *rows == self.table.len()
            && *w == width
        {
            return lines.clone();
        }
        let lines = table(&self.table, width);
        *drawn = Some((self.table.len(), width, lines.clone()));
        lines
    }

    fn end_table(&mut self, width: usize) -> Vec<Line<'static>> {
        if self.table.is_empty() {
            return Vec::new();
        }
        let rows = std::mem::take(&mut self.table);
        table(&rows, width)
    }
}

/// Render a whole text (a plan, a resumed answer).
pub(crate) fn render(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut blocks = Blocks::default();
    let mut out: Vec<Line<'static>> = text.lines().flat_map(|l| blocks.line(l, width)).collect();
    out.extend(blocks.finish(width));
    out
}

fn is_table_row(trimmed: &str) -> bool {
    trimmed.starts_with('|') && trimmed.len() > 1
}

/// One line outside code and tables.
fn block(source: &str, width: usize) -> Vec<Line<'static>> {
    let lead = source.len() - source.trim_start_matches([' ', '\t']).len();
    let text = &source[lead..];
    if text.is_empty() {
        return vec![Line::from("")];
    }
    let dim = Style::default().add_modifier(Modifier::DIM);
    // Headings.
    let hashes = text.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && text[hashes..].starts_with(' ') {
        let mut style = Style::default().add_modifier(Modifier::BOLD);
        if hashes == 1 {
            style = style.add_modifier(Modifier::UNDERLINED);
        }
        let spans = inline(text[hashes..].trim(), style);
        return wrap::wrap_indent(&Line::from(spans), width, 0, None);
    }
    // A rule.
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() >= 3 && ["-", "*", "_"].iter().any(|m| compact.chars().all(|c| c.to_string() == *m)) {
        return vec![Line::from(Span::styled("─".repeat(width.min(80)), dim))];
    }
    // Quotes, nested ones with a bar each.
    if text.starts_with('>') {
        let depth = text.chars().take_while(|c| *c == '>' || *c == ' ').filter(|c| *c == '>').count();
        let rest = text.trim_start_matches(['>', ' ']);
        let bar = "│ ".repeat(depth);
        let mut spans = vec![Span::styled(bar.clone(), dim)];
        spans.extend(inline(rest, Style::default().add_modifier(Modifier::ITALIC)));
        let gutter = Span::styled(bar.clone(), dim);
        return wrap::wrap_indent(&Line::from(spans), width, bar.chars().count(), Some(gutter));
    }
    // List items: the marker drawn, the text hanging after it.
    let indent = " ".repeat(lead.min(12));
    if let Some((marker, rest)) = list_item(text, lead) {
        let mut spans = vec![Span::raw(format!("{indent}{marker} "))];
        let at = indent.len() + marker.chars().count() + 1;
        spans.extend(inline(rest, Style::default()));
        return wrap::wrap_indent(&Line::from(spans), width, at, None);
    }
    let mut spans = vec![Span::raw(indent.clone())];
    spans.extend(inline(text, Style::default()));
    wrap::wrap_indent(&Line::from(spans), width, indent.len(), None)
}

/// `- x`, `* x`, `+ x`, `1. x`, `1) x`, `- [ ] x`: the marker to draw and the text.
fn list_item(text: &str, lead: usize) -> Option<(String, &str)> {
    let bullets = ["•", "◦", "▪"];
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = text.strip_prefix(m) {
            let rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix("[ ] ") {
                return Some(("☐".into(), r));
            }
            if let Some(r) = rest.strip_prefix("[x] ").or_else(|| rest.strip_prefix("[X] ")) {
                return Some(("☒".into(), r));
            }
            return Some((bullets[(lead / 2) % bullets.len()].to_string(), rest));
        }
    }
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let after = &text[digits..];
        if after.starts_with(". ") || after.starts_with(") ") {
            return Some((format!("{}.", &text[..digits]), after[2..].trim_start()));
        }
    }
    None
}

/// The inline part: emphasis, strong, code, strikethrough, links — over `base`.
pub(crate) fn inline(text: &str, base: Style) -> Vec<Span<'static>> {
    // Read as inline text only: a leading marker that would start a block is escaped.
    let text = text.trim_start();
    let mut source = String::with_capacity(text.len() + 2);
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if text.starts_with(['#', '>', '=']) || ["- ", "+ ", "* "].iter().any(|m| text.starts_with(m)) {
        source.push('\\');
        source.push_str(text);
    } else if digits > 0 && (text[digits..].starts_with(". ") || text[digits..].starts_with(") ")) {
        source.push_str(&text[..digits]);
        source.push('\\');
        source.push_str(&text[digits..]);
    } else {
        source.push_str(text);
    }
    let mut out = Vec::new();
    let mut styles = vec![base];
    let mut links: Vec<(String, usize)> = Vec::new();
    let top = |s: &Vec<Style>| s.last().copied().unwrap_or_default();
    for event in Parser::new_ext(&source, Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(t) => out.push(Span::styled(t.into_string(), top(&styles))),
            Event::Code(t) => out.push(Span::styled(t.into_string(), top(&styles).fg(crate::theme::palette().accent))),
            Event::SoftBreak | Event::HardBreak => out.push(Span::styled(" ", top(&styles))),
            Event::Html(t) | Event::InlineHtml(t) => out.push(Span::styled(t.into_string(), top(&styles))),
            Event::Start(Tag::Emphasis) => styles.push(top(&styles).add_modifier(Modifier::ITALIC)),
            Event::Start(Tag::Strong) => styles.push(top(&styles).add_modifier(Modifier::BOLD)),
            Event::Start(Tag::Strikethrough) => styles.push(top(&styles).add_modifier(Modifier::CROSSED_OUT)),
            Event::Start(Tag::Link { dest_url, .. }) => {
                links.push((dest_url.into_string(), out.len()));
                styles.push(top(&styles).fg(crate::theme::palette().link).add_modifier(Modifier::UNDERLINED));
            }
            Event::Start(Tag::Image { .. }) => {
                out.push(Span::styled("[image: ", top(&styles)));
                styles.push(top(&styles));
            }
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough) => {
                styles.pop();
            }
            Event::End(TagEnd::Image) => {
                styles.pop();
                out.push(Span::styled("]", top(&styles)));
            }
            Event::End(TagEnd::Link) => {
                styles.pop();
                let (url, from) = links.pop().unwrap_or_default();
                let shown: String = out[from.min(out.len())..].iter().map(|s| s.content.as_ref()).collect();
                if !url.is_empty() && shown != url && !url.starts_with('#') {
                    out.push(Span::styled(format!(" ({url})"), top(&styles).add_modifier(Modifier::DIM)));
                }
            }
            _ => {}
        }
    }
    out
}

/// A table drawn with box characters, columns fitted to `width`; cells wrap inside
/// their column. A table too wide even for narrow columns shows as rows of cells.
fn table(rows: &[String], width: usize) -> Vec<Line<'static>> {
    let split = |row: &str| -> Vec<String> {
        let inner = row.trim().trim_start_matches('|');
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => cell.push(chars.next().unwrap_or('|')),
                '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
                _ => cell.push(c),
            }
        }
        cells.push(cell.trim().to_string());
        cells
    };
    let is_rule = |cells: &[String]| {
        cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
            && cells.iter().any(|c| c.contains('-'))
    };
    let mut parsed: Vec<Vec<String>> = rows.iter().map(|r| split(r)).collect();
    let mut align: Vec<char> = Vec::new();
    let mut header = false;
    if parsed.len() > 1 && is_rule(&parsed[1]) {
        align = parsed[1]
            .iter()
            .map(|c| match (c.starts_with(':'), c.ends_with(':')) {
                (true, true) => 'c',
                (false, true) => 'r',
                _ => 'l',
            })
            .collect();
        parsed.remove(1);
        header = true;
    }
    let cols = parsed.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let cells: Vec<Vec<Line<'static>>> = parsed
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let style = if header && r == 0 { Style::default().add_modifier(Modifier::BOLD) } else { Style::default() };
            (0..cols).map(|c| Line::from(inline(row.get(c).map_or("", String::as_str), style))).collect()
        })
        .collect();
    let natural: Vec<usize> =
        (0..cols).map(|c| cells.iter().map(|row| row[c].width()).max().unwrap_or(0).max(1)).collect();
    // A column is never narrower than its longest word: words are not broken.
    let longest_word: Vec<usize> = (0..cols)
        .map(|c| {
            let words = cells.iter().flat_map(|row| {
                let text: String = row[c].spans.iter().map(|s| s.content.as_ref()).collect();
                text.split_whitespace().map(unicode_width::UnicodeWidthStr::width).collect::<Vec<_>>()
            });
            words.max().unwrap_or(1).max(1)
        })
        .collect();
    let frame = 3 * cols + 1;
    let room = width.saturating_sub(frame);
    let widths = fit(&natural, &longest_word, room);
    let Some(widths) = widths else {
        // No room for columns: each row as `a · b · c`, wrapped.
        return cells
            .into_iter()
            .flat_map(|row| {
                let mut spans = Vec::new();
                for (i, cell) in row.into_iter().enumerate() {
                    if i > 0 {
                        spans.push(Span::styled(" · ", Style::default().add_modifier(Modifier::DIM)));
                    }
                    spans.extend(cell.spans);
                }
                wrap::wrap(&Line::from(spans), width)
            })
            .collect();
    };
    let dim = Style::default().add_modifier(Modifier::DIM);
    let rule = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        Line::from(Span::styled(format!("{l}{}{r}", parts.join(m)), dim))
    };
    let mut out = vec![rule("┌", "┬", "┐")];
    for (r, row) in cells.iter().enumerate() {
        let wrapped: Vec<Vec<Line<'static>>> =
            row.iter().zip(&widths).map(|(cell, w)| wrap::wrap_indent(cell, *w, 0, None)).collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for i in 0..height {
            let mut spans = vec![Span::styled("│", dim)];
            for (c, w) in widths.iter().enumerate() {
                let line = wrapped[c].get(i).cloned().unwrap_or_default();
                let gap = w.saturating_sub(line.width());
                let (left, right) = match align.get(c) {
                    Some('r') => (gap, 0),
                    Some('c') => (gap / 2, gap - gap / 2),
                    _ => (0, gap),
                };
                spans.push(Span::raw(" ".repeat(left + 1)));
                spans.extend(line.spans);
                spans.push(Span::raw(" ".repeat(right + 1)));
                spans.push(Span::styled("│", dim));
            }
            out.push(Line::from(spans));
        }
        if header && r == 0 && cells.len() > 1 {
            out.push(rule("├", "┼", "┤"));
        }
    }
    out.push(rule("└", "┴", "┘"));
    out
}

/// Column widths within `room`: the natural ones when they fit, else the widest
/// columns narrowed first, none below its longest word (`floor`); `None` when even
/// that does not fit.
fn fit(natural: &[usize], floor: &[usize], room: usize) -> Option<Vec<usize>> {
    let mut widths = natural.to_vec();
    while widths.iter().sum::<usize>() > room {
        let narrowable = widths.iter().copied().enumerate().filter(|(i, w)| *w > floor.get(*i).copied().unwrap_or(1));
        let (i, w) = narrowable.max_by_key(|(_, w)| *w)?;
        widths[i] = w - 1;
    }
    Some(widths)
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
