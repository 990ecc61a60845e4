//! The HTTP face of crdstore on `--http-addr`: the Kubernetes REST API for
//! definitions and custom resources (so kubectl and the official clients
//! work unchanged), discovery, OpenAPI and health. Handlers are thin: they
//! read the request, call the domain, and render; errors become Kubernetes
//! `Status` objects in exactly one place (`status`).

mod apis;
mod codec;
mod discovery;
mod openapi;
mod query;
pub mod status;
mod watch;

use std::sync::Arc;

use axum::routing::{any, get};
use axum::Router;

use crate::registry::Registry;
use crate::resource::Resources;

/// The domain services the gateway calls.
#[derive(Clone)]
pub struct Api {
    pub registry: Arc<Registry>,
    pub resources: Arc<Resources>,
}

/// The HTTP routes.
pub fn router(api: Api) -> Router {
    Router::new()
        .route("/healthz", get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok))
        .route("/version", get(discovery::version))
        .route("/api", get(discovery::core))
        .route("/apis", get(discovery::groups))
        .route("/apis/{*path}", any(apis::handle))
        .route("/openapi/v2", get(openapi::v2))
        .route("/openapi/v3", get(openapi::v3_index))
        .route("/openapi/v3/apis/{group}/{version}", get(openapi::v3_group_version))
        .with_state(api)
}

async fn ok() -> &'static str {
    "ok"
}
