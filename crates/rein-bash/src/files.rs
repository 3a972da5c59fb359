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

/// Files the command reads by name.
pub fn file_reads(cmd: &Command) -> Vec<Word> {
    let Some(program) = cmd.program() else { return Vec::new() };
    let ops = operands(cmd);
    let found: Vec<&Word> = match program {
        "cat" | "head" | "tail" | "less" | "more" | "nl" | "od" | "hexdump" | "xxd" | "strings" | "source" | "."
        | "base64" | "sha256sum" | "md5sum" | "wc" | "cp" | "diff" | "cmp" | "file" | "stat" | "tac" => ops,
        // The first operand is the pattern or script.
        "grep" | "egrep" | "fgrep" | "rg" | "sed" | "awk" | "jq" => ops.into_iter().skip(1).collect(),
        _ => Vec::new(),
    };
    found.into_iter().cloned().collect()
}

/// Files the command writes (or deletes, moves, changes).
pub fn file_writes(cmd: &Command) -> Vec<Word> {
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
