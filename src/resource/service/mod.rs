//! Custom resources: create, get, list, watch, update, patch, delete and
//! delete-collection with Kubernetes semantics, for every definition whose
//! names are accepted, at each served version, in the definition's scope.

mod apply;
mod convert;
mod delete;
mod encoded;
pub use encoded::{Found, JsonItems, JsonPage};
mod lists;
mod owners;
mod patches;
mod phases;
use phases::{finished, forbid_create, serial};
mod selectors;
mod subresources;
mod watch;
#[cfg(test)]
mod written_tests;

use std::sync::Arc;

use serde_json::Value;

use self::selectors::Selectors;
use super::served::{Admission, Catalog, Served};
use super::stored::{self, Storing};
use super::strategy::{self, Ref, ResourceStrategy};
use crate::apimachinery::options::{WriteOptions, Written};
pub use crate::apimachinery::strategy::Endpoint;
use crate::apimachinery::strategy::{before_create_tracked, before_update_tracked, require_resource_version, retry};
use crate::apimachinery::strategy::{FinalizeStrategy, Operation, StatusStrategy};
use crate::apimachinery::{decode, meta};
use crate::error::{Error, Result};
use crate::storage::{keys, KeyValue, Op, Storage, StorageError};
use crate::watch::stream::WatchDefaults;

/// The custom resource service.
pub struct Resources {
    store: Arc<dyn Storage>,
    catalog: Arc<Catalog>,
    watch_defaults: WatchDefaults,
    stopped: tokio::sync::watch::Receiver<bool>,
    /// Objects rendered for watchers, shared by all of them.
    renders: Arc<crate::watch::render::RenderCache>,
    /// Bumped on every definition change while `track_definitions` runs.
    definitions: tokio::sync::watch::Sender<u64>,
    /// Watch events converted for watchers, shared by all of them.
    conversions: Arc<crate::watch::convert::ConvertCache>,
    /// What every namespaced create passes, when set.
    admission: Option<Arc<dyn Admission>>,
}

/// What a write goes over: the object as read, at which endpoint, with
/// which options.
#[derive(Clone, Copy)]
struct Target<'a> {
    served: &'a Served,
    r: &'a Ref,
    current: &'a KeyValue,
    endpoint: Endpoint,
    options: &'a WriteOptions,
    /// `current` as read at the request version, when the caller already
    /// read it (a patch, a scale write): not converted again.
    read: Option<&'a Value>,
    /// The body is an apply's merge, its managedFields already computed.
    applied: bool,
}

/// What a delete did.
#[derive(Debug, Clone, PartialEq)]
pub struct Deleted {
    /// The object's last state.
    pub object: Value,
    /// Gone (true) or waiting for its finalizers (false).
    pub gone: bool,
    /// Its kind marked it before it went (a definition): the answer is the
    /// object, as Kubernetes' store answers a delete that passed through
    /// finalizers, rather than a Status.
    pub marked: bool,
}

impl Resources {
    pub fn new(
        store: Arc<dyn Storage>,
        watch_defaults: WatchDefaults,
        stopped: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        Self::with_webhook_timeout(store, watch_defaults, stopped, crate::conversion::webhook::DEFAULT_TIMEOUT)
    }

    /// `new`, with every conversion webhook call bounded by `webhook_timeout`.
    pub fn with_webhook_timeout(
        store: Arc<dyn Storage>,
        watch_defaults: WatchDefaults,
        stopped: tokio::sync::watch::Receiver<bool>,
        webhook_timeout: std::time::Duration,
    ) -> Self {
        let (definitions, _) = tokio::sync::watch::channel(0);
        Self {
            store,
            catalog: Arc::new(Catalog::new(webhook_timeout)),
            watch_defaults,
            stopped,
            renders: Arc::default(),
            definitions,
            conversions: Arc::default(),
            admission: None,
        }
    }

    /// Serves the kinds compiled into the binary beside the definitions,
    /// and puts every namespaced create through `admission`.
    pub fn with_builtins(mut self, builtins: Vec<Served>, admission: Arc<dyn Admission>) -> Self {
        let catalog = Arc::try_unwrap(std::mem::take(&mut self.catalog)).unwrap_or_default();
        self.catalog = Arc::new(catalog.with_builtins(builtins));
        self.admission = Some(admission);
        self
    }

    /// The kinds compiled into the binary that this service serves.
    pub fn builtins(&self) -> Vec<Arc<Served>> {
        self.catalog.builtins().cloned().collect()
    }

    /// The served definition for a single-object request, checking scope.
    fn served_object(&self, r: &Ref) -> Result<Arc<Served>> {
        let served = self.served_collection(r)?;
        meta::check_request_name(&served.group, &served.kind, &r.name)?;
        if served.namespaced() && r.namespace.is_empty() {
            let what = format!("{}.{}.{}", r.resource, r.version, r.group);
            return Err(Error::no_resource(what, "a namespace is required"));
        }
        Ok(served)
    }

    /// What serves `group/version/plural`, or NotFound.
    pub fn served(&self, group: &str, version: &str, plural: &str) -> Result<Arc<Served>> {
        self.catalog.resolve(self.store.as_ref(), group, version, plural)
    }

    /// The served definition for a collection request, checking scope.
    fn served_collection(&self, r: &Ref) -> Result<Arc<Served>> {
        let served = self.catalog.resolve(self.store.as_ref(), &r.group, &r.version, &r.resource)?;
        if !served.namespaced() && !r.namespace.is_empty() {
            let what = format!("{}.{}.{}", r.resource, r.version, r.group);
            return Err(Error::no_resource(what, "it is cluster-scoped"));
        }
        Ok(served)
    }

    /// The check that ties a write to the definition revision it was
    /// resolved at, so a write resolved before the definition changed (its
    /// storage version, say) does not commit but is tried again from a
    /// fresh resolution: no object lands at a storage version a migration
    /// has already trimmed from `storedVersions`. A built-in kind has no
    /// stored definition to tie to.
    fn tie(served: &Served) -> Option<Op> {
        served.hooks.is_none().then(|| Op::check(keys::definition_key(&served.definition), served.revision))
    }

    fn key(served: &Served, r: &Ref, name: &str) -> String {
        keys::resource_key(&served.group, &served.plural, &r.namespace, name)
    }

    fn collection_prefix(served: &Served, r: &Ref) -> String {
        if r.namespace.is_empty() {
            keys::resource_prefix(&served.group, &served.plural)
        } else {
            keys::namespace_prefix(&served.group, &served.plural, &r.namespace)
        }
    }

    fn not_found(served: &Served, name: &str) -> Error {
        Error::not_found(&served.group, &served.plural, name)
    }

    fn load(&self, served: &Served, r: &Ref) -> Result<KeyValue> {
        self.store.get(&Self::key(served, r, &r.name)).ok_or_else(|| Self::not_found(served, &r.name))
    }

    /// Creates an object. The commit is tied to the definition's revision,
    /// so no create lands once the definition has started terminating. A
    /// generated name that is taken, or a definition that changed since it
    /// was resolved, is retried from the request.
    pub async fn create(&self, r: &Ref, body: &[u8], options: &WriteOptions) -> Result<Written> {
        apply::check_field_manager("CreateOptions", options)?;
        let (request, duplicates) = decode::object(body)?;
        let generated =
            meta::meta_str(&request, "name").is_empty() && !meta::meta_str(&request, "generateName").is_empty();
        let (mut first, duplicates) = (Some(request), &duplicates);
        retry(
            || {
                let request = decode::for_attempt(&mut first, body);
                async move { self.create_once(r, request?, duplicates, generated, options, false).await }
            },
            || Error::timeout("the object could not be created after repeated concurrent changes; try again"),
        )
        .await
    }

    /// One attempt at a create; `None` when it should be tried again.
    async fn create_once(
        &self,
        r: &Ref,
        mut request: Value,
        duplicates: &[String],
        generated: bool,
        options: &WriteOptions,
        applied: bool,
    ) -> Result<Option<Written>> {
        let served = self.served_object(r)?;
        if served.terminating {
            return Err(forbid_create(&served, meta::meta_str(&request, "name")));
        }
        strategy::default_type_meta(&served, r, &mut request);
        strategy::check_identity(&served, r, &request, Operation::Create)?;
        let admitted = match &self.admission {
            Some(admission) if served.namespaced() => {
                admission.admit_create(self.store.as_ref(), &served, &r.namespace, meta::meta_str(&request, "name"))?
            }
            _ => None,
        };
        let mut obj = request;
        let mut warnings = Self::admit(&served, &r.version, &mut obj, duplicates, Endpoint::Main, options)?;
        let tracking = apply::tracking(&served, &r.version, Endpoint::Main, options, applied);
        warnings.extend(before_create_tracked(
            &ResourceStrategy { served: &served, version: &r.version },
            &mut obj,
            &r.namespace,
            &tracking,
        )?);
        self.check_owner_scopes(&served, &obj)?;
        let name = meta::meta_str(&obj, "name").to_string();
        let key = Self::key(&served, r, &name);
        let _serial = serial(&served).await;
        let settled = self.settle(&served, &name, Some(&mut obj))?;
        warnings.extend(served.hooks.iter().flat_map(|hooks| hooks.warnings(&obj, None)));
        // Checked and defaulted at the request version, stored at the
        // storage version; the answer converted back (dry run too).
        let obj = stored::to_storage(&served, &r.version, obj).await?;
        let mut storing = Storing::from_value(&served, obj);
        // The answer is what a read of the stored bytes shows, made from the
        // object in hand rather than parsed back from them, and converted
        // before anything is committed.
        let mut answer = storing.take_read_at(&served, &r.version).await?;
        if options.dry_run {
            if self.store.get(&key).is_some() {
                return Err(Error::already_exists(&served.group, &served.plural, &name));
            }
            return Ok(Some(Written::new(answer, warnings)));
        }
        meta::check_stored_size(storing.json())?;
        let mut ops: Vec<Op> = Self::tie(&served).into_iter().chain(admitted).collect();
        let at = ops.len();
        ops.push(Op::create(key, storing.take_bytes(None)));
        ops.extend(settled);
        match self.store.commit(ops).await {
            Ok(committed) => {
                let kv = committed.current(at).ok_or_else(|| Error::internal("create left no object"))?;
                served.hooks.iter().for_each(|hooks| hooks.created(&name, kv.mod_revision));
                meta::set_resource_version(&mut answer, kv.mod_revision);
                let json = stored::spliced(&served, &r.version, kv);
                Ok(Some(Written::with_json(answer, warnings, json)))
            }
            // The definition (or the namespace) changed since it was
            // resolved, or another object the kind settles with this one:
            // resolve again.
            Err(StorageError::PreconditionFailed { index, .. }) if index != at => Ok(None),
            Err(StorageError::PreconditionFailed { .. }) if generated => Ok(None),
            Err(StorageError::PreconditionFailed { .. }) => {
                Err(Error::already_exists(&served.group, &served.plural, &name))
            }
            Err(err) => Err(err.into()),
        }
    }

    /// Replaces an object. Requires a current resourceVersion; never creates.
    /// A write that lost to a change of the definition is tried again,
    /// resolved afresh; one that lost to a write of the object is then
    /// refused by its resourceVersion, as before.
    pub async fn update(&self, r: &Ref, body: &[u8], options: &WriteOptions) -> Result<Written> {
        apply::check_field_manager("UpdateOptions", options)?;
        let served = self.served_object(r)?;
        self.replace(&served, r, Endpoint::Main, body, options).await
    }

    /// A replace of the object or its status (`update`, `update_status`),
    /// tried again resolved afresh when the definition changed meanwhile.
    pub(super) async fn replace(
        &self,
        served: &Served,
        r: &Ref,
        endpoint: Endpoint,
        body: &[u8],
        options: &WriteOptions,
    ) -> Result<Written> {
        let (obj, duplicates) = decode::object(body)?;
        let (mut first, duplicates) = (Some(obj), &duplicates);
        retry(
            || {
                let obj = decode::for_attempt(&mut first, body);
                async move { self.replace_once(r, endpoint, obj?, duplicates, options).await }
            },
            || Error::stale(&served.group, &served.plural, &r.name),
        )
        .await
    }

    /// One attempt at a replace; `None` when it should be tried again.
    async fn replace_once(
        &self,
        r: &Ref,
        endpoint: Endpoint,
        mut obj: Value,
        duplicates: &[String],
        options: &WriteOptions,
    ) -> Result<Option<Written>> {
        let served = self.served_object(r)?;
        if endpoint == Endpoint::Status {
            Self::require_status(&served, r)?;
        }
        strategy::default_type_meta(&served, r, &mut obj);
        strategy::check_identity(&served, r, &obj, Operation::Update)?;
        let current = self.load(&served, r)?;
        let main = ResourceStrategy { served: &served, version: &r.version };
        let subject = Self::subject(&served, r);
        match endpoint {
            Endpoint::Status => require_resource_version(&StatusStrategy(&main), &subject, &obj, current.mod_revision)?,
            _ => require_resource_version(&main, &subject, &obj, current.mod_revision)?,
        }
        let target = Target { served: &served, r, current: &current, endpoint, options, read: None, applied: false };
        self.write_over(target, obj, duplicates).await
    }

    /// The operations the kind commits with a write of `obj` named `name`
    /// (`None`: its removal), `obj` adjusted to them.
    fn settle(&self, served: &Served, name: &str, obj: Option<&mut Value>) -> Result<Vec<Op>> {
        match &served.hooks {
            Some(hooks) => hooks.settle(self.store.as_ref(), name, obj),
            None => Ok(Vec::new()),
        }
    }

    fn subject<'a>(served: &'a Served, r: &'a Ref) -> meta::Subject<'a> {
        meta::Subject { group: &served.group, resource: &served.plural, name: &r.name }
    }

    /// Writes `body` over the object as read (`at.current`) through the
    /// strategy contract: the server's metadata kept, the endpoint's fields
    /// taken, the whole checked; or removes the object instead when it is
    /// being deleted and its last finalizer is gone. `None` when a
    /// concurrent write changed the object since it was read; NotFound when
    /// a concurrent delete removed it, as Kubernetes answers.
    async fn write_over(&self, at: Target<'_>, body: Value, duplicates: &[String]) -> Result<Option<Written>> {
        let Target { served, r, current, endpoint, options, read, applied } = at;
        let mut obj = body;
        let mut warnings = Self::admit(served, &r.version, &mut obj, duplicates, endpoint, options)?;
        let old = match read {
            Some(read) => read.clone(),
            None => stored::read(served, &r.version, current).await?,
        };
        let uid = meta::meta_str(&obj, "uid").to_string();
        meta::check_preconditions(
            &Self::subject(served, r),
            &uid,
            meta::meta_str(&old, "uid"),
            None,
            current.mod_revision,
        )?;
        let main = ResourceStrategy { served, version: &r.version };
        let tracking = apply::tracking(served, &r.version, endpoint, options, applied);
        warnings.extend(match endpoint {
            Endpoint::Main => before_update_tracked(&main, &mut obj, &old, &tracking)?,
            Endpoint::Status => before_update_tracked(&StatusStrategy(&main), &mut obj, &old, &tracking)?,
            Endpoint::Finalize => before_update_tracked(&FinalizeStrategy(&main), &mut obj, &old, &tracking)?,
        });
        self.check_owner_scopes(served, &obj)?;
        let key = Self::key(served, r, &r.name);
        let finished = finished(served, &obj);
        let _serial = serial(served).await;
        let settled = self.settle(served, &r.name, (!finished).then_some(&mut obj))?;
        if endpoint == Endpoint::Main {
            warnings.extend(served.hooks.iter().flat_map(|hooks| hooks.warnings(&obj, Some(&old))));
        }
        let mut storing_slot = None;
        if finished {
            if options.dry_run {
                meta::set_resource_version(&mut obj, current.mod_revision);
                return Ok(Some(Written::new(obj, warnings)));
            }
        } else {
            // Checked at the request version, stored at the storage version,
            // the answer converted back before anything is committed.
            // `obj` becomes the answer below: moved, not copied.
            let mut storing =
                Storing::from_value(served, stored::to_storage(served, &r.version, std::mem::take(&mut obj)).await?);
            let mut answer = storing.take_read_at(served, &r.version).await?;
            if options.dry_run {
                meta::set_resource_version(&mut answer, current.mod_revision);
                return Ok(Some(Written::new(answer, warnings)));
            }
            obj = answer;
            storing_slot = Some(storing);
        }
        let op = match storing_slot.as_mut() {
            None => Op::delete(key, current.mod_revision),
            Some(storing) => {
                meta::check_stored_size(storing.json())?;
                Op::update(key, current.mod_revision, storing.take_bytes(Some(current)))
            }
        };
        let tie = Self::tie(served);
        let at = usize::from(tie.is_some());
        let committed = match self.store.commit(tie.into_iter().chain([op]).chain(settled).collect()).await {
            // The definition changed since it was resolved, or another
            // object the kind settles with this one: resolve again.
            Err(StorageError::PreconditionFailed { index, .. }) if index != at => return Ok(None),
            Err(StorageError::PreconditionFailed { current: None, .. }) => {
                return Err(Self::not_found(served, &r.name))
            }
            Err(StorageError::PreconditionFailed { .. }) => return Ok(None),
            other => other?,
        };
        let (revision, json) = if finished {
            (committed.revision, None)
        } else {
            let kv = committed.current(at).ok_or_else(|| Error::internal("update left no object"))?;
            (kv.mod_revision, stored::spliced(served, &r.version, kv))
        };
        meta::set_resource_version(&mut obj, revision);
        Ok(Some(Written::with_json(obj, warnings, json)))
    }
}
