//! The registry of custom resource definitions: create, read, list, watch,
//! update, status update and delete, with Kubernetes semantics. Server-set
//! metadata, status (accepted names, stored versions, conditions) and the
//! names of the other definitions of a group are maintained here, inside the
//! same atomic commit as the write that changes them.

mod apply;
pub mod conditions;
pub mod definition;
mod delete;
pub mod discovery;
pub mod extensions;
pub mod naming;
mod selectable;
pub mod strategy;
pub mod validation;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::Value;

use crate::apimachinery::decode;
use crate::apimachinery::list::{self, ListPage};
use crate::apimachinery::meta;
use crate::apimachinery::options::{ListOptions, WatchOptions, WriteOptions, Written};
use crate::apimachinery::patch::PatchType;
use crate::apimachinery::selector::{FieldSelector, LabelSelector};
use crate::apimachinery::strategy::{before_create_tracked, before_update_tracked, require_resource_version, retry};
use crate::apimachinery::strategy::{Endpoint, StatusStrategy};
use crate::error::{Error, FieldError, Result};
use crate::storage::{keys, KeyValue, Op, ReadAt, Storage, StorageError};
use crate::watch::stream::{self, WatchDefaults, WatchSpec, WatchStream};

use definition::{Definition, API_VERSION, KIND};
use naming::Claimed;
use strategy::DefinitionStrategy;

/// The definitions' API group, spelled once (in the key space, the lowest
/// layer that needs it).
pub const GROUP: &str = keys::DEFINITIONS_GROUP;
/// The finalizer a definition carries while its instances are deleted.
pub const CLEANUP_FINALIZER: &str = concat!("customresourcecleanup.", crate::storage::keys::definitions_group!());
const RESOURCE: &str = keys::DEFINITIONS_RESOURCE;

/// A definition as stored, with its key-value.
struct Stored {
    kv: KeyValue,
    crd: Definition,
}

/// The definition registry.
pub struct Registry {
    store: Arc<dyn Storage>,
    /// Definition writes are serialized: each one re-evaluates the names of
    /// its whole group, which must not interleave with another.
    writes: tokio::sync::Mutex<()>,
    watch_defaults: WatchDefaults,
    /// Becomes true when the server shuts down; watches end then.
    stopped: tokio::sync::watch::Receiver<bool>,
    /// Wakes the cleanup task when a definition with instances is deleted.
    cleanup: tokio::sync::Notify,
}

/// The key prefix of every instance of a definition.
fn instances_prefix(crd: &CustomResourceDefinition) -> String {
    keys::resource_prefix(&crd.spec.group, &crd.spec.names.plural)
}

fn invalid(name: &str, causes: Vec<FieldError>) -> Error {
    Error::invalid(GROUP, KIND, name, causes)
}

fn name_of(crd: &CustomResourceDefinition) -> &str {
    crd.metadata.name.as_deref().unwrap_or("")
}

fn now() -> Time {
    Time(jiff::Timestamp::now().round(jiff::Unit::Second).expect("rounding a timestamp to seconds"))
}

/// Checks uid and resourceVersion preconditions against a stored definition.
fn check_preconditions(name: &str, uid: &str, rv: Option<crate::storage::Revision>, old: &Stored) -> Result<()> {
    let subject = meta::Subject { group: GROUP, resource: RESOURCE, name };
    let stored_uid = old.crd.metadata.uid.as_deref().unwrap_or("");
    meta::check_preconditions(&subject, uid, stored_uid, rv, old.kv.mod_revision)
}

impl Registry {
    pub fn new(
        store: Arc<dyn Storage>,
        watch_defaults: WatchDefaults,
        stopped: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self {
            store,
            writes: tokio::sync::Mutex::new(()),
            watch_defaults,
            stopped,
            cleanup: tokio::sync::Notify::new(),
        }
    }

    /// Every definition at the latest revision.
    pub fn all(&self) -> Result<Vec<CustomResourceDefinition>> {
        Ok(self.all_stored()?.into_iter().map(|s| s.crd.crd).collect())
    }

    /// Every definition at the latest revision, with its feature gates.
    pub fn definitions(&self) -> Result<Vec<Definition>> {
        Ok(self.all_stored()?.into_iter().map(|s| s.crd).collect())
    }

    fn all_stored(&self) -> Result<Vec<Stored>> {
        let range = self.store.range(&keys::definitions_prefix(), None, ReadAt::Latest, 0, &mut |_| true)?;
        range.items.into_iter().map(|kv| Ok(Stored { crd: definition::decode(&kv)?, kv })).collect()
    }

    /// The stored definitions of `group` other than `name`.
    fn others_in_group(&self, group: &str, name: &str) -> Result<Vec<Stored>> {
        let mut others = self.all_stored()?;
        others.retain(|s| s.crd.spec.group == group && name_of(&s.crd) != name);
        Ok(others)
    }

    fn load(&self, name: &str) -> Result<Stored> {
        meta::check_request_name(GROUP, KIND, name)?;
        let kv = self.store.get(&keys::definition_key(name)).ok_or_else(|| Error::not_found(GROUP, RESOURCE, name))?;
        Ok(Stored { crd: definition::decode(&kv)?, kv })
    }

    /// Reads one definition.
    pub fn get(&self, name: &str) -> Result<Value> {
        Ok(definition::to_json(&self.load(name)?.crd))
    }

    /// Registers a definition; warns of formats Kubernetes does not recognize.
    pub async fn create(&self, body: &[u8], options: &WriteOptions) -> Result<Written> {
        apply::check_field_manager("CreateOptions", options)?;
        self.create_tracked(body, options, false).await
    }

    async fn create_tracked(&self, body: &[u8], options: &WriteOptions, applied: bool) -> Result<Written> {
        let (parsed, strict) = parse(body, options)?;
        let mut obj = definition::to_json(&parsed);
        before_create_tracked(&DefinitionStrategy, &mut obj, "", &apply::tracking(Endpoint::Main, options, applied))?;
        let mut crd = definition::from_json(obj)?;
        let name = name_of(&crd).to_string();

        let _serial = self.writes.lock().await;
        let others = self.all_stored()?;
        if others.iter().any(|s| name_of(&s.crd) == name) {
            return Err(Error::already_exists(GROUP, RESOURCE, &name));
        }
        let claimed = Claimed::in_group(others.iter().map(|s| &s.crd.crd), &crd.spec.group, &name);
        naming::accept_names(&mut crd, &claimed);
        let mut warnings = strict;
        warnings.extend(format_warnings(&crd, None));
        if options.dry_run {
            return Ok(Written::new(definition::to_json(&crd), warnings));
        }
        let stored = definition::to_stored(&crd);
        meta::check_stored_size(&stored)?;
        let committed = match self.store.commit(vec![Op::create(keys::definition_key(&name), stored)]).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::already_exists(GROUP, RESOURCE, &name)),
            other => other?,
        };
        tracing::info!(definition = %name, revision = %committed.revision, "created definition");
        crd.metadata.resource_version = Some(committed.revision.to_string());
        Ok(Written::new(definition::to_json(&crd), warnings))
    }

    /// Replaces a definition's spec and metadata; its status is kept. Warns
    /// of unrecognized formats the update introduces.
    pub async fn update(&self, body: &[u8], options: &WriteOptions) -> Result<Written> {
        apply::check_field_manager("UpdateOptions", options)?;
        self.replace(body, Endpoint::Main, options, false).await
    }

    /// Replaces a definition's status: only `storedVersions` is taken from
    /// the body; accepted names and conditions are the server's.
    pub async fn update_status(&self, body: &[u8], options: &WriteOptions) -> Result<Written> {
        apply::check_field_manager("UpdateOptions", options)?;
        self.replace(body, Endpoint::Status, options, false).await
    }

    /// An update of a definition or its status through the strategy
    /// contract, serialized with every other definition write.
    async fn replace(&self, body: &[u8], endpoint: Endpoint, options: &WriteOptions, applied: bool) -> Result<Written> {
        let (parsed, strict) = parse(body, options)?;
        let mut obj = definition::to_json(&parsed);
        let name = meta::meta_str(&obj, "name").to_string();
        let _serial = self.writes.lock().await;
        let old = self.load(&name)?;
        let old_json = definition::to_json(&old.crd);
        let subject = meta::Subject { group: GROUP, resource: RESOURCE, name: &name };
        require_resource_version(&DefinitionStrategy, &subject, &obj, old.kv.mod_revision)?;
        let uid = meta::meta_str(&obj, "uid").to_string();
        meta::check_preconditions(&subject, &uid, meta::meta_str(&old_json, "uid"), None, old.kv.mod_revision)?;
        let tracking = apply::tracking(endpoint, options, applied);
        let mut warnings = strict;
        warnings.extend(match endpoint {
            // Definitions have no finalize subresource: no transport asks for it.
            Endpoint::Main | Endpoint::Finalize => {
                before_update_tracked(&DefinitionStrategy, &mut obj, &old_json, &tracking)?
            }
            Endpoint::Status => {
                before_update_tracked(&StatusStrategy(&DefinitionStrategy), &mut obj, &old_json, &tracking)?
            }
        });
        let crd = definition::from_json(obj)?;
        if endpoint == Endpoint::Main {
            warnings.extend(format_warnings(&crd, Some(&old.crd)));
        }
        // The last finalizer of a terminating definition gone: it goes.
        if crd.metadata.deletion_timestamp.is_some() && crd.metadata.finalizers.iter().flatten().next().is_none() {
            let object = definition::to_json(&crd);
            if !options.dry_run {
                self.remove(old).await?;
            }
            return Ok(Written::new(object, warnings));
        }
        let object = self.commit_with_group(crd, old, options).await?;
        Ok(Written::new(object, warnings))
    }

    /// Patches a definition (`Endpoint::Main`) or its status (JSON merge
    /// patch or JSON patch), and writes it as an update. A patch that does
    /// not name a resourceVersion applies to whatever is current: a
    /// concurrent write is retried, as Kubernetes does.
    pub async fn patch(
        &self,
        name: &str,
        endpoint: Endpoint,
        kind: PatchType,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<Written> {
        apply::check_patch_options(kind, options)?;
        meta::check_body_size(patch)?;
        if kind == PatchType::Apply {
            return self.apply(name, endpoint, patch, options).await;
        }
        retry(
            || async {
                let current = self.get(name)?;
                // Definitions are a built-in kind: strategic merge patch is
                // theirs, with ObjectMeta's lists alone (their types tag no
                // other).
                let patched =
                    crate::apimachinery::patch::apply(&current, kind, patch, Some(&[]), |errs| invalid(name, errs))?;
                let pinned =
                    patched.pointer("/metadata/resourceVersion") != current.pointer("/metadata/resourceVersion");
                let body = serde_json::to_vec(&patched).map_err(|e| Error::internal(e.to_string()))?;
                match self.replace(&body, endpoint, options, false).await {
                    Err(e) if e.reason == crate::error::Reason::Conflict && !pinned => Ok(None),
                    result => result.map(Some),
                }
            },
            || Error::stale(GROUP, RESOURCE, name),
        )
        .await
    }

    /// Writes `crd` over `old`, re-evaluating the names of its whole group in
    /// the same commit. A write that changes nothing keeps the resourceVersion.
    async fn commit_with_group(&self, mut crd: Definition, old: Stored, options: &WriteOptions) -> Result<Value> {
        let name = name_of(&crd).to_string();
        let mut group = self.others_in_group(&crd.spec.group, &name)?;
        let claimed = Claimed::in_group(group.iter().map(|s| &s.crd.crd), &crd.spec.group, &name);
        naming::accept_names(&mut crd, &claimed);
        let stored = definition::to_stored(&crd);
        meta::check_stored_size(&stored)?;
        let mut ops = vec![Op::update(keys::definition_key(&name), old.kv.mod_revision, stored)];
        ops.extend(Self::settle_group(&crd.spec.group, &mut group, Some(&crd.crd)));
        if options.dry_run {
            crd.metadata.resource_version = Some(old.kv.mod_revision.to_string());
            return Ok(definition::to_json(&crd));
        }
        let committed = match self.store.commit(ops).await {
            Err(StorageError::PreconditionFailed { .. }) => return Err(Error::stale(GROUP, RESOURCE, &name)),
            other => other?,
        };
        let current = committed.current(0).ok_or_else(|| Error::internal("update left no definition"))?;
        definition::decode_json(current)
    }

    /// Re-evaluates the names of `others` (oldest first) against each other
    /// and `this`; returns the writes for those whose status changed.
    fn settle_group(group: &str, others: &mut [Stored], this: Option<&CustomResourceDefinition>) -> Vec<Op> {
        others.sort_by_key(|s| s.kv.create_revision);
        let mut ops = Vec::new();
        for i in 0..others.len() {
            let name = name_of(&others[i].crd).to_string();
            let claimed = Claimed::in_group(others.iter().map(|s| &s.crd.crd).chain(this), group, &name);
            let mut crd = others[i].crd.clone();
            crd.metadata.resource_version = None;
            naming::accept_names(&mut crd, &claimed);
            let bytes = definition::to_stored(&crd);
            if *bytes != *others[i].kv.value {
                ops.push(Op::update(keys::definition_key(&name), others[i].kv.mod_revision, bytes));
                others[i].crd = crd;
            }
        }
        ops
    }

    /// The field-level feature gates of every definition, in name then gate
    /// order; `definition` and `component`, when not empty, keep only those
    /// of that definition or component.
    pub fn feature_gates(&self, definition: &str, component: &str) -> Result<Vec<crate::gates::Listed>> {
        let mut listed = Vec::new();
        for crd in self.definitions()? {
            let name = name_of(&crd);
            let Some(gates) = &crd.gates else { continue };
            if (!definition.is_empty() && name != definition)
                || (!component.is_empty() && gates.component.as_deref().unwrap_or("") != component)
            {
                continue;
            }
            listed.extend(crate::gates::list(name, gates));
        }
        Ok(listed)
    }

    /// Lists definitions.
    pub async fn list(&self, options: &ListOptions) -> Result<ListPage> {
        let labels = LabelSelector::parse(&options.label_selector)?;
        let fields = FieldSelector::parse(&options.field_selector, &["metadata.name"])?;
        let matches = move |obj: &Value| {
            labels.matches(&meta::labels(obj)) && fields.matches(|_| meta::meta_str(obj, "name").to_string())
        };
        list::list(self.store.as_ref(), &keys::definitions_prefix(), options, &definition::decode_json, Some(&matches))
            .await
    }

    /// Watches definitions.
    pub async fn watch(&self, options: WatchOptions) -> Result<WatchStream> {
        let labels = LabelSelector::parse(&options.label_selector)?;
        let fields = FieldSelector::parse(&options.field_selector, &["metadata.name"])?;
        let matches: Option<stream::Matches> = (!labels.is_empty() || !fields.is_empty()).then(|| {
            Arc::new(move |obj: &Value| {
                labels.matches(&meta::labels(obj)) && fields.matches(|_| meta::meta_str(obj, "name").to_string())
            }) as stream::Matches
        });
        let spec = WatchSpec {
            prefix: keys::definitions_prefix(),
            options,
            decode: Arc::new(|kv| definition::decode_json(kv).map(stream::Rendered::new)),
            matches,
            bookmark: Arc::new(|revision, initial_end| {
                crate::apimachinery::bookmark::bookmark(API_VERSION, KIND, revision, initial_end)
            }),
            bookmark_interval: self.watch_defaults.bookmark_interval,
            default_timeout: self.watch_defaults.timeout(),
            stopped: self.stopped.clone(),
            ends: None,
        };
        Ok(crate::watch::metered::metered(stream::start(self.store.clone(), spec).await?, GROUP, "v1", KIND))
    }
}

/// A request body as a definition, with the warnings its repeated fields
/// make under `fieldValidation` (refused under `Strict`).
fn parse(body: &[u8], options: &WriteOptions) -> Result<(Definition, Vec<String>)> {
    let (parsed, duplicates) = definition::parse(body)?;
    Ok((parsed, decode::field_validation(decode::duplicate_fields(&duplicates), options.field_validation)?))
}

/// `unrecognized format "x"` for each format of `crd`'s schemas that
/// Kubernetes does not recognize and `old` did not already use.
fn format_warnings(crd: &Definition, old: Option<&Definition>) -> Vec<String> {
    let formats = |crd: &Definition| -> Vec<String> {
        crd.spec
            .versions
            .iter()
            .filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref())
            .filter_map(|s| serde_json::to_value(s).ok())
            .flat_map(|json| crate::schema::formats::unrecognized(&json))
            .collect()
    };
    let before = old.map(&formats).unwrap_or_default();
    let mut warnings: Vec<String> = Vec::new();
    for format in formats(crd).into_iter().filter(|f| !before.contains(f)) {
        let warning = format!("unrecognized format {format:?}");
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    warnings
}
