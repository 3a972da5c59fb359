use super::*;

fn text(lines: &[Line<'_>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

fn styled(lines: &[Line<'_>], word: &str) -> Style {
    lines.iter().flat_map(|l| l.spans.iter()).find(|s| s.content.contains(word)).map(|s| s.style).unwrap_or_default()
}

#[test]
fn a_table_is_drawn_with_box_characters_and_fits_the_window() {
    let md = "| Name | Role |\n|------|-----:|\n| Ann | lead engineer of the parser |\n| Bo | QA |\n";
    insta::assert_snapshot!("table_80", text(&render(md, 80)));
    let narrow = render(md, 30);
    insta::assert_snapshot!("table_30", text(&narrow));
    assert!(narrow.iter().all(|l| l.width() <= 30), "{}", text(&narrow));
    assert!(styled(&narrow, "Name").add_modifier.contains(Modifier::BOLD), "the header is bold");
}

#[test]
fn lists_quotes_emphasis_and_fences() {
    let md = "# Plan\n\n1. first *step* with `code`\n2. second\n   - nested **bold** item\n> a quoted line\n\
              ```rust\nfn main() {}\n```\nSee [the docs](https://docs.rs) and ~~old~~.\n---\n";
    let lines = render(md, 60);
    insta::assert_snapshot!("blocks_60", text(&lines));
    let all = text(&lines);
    assert!(!all.contains("```") && !all.contains('*') && !all.contains('#'), "{all}");
    assert!(styled(&lines, "step").add_modifier.contains(Modifier::ITALIC));
    assert!(styled(&lines, "bold").add_modifier.contains(Modifier::BOLD));
    assert_eq!(styled(&lines, "code").fg, Some(ratatui::style::Color::Cyan));
}

#[test]
fn list_items_wrap_under_their_text() {
    let lines = render("- a list item whose words run on past the edge of a narrow window", 30);
    assert_eq!(text(&lines), "• a list item whose words run\n  on past the edge of a narrow\n  window");
}

#[test]
fn numbers_and_marks_that_are_no_markdown_stay() {
    let lines = render("2024. was a year\n- 1984. a book\nx * y = z", 80);
    assert_eq!(text(&lines), "2024. was a year\n• 1984. a book\nx * y = z");
}

#[test]
fn a_table_is_held_until_it_ends() {
    let mut b = Blocks::default();
    assert!(b.line("| a | b |", 40).is_empty());
    assert!(b.line("|---|---|", 40).is_empty());
    assert!(b.line("| 1 | 2 |", 40).is_empty());
    assert!(text(&b.pending(40)).contains("│ 1 │ 2 │"), "shown while it grows");
    let out = b.line("after", 40);
    assert!(text(&out).starts_with('┌') && text(&out).ends_with("after"), "{}", text(&out));
}

#[test]
fn a_table_at_60_columns_never_breaks_a_word() {
    let md = "| Setting | Default | What it changes |\n|---|---|---|\n\
              | includeGitInstructions | true | whether the system prompt carries the git workflow guidance |\n\
              | blockReadsOutsideWorkingDirectories | false | refuses reads outside the workspace roots |\n";
    let lines = render(md, 60);
    let all = text(&lines);
    assert!(lines.iter().all(|l| l.width() <= 60), "{all}");
    for word in ["includeGitInstructions", "blockReadsOutsideWorkingDirectories", "guidance", "workspace"] {
        assert!(all.contains(word), "`{word}` was broken:\n{all}");
    }
}
