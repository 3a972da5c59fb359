//! Compositions of read-only commands whose data flow rein models exactly (issue 25,
//! "less friction"): `find ROOTS … -print0 | xargs -0 READER ARGS`. find prints only names
//! that start with one of its (literal) starting points, NUL-separated, and `xargs -0`
//! appends each as one whole word after READER's own, so none can become an option: the
//! reader reads files inside ROOTS, following the links it meets. READER then counts as
//! reading those trees, and the command is judged like any read-only command.
//!
//! The same for a listing substituted unquoted into a reader's words,
//! `READER $(find ROOTS …)` or `READER $(git ls-files [PATHS])`: bash splits the listing
//! into words and globs each, so the reader reads files inside ROOTS only while no name
//! in those trees holds whitespace or glob characters or starts with `-` — the caller
//! checks the trees when it decides (`Command::fed_split`), as it expands globs.
//! Any other shape keeps the names only known at run time.

use tree_sitter::Node;

use crate::grammar::{Model, model};
use crate::words::word;
use crate::{Analysis, Command, Word};

/// xargs options that keep every name one trailing argument.
const XARGS_OK: &[&str] = &["-0", "--null", "-r", "--no-run-if-empty", "-x", "--exit", "-t", "--verbose"];
/// xargs options with a numeric value that keep it so.
const XARGS_VALUE_OK: &[&str] = &["-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars"];

/// If the pipeline's commands `first..` in `a` are `find … -print0 | xargs -0 READER`,
/// give READER the trees find walks (replacing the run-time names xargs adds).
pub(crate) fn find_into_xargs(a: &mut Analysis, first: usize, stages: &[Vec<Word>]) {
    let [finder, xargs] = stages else { return };
    let Some(roots) = find_roots(finder, true) else { return };
    let Some(reader_at) = xargs_reader(xargs) else { return };
    // The reader as unwrap pushed it: the xargs inner command, its last word the names.
    let reader_words = &xargs[reader_at..];
    let Some(cmd) = a.commands[first..].iter_mut().find(|c| {
        c.words.len() == reader_words.len() + 1
            && c.words.last().is_some_and(|w| !w.literal && w.text == "…")
            && c.words[..reader_words.len()] == *reader_words
    }) else {
        return;
    };
    let mut words = reader_words.to_vec();
    words.extend(roots.iter().cloned());
    let mut fed = Command::new(words, cmd.forms.clone(), cmd.allow_by);
    fed.fed_trees = roots;
    // Only a reader rein models: anything else keeps its names unknown.
    // (A name may land as an option's value: `sort -o` would write one.)
    if matches!(model(&fed), Some((crate::Kind::Reader, Model::Complete(r))) if r.writes.is_empty()) {
        *cmd = fed;
    }
}

/// The trees an unquoted `$(find ROOTS …)` or `$(git ls-files [PATHS])` lists, when
/// `node` is one (a single command, read-only, printing one name per line).
pub(crate) fn listing_roots(node: Node<'_>, src: &str) -> Option<Vec<Word>> {
    if node.kind() != "command_substitution" || node.named_child_count() != 1 {
        return None;
    }
    let body = node.named_child(0).filter(|n| n.kind() == "command")?;
    let mut cursor = body.walk();
    let kids: Vec<Node<'_>> = body.named_children(&mut cursor).collect();
    if kids.iter().any(|k| !matches!(k.kind(), "command_name" | "word" | "string" | "raw_string" | "concatenation")) {
        return None;
    }
    let words: Vec<Word> = kids.iter().map(|k| word(*k, src)).collect();
    match words.first().map(|w| w.text.as_str()) {
        Some("find") if !words.iter().any(|w| w.text == "-print0") => find_roots(&words, false),
        Some("git") if words.get(1).is_some_and(|w| w.text == "ls-files") => ls_files_roots(&words[2..]),
        _ => None,
    }
}

/// `git ls-files` with options that keep one name per line, relative to the directory.
fn ls_files_roots(args: &[Word]) -> Option<Vec<Word>> {
    const KEEP: &[&str] = &["-c", "--cached", "-m", "--modified", "-o", "--others", "--exclude-standard", "--"];
    let mut roots = Vec::new();
    for w in args {
        if !w.literal || w.glob {
            return None;
        }
        if w.text.starts_with('-') {
            KEEP.contains(&w.text.as_str()).then_some(())?;
        } else if w.text.starts_with(':') || w.text.contains(['*', '?', '[', '\\']) {
            // Pathspec magic (`:(top)`, `:!x`) and wildcards: not a directory.
            return None;
        } else {
            roots.push(w.clone());
        }
    }
    if roots.is_empty() {
        roots.push(Word::literal("."));
    }
    Some(roots)
}

/// The starting points of a read-only `find …` printing names (with `-print0` when
/// `null`; no `-L`/`-follow`, every starting point literal and not an option).
fn find_roots(words: &[Word], null: bool) -> Option<Vec<Word>> {
    if words.first().map(|w| w.text.as_str()) != Some("find") || (null && !words.iter().any(|w| w.text == "-print0")) {
        return None;
    }
    let probe = Command::new(words.to_vec(), Vec::new(), crate::AllowBy::Rules);
    let Some((_, Model::Complete(r))) = model(&probe) else { return None };
    if r.follows_links || !r.writes.is_empty() || r.reads.is_empty() {
        return None;
    }
    // Other actions print names in other forms.
    let other = if null { "-print" } else { "-print0" };
    if words.iter().any(|w| matches!(w.text.as_str(), "-printf" | "-ls") || w.text == other) {
        return None;
    }
    r.reads.iter().all(|w| w.literal && !w.glob && !w.text.starts_with('-')).then(|| r.reads.clone())
}

/// Where READER starts in `xargs -0 [options] READER …`, when every option keeps each
/// name a whole trailing word.
fn xargs_reader(words: &[Word]) -> Option<usize> {
    if words.first().map(|w| w.text.as_str()) != Some("xargs") {
        return None;
    }
    let mut null = false;
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if !w.literal {
            return None;
        }
        if !t.starts_with('-') {
            break;
        }
        if XARGS_OK.contains(&t) {
            null |= t == "-0" || t == "--null";
            i += 1;
        } else if XARGS_VALUE_OK.contains(&t) && words.get(i + 1).is_some_and(|v| v.text.parse::<u32>().is_ok()) {
            i += 2;
        } else {
            return None;
        }
    }
    (null && i < words.len()).then_some(i)
}

/// Put `roots` where `listing` (`$(find src)`) stands in the commands `a` holds from
/// `first` on, and give them the trees, their names split by bash. The forms deny and
/// ask rules see keep the listing as written.
pub(crate) fn feed_listing(a: &mut Analysis, first: usize, listing: &Word, roots: &[Word]) {
    for cmd in &mut a.commands[first..] {
        // As the program (`$(find src -name x.sh)`) a name is run, not read.
        let Some(at) = cmd.words.iter().position(|w| w == listing).filter(|at| *at > 0) else { continue };
        let mut words = cmd.words.clone();
        words.splice(at..=at, roots.iter().cloned());
        let mut fed = Command::new(words, cmd.forms.clone(), cmd.allow_by);
        fed.fed_trees = roots.to_vec();
        fed.fed_split = true;
        *cmd = fed;
    }
}
