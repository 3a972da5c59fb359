//! The TLS settings every HTTPS client of rein shares. reqwest, left to itself, reads the
//! system's root certificates (a bundle and a folder of some 400 files on Debian) each
//! time a client is built: ~5 ms of every start, even when the model endpoint is plain
//! `http://`. Here they are read once a process, and only when a server's certificate
//! is to be checked — on a thread of their own as soon as a client for an `https://`
//! endpoint is built ([`load_roots_in_background`]), so the handshake finds them ready.
//! Verification itself is rustls-platform-verifier's, as reqwest's own would be.

use std::sync::{Arc, Once, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The crypto reqwest's `rustls` feature uses (aws-lc-rs), unless the process installed
/// another.
fn provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    PROVIDER
        .get_or_init(|| {
            CryptoProvider::get_default()
                .cloned()
                .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        })
        .clone()
}

/// The verifier over the system's roots, built on first use (a failure — no roots
/// readable — is kept and given to every handshake, which then fails with it).
fn system_verifier() -> Result<&'static rustls_platform_verifier::Verifier, rustls::Error> {
    static VERIFIER: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>> = OnceLock::new();
    VERIFIER.get_or_init(|| rustls_platform_verifier::Verifier::new(provider())).as_ref().map_err(Clone::clone)
}

/// Start reading the system's roots on a thread of their own (once a process): a client
/// for an `https://` endpoint calls it when it is built.
pub fn load_roots_in_background() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("rein-tls-roots".into()).spawn(|| {
            let _ = system_verifier();
        });
        // Without the thread the first handshake reads them.
        drop(spawned);
    });
}

/// Checks a server's certificate against the system's roots, read when first needed.
#[derive(Debug)]
struct SystemRoots {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for SystemRoots {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        system_verifier()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// The shared client configuration: TLS 1.2 and 1.3, HTTP/2 and HTTP/1.1 offered, as
/// reqwest configures its own.
fn config() -> Option<rustls::ClientConfig> {
    static CONFIG: OnceLock<Option<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = provider();
            let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
                .with_safe_default_protocol_versions()
                .ok()?;
            let mut config = builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(SystemRoots { provider }))
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            Some(config)
        })
        .clone()
}

/// A reqwest client builder with the shared TLS settings (reqwest's own when they could
/// not be made).
pub fn client_builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    match config() {
        Some(config) => builder.tls_backend_preconfigured(config),
        None => builder,
    }
}
