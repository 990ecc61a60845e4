//! The built-in kinds as definitions compiled into the binary: group,
//! names, scope, one version, a structural schema from Kubernetes' OpenAPI
//! for the type, and the printer columns `kubectl get` shows for it.

use serde_json::{json, Value};

use crate::registry::definition::{self, Definition};

/// A string property.
fn string() -> Value {
    json!({"type": "string"})
}

/// A timestamp (`metav1.Time`, `metav1.MicroTime`): a string, or null.
fn time() -> Value {
    json!({"type": "string", "format": "date-time", "nullable": true})
}

fn int32() -> Value {
    json!({"type": "integer", "format": "int32"})
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn nullable(mut schema: Value) -> Value {
    schema["nullable"] = json!(true);
    schema
}

/// `corev1.ObjectReference`.
fn object_reference() -> Value {
    nullable(object(json!({
        "apiVersion": string(), "fieldPath": string(), "kind": string(), "name": string(),
        "namespace": string(), "resourceVersion": string(), "uid": string(),
    })))
}

fn column(name: &str, type_: &str, path: &str, description: &str) -> Value {
    json!({"name": name, "type": type_, "jsonPath": path, "description": description})
}

fn age() -> Value {
    column(
        "Age",
        "date",
        ".metadata.creationTimestamp",
        "CreationTimestamp is a timestamp representing the server time when this object was created.",
    )
}

/// One kind as a served definition.
pub(super) fn kind(
    group: &str,
    version: &str,
    (plural, singular, kind, short_names): (&str, &str, &str, &[&str]),
    scope: &str,
    properties: Value,
    columns: Vec<Value>,
    status: bool,
) -> Definition {
    let mut version = json!({
        "name": version, "served": true, "storage": true,
        "schema": {"openAPIV3Schema": object(properties)},
        "additionalPrinterColumns": columns,
    });
    if status {
        version["subresources"] = json!({"status": {}});
    }
    let names = json!({"plural": plural, "singular": singular, "kind": kind, "listKind": format!("{kind}List"),
        "shortNames": short_names});
    let name = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {"group": group, "names": names, "scope": scope, "versions": [version]},
        "status": {"acceptedNames": names, "storedVersions": [version["name"]],
            "conditions": [{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts"},
                           {"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]},
    });
    definition::from_json(crd).expect("a built-in definition parses")
}

/// core/v1 `Namespace`.
pub fn namespace() -> Definition {
    let condition = object(json!({
        "lastTransitionTime": time(), "message": string(), "reason": string(),
        "status": string(), "type": string(),
    }));
    let properties = json!({
        "spec": object(json!({"finalizers": {"type": "array", "items": string()}})),
        "status": object(json!({
            "phase": string(),
            "conditions": {"type": "array", "items": condition},
        })),
    });
    let columns = vec![column("Status", "string", ".status.phase", "The phase of the namespace."), age()];
    kind("", "v1", ("namespaces", "namespace", "Namespace", &["ns"]), "Cluster", properties, columns, true)
}

/// `coordination.k8s.io/v1` `Lease`.
pub fn lease() -> Definition {
    let properties = json!({
        "spec": object(json!({
            "acquireTime": time(), "holderIdentity": nullable(string()), "leaseDurationSeconds": nullable(int32()),
            "leaseTransitions": nullable(int32()), "preferredHolder": nullable(string()), "renewTime": time(),
            "strategy": nullable(string()),
        })),
    });
    let columns = vec![column("Holder", "string", ".spec.holderIdentity", "The holder of the lease."), age()];
    kind("coordination.k8s.io", "v1", ("leases", "lease", "Lease", &[]), "Namespaced", properties, columns, false)
}

/// `corev1.EventSource` and the series both Event shapes carry.
fn series() -> Value {
    nullable(object(json!({"count": int32(), "lastObservedTime": time()})))
}

/// The properties of a core/v1 `Event`.
fn core_event_properties() -> Value {
    json!({
        "action": string(), "count": int32(), "eventTime": time(), "firstTimestamp": time(),
        "involvedObject": object_reference(), "lastTimestamp": time(), "message": string(), "reason": string(),
        "related": object_reference(), "reportingComponent": string(), "reportingInstance": string(),
        "series": series(), "source": nullable(object(json!({"component": string(), "host": string()}))),
        "type": string(),
    })
}

/// core/v1 `Event`.
pub fn core_event() -> Definition {
    let properties = core_event_properties();
    let columns = vec![
        column(
            "Last Seen",
            "date",
            ".lastTimestamp",
            "The time at which the most recent occurrence of this event was recorded.",
        ),
        column("Type", "string", ".type", "Type of this event (Normal, Warning)."),
        column(
            "Reason",
            "string",
            ".reason",
            "A short, machine understandable string that gives the reason for this event.",
        ),
        column("Object", "string", ".involvedObject.name", "The object that this event is about."),
        column("Message", "string", ".message", "A human-readable description of the status of this operation."),
    ];
    kind("", "v1", ("events", "event", "Event", &["ev"]), "Namespaced", properties, columns, false)
}

/// `events.k8s.io/v1` `Event`.
pub fn events_event() -> Definition {
    let properties = json!({
        "action": string(), "deprecatedCount": int32(), "deprecatedFirstTimestamp": time(),
        "deprecatedLastTimestamp": time(),
        "deprecatedSource": nullable(object(json!({"component": string(), "host": string()}))),
        "eventTime": time(), "note": string(), "reason": string(), "regarding": object_reference(),
        "related": object_reference(), "reportingController": string(), "reportingInstance": string(),
        "series": series(), "type": string(),
    });
    let columns = vec![
        column("Last Seen", "date", ".eventTime", "The time at which the event was first observed."),
        column("Type", "string", ".type", "Type of this event (Normal, Warning)."),
        column("Reason", "string", ".reason", "Why the action was taken."),
        column("Object", "string", ".regarding.name", "The object this event is about."),
        column("Message", "string", ".note", "A human-readable description of the status of this operation."),
    ];
    let mut def =
        kind("events.k8s.io", "v1", ("events", "event", "Event", &["ev"]), "Namespaced", properties, columns, false);
    // Stored as core/v1 stores it: a second version, not served, holding
    // core/v1's shape (`super::event::convert` maps between them).
    let versions = &mut def.crd.spec.versions;
    versions[0].storage = false;
    let mut stored = versions[0].clone();
    stored.name = super::event::STORED.into();
    stored.served = false;
    stored.storage = true;
    stored.additional_printer_columns = None;
    stored.schema = Some(
        serde_json::from_value(json!({"openAPIV3Schema": object(core_event_properties())}))
            .expect("a built-in schema parses"),
    );
    versions.push(stored);
    if let Some(status) = def.crd.status.as_mut() {
        status.stored_versions = Some(vec![super::event::STORED.into()]);
    }
    def
}

/// `storagemigration.k8s.io/v1` `StorageVersionMigration`, with the
/// progress of crdstore's run of it under `status.progress` (what the
/// migration controller resumes from).
pub fn storage_version_migration() -> Definition {
    let int64 = || json!({"type": "integer", "format": "int64"});
    let condition = object(json!({
        "lastTransitionTime": time(), "message": string(), "observedGeneration": int64(), "reason": string(),
        "status": string(), "type": string(),
    }));
    let properties = json!({
        "spec": object(json!({"resource": object(json!({"group": string(), "resource": string()}))})),
        "status": object(json!({
            "conditions": {"type": "array", "items": condition},
            "resourceVersion": string(),
            "progress": object(json!({
                "targetVersion": string(), "continue": nullable(string()),
                "migrated": int64(), "scanned": int64(), "total": int64(),
            })),
        })),
    });
    let names = ("storageversionmigrations", "storageversionmigration", "StorageVersionMigration", &[][..]);
    kind(crate::storage::keys::MIGRATIONS_GROUP, "v1", names, "Cluster", properties, vec![age()], true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::served::Served;

    #[test]
    fn every_kind_compiles_with_its_schema() {
        for crd in [namespace(), lease(), core_event(), events_event(), storage_version_migration()] {
            let served = Served::compile(&crd, crate::storage::Revision::ZERO, std::time::Duration::from_secs(1))
                .expect("served");
            assert!(served.schema("v1").is_some(), "{}", served.plural);
        }
    }
}
