//! The host side of the sandbox's network: an HTTP proxy (CONNECT and absolute-form
//! requests) and a SOCKS5 proxy on one Unix socket outside the sandbox, which the
//! helper inside relays `127.0.0.1:3128` and `127.0.0.1:1080` to. Each connection is
//! judged by [`NetworkPolicy`]; a refused one gets `403` (HTTP) or "not allowed by
//! ruleset" (SOCKS) and is recorded as a violation. With `httpProxyPort` /
//! `socksProxyPort` the bytes go to the user's own proxy on that port instead (which
//! then owns the filtering).

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

use crate::network::{NetworkPolicy, Verdict, usable};

/// Asks the person about a host no rule decides (`host`, `port`): true allows it for
/// the rest of the session.
pub type AskHost = Arc<dyn Fn(String, u16) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// Where the frontend puts its [`AskHost`] once it exists (the sandbox is set up first).
/// Empty — headless — a host no rule decides is refused.
pub type AskSlot = Arc<std::sync::OnceLock<AskHost>>;

/// The user's own proxies (`network.httpProxyPort`, `network.socksProxyPort`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Upstream {
    pub http: Option<u16>,
    pub socks: Option<u16>,
}

struct Shared {
    policy: NetworkPolicy,
    ask: AskSlot,
    upstream: Upstream,
    violations: Mutex<Vec<(Instant, String)>>,
    /// Hosts the user allowed when asked, for the rest of the session.
    granted: Mutex<Vec<(String, u16)>>,
}

/// How a refused connection's line begins.
const REFUSED_LINE: &str = "deny network-outbound ";

/// The running proxy.
pub struct Proxy {
    pub socket: PathBuf,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy").field("socket", &self.socket).finish()
    }
}

impl Proxy {
    /// Listen on `socket` (its directory must exist and be outside every writable root)
    /// on a thread of its own.
    pub fn start(socket: &Path, policy: NetworkPolicy, upstream: Upstream, ask: AskSlot) -> std::io::Result<Proxy> {
        let _ = std::fs::remove_file(socket);
        let listener = std::os::unix::net::UnixListener::bind(socket)?;
        listener.set_nonblocking(true)?;
        let shared = Arc::new(Shared {
            policy,
            ask,
            upstream,
            violations: Mutex::new(Vec::new()),
            granted: Mutex::new(Vec::new()),
        });
        let serving = shared.clone();
        std::thread::Builder::new().name("rein-sandbox-proxy".into()).spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
            rt.block_on(async move {
                let Ok(listener) = tokio::net::UnixListener::from_std(listener) else { return };
                while let Ok((conn, _)) = listener.accept().await {
                    tokio::spawn(handle(conn, serving.clone()));
                }
            });
        })?;
        Ok(Proxy { socket: socket.to_path_buf(), shared })
    }

    /// The hosts (`host:port`) refused since `since`.
    pub fn refused_since(&self, since: Instant) -> Vec<String> {
        let mut hosts: Vec<String> = self
            .violations_since(since)
            .iter()
            .filter_map(|l| l.strip_prefix(REFUSED_LINE)?.split_once(" (").map(|(h, _)| h.to_string()))
            .collect();
        hosts.dedup();
        hosts
    }

    /// The violations recorded since `since`, one line each.
    pub fn violations_since(&self, since: Instant) -> Vec<String> {
        let v = self.shared.violations.lock().unwrap_or_else(|p| p.into_inner());
        v.iter().filter(|(t, _)| *t >= since).map(|(_, l)| l.clone()).collect()
    }
}

impl Shared {
    fn record(&self, line: String) {
        self.violations.lock().unwrap_or_else(|p| p.into_inner()).push((Instant::now(), line));
    }

    /// Where a connection to `host:port` may go, or why not.
    async fn check(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, crate::network::Refusal> {
        let mut named_by_the_user = false;
        match self.policy.verdict(host, port) {
            Verdict::Deny(why) => return Err(crate::network::Refusal::Denied(why)),
            Verdict::Allow => {}
            Verdict::Unknown => {
                let granted =
                    self.granted.lock().unwrap_or_else(|p| p.into_inner()).contains(&(host.to_string(), port));
                let asked = match (granted, self.ask.get()) {
                    (false, Some(ask)) => ask(host.to_string(), port).await,
                    _ => false,
                };
                if asked {
                    self.granted.lock().unwrap_or_else(|p| p.into_inner()).push((host.to_string(), port));
                }
                if !granted && !asked {
                    return Err(if self.ask.get().is_some() {
                        crate::network::Refusal::UserRefused { host: host.to_string() }
                    } else {
                        crate::network::Refusal::NotAllowed { host: host.to_string() }
                    });
                }
                named_by_the_user = true;
            }
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addrs: Vec<SocketAddr> = match bare.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::net::lookup_host((bare, port))
                .await
                .map_err(|e| crate::network::Refusal::Unresolved { host: host.to_string(), why: e.to_string() })?
                .collect(),
        };
        // The person allowing an address by itself (an IP literal, `localhost`) allows
        // that local address; a *name* must still not resolve to one.
        let literal = bare.parse::<std::net::IpAddr>().is_ok() || bare.eq_ignore_ascii_case("localhost");
        usable(addrs, self.policy.explicitly_local(host, port) || (named_by_the_user && literal))
    }
}

async fn handle(mut conn: UnixStream, shared: Arc<Shared>) {
    let mut first = [0u8; 1];
    if conn.read_exact(&mut first).await.is_err() {
        return;
    }
    if first[0] == 5 {
        match shared.upstream.socks {
            Some(port) => passthrough(conn, &first, port).await,
            None => socks(conn, shared).await,
        }
    } else {
        match shared.upstream.http {
            Some(port) => passthrough(conn, &first, port).await,
            None => http(conn, first[0], shared).await,
        }
    }
}

/// The bytes go to the user's own proxy on `port`, unfiltered.
async fn passthrough(mut conn: UnixStream, already: &[u8], port: u16) {
    let Ok(mut up) = TcpStream::connect(("127.0.0.1", port)).await else { return };
    if up.write_all(already).await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut conn, &mut up).await;
    }
}

async fn connect(addrs: &[SocketAddr]) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for a in addrs {
        match TcpStream::connect(a).await {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// `host:port` (IPv6 in brackets) with a default port.
fn host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = after.strip_prefix(':').map_or(Some(default), |p| p.parse().ok())?;
        return Some((format!("[{h}]"), port));
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => Some((h.to_string(), p.parse().ok()?)),
        None => Some((authority.to_string(), default)),
    }
}

async fn http(mut conn: UnixStream, first: u8, shared: Arc<Shared>) {
    let mut head = vec![first];
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if head.len() > 64 * 1024 {
            return;
        }
        match conn.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    };
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let rest = head[end..].to_vec();
    let mut lines = text.split("\r\n");
    let request = lines.next().unwrap_or("");
    let parts: Vec<&str> = request.split(' ').collect();
    let [method, target, version] = parts[..] else { return };
    let (connect_tunnel, authority, path) = if method.eq_ignore_ascii_case("CONNECT") {
        (true, target.to_string(), String::new())
    } else if let Some(after) = target.strip_prefix("http://") {
        let (auth, path) = after.split_once('/').map_or((after, "/".to_string()), |(a, p)| (a, format!("/{p}")));
        (false, auth.to_string(), path)
    } else {
        let _ = conn.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n").await;
        return;
    };
    let Some((host, port)) = host_port(&authority, if connect_tunnel { 443 } else { 80 }) else { return };
    let addrs = match shared.check(&host, port).await {
        Ok(a) => a,
        Err(why) => {
            shared.record(format!("{REFUSED_LINE}{host}:{port} ({why})"));
            let body = format!("rein sandbox: connection to {host}:{port} refused: {why}\n");
            let reply = format!(
                "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-rein-sandbox\r\nContent-Type: text/plain\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(reply.as_bytes()).await;
            return;
        }
    };
    let Ok(mut up) = connect(&addrs).await else {
        let _ = conn.write_all(b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n").await;
        return;
    };
    if connect_tunnel {
        if conn.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").await.is_err() {
            return;
        }
    } else {
        // One request per connection: a kept-alive connection could otherwise carry a
        // request for another host past the check.
        let mut forwarded = format!("{method} {path} {version}\r\n");
        for h in lines.filter(|l| !l.is_empty()) {
            let name = h.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
            if !matches!(name.as_str(), "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive") {
                forwarded.push_str(h);
                forwarded.push_str("\r\n");
            }
        }
        forwarded.push_str("Connection: close\r\n\r\n");
        if up.write_all(forwarded.as_bytes()).await.is_err() {
            return;
        }
    }
    if !rest.is_empty() && up.write_all(&rest).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut conn, &mut up).await;
}

async fn socks(mut conn: UnixStream, shared: Arc<Shared>) {
    const REFUSED: [u8; 10] = [5, 2, 0, 1, 0, 0, 0, 0, 0, 0];
    let mut n = [0u8; 1];
    if conn.read_exact(&mut n).await.is_err() {
        return;
    }
    let mut methods = vec![0u8; n[0] as usize];
    if conn.read_exact(&mut methods).await.is_err() || conn.write_all(&[5, 0]).await.is_err() {
        return;
    }
    let mut req = [0u8; 4];
    if conn.read_exact(&mut req).await.is_err() {
        return;
    }
    if req[1] != 1 {
        let _ = conn.write_all(&[5, 7, 0, 1, 0, 0, 0, 0, 0, 0]).await;
        return;
    }
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            if conn.read_exact(&mut a).await.is_err() {
                return;
            }
            std::net::Ipv4Addr::from(a).to_string()
        }
        4 => {
            let mut a = [0u8; 16];
            if conn.read_exact(&mut a).await.is_err() {
                return;
            }
            format!("[{}]", std::net::Ipv6Addr::from(a))
        }
        3 => {
            let mut len = [0u8; 1];
            if conn.read_exact(&mut len).await.is_err() {
                return;
            }
            let mut name = vec![0u8; len[0] as usize];
            if conn.read_exact(&mut name).await.is_err() {
                return;
            }
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => return,
    };
    let mut port = [0u8; 2];
    if conn.read_exact(&mut port).await.is_err() {
        return;
    }
    let port = u16::from_be_bytes(port);
    let addrs = match shared.check(&host, port).await {
        Ok(a) => a,
        Err(why) => {
            shared.record(format!("{REFUSED_LINE}{host}:{port} ({why})"));
            let _ = conn.write_all(&REFUSED).await;
            return;
        }
    };
    let Ok(mut up) = connect(&addrs).await else {
        let _ = conn.write_all(&[5, 5, 0, 1, 0, 0, 0, 0, 0, 0]).await;
        return;
    };
    if conn.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut conn, &mut up).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities() {
        assert_eq!(host_port("example.com:8443", 443), Some(("example.com".into(), 8443)));
        assert_eq!(host_port("example.com", 80), Some(("example.com".into(), 80)));
        assert_eq!(host_port("[::1]:81", 80), Some(("[::1]".into(), 81)));
        assert_eq!(host_port("[::1]", 80), Some(("[::1]".into(), 80)));
        assert_eq!(host_port("x:notaport", 80), None);
    }
}
