//! Which hosts a sandboxed command may reach through rein's proxy: denied domains first,
//! then allowed ones (exact, `*.suffix` for subdomains only, an optional `:port`); any
//! other host is refused (or asked, when the session has someone to ask). An allowed
//! *name* must not resolve to this machine or its neighbours — loopback, link-local
//! (cloud metadata), private, multicast or unspecified addresses — so that a DNS
//! rebinding name cannot reach local services; an allowed IP literal (or `localhost`)
//! is an explicit exception.

use std::net::{IpAddr, SocketAddr};

/// The outcome for one host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Deny(String),
    /// No rule decides.
    Unknown,
}

/// The domain lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    pub allowed: Vec<String>,
    pub denied: Vec<String>,
}

/// `pattern` (`example.com`, `*.example.com`, either with `:port`) matches `host:port`.
fn matches(pattern: &str, host: &str, port: u16) -> bool {
    let pattern = pattern.trim().to_ascii_lowercase();
    let (name, want_port) = match pattern.rsplit_once(':') {
        Some((n, p)) if !n.contains(':') || n.ends_with(']') => (n.to_string(), p.parse::<u16>().ok()),
        _ => (pattern.clone(), None),
    };
    if want_port.is_some_and(|p| p != port) {
        return false;
    }
    let name = name.trim_start_matches('[').trim_end_matches(']');
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if name == "*" {
        return true;
    }
    match name.strip_prefix("*.") {
        Some(suffix) => {
            host.len() > suffix.len() && host.ends_with(suffix) && host[..host.len() - suffix.len()].ends_with('.')
        }
        None => host == name,
    }
}

impl NetworkPolicy {
    pub fn verdict(&self, host: &str, port: u16) -> Verdict {
        if let Some(p) = self.denied.iter().find(|p| matches(p, host, port)) {
            return Verdict::Deny(format!("{host} is in deniedDomains ({p})"));
        }
        if self.allowed.iter().any(|p| matches(p, host, port)) {
            return Verdict::Allow;
        }
        Verdict::Unknown
    }

    /// Whether `host` was allowed as itself: an IP literal or `localhost` named in
    /// `allowedDomains`, which may then be a local address.
    pub fn explicitly_local(&self, host: &str, port: u16) -> bool {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        (bare.parse::<IpAddr>().is_ok() || bare.eq_ignore_ascii_case("localhost"))
            && self.allowed.iter().any(|p| !p.contains('*') && matches(p, host, port))
    }
}

/// Whether `ip` is an address of this machine or its local networks.
pub fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_link_local()
                || v4.is_private()
                || v4.is_multicast()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64 // carrier-grade NAT
                || v4.octets()[0] == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_local(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xffc0) == 0xfe80 // link-local
                || (seg[0] & 0xfe00) == 0xfc00 // unique local
                || (seg[0] == 0x64 && seg[1] == 0xff9b) // NAT64 of anything
        }
    }
}

/// Why the proxy refused a connection (recorded, and told to the command).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The network policy's own reason.
    #[error("{0}")]
    Denied(String),
    #[error("{host} is not in allowedDomains and the user refused it")]
    UserRefused { host: String },
    #[error("{host} is not in allowedDomains")]
    NotAllowed { host: String },
    #[error("{host} does not resolve: {why}")]
    Unresolved { host: String, why: String },
    #[error("it resolves to a local address ({0}), which is refused")]
    Local(std::net::IpAddr),
}

/// The addresses of `addrs` a connection may go to: all of them when the host was
/// allowed as itself, else only the non-local ones (an error when none is left).
pub fn usable(addrs: Vec<SocketAddr>, explicitly_local: bool) -> Result<Vec<SocketAddr>, Refusal> {
    if explicitly_local {
        return Ok(addrs);
    }
    let (local, remote): (Vec<SocketAddr>, Vec<SocketAddr>) = addrs.into_iter().partition(|a| is_local(a.ip()));
    if remote.is_empty() && !local.is_empty() {
        return Err(Refusal::Local(local[0].ip()));
    }
    Ok(remote)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denied_first_then_allowed_with_subdomain_and_port_patterns() {
        let p = NetworkPolicy {
            allowed: vec!["github.com".into(), "*.npmjs.org".into(), "api.x.io:8443".into()],
            denied: vec!["evil.github.com".into(), "*.bad.org".into()],
        };
        assert_eq!(p.verdict("github.com", 443), Verdict::Allow);
        assert_eq!(p.verdict("GitHub.com.", 443), Verdict::Allow);
        assert_eq!(p.verdict("registry.npmjs.org", 443), Verdict::Allow);
        assert_eq!(p.verdict("npmjs.org", 443), Verdict::Unknown, "*.suffix is subdomains only");
        assert_eq!(p.verdict("api.x.io", 8443), Verdict::Allow);
        assert_eq!(p.verdict("api.x.io", 443), Verdict::Unknown);
        assert!(matches!(p.verdict("a.bad.org", 80), Verdict::Deny(_)));
        assert_eq!(p.verdict("notgithub.com", 443), Verdict::Unknown);
    }

    #[test]
    fn local_addresses_are_refused_unless_named() {
        let loopback: SocketAddr = "127.0.0.1:80".parse().unwrap();
        let metadata: SocketAddr = "169.254.169.254:80".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:80".parse().unwrap();
        let public: SocketAddr = "93.184.216.34:80".parse().unwrap();
        for local in [loopback, metadata, mapped, "10.0.0.1:80".parse().unwrap(), "[::1]:80".parse().unwrap()] {
            assert!(usable(vec![local], false).is_err(), "{local}");
        }
        assert_eq!(usable(vec![loopback, public], false).unwrap(), vec![public]);
        let p = NetworkPolicy { allowed: vec!["127.0.0.1".into(), "localhost:8080".into()], denied: vec![] };
        assert!(p.explicitly_local("127.0.0.1", 9999));
        assert!(p.explicitly_local("localhost", 8080));
        assert!(!p.explicitly_local("localhost", 80));
        assert!(!p.explicitly_local("rebind.example", 80));
    }
}
