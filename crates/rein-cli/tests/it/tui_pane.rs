//! A rein session in a real terminal for the tests: a fixed-size tmux pane driven with
//! send-keys and read with capture-pane (polled with a deadline, never a fixed sleep).

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::common::Env;
use rein_testkit::FakeServer;

/// A rein session in its own tmux server.
pub(crate) struct Pane {
    socket: String,
}

impl Pane {
    pub(crate) fn start(env: &Env, server: &FakeServer, args: &[&str]) -> Pane {
        Pane::start_with(env, server, "", args)
    }

    /// With `vars` (`NAME='value' …`, which may replace PATH) in rein's environment too, in
    /// a trusted folder.
    pub(crate) fn start_with(env: &Env, server: &FakeServer, vars: &str, args: &[&str]) -> Pane {
        env.trust();
        Pane::start_untrusted(env, server, vars, args)
    }

    /// In a folder nobody trusted yet: rein asks first.
    pub(crate) fn start_untrusted(env: &Env, server: &FakeServer, vars: &str, args: &[&str]) -> Pane {
        Pane::start_untrusted_sized(env, server, vars, args, (100, 30))
    }

    /// As [`start_untrusted`](Self::start_untrusted), in a terminal of `(columns, rows)`.
    pub(crate) fn start_untrusted_sized(
        env: &Env,
        server: &FakeServer,
        vars: &str,
        args: &[&str],
        (columns, rows): (u16, u16),
    ) -> Pane {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let socket = format!("rein-test-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let rein = assert_cmd::cargo::cargo_bin("rein");
        // Questions take keys at once in tests (but in the test of the pause itself).
        let vars = if vars.contains("REIN_TUI_ANSWER_PAUSE_MS") {
            vars.to_string()
        } else {
            format!("REIN_TUI_ANSWER_PAUSE_MS=0 {vars}")
        };
        let command = format!(
            "cd '{}' && exec env -i PATH='{}' HOME='{}' TERM=xterm-256color ANTHROPIC_BASE_URL='{}' ANTHROPIC_API_KEY=k {vars} '{}' {}",
            env.cwd().display(),
            std::env::var("PATH").unwrap_or_default(),
            env.home.path().display(),
            server.url(),
            rein.display(),
            args.join(" ")
        );
        Pane::launch(socket, (columns, rows), &command)
    }

    /// `command` in a new tmux server `socket`, in a terminal of `(columns, rows)`; the
    /// pane stays after it exits.
    fn launch(socket: String, (columns, rows): (u16, u16), command: &str) -> Pane {
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-s", "t"])
            .args(["-x", &columns.to_string(), "-y", &rows.to_string(), command])
            .status()
            .expect("tmux is needed for the terminal tests (.ci/run installs it)")
            .success();
        assert!(ok, "tmux did not start");
        let pane = Pane { socket };
        pane.tmux(&["set-option", "-t", "t", "remain-on-exit", "on"]);
        pane
    }

    /// `rein ARGS` in the project folder with `env`'s clean environment and `vars`
    /// (`NAME='value' …`), in a terminal of `(columns, rows)`; the pane stays after rein
    /// exits.
    pub(crate) fn rein_sized(env: &Env, vars: &str, args: &str, (columns, rows): (u16, u16)) -> Pane {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let socket = format!("rein-cmd-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let command = format!(
            "cd '{}' && env -i PATH='{}' HOME='{}' TERM=xterm-256color {vars} '{}' {args}",
            env.cwd().display(),
            std::env::var("PATH").unwrap_or_default(),
            env.home.path().display(),
            assert_cmd::cargo::cargo_bin("rein").display(),
        );
        Pane::launch(socket, (columns, rows), &command)
    }

    /// rein started from an interactive bash in the pane (a trusted folder), so that job
    /// control (Ctrl+Z, `fg`) works as in a person's terminal.
    pub(crate) fn start_in_shell(env: &Env, server: &FakeServer, args: &[&str]) -> Pane {
        env.trust();
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let socket = format!("rein-shell-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let shell = format!(
            "exec env -i PATH='{}' HOME='{}' TERM=xterm-256color PS1='$ ' bash --norc --noprofile -i",
            std::env::var("PATH").unwrap_or_default(),
            env.home.path().display()
        );
        let ok = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", &shell])
            .status()
            .expect("tmux is needed for the terminal tests (.ci/run installs it)")
            .success();
        assert!(ok, "tmux did not start");
        let pane = Pane { socket };
        pane.wait_for("$ ");
        let rein = assert_cmd::cargo::cargo_bin("rein");
        pane.type_text(&format!(
            "cd '{}' && ANTHROPIC_BASE_URL='{}' ANTHROPIC_API_KEY=k REIN_TUI_ANSWER_PAUSE_MS=0 '{}' {}",
            env.cwd().display(),
            server.url(),
            rein.display(),
            args.join(" ")
        ));
        pane.keys(&["Enter"]);
        pane
    }

    pub(crate) fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(["-L", &self.socket]).args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", "t", "-S", "-"])
    }

    /// Wait until the screen shows `text`.
    pub(crate) fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(Instant::now() < deadline, "waited for {text:?}; the screen shows:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Esc twice, as a person presses it: two ESC bytes read together are one Esc to
    /// the terminal library (crossterm reads `ESC ESC` as a single Esc), so they go apart.
    pub(crate) fn esc_esc(&self) {
        self.keys(&["Escape"]);
        std::thread::sleep(Duration::from_millis(120));
        self.keys(&["Escape"]);
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "t", k]);
        }
    }

    pub(crate) fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    pub(crate) fn dead(&self) -> bool {
        self.tmux(&["display-message", "-p", "-t", "t", "#{pane_dead}"]).trim() == "1"
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).status();
    }
}
