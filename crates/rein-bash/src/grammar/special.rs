//! Programs whose grammar is not plain getopt: shell builtins (`echo`, `printf`, `test`,
//! `cd`), `find`'s expression, `sed` and `jq` (whose script is data rein reads), `xxd`'s
//! prefix-matched options, and `date`/`hostname`, whose operands can set the system.

use super::NotModelled;
use super::getopt::{Style, scan, type_operands};
use super::spec::{Operands, ProgramSpec};
use super::{Model, Reading, unknown};
use crate::Word;

pub(crate) const NAMES: &[&str] = &[
    "echo", ":", "command", "printf", "test", "[", "cd", "pushd", "find", "sed", "jq", "xxd", "date", "hostname", "env",
];

static SED: ProgramSpec = ProgramSpec::new(
    "sed",
    Style::Gnu,
    Operands::Files,
    "-n|--quiet|--silent --debug -e|--expression=pat ^-f|--file=patfile -i|--in-place?=text -l|--line-length=text \
     --posix -E|-r|--regexp-extended -s|--separate --sandbox -u|--unbuffered -z|--null-data --follow-symlinks \
     -b|--binary --help --version",
);

static JQ: ProgramSpec = ProgramSpec::new(
    "jq",
    Style::Exact,
    Operands::Files,
    "-n|--null-input -r|--raw-output --raw-output0 -j|--join-output -a|--ascii-output -c|--compact-output \
     -C|--color-output -M|--monochrome-output -S|--sort-keys -s|--slurp -e|--exit-status --tab --indent=text \
     --arg==text --argjson==text --slurpfile==read --rawfile==read --args --jsonargs ^-f|--from-file=patfile \
     -L=text -R|--raw-input --seq --stream --stream-errors --unbuffered -h|--help -V|--version \
     --build-configuration -b|--binary",
);

static DATE: ProgramSpec = ProgramSpec::new(
    "date",
    Style::Gnu,
    Operands::Text,
    "-d|--date=text --debug -f|--file=read -I|--iso-8601?=text --resolution -R|--rfc-email --rfc-3339=text \
     -r|--reference=read ^-s|--set=text -u|--utc|--universal --help --version",
);

static HOSTNAME: ProgramSpec = ProgramSpec::new(
    "hostname",
    Style::Gnu,
    Operands::Nothing,
    "-a|--alias -A|--all-fqdns -d|--domain -f|--fqdn|--long -i|--ip-address -I|--all-ip-addresses -s|--short \
     -y|--yp|--nis -b|--boot ^-F|--file=read -V|--version -h|--help",
);

static ENV_PRINT: ProgramSpec =
    ProgramSpec::new("env", Style::GnuStop, Operands::Text, "-0|--null -u|--unset=text -i|--ignore-environment");

/// The model of a program with its own grammar, if `program` is one.
pub(crate) fn model(program: &str, args: &[Word]) -> Option<Model> {
    let r = match program {
        "echo" | ":" => Ok(Reading::default()),
        // `command -v NAME` only looks a name up (any other form is a wrapper).
        "command" if args.first().is_some_and(|w| matches!(w.text.as_str(), "-v" | "-V")) => Ok(Reading::default()),
        "printf" => printf(args),
        "test" | "[" => test(args),
        "cd" | "pushd" => cd(args),
        "find" => find(args),
        "sed" => sed(args),
        "jq" => jq(args),
        "xxd" => xxd(args),
        "date" => scan(&DATE, args).and_then(|s| match s.operands.iter().find(|w| !w.text.starts_with('+')) {
            Some(w) => {
                Err(format!("`{}`: date sets the system clock from an operand that is not +FORMAT", w.text).into())
            }
            None => type_operands(&DATE, s),
        }),
        "hostname" => scan(&HOSTNAME, args).and_then(|s| type_operands(&HOSTNAME, s)),
        // `env` alone prints the environment (with a command it is a wrapper).
        "env" => scan(&ENV_PRINT, args).and_then(|s| type_operands(&ENV_PRINT, s)),
        _ => return None,
    };
    Some(match r {
        Ok(r) => Model::Complete(r),
        Err(why) => Model::NotModelled(why.0),
    })
}

/// `printf -v NAME` assigns a variable (and evaluates a subscript in NAME): the format
/// must be known and not an option.
fn printf(args: &[Word]) -> Result<Reading, NotModelled> {
    match args.first() {
        Some(w) if !w.literal || w.glob => Err(unknown(w).into()),
        Some(w) if w.text.starts_with('-') && w.text != "--" => {
            Err(format!("`printf {}` assigns a shell variable or takes an option rein does not model", w.text).into())
        }
        _ => Ok(Reading::default()),
    }
}

/// `test -v NAME` evaluates an array subscript in NAME as arithmetic, which can run commands.
fn test(args: &[Word]) -> Result<Reading, NotModelled> {
    let plain = |w: &Word| {
        w.literal
            && w.text.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && w.text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let refused =
        || Err(NotModelled::from("`test -v` evaluates a name's subscript as arithmetic, which can run commands"));
    // A file's name may be `-v` (then the next one a subscript), and an unquoted
    // expansion any number of words.
    if let Some(w) = args.iter().find(|w| w.may_be_option() || (!w.literal && w.glob)) {
        return Err(format!(
            "`{}` is split and globbed into words at run time: one may be `-v` and the next a subscript test evaluates",
            w.text
        )
        .into());
    }
    let ops: Vec<&Word> = args.iter().filter(|w| !(w.literal && (w.text == "]" || w.text == "!"))).collect();
    for (i, w) in ops.iter().enumerate() {
        if w.literal && (w.text == "-v" || w.text == "-R") && ops.get(i + 1).is_some_and(|n| !plain(n)) {
            return refused();
        }
    }
    // `[ "$x" NAME ]`: the unknown word may be `-v`.
    if ops.len() == 2 && !ops[0].literal && !plain(ops[1]) {
        return refused();
    }
    if args.iter().any(|w| !w.literal) && args.iter().any(|w| w.text.contains('[') && w.text != "[" && !plain(w)) {
        return refused();
    }
    Ok(Reading::default())
}

fn cd(args: &[Word]) -> Result<Reading, NotModelled> {
    let mut ops = args.iter().filter(|w| !(w.literal && matches!(w.text.as_str(), "-L" | "-P" | "-e" | "-@")));
    match ops.next() {
        Some(w) if !w.literal || w.glob => Err(unknown(w).into()),
        _ => Ok(Reading::default()),
    }
}

/// `sed`: options by its table; the scripts must be literal and only print, unless
/// `--sandbox` refuses every command that writes, reads or runs.
fn sed(args: &[Word]) -> Result<Reading, NotModelled> {
    let mut s = scan(&SED, args)?;
    let mut scripts = std::mem::take(&mut s.patterns);
    let files: Vec<Word> = if s.pattern_given {
        s.operands.clone()
    } else {
        let mut ops = s.operands.clone().into_iter();
        scripts.extend(ops.next());
        ops.collect()
    };
    if scripts.is_empty() {
        return Err("sed has no script".into());
    }
    let sandboxed = s.seen.iter().any(|o| o == "sandbox");
    for w in &scripts {
        if !w.literal || w.glob {
            return Err(format!("the sed script `{}` is only known at run time", w.text).into());
        }
        if !sandboxed && !crate::readonly::sed_script_safe(&w.text) {
            return Err(format!("the sed script `{}` writes, reads or runs something", w.text).into());
        }
    }
    if let Some(w) = files.iter().find(|w| !w.literal) {
        return Err(unknown(w).into());
    }
    let in_place = s.seen.iter().any(|o| o == "in-place");
    if in_place {
        // The backup suffix as sed parsed it: `*` and `/` put the backup elsewhere.
        if s.values.iter().any(|(k, v)| k == "in-place" && (!v.literal || v.text.contains(['/', '*']))) {
            return Err("sed's backup suffix names another directory".into());
        }
        s.reading.writes.extend(files.iter().cloned());
    }
    files.iter().for_each(|w| s.reading.read(w));
    Ok(s.reading)
}

/// `jq FILTER [FILES]`: the filter must not import modules (which reads other files);
/// after `--args`/`--jsonargs` the operands are values, not files.
fn jq(args: &[Word]) -> Result<Reading, NotModelled> {
    let mut s = scan(&JQ, args)?;
    let mut ops = std::mem::take(&mut s.operands).into_iter();
    if let Some(filter) = ops.next() {
        if !filter.literal || filter.glob {
            return Err(unknown(&filter).into());
        }
        if filter.text.contains("import") || filter.text.contains("include") {
            return Err("the jq filter imports modules, which reads other files".into());
        }
    }
    // After `--args`/`--jsonargs` the operands are values; those before it are files.
    let files = match args.iter().position(|w| w.literal && (w.text == "--args" || w.text == "--jsonargs")) {
        Some(at) => scan(&JQ, &args[..at]).map(|p| p.operands.len().saturating_sub(1))?,
        None => usize::MAX,
    };
    for w in ops.take(files) {
        if !w.literal {
            return Err(unknown(&w).into());
        }
        s.reading.read(&w);
    }
    Ok(s.reading)
}

/// `xxd` matches options by their first letter (`-c8`, `-cols 8`, `-autoskip`); `-r`
/// turns a dump back into a file, and a second operand is written.
fn xxd(args: &[Word]) -> Result<Reading, NotModelled> {
    const FLAGS: &str = "abCEehiKpuvdt";
    const VALUES: &str = "cglnosR";
    let mut r = Reading::default();
    let mut operands = Vec::new();
    let mut i = 0;
    let mut only = false;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        // A glob may expand to an option, or to a second operand (the file xxd writes).
        if !w.literal || w.glob {
            return Err(unknown(w).into());
        }
        // xxd reads options only before its first operand: after it, every word (even
        // `-c`) is the output file.
        if only || !operands.is_empty() || !w.text.starts_with('-') || w.text == "-" {
            operands.push(w.clone());
            continue;
        }
        if w.text == "--" {
            only = true;
            continue;
        }
        let mut chars = w.text[1..].chars();
        let c = chars.next().unwrap_or('-');
        let rest: String = chars.collect();
        if FLAGS.contains(c) {
            continue;
        }
        if VALUES.contains(c) {
            // `-c 8` and `-cols 8` take the next word; any other text after the letter is
            // the value itself (`-c8`, `-sx`), as xxd reads it.
            let long = match c {
                'c' => "ols",
                'g' => "roupsize",
                'l' => "en",
                'n' => "ame",
                'o' => "ffset",
                's' => "eek",
                _ => "",
            };
            if rest.is_empty() || (!long.is_empty() && rest.starts_with(long)) {
                i += 1;
            }
            continue;
        }
        return Err(format!("`{}` is an option of xxd that rein does not vouch for", w.text).into());
    }
    if operands.len() > 1 {
        return Err(format!("`{}`: xxd writes its second operand", operands[1].text).into());
    }
    operands.iter().for_each(|w| r.read(w));
    Ok(r)
}

/// `find ROOTS EXPRESSION`: every test and action by its arity; actions that run,
/// delete or write files are not vouched for (a runner form is handled as a runner).
fn find(args: &[Word]) -> Result<Reading, NotModelled> {
    const ZERO: &[&str] = &[
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-true",
        "-false",
        "-empty",
        "-executable",
        "-readable",
        "-writable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-d",
        "-mount",
        "-xdev",
        "-noleaf",
        "-follow",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-daystart",
        "-warn",
        "-nowarn",
        "-not",
        "-a",
        "-and",
        "-o",
        "-or",
        "(",
        ")",
        "!",
        ",",
        "-help",
        "--help",
        "-version",
        "--version",
    ];
    const ONE: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-regextype",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-maxdepth",
        "-mindepth",
        "-printf",
        "-lname",
        "-ilname",
        "-fstype",
        "-context",
        "-used",
    ];
    const FILE: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];
    const WRITE: &[&str] = &["-fprint", "-fprint0", "-fls"];
    let mut r = Reading::default();
    let mut i = 0;
    // Global options before the starting points.
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "-H" | "-P" => i += 1,
            "-L" => {
                r.follows_links = true;
                i += 1;
            }
            "-D" => i += 2,
            t if t.starts_with("-O") && t.len() > 2 => i += 1,
            _ => break,
        }
    }
    while let Some(w) = args.get(i) {
        if w.literal && (w.text.starts_with('-') || matches!(w.text.as_str(), "(" | "!" | ",")) {
            break;
        }
        if !w.literal || w.may_be_option() {
            return Err(unknown(w).into());
        }
        r.read(w);
        i += 1;
    }
    while let Some(w) = args.get(i) {
        i += 1;
        // A glob in the expression expands to words find reads as its own (`-name *`
        // meeting a file named `-delete`).
        if !w.literal || w.glob {
            return Err(unknown(w).into());
        }
        let t = w.text.as_str();
        let value = |i: usize| -> Result<Word, NotModelled> {
            match args.get(i) {
                Some(v) if v.glob => Err(unknown(v).into()),
                Some(v) => Ok(v.clone()),
                None => Err(format!("find's `{t}` needs a value").into()),
            }
        };
        if ZERO.contains(&t) {
            r.follows_links |= t == "-follow";
        } else if ONE.contains(&t) || is_newer_xy(t) {
            value(i)?;
            i += 1;
        } else if FILE.contains(&t) {
            let v = value(i)?;
            if !v.literal {
                return Err(unknown(&v).into());
            }
            r.read(&v);
            i += 1;
        } else if WRITE.contains(&t) || t == "-fprintf" {
            let v = value(i)?;
            if !v.literal {
                return Err(unknown(&v).into());
            }
            r.writes.push(v);
            i += if t == "-fprintf" { 2 } else { 1 };
        } else {
            return Err(format!("`{t}` is a find action or test rein does not vouch for").into());
        }
    }
    Ok(r)
}

fn is_newer_xy(t: &str) -> bool {
    t.strip_prefix("-newer").is_some_and(|xy| {
        let b = xy.as_bytes();
        b.len() == 2 && b"aBcmt".contains(&b[0]) && b"aBcmt".contains(&b[1])
    })
}

pub(crate) use super::runners::runner;
