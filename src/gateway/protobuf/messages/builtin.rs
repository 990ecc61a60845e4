//! The built-in kinds' messages (`crate::builtin`): Namespace, Lease, and
//! Events of `core/v1` and `events.k8s.io/v1`.

use k8s_pb::api::{coordination::v1 as coordination, core::v1 as core, events::v1 as events};
use serde_json::{Map, Value};

use super::{is_zero, object, prefix, Field, Pb};

message!(core::Namespace { metadata: "metadata", spec: "spec", status: "status" });
message!(core::NamespaceList { metadata: "metadata", items: "items" });
message!(core::NamespaceSpec { finalizers: "finalizers" });
message!(core::NamespaceStatus { phase: "phase", conditions: "conditions" });
message!(core::NamespaceCondition {
    r#type: "type",
    status: "status",
    last_transition_time: "lastTransitionTime",
    reason: "reason",
    message: "message",
});
message!(coordination::Lease { metadata: "metadata", spec: "spec" });
message!(coordination::LeaseList { metadata: "metadata", items: "items" });
message!(coordination::LeaseSpec {
    holder_identity: "holderIdentity", lease_duration_seconds: "leaseDurationSeconds", acquire_time: "acquireTime",
    renew_time: "renewTime", lease_transitions: "leaseTransitions", strategy: "strategy",
    preferred_holder: "preferredHolder",
} keep ["leaseDurationSeconds", "leaseTransitions", "holderIdentity"]);
message!(core::Event {
    metadata: "metadata",
    involved_object: "involvedObject",
    reason: "reason",
    message: "message",
    source: "source",
    first_timestamp: "firstTimestamp",
    last_timestamp: "lastTimestamp",
    count: "count",
    r#type: "type",
    event_time: "eventTime",
    series: "series",
    action: "action",
    related: "related",
    reporting_component: "reportingComponent",
    reporting_instance: "reportingInstance",
});
message!(core::EventList { metadata: "metadata", items: "items" });
message!(core::EventSource { component: "component", host: "host" });
message!(core::EventSeries { count: "count", last_observed_time: "lastObservedTime" });
message!(core::ObjectReference {
    kind: "kind",
    namespace: "namespace",
    name: "name",
    uid: "uid",
    api_version: "apiVersion",
    resource_version: "resourceVersion",
    field_path: "fieldPath",
});
message!(events::Event {
    metadata: "metadata",
    event_time: "eventTime",
    series: "series",
    reporting_controller: "reportingController",
    reporting_instance: "reportingInstance",
    action: "action",
    reason: "reason",
    regarding: "regarding",
    related: "related",
    note: "note",
    r#type: "type",
    deprecated_source: "deprecatedSource",
    deprecated_first_timestamp: "deprecatedFirstTimestamp",
    deprecated_last_timestamp: "deprecatedLastTimestamp",
    deprecated_count: "deprecatedCount",
});
message!(events::EventList { metadata: "metadata", items: "items" });
message!(events::EventSeries { count: "count", last_observed_time: "lastObservedTime" });
