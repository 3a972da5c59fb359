//! Which files a command reads or writes, for Read and Edit rules and protected paths.

use crate::{Command, Word};

/// Arguments that are not options.
fn operands(cmd: &Command) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut after_dashdash = false;
    for w in cmd.words.iter().skip(1) {
        if !after_dashdash && w.text == "--" {
            after_dashdash = true;
            continue;
        }
        if after_dashdash || !w.text.starts_with('-') || w.text == "-" {
            out.push(w);
        }
    }
    out
}

/// What the command's table says it reaches, when the model is complete.
fn modelled(cmd: &Command) -> Option<&crate::Reading> {
    match crate::model(cmd) {
        Some((_, crate::Model::Complete(r))) => Some(r),
        _ => None,
    }
}

/// Files the command reads by name: what its table says, and every operand a reader of
/// files would read (so that deny rules see them even where the model is incomplete).
pub fn file_reads(cmd: &Command) -> Vec<Word> {
    let mut out = heuristic_reads(cmd);
    if let Some(r) = modelled(cmd) {
        out.extend(r.reads.iter().cloned());
    }
    once_each(out)
}

/// Each word once, in order.
fn once_each(words: Vec<Word>) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for w in words {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn heuristic_reads(cmd: &Command) -> Vec<Word> {
    let Some(program) = cmd.program() else { return Vec::new() };
    let ops = operands(cmd);
    let found: Vec<&Word> = match program {
        "cat" | "head" | "tail" | "less" | "more" | "nl" | "od" | "hexdump" | "xxd" | "strings" | "source" | "."
        | "base64" | "sha1sum" | "sha256sum" | "sha512sum" | "md5sum" | "cksum" | "b2sum" | "wc" | "cp" | "diff"
        | "cmp" | "file" | "stat" | "tac" | "sort" | "uniq" | "cut" | "paste" | "column" | "comm" | "join" | "fold"
        | "fmt" | "rev" | "expand" | "unexpand" | "pr" | "iconv" | "look" | "split" | "csplit" => ops,
        // The first operand is the pattern or script.
        "grep" | "egrep" | "fgrep" | "rg" | "sed" | "awk" | "jq" => ops.into_iter().skip(1).collect(),
        "git" => return git_paths(cmd),
        _ => Vec::new(),
    };
    found.into_iter().cloned().collect()
}

/// Paths a git command reads: `--no-index` operands, pathspecs after `--`, the file of
/// `blame`, and the path of an object spec (`HEAD:.env`, `:.env`).
fn git_paths(cmd: &Command) -> Vec<Word> {
    let args = &cmd.words[1..];
    let mut out = Vec::new();
    let mut after_dashdash = false;
    for (i, w) in args.iter().enumerate() {
        if w.text == "--" {
            after_dashdash = true;
            continue;
        }
        if w.text.starts_with('-') && !after_dashdash {
            continue;
        }
        if let Some((_, path)) = w.text.split_once(':').filter(|(rev, p)| !p.is_empty() && !rev.contains('/')) {
            out.push(Word { text: path.to_string(), ..w.clone() });
        } else if after_dashdash || i > 0 {
            // Operands after the subcommand that name files (revisions do not exist as
            // files and are harmless to check).
            out.push(w.clone());
        }
    }
    out
}

/// Files the command writes (or deletes, moves, changes).
pub fn file_writes(cmd: &Command) -> Vec<Word> {
    let mut out = heuristic_writes(cmd);
    if let Some(r) = modelled(cmd) {
        out.extend(r.writes.iter().cloned());
    }
    once_each(out)
}

fn heuristic_writes(cmd: &Command) -> Vec<Word> {
    let Some(program) = cmd.program() else { return Vec::new() };
    let ops = operands(cmd);
    let found: Vec<&Word> = match program {
        "tee" | "rm" | "rmdir" | "touch" | "mkdir" | "truncate" | "shred" | "unlink" | "mv" => ops,
        "chmod" | "chown" | "chgrp" => ops.into_iter().skip(1).collect(),
        "cp" | "ln" | "install" | "rsync" | "scp" => {
            let target = cmd.words.iter().position(|w| w.text == "-t" || w.text == "--target-directory");
            match target {
                Some(i) => cmd.words.get(i + 1).into_iter().collect(),
                None => ops.last().copied().into_iter().collect(),
            }
        }
        "sed" | "perl" => {
            let in_place = cmd.words.iter().any(|w| w.text.starts_with("-i") || w.text == "--in-place");
            if in_place { ops.into_iter().skip(1).collect() } else { Vec::new() }
        }
        "dd" => {
            return cmd
                .words
                .iter()
                .filter_map(|w| w.text.strip_prefix("of=").map(|p| Word { text: p.to_string(), ..w.clone() }))
                .collect();
        }
        _ => Vec::new(),
    };
    found.into_iter().cloned().collect()
}

/// Directories a command reads every file of, recursively (`grep -r`, `rg`, `find …
/// -exec`, `tar c`, `cp -r`): a Read deny rule for any file inside them denies the
/// command. A recursive search without a path searches `.`.
pub fn recursive_reads(cmd: &Command) -> Vec<Word> {
    let mut out = heuristic_trees(cmd);
    if let Some(r) = modelled(cmd) {
        out.extend(r.trees.iter().cloned());
    }
    once_each(out)
}

fn heuristic_trees(cmd: &Command) -> Vec<Word> {
    let Some(program) = cmd.program() else { return Vec::new() };
    let args = &cmd.words[1..];
    let flag = |long: &[&str], short: &[char]| {
        args.iter().any(|a| {
            long.contains(&a.text.as_str())
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text[1..].contains(short))
        })
    };
    let ops = operands(cmd);
    let or_dot = |v: Vec<&Word>| if v.is_empty() { vec![Word::literal(".")] } else { v.into_iter().cloned().collect() };
    // grep and rg take the pattern as their first operand unless -e/-f give it.
    let pattern_given = flag(&["--regexp", "--file"], &['e', 'f'])
        || args.iter().any(|a| a.text.starts_with("--regexp=") || a.text.starts_with("--file="));
    let skip = usize::from(!pattern_given);
    match program {
        "grep" | "egrep" | "fgrep" if flag(&["--recursive", "--dereference-recursive"], &['r', 'R']) => {
            or_dot(ops.into_iter().skip(skip).collect())
        }
        "rg" | "ag" | "ack" => or_dot(ops.into_iter().skip(skip).collect()),
        "find" if cmd.words.iter().any(|w| matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) => {
            let roots: Vec<&Word> =
                args.iter().take_while(|w| !(w.text.starts_with('-') || w.text == "(" || w.text == "!")).collect();
            or_dot(roots)
        }
        "tar" if tar_creates(args) => tar_inputs(args),
        "diff" if flag(&["--recursive"], &['r']) => ops.into_iter().cloned().collect(),
        "cp" | "rsync" | "scp" if flag(&["--recursive", "--archive"], &['r', 'R', 'a']) => {
            let n = ops.len().saturating_sub(1);
            ops.into_iter().take(n).cloned().collect()
        }
        "zip" if flag(&["--recurse-paths"], &['r']) => ops.into_iter().skip(1).cloned().collect(),
        _ => Vec::new(),
    }
}

/// `tar c…`, `tar -c…`, `tar --create`.
fn tar_creates(args: &[Word]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        let t = a.text.as_str();
        t == "--create"
            || (t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
            || (i == 0 && !t.starts_with('-') && t.contains('c'))
    })
}

/// What `tar c` archives: its operands, not the archive (`-f NAME`). With `-C DIR`
/// they are relative to a directory rein does not follow: only known at run time.
fn tar_inputs(args: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut archive_next = false;
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if archive_next {
            archive_next = false;
            continue;
        }
        if t == "-C" || t.starts_with("--directory") {
            return vec![Word { text: t.to_string(), literal: false, glob: false }];
        }
        if i == 0 && !t.starts_with('-') {
            // Old style: `tar czf archive.tgz dir`.
            archive_next = t.contains('f');
            continue;
        }
        if t == "--file" || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('f')) {
            archive_next = true;
            continue;
        }
        if !t.starts_with('-') {
            out.push(w.clone());
        }
    }
    out
}
