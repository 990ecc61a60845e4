//! The HTTP face of crdstore on `--http-addr`: the Kubernetes REST API for
//! definitions and custom resources (so kubectl and the official clients
//! work unchanged), discovery, OpenAPI and health. Handlers are thin: they
//! read the request, call the domain, and render; errors become Kubernetes
//! `Status` objects in exactly one place (`status`).

mod aggregated;
mod apis;
pub mod codec;
mod core;
mod discovery;
mod featuregates;
mod lists;
pub mod long_uri;
mod openapi;
pub mod protobuf;
mod query;
pub mod status;
mod watch;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::Error;
use crate::registry::Registry;
use crate::resource::Resources;

/// The domain services the gateway calls.
#[derive(Clone)]
pub struct Api {
    pub registry: Arc<Registry>,
    pub resources: Arc<Resources>,
    pub limits: Limits,
}

/// What one request may take of the process.
#[derive(Clone)]
pub struct Limits {
    /// How long a request body may take to arrive.
    pub body_timeout: Duration,
    /// The open watches, shared with the gRPC transport.
    pub watches: Arc<Semaphore>,
    /// Where watches are produced, shared with the gRPC transport.
    pub watch_pool: Arc<crate::watch::pool::Pool>,
}

/// Seconds after which a watch refused for want of a slot may be retried.
pub const WATCH_RETRY_SECONDS: u32 = 1;

/// Kubernetes' TooManyRequests for a watch over the limit, with the
/// seconds after which to retry.
pub fn too_many_watches() -> Error {
    let mut err = Error::too_many_requests("Too many requests, please try again later: too many watches are open");
    err.details.retry_after_seconds = Some(WATCH_RETRY_SECONDS);
    err
}

impl Limits {
    /// A slot for one more watch, held until the watch ends.
    pub fn watch_slot(&self) -> Result<OwnedSemaphorePermit, Error> {
        self.watches.clone().try_acquire_owned().map_err(|_| too_many_watches())
    }
}

/// The HTTP routes.
pub fn router(api: Api) -> Router {
    Router::new()
        .route("/healthz", get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok))
        .route("/version", get(discovery::version))
        .route("/api", get(discovery::core))
        .route("/api/v1", get(discovery::core_resources))
        .route("/api/{*path}", any(core::handle))
        .route("/apis", get(discovery::groups))
        .route("/apis/{*path}", any(apis::handle))
        .route("/featuregates", get(featuregates::list))
        .route("/openapi/v2", get(openapi::v2))
        .route("/openapi/v3", get(openapi::v3_index))
        .route("/openapi/v3/apis/{group}/{version}", get(openapi::v3_group_version))
        .route("/openapi/v3/api/{version}", get(openapi::v3_core))
        .route("/metrics", get(metrics))
        .with_state(api)
        .layer(axum::middleware::from_fn(observe))
}

/// Every request in a server span (child of its `traceparent`) and the
/// apiserver's request metrics, ended when its body ends.
async fn observe(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().as_str(), request.uri().path());
    let info = crate::telemetry::RequestInfo::http(method, path, request.uri().query());
    let flight = crate::telemetry::start(crate::telemetry::Transport::Http, info, method, path, request.headers());
    let response = tracing::Instrument::instrument(next.run(request), flight.span().clone()).await;
    flight.finish(response).map(axum::body::Body::new)
}

/// `/metrics`: the Prometheus text format.
async fn metrics() -> Response {
    match crate::telemetry::render_metrics() {
        Ok(text) => {
            ([(axum::http::header::CONTENT_TYPE, crate::telemetry::METRICS_CONTENT_TYPE)], text).into_response()
        }
        Err(err) => (axum::http::StatusCode::INTERNAL_SERVER_ERROR, err.to_string()).into_response(),
    }
}

async fn ok() -> &'static str {
    "ok"
}
