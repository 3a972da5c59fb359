//! The notation option tables are written in, and its parser.
//!
//! A table is a whitespace-separated list of entries. An entry is its spellings joined
//! by `|` (`-r|--recursive`), then what it takes, then marks:
//! - `=KIND`: a required value (`-e PAT`, `-ePAT`, `--regexp=PAT`, `--regexp PAT`);
//! - `?=KIND`: an optional value, attached only (`--color=always`, `-w8`);
//! - `==KIND`: two values, the first a name (`jq --rawfile NAME FILE`);
//! - `!tree`: the file operands are read as whole trees; `!follow`: … following links;
//! - a leading `^`: an option the program has that rein does not vouch for (it writes,
//!   runs a program, or reaches other code): listed so that abbreviations are resolved
//!   as the program resolves them, and so the refusal can name it.
//!
//! KIND is `text` (inert), `read` (a file read), `write` (a file written), `pat` (the
//! pattern or script: the first operand is then a file), `patfile` (a file the pattern
//! is read from), `names` (a file of file names: everything they name is read, so not
//! modelled), or `dir` (a directory the program works in).

use std::collections::HashMap;
use std::sync::OnceLock;

/// How a program's parser reads options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// GNU getopt_long: options anywhere, long names abbreviated when unambiguous.
    Gnu,
    /// getopt_long with `+`: options stop at the first operand (env, xargs, nice, …).
    GnuStop,
    /// Options anywhere, long names exactly (ripgrep, git's subcommands, clap, jq).
    Exact,
}

/// What a value (or an operand) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Val {
    Text,
    Read,
    Write,
    Pattern,
    PatternFile,
    Names,
    Dir,
}

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    Flag,
    Required(Val),
    Optional(Val),
    Two(Val),
}

/// One option of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    pub short: Vec<char>,
    pub long: Vec<&'static str>,
    pub arity: Arity,
    /// The file operands become trees read whole.
    pub tree: bool,
    /// … following symbolic links.
    pub follow: bool,
    /// Known, and not vouched for.
    pub unsafe_: bool,
}

/// What a program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Files read.
    Files,
    /// The pattern (unless an option gave one), then files read.
    PatternThenFiles,
    /// Inert text (names looked up, numbers, strings).
    Text,
    /// Paths whose names and metadata are shown (`ls`, `du`): the workspace wall holds.
    Listed,
    /// At most one file read (a second would be written).
    OneFile,
    /// None at all.
    Nothing,
    /// Test paths and names: files read, which must be in the workspace (runners).
    Targets,
}

/// A program's table.
#[derive(Debug)]
pub struct ProgramSpec {
    pub name: &'static str,
    pub style: Style,
    pub operands: Operands,
    /// Reads the tree of its operands (or `.`) even without an option (`rg`).
    pub tree_by_default: bool,
    /// `-NUM` is an option (`head -5`, `grep -3`).
    pub digits: bool,
    /// `@FILE` is replaced by the words in FILE before options are read (binutils).
    pub response_files: bool,
    text: &'static str,
    parsed: OnceLock<Parsed>,
}

#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub opts: Vec<Opt>,
    pub by_short: HashMap<char, usize>,
    pub by_long: HashMap<&'static str, usize>,
}

impl ProgramSpec {
    pub const fn new(name: &'static str, style: Style, operands: Operands, text: &'static str) -> Self {
        ProgramSpec {
            name,
            style,
            operands,
            tree_by_default: false,
            digits: false,
            response_files: false,
            text,
            parsed: OnceLock::new(),
        }
    }

    pub const fn digits(mut self) -> Self {
        self.digits = true;
        self
    }

    pub const fn response_files(mut self) -> Self {
        self.response_files = true;
        self
    }

    pub const fn tree_by_default(mut self) -> Self {
        self.tree_by_default = true;
        self
    }

    pub(crate) fn parsed(&self) -> &Parsed {
        self.parsed.get_or_init(|| parse_table(self.text))
    }

    /// Every option of the table.
    pub fn options(&self) -> &[Opt] {
        &self.parsed().opts
    }
}

fn kind(s: &str) -> Val {
    match s {
        "read" => Val::Read,
        "write" => Val::Write,
        "pat" => Val::Pattern,
        "patfile" => Val::PatternFile,
        "names" => Val::Names,
        "dir" => Val::Dir,
        _ => Val::Text,
    }
}

/// Parse a table. A malformed entry is a bug in rein's own tables: the unit tests parse
/// every table, and an entry that names nothing is skipped.
pub(crate) fn parse_table(text: &'static str) -> Parsed {
    let mut p = Parsed::default();
    for entry in text.split_whitespace() {
        let (entry, unsafe_) = match entry.strip_prefix('^') {
            Some(rest) => (rest, true),
            None => (entry, false),
        };
        let mut marks = entry.split('!');
        let head = marks.next().unwrap_or_default();
        let marks: Vec<&str> = marks.collect();
        let (names, arity) = if let Some((n, k)) = head.split_once("?=") {
            (n, Arity::Optional(kind(k)))
        } else if let Some((n, k)) = head.split_once("==") {
            (n, Arity::Two(kind(k)))
        } else if let Some((n, k)) = head.split_once('=') {
            (n, Arity::Required(kind(k)))
        } else {
            (head, Arity::Flag)
        };
        let mut opt = Opt {
            short: Vec::new(),
            long: Vec::new(),
            arity,
            tree: marks.contains(&"tree") || marks.contains(&"follow"),
            follow: marks.contains(&"follow"),
            unsafe_,
        };
        for name in names.split('|') {
            if let Some(l) = name.strip_prefix("--") {
                opt.long.push(l);
            } else if let Some(s) = name.strip_prefix('-') {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => opt.short.push(c),
                    // A single-dash long name (`-name`, `-cols`).
                    (Some(_), Some(_)) => opt.long.push(s),
                    _ => {}
                }
            }
        }
        if opt.short.is_empty() && opt.long.is_empty() {
            continue;
        }
        let i = p.opts.len();
        for c in &opt.short {
            p.by_short.insert(*c, i);
        }
        for l in &opt.long {
            p.by_long.insert(l, i);
        }
        p.opts.push(opt);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notation() {
        let p = parse_table("-r|--recursive!tree -e|--regexp=pat ^-o|--output=write --color?=text --arg==text");
        assert_eq!(p.opts.len(), 5);
        assert!(p.opts[0].tree && p.opts[0].short == ['r'] && p.opts[0].long == ["recursive"]);
        assert_eq!(p.opts[1].arity, Arity::Required(Val::Pattern));
        assert!(p.opts[2].unsafe_);
        assert_eq!(p.opts[3].arity, Arity::Optional(Val::Text));
        assert_eq!(p.opts[4].arity, Arity::Two(Val::Text));
        assert_eq!(p.by_long["output"], 2);
    }
}
