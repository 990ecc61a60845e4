//! The encoder against opentelemetry-proto's conversion and prost's
//! encoding: the bytes decode to exactly the request those two make.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
use opentelemetry_sdk::Resource;
use prost::Message as _;

use super::Encoder;

fn context(trace: u128, span: u64, remote: bool, state: &str) -> SpanContext {
    let state: TraceState = state.parse().unwrap();
    SpanContext::new(TraceId::from(trace), SpanId::from(span), TraceFlags::SAMPLED, remote, state)
}

fn at(nanos: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos)
}

fn span_data(n: u64, scope: &InstrumentationScope) -> SpanData {
    let mut events = SpanEvents::default();
    let mut links = SpanLinks::default();
    if !n.is_multiple_of(2) {
        events.events.push(opentelemetry::trace::Event::new(
            "retried",
            at(1_700_000_000_000_000_500),
            vec![KeyValue::new("attempt", 2_i64)],
            1,
        ));
        events.dropped_count = 3;
        links.links.push(opentelemetry::trace::Link::new(
            context(77, 88, true, "vendor=x"),
            vec![KeyValue::new("why", "batch")],
            0,
        ));
        links.dropped_count = 1;
    }
    SpanData {
        span_context: context(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10 + u128::from(n), 1000 + n, false, ""),
        parent_span_id: if n == 0 { SpanId::INVALID } else { SpanId::from(999) },
        parent_span_is_remote: n == 1,
        span_kind: [SpanKind::Server, SpanKind::Internal, SpanKind::Client][n as usize % 3].clone(),
        name: Cow::Owned(format!("span-{n}")),
        start_time: at(1_700_000_000_000_000_000 + n),
        end_time: at(1_700_000_000_000_900_000 + n),
        attributes: vec![
            KeyValue::new("crdstore.verb", "create"),
            KeyValue::new("rpc.grpc.status_code", n as i64 - 1),
            KeyValue::new("crdstore.ok", n.is_multiple_of(2)),
            KeyValue::new("seconds", 0.25),
            KeyValue::new("empty", ""),
            KeyValue::new("zero", 0_i64),
            KeyValue::new("off", false),
            KeyValue::new("names", Value::Array(Array::String(vec![StringValue::from("a"), StringValue::from("")]))),
            KeyValue::new("codes", Value::Array(Array::I64(vec![0, 300, -1]))),
            KeyValue::new("flags", Value::Array(Array::Bool(vec![true, false]))),
            KeyValue::new("ratios", Value::Array(Array::F64(vec![0.0, 1.5]))),
            // Long enough that the span's length takes more bytes than reserved.
            KeyValue::new("long", "x".repeat(20_000 * (n as usize % 2))),
        ],
        dropped_attributes_count: n as u32,
        events,
        links,
        status: match n % 3 {
            0 => Status::Unset,
            1 => Status::Ok,
            _ => Status::error("the webhook failed"),
        },
        instrumentation_scope: scope.clone(),
    }
}

fn resource() -> Resource {
    Resource::builder_empty()
        .with_service_name("crdstore")
        .with_schema_url(vec![KeyValue::new("service.version", "0.1.0")], "https://opentelemetry.io/schemas/1.21.0")
        .build()
}

/// What opentelemetry-otlp sends for `batch`.
fn reference(batch: Vec<SpanData>, resource: &Resource) -> ExportTraceServiceRequest {
    let resource = ResourceAttributesWithSchema::from(resource);
    ExportTraceServiceRequest { resource_spans: group_spans_by_resource_and_scope(batch, &resource) }
}

/// Resource attributes come from a map: compared in key order.
fn sorted(mut request: ExportTraceServiceRequest) -> ExportTraceServiceRequest {
    for rs in &mut request.resource_spans {
        if let Some(resource) = rs.resource.as_mut() {
            resource.attributes.sort_by(|a, b| a.key.cmp(&b.key));
        }
    }
    request
}

#[test]
fn a_batch_decodes_to_what_opentelemetry_proto_makes() {
    let crdstore = InstrumentationScope::builder("crdstore").build();
    let other = InstrumentationScope::builder("other")
        .with_version("1.2.3")
        .with_schema_url("https://opentelemetry.io/schemas/1.20.0")
        .with_attributes(vec![KeyValue::new("scope.attr", 7_i64)])
        .build();
    let batch: Vec<SpanData> = (0..7).map(|n| span_data(n, if n % 3 == 2 { &other } else { &crdstore })).collect();
    let resource = resource();
    let ours = Encoder::new(&resource).request(&batch);
    let decoded = ExportTraceServiceRequest::decode(ours.as_slice()).expect("our bytes decode");
    let expected = reference(batch, &resource);
    assert_eq!(expected.resource_spans[0].scope_spans.len(), 2, "two scopes, in the order first seen");
    assert_eq!(sorted(decoded), sorted(expected));
}

#[test]
fn an_empty_batch_and_a_single_span_decode_too() {
    let resource = resource();
    let encoder = Encoder::new(&resource);
    let empty = ExportTraceServiceRequest::decode(encoder.request(&[]).as_slice()).unwrap();
    assert_eq!(sorted(empty), sorted(reference(vec![], &resource)));
    let one = vec![span_data(0, &InstrumentationScope::builder("crdstore").build())];
    let decoded = ExportTraceServiceRequest::decode(encoder.request(&one).as_slice()).unwrap();
    assert_eq!(sorted(decoded), sorted(reference(one, &resource)));
}
