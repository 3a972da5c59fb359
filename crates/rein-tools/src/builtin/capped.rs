//! Output kept within a character budget: the head and the tail, with a marker saying how
//! much was cut, in bounded memory however much is written.

/// Collects text up to `limit` characters, keeping the first and last halves.
pub struct CappedText {
    limit: usize,
    head: String,
    head_chars: usize,
    tail: std::collections::VecDeque<char>,
    dropped_chars: usize,
    dropped_lines: usize,
}

impl CappedText {
    pub fn new(limit: usize) -> Self {
        CappedText {
            limit,
            head: String::new(),
            head_chars: 0,
            tail: Default::default(),
            dropped_chars: 0,
            dropped_lines: 0,
        }
    }

    pub fn push_str(&mut self, s: &str) {
        let head_cap = self.limit / 2;
        let tail_cap = self.limit - head_cap;
        for c in s.chars() {
            if self.head_chars < head_cap && self.tail.is_empty() {
                self.head.push(c);
                self.head_chars += 1;
                continue;
            }
            self.tail.push_back(c);
            if self.tail.len() > tail_cap
                && let Some(old) = self.tail.pop_front()
            {
                self.dropped_chars += 1;
                if old == '\n' {
                    self.dropped_lines += 1;
                }
            }
        }
    }

    pub fn finish(self) -> String {
        let tail: String = self.tail.into_iter().collect();
        if self.dropped_chars == 0 {
            return self.head + &tail;
        }
        format!("{}\n\n... [{} lines truncated] ...\n\n{}", self.head, self.dropped_lines.max(1), tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        let mut c = CappedText::new(100);
        c.push_str("hello\n");
        c.push_str("world");
        assert_eq!(c.finish(), "hello\nworld");
    }

    #[test]
    fn long_text_keeps_head_and_tail_with_a_marker() {
        let mut c = CappedText::new(40);
        for i in 0..100 {
            c.push_str(&format!("line {i}\n"));
        }
        let out = c.finish();
        assert!(out.starts_with("line 0\nline 1\n"), "{out}");
        assert!(out.ends_with("line 99\n"), "{out}");
        assert!(out.contains("lines truncated"), "{out}");
        assert!(out.len() < 100, "{out}");
    }
}
