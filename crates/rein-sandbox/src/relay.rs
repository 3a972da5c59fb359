//! Inside the sandbox's network namespace, rein's helper stays as PID 1 and relays
//! `127.0.0.1:3128` (HTTP proxy) and `127.0.0.1:1080` (SOCKS5) to the host proxy's Unix
//! socket: the only way out of the namespace. It is not dumpable, so the command (which
//! runs under seccomp, without ptrace) cannot reach into it.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// The ports the command's proxy variables name.
pub(crate) const HTTP_PORT: u16 = 3128;
pub(crate) const SOCKS_PORT: u16 = 1080;

/// The environment that points programs at the relay.
pub(crate) fn proxy_env() -> Vec<(&'static str, String)> {
    let http = format!("http://127.0.0.1:{HTTP_PORT}");
    let socks = format!("socks5h://127.0.0.1:{SOCKS_PORT}");
    vec![
        ("HTTP_PROXY", http.clone()),
        ("HTTPS_PROXY", http.clone()),
        ("http_proxy", http.clone()),
        ("https_proxy", http),
        ("ALL_PROXY", socks.clone()),
        ("all_proxy", socks),
        ("NO_PROXY", "localhost,127.0.0.1,::1".into()),
        ("no_proxy", "localhost,127.0.0.1,::1".into()),
    ]
}

pub(crate) struct Relay {
    listeners: Vec<TcpListener>,
    socket: PathBuf,
}

impl Relay {
    /// Listen inside the namespace (before the command starts, so it finds the ports
    /// taken).
    pub(crate) fn bind(socket: &Path) -> std::io::Result<Relay> {
        let listeners =
            vec![TcpListener::bind(("127.0.0.1", HTTP_PORT))?, TcpListener::bind(("127.0.0.1", SOCKS_PORT))?];
        Ok(Relay { listeners, socket: socket.to_path_buf() })
    }

    /// Serve on background threads.
    pub(crate) fn serve(self) {
        for listener in self.listeners {
            let socket = self.socket.clone();
            std::thread::spawn(move || {
                for conn in listener.incoming().flatten() {
                    let socket = socket.clone();
                    std::thread::spawn(move || pipe(conn, &socket));
                }
            });
        }
    }
}

fn pipe(conn: TcpStream, socket: &Path) {
    let Ok(host) = UnixStream::connect(socket) else { return };
    let (Ok(mut conn_r), Ok(mut host_w)) = (conn.try_clone(), host.try_clone()) else { return };
    let up = std::thread::spawn(move || {
        copy(&mut conn_r, &mut host_w);
        let _ = host_w.shutdown(Shutdown::Write);
    });
    let (mut host_r, mut conn_w) = (host, conn);
    copy(&mut host_r, &mut conn_w);
    let _ = conn_w.shutdown(Shutdown::Write);
    let _ = up.join();
}

fn copy(from: &mut impl Read, to: &mut impl Write) {
    let mut buf = [0u8; 16384];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        }
    }
}
