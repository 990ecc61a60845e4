//! The gRPC transport: the services over the domain, the standard health
//! service and server reflection, and the one mapping of domain errors to
//! gRPC statuses (`status`); gRPC-Web and CORS over all of it (`web`).

pub mod convert;
pub mod definitions;
pub mod maintenance;
pub mod migrations;
pub mod resources;
pub mod status;
pub mod web;

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::service::Routes;

use crate::migration::Migrations;
use crate::pb;
use crate::registry::Registry;
use crate::resource::Resources;
use crate::storage::Storage;
use crate::watch::pool::Pool;

/// Largest gRPC message accepted (bodies past 3 MiB are refused by the
/// domain with a clear error; this leaves room for the envelope).
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// What the gRPC services bound: watches hold one of `watches` each
/// (shared with the HTTP gateway) and are produced on `pool`; at most
/// `max_backups` backups run at once, each ended once its client has
/// taken nothing for `stall`.
pub struct Limits {
    pub watches: Arc<Semaphore>,
    pub pool: Arc<Pool>,
    pub max_backups: usize,
    pub stall: std::time::Duration,
    /// The origins browsers may call from over gRPC-Web; `None`: no CORS.
    pub cors: Option<web::Origins>,
}

/// Every gRPC service crdstore serves, with health reporting SERVING for
/// them, and reflection over the crdstore protos, over gRPC and gRPC-Web. `store` is what
/// `Maintenance` backs up; `migrations` serves `StorageVersionMigrations`.
pub async fn routes(
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    resources: Arc<Resources>,
    migrations: Arc<Migrations>,
    limits: Limits,
) -> Result<Routes, Box<dyn std::error::Error + Send + Sync>> {
    use pb::v1::custom_resource_definitions_server::CustomResourceDefinitionsServer;
    use pb::v1::custom_resources_server::CustomResourcesServer;
    use pb::v1::maintenance_server::MaintenanceServer;
    use pb::v1::storage_version_migrations_server::StorageVersionMigrationsServer;
    let Limits { watches, pool, max_backups, stall, cors } = limits;
    let (health_reporter, health) = tonic_health::server::health_reporter();
    health_reporter.set_serving::<CustomResourceDefinitionsServer<definitions::DefinitionsService>>().await;
    health_reporter.set_serving::<CustomResourcesServer<resources::ResourcesService>>().await;
    health_reporter.set_serving::<MaintenanceServer<maintenance::MaintenanceService>>().await;
    health_reporter.set_serving::<StorageVersionMigrationsServer<migrations::MigrationsService>>().await;
    // Both reflection versions: grpcui, Postman, older grpcurl and Python's
    // grpcio-reflection ask v1alpha first or only.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(pb::ERROR_DETAILS_DESCRIPTOR_SET)
    };
    let (reflection_v1, reflection_v1alpha) = (reflection().build_v1()?, reflection().build_v1alpha()?);
    let definitions = CustomResourceDefinitionsServer::new(definitions::DefinitionsService::new(
        registry,
        resources.clone(),
        watches.clone(),
        pool.clone(),
    ))
    .max_decoding_message_size(MAX_MESSAGE_BYTES);
    let resources = CustomResourcesServer::new(resources::ResourcesService::new(resources, watches, pool))
        .max_decoding_message_size(MAX_MESSAGE_BYTES);
    let maintenance = MaintenanceServer::new(maintenance::MaintenanceService::new(store, max_backups, stall));
    let routes = Routes::new(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(definitions)
        .add_service(resources)
        .add_service(maintenance)
        .add_service(StorageVersionMigrationsServer::new(migrations::MigrationsService::new(migrations)));
    let router = routes.into_axum_router().layer(axum::middleware::from_fn(observe));
    let router = router.layer(axum::middleware::from_fn(oversize));
    // Outside both: they see a gRPC-Web call as the gRPC call it becomes.
    Ok(Routes::from(web::serve(router, cors)))
}

/// tonic's decoder answers a message over `MAX_MESSAGE_BYTES` with
/// OUT_OF_RANGE; grpc-go and the C core answer RESOURCE_EXHAUSTED, which is
/// what clients retry on and report. The refusal comes before any handler
/// runs, as a trailers-only response: its code is rewritten here.
async fn oversize(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    let out_of_range = headers.get("grpc-status").is_some_and(|v| v.as_bytes() == b"11");
    let too_large = |v: &axum::http::HeaderValue| {
        let text = String::from_utf8_lossy(v.as_bytes()).replace("%20", " ");
        text.starts_with("Error, decoded message length too large")
    };
    if out_of_range && headers.get("grpc-message").is_some_and(too_large) {
        let code = (tonic::Code::ResourceExhausted as i32).to_string();
        headers.insert("grpc-status", axum::http::HeaderValue::from_str(&code).expect("a number is a header value"));
    }
    response
}

/// Every call to crdstore's services in a server span (child of the
/// `traceparent` metadata) and the apiserver's request metrics, ended when
/// its response (a watch's stream) ends. Health and reflection pass through.
async fn observe(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let path = request.uri().path();
    let Some(info) = crate::telemetry::RequestInfo::grpc(path) else { return next.run(request).await };
    let flight = crate::telemetry::start(crate::telemetry::Transport::Grpc, info, "POST", path, request.headers());
    let handled = tracing::Instrument::instrument(flight.scope(next.run(request)), flight.span().clone()).await;
    flight.finish(handled).map(axum::body::Body::new)
}

/// A slot for one more watch out of `watches` (shared with the HTTP
/// gateway), held by the stream until it ends; none left is Kubernetes'
/// TooManyRequests, RESOURCE_EXHAUSTED, with the seconds to wait.
pub fn watch_slot(watches: &Arc<Semaphore>) -> Result<OwnedSemaphorePermit, tonic::Status> {
    watches.clone().try_acquire_owned().map_err(|_| {
        let mut err = crate::error::Error::too_many_requests(
            "Too many requests, please try again later: too many watches are open",
        );
        err.details.retry_after_seconds = Some(1);
        tonic::Status::from(err)
    })
}
