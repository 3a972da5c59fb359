//! Wrappers and runners: what a command really runs (the grammars are in `wrappers.rs`).

use crate::wrappers::{Dialect, Stripped, strip, zsh_problem};
use crate::{AllowBy, Analysis, Command, Problem, ProblemClass, Redirect, Word, join};

/// How a script is analysed into `a` at a depth.
pub(crate) type Analyze = fn(&str, usize, &mut Analysis);

/// Directories whose programs are the ones a bare name finds.
const SYSTEM_BIN: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"];

/// Record the command `words` (and what it runs) in `a`.
/// `analyze` reads a script a wrapper runs (`bash -c '…'`): the walker's own entry,
/// handed in so that this file does not call back into it.
pub(crate) fn unwrap(words: Vec<Word>, depth: usize, a: &mut Analysis, analyze: Analyze) {
    let mut forms = Vec::new();
    let mut words = words;
    loop {
        let Some(first) = words.first() else { return };
        if !first.literal || first.glob {
            a.problems.push(Problem::new(
                ProblemClass::Dynamic,
                format!("the program name `{}` is only known at run time", first.text),
            ));
            forms.push(join(&words));
            push(a, words, forms, AllowBy::ExactRuleOnly);
            return;
        }
        let full = join(&words);
        if !forms.contains(&full) {
            forms.push(full);
        }
        // `/bin/rm` is `rm` for deny and ask rules; for allow rules only when it is the
        // system's own program.
        if first.text.contains('/') {
            let base = first.text.rsplit('/').next().unwrap_or_default().to_string();
            let dir = first.text.rsplit_once('/').map(|(d, _)| d).unwrap_or_default();
            let mut renamed = words.clone();
            renamed[0] = Word::literal(base);
            forms.push(join(&renamed));
            if SYSTEM_BIN.contains(&dir) {
                words = renamed;
            }
        }
        let program = words[0].text.clone();
        match strip(&program, &words) {
            Some(Stripped::Inner(rest, reads, problem)) => {
                if let Some(p) = problem
                    && !a.problems.contains(&p)
                {
                    a.problems.push(p);
                }
                // A file the wrapper reads (`xargs -a FILE`) is read as its input.
                a.redirects.extend(reads.into_iter().map(|target| Redirect { op: "<".into(), target }));
                if rest.is_empty() {
                    break;
                }
                words = rest;
                continue;
            }
            Some(Stripped::Script(args, dialect)) => {
                // `bash -c 'script'` and `eval`: analyse the script itself.
                forms.push(join(&words));
                push(a, words.clone(), forms, AllowBy::DenyCheckOnly);
                if args.iter().all(|w| w.literal) {
                    let script = args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
                    let first = a.commands.len();
                    if dialect == Dialect::Posix
                        && let Some(p) = crate::wrappers::posix_problem(&script)
                    {
                        a.problems.push(p);
                    }
                    analyze(&script, depth + 1, a);
                    if dialect == Dialect::Zsh
                        && let Some(p) = a.commands[first..].iter().find_map(|c| zsh_problem(&c.words))
                    {
                        a.problems.push(p);
                    }
                } else {
                    a.problems.push(Problem::new(
                        ProblemClass::Dynamic,
                        format!("`{program}` runs a script that is only known at run time"),
                    ));
                }
                return;
            }
            Some(Stripped::Runner(inner)) => {
                // sudo, watch, setsid, find -exec: the runner must be allowed as a
                // whole; what it runs is checked against deny and ask rules.
                push(a, words.clone(), forms, AllowBy::ExactRuleOnly);
                for cmd in inner {
                    let mut sub = Analysis::default();
                    unwrap(cmd, depth, &mut sub, analyze);
                    for mut c in sub.commands {
                        c.allow_by = AllowBy::DenyCheckOnly;
                        a.commands.push(c);
                    }
                    a.problems.extend(sub.problems.into_iter().filter(|p| p.class != ProblemClass::Dynamic));
                }
                return;
            }
            Some(Stripped::Unknown(problem)) => {
                // Deny and ask rules see every spelling the inner command may have.
                for i in 1..words.len() {
                    let suffix = join(&words[i..]);
                    if !forms.contains(&suffix) {
                        forms.push(suffix);
                    }
                }
                if !a.problems.contains(&problem) {
                    a.problems.push(problem);
                }
                push(a, words, forms, AllowBy::ExactRuleOnly);
                return;
            }
            None => break,
        }
    }
    for p in [crate::assign::shell_state_problem(&words), crate::assign::evaluates_data(&words)].into_iter().flatten() {
        if !a.problems.contains(&p) {
            a.problems.push(p);
        }
    }
    push(a, words, forms, AllowBy::Rules);
}

fn push(a: &mut Analysis, words: Vec<Word>, forms: Vec<String>, allow_by: AllowBy) {
    a.commands.push(Command::new(words, forms, allow_by));
}
