//! Runners a prefix rule allows — `npm test`, `cargo test`, `make`, `pytest`: they run
//! the project's own code, which is what the rule allows. Options that point them at
//! other code or configuration (another directory, manifest, makefile, config file,
//! plugin, shell) are not covered, wherever the path lies: the model can write inside
//! the workspace too. For their everyday subcommands every option must be one listed
//! here; options listed with `^` are refused under any subcommand.

use super::getopt::{Style, parse};
use super::spec::{Operands, ProgramSpec};
use super::{Model, Reading, unknown};
use crate::Word;

static CARGO: ProgramSpec = ProgramSpec::new(
    "cargo",
    Style::Exact,
    Operands::Text,
    "-v|--verbose -q|--quiet --color=text --frozen --locked --offline -h|--help -V|--version \
     -p|--package=text --workspace --all --exclude=text --lib --bins --bin=text --examples --example=text \
     --tests --test=text --benches --bench=text --all-targets --doc -r|--release --profile=text \
     -F|--features=text --all-features --no-default-features --target=text -j|--jobs=text --keep-going \
     --no-fail-fast --no-run --message-format=text --timings?=text --future-incompat-report \
     --ignore-rust-version --check --fix --allow-dirty --allow-staged --no-deps --open \
     ^--config=text ^-Z=text ^-C=dir ^--manifest-path=read ^--target-dir=write ^--lockfile-path=read \
     ^--artifact-dir=write ^--out-dir=write",
);

static MAKE: ProgramSpec = ProgramSpec::new(
    "make",
    Style::Gnu,
    Operands::Text,
    "-j|--jobs?=text -k|--keep-going -s|--silent|--quiet -n|--just-print|--dry-run|--recon -q|--question \
     -B|--always-make -w|--print-directory --no-print-directory -O|--output-sync?=text -l|--load-average?=text \
     -r|--no-builtin-rules -R|--no-builtin-variables -i|--ignore-errors -d --debug?=text -e|--environment-overrides \
     -p|--print-data-base -v|--version -h|--help --trace --warn-undefined-variables -S|--no-keep-going|--stop \
     --shuffle?=text ^-t|--touch ^-C|--directory=dir ^-f|--file|--makefile=read ^-I|--include-dir=dir \
     ^--eval=text ^-W|--what-if|--new-file|--assume-new=text ^-o|--old-file|--assume-old=text \
     ^--jobserver-auth=text ^--jobserver-style=text",
);

static PYTEST: ProgramSpec = ProgramSpec::new(
    "pytest",
    Style::Exact,
    Operands::Targets,
    "-x|--exitfirst --maxfail=text -q|--quiet -v|--verbose -s --capture=text -k=text -m=text --tb=text -r=text \
     --lf|--last-failed --ff|--failed-first --nf|--new-first --sw|--stepwise --sw-skip --co|--collect-only \
     --durations=text --durations-min=text --no-header --no-summary -l|--showlocals --disable-warnings \
     --color=text --strict-markers --strict --runxfail --full-trace --setup-show --setup-only --fixtures \
     --markers --version -h|--help -n=text --dist=text --doctest-modules --deselect=text --ignore=text \
     --ignore-glob=text --cache-clear --cache-show --lfnf=text --last-failed-no-failures=text \
     -W|--pythonwarnings=text ^-p=text ^-c|--config-file=read ^--rootdir=dir ^-o|--override-ini=text \
     ^--confcutdir=dir ^--import-mode=text ^--pyargs ^--basetemp=write ^--debug?=write \
     ^--junit-xml|--junitxml=write ^--resultlog=write ^--log-file=write ^--inifile=read ^--noconftest",
);

/// npm options that do not point it elsewhere (npm takes `--key=value` for every
/// config key, so anything else is not modelled).
static NPM: ProgramSpec = ProgramSpec::new(
    "npm",
    Style::Exact,
    Operands::Text,
    "-s|--silent -q|--quiet -d|--verbose --loglevel=text --if-present --ignore-scripts -w|--workspace=text \
     --workspaces --include-workspace-root --no-color --color=text --json --foreground-scripts --no-progress \
     -h|--help -v|--version ^-C|--prefix=dir ^--userconfig=read ^--globalconfig=read ^--script-shell=text \
     ^--node-options=text ^--cache=dir ^--registry=text ^--call=text ^-c=text",
);

/// Subcommands whose options rein lists completely.
const NPM_SUBS: &[&str] = &["test", "t", "tst", "run", "run-script", "rum", "urn", "start", "stop", "restart"];
const CARGO_SUBS: &[&str] =
    &["test", "t", "check", "c", "build", "b", "clippy", "doc", "d", "bench", "fmt", "run", "r", "tree", "metadata"];

/// The model of a runner, if `program` is one.
pub(crate) fn runner(program: &str, args: &[Word]) -> Option<Model> {
    Some(match program {
        "cargo" => cargo(args),
        "make" | "gmake" => make(args),
        "pytest" | "py.test" => with_project(parse(&PYTEST, args)),
        "python" | "python3" if args.first().is_some_and(|w| w.text == "-m") && args.get(1)?.text == "pytest" => {
            with_project(parse(&PYTEST, &args[2..]))
        }
        "npm" => npm(args),
        _ => return None,
    })
}

fn with_project(m: Model) -> Model {
    match m {
        Model::Complete(mut r) => {
            r.runs_project = true;
            Model::Complete(r)
        }
        other => other,
    }
}

/// Arguments after `--` go to the program being run (a test binary, a script).
fn split_dashdash(args: &[Word]) -> &[Word] {
    match args.iter().position(|w| w.literal && w.text == "--") {
        Some(i) => &args[..i],
        None => args,
    }
}

fn cargo(args: &[Word]) -> Model {
    // The test harness's own options after `--`: `--logfile` writes a file.
    if let Some(w) = args.iter().skip_while(|w| w.text != "--").find(|w| w.text.starts_with("--logfile")) {
        return Model::NotModelled(format!("`{}` makes the test harness write a file", w.text));
    }
    let mut args = split_dashdash(args);
    if args.first().is_some_and(|w| w.literal && w.text.starts_with('+')) {
        args = &args[1..];
    }
    let sub = args.iter().find(|w| !w.text.starts_with('-'));
    match sub {
        Some(w) if !w.literal => Model::NotModelled(unknown(w)),
        Some(w) if !CARGO_SUBS.contains(&w.text.as_str()) => refused_only(&CARGO, args),
        _ => with_project(parse(&CARGO, args)),
    }
}

fn make(args: &[Word]) -> Model {
    // A glob may expand to `VAR=value` or an option.
    if let Some(w) = args.iter().find(|w| w.glob) {
        return Model::NotModelled(format!("`{}` may expand to a make variable or option", w.text));
    }
    if let Some(w) = args.iter().find(|w| w.literal && !w.text.starts_with('-') && w.text.contains('=')) {
        return Model::NotModelled(format!("`{}` sets a make variable, which can change what it runs", w.text));
    }
    with_project(parse(&MAKE, args))
}

fn npm(args: &[Word]) -> Model {
    let args = split_dashdash(args);
    let sub = args.iter().find(|w| !w.text.starts_with('-'));
    match sub {
        Some(w) if !w.literal => Model::NotModelled(unknown(w)),
        Some(w) if NPM_SUBS.contains(&w.text.as_str()) => with_project(parse(&NPM, args)),
        _ => refused_only(&NPM, args),
    }
}

/// For a subcommand rein has no complete table for: only the options known to point
/// the runner elsewhere are refused; the rule decides the rest.
fn refused_only(spec: &ProgramSpec, args: &[Word]) -> Model {
    for w in args {
        if !w.literal || w.may_be_option() {
            return Model::NotModelled(unknown(w));
        }
        let name = w.text.split('=').next().unwrap_or_default();
        let hit = spec.options().iter().filter(|o| o.unsafe_).find(|o| {
            o.long.iter().any(|l| name.strip_prefix("--") == Some(l))
                || (name.len() >= 2 && !name.starts_with("--") && o.short.iter().any(|c| name[1..].contains(*c)))
        });
        if hit.is_some() {
            return Model::NotModelled(format!("`{}` points {} at other code or configuration", w.text, spec.name));
        }
    }
    Model::Complete(Reading { runs_project: true, ..Reading::default() })
}
