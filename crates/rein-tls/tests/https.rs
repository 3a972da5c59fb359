#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A client from `rein_tls` against real TLS servers on loopback: one whose certificate
//! the system roots (here `SSL_CERT_FILE`) hold is reached; one whose certificate they
//! do not hold is refused — reading the roots late must never mean not checking.

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A TLS server for `localhost` with a certificate of its own; it answers `ok` to one
/// request per connection. Returns its port and its certificate (PEM).
async fn server() -> (u16, String) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let pem = certified.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::try_from(certified.signing_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok").await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, pem)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_server_is_reached_and_an_untrusted_one_refused() {
    let (trusted_port, trusted_pem) = server().await;
    let (untrusted_port, _) = server().await;
    let roots = tempfile::tempdir().unwrap();
    std::fs::write(roots.path().join("roots.pem"), trusted_pem).unwrap();
    // SAFETY: set before any client exists; this file's only test.
    unsafe {
        std::env::set_var("SSL_CERT_FILE", roots.path().join("roots.pem"));
        std::env::set_var("SSL_CERT_DIR", roots.path().join("none"));
    }
    rein_tls::load_roots_in_background();
    let client = rein_tls::client_builder().no_proxy().build().unwrap();

    let answer = client.get(format!("https://localhost:{trusted_port}/")).send().await.unwrap();
    assert_eq!(answer.text().await.unwrap(), "ok");

    let refused = client.get(format!("https://localhost:{untrusted_port}/")).send().await.unwrap_err();
    let chain = format!("{:?}", refused);
    assert!(chain.contains("UnknownIssuer") || chain.to_lowercase().contains("certificate"), "{chain}");

    // A second client shares the roots already read, and checks as well.
    let again = rein_tls::client_builder().no_proxy().build().unwrap();
    assert!(again.get(format!("https://localhost:{untrusted_port}/")).send().await.is_err());
    assert_eq!(again.get(format!("https://localhost:{trusted_port}/")).send().await.unwrap().status(), 200);
}
