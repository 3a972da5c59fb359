//! Attacks written by reading rein's own models (issue 25, invariant 12), through the real
//! binary: option spellings getopt accepts, wrappers in every form, words only known at
//! run time, trees, configuration a program loads, runners pointed at other code, reads
//! outside the workspace. Each is run for real in bash first (with no engine at all) to
//! show it does what it claims — reads the secret, writes outside, or runs a program —
//! then `rein permissions check` must deny or ask it. And everyday commands under the
//! same rules must run with no question.

use std::path::Path;
use std::process::Command;

use crate::common::Env;

/// What an attack does when nothing stops it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fires {
    /// Its output holds the secret in `.env`.
    Secret,
    /// It creates `@OUT@/w` (outside the workspace) or runs `touch @OUT@/w`.
    Marker,
    /// Not run here (it needs a tool or a privilege a test machine lacks, or it would
    /// harm the machine); its decision is still checked.
    NotRun,
}

use Fires::{Marker, NotRun, Secret};

const ATTACKS: &[(&str, Fires)] = &[
    // Options, in every spelling getopt accepts.
    ("sort --out=@OUT@/w README.md", Marker),
    ("sort --outp=@OUT@/w README.md", Marker),
    ("sort -uo@OUT@/w README.md", Marker),
    ("sort -u -o @OUT@/w README.md", Marker),
    ("sort $'-o' @OUT@/w README.md", Marker),
    ("sort --random-source=.env README.md", NotRun),
    ("grep -f .env README.md", NotRun),
    ("grep --file=.env README.md", NotRun),
    ("grep --fil=.env README.md", NotRun),
    ("grep -rf.env README.md", NotRun),
    ("grep -e API -- .env", Secret),
    ("grep --exclude-from=.env x README.md", NotRun),
    ("grep -d recurse API .", Secret),
    ("grep --directories=recurse API .", Secret),
    ("grep --recur API .", Secret),
    ("grep -R API .", Secret),
    ("cat -- .env", Secret),
    ("head -n 5 -- .env", Secret),
    ("diff --from-file=.env README.md", Secret),
    ("wc --files0-from=list0 README.md", NotRun),
    ("git log --output=@OUT@/w -n1", Marker),
    ("git log --output @OUT@/w -n1", Marker),
    ("git diff --out=@OUT@/w", NotRun),
    ("git --git-dir=/tmp/x log", NotRun),
    ("git --work-tree=/ status", NotRun),
    ("git --bare log", NotRun),
    ("git -C / status", NotRun),
    ("git -C sub -C .. -C .. log", NotRun),
    ("git --config-env=core.pager=HOME log", NotRun),
    ("git -c core.pager='touch @OUT@/w' log", NotRun),
    ("git show HEAD:.env", Secret),
    ("git log -p -- .env", Secret),
    ("sed --expression='w @OUT@/w' README.md", Marker),
    ("sed -e p -e 'w @OUT@/w' README.md", Marker),
    ("sed -n '1r .env' README.md", Secret),
    ("sed -n '1e touch @OUT@/w' README.md", Marker),
    ("sed -i'@OUT@/*' s/a/b/ README.md", Marker),
    ("sed -f script.sed README.md", NotRun),
    ("jq --rawfile a .env -n $'$a'", Secret),
    ("jq --slurpfile a data.json -n '$b' --rawfile b .env", Secret),
    ("jq -n 'import \"x\" as x; 1'", NotRun),
    ("find . -fprint0 @OUT@/w", Marker),
    ("find . -fls @OUT@/w", Marker),
    ("find . -fprintf @OUT@/w %p", Marker),
    ("find . -name .env -exec cat {} \\;", Secret),
    ("find / -maxdepth 1 -name etc", NotRun),
    ("date -s 2020-01-01", NotRun),
    ("date 0101010120", NotRun),
    ("hostname evil", NotRun),
    ("uniq README.md @OUT@/w", Marker),
    ("xxd README.md @OUT@/w", Marker),
    ("xxd -r README.md @OUT@/w", NotRun),
    ("file -z README.md", NotRun),
    ("sha256sum -c sums.txt", NotRun),
    ("cat /etc/hostname", NotRun),
    ("head -n1 /etc/passwd", NotRun),
    ("grep root /etc/passwd", NotRun),
    ("cat ../outside-secret.txt", NotRun),
    // Wrappers, unwrapped by their whole grammar.
    ("env --chdir=.. cat x", NotRun),
    ("env --ch=.. cat x", NotRun),
    ("env -C.. cat x", NotRun),
    ("env -S 'cat .env'", Secret),
    ("env --split-string='touch @OUT@/w'", Marker),
    ("env -iS'touch @OUT@/w'", Marker),
    ("env -- rm -f README.md", NotRun),
    ("timeout -s KILL 5 rm -f README.md", NotRun),
    ("timeout --signal=KILL -k 1 5 rm -f README.md", NotRun),
    ("nice -n 5 rm -f README.md", NotRun),
    ("nice -5 rm -f README.md", NotRun),
    ("stdbuf -oL rm -f README.md", NotRun),
    ("command -p rm -f README.md", NotRun),
    ("builtin eval 'touch @OUT@/w'", Marker),
    ("strace -f -o /dev/null rm -f README.md", NotRun),
    ("busybox rm -f README.md", NotRun),
    ("xargs -a .env echo", Secret),
    ("xargs --arg-file=.env echo", Secret),
    ("flock /tmp/rein-attack.lock -c 'touch @OUT@/w'", Marker),
    ("setsid rm -f README.md", NotRun),
    ("ionice -c3 rm -f README.md", NotRun),
    ("taskset -c 0 rm -f README.md", NotRun),
    ("watch -n1 -e 'rm -f README.md'", NotRun),
    ("exec 3< .env && cat <&3", Secret),
    ("bash -xc 'touch @OUT@/w'", Marker),
    ("sh -ec 'cat .env'", Secret),
    ("bash --norc -c 'cat .env'", Secret),
    ("bash -c 'cat \"$0\"' .env", Secret),
    ("zsh -c 'echo *(e:id:)'", NotRun),
    ("fish -c 'cat .env'", NotRun),
    // Paths as the kernel resolves them.
    ("cat x/y/../.env", Secret),
    ("grep -h API x/y/../.env", Secret),
    // Words only known at run time.
    ("cat {.e,}nv", Secret),
    ("cat .{env,nothing}", Secret),
    ("cat ~+/.env", Secret),
    ("cat ~root/.bashrc", NotRun),
    ("cat $'\\x2eenv'", Secret),
    ("cat $'\\056env'", Secret),
    ("cat $'\\u002eenv'", Secret),
    ("cat $'.\\145nv'", Secret),
    ("cat $\".env\"", Secret),
    ("F=.env; cat $F", Secret),
    ("cat $(echo .env)", Secret),
    ("cat `printf .env`", Secret),
    ("git log $'--output=@OUT@/w' -n1", Marker),
    ("O=--output=@OUT@/w; git log $O -n1", Marker),
    ("P=-o@OUT@/w; sort $P README.md", Marker),
    ("cat README.md > $(echo @OUT@/w)", Marker),
    ("/bin/c?t .env", Secret),
    ("/usr/bin/ca[t] .env", Secret),
    ("printf -v 'a[$(touch @OUT@/w)]' x", Marker),
    ("test -v 'a[$(touch @OUT@/w)]'", Marker),
    ("[ -v 'a[$(touch @OUT@/w)]' ]", Marker),
    ("read 'a[$(touch @OUT@/w)]' < README.md", Marker),
    ("unset 'a[$(touch @OUT@/w)]'", NotRun),
    ("mapfile -C 'touch @OUT@/w #' -c 1 x < README.md", Marker),
    ("compgen -C 'touch @OUT@/w' x", NotRun),
    ("X='$(touch @OUT@/w)'; echo ${X@P}", Marker),
    // Trees and compositions that reach the secret.
    ("ls -A | xargs cat", Secret),
    ("find . -type f | xargs grep API", Secret),
    ("cat $(ls -a)", Secret),
    ("grep -rn API sub", Secret),
    ("diff --recursive --new-file . @OUT@", Secret),
    // Found by a red team reading rein's code.
    ("echo `echo \\`touch @OUT@/w\\``", Marker),
    ("echo `cat \\`echo .e\\`nv`", Secret),
    ("git log -p", Secret),
    ("git show", Secret),
    ("git show :0:.env", Secret),
    ("git show refs/heads/master:.env", NotRun),
    ("git log -p -- '.e*'", Secret),
    ("git log -L1,1:.env", Secret),
    ("git cat-file --batch-all-objects --batch", Secret),
    ("sed ':a e touch @OUT@/w' README.md", Marker),
    ("sed -n ':x w @OUT@/w' README.md", Marker),
    ("sed ':a r .env' README.md", Secret),
    ("xxd -sx /etc/passwd", NotRun),
    ("jq -R . .env --args", Secret),
    ("cat < /etc/hostname", NotRun),
    ("xargs -a /etc/hostname echo", NotRun),
    ("cat .[^x]nv", Secret),
    ("cat .[!x]nv", Secret),
    ("cat .[[:lower:]]nv", Secret),
    ("echo 'a[$(touch @OUT@/w)]' >/dev/null; test -v \"$_\"", Marker),
    ("flock @OUT@/w -c ls", Marker),
    ("diff -N . src", Secret),
    ("ls -la /etc", NotRun),
    ("cargo test -- --logfile @OUT@/w", NotRun),
    // Found by a second red team.
    ("xxd README.md -c", NotRun),
    ("strings @.env", Secret),
    ("strings @../outside/.env", NotRun),
    // Compositions rein models (find -print0 | xargs -0 READER) reach only what is allowed.
    ("find . -print0 | xargs -0 cat", Secret),
    ("find sub -print0 | xargs -0 cat", Secret),
    ("find . -type f -print0 | xargs -0 -n 1 grep API", Secret),
    ("find . -print | xargs cat", Secret),
    ("find src -print0 | xargs -0 sort -o", NotRun),
    // Runners pointed at other code.
    ("make -C @OUT@", NotRun),
    ("make -f other.mk", NotRun),
    ("make --eval='pwn:;touch @OUT@/w' pwn", Marker),
    ("make CC='touch @OUT@/w' build", NotRun),
    ("npm test --prefix=@OUT@", NotRun),
    ("npm test --script-shell=./evil.sh", NotRun),
    ("npm test --node-options=--require=./evil.js", NotRun),
    ("npm --userconfig=./evil.npmrc test", NotRun),
    ("cargo test --manifest-path @OUT@/Cargo.toml", NotRun),
    ("cargo test --config 'target.x86_64-unknown-linux-gnu.runner=\"sh\"'", NotRun),
    ("cargo -Zunstable-options test", NotRun),
    ("pytest -p evil", NotRun),
    ("pytest -c @OUT@/x.ini", NotRun),
    ("pytest -o addopts=-pevil", NotRun),
    ("pytest @OUT@/test_x.py", NotRun),
    ("python3 -m pytest --rootdir=@OUT@", NotRun),
];

/// Everyday commands that must run with no question under the same rules.
const BENIGN: &[&str] = &[
    "grep --recursive TODO src",
    "grep -rn --include='*.rs' TODO src",
    "grep -c main src/main.rs",
    "grep -E 'a|b' README.md",
    "grep -ie hello README.md",
    "sort -u README.md",
    "sort -k2 -t: README.md",
    "sort --rev README.md",
    "head -n 3 README.md",
    "head -3 README.md",
    "tail -n +2 README.md",
    "wc -lw README.md",
    "cut -f1 -d' ' README.md",
    "ls -la src",
    "ls --color=never",
    "du -sh src",
    "df -h",
    "git log --oneline -n 3",
    "git log -3 --stat",
    "git diff --stat",
    "git status --porcelain",
    "git status -sb",
    "git branch --show-current",
    "git -C src status",
    "git rev-parse --show-toplevel",
    "git ls-files",
    "git blame README.md",
    "git log --format='%h %s' -n 5",
    "find src -type f -name '*.rs'",
    "find . -maxdepth 1 -type d",
    "sed -n '2,4p' README.md",
    "sed -e 's/a/b/' -e 's/c/d/' README.md",
    "jq -r .name data.json",
    "jq --arg x 1 -n '$x'",
    "cat README.md | sort | uniq -c | sort -rn",
    "echo $HOME",
    "printf '%s\\n' a b",
    "ls $(pwd)",
    "diff -u README.md src/main.rs",
    "env",
    "env LANG=C sort README.md",
    "timeout 5 grep -n main src/main.rs",
    "nice -n 10 ls",
    "command -v git",
    "stat -c %s README.md",
    "test -f README.md && echo yes",
    "realpath .",
    "xxd -l 16 README.md",
    "od -An -tx1 README.md",
    "numfmt --to=iec 2048",
    "seq 1 5",
    "base64 -w0 README.md",
    "bash -c 'ls -la'",
    "sh -c 'git status'",
    "grep -rn TODO src | head -5",
    "npm test -- --watch=false",
    "cargo test --workspace",
    "make test",
    "make -j4 -k test",
    "pytest -x -q tests",
    "find src -name '*.rs' -print0 | xargs -0 grep -n TODO",
    "find src -type f -print0 | xargs -0 -r wc -l",
];

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git").args(args).current_dir(dir).env("HOME", dir).output().unwrap().status.success();
    assert!(ok, "git {args:?}");
}

/// A project with a committed `.env` (so that git can show it), a hard link to it under
/// `sub/`, and the prefix rules people write.
fn project() -> Env {
    let env = Env::new();
    env.trust();
    let root = env.cwd().to_path_buf();
    git(&root, &["init", "-q"]);
    env.write(".env", "API_KEY=secret-in-env\n");
    env.write("README.md", "# demo\nhello a\n");
    env.write("data.json", "{\"name\": \"demo\"}\n");
    env.write("src/main.rs", "fn main() {} // TODO\n");
    env.write("list0", ".env\0");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::hard_link(root.join(".env"), root.join("sub/notes.txt")).unwrap();
    // `x/y/../.env` is `./.env` to the kernel (y points at ../z), `x/.env` as written.
    std::fs::create_dir_all(root.join("x")).unwrap();
    std::fs::create_dir_all(root.join("z")).unwrap();
    std::os::unix::fs::symlink("../z", root.join("x/y")).unwrap();
    git(&root, &["add", "."]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {
            "allow": ["Bash(git log:*)", "Bash(git diff:*)", "Bash(sort:*)", "Bash(sed:*)", "Bash(grep:*)",
                      "Bash(cat:*)", "Bash(head:*)", "Bash(jq:*)", "Bash(find:*)", "Bash(xargs:*)", "Bash(make:*)",
                      "Bash(npm test:*)", "Bash(cargo test:*)", "Bash(pytest:*)", "Bash(python3 -m pytest:*)",
                      "Bash(env:*)", "Bash(uniq:*)", "Bash(xxd:*)", "Bash(date:*)"],
            "deny": ["Read(./.env)", "Bash(rm:*)"]
        }}"#,
    );
    env
}

/// Decisions for `calls` in the project, as `rein permissions check` gives them.
fn decide(env: &Env, calls: &[String]) -> Vec<(String, String)> {
    crate::attack_corpus::check(env, env.cwd(), calls)
}

/// Run `command` in bash in a fresh project; whether it did what `fires` says.
fn fired(command: &str, fires: Fires) -> Result<(), String> {
    // Attacks marked NotRun are never run: some would change the machine itself.
    if fires == NotRun {
        return Ok(());
    }
    let env = project();
    let out_dir = tempfile::tempdir().unwrap();
    let cmd = command.replace("@OUT@", &out_dir.path().display().to_string());
    let out = Command::new("timeout")
        .args(["10", "bash", "-c", &cmd])
        .current_dir(env.cwd())
        .env("HOME", env.cwd())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let ok = match fires {
        Secret => all.contains("secret-in-env"),
        Marker => {
            out_dir.path().join("w").exists() || std::fs::read_dir(out_dir.path()).is_ok_and(|mut d| d.next().is_some())
        }
        NotRun => true,
    };
    if ok { Ok(()) } else { Err(format!("`{cmd}` did not fire with no engine: {all}")) }
}

#[test]
fn attacks_on_the_models_fire_without_the_engine_and_are_stopped_with_it() {
    let env = project();
    let out_dir = tempfile::tempdir().unwrap();
    let calls: Vec<String> = ATTACKS
        .iter()
        .map(|(c, _)| format!("Bash({})", c.replace("@OUT@", &out_dir.path().display().to_string())))
        .collect();
    let mut failures = Vec::new();
    for ((call, (behavior, why)), (src, fires)) in calls.iter().zip(decide(&env, &calls)).zip(ATTACKS) {
        if behavior == "ALLOW" {
            failures.push(format!("{call} was allowed:\n{why}"));
        }
        if let Err(e) = fired(src, *fires) {
            failures.push(e);
        }
    }
    let run = ATTACKS.iter().filter(|(_, f)| *f != NotRun).count();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(ATTACKS.len() >= 130 && run >= 70, "the corpus shrank: {} attacks, {run} run", ATTACKS.len());
}

#[test]
fn everyday_commands_run_with_no_question_under_the_same_rules() {
    let env = project();
    let calls: Vec<String> = BENIGN.iter().map(|c| format!("Bash({c})")).collect();
    let failures: Vec<String> = calls
        .iter()
        .zip(decide(&env, &calls))
        .filter(|(_, (b, _))| b != "ALLOW")
        .map(|(c, (b, why))| format!("{b} {c}:\n{why}"))
        .collect();
    assert!(failures.is_empty(), "{} of {} not allowed:\n{}", failures.len(), calls.len(), failures.join("\n"));
}

/// git runs what the repository holds: a hook that runs when `git status` refreshes the
/// index, and a nested repository (a gitlink) whose own config names a program.
#[test]
fn git_commands_are_asked_when_the_repository_holds_programs() {
    let env = project();
    let out_dir = tempfile::tempdir().unwrap();
    let marker = out_dir.path().join("w");
    let hook = env.cwd().join(".git/hooks/post-index-change");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let calls: Vec<String> = ["Bash(git status)", "Bash(git diff --stat)"].map(String::from).to_vec();
    for (call, (behavior, why)) in calls.iter().zip(decide(&env, &calls)) {
        assert_ne!(behavior, "ALLOW", "{call}:\n{why}");
        assert!(why.contains("hooks/post-index-change"), "{call}:\n{why}");
    }
    // It fires with no engine: `git status` refreshes the index and runs the hook.
    // Same content, another mtime: the refresh updates the entry and writes the index.
    let readme = std::fs::File::options().append(true).open(env.cwd().join("README.md")).unwrap();
    readme.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600)).unwrap();
    let ok = Command::new("git").args(["status"]).current_dir(env.cwd()).output().unwrap().status.success();
    assert!(ok && marker.exists(), "the hook did not run");
    std::fs::remove_file(&hook).unwrap();

    // A nested repository the index holds, whose config names an fsmonitor program.
    let inner = env.cwd().join("inner");
    std::fs::create_dir_all(&inner).unwrap();
    git(&inner, &["init", "-q"]);
    std::fs::write(inner.join("f"), "x").unwrap();
    git(&inner, &["add", "f"]);
    git(&inner, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]);
    git(env.cwd(), &["add", "inner"]);
    let cfg = inner.join(".git/config");
    let text = std::fs::read_to_string(&cfg).unwrap() + "[core]\n\tfsmonitor = ./mon.sh\n";
    std::fs::write(&cfg, text).unwrap();
    let calls: Vec<String> = ["Bash(git status)", "Bash(git diff --stat)"].map(String::from).to_vec();
    for (call, (behavior, why)) in calls.iter().zip(decide(&env, &calls)) {
        assert_ne!(behavior, "ALLOW", "{call}:\n{why}");
        assert!(why.contains("inner: core.fsmonitor"), "{call}:\n{why}");
    }
}

/// The repository's config as git reads it: a byte order mark hides nothing, and
/// `core.worktree` moves what git reads; outside a repository `git diff` compares any
/// two paths.
#[test]
fn git_config_is_read_as_git_reads_it_and_diff_outside_a_repository_is_asked() {
    let env = project();
    let cfg = env.cwd().join(".git/config");
    let original = std::fs::read_to_string(&cfg).unwrap();
    for extra in ["\u{feff}[core]\n\tfsmonitor = ./mon.sh\n", "[core]\n\tworktree = /tmp\n"] {
        let text =
            if extra.starts_with('\u{feff}') { format!("{extra}{original}") } else { format!("{original}{extra}") };
        std::fs::write(&cfg, text).unwrap();
        let calls: Vec<String> = ["Bash(git status)", "Bash(git diff --stat)"].map(String::from).to_vec();
        for (call, (behavior, why)) in calls.iter().zip(decide(&env, &calls)) {
            assert_ne!(behavior, "ALLOW", "{call} with {extra:?}:\n{why}");
        }
    }
    std::fs::write(&cfg, original).unwrap();
    // Not a repository: `git diff z .` prints every file of `.`.
    let plain = Env::new();
    plain.trust();
    plain.write(".env", "API_KEY=secret-in-env\n");
    plain.write(
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Bash(git diff:*)"], "deny": ["Read(./.env)"]}}"#,
    );
    std::fs::create_dir_all(plain.cwd().join("z")).unwrap();
    let out = Command::new("git").args(["diff", "z", "."]).current_dir(plain.cwd()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("secret-in-env"), "git diff outside a repository");
    let calls: Vec<String> = ["Bash(git diff z .)"].map(String::from).to_vec();
    for (call, (behavior, why)) in calls.iter().zip(decide(&plain, &calls)) {
        assert_ne!(behavior, "ALLOW", "{call}:\n{why}");
    }
}

/// The file tools read what the kernel reads: `x/y/../.env` is the denied `.env`.
#[test]
fn file_tools_resolve_links_before_dot_dot() {
    let env = project();
    let calls: Vec<String> =
        ["Read(x/y/../.env)", "Edit(x/y/../.env)", "NotebookEdit(x/y/../.env)"].map(String::from).to_vec();
    for (call, (behavior, why)) in calls.iter().zip(decide(&env, &calls)) {
        assert_ne!(behavior, "ALLOW", "{call}:\n{why}");
    }
}

/// For a command it does not understand, `rein permissions check` names the word or the
/// option it did not model.
#[test]
fn a_refusal_names_what_was_not_modelled() {
    let env = project();
    let calls: Vec<String> = [
        "Bash(sort --outp=/tmp/x README.md)",
        "Bash(grep -Zq x README.md --foo)",
        "Bash(cat $F)",
        "Bash(git log --ext-diff)",
    ]
    .map(String::from)
    .to_vec();
    let d = decide(&env, &calls);
    // An abbreviation is read as getopt reads it: `--outp` is `--output`, a write.
    assert!(d[0].1.contains("it writes /tmp/x"), "{}", d[0].1);
    assert!(d[1].1.contains("--foo"), "{}", d[1].1);
    assert!(d[2].1.contains("$F"), "{}", d[2].1);
    assert!(d[3].1.contains("--ext-diff"), "{}", d[3].1);
}
