//! The HTTP face of crdstore on `--http-addr`: health endpoints now; the
//! Kubernetes REST API joins it with the gateway issue. Errors become
//! Kubernetes `Status` objects in exactly one place (`status`).

pub mod status;

use axum::routing::get;
use axum::Router;

/// The HTTP routes: `/healthz`, `/livez` and `/readyz` answer `ok` while the
/// server runs.
pub fn router() -> Router {
    Router::new().route("/healthz", get(ok)).route("/livez", get(ok)).route("/readyz", get(ok))
}

async fn ok() -> &'static str {
    "ok"
}
