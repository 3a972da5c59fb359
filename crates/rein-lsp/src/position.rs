//! Positions: the model counts lines and columns from 1 in characters, as Read shows a
//! file; the protocol counts from 0 in UTF-16 code units.

/// The UTF-16 offset of the `column`th character (from 0) of `line`, past its end
/// clamped to the end.
pub(crate) fn utf16_of(line: &str, column: usize) -> u32 {
    line.chars().take(column).map(|c| c.len_utf16() as u32).sum()
}

/// The character column (from 0) of the UTF-16 offset `units` in `line`.
pub(crate) fn column_of(line: &str, units: u32) -> usize {
    let mut seen = 0u32;
    for (i, c) in line.chars().enumerate() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16() as u32;
    }
    line.chars().count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_count_characters_and_the_protocol_counts_utf16() {
        let line = "let s = \"é😀\"; x";
        let x = line.chars().position(|c| c == 'x').unwrap();
        let units = super::utf16_of(line, x);
        assert_eq!(units, x as u32 + 1, "the emoji is two UTF-16 units");
        assert_eq!(super::column_of(line, units), x);
        assert_eq!(super::utf16_of("ab", 10), 2);
    }
}
