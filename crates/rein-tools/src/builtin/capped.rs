//! Output kept within a character budget: the head and the tail, with a marker saying how
//! much was cut, in bounded memory however much is written.

/// Collects text up to `limit` characters, keeping the first and last halves. Memory
/// stays under about twice the limit whatever is pushed.
pub struct CappedText {
    head_cap: usize,
    tail_cap: usize,
    head: String,
    head_chars: usize,
    tail: String,
    dropped_chars: usize,
    dropped_lines: usize,
}

impl CappedText {
    pub fn new(limit: usize) -> Self {
        let head_cap = limit / 2;
        CappedText {
            head_cap,
            tail_cap: limit - head_cap,
            head: String::new(),
            head_chars: 0,
            tail: String::new(),
            dropped_chars: 0,
            dropped_lines: 0,
        }
    }

    pub fn push_str(&mut self, mut s: &str) {
        if self.head_chars < self.head_cap {
            let room = self.head_cap - self.head_chars;
            let cut = s.char_indices().nth(room).map(|(i, _)| i).unwrap_or(s.len());
            self.head.push_str(&s[..cut]);
            self.head_chars += s[..cut].chars().count();
            s = &s[cut..];
        }
        if s.is_empty() {
            return;
        }
        self.tail.push_str(s);
        // Trim in large steps so the work stays linear in what is pushed.
        if self.tail.len() > 2 * self.tail_cap.max(1024) {
            self.trim_tail();
        }
    }

    fn trim_tail(&mut self) {
        let chars = self.tail.chars().count();
        if chars <= self.tail_cap {
            return;
        }
        let drop_chars = chars - self.tail_cap;
        let cut = self.tail.char_indices().nth(drop_chars).map(|(i, _)| i).unwrap_or(self.tail.len());
        self.dropped_lines += self.tail[..cut].bytes().filter(|b| *b == b'\n').count();
        self.dropped_chars += drop_chars;
        self.tail.drain(..cut);
    }

    pub fn finish(mut self) -> String {
        self.trim_tail();
        if self.dropped_chars == 0 {
            return self.head + &self.tail;
        }
        format!("{}\n\n... [{} lines truncated] ...\n\n{}", self.head, self.dropped_lines.max(1), self.tail)
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

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let mut c = CappedText::new(10);
        for _ in 0..1000 {
            c.push_str("ünïcödé ");
        }
        let out = c.finish();
        assert!(out.contains("truncated"));
        assert!(out.starts_with("ünïcö"));
    }
}
