use super::*;
use ratatui::style::{Modifier, Stylize};

fn text(rows: &[Line<'_>]) -> Vec<String> {
    rows.iter().map(|r| r.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
}

#[test]
fn words_are_never_split_and_rows_fit() {
    let line = Line::from("the quick brown fox jumps over the lazy dog again and again");
    let rows = wrap(&line, 16);
    assert_eq!(text(&rows), ["the quick brown", "fox jumps over", "the lazy dog", "again and again"]);
    for r in &rows {
        assert!(r.width() <= 16);
    }
}

#[test]
fn continuation_rows_keep_the_indent_and_the_list_marker() {
    let rows = wrap(&Line::from("    - an item whose text is long enough to wrap twice over"), 24);
    assert_eq!(text(&rows), ["    - an item whose text", "      is long enough to", "      wrap twice over"]);
    let rows = wrap(&Line::from("  ⎿  output line that is long enough to wrap"), 24);
    assert_eq!(text(&rows)[1], "     long enough to wrap");
    let rows = wrap(&Line::from("12. numbered item that goes on and on"), 20);
    assert_eq!(text(&rows)[1], "    that goes on and");
    let rows = wrap(&Line::from("       15 -         # TODO: refuse to remove more"), 36);
    assert_eq!(text(&rows)[1], "            to remove more", "under the diff line's number");
}

#[test]
fn a_word_longer_than_a_row_is_cut_and_styles_are_kept() {
    let line = Line::from(vec![Span::raw("see "), Span::raw("abcdefghijklmnop").bold()]);
    let rows = wrap(&line, 8);
    assert_eq!(text(&rows), ["see abcd", "efghijkl", "mnop"]);
    assert!(rows[1].spans[0].style.add_modifier.contains(Modifier::BOLD));
}

#[test]
fn tabs_are_expanded_and_control_characters_dropped() {
    let rows = wrap(&Line::from("a\tb\rc"), 40);
    assert_eq!(text(&rows), ["a   bc"]);
}

#[test]
fn a_commands_colours_and_titles_leave_no_junk() {
    let line = "\u{1b}[31mred\u{1b}[0m \u{1b}[1;32mbold green\u{1b}[m \u{1b}]0;title\u{7}x \u{1b}]8;;http://a\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}(Bok";
    let rows = wrap(&Line::from(line), 80);
    assert_eq!(text(&rows), ["red bold green x link ok"]);
}

#[test]
fn wide_characters_count_by_their_width() {
    let rows = wrap(&Line::from("日本語 日本語 日本語"), 8);
    assert_eq!(text(&rows), ["日本語", "日本語", "日本語"]);
}

#[test]
fn a_quote_gutter_starts_every_row() {
    let line = Line::from("│ quoted words that need more than one row");
    let rows = wrap_indent(&line, 20, 2, Some(Span::raw("│ ")));
    assert_eq!(text(&rows), ["│ quoted words that", "│ need more than one", "│ row"]);
}

#[test]
fn a_commands_colours_become_styles() {
    use ratatui::style::Color;
    let rows =
        wrap(&Line::from("\u{1b}[31mred\u{1b}[0m plain \u{1b}[1;38;5;208mhot\u{1b}[22;39m \u{1b}[38;2;1;2;3mrgb"), 80);
    assert_eq!(text(&rows), ["red plain hot rgb"]);
    let style_of =
        |word: &str| rows[0].spans.iter().find(|s| s.content.contains(word)).map(|s| s.style).unwrap_or_default();
    assert_eq!(style_of("red").fg, Some(Color::Red));
    assert_eq!(style_of("plain").fg, None);
    assert_eq!(style_of("hot").fg, Some(Color::Indexed(208)));
    assert!(style_of("hot").add_modifier.contains(Modifier::BOLD));
    assert_eq!(style_of("rgb").fg, Some(Color::Rgb(1, 2, 3)));
}
