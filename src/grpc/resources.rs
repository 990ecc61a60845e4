//! The `CustomResources` service: each handler converts the request, calls
//! the resource service, and maps the result or error.

use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::Semaphore;

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::convert;
use crate::apimachinery::heavy;
use crate::apimachinery::options::ResourceVersion;
use crate::apimachinery::patch::PatchType;
use crate::pb::v1 as pb;
use crate::pb::v1::custom_resources_server::CustomResources;
use crate::resource::{Endpoint, Ref, Resources};
use crate::watch::pool::Pool;

/// The service over the resource domain.
pub struct ResourcesService {
    resources: Arc<Resources>,
    watches: Arc<Semaphore>,
    pool: Arc<Pool>,
}

impl ResourcesService {
    pub fn new(resources: Arc<Resources>, watches: Arc<Semaphore>, pool: Arc<Pool>) -> Self {
        Self { resources, watches, pool }
    }
}

impl ResourcesService {
    /// `result` with the warning of the version `r` names when it is
    /// deprecated, as a `warning` metadata entry on the answer or the error
    /// (Kubernetes adds it to every response at that version).
    fn warned<T>(&self, r: &Ref, result: Result<Response<T>, Status>) -> Result<Response<T>, Status> {
        let served = self.resources.served(&r.group, &r.version, &r.resource).ok();
        let Some(warning) = served.as_ref().and_then(|s| s.deprecation(&r.version)) else { return result };
        let Ok(value) = tonic::metadata::MetadataValue::try_from(warning) else { return result };
        match result {
            Ok(mut response) => {
                response.metadata_mut().append("warning", value);
                Ok(response)
            }
            Err(mut status) => {
                status.metadata_mut().append("warning", value);
                Err(status)
            }
        }
    }
}

fn reference(r: Option<pb::ResourceRef>) -> Ref {
    let r = r.unwrap_or_default();
    crate::telemetry::note(&r.group, &r.version, &r.resource, &r.namespace, &r.name);
    Ref { group: r.group, version: r.version, resource: r.resource, namespace: r.namespace, name: r.name }
}

/// The patch's type: unspecified is a BadRequest, a value this server does
/// not know is refused naming `patch_type`.
fn patch_type(value: i32) -> Result<PatchType, Status> {
    match convert::known_enum("PatchResourceRequest", "patch_type", value)? {
        pb::PatchType::Merge => Ok(PatchType::Merge),
        pb::PatchType::Json => Ok(PatchType::Json),
        pb::PatchType::StrategicMerge => Ok(PatchType::StrategicMerge),
        pb::PatchType::Apply => Ok(PatchType::Apply),
        pb::PatchType::Unspecified => {
            Err(crate::error::Error::bad_request("patch_type is required: MERGE or JSON").into())
        }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchEvent, Status>> + Send>>;

#[tonic::async_trait]
impl CustomResources for ResourcesService {
    async fn create(
        &self,
        request: Request<pb::CreateResourceRequest>,
    ) -> Result<Response<pb::CreateResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let (resources, at, options) =
                (Arc::clone(&self.resources), r.clone(), convert::write_options(req.options)?);
            let body = req.object;
            let mut created =
                heavy::run(body.len(), async move { resources.create(&at, &body, &options).await }).await?;
            Ok(convert::with_warnings(pb::CreateResourceResponse { object: created.take_json() }, &created.warnings))
        };
        self.warned(&r, result.await)
    }

    async fn get(&self, request: Request<pb::GetResourceRequest>) -> Result<Response<pb::GetResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let found = self.resources.get(&r, ResourceVersion::parse(&req.resource_version)?).await?;
            Ok(Response::new(pb::GetResourceResponse { object: found.into_json() }))
        };
        self.warned(&r, result.await)
    }

    async fn list(
        &self,
        request: Request<pb::ListResourcesRequest>,
    ) -> Result<Response<pb::ListResourcesResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let options = convert::list_options(req.options, "options")?;
            let page = self.resources.list_json(&r, &options).await?;
            Ok(Response::new(pb::ListResourcesResponse {
                items: page.items,
                resource_version: page.revision.to_string(),
                continue_token: page.continue_token,
                remaining_item_count: page.remaining.unwrap_or(0),
            }))
        };
        self.warned(&r, result.await)
    }

    type WatchStream = EventStream;

    async fn watch(&self, request: Request<pb::WatchResourcesRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let slot = super::watch_slot(&self.watches)?;
            let events = self.pool.forward(self.resources.watch(&r, convert::watch_options(req.options)?).await?);
            let stream = events.map(move |item| {
                let _slot = &slot;
                item.map(|e| convert::watch_event(&e)).map_err(Status::from)
            });
            Ok(Response::new(Box::pin(stream) as Self::WatchStream))
        };
        self.warned(&r, result.await)
    }

    async fn update(
        &self,
        request: Request<pb::UpdateResourceRequest>,
    ) -> Result<Response<pb::UpdateResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let (resources, at, options) =
                (Arc::clone(&self.resources), r.clone(), convert::write_options(req.options)?);
            let body = req.object;
            let mut updated =
                heavy::run(body.len(), async move { resources.update(&at, &body, &options).await }).await?;
            Ok(convert::with_warnings(pb::UpdateResourceResponse { object: updated.take_json() }, &updated.warnings))
        };
        self.warned(&r, result.await)
    }

    async fn patch(
        &self,
        request: Request<pb::PatchResourceRequest>,
    ) -> Result<Response<pb::PatchResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let kind = patch_type(req.patch_type)?;
            // Read as the raw number: prost's getter reads an unknown value as
            // the default, which would patch the main resource.
            let subresource: pb::Subresource =
                convert::known_enum("PatchResourceRequest", "subresource", req.subresource)?;
            let mut options = convert::write_options(req.options)?;
            options.force = req.force;
            let endpoint = match subresource {
                pb::Subresource::Unspecified => Endpoint::Main,
                pb::Subresource::Status => Endpoint::Status,
                pb::Subresource::Scale => {
                    let mut patched = self.resources.patch_scale(&r, kind, &req.patch, &options).await?;
                    let response = pb::PatchResourceResponse { object: patched.take_json() };
                    return Ok(convert::with_warnings(response, &patched.warnings));
                }
            };
            let (resources, at, patch) = (Arc::clone(&self.resources), r.clone(), req.patch);
            let mut patched =
                heavy::run(patch.len(), async move { resources.patch(&at, endpoint, kind, &patch, &options).await })
                    .await?;
            Ok(convert::with_warnings(pb::PatchResourceResponse { object: patched.take_json() }, &patched.warnings))
        };
        self.warned(&r, result.await)
    }

    async fn delete(
        &self,
        request: Request<pb::DeleteResourceRequest>,
    ) -> Result<Response<pb::DeleteResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let deleted = self.resources.delete(&r, &convert::delete_options(req.options)?).await?;
            Ok(Response::new(pb::DeleteResourceResponse {
                object: convert::json(&deleted.object),
                deleted: deleted.gone,
            }))
        };
        self.warned(&r, result.await)
    }

    async fn delete_collection(
        &self,
        request: Request<pb::DeleteCollectionRequest>,
    ) -> Result<Response<pb::DeleteCollectionResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let list_options = convert::list_options(req.list_options, "list_options")?;
            let items =
                self.resources.delete_collection(&r, &list_options, &convert::delete_options(req.options)?).await?;
            Ok(Response::new(pb::DeleteCollectionResponse { items: items.iter().map(convert::json).collect() }))
        };
        self.warned(&r, result.await)
    }

    async fn update_status(
        &self,
        request: Request<pb::UpdateStatusRequest>,
    ) -> Result<Response<pb::UpdateStatusResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let mut updated =
                self.resources.update_status(&r, &req.object, &convert::write_options(req.options)?).await?;
            Ok(convert::with_warnings(pb::UpdateStatusResponse { object: updated.take_json() }, &updated.warnings))
        };
        self.warned(&r, result.await)
    }

    async fn get_scale(&self, request: Request<pb::GetScaleRequest>) -> Result<Response<pb::GetScaleResponse>, Status> {
        let r = reference(request.into_inner().r#ref);
        let result = self
            .resources
            .get_scale(&r)
            .await
            .map(|scale| Response::new(pb::GetScaleResponse { scale: convert::json(&scale) }));
        self.warned(&r, result.map_err(Status::from))
    }

    async fn update_scale(
        &self,
        request: Request<pb::UpdateScaleRequest>,
    ) -> Result<Response<pb::UpdateScaleResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let mut written =
                self.resources.update_scale(&r, &req.scale, &convert::write_options(req.options)?).await?;
            Ok(convert::with_warnings(pb::UpdateScaleResponse { scale: written.take_json() }, &written.warnings))
        };
        self.warned(&r, result.await)
    }

    async fn apply(
        &self,
        request: Request<pb::ApplyResourceRequest>,
    ) -> Result<Response<pb::ApplyResourceResponse>, Status> {
        let req = request.into_inner();
        let r = reference(req.r#ref);
        let result = async {
            let endpoint = match convert::known_enum("ApplyResourceRequest", "subresource", req.subresource)? {
                pb::Subresource::Unspecified => Endpoint::Main,
                pb::Subresource::Status => Endpoint::Status,
                pb::Subresource::Scale => {
                    return Err(convert::unsupported_enum(
                        "ApplyResourceRequest",
                        "subresource",
                        req.subresource,
                        &["SUBRESOURCE_UNSPECIFIED", "SUBRESOURCE_STATUS"],
                    ))
                }
            };
            let options = convert::apply_options(req.field_manager, req.force, req.dry_run);
            let mut written = self.resources.apply(&r, endpoint, &req.object, &options).await?;
            Ok(convert::with_warnings(
                pb::ApplyResourceResponse { object: written.take_json(), created: written.created },
                &written.warnings,
            ))
        };
        self.warned(&r, result.await)
    }

    async fn convert(&self, request: Request<pb::ConvertRequest>) -> Result<Response<pb::ConvertResponse>, Status> {
        let req = request.into_inner();
        crate::telemetry::note(&req.group, &req.desired_version, &req.resource, "", "");
        let objects = self.resources.convert(&req.group, &req.resource, &req.desired_version, &req.objects).await?;
        Ok(Response::new(pb::ConvertResponse { objects }))
    }
}
