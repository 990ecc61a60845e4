//! The `StorageVersionMigrations` service: start, read, list and follow
//! storage-version migrations (`migration::Migrations`), the objects
//! `storageversionmigrations` serves.

use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use crate::migration::{Migration, Migrations};
use crate::pb::v1 as pb;
use crate::pb::v1::storage_version_migrations_server::StorageVersionMigrations;

/// The service over the migrations of a store.
pub struct MigrationsService {
    migrations: Arc<Migrations>,
}

impl MigrationsService {
    pub fn new(migrations: Arc<Migrations>) -> Self {
        Self { migrations }
    }
}

/// A migration as its message.
pub fn message(m: &Migration) -> pb::Migration {
    let (r, progress) = (&m.record, &m.record.progress);
    pb::Migration {
        name: r.name.clone(),
        definition: r.definition(),
        phase: r.phase().as_str().to_string(),
        target_version: progress.target_version.clone(),
        migrated: progress.migrated,
        scanned: progress.scanned,
        total: progress.total,
        message: r.message(),
        object: serde_json::to_vec(&m.object).expect("JSON values serialize"),
    }
}

type MigrationStream = Pin<Box<dyn Stream<Item = Result<pb::Migration, Status>> + Send>>;

#[tonic::async_trait]
impl StorageVersionMigrations for MigrationsService {
    async fn start(&self, request: Request<pb::StartMigrationRequest>) -> Result<Response<pb::Migration>, Status> {
        let req = request.into_inner();
        let (resource, group) = req.definition.split_once('.').unwrap_or((req.definition.as_str(), ""));
        let started = self.migrations.start(&req.name, group, resource).await?;
        Ok(Response::new(message(&started)))
    }

    async fn get(&self, request: Request<pb::GetMigrationRequest>) -> Result<Response<pb::Migration>, Status> {
        Ok(Response::new(message(&self.migrations.get(&request.into_inner().name)?)))
    }

    async fn list(
        &self,
        _request: Request<pb::ListMigrationsRequest>,
    ) -> Result<Response<pb::ListMigrationsResponse>, Status> {
        let migrations = self.migrations.list()?.iter().map(message).collect();
        Ok(Response::new(pb::ListMigrationsResponse { migrations }))
    }

    type WatchStream = MigrationStream;

    async fn watch(&self, request: Request<pb::WatchMigrationRequest>) -> Result<Response<MigrationStream>, Status> {
        let stream = self.migrations.watch(&request.into_inner().name)?;
        let stream = stream.map(|item| item.map(|m| message(&m)).map_err(Status::from));
        Ok(Response::new(Box::pin(stream)))
    }
}
