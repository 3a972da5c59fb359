//! Every option of every table, in every spelling bash and the program's parser accept,
//! models exactly as its canonical spelling does (invariant 12): long names and their
//! unambiguous abbreviations (GNU parsers), `--name=value` and `--name value`, short
//! options alone, attached, separate and inside clusters, and the quoting forms bash
//! removes (`'…'`, `"…"`, `$'…'` with escapes, backslashes, empty quotes). A spelling
//! through a value only known at run time is never modelled as complete.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rein_bash::{Arity, Model, Opt, ProgramSpec, Style, Val, analyze, model, programs, table};

/// The value used for an option: a file name for file kinds, a number otherwise.
fn value(opt: &Opt) -> Option<&'static str> {
    match opt.arity {
        Arity::Flag => None,
        Arity::Required(v) | Arity::Optional(v) | Arity::Two(v) => Some(match v {
            Val::Read | Val::Write | Val::PatternFile | Val::Names | Val::Dir => "f.txt",
            Val::Pattern | Val::Text => "1",
        }),
    }
}

fn decide(program: &str, line: &str) -> Option<Model> {
    let a = analyze(&format!("{program} {line} README.md"));
    assert!(a.understood(), "{program} {line}: {:?}", a.problems);
    let cmd = a.commands.last()?;
    model(cmd).map(|(_, m)| m.clone())
}

/// The canonical spelling of an option with its value.
fn canonical(opt: &Opt) -> String {
    let v = value(opt);
    match (opt.long.first(), opt.short.first(), opt.arity, v) {
        (Some(l), _, Arity::Two(_), Some(v)) => format!("--{l} n {v}"),
        (Some(l), _, _, Some(v)) => format!("--{l}={v}"),
        (Some(l), _, _, None) => format!("--{l}"),
        (None, Some(c), Arity::Optional(_), Some(v)) => format!("-{c}{v}"),
        (None, Some(c), _, Some(v)) => format!("-{c} {v}"),
        (None, Some(c), _, None) => format!("-{c}"),
        _ => String::new(),
    }
}

/// Every other spelling of the same option that the program's parser accepts.
fn spellings(spec: &ProgramSpec, opt: &Opt) -> Vec<String> {
    let v = value(opt);
    let mut out = Vec::new();
    for l in &opt.long {
        let name = format!("--{l}");
        let with = |n: &str| match (opt.arity, v) {
            (Arity::Two(_), Some(v)) => format!("{n} n {v}"),
            (_, Some(v)) => format!("{n}={v}"),
            (_, None) => n.to_string(),
        };
        out.push(with(&name));
        if let (Arity::Required(_), Some(v)) = (opt.arity, v) {
            out.push(format!("{name} {v}"));
        }
        // Quoting forms bash removes.
        out.push(with(&format!("'{name}'")));
        out.push(with(&format!("\"{name}\"")));
        out.push(with(&format!("--''{l}")));
        out.push(with(&format!("\\-\\-{l}")));
        out.push(with(&format!("$'\\x2d-{l}'")));
        out.push(with(&format!("$'\\055-{l}'")));
        if spec.style == Style::Gnu {
            for n in 1..l.len() {
                let prefix = &l[..n];
                let unique =
                    spec.options().iter().filter(|o| o.long.iter().any(|x| x.starts_with(prefix))).count() == 1;
                if unique && !spec.options().iter().any(|o| o.long.contains(&prefix)) {
                    out.push(with(&format!("--{prefix}")));
                }
            }
        }
    }
    let flag = spec.options().iter().find(|o| matches!(o.arity, Arity::Flag) && !o.unsafe_ && !o.short.is_empty());
    for c in &opt.short {
        let attached = v.map_or(format!("-{c}"), |v| format!("-{c}{v}"));
        if !matches!(opt.arity, Arity::Two(_)) {
            out.push(attached.clone());
            out.push(format!("'{attached}'"));
            out.push(format!("$'\\x2d{}'", &attached[1..]));
        }
        if let (Arity::Required(_), Some(v)) = (opt.arity, v) {
            out.push(format!("-{c} {v}"));
        }
        // Inside a cluster, after a flag of the same program.
        if let Some(f) = flag.filter(|f| f.short[0] != *c && !f.tree && !opt.tree)
            && !matches!(opt.arity, Arity::Two(_))
        {
            out.push(format!("-{}{}", f.short[0], &attached[1..]));
        }
    }
    out
}

/// The reading of a model without the flag the cluster test adds.
fn same(a: &Option<Model>, b: &Option<Model>) -> bool {
    match (a, b) {
        (Some(Model::Complete(x)), Some(Model::Complete(y))) => {
            x.reads == y.reads && x.writes == y.writes && x.trees == y.trees && x.follows_links == y.follows_links
        }
        (Some(Model::NotModelled(_)), Some(Model::NotModelled(_))) => true,
        _ => a.is_none() && b.is_none(),
    }
}

#[test]
fn every_spelling_of_every_option_models_as_its_canonical_spelling() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for program in programs() {
        let Some(spec) = table(program) else { continue };
        for opt in spec.options() {
            let canon = canonical(opt);
            if canon.is_empty() {
                continue;
            }
            let want = decide(program, &canon);
            for s in spellings(spec, opt) {
                checked += 1;
                let got = decide(program, &s);
                if !same(&want, &got) {
                    failures.push(format!("{program} `{s}`: {got:?}\n  but `{canon}`: {want:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} spellings differ:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 3000, "only {checked} spellings were checked");
}

#[test]
fn an_option_only_known_at_run_time_is_never_complete() {
    for program in programs() {
        let Some(spec) = table(program) else { continue };
        for opt in spec.options() {
            let canon = canonical(opt);
            if canon.is_empty() || matches!(spec.operands, rein_bash::Operands::Text | rein_bash::Operands::Listed) {
                continue;
            }
            for s in [format!("$O {canon}"), format!("\"$O\" {canon}"), format!("$(echo -x) {canon}")] {
                let got = decide(program, &s.replace(" README.md", ""));
                assert!(!matches!(got, Some(Model::Complete(_))), "{program} {s}: {got:?}");
            }
        }
    }
}

fn gnu_tables() -> Vec<&'static ProgramSpec> {
    programs().into_iter().filter_map(table).filter(|s| s.style == Style::Gnu).collect()
}

proptest! {
    /// Flags clustered in any order, alone or together, model as they do written apart.
    #[test]
    fn clusters_of_flags_model_as_the_flags_apart(pick in 0usize..1000, picks in prop::collection::vec(0usize..1000, 1..4)) {
        let tables = gnu_tables();
        let spec = tables[pick % tables.len()];
        let flags: Vec<char> = spec
            .options()
            .iter()
            .filter(|o| matches!(o.arity, Arity::Flag))
            .flat_map(|o| o.short.clone())
            .collect();
        prop_assume!(!flags.is_empty());
        let chosen: Vec<char> = picks.iter().map(|i| flags[i % flags.len()]).collect();
        let apart: Vec<String> = chosen.iter().map(|c| format!("-{c}")).collect();
        let together: String = std::iter::once('-').chain(chosen.iter().copied()).collect();
        let a = decide(spec.name, &apart.join(" "));
        let b = decide(spec.name, &together);
        prop_assert!(same(&a, &b), "{} `{}` vs `{}`: {:?} / {:?}", spec.name, apart.join(" "), together, a, b);
    }
}
