//! Wrappers and runners: what a command really runs.

use crate::walk::analyze_into;
use crate::{AllowBy, Analysis, Command, Problem, ProblemClass, Word, join};

/// Directories whose programs are the ones a bare name finds.
const SYSTEM_BIN: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"];

/// Record the command `words` (and what it runs) in `a`.
pub fn unwrap(words: Vec<Word>, depth: usize, a: &mut Analysis) {
    let mut forms = Vec::new();
    let mut words = words;
    loop {
        let Some(first) = words.first() else { return };
        if !first.literal {
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
        if program == "env" {
            env_problems(&words, a);
        }
        match strip_wrapper(&program, &words) {
            Some(Stripped::Inner(rest)) => {
                if rest.is_empty() {
                    break;
                }
                words = rest;
                continue;
            }
            Some(Stripped::Script(args)) => {
                // `bash -c 'script'` and `eval`: analyse the script itself.
                forms.push(join(&words));
                push(a, words.clone(), forms, AllowBy::DenyCheckOnly);
                if args.iter().all(|w| w.literal) {
                    let script = args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
                    analyze_into(&script, depth + 1, a);
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
                    unwrap(cmd, depth, &mut sub);
                    for mut c in sub.commands {
                        c.allow_by = AllowBy::DenyCheckOnly;
                        a.commands.push(c);
                    }
                    a.problems.extend(sub.problems.into_iter().filter(|p| p.class != ProblemClass::Dynamic));
                }
                return;
            }
            None => break,
        }
    }
    if let Some(p) = crate::assign::shell_state_problem(&words)
        && !a.problems.contains(&p)
    {
        a.problems.push(p);
    }
    push(a, words, forms, AllowBy::Rules);
}

/// `env VAR=value cmd` sets variables like `VAR=value cmd` does; `env -C dir` runs the
/// command somewhere else.
fn env_problems(words: &[Word], a: &mut Analysis) {
    for w in &words[1..] {
        if w.text == "-C" || w.text.starts_with("--chdir") || (w.text.starts_with("-C") && !w.text.starts_with("--")) {
            a.problems.push(Problem::new(ProblemClass::Dynamic, "`env -C` runs the command in another directory"));
        } else if let Some(name) = crate::assign::assigned_name(w) {
            a.problems.extend(crate::assign::assignment_problem(name));
        } else if !w.literal && w.text.contains('=') {
            a.problems.push(Problem::new(ProblemClass::Assignment, "`env` sets a variable only known at run time"));
        } else if !w.text.starts_with('-') {
            break;
        }
    }
}

fn push(a: &mut Analysis, words: Vec<Word>, forms: Vec<String>, allow_by: AllowBy) {
    a.commands.push(Command { words, forms, allow_by });
}

enum Stripped {
    /// A harmless wrapper: the rest is the real command.
    Inner(Vec<Word>),
    /// A shell or `eval` running this script.
    Script(Vec<Word>),
    /// Runs these commands on the wrapper's terms.
    Runner(Vec<Vec<Word>>),
}

fn is_opt(w: &Word) -> bool {
    w.text.starts_with('-')
}

/// Skip options; `with_value` lists options that take the next word as their value.
fn skip_opts(words: &[Word], with_value: &[&str]) -> usize {
    let mut i = 1;
    while i < words.len() && is_opt(&words[i]) {
        if words[i].text == "--" {
            return i + 1;
        }
        if with_value.contains(&words[i].text.as_str()) {
            i += 1;
        }
        i += 1;
    }
    i
}

fn rest(words: &[Word], from: usize) -> Vec<Word> {
    words.get(from..).map(<[Word]>::to_vec).unwrap_or_default()
}

fn strip_wrapper(program: &str, words: &[Word]) -> Option<Stripped> {
    Some(match program {
        "time" | "nohup" | "noglob" | "builtin" | "exec" => Stripped::Inner(rest(words, skip_opts(words, &[]))),
        "nice" => Stripped::Inner(rest(words, skip_opts(words, &["-n", "--adjustment"]))),
        "stdbuf" => Stripped::Inner(rest(words, skip_opts(words, &["-i", "-o", "-e"]))),
        "timeout" => {
            let i = skip_opts(words, &["-s", "--signal", "-k", "--kill-after"]);
            Stripped::Inner(rest(words, i + 1))
        }
        "command" => {
            // `command -v x` only looks a name up.
            if words.get(1).is_some_and(|w| w.text == "-v" || w.text == "-V") {
                return None;
            }
            Stripped::Inner(rest(words, skip_opts(words, &[])))
        }
        "env" => {
            let mut i = skip_opts(words, &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]);
            while i < words.len() && words[i].text.contains('=') && !words[i].text.starts_with('=') {
                i += 1;
            }
            if words.iter().any(|w| w.text == "-S" || w.text.starts_with("--split-string")) {
                return Some(Stripped::Script(rest(words, i)));
            }
            Stripped::Inner(rest(words, i))
        }
        "xargs" => {
            let i =
                skip_opts(words, &["-I", "-i", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--arg-file", "--delimiter"]);
            let mut inner = rest(words, i);
            if inner.is_empty() {
                inner.push(Word::literal("echo"));
            }
            // The arguments xargs adds are only known at run time.
            inner.push(Word { text: "…".into(), literal: false, glob: false });
            Stripped::Inner(inner)
        }
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => {
            let c = words.iter().position(|w| {
                w.text == "-c" || (is_opt(w) && w.text.len() > 2 && w.text.ends_with('c') && !w.text.starts_with("--"))
            })?;
            Stripped::Script(words.get(c + 1).cloned().into_iter().collect())
        }
        "eval" => Stripped::Script(rest(words, 1)),
        "sudo" | "doas" => {
            let i = skip_opts(words, &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"]);
            Stripped::Runner(vec![rest(words, i)])
        }
        "watch" => Stripped::Runner(vec![rest(words, skip_opts(words, &["-n", "--interval", "-d"]))]),
        "setsid" | "chroot" | "unshare" | "nsenter" | "flock" | "su" => {
            Stripped::Runner(vec![rest(words, skip_opts(words, &[]))])
        }
        "find" | "fd" => {
            let mut inner = Vec::new();
            let mut i = 0;
            let mut runs = false;
            while i < words.len() {
                let t = words[i].text.as_str();
                if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir" | "-x" | "--exec" | "-X" | "--exec-batch") {
                    runs = true;
                    let start = i + 1;
                    let mut end = start;
                    while end < words.len() && !matches!(words[end].text.as_str(), ";" | "+") {
                        end += 1;
                    }
                    inner.push(words[start..end.min(words.len())].to_vec());
                    i = end;
                }
                if matches!(t, "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls") {
                    runs = true;
                }
                i += 1;
            }
            if !runs {
                return None;
            }
            Stripped::Runner(inner.into_iter().filter(|c| !c.is_empty()).collect())
        }
        _ => return None,
    })
}
