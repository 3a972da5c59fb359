//! Options read as getopt_long (and its cousins) read them: clustered short options,
//! attached and separate values, `--name=value`, unambiguous abbreviations of long
//! names where the program's parser accepts them, `--` ending the options, and options
//! after operands where the parser permutes.

use super::NotModelled;
use super::spec::{Arity, Operands, ProgramSpec, Val};
use super::{Model, Reading, unknown};
use crate::Word;

pub use super::spec::Style;

/// What the options said, before the operands are typed.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub reading: Reading,
    /// An option gave the pattern (or script).
    pub pattern_given: bool,
    /// The values of pattern options.
    pub patterns: Vec<Word>,
    pub operands: Vec<Word>,
    /// Operands after `--` (or after options stopped).
    pub after_dashdash: usize,
    pub tree: bool,
    /// Every option word seen, by its long (or short) name.
    pub seen: Vec<String>,
    /// The value each option was given, by its long (or short) name.
    pub values: Vec<(String, Word)>,
}

/// Read `args` with `spec`'s options; operands are kept for the caller to type.
pub(crate) fn scan(spec: &ProgramSpec, args: &[Word]) -> Result<Scan, NotModelled> {
    let table = spec.parsed();
    let prog = spec.name;
    let mut s = Scan { tree: spec.tree_by_default, ..Scan::default() };
    let mut only_operands = false;
    let mut i = 0;
    let take_next = |i: &mut usize| -> Option<Word> {
        let w = args.get(*i).cloned();
        *i += 1;
        w
    };
    while i < args.len() {
        let w = &args[i];
        i += 1;
        if only_operands {
            s.operands.push(w.clone());
            continue;
        }
        if !w.literal {
            // Where every option is harmless and operands are text, a word only known at
            // run time is harmless whatever it turns out to be (`ls $(pwd)`).
            if inert(spec) {
                s.operands.push(w.clone());
                continue;
            }
            return Err(unknown(w).into());
        }
        if w.may_be_option() && !options_harmless(spec) {
            // `-*` is an option (or names files that are); `*.md` is a file operand while
            // no match starts with `-`, which the caller checks.
            if w.text.starts_with('-') {
                return Err(glob_option(w, prog).into());
            }
            s.reading.option_globs.push(w.clone());
        }
        let t = w.text.as_str();
        if spec.response_files && t.starts_with('@') {
            return Err(format!("`{t}`: {prog} reads more arguments from that file before it reads its options").into());
        }
        if t == "--" {
            only_operands = true;
            s.after_dashdash = s.operands.len();
            continue;
        }
        if t == "-" || !t.starts_with('-') {
            s.operands.push(w.clone());
            if spec.style == Style::GnuStop {
                only_operands = true;
                s.after_dashdash = s.operands.len();
            }
            continue;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(Word { text: v.to_string(), ..w.clone() })),
                None => (body, None),
            };
            let idx = long_option(spec, name).map_err(|why| format!("`{t}`: {why}"))?;
            let opt = &table.opts[idx];
            if opt.unsafe_ {
                return Err(format!(
                    "`{t}` is an option of {prog} that rein does not vouch for (it writes, runs or reaches other code)"
                )
                .into());
            }
            let value = match opt.arity {
                Arity::Flag if value.is_some() => {
                    return Err(format!("`{t}`: {prog}'s `--{name}` takes no value").into());
                }
                Arity::Flag => None,
                Arity::Required(_) => match value {
                    Some(v) => Some(v),
                    None => Some(separate(take_next(&mut i).ok_or_else(|| format!("`{t}` needs a value"))?)?),
                },
                Arity::Optional(_) => value,
                Arity::Two(_) => {
                    if value.is_some() {
                        return Err(format!("`{t}` takes two separate values").into());
                    }
                    let _name = take_next(&mut i).map(separate).transpose()?;
                    take_next(&mut i).map(separate).transpose()?
                }
            };
            let key = opt.long.first().map_or(String::new(), |l| l.to_string());
            if let Some(v) = &value {
                s.values.push((key.clone(), v.clone()));
            }
            s.seen.push(key);
            apply(&mut s, opt, value.as_ref(), prog, t)?;
            continue;
        }
        // A cluster of short options.
        let body = &t[1..];
        if spec.digits && body.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        for (at, c) in body.char_indices() {
            if spec.digits && c.is_ascii_digit() {
                continue;
            }
            let Some(&idx) = table.by_short.get(&c) else {
                return Err(format!("`-{c}` (in `{t}`) is not an option rein models for {prog}").into());
            };
            let opt = &table.opts[idx];
            if opt.unsafe_ {
                return Err(format!(
                    "`-{c}` (in `{t}`) is an option of {prog} that rein does not vouch for (it writes, runs or reaches other code)"
                ).into());
            }
            let rest = &body[at + c.len_utf8()..];
            let attached = (!rest.is_empty()).then(|| Word { text: rest.to_string(), ..w.clone() });
            let value = match opt.arity {
                Arity::Flag => None,
                Arity::Required(_) => match attached {
                    Some(v) => Some(v),
                    None => Some(separate(take_next(&mut i).ok_or_else(|| format!("`-{c}` needs a value"))?)?),
                },
                Arity::Optional(_) => attached,
                Arity::Two(_) => {
                    let _name = take_next(&mut i).map(separate).transpose()?;
                    take_next(&mut i).map(separate).transpose()?
                }
            };
            let key = opt.long.first().map_or_else(|| c.to_string(), |l| l.to_string());
            if let Some(v) = &value {
                s.values.push((key.clone(), v.clone()));
            }
            s.seen.push(key);
            apply(&mut s, opt, value.as_ref(), prog, t)?;
            if !matches!(opt.arity, Arity::Flag) {
                break;
            }
        }
    }
    if !only_operands {
        s.after_dashdash = s.operands.len();
    }
    Ok(s)
}

/// Whether any word at all is harmless to the program: text operands, and every option
/// it has is vouched for and takes only text.
fn inert(spec: &ProgramSpec) -> bool {
    matches!(spec.operands, Operands::Text | Operands::Listed)
        && spec.parsed().opts.iter().all(|o| {
            !o.unsafe_ && matches!(o.arity, Arity::Flag | Arity::Required(Val::Text) | Arity::Optional(Val::Text))
        })
}

/// Whether no option of the program can change what it reads, writes or runs: every
/// option is vouched for and a flag or a text value, none recursive or following links,
/// and no `@file` reads more arguments. A file name that turns out to be an option then
/// changes nothing rein checks (`cat *.rs`, `head *`).
fn options_harmless(spec: &ProgramSpec) -> bool {
    !spec.response_files
        && spec.parsed().opts.iter().all(|o| {
            !o.unsafe_
                && !o.tree
                && !o.follow
                && matches!(o.arity, Arity::Flag | Arity::Required(Val::Text) | Arity::Optional(Val::Text))
        })
}

fn glob_option(w: &Word, prog: &str) -> String {
    format!(
        "`{}` may expand to a file name that {prog} reads as an option (write `./{}` or put it after `--`)",
        w.text, w.text
    )
}

/// A value given as the next word: a glob there may expand to several words, the
/// others then operands or options rein did not see.
fn separate(v: Word) -> Result<Word, NotModelled> {
    if v.glob {
        return Err(format!("`{}` may expand to several words where one value is read", v.text).into());
    }
    Ok(v)
}

/// The table entry a long option names: exactly, or (GNU) by an unambiguous prefix.
fn long_option(spec: &ProgramSpec, name: &str) -> Result<usize, NotModelled> {
    let table = spec.parsed();
    if let Some(&i) = table.by_long.get(name) {
        return Ok(i);
    }
    if spec.style == Style::Exact || name.is_empty() {
        return Err(format!("not an option rein models for {}", spec.name).into());
    }
    let mut found: Option<usize> = None;
    for (long, &i) in &table.by_long {
        if long.starts_with(name) {
            match found {
                Some(j) if j != i => return Err(format!("an ambiguous abbreviation for {}", spec.name).into()),
                _ => found = Some(i),
            }
        }
    }
    found.ok_or_else(|| NotModelled::from(format!("not an option rein models for {}", spec.name)))
}

fn apply(s: &mut Scan, opt: &super::spec::Opt, value: Option<&Word>, prog: &str, t: &str) -> Result<(), NotModelled> {
    s.tree |= opt.tree;
    s.reading.follows_links |= opt.follow;
    let kind = match opt.arity {
        Arity::Required(k) | Arity::Optional(k) | Arity::Two(k) => k,
        Arity::Flag => return Ok(()),
    };
    let Some(v) = value else { return Ok(()) };
    match kind {
        Val::Text => {}
        Val::Pattern => {
            s.pattern_given = true;
            s.patterns.push(v.clone());
        }
        _ if !v.literal || v.glob => return Err(format!("`{t}` names a file only known at run time").into()),
        Val::Read => s.reading.read(v),
        Val::PatternFile => {
            s.pattern_given = true;
            s.reading.read(v);
        }
        Val::Write => s.reading.writes.push(v.clone()),
        Val::Dir => s.reading.chdir = Some(v.clone()),
        Val::Names => {
            return Err(format!("`{t}`: {prog} reads the files named inside a file, only known at run time").into());
        }
    }
    Ok(())
}

/// Read `args` as `spec` says, operands typed by the table.
pub(super) fn parse(spec: &ProgramSpec, args: &[Word]) -> Model {
    match scan(spec, args).and_then(|s| type_operands(spec, s)) {
        Ok(r) => Model::Complete(r),
        Err(why) => Model::NotModelled(why.0),
    }
}

/// Turn a scan into what the command reads, by the table's operand kind.
pub(crate) fn type_operands(spec: &ProgramSpec, s: Scan) -> Result<Reading, NotModelled> {
    let Scan { mut reading, pattern_given, operands, tree, .. } = s;
    let files: Vec<Word> = match spec.operands {
        Operands::Text => return Ok(reading),
        Operands::Listed => {
            reading.listed.extend(operands.into_iter().filter(|w| w.literal && w.text != "-"));
            return Ok(reading);
        }
        Operands::Nothing if !operands.is_empty() => {
            return Err(format!("`{}`: {} takes no operands rein models", operands[0].text, spec.name).into());
        }
        Operands::Nothing => return Ok(reading),
        Operands::Files | Operands::Targets => operands,
        // A glob as the pattern expands to the pattern and files after it: read as files.
        Operands::PatternThenFiles => {
            let skip = !pattern_given && operands.first().is_some_and(|w| !w.glob);
            operands.into_iter().skip(usize::from(skip)).collect()
        }
        Operands::OneFile if operands.iter().any(|w| w.glob) => {
            return Err(format!(
                "`{}` may expand to several files; {}'s second is a file it writes",
                operands[0].text, spec.name
            )
            .into());
        }
        Operands::OneFile if operands.len() > 1 => {
            return Err(format!("`{}`: {}'s second operand is a file it writes", operands[1].text, spec.name).into());
        }
        Operands::OneFile => operands,
    };
    if let Some(w) = files.iter().find(|w| !w.literal) {
        return Err(unknown(w).into());
    }
    if tree {
        reading.trees = if files.is_empty() { vec![Word::literal(".")] } else { files };
    } else {
        files.iter().for_each(|w| reading.read(w));
    }
    Ok(reading)
}
