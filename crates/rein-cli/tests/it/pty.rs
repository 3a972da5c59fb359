//! The interactive session in a pseudo-terminal with a `vt100` screen, in plain `cargo
//! test` (no tmux): the test answers the terminal's cursor-position query itself, types a
//! prompt and reads the streamed answer off the emulated screen.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use rein_testkit::{Scenario, reply, text};

use crate::common::{Env, serve};

#[test]
fn the_session_runs_in_a_pty_and_draws_on_a_vt100_screen() {
    let env = Env::new();
    env.trust();
    let server = serve(Scenario::new([reply([text("Answer from the pty.")])]));
    let pty = native_pty_system();
    let pair = pty.openpty(PtySize { rows: 30, cols: 100, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut cmd = CommandBuilder::new(assert_cmd::cargo::cargo_bin("rein"));
    cmd.cwd(env.cwd());
    cmd.env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.env("HOME", env.home.path());
    cmd.env("TERM", "xterm-256color");
    cmd.env("ANTHROPIC_BASE_URL", server.url());
    cmd.env("ANTHROPIC_API_KEY", "k");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
    let size = |n: u16| std::num::NonZeroU16::new(n).unwrap();
    let screen = Arc::new(Mutex::new(vt100::Parser::new(size(30), size(100), 0)));
    {
        let (screen, writer) = (screen.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                // A bare pty has no terminal to answer where the cursor is: answer it.
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = writer.lock().unwrap().write_all(b"\x1b[1;1R");
                }
                screen.lock().unwrap().process(&buf[..n]);
            }
        });
    }
    let wait_for = |text: &str| {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let contents = screen.lock().unwrap().screen().contents();
            if contents.contains(text) {
                return contents;
            }
            assert!(Instant::now() < deadline, "waited for {text:?}; the screen shows:\n{contents}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for("manual mode on");
    writer.lock().unwrap().write_all(b"hello pty").unwrap();
    wait_for("hello pty");
    writer.lock().unwrap().write_all(b"\r").unwrap();
    wait_for("Answer from the pty.");
    writer.lock().unwrap().write_all(b"\x03\x03").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "Ctrl+C twice did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}
