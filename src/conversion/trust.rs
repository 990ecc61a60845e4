//! The trust a conversion webhook's `caBundle` grants, as Kubernetes (Go's
//! crypto/tls) grants it: chains to the bundle's certificates verified by
//! webpki, and also a server certificate that is itself one of the bundle's
//! certificates though marked as a CA. Go's `generate_cert.go --ca`, used
//! by Kubernetes' own tests and many webhooks, makes exactly such a
//! certificate; webpki alone refuses it (`CaUsedAsEndEntity`).

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// A verifier trusting `bundle` as Go trusts a root pool.
#[derive(Debug)]
struct BundleVerifier {
    inner: Arc<WebPkiServerVerifier>,
    bundle: Vec<CertificateDer<'static>>,
}

/// Whether webpki refused a certificate only for being a CA (its validity
/// period, signature and name were checked before that).
fn only_a_ca(err: &rustls::Error) -> bool {
    matches!(err, rustls::Error::InvalidCertificate(CertificateError::Other(other))
        if format!("{other:?}").contains("CaUsedAsEndEntity"))
}

impl ServerCertVerifier for BundleVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(err) if only_a_ca(&err) && self.bundle.iter().any(|c| c.as_ref() == end_entity.as_ref()) => {
                let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
                rustls::client::verify_server_name(&parsed, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A TLS client configuration trusting only the PEM `bundle`, speaking
/// HTTP/2 or HTTP/1.1. An error says what is wrong with the bundle.
pub fn client_config(bundle: &[u8]) -> Result<rustls::ClientConfig, String> {
    let (verifier, provider) = verifier(bundle)?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

fn verifier(bundle: &[u8]) -> Result<(BundleVerifier, Arc<CryptoProvider>), String> {
    use rustls::pki_types::pem::PemObject;
    let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(bundle)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the caBundle is not PEM: {e}"))?;
    if certificates.is_empty() {
        return Err("the caBundle holds no certificate".into());
    }
    let mut roots = RootCertStore::empty();
    for certificate in &certificates {
        roots.add(certificate.clone()).map_err(|e| format!("a caBundle certificate is not usable: {e}"))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| format!("the caBundle cannot verify servers: {e}"))?;
    Ok((BundleVerifier { inner, bundle: certificates }, provider))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};

    fn self_signed(ca: bool) -> (String, CertificateDer<'static>) {
        let mut params = CertificateParams::new(vec!["127.0.0.1".to_string(), "example.com".to_string()]).unwrap();
        if ca {
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        }
        let cert = params.self_signed(&KeyPair::generate().unwrap()).unwrap();
        (cert.pem(), cert.der().clone())
    }

    fn check(verifier: &BundleVerifier, cert: &CertificateDer<'_>, name: &str) -> Result<(), rustls::Error> {
        let name = ServerName::try_from(name.to_string()).unwrap();
        verifier.verify_server_cert(cert, &[], &name, &[], UnixTime::now()).map(|_| ())
    }

    #[test]
    fn a_self_signed_ca_in_the_bundle_is_trusted_as_its_own_server_certificate() {
        // Go's generate_cert.go --ca, as upstream's TestSelectableFields uses.
        let (pem, der) = self_signed(true);
        let (verifier, _) = verifier(pem.as_bytes()).unwrap();
        check(&verifier, &der, "127.0.0.1").unwrap();
        check(&verifier, &der, "example.com").unwrap();
        // Its names still count.
        assert!(check(&verifier, &der, "other.example.com").is_err());
        // A CA outside the bundle is not trusted.
        let (_, stranger) = self_signed(true);
        assert!(check(&verifier, &stranger, "127.0.0.1").is_err());
    }

    #[test]
    fn a_bundle_without_certificates_is_refused() {
        assert!(verifier(b"not pem").is_err());
        assert!(client_config(b"").is_err());
    }
}
