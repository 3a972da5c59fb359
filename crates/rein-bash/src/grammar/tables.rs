//! The option tables of the programs rein vouches for as readers, and of the runners a
//! prefix rule can allow. Each lists every option the program has that rein knows of;
//! the ones it does not vouch for carry `^` (see `spec.rs` for the notation). Options
//! not listed at all are "not modelled".

use std::sync::LazyLock;

use super::Model;
use super::getopt::Style;
use super::spec::{Operands, ProgramSpec};
use crate::Word;

use Operands::{Files, Listed, Nothing, OneFile, PatternThenFiles, Text};
use Style::{Exact, Gnu};

const HV: &str = " --help --version";

fn p(name: &'static str, style: Style, ops: Operands, text: &'static str) -> ProgramSpec {
    ProgramSpec::new(name, style, ops, text)
}

const GREP: &str = "-E|--extended-regexp -F|--fixed-strings -G|--basic-regexp -P|--perl-regexp -e|--regexp=pat \
 -f|--file=patfile -i|-y|--ignore-case --no-ignore-case -v|--invert-match -w|--word-regexp -x|--line-regexp \
 -c|--count --color|--colour?=text -L|--files-without-match -l|--files-with-matches -m|--max-count=text \
 -o|--only-matching -q|--quiet|--silent -s|--no-messages -b|--byte-offset -H|--with-filename -h|--no-filename \
 --label=text -n|--line-number -T|--initial-tab -Z|--null -A|--after-context=text -B|--before-context=text \
 -C|--context=text -a|--text --binary-files=text -I -D|--devices=text -d|--directories=text!tree \
 --exclude=text --exclude-from=read --exclude-dir=text --include=text -r|--recursive!tree \
 -R|--dereference-recursive!follow --line-buffered -U|--binary -z|--null-data -V|--version --help";

const RG: &str = "-i|--ignore-case -s|--case-sensitive -S|--smart-case -F|--fixed-strings --no-fixed-strings \
 -w|--word-regexp -x|--line-regexp -v|--invert-match -n|--line-number -N|--no-line-number -c|--count \
 --count-matches -l|--files-with-matches --files-without-match -o|--only-matching -q|--quiet -H|--with-filename \
 -I|--no-filename --heading --no-heading --color=text --colors=text -p|--pretty --vimgrep --json --no-json \
 --column --no-column -b|--byte-offset -0|--null --null-data -A|--after-context=text -B|--before-context=text \
 -C|--context=text -m|--max-count=text -M|--max-columns=text --max-columns-preview -d|--max-depth|--maxdepth=text \
 --max-filesize=text -g|--glob=text --iglob=text --glob-case-insensitive -t|--type=text -T|--type-not=text \
 --type-add=text --type-clear=text --type-list --files --sort=text --sortr=text -e|--regexp=pat -f|--file=patfile \
 -U|--multiline --multiline-dotall -P|--pcre2 --no-pcre2 --engine=text -E|--encoding=text --no-encoding \
 -j|--threads=text --trim --no-trim -r|--replace=text --passthru|--passthrough --stats --debug --trace \
 --no-messages --no-config --line-buffered --block-buffered --mmap --no-mmap --crlf --no-crlf --no-unicode \
 -a|--text --binary --no-binary --one-file-system --path-separator=text --field-match-separator=text \
 --field-context-separator=text --context-separator=text --no-context-separator --include-zero \
 --no-require-git --ignore-file-case-insensitive --ignore-file=read -L|--follow!follow \
 -.|--hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent --no-ignore-global \
 --no-ignore-exclude --no-ignore-files --no-ignore-messages -u|--unrestricted \
 --auto-hybrid-regex --no-auto-hybrid-regex --hyperlink-format=text --stop-on-nonmatch \
 -h|--help -V|--version --pcre2-version ^--pre=text ^--pre-glob=text ^-z|--search-zip ^--hostname-bin=text";

pub(crate) static PROGRAMS: LazyLock<Vec<ProgramSpec>> = LazyLock::new(|| {
    vec![
        p("cat", Gnu, Files, "-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u -v|--show-nonprinting --help --version"),
        p("tac", Gnu, Files, "-b|--before -r|--regex -s|--separator=text --help --version"),
        p("head", Gnu, Files, "-c|--bytes=text -n|--lines=text -q|--quiet|--silent -v|--verbose -z|--zero-terminated --help --version").digits(),
        p("tail", Gnu, Files, "-c|--bytes=text -f|--follow?=text -F -n|--lines=text --max-unchanged-stats=text --pid=text -q|--quiet|--silent --retry -s|--sleep-interval=text -v|--verbose -z|--zero-terminated --help --version").digits(),
        p("wc", Gnu, Files, "-c|--bytes -m|--chars -l|--lines --files0-from=names -L|--max-line-length -w|--words --total=text --help --version"),
        p("grep", Gnu, PatternThenFiles, GREP).digits(),
        p("egrep", Gnu, PatternThenFiles, GREP).digits(),
        p("fgrep", Gnu, PatternThenFiles, GREP).digits(),
        p("rg", Exact, PatternThenFiles, RG).tree_by_default(),
        p("sort", Gnu, Files, "-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort -i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort --random-source=read -r|--reverse --sort=text -V|--version-sort --batch-size=text -c --check?=text -C ^--compress-program=text --debug --files0-from=names -k|--key=text -m|--merge -o|--output=write -s|--stable -S|--buffer-size=text -t|--field-separator=text ^-T|--temporary-directory=dir --parallel=text -u|--unique -z|--zero-terminated --help --version"),
        p("uniq", Gnu, OneFile, "-c|--count -d|--repeated -D --all-repeated?=text -f|--skip-fields=text --group?=text -i|--ignore-case -s|--skip-chars=text -u|--unique -z|--zero-terminated -w|--check-chars=text --help --version").digits(),
        p("cut", Gnu, Files, "-b|--bytes=text -c|--characters=text -d|--delimiter=text -f|--fields=text -n --complement -s|--only-delimited --output-delimiter=text -z|--zero-terminated --help --version"),
        p("tr", Gnu, Text, "-c|-C|--complement -d|--delete -s|--squeeze-repeats -t|--truncate-set1 --help --version"),
        p("nl", Gnu, Files, "-b|--body-numbering=text -d|--section-delimiter=text -f|--footer-numbering=text -h|--header-numbering=text -i|--line-increment=text -l|--join-blank-lines=text -n|--number-format=text -p|--no-renumber -s|--number-separator=text -v|--starting-line-number=text -w|--number-width=text --help --version"),
        p("od", Gnu, Files, "-A|--address-radix=text --endian=text -j|--skip-bytes=text -N|--read-bytes=text -S=text --strings?=text -t|--format=text -v|--output-duplicates -w|--width?=text --traditional -a -b -c -d -f -i -l -o -s -x --help --version"),
        p("hexdump", Gnu, Files, "-b -c -C -d -o -x -e=text -f=read -L?=text -n=text -s=text -v -h|--help -V|--version"),
        p("base64", Gnu, OneFile, "-d|--decode -i|--ignore-garbage -w|--wrap=text --help --version"),
        p("base32", Gnu, OneFile, "-d|--decode -i|--ignore-garbage -w|--wrap=text --help --version"),
        p("md5sum", Gnu, Files, SUMS),
        p("sha1sum", Gnu, Files, SUMS),
        p("sha224sum", Gnu, Files, SUMS),
        p("sha256sum", Gnu, Files, SUMS),
        p("sha384sum", Gnu, Files, SUMS),
        p("sha512sum", Gnu, Files, SUMS),
        p("b2sum", Gnu, Files, SUMS),
        p("cksum", Gnu, Files, "-a|--algorithm=text --base64 ^-c|--check -l|--length=text --raw --tag --untagged -z|--zero --debug --ignore-missing --quiet --status --strict -w|--warn --help --version"),
        p("stat", Gnu, Files, "-L|--dereference -f|--file-system -c|--format=text --printf=text -t|--terse --cached=text --help --version"),
        p("file", Gnu, Files, "-b|--brief -c|--checking-printout ^-C|--compile -d|--debug -E -e|--exclude=text --exclude-quiet=text -f|--files-from=names -F|--separator=text -h|--no-dereference -i|--mime --mime-type --mime-encoding -k|--keep-going -l|--list -L|--dereference -m|--magic-file=read -N|--no-pad -n|--no-buffer -0|--print0 ^-p|--preserve-date -P|--parameter=text -r|--raw -s|--special-files -S|--no-sandbox ^-z|--uncompress ^-Z|--uncompress-noreport --extension --apple -v|--version --help"),
        p("realpath", Gnu, Listed, "-e|--canonicalize-existing -m|--canonicalize-missing -L|--logical -P|--physical -q|--quiet --relative-to=text --relative-base=text -s|--strip|--no-symlinks -z|--zero --help --version"),
        p("readlink", Gnu, Listed, "-f|--canonicalize -e|--canonicalize-existing -m|--canonicalize-missing -n|--no-newline -q|--quiet -s|--silent -v|--verbose -z|--zero --help --version"),
        p("basename", Gnu, Text, "-a|--multiple -s|--suffix=text -z|--zero --help --version"),
        p("dirname", Gnu, Text, "-z|--zero --help --version"),
        p("ls", Gnu, Listed, LS),
        p("dir", Gnu, Listed, LS),
        p("du", Gnu, Listed, "-a|--all --apparent-size -B|--block-size=text -b|--bytes -c|--total -D|--dereference-args -d|--max-depth=text --files0-from=names -H -h|--human-readable --inodes -k -L|--dereference -l|--count-links -m -P|--no-dereference -S|--separate-dirs --si -s|--summarize -t|--threshold=text --time?=text --time-style=text -X|--exclude-from=read --exclude=text -x|--one-file-system -0|--null --help --version"),
        p("df", Gnu, Text, "-a|--all -B|--block-size=text -h|--human-readable -H|--si -i|--inodes -k -l|--local --no-sync --output?=text -P|--portability --sync --total -t|--type=text -T|--print-type -x|--exclude-type=text -v --help --version"),
        p("diff", Gnu, Files, "-q|--brief -s|--report-identical-files -c -C=text --context?=text -u -U=text --unified?=text -e|--ed -n|--rcs -y|--side-by-side -W|--width=text --left-column --suppress-common-lines -p|--show-c-function -F|--show-function-line=text --label=text -t|--expand-tabs -T|--initial-tab --tabsize=text --suppress-blank-empty ^-l|--paginate -r|--recursive!tree --no-dereference -N|--new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -x|--exclude=text -X|--exclude-from=read -S|--starting-file=text --from-file=read --to-file=read -i|--ignore-case -E|--ignore-tab-expansion -Z|--ignore-trailing-space -b|--ignore-space-change -w|--ignore-all-space -B|--ignore-blank-lines -I|--ignore-matching-lines=text -a|--text --strip-trailing-cr -D|--ifdef=text --old-group-format=text --new-group-format=text --unchanged-group-format=text --changed-group-format=text --line-format=text --old-line-format=text --new-line-format=text --unchanged-line-format=text -d|--minimal --horizon-lines=text --speed-large-files --color?=text --palette=text --normal --help -v|--version").tree_by_default(),
        p("cmp", Gnu, Files, "-b|--print-bytes -i|--ignore-initial=text -l|--verbose -n|--bytes=text -s|--quiet|--silent --help -v|--version"),
        p("comm", Gnu, Files, "-1 -2 -3 --check-order --nocheck-order --output-delimiter=text --total -z|--zero-terminated --help --version"),
        p("paste", Gnu, Files, "-d|--delimiters=text -s|--serial -z|--zero-terminated --help --version"),
        p("column", Gnu, Files, "-t|--table -s|--separator=text -o|--output-separator=text -c|--output-width=text -x|--fillrows -n|--table-name=text -N|--table-columns=text -R|--table-right=text -T|--table-truncate=text -E|--table-noextreme=text -W|--table-wrap=text -H|--table-hide=text -O|--table-order=text -e|--table-header-repeat -J|--json -r|--tree=text -i|--tree-id=text -p|--tree-parent=text -l|--table-columns-limit=text -L|--keep-empty-lines -d|--table-noheadings -C|--table-column=text -h|--help -V|--version"),
        p("rev", Gnu, Files, "-0|--zero -h|--help -V|--version"),
        p("fold", Gnu, Files, "-b|--bytes -s|--spaces -w|--width=text --help --version").digits(),
        p("fmt", Gnu, Files, "-c|--crown-margin -p|--prefix=text -s|--split-only -t|--tagged-paragraph -u|--uniform-spacing -w|--width=text -g|--goal=text --help --version").digits(),
        p("expand", Gnu, Files, "-i|--initial -t|--tabs=text --help --version").digits(),
        p("unexpand", Gnu, Files, "-a|--all --first-only -t|--tabs=text --help --version").digits(),
        p("strings", Gnu, Files, "-a|--all -d|--data -f|--print-file-name -n|--bytes=text -t|--radix=text -o -T|--target=text -e|--encoding=text -s|--output-separator=text -w|--include-all-whitespace -U|--unicode=text --help -v|-V|--version").digits().response_files(),
        p("seq", Gnu, Text, "-f|--format=text -s|--separator=text -w|--equal-width --help --version").digits(),
        p("numfmt", Gnu, Text, "--debug -d|--delimiter=text --field=text --format=text --from=text --from-unit=text --grouping --header?=text --invalid=text --padding=text --round=text --suffix=text --unit-separator=text --to=text --to-unit=text -z|--zero-terminated --help --version"),
        p("pwd", Gnu, Nothing, "-L -P --help --version"),
        p("whoami", Gnu, Nothing, HV),
        p("id", Gnu, Text, "-a -Z|--context -g|--group -G|--groups -n|--name -r|--real -u|--user -z|--zero --help --version"),
        p("groups", Gnu, Text, HV),
        p("uname", Gnu, Nothing, "-a|--all -s|--kernel-name -n|--nodename -r|--kernel-release -v|--kernel-version -m|--machine -p|--processor -i|--hardware-platform -o|--operating-system --help --version"),
        p("arch", Gnu, Nothing, HV),
        p("nproc", Gnu, Nothing, "--all --ignore=text --help --version"),
        p("tty", Gnu, Nothing, "-s|--silent|--quiet --help --version"),
        p("printenv", Gnu, Text, "-0|--null --help --version"),
        p("sleep", Gnu, Text, HV),
        p("which", Gnu, Text, "-a -s"),
        p("whereis", Gnu, Text, "-b -m -s -u -l"),
        p("type", Gnu, Text, "-a -f -P -p -t"),
        p("locale", Gnu, Text, "-a|--all-locales -m|--charmaps -c|--category-name -k|--keyword-name -v|--verbose --help --usage -V|--version"),
        p("expr", Gnu, Text, HV),
        p("true", Gnu, Text, ""),
        p("false", Gnu, Text, ""),
        p("tree", Exact, Listed, "-a -d -l -f -x -L=text -P=text -I=text --gitignore --ignore-case --matchdirs --prune --noreport --charset=text --filelimit=text -h -s -u -g -p -D -F -q -N -Q -r -t -c -U -v --dirsfirst --filesfirst -S -n -C -i -A -J -X --du --si --version --help --sort=text ^-o=write ^-R ^--fromfile ^--info ^--infofile=read -H=text -T=text"),
    ]
});

const SUMS: &str = "-b|--binary ^-c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn -l|--length=text --help --version";

const LS: &str = "-a|--all -A|--almost-all --author -b|--escape --block-size=text -B|--ignore-backups -c -C \
 --color?=text -d|--directory -D|--dired -f -F|--classify?=text --file-type --format=text --full-time -g \
 --group-directories-first -G|--no-group -h|--human-readable --si -H|--dereference-command-line \
 --dereference-command-line-symlink-to-dir --hide=text --hyperlink?=text --indicator-style=text -i|--inode \
 -I|--ignore=text -k|--kibibytes -l -L|--dereference -m -n|--numeric-uid-gid -N|--literal -o -p \
 -q|--hide-control-chars --show-control-chars -Q|--quote-name --quoting-style=text -r|--reverse -R|--recursive \
 -s|--size -S --sort=text --time=text --time-style=text -t -T|--tabsize=text -u -U -v -w|--width=text -x -X \
 -Z|--context --zero -1 --help --version";

/// The table of `name`.
pub(crate) fn program(name: &str) -> Option<&'static ProgramSpec> {
    PROGRAMS.iter().find(|s| s.name == name)
}

pub(crate) fn names() -> Vec<&'static str> {
    PROGRAMS.iter().map(|s| s.name).collect()
}

/// The runners a prefix rule can allow (`npm test`, `cargo test`, `make`, `pytest`):
/// covered only when every option is one that keeps them on the project's own code.
pub(crate) fn runner(program: &str, args: &[Word]) -> Option<Model> {
    super::special::runner(program, args)
}
