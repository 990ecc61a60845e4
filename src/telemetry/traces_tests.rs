//! The layer against an SDK tracer provider whose exporter keeps what it is
//! handed, as the OTLP exporter would be.

use std::sync::{Arc, Mutex};

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt as _, TraceFlags, TraceId, TraceState,
};
use opentelemetry::Value;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::layer::SubscriberExt as _;

use super::{adopt, layer};

/// Keeps the spans it is sent.
#[derive(Debug, Clone, Default)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Kept {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

/// The spans `run` ends, under `sampler`, as the exporter is handed them.
fn traced(sampler: Sampler, run: impl FnOnce()) -> Vec<SpanData> {
    let kept = Kept::default();
    let provider = SdkTracerProvider::builder().with_sampler(sampler).with_simple_exporter(kept.clone()).build();
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer(&provider)), run);
    provider.shutdown().expect("shutdown");
    let spans = kept.0.lock().unwrap().clone();
    spans
}

fn attribute(attributes: &[opentelemetry::KeyValue], key: &str) -> Option<Value> {
    attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.clone())
}

fn remote(sampled: bool) -> opentelemetry::Context {
    let flags = if sampled { TraceFlags::SAMPLED } else { TraceFlags::default() };
    let parent =
        SpanContext::new(TraceId::from(0xabc_u128), SpanId::from(0xdef_u64), flags, true, TraceState::default());
    opentelemetry::Context::new().with_remote_span_context(parent)
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
        );
        request.in_scope(|| {
            let child = tracing::debug_span!("admission.validate", count = 3_i64, ok = true);
            let _explicit = tracing::debug_span!(parent: &child, "storage.fsync");
        });
        request.record("crdstore.code", 500_i64);
        request.record("otel.status_code", "error");
    });
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_ref()).collect();
    assert_eq!(names, ["storage.fsync", "admission.validate", "GET /apis"], "each span when it closes");
    let (fsync, validate, request) = (&spans[0], &spans[1], &spans[2]);
    assert_eq!(request.span_kind, SpanKind::Server);
    assert_eq!(request.parent_span_id, SpanId::INVALID);
    assert_eq!(request.status, Status::error(""));
    assert_eq!(attribute(&request.attributes, "crdstore.verb"), Some("get".into()));
    assert_eq!(attribute(&request.attributes, "crdstore.code"), Some(500_i64.into()));
    assert_eq!(attribute(&request.attributes, "crdstore.name"), None, "an absent field is no attribute");
    assert_eq!(attribute(&request.attributes, "otel.kind"), None);
    let keys: Vec<&str> = request.attributes.iter().map(|kv| kv.key.as_str()).collect();
    assert_eq!(keys, ["crdstore.verb", "crdstore.code"], "nothing per span besides crdstore's fields");
    assert_eq!(validate.span_kind, SpanKind::Internal);
    assert_eq!(validate.parent_span_id, request.span_context.span_id(), "the current span is the parent");
    assert_eq!(attribute(&validate.attributes, "count"), Some(3_i64.into()));
    assert_eq!(attribute(&validate.attributes, "ok"), Some(true.into()));
    assert_eq!(fsync.parent_span_id, validate.span_context.span_id(), "an explicit parent");
    for span in &spans {
        assert_eq!(span.span_context.trace_id(), request.span_context.trace_id(), "one trace");
        assert!(span.span_context.is_sampled());
        assert!(span.end_time >= span.start_time);
    }
}

#[test]
fn events_inside_a_span_are_its_events_and_follows_from_is_a_link() {
    let spans = traced(Sampler::AlwaysOn, || {
        let earlier = tracing::debug_span!("storage.commit");
        let request = tracing::debug_span!("request");
        request.follows_from(&earlier);
        drop(earlier);
        request.in_scope(|| {
            tracing::info!(definition = "widgets.example.com", revision = 7_i64, "created definition");
            tracing::warn!("slow");
            tracing::debug!("too fine to export");
            tracing::info!(target: "crdstore::request", code = 200_u64, "request");
            tracing::info!(target: "sled", "not ours");
        });
    });
    let (commit, request) = (&spans[0], &spans[1]);
    let events: Vec<&str> = request.events.iter().map(|e| e.name.as_ref()).collect();
    assert_eq!(events, ["created definition", "slow"], "crdstore's events at info and above, not the log line");
    let created = &request.events.events[0];
    assert_eq!(attribute(&created.attributes, "definition"), Some("widgets.example.com".into()));
    assert_eq!(attribute(&created.attributes, "revision"), Some(7_i64.into()));
    assert_eq!(attribute(&created.attributes, "level"), Some("INFO".into()));
    let links: Vec<&SpanContext> = request.links.iter().map(|l| &l.span_context).collect();
    assert_eq!(links, [&commit.span_context], "follows_from is a link");
}

#[test]
fn an_adopted_root_is_the_remote_parents_child_and_follows_its_decision() {
    let spans = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOff)), || {
        let request = tracing::debug_span!(parent: None, "request");
        let ids = adopt(&request, remote(true), true).expect("started, with its IDs");
        assert_eq!(ids.trace_id(), TraceId::from(0xabc_u128), "the parent's trace");
        request.in_scope(|| assert!(!tracing::debug_span!("child").is_disabled()));
    });
    assert_eq!(spans.len(), 2);
    let (child, request) = (&spans[0], &spans[1]);
    assert_eq!(request.span_context.trace_id(), TraceId::from(0xabc_u128));
    assert_eq!(request.parent_span_id, SpanId::from(0xdef_u64));
    assert!(request.parent_span_is_remote);
    assert_eq!(child.parent_span_id, request.span_context.span_id());
    assert!(!child.parent_span_is_remote, "the child's parent is local");

    // An unsampled parent: nothing of the trace is exported.
    let unsampled = traced(Sampler::ParentBased(Box::new(Sampler::AlwaysOn)), || {
        let request = tracing::debug_span!(parent: None, "request");
        assert!(adopt(&request, remote(false), false).is_none(), "no IDs asked for");
        request.in_scope(|| {
            let child = tracing::debug_span!("child");
            assert!(child.is_disabled(), "nothing inside an unsampled request is handed to the layer");
            tracing::info!("nor its events");
        });
    });
    assert!(unsampled.is_empty(), "{unsampled:?}");
}

#[test]
fn the_sampler_decides_for_spans_without_a_parent() {
    let off = traced(Sampler::AlwaysOff, || {
        let request = tracing::debug_span!("request");
        drop(adopt(&request, opentelemetry::Context::new(), false));
        request.in_scope(|| drop(tracing::debug_span!("child")));
    });
    assert!(off.is_empty());
    let on = traced(Sampler::AlwaysOn, || {
        let request = tracing::debug_span!(parent: None, "request");
        drop(adopt(&request, opentelemetry::Context::new(), false));
    });
    assert_eq!(on.len(), 1);
    assert_eq!(on[0].parent_span_id, SpanId::INVALID, "no traceparent: a trace of its own");
}

/// Without a hint of DEBUG the subscriber's would be TRACE while spans are
/// exported, and `log::max_level` with it: every `log::trace!` of the
/// dependencies (sled's page cache: a dozen per write) would be made into
/// a record and dispatched.
#[test]
fn the_layer_bounds_the_log_level() {
    let provider = SdkTracerProvider::builder().build();
    let subscriber = tracing_subscriber::registry().with(layer(&provider));
    let hint = tracing::Subscriber::max_level_hint(&subscriber);
    assert_eq!(hint, Some(tracing::level_filters::LevelFilter::DEBUG));
}
