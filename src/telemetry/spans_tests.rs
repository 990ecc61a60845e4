//! The span layer against a queue whose batches are decoded with
//! opentelemetry-proto's types, as a collector reads them.

use std::sync::Arc;

use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_sdk::trace::Sampler;
use tracing_subscriber::layer::SubscriberExt as _;

use super::super::otlp::{sent_spans, Batching, Queue};
use super::{with_root, Root, SpanLayer};

/// The spans `run` ends, under `sampler`, as a collector decodes them.
fn traced(sampler: Sampler, run: impl FnOnce()) -> Vec<Span> {
    let queue = Arc::new(Queue::new(Batching::default()));
    let layer = SpanLayer::new(queue.clone(), Box::new(sampler));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), run);
    sent_spans(&queue)
}

fn attribute(span: &Span, key: &str) -> Option<Value> {
    span.attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.clone()?.value)
}

fn string(value: &str) -> Option<Value> {
    Some(Value::StringValue(value.into()))
}

fn trace_id(span: &Span) -> TraceId {
    TraceId::from_bytes(span.trace_id.as_slice().try_into().expect("16 bytes"))
}

fn span_id(bytes: &[u8]) -> SpanId {
    match bytes.is_empty() {
        true => SpanId::INVALID,
        false => SpanId::from_bytes(bytes.try_into().expect("8 bytes")),
    }
}

/// The OTLP flag saying that the parent is remote.
fn parent_is_remote(span: &Span) -> bool {
    assert_ne!(span.flags & 0x100, 0, "whether the parent is remote is always said");
    span.flags & 0x200 != 0
}

fn remote(sampled: bool) -> SpanContext {
    let flags = if sampled { TraceFlags::SAMPLED } else { TraceFlags::default() };
    SpanContext::new(TraceId::from(0xabc_u128), SpanId::from(0xdef_u64), flags, true, TraceState::default())
}

#[test]
fn spans_nest_with_their_names_kinds_statuses_and_fields() {
    let spans = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let request = tracing::debug_span!(
            "request",
            otel.name = "GET /apis",
            otel.kind = "server",
            otel.status_code = tracing::field::Empty,
            "crdstore.verb" = "get",
            "crdstore.code" = tracing::field::Empty,
            "crdstore.name" = Option::<&str>::None,
            trace_id = tracing::field::Empty,
        );
        request.in_scope(|| {
            let child = tracing::debug_span!("admission.validate", count = 3_u64, ok = true);
            let _explicit = tracing::debug_span!(parent: &child, "storage.fsync");
        });
        request.record("crdstore.code", 500_u64);
        request.record("otel.status_code", "error");
        request.record("trace_id", tracing::field::display("not an attribute"));
    });
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["storage.fsync", "admission.validate", "GET /apis"], "each span when it closes");
    let (fsync, validate, request) = (&spans[0], &spans[1], &spans[2]);
    assert_eq!(request.kind, SpanKind::Server as i32);
    assert!(request.parent_span_id.is_empty());
    assert!(!parent_is_remote(request));
    let status = request.status.clone().expect("a status");
    assert_eq!((status.code, status.message.as_str()), (StatusCode::Error as i32, ""));
    assert_eq!(attribute(request, "crdstore.verb"), string("get"));
    assert_eq!(attribute(request, "crdstore.code"), Some(Value::IntValue(500)));
    assert_eq!(attribute(request, "crdstore.name"), None, "an absent field is no attribute");
    assert_eq!(attribute(request, "trace_id"), None, "the log line's IDs are no attribute");
    assert_eq!(attribute(request, "otel.kind"), None);
    assert_eq!(validate.kind, SpanKind::Internal as i32);
    assert_eq!(validate.parent_span_id, request.span_id, "the current span is the parent");
    assert_eq!(attribute(validate, "count"), Some(Value::IntValue(3)));
    assert_eq!(attribute(validate, "ok"), Some(Value::BoolValue(true)));
    assert_eq!(fsync.parent_span_id, validate.span_id, "an explicit parent");
    for span in &spans {
        assert_eq!(span.trace_id, request.trace_id, "one trace");
        assert_eq!(span.flags & 0xff, u32::from(TraceFlags::SAMPLED.to_u8()));
        assert!(span.end_time_unix_nano >= span.start_time_unix_nano);
        assert!(span.start_time_unix_nano > 0);
    }
}

#[test]
fn a_root_takes_its_ids_and_remote_parent_and_follows_its_decision() {
    let root = Root::new(Some(remote(true)));
    assert_eq!(root.trace_id, TraceId::from(0xabc_u128), "the parent's trace");
    let ids = (root.trace_id, root.span_id);
    let spans = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let request = with_root(root, || tracing::debug_span!("request"));
        request.in_scope(|| drop(tracing::debug_span!("child")));
    });
    assert_eq!(spans.len(), 2);
    let request = &spans[1];
    assert_eq!((trace_id(request), span_id(&request.span_id)), ids);
    assert_eq!(span_id(&request.parent_span_id), SpanId::from(0xdef_u64));
    assert!(parent_is_remote(request));
    assert!(!parent_is_remote(&spans[0]), "the child's parent is local");

    // An unsampled parent: nothing of the trace is exported.
    let unsampled = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let request = with_root(Root::new(Some(remote(false))), || tracing::debug_span!("request"));
        request.in_scope(|| drop(tracing::debug_span!("child")));
    });
    assert!(unsampled.is_empty(), "{unsampled:?}");
}

#[test]
fn the_sampler_decides_for_spans_without_a_parent() {
    let off = traced(Sampler::AlwaysOff, || {
        let request = tracing::debug_span!("request");
        request.in_scope(|| drop(tracing::debug_span!("child")));
    });
    assert!(off.is_empty());
    let invalid_parent = Root::new(Some(SpanContext::empty_context()));
    assert_ne!(invalid_parent.trace_id, TraceId::INVALID, "an invalid parent starts a new trace");
    let on = traced(Sampler::AlwaysOn, || drop(with_root(invalid_parent, || tracing::debug_span!("request"))));
    assert_eq!(on.len(), 1);
    assert!(on[0].parent_span_id.is_empty());
}

#[test]
fn a_root_no_span_took_is_not_left_for_the_next_span() {
    let root = Root::new(Some(remote(true)));
    let spans = traced(Sampler::AlwaysOn, || {
        let _ = std::panic::catch_unwind(|| with_root(root, || panic!("made no span")));
        drop(tracing::debug_span!("later"));
    });
    assert_eq!(spans.len(), 1);
    assert_ne!(trace_id(&spans[0]), TraceId::from(0xabc_u128), "a trace of its own");
    assert!(spans[0].parent_span_id.is_empty());
}

#[test]
fn a_span_made_a_root_takes_the_handed_root_whatever_is_current() {
    let root = Root::new(Some(remote(true)));
    let spans = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let _current = tracing::debug_span!("left entered").entered();
        drop(with_root(root, || tracing::debug_span!(parent: None, "request")));
    });
    let request = spans.iter().find(|s| s.name == "request").expect("the request span");
    assert_eq!(trace_id(request), TraceId::from(0xabc_u128));
    assert_eq!(span_id(&request.parent_span_id), SpanId::from(0xdef_u64));
}

#[test]
fn a_field_recorded_again_is_one_attribute_with_its_last_value() {
    let spans = traced(Sampler::AlwaysOn, || {
        let span = tracing::debug_span!(
            "request",
            "crdstore.verb" = "get",
            "crdstore.code" = tracing::field::Empty,
            big = tracing::field::Empty
        );
        span.record("crdstore.code", 200_u64);
        span.record("crdstore.verb", "list");
        span.record("crdstore.code", 404_u64);
        span.record("big", u64::MAX);
    });
    let keys: Vec<&str> = spans[0].attributes.iter().map(|kv| kv.key.as_str()).collect();
    assert_eq!(keys, ["crdstore.verb", "crdstore.code", "big"], "each key once, in the order last set");
    assert_eq!(attribute(&spans[0], "crdstore.verb"), string("list"));
    assert_eq!(attribute(&spans[0], "crdstore.code"), Some(Value::IntValue(404)));
    assert_eq!(attribute(&spans[0], "big"), string(&u64::MAX.to_string()), "too big for an int: its digits");
}
