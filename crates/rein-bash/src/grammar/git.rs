//! git: its global options, then a subcommand that only reads, each with its own table
//! (git's subcommands take long options exactly here: an abbreviation git might accept
//! is not modelled). Object specs (`HEAD:.env`) name files of the repository; `-C DIR`
//! moves the repository; every git command loads its repository's configuration,
//! which the effects layer reads.

use super::NotModelled;
use super::getopt::{Scan, Style, scan};
use super::spec::{Operands, ProgramSpec};
use super::{Model, Reading, unknown};
use crate::Word;

const LOG: &str = "--oneline --graph --decorate?=text --no-decorate --all --branches?=text --tags?=text \
 --remotes?=text -n|--max-count=text --skip=text --since|--after|--since-as-filter=text --until|--before=text \
 --author=text --committer=text --grep=text --grep-reflog=text -i|--regexp-ignore-case --invert-grep --all-match \
 -E|--extended-regexp -F|--fixed-strings -P|--perl-regexp --basic-regexp --merges --no-merges --min-parents=text \
 --max-parents=text --no-min-parents --no-max-parents --first-parent --exclude-first-parent-only --not --reverse \
 --topo-order --date-order --author-date-order --no-walk?=text --do-walk --format=text --pretty?=text \
 --abbrev-commit --no-abbrev-commit --abbrev?=text --no-abbrev --date=text --relative-date --parents --children \
 --left-right --left-only --right-only --cherry-pick --cherry-mark --cherry --boundary --follow --no-follow \
 --full-history --dense --sparse --simplify-merges --simplify-by-decoration --ancestry-path?=text --show-pulls \
 --source --use-mailmap --mailmap --no-mailmap --encoding=text --expand-tabs?=text --no-expand-tabs \
 --notes?=text --no-notes --show-notes?=text --standard-notes --no-standard-notes --log-size --color?=text \
 --no-color -p|-u|--patch -s|--no-patch --raw --patch-with-raw --stat?=text --numstat --shortstat \
 --dirstat?=text --cumulative --dirstat-by-file?=text --summary --patch-with-stat -z --name-only --name-status \
 --submodule?=text --word-diff?=text --word-diff-regex=text --color-words?=text --no-renames --rename-empty \
 --no-rename-empty -M|--find-renames?=text -C|--find-copies?=text --find-copies-harder -D|--irreversible-delete \
 -l=text -B|--break-rewrites?=text --diff-filter=text -S=text -G=text --find-object=text --pickaxe-all \
 --pickaxe-regex -O=read -R --relative?=text --no-relative -a|--text --ignore-cr-at-eol --ignore-space-at-eol \
 -b|--ignore-space-change -w|--ignore-all-space --ignore-blank-lines -I|--ignore-matching-lines=text \
 --inter-hunk-context=text -W|--function-context --exit-code --quiet --no-ext-diff --no-textconv \
 --ignore-submodules?=text --src-prefix=text --dst-prefix=text --no-prefix --default-prefix --line-prefix=text \
 --ita-invisible-in-index --ita-visible-in-index -U|--unified=text --minimal --patience --histogram \
 --diff-algorithm=text --anchored=text --indent-heuristic --no-indent-heuristic --full-index --binary --check \
 --compact-summary --color-moved?=text --no-color-moved --color-moved-ws=text --no-color-moved-ws \
 --ws-error-highlight=text -L=text --show-linear-break?=text --cc -c -m --diff-merges=text --no-diff-merges \
 --combined-all-paths --remerge-diff --exclude=text --single-worktree --reflog -g|--walk-reflogs --bisect \
 --ignore-missing --count --objects --objects-edge --no-object-names --object-names --cached --staged \
 --merge-base -t --root --no-commit-id --always --stdin --show-origin --in-commit-order --max-age=text \
 --min-age=text --timestamp --header --full-diff --clear-decorations --decorate-refs=text \
 --decorate-refs-exclude=text --committer-date-order -h --help ^--output=write ^--ext-diff ^--textconv \
 ^--show-signature ^--no-index ^--output-indicator-new=text";

const STATUS: &str = "-s|--short -b|--branch --show-stash --porcelain?=text --long -v|--verbose \
 -u|--untracked-files?=text --ignore-submodules?=text --ignored?=text -z --column?=text --no-column \
 --ahead-behind --no-ahead-behind --renames --no-renames --find-renames?=text -h --help";

const GREP: &str = "-a|--text ^--textconv --no-textconv -i|--ignore-case -I --max-depth=text -r|--recursive \
 --no-recursive -w|--word-regexp -v|--invert-match -h -H --full-name -E|--extended-regexp -G|--basic-regexp \
 -P|--perl-regexp -F|--fixed-strings -n|--line-number --column -l|--files-with-matches|--name-only \
 -L|--files-without-match ^-O|--open-files-in-pager?=text -z|--null -o|--only-matching -c|--count \
 --color?=text --no-color --break --heading -p|--show-function -A|--after-context=text \
 -B|--before-context=text -C|--context=text -W|--function-context -m|--max-count=text --threads=text \
 -f=patfile -e=pat --and --or --not --all-match -q|--quiet --cached --untracked ^--no-index --exclude-standard \
 --no-exclude-standard --recurse-submodules --parent-basename=text --help";

const LS_FILES: &str = "-c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -u|--unmerged \
 -k|--killed -z -t -v -f --directory --no-empty-directory --eol -x|--exclude=text -X|--exclude-from=read \
 --exclude-per-directory=text --exclude-standard --error-unmatch --full-name --recurse-submodules --abbrev?=text \
 --debug --deduplicate --sparse --format=text --with-tree=text --help";

const BLAME: &str = "-b --root --show-stats -L=text -l -t -S=read --reverse=text --first-parent -p|--porcelain \
 --line-porcelain --incremental --encoding=text --contents=read --date=text --progress --no-progress -M?=text \
 -C?=text --ignore-rev=text --ignore-revs-file=read --color-lines --color-by-age -c -f|--show-name \
 -n|--show-number -s -e|--show-email -w --abbrev=text --score-debug -h --help";

const REV_PARSE: &str = "--show-toplevel --git-dir --abbrev-ref?=text --short?=text --verify -q|--quiet \
 --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --show-prefix --show-cdup \
 --absolute-git-dir --git-common-dir --symbolic-full-name --symbolic --all --branches?=text --tags?=text \
 --remotes?=text --glob=text --exclude=text --sq --sq-quote --default=text --revs-only --no-revs --flags \
 --no-flags --show-superproject-working-tree --path-format=text --local-env-vars --resolve-git-dir=text \
 --git-path=text --show-object-format?=text --show-ref-format --since|--after=text --until|--before=text \
 --disambiguate=text --prefix=text --keep-dashdash --stop-at-non-option --end-of-options --help";

const LISTING: &str = "--show-current -a|--all -r|--remotes -v|-vv|--verbose -l|--list --contains?=text \
 --no-contains?=text --merged?=text --no-merged?=text --points-at=text --column?=text --no-column --color?=text \
 --no-color -i|--ignore-case -n=text --sort=text --format=text --abbrev=text --no-abbrev --omit-empty \
 -q|--quiet --help";

fn sub(name: &'static str, ops: Operands, text: &'static str) -> ProgramSpec {
    ProgramSpec::new(name, Style::Exact, ops, text)
}

static SUBCOMMANDS: std::sync::LazyLock<Vec<ProgramSpec>> = std::sync::LazyLock::new(|| {
    use Operands::{Files, Nothing, PatternThenFiles, Text};
    vec![
        sub("git log", Files, LOG).digits(),
        sub("git show", Files, LOG).digits(),
        sub("git diff", Files, LOG).digits(),
        sub("git whatchanged", Files, LOG).digits(),
        sub(
            "git shortlog",
            Files,
            "-n|--numbered -s|--summary -e|--email -c|--committer --group=text -w?=text --format=text",
        ),
        sub("git rev-list", Files, LOG).digits(),
        sub("git status", Text, STATUS),
        sub("git grep", PatternThenFiles, GREP).digits(),
        sub("git ls-files", Text, LS_FILES),
        sub("git blame", Files, BLAME),
        sub("git annotate", Files, BLAME),
        sub("git rev-parse", Text, REV_PARSE),
        sub(
            "git describe",
            Text,
            "--all --tags --contains --abbrev=text --candidates=text --exact-match --debug --long --match=text --exclude=text --always --first-parent --dirty?=text --broken?=text --help",
        ),
        sub(
            "git ls-tree",
            Text,
            "-d -r -t -l|--long -z --name-only|--name-status --object-only --full-name --full-tree --abbrev?=text --format=text --help",
        ),
        sub(
            "git cat-file",
            Files,
            "-t -s -e -p ^--textconv ^--filters --batch?=text --batch-check?=text --batch-command?=text --batch-all-objects --buffer --follow-symlinks --unordered --allow-unknown-type -Z --path=text --mailmap --use-mailmap --no-mailmap --help",
        ),
        sub("git merge-base", Text, "-a|--all --octopus --independent --is-ancestor --fork-point --help"),
        sub(
            "git for-each-ref",
            Text,
            "--count=text --sort=text --format=text --color?=text -s|--shell -p|--perl --python --tcl --points-at=text --merged?=text --no-merged?=text --contains?=text --no-contains?=text --ignore-case --omit-empty --exclude=text --include-root-refs --help",
        ),
        sub(
            "git show-ref",
            Text,
            "--head --tags --branches --heads -d|--dereference -s|--hash?=text --abbrev?=text --verify -q|--quiet --exists --help",
        ),
        sub("git name-rev", Text, "--tags --refs=text --exclude=text --all --name-only --no-undefined --always --help"),
        sub("git count-objects", Nothing, "-v|--verbose -H|--human-readable --help"),
        sub("git branch", Text, LISTING),
        sub("git tag", Text, LISTING),
        sub("git remote", Nothing, "-v|--verbose --help"),
    ]
});

/// The model of `git ARGS`.
pub(crate) fn model(args: &[Word]) -> Model {
    match git(args) {
        Ok(r) => Model::Complete(r),
        Err(why) => Model::NotModelled(why.0),
    }
}

fn git(args: &[Word]) -> Result<Reading, NotModelled> {
    let mut r = Reading::default();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        if !w.literal {
            return Err(unknown(w).into());
        }
        let t = w.text.as_str();
        if !t.starts_with('-') {
            break;
        }
        match t {
            "-C" => {
                let dir = args.get(i + 1).ok_or("`git -C` needs a directory")?;
                if !dir.literal || dir.glob {
                    return Err(unknown(dir).into());
                }
                // `-C a -C b` is `a/b`.
                let text = match &r.chdir {
                    Some(prev) if !dir.text.starts_with(['/', '~']) => format!("{}/{}", prev.text, dir.text),
                    _ => dir.text.clone(),
                };
                r.chdir = Some(Word::literal(text));
                i += 2;
            }
            "--no-pager"
            | "-P"
            | "--no-optional-locks"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-replace-objects"
            | "--no-lazy-fetch"
            | "--no-advice"
            | "--version"
            | "--help"
            | "--exec-path"
            | "--html-path"
            | "--man-path"
            | "--info-path" => i += 1,
            _ => return Err(format!("`{t}` is a git option rein does not vouch for").into()),
        }
    }
    let Some(name) = args.get(i) else { return Ok(r) };
    let rest = &args[i + 1..];
    let Some(spec) = SUBCOMMANDS.iter().find(|s| s.name.strip_prefix("git ") == Some(name.text.as_str())) else {
        return Err(format!("`git {}` is not a git command rein models as read-only", name.text).into());
    };
    let s = scan(spec, rest)?;
    let sub = name.text.as_str();
    match sub {
        "branch" | "tag" => lists_only(sub, &s)?,
        "grep" => {
            // A search of the repository's files: the tree it runs in, every file.
            r.trees.push(Word::literal("."));
        }
        _ => {}
    }
    let object_paths = matches!(
        sub,
        "log" | "show" | "diff" | "whatchanged" | "rev-list" | "cat-file" | "grep" | "blame" | "annotate"
    );
    r.repo_history = prints_history(sub, &s);
    // `git diff` with no revision compares the work tree with the index: nothing from
    // history (`--cached` compares with HEAD, a revision with that commit).
    r.worktree_diff =
        sub == "diff" && !s.seen.iter().any(|o| matches!(o.as_str(), "cached" | "staged" | "merge-base" | "no-index"));
    r.diff_any_paths = sub == "diff";
    let Scan { reading, operands, pattern_given, after_dashdash, .. } = s;
    r.reads.extend(reading.reads);
    r.writes.extend(reading.writes);
    let skipped = spec.operands == Operands::PatternThenFiles && !pattern_given;
    let operands: Vec<Word> = if skipped { operands.into_iter().skip(1).collect() } else { operands };
    if spec.operands == Operands::Text || spec.operands == Operands::Nothing {
        if spec.operands == Operands::Nothing && !operands.is_empty() {
            return Err(format!("`git {sub} {}` does more than list", operands[0].text).into());
        }
        return Ok(r);
    }
    let dashdash = after_dashdash.saturating_sub(usize::from(skipped));
    for (n, w) in operands.into_iter().enumerate() {
        // Before `--` a glob's matches may be revisions (`HEAD:.env`) or options.
        if !w.literal || (w.glob && n < dashdash) {
            return Err(unknown(&w).into());
        }
        match w.text.split_once(':') {
            // `REV:path` names a file of the repository (relative to its top, or to the
            // working directory when it starts with `./` or `../`); `:path` one of the index.
            Some((rev, path)) if object_paths && !rev.contains('/') && !path.is_empty() => {
                r.repo_reads.push(Word { text: path.to_string(), ..w.clone() });
            }
            _ => r.read(&w),
        }
    }
    Ok(r)
}

/// Whether the command prints file contents from the repository's history or index
/// (patches, blobs, a search of a revision): files no path on the line names.
fn prints_history(sub: &str, s: &Scan) -> bool {
    let seen = |names: &[&str]| s.seen.iter().any(|o| names.contains(&o.as_str()));
    const PATCH: &[&str] = &[
        "patch",
        "L",
        "cc",
        "c",
        "m",
        "word-diff",
        "color-words",
        "patch-with-stat",
        "patch-with-raw",
        "remerge-diff",
    ];
    const SUMMARY_ONLY: &[&str] = &[
        "stat",
        "numstat",
        "shortstat",
        "name-only",
        "name-status",
        "no-patch",
        "quiet",
        "summary",
        "dirstat",
        "compact-summary",
        "raw",
        "exit-code",
    ];
    match sub {
        "log" | "whatchanged" | "rev-list" | "shortlog" => seen(PATCH),
        "show" | "diff" => seen(PATCH) || !seen(SUMMARY_ONLY),
        "cat-file" => {
            !s.seen.is_empty() && !s.seen.iter().all(|o| matches!(o.as_str(), "t" | "s" | "e")) || s.seen.is_empty()
        }
        "grep" => seen(&["cached"]) || s.operands.len() > usize::from(!s.pattern_given),
        _ => false,
    }
}

/// `git branch`/`git tag` that only list: a name is a pattern only with a listing option
/// (a bare name would create a branch or tag).
fn lists_only(name: &str, s: &Scan) -> Result<(), NotModelled> {
    let listing = s.seen.iter().any(|o| {
        matches!(
            o.as_str(),
            "list" | "contains" | "no-contains" | "merged" | "no-merged" | "points-at" | "show-current"
        )
    });
    match s.operands.first() {
        Some(w) if !listing => Err(format!("`git {name} {}` creates or changes a {name}", w.text).into()),
        _ => Ok(()),
    }
}
