//! Programs that run another program, each read by its complete option grammar: what it
//! runs is found exactly, or the form is not understood. Wrappers that change nothing
//! about the inner program (`timeout`, `nice`, `env`, …) are stripped; runners (`sudo`,
//! `watch`, `find -exec`, …) must be allowed whole while what they run is checked against
//! deny and ask rules; shells and `eval` run a script that is analysed itself.

use crate::grammar::{ProgramSpec, Style};
use crate::{Problem, ProblemClass, Word};

/// What a wrapper runs.
pub(crate) enum Stripped {
    /// A harmless wrapper: the rest is the real command. Files the wrapper itself reads,
    /// and what makes the line not understood even so (`env PATH=… cmd`).
    Inner(Vec<Word>, Vec<Word>, Option<Problem>),
    /// A shell or `eval` running this script; `sh` when it is a POSIX/bash script.
    Script(Vec<Word>, Dialect),
    /// Runs these commands on the wrapper's terms.
    Runner(Vec<Vec<Word>>),
    /// A wrapper whose form rein cannot unwrap exactly.
    Unknown(Problem),
}

impl Stripped {
    /// A runner whose lock file (flock's) is written.
    fn with_lock(self, lock: Option<Word>) -> Stripped {
        match (self, lock) {
            (Stripped::Runner(mut runs), Some(l)) => {
                runs.push(vec![Word::literal("touch"), l]);
                Stripped::Runner(runs)
            }
            (other, _) => other,
        }
    }
}

/// Which language a shell's script is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Bash,
    /// zsh reads most bash, but expands `=cmd`, glob qualifiers and more: only scripts
    /// without those characters are analysed.
    Zsh,
    /// `sh` (dash here), `watch`: a POSIX shell reads `$'…'`, `$"…"`, `&>`, `|&`, `<<<`
    /// and `<(…)` otherwise than bash, so scripts holding them are not analysed.
    Posix,
}

/// Text a POSIX shell parses otherwise than bash.
pub(crate) fn posix_problem(script: &str) -> Option<Problem> {
    const BASHISMS: &[&str] = &["$'", "$\"", "&>", "|&", "<<<", "<(", ">("];
    BASHISMS.iter().find(|b| script.contains(**b)).map(|b| {
        Problem::new(ProblemClass::Dynamic, format!("`{b}` reads otherwise in `sh` (a POSIX shell) than in bash"))
    })
}

use Style::GnuStop;

fn spec(name: &'static str, text: &'static str) -> ProgramSpec {
    ProgramSpec::new(name, GnuStop, crate::grammar::Operands::Text, text)
}

static WRAPPERS: std::sync::LazyLock<Vec<ProgramSpec>> = std::sync::LazyLock::new(|| {
    vec![
        spec(
            "env",
            "-i|--ignore-environment -0|--null -u|--unset=text ^-C|--chdir=dir ^-S|--split-string=text -v|--debug --block-signal?=text --default-signal?=text --ignore-signal?=text --list-signal-handling --help --version",
        ),
        spec(
            "timeout",
            "--preserve-status --foreground -k|--kill-after=text -s|--signal=text -v|--verbose --help --version",
        ),
        spec("nice", "-n|--adjustment=text --help --version").digits(),
        spec("nohup", "--help --version"),
        spec("stdbuf", "-i|--input=text -o|--output=text -e|--error=text --help --version"),
        spec(
            "time",
            "-p|--portability -v|--verbose -q|--quiet -f|--format=text ^-o|--output=write ^-a|--append --help -V|--version",
        ),
        spec(
            "xargs",
            "-0|--null -a|--arg-file=read -d|--delimiter=text -E=text -e|--eof?=text -I=text -i|--replace?=text -L=text -l|--max-lines?=text -n|--max-args=text -o|--open-tty -P|--max-procs=text -p|--interactive ^--process-slot-var=text -r|--no-run-if-empty -s|--max-chars=text -t|--verbose -x|--exit --show-limits --help --version",
        ),
        spec(
            "sudo",
            "-A|--askpass -b|--background -E|--preserve-env?=text ^-e|--edit -g|--group=text -H|--set-home -h|--host?=text -i|--login -K|--remove-timestamp -k|--reset-timestamp -l|--list -n|--non-interactive -P|--preserve-groups -p|--prompt=text ^-R|--chroot=text ^-D|--chdir=text -r|--role=text -S|--stdin -s|--shell -t|--type=text -T|--command-timeout=text -U|--other-user=text -u|--user=text -V|--version -v|--validate -C|--close-from=text -B|--bell --help",
        ),
        spec("doas", "-n -s -u=text -C=text -L"),
        spec("chroot", "--groups=text --userspec=text --skip-chdir --help --version"),
        spec(
            "flock",
            "-s|--shared -x|-e|--exclusive -u|--unlock -n|--nb|--nonblock -w|--timeout|--wait=text -o|--close -E|--conflict-exit-code=text -F|--no-fork --verbose -c|--command=pat -h|--help -V|--version",
        ),
        spec("setsid", "-c|--ctty -f|--fork -w|--wait -h|--help -V|--version"),
        spec(
            "watch",
            "-b|--beep -c|--color -C|--no-color -d|--differences?=text -e|--errexit -g|--chgexit -n|--interval=text -p|--precise -q|--equexit=text -r|--no-rerun -t|--no-title -w|--no-wrap -x|--exec -h|--help -v|--version",
        ),
        spec(
            "ionice",
            "-c|--class=text -n|--classdata=text -t|--ignore -h|--help -V|--version ^-p|--pid ^-P|--pgid ^-u|--uid",
        ),
        spec("taskset", "-a|--all-tasks -c|--cpu-list -h|--help -V|--version ^-p|--pid"),
    ]
});

/// Programs that run a command rein does not unwrap: deny and ask rules still see every
/// spelling of what they may run, and nothing but an exact rule allows them.
const OPAQUE_RUNNERS: &[&str] = &[
    "strace",
    "ltrace",
    "valgrind",
    "perf",
    "gdb",
    "lldb",
    "parallel",
    "systemd-run",
    "runuser",
    "pkexec",
    "firejail",
    "bwrap",
    "unbuffer",
    "script",
    "caffeinate",
    "catchsegv",
    "chrt",
    "numactl",
    "prlimit",
    "cgexec",
    "sg",
    "xvfb-run",
    "dbus-run-session",
    "fakeroot",
    "proot",
    "nsenter",
    "unshare",
    "su",
    "expect",
    "rlwrap",
    "faketime",
    "torsocks",
    "proxychains",
    "proxychains4",
    "nix-shell",
    "direnv",
    "sem",
    "retry",
    "entr",
    "chpst",
    "setpriv",
    "capsh",
    "schedtool",
    "cpulimit",
    "trickle",
    "tsocks",
    "unshare",
    "ssh",
    "docker",
    "podman",
    "kubectl",
];

/// What `words` (program first) runs, if the program runs another one.
pub(crate) fn strip(program: &str, words: &[Word]) -> Option<Stripped> {
    let args = &words[1..];
    if let Some(spec) = WRAPPERS.iter().find(|s| s.name == program) {
        return Some(by_table(spec, args));
    }
    Some(match program {
        "builtin" | "noglob" | "busybox" | "toybox" => Stripped::Inner(args.to_vec(), Vec::new(), None),
        "command" if args.first().is_some_and(|w| matches!(w.text.as_str(), "-v" | "-V")) => return None,
        "command" => {
            let skip = args.iter().take_while(|w| w.text == "-p").count();
            Stripped::Inner(args[skip..].to_vec(), Vec::new(), None)
        }
        "exec" => Stripped::Unknown(Problem::new(ProblemClass::ShellState, "`exec` replaces the session shell")),
        "bash" | "sh" | "dash" | "zsh" => return shell(program, args),
        "ksh" | "mksh" | "fish" | "csh" | "tcsh" | "yash" | "elvish" | "nu" | "xonsh" => {
            if !args.iter().any(|w| w.text.starts_with('-') && w.text.contains('c')) {
                return None;
            }
            Stripped::Unknown(Problem::new(
                ProblemClass::Dynamic,
                format!("rein analyses bash scripts, not {program}'s"),
            ))
        }
        "eval" => Stripped::Script(args.to_vec(), Dialect::Bash),
        "find" | "fd" => return find_runs(words),
        p if OPAQUE_RUNNERS.contains(&p) => Stripped::Unknown(Problem::new(
            ProblemClass::Wrapper,
            format!("`{p}` runs another command in a form rein does not unwrap"),
        )),
        _ => return None,
    })
}

/// Strip a wrapper by its table: its options, then (per wrapper) what precedes the
/// command, then the command.
fn by_table(spec: &ProgramSpec, args: &[Word]) -> Stripped {
    let crate::grammar::Scan { reading, seen, patterns, mut operands, .. } = match crate::grammar::scan(spec, args) {
        Ok(s) => s,
        Err(why) => return Stripped::Unknown(Problem::new(ProblemClass::Wrapper, why.0)),
    };
    let reads = reading.reads;
    let name = spec.name;
    // The word before the command (a duration, a mask, a directory): a glob there may
    // expand to several words, and the command be another.
    if matches!(name, "timeout" | "taskset" | "chroot")
        && let Some(w) = operands.first().filter(|w| w.glob)
    {
        let why = format!("`{}` may expand to several words before the command {name} runs", w.text);
        return Stripped::Unknown(Problem::new(ProblemClass::Wrapper, why));
    }
    match name {
        "env" => {
            if operands.first().is_some_and(|w| w.text == "-") {
                operands.remove(0);
            }
            let n = operands
                .iter()
                .take_while(|w| crate::assign::assigned_name(w).is_some() || (!w.literal && w.text.contains('=')))
                .count();
            let mut problem = None;
            for w in &operands[..n] {
                problem = problem.or(match crate::assign::assigned_name(w) {
                    Some(v) => crate::assign::assignment_problem(v),
                    None => {
                        Some(Problem::new(ProblemClass::Assignment, "`env` sets a variable only known at run time"))
                    }
                });
            }
            Stripped::Inner(operands[n..].to_vec(), reads, problem)
        }
        "timeout" => Stripped::Inner(operands.get(1..).map(<[Word]>::to_vec).unwrap_or_default(), reads, None),
        "xargs" => {
            let mut inner = operands;
            if inner.is_empty() {
                inner.push(Word::literal("echo"));
            }
            // The arguments xargs adds are only known at run time.
            inner.push(Word { text: "…".into(), literal: false, glob: false });
            Stripped::Inner(inner, reads, None)
        }
        "chroot" => Stripped::Runner(vec![operands.get(1..).map(<[Word]>::to_vec).unwrap_or_default()]),
        "taskset" => Stripped::Inner(operands.get(1..).map(<[Word]>::to_vec).unwrap_or_default(), reads, None),
        // `flock FILE -c CMD` (flock reads `-c` after the file itself).
        // flock opens (and creates) its lock file: a write, like `>>`. Not a wrapper that
        // touches nothing, so only an exact rule allows it.
        "flock" => {
            let lock = operands.first().cloned();
            let inner = if operands.get(1).is_some_and(|w| w.text == "-c" || w.text == "--command") {
                operands.get(2).cloned().into_iter().collect::<Vec<_>>()
            } else {
                patterns.first().cloned().into_iter().collect()
            };
            let mut runs = vec![operands.get(1..).map(<[Word]>::to_vec).unwrap_or_default()];
            if !inner.is_empty() {
                runs = vec![vec![Word::literal("sh"), Word::literal("-c"), inner[0].clone()]];
            }
            Stripped::Runner(runs).with_lock(lock)
        }
        "watch" if seen.iter().any(|o| o == "exec") => Stripped::Runner(vec![operands]),
        // watch runs its words through `sh -c`, joined by spaces.
        "watch" => Stripped::Script(operands, Dialect::Posix),
        "sudo" | "doas" | "setsid" => Stripped::Runner(vec![operands]),
        _ => Stripped::Inner(operands, reads, None),
    }
}

/// `bash [options] -c SCRIPT`: the script, when every option is one rein knows. Other
/// forms (`bash file.sh`) run a file: not a wrapper.
fn shell(program: &str, args: &[Word]) -> Option<Stripped> {
    let unknown = |t: String| Some(Stripped::Unknown(Problem::new(ProblemClass::Dynamic, t)));
    let mut script_mode = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if !w.literal || w.glob {
            return unknown(format!("`{program}` takes `{t}`, only known at run time"));
        }
        if t == "--" || t == "-" {
            i += 1;
            break;
        }
        if !(t.starts_with('-') || t.starts_with('+')) || t.len() < 2 {
            break;
        }
        i += 1;
        if t.starts_with("--") {
            match t {
                "--norc" | "--noprofile" | "--posix" | "--login" | "--noediting" | "--restricted" | "--verbose"
                | "--version" | "--help" | "--debugger" | "--dump-strings" => continue,
                _ => return unknown(format!("`{program} {t}` is a shell option rein does not model")),
            }
        }
        for c in t[1..].chars() {
            match c {
                'c' => script_mode = true,
                'l' | 'i' | 'e' | 'u' | 'x' | 'v' | 'n' | 'r' | 'a' | 'b' | 'h' | 'm' | 'B' | 'H' | 'E' | 'T' | 'f'
                | 'p' | 'C' => {}
                'o' => {
                    let opt = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
                    i += 1;
                    if !matches!(opt, "errexit" | "nounset" | "pipefail" | "xtrace" | "verbose" | "noclobber") {
                        return Some(Stripped::Unknown(Problem::new(
                            ProblemClass::ShellState,
                            format!("`{program} -o {opt}` changes how the shell reads the script"),
                        )));
                    }
                }
                _ => {
                    return Some(Stripped::Unknown(Problem::new(
                        ProblemClass::ShellState,
                        format!("`{program} {t}` sets a shell option rein does not model"),
                    )));
                }
            }
        }
    }
    if !script_mode {
        if args.iter().any(|w| w.text == "-s" || (w.text.starts_with('-') && w.text.contains('s'))) {
            return unknown(format!("`{program} -s` reads its script from its input"));
        }
        return None;
    }
    let script = args.get(i)?;
    if args.len() > i + 1 {
        return unknown(format!(
            "the words after `{program} -c`'s script become its parameters (`{}`)",
            args[i + 1].text
        ));
    }
    let dialect = match program {
        "zsh" => Dialect::Zsh,
        "bash" => Dialect::Bash,
        _ => Dialect::Posix,
    };
    Some(Stripped::Script(vec![script.clone()], dialect))
}

/// `find … -exec CMD ;`, `fd -x CMD`: runs CMD on every file found.
fn find_runs(words: &[Word]) -> Option<Stripped> {
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
        if matches!(t, "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls") && words[0].text == "fd" {
            runs = true;
        }
        i += 1;
    }
    runs.then(|| Stripped::Runner(inner.into_iter().filter(|c| !c.is_empty()).collect()))
}

/// zsh expands `=cmd`, glob qualifiers `(e:…:)`, `~` and `^` patterns and more that bash
/// does not: a zsh script is analysed only when no word holds such a character.
pub(crate) fn zsh_problem(words: &[Word]) -> Option<Problem> {
    words
        .iter()
        .find(|w| w.glob || w.text.starts_with('=') || w.text.contains(['(', ')', '^', '#', '~', '{']))
        .map(|w| Problem::new(ProblemClass::Dynamic, format!("zsh expands `{}` in ways bash does not", w.text)))
}
