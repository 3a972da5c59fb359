//! A Bash rule's pattern over a whole command, matched without compiling anything:
//! `*` matches any run of characters (spaces and newlines included); a trailing ` *`
//! (or the legacy `:*`) also matches the bare command and keeps the word boundary
//! (`ls *` matches `ls -la`, not `lsof`). The same answers as the regex
//! `^p0.*p1…pk(?: .*)?$` (checked against it by a property test), in time linear in
//! the command for most patterns, and nothing to build when the rules are read.

/// A compiled-free command pattern: its literal parts between the `*`s.
#[derive(Debug, Clone)]
pub(crate) struct CommandPattern {
    parts: Vec<String>,
    /// A trailing ` *` or `:*`: the command may go on after a space.
    open_tail: bool,
}

impl CommandPattern {
    pub(crate) fn new(spec: &str) -> CommandPattern {
        let (body, open_tail) = split(spec);
        CommandPattern { parts: body.split('*').map(str::to_string).collect(), open_tail }
    }

    /// Whether the whole of `text` matches.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let parts = &self.parts;
        let (Some(first), Some(last)) = (parts.first(), parts.last()) else { return false };
        if parts.len() == 1 {
            return text == first
                || (self.open_tail && text.strip_prefix(first.as_str()).is_some_and(|r| r.starts_with(' ')));
        }
        let Some(mut at) = text.starts_with(first.as_str()).then_some(first.len()) else { return false };
        for mid in &parts[1..parts.len() - 1] {
            match text[at..].find(mid.as_str()) {
                Some(i) => at += i + mid.len(),
                None => return false,
            }
        }
        let tail = &text[at..];
        if tail.ends_with(last.as_str()) {
            return true;
        }
        if !self.open_tail {
            return false;
        }
        // The last part, then a space: at any of its places (they may overlap).
        let mut from = 0;
        while let Some(i) = tail[from..].find(last.as_str()) {
            let place = from + i;
            if tail[place + last.len()..].starts_with(' ') {
                return true;
            }
            from = place + tail[place..].chars().next().map_or(1, char::len_utf8);
        }
        false
    }
}

/// The pattern's body, and whether it ends open (` *` or `:*`).
fn split(spec: &str) -> (&str, bool) {
    let s = spec.trim();
    if let Some(b) = s.strip_suffix(":*").or_else(|| s.strip_suffix(" *")) { (b.trim_end(), true) } else { (s, false) }
}

#[cfg(test)]
mod tests {
    use super::{CommandPattern, split};
    use proptest::prelude::*;

    /// The regex the pattern stands for.
    fn as_regex(spec: &str) -> regex::Regex {
        let (body, open_tail) = split(spec);
        let mut re = String::from("(?s)^");
        for (i, part) in body.split('*').enumerate() {
            if i > 0 {
                re.push_str(".*");
            }
            re.push_str(&regex::escape(part));
        }
        if open_tail {
            re.push_str("(?: .*)?");
        }
        re.push('$');
        match regex::Regex::new(&re) {
            Ok(r) => r,
            Err(e) => panic!("{re}: {e}"),
        }
    }

    #[test]
    fn examples() {
        let p = CommandPattern::new("git * main:*");
        assert!(p.is_match("git push origin main") && p.is_match("git push main --force"));
        assert!(!p.is_match("git push mainline"));
        let p = CommandPattern::new("x*aa *");
        assert!(p.is_match("xaaa b"), "overlapping places of the last part");
        assert!(CommandPattern::new(":*").is_match(""));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn answers_as_the_regex_does(
            spec in "[ab *:\n]{0,8}",
            text in "[ab \n:é]{0,12}",
        ) {
            prop_assert_eq!(CommandPattern::new(&spec).is_match(&text), as_regex(&spec).is_match(&text), "{:?} {:?}", spec, text);
        }
    }
}
