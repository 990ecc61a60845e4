//! The encoder against opentelemetry-proto's conversion and prost's
//! encoding: the bytes decode to exactly the request those two make of the
//! same spans as the SDK's `SpanData`.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue, Value};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
use opentelemetry_sdk::Resource;
use prost::Message as _;

use super::{span, Attributes, Encoder, Finished, Scalar};

fn context(trace: u128, span: u64, remote: bool, state: &str) -> SpanContext {
    let state: TraceState = state.parse().unwrap();
    SpanContext::new(TraceId::from(trace), SpanId::from(span), TraceFlags::SAMPLED, remote, state)
}

fn at(nanos: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos)
}

fn span_data(n: u64, scope: &InstrumentationScope) -> SpanData {
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
            // Long enough that the span's length takes more bytes than reserved.
            KeyValue::new("long", "x".repeat(20_000 * (n as usize % 2))),
        ],
        dropped_attributes_count: 0,
        events: SpanEvents::default(),
        links: SpanLinks::default(),
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

/// The spans as the layer hands them over, encoded into a queue's batch.
fn encoded(batch: &[SpanData]) -> Vec<u8> {
    let mut buf = Vec::new();
    for data in batch {
        let mut attributes = Attributes::default();
        for kv in &data.attributes {
            let value = match &kv.value {
                Value::Bool(v) => Scalar::Bool(*v),
                Value::I64(v) => Scalar::I64(*v),
                Value::F64(v) => Scalar::F64(*v),
                Value::String(v) => Scalar::Str(v.as_str()),
                other => panic!("no span field is {other:?}"),
            };
            attributes.push(kv.key.as_str(), value);
        }
        span(
            &mut buf,
            &Finished {
                context: &data.span_context,
                parent_span_id: data.parent_span_id,
                parent_is_remote: data.parent_span_is_remote,
                name: &data.name,
                kind: &data.span_kind,
                start: data.start_time,
                end: data.end_time,
                attributes: &attributes,
                status: &data.status,
            },
        );
    }
    buf
}

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("crdstore")
        .with_version("1.2.3")
        .with_schema_url("https://opentelemetry.io/schemas/1.20.0")
        .with_attributes(vec![KeyValue::new("scope.attr", 7_i64)])
        .build()
}

#[test]
fn a_batch_decodes_to_what_opentelemetry_proto_makes() {
    let scope = scope();
    let batch: Vec<SpanData> = (0..7).map(|n| span_data(n, &scope)).collect();
    let resource = resource();
    let ours = Encoder::new(&resource, &scope).request(&encoded(&batch));
    let decoded = ExportTraceServiceRequest::decode(ours.as_slice()).expect("our bytes decode");
    assert_eq!(sorted(decoded), sorted(reference(batch, &resource)));
}

#[test]
fn an_empty_batch_and_a_single_span_decode_too() {
    let (resource, scope) = (resource(), InstrumentationScope::builder("crdstore").build());
    let encoder = Encoder::new(&resource, &scope);
    let empty = ExportTraceServiceRequest::decode(encoder.request(&[]).as_slice()).unwrap();
    assert_eq!(empty.resource_spans[0].scope_spans[0].spans.len(), 0);
    let one = vec![span_data(0, &scope)];
    let decoded = ExportTraceServiceRequest::decode(encoder.request(&encoded(&one)).as_slice()).unwrap();
    assert_eq!(sorted(decoded), sorted(reference(one, &resource)));
}

#[test]
fn setting_an_attribute_again_replaces_it_where_pushing_would_not() {
    let mut attributes = Attributes::default();
    attributes.push("a", Scalar::I64(1));
    attributes.push("", Scalar::Bool(true));
    attributes.push("long", Scalar::Str(&"x".repeat(300)));
    attributes.set("a", Scalar::Str("one"));
    attributes.set("", Scalar::Bool(false));
    attributes.set("new", Scalar::F64(0.5));
    let mut expected = Attributes::default();
    expected.push("long", Scalar::Str(&"x".repeat(300)));
    expected.push("a", Scalar::Str("one"));
    expected.push("", Scalar::Bool(false));
    expected.push("new", Scalar::F64(0.5));
    assert_eq!(attributes.as_bytes(), expected.as_bytes());
}
