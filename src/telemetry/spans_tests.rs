//! The span layer against a processor that keeps what it is given.

use std::sync::{Arc, Mutex};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Sampler, SpanData, SpanProcessor};
use tracing_subscriber::layer::SubscriberExt as _;

use super::{with_root, Root, SpanLayer};

#[derive(Debug, Default, Clone)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanProcessor for Kept {
    fn on_start(&self, _: &mut opentelemetry_sdk::trace::Span, _: &opentelemetry::Context) {}

    fn on_end(&self, span: SpanData) {
        self.0.lock().unwrap().push(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _: std::time::Duration) -> OTelSdkResult {
        Ok(())
    }
}

/// The spans `run` ends, under `sampler`.
fn traced(sampler: Sampler, run: impl FnOnce()) -> Vec<SpanData> {
    let kept = Kept::default();
    let layer = SpanLayer::new(Arc::new(kept.clone()), Box::new(sampler));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), run);
    let spans = kept.0.lock().unwrap().clone();
    spans
}

fn attribute(span: &SpanData, key: &str) -> Option<opentelemetry::Value> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.clone())
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
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(names, ["storage.fsync", "admission.validate", "GET /apis"], "each span when it closes");
    let (fsync, validate, request) = (&spans[0], &spans[1], &spans[2]);
    assert_eq!(request.span_kind, SpanKind::Server);
    assert_eq!(request.parent_span_id, SpanId::INVALID);
    assert!(!request.parent_span_is_remote);
    assert_eq!(request.status, Status::error(""));
    assert_eq!(attribute(request, "crdstore.verb"), Some("get".into()));
    assert_eq!(attribute(request, "crdstore.code"), Some(500_i64.into()));
    assert_eq!(attribute(request, "crdstore.name"), None, "an absent field is no attribute");
    assert_eq!(attribute(request, "trace_id"), None, "the log line's IDs are no attribute");
    assert_eq!(attribute(request, "otel.kind"), None);
    assert_eq!(validate.span_kind, SpanKind::Internal);
    assert_eq!(validate.parent_span_id, request.span_context.span_id(), "the current span is the parent");
    assert_eq!(attribute(validate, "count"), Some(3_i64.into()));
    assert_eq!(attribute(validate, "ok"), Some(true.into()));
    assert_eq!(fsync.parent_span_id, validate.span_context.span_id(), "an explicit parent");
    for span in &spans {
        assert_eq!(span.span_context.trace_id(), request.span_context.trace_id(), "one trace");
        assert!(span.span_context.is_sampled());
        assert!(span.end_time >= span.start_time);
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
    assert_eq!((request.span_context.trace_id(), request.span_context.span_id()), ids);
    assert_eq!(request.parent_span_id, SpanId::from(0xdef_u64));
    assert!(request.parent_span_is_remote);
    assert!(!spans[0].parent_span_is_remote, "the child's parent is local");

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
    assert_eq!(on[0].parent_span_id, SpanId::INVALID);
}

#[test]
fn a_root_no_span_took_is_not_left_for_the_next_span() {
    let root = Root::new(Some(remote(true)));
    let spans = traced(Sampler::AlwaysOn, || {
        let _ = std::panic::catch_unwind(|| with_root(root, || panic!("made no span")));
        drop(tracing::debug_span!("later"));
    });
    assert_eq!(spans.len(), 1);
    assert_ne!(spans[0].span_context.trace_id(), TraceId::from(0xabc_u128), "a trace of its own");
    assert_eq!(spans[0].parent_span_id, SpanId::INVALID);
}

#[test]
fn a_span_made_a_root_takes_the_handed_root_whatever_is_current() {
    let root = Root::new(Some(remote(true)));
    let spans = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let _current = tracing::debug_span!("left entered").entered();
        drop(with_root(root, || tracing::debug_span!(parent: None, "request")));
    });
    let request = spans.iter().find(|s| s.name == "request").expect("the request span");
    assert_eq!(request.span_context.trace_id(), TraceId::from(0xabc_u128));
    assert_eq!(request.parent_span_id, SpanId::from(0xdef_u64));
}
