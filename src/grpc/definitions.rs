//! The `CustomResourceDefinitions` service: each handler converts the
//! request, calls the one resource store (definitions are a kind of it;
//! the registry lists their feature gates), and maps the result or error.

use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::Semaphore;

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::convert;
use crate::pb::v1 as pb;
use crate::pb::v1::custom_resource_definitions_server::CustomResourceDefinitions;
use crate::registry::Registry;
use crate::resource::definitions::{at, of_body};
use crate::resource::Resources;
use crate::watch::pool::Pool;

/// The service over the store.
pub struct DefinitionsService {
    registry: Arc<Registry>,
    resources: Arc<Resources>,
    watches: Arc<Semaphore>,
    pool: Arc<Pool>,
}

impl DefinitionsService {
    pub fn new(registry: Arc<Registry>, resources: Arc<Resources>, watches: Arc<Semaphore>, pool: Arc<Pool>) -> Self {
        Self { registry, resources, watches, pool }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchEvent, Status>> + Send>>;

#[tonic::async_trait]
impl CustomResourceDefinitions for DefinitionsService {
    async fn create(
        &self,
        request: Request<pb::CreateDefinitionRequest>,
    ) -> Result<Response<pb::CreateDefinitionResponse>, Status> {
        let req = request.into_inner();
        let mut created =
            self.resources.create(&at(""), &req.definition, &convert::write_options(req.options)?).await?;
        let response = pb::CreateDefinitionResponse { definition: created.take_json() };
        Ok(convert::with_warnings(response, &created.warnings))
    }

    async fn get(
        &self,
        request: Request<pb::GetDefinitionRequest>,
    ) -> Result<Response<pb::GetDefinitionResponse>, Status> {
        let found = self.resources.get(&at(&request.into_inner().name), Default::default()).await?;
        Ok(Response::new(pb::GetDefinitionResponse { definition: found.into_json() }))
    }

    async fn list(
        &self,
        request: Request<pb::ListDefinitionsRequest>,
    ) -> Result<Response<pb::ListDefinitionsResponse>, Status> {
        let options = convert::list_options(request.into_inner().options, "options")?;
        let page = self.resources.list(&at(""), &options).await?;
        Ok(Response::new(pb::ListDefinitionsResponse {
            items: page.items.iter().map(convert::json).collect(),
            resource_version: page.revision.to_string(),
            continue_token: page.continue_token,
            remaining_item_count: page.remaining.unwrap_or(0),
        }))
    }

    type WatchStream = EventStream;

    async fn watch(
        &self,
        request: Request<pb::WatchDefinitionsRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let slot = super::watch_slot(&self.watches)?;
        let options = convert::watch_options(request.into_inner().options)?;
        let events = self.pool.forward(self.resources.watch(&at(""), options).await?);
        let stream = events.map(move |item| {
            let _slot = &slot;
            item.map(|e| convert::watch_event(&e)).map_err(Status::from)
        });
        Ok(Response::new(Box::pin(stream)))
    }

    async fn update(
        &self,
        request: Request<pb::UpdateDefinitionRequest>,
    ) -> Result<Response<pb::UpdateDefinitionResponse>, Status> {
        let req = request.into_inner();
        let options = convert::write_options(req.options)?;
        let mut updated = self.resources.update(&of_body(&req.definition)?, &req.definition, &options).await?;
        let response = pb::UpdateDefinitionResponse { definition: updated.take_json() };
        Ok(convert::with_warnings(response, &updated.warnings))
    }

    async fn update_status(
        &self,
        request: Request<pb::UpdateDefinitionStatusRequest>,
    ) -> Result<Response<pb::UpdateDefinitionStatusResponse>, Status> {
        let req = request.into_inner();
        let (r, options) = (of_body(&req.definition)?, convert::write_options(req.options)?);
        let mut updated = self.resources.update_status(&r, &req.definition, &options).await?;
        let response = pb::UpdateDefinitionStatusResponse { definition: updated.take_json() };
        Ok(convert::with_warnings(response, &updated.warnings))
    }

    async fn delete(
        &self,
        request: Request<pb::DeleteDefinitionRequest>,
    ) -> Result<Response<pb::DeleteDefinitionResponse>, Status> {
        let req = request.into_inner();
        let deleted = self.resources.delete(&at(&req.name), &convert::delete_options(req.options)?).await?;
        let definition = convert::json(&deleted.object);
        Ok(Response::new(pb::DeleteDefinitionResponse { definition, deleted: deleted.gone }))
    }

    async fn list_feature_gates(
        &self,
        request: Request<pb::ListFeatureGatesRequest>,
    ) -> Result<Response<pb::ListFeatureGatesResponse>, Status> {
        let req = request.into_inner();
        let gates = self.registry.feature_gates(&req.definition, &req.component)?;
        let gates = gates
            .into_iter()
            .map(|g| pb::FeatureGate {
                definition: g.definition,
                component: g.component,
                name: g.name,
                stage: g.stage,
                default: g.default,
                enabled: g.enabled,
                effective: g.effective,
                paths: g.paths,
            })
            .collect();
        Ok(Response::new(pb::ListFeatureGatesResponse { gates }))
    }
}
