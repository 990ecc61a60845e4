//! An OTLP `ExportTraceServiceRequest` written straight from the SDK's
//! spans into one buffer. opentelemetry-otlp first converts every span into
//! opentelemetry-proto's structs (a `String` per attribute key and value),
//! groups them by scope, then prost walks the nesting once for lengths and
//! once to write: under callgrind that was over two fifths of what tracing
//! added to a create. Here each nested message is written in place behind
//! a length reserved for it, and the length filled in once known.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::SpanData;
use opentelemetry_sdk::Resource;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, WireType};

/// The span flag saying whether the parent's remoteness is known (always),
/// and the one saying that it is remote (OTLP's `SpanFlags`).
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// Writes a nested message (or a string) at `tag`: the key, room for its
/// length, the body `write` appends, then the length itself. `reserve` is
/// the length's likely size in bytes; when it is not, the body moves.
fn nested(buf: &mut Vec<u8>, tag: u32, reserve: usize, write: impl FnOnce(&mut Vec<u8>)) {
    encode_key(tag, WireType::LengthDelimited, buf);
    let at = buf.len();
    buf.resize(at + reserve, 0);
    write(buf);
    let len = buf.len() - at - reserve;
    let needed = encoded_len_varint(len as u64);
    if needed != reserve {
        let body = at + reserve;
        buf.splice(at..body, std::iter::repeat_n(0, needed));
    }
    let mut prefix = &mut buf[at..at + needed];
    encode_varint(len as u64, &mut prefix);
}

fn bytes_field(buf: &mut Vec<u8>, tag: u32, value: &[u8]) {
    if !value.is_empty() {
        encode_key(tag, WireType::LengthDelimited, buf);
        encode_varint(value.len() as u64, buf);
        buf.extend_from_slice(value);
    }
}

fn varint_field(buf: &mut Vec<u8>, tag: u32, value: u64) {
    if value != 0 {
        encode_key(tag, WireType::Varint, buf);
        encode_varint(value, buf);
    }
}

fn fixed64_field(buf: &mut Vec<u8>, tag: u32, value: u64) {
    if value != 0 {
        encode_key(tag, WireType::SixtyFourBit, buf);
        buf.extend_from_slice(&value.to_le_bytes());
    }
}

fn fixed32_field(buf: &mut Vec<u8>, tag: u32, value: u32) {
    if value != 0 {
        encode_key(tag, WireType::ThirtyTwoBit, buf);
        buf.extend_from_slice(&value.to_le_bytes());
    }
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// An `AnyValue`'s string, written even when empty.
fn string_value(buf: &mut Vec<u8>, v: &str) {
    encode_key(1, WireType::LengthDelimited, buf);
    encode_varint(v.len() as u64, buf);
    buf.extend_from_slice(v.as_bytes());
}

/// An `AnyValue`'s body: its one field is written even when it holds the
/// default (it is a `oneof`).
fn any_value(buf: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Bool(v) => {
            encode_key(2, WireType::Varint, buf);
            encode_varint(u64::from(*v), buf);
        }
        Value::I64(v) => {
            encode_key(3, WireType::Varint, buf);
            encode_varint(*v as u64, buf);
        }
        Value::F64(v) => {
            encode_key(4, WireType::SixtyFourBit, buf);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        Value::String(v) => string_value(buf, v.as_str()),
        Value::Array(array) => nested(buf, 5, 1, |buf| match array {
            Array::Bool(vs) => vs.iter().for_each(|v| nested(buf, 1, 1, |buf| any_value(buf, &Value::Bool(*v)))),
            Array::I64(vs) => vs.iter().for_each(|v| nested(buf, 1, 1, |buf| any_value(buf, &Value::I64(*v)))),
            Array::F64(vs) => vs.iter().for_each(|v| nested(buf, 1, 1, |buf| any_value(buf, &Value::F64(*v)))),
            Array::String(vs) => vs.iter().for_each(|v| nested(buf, 1, 1, |buf| string_value(buf, v.as_str()))),
            // A kind of array this build does not know goes as an empty one.
            _ => {}
        }),
        // A kind of value this build does not know goes as its text.
        other => string_value(buf, &other.as_str()),
    }
}

/// Repeated `KeyValue`s at `tag`.
fn attributes<'a>(buf: &mut Vec<u8>, tag: u32, attributes: impl IntoIterator<Item = (&'a str, &'a Value)>) {
    for (key, value) in attributes {
        nested(buf, tag, 1, |buf| {
            bytes_field(buf, 1, key.as_bytes());
            nested(buf, 2, 1, |buf| any_value(buf, value));
        });
    }
}

fn key_values(kvs: &[KeyValue]) -> impl Iterator<Item = (&str, &Value)> {
    kvs.iter().map(|kv| (kv.key.as_str(), &kv.value))
}

fn span_kind(kind: &SpanKind) -> u64 {
    match kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    }
}

/// A `Span`'s body, as opentelemetry-proto's conversion makes it.
fn span(buf: &mut Vec<u8>, span: &SpanData) {
    let context = &span.span_context;
    bytes_field(buf, 1, &context.trace_id().to_bytes());
    bytes_field(buf, 2, &context.span_id().to_bytes());
    bytes_field(buf, 3, context.trace_state().header().as_bytes());
    if span.parent_span_id != SpanId::INVALID {
        bytes_field(buf, 4, &span.parent_span_id.to_bytes());
    }
    bytes_field(buf, 5, span.name.as_bytes());
    varint_field(buf, 6, span_kind(&span.span_kind));
    fixed64_field(buf, 7, nanos(span.start_time));
    fixed64_field(buf, 8, nanos(span.end_time));
    attributes(buf, 9, key_values(&span.attributes));
    varint_field(buf, 10, u64::from(span.dropped_attributes_count));
    for event in span.events.iter() {
        nested(buf, 11, 1, |buf| {
            fixed64_field(buf, 1, nanos(event.timestamp));
            bytes_field(buf, 2, event.name.as_bytes());
            attributes(buf, 3, key_values(&event.attributes));
            varint_field(buf, 4, u64::from(event.dropped_attributes_count));
        });
    }
    varint_field(buf, 12, u64::from(span.events.dropped_count));
    for link in span.links.iter() {
        nested(buf, 13, 1, |buf| {
            let context = &link.span_context;
            bytes_field(buf, 1, &context.trace_id().to_bytes());
            bytes_field(buf, 2, &context.span_id().to_bytes());
            bytes_field(buf, 3, context.trace_state().header().as_bytes());
            attributes(buf, 4, key_values(&link.attributes));
            varint_field(buf, 5, u64::from(link.dropped_attributes_count));
            let remote = if context.is_remote() { IS_REMOTE } else { 0 };
            fixed32_field(buf, 6, u32::from(context.trace_flags().to_u8()) | HAS_IS_REMOTE | remote);
        });
    }
    varint_field(buf, 14, u64::from(span.links.dropped_count));
    nested(buf, 15, 1, |buf| match &span.status {
        Status::Unset => {}
        Status::Ok => varint_field(buf, 3, 1),
        Status::Error { description } => {
            bytes_field(buf, 2, description.as_bytes());
            varint_field(buf, 3, 2);
        }
    });
    let remote = if span.parent_span_is_remote { IS_REMOTE } else { 0 };
    fixed32_field(buf, 16, u32::from(context.trace_flags().to_u8()) | HAS_IS_REMOTE | remote);
}

/// An `InstrumentationScope`'s body.
fn scope(buf: &mut Vec<u8>, scope: &InstrumentationScope) {
    bytes_field(buf, 1, scope.name().as_bytes());
    bytes_field(buf, 2, scope.version().unwrap_or_default().as_bytes());
    attributes(buf, 3, scope.attributes().map(|kv| (kv.key.as_str(), &kv.value)));
}

/// Writes export requests for one resource.
#[derive(Debug, Default, Clone)]
pub(super) struct Encoder {
    /// The `Resource` field of `ResourceSpans`, key included, and its
    /// `schema_url` field.
    resource: Vec<u8>,
    schema_url: Vec<u8>,
}

impl Encoder {
    pub(super) fn new(resource: &Resource) -> Self {
        let mut encoded = Vec::new();
        nested(&mut encoded, 1, 2, |buf| attributes(buf, 1, resource.iter().map(|(k, v)| (k.as_str(), v))));
        let mut schema_url = Vec::new();
        bytes_field(&mut schema_url, 3, resource.schema_url().unwrap_or_default().as_bytes());
        Self { resource: encoded, schema_url }
    }

    /// The `ExportTraceServiceRequest` of `batch`: one `ResourceSpans`, with
    /// a `ScopeSpans` per instrumentation scope in the order first seen.
    pub(super) fn request(&self, batch: &[SpanData]) -> Vec<u8> {
        let mut scopes: Vec<(&InstrumentationScope, Vec<&SpanData>)> = Vec::new();
        for s in batch {
            match scopes.iter_mut().find(|(scope, _)| **scope == s.instrumentation_scope) {
                Some((_, spans)) => spans.push(s),
                None => scopes.push((&s.instrumentation_scope, vec![s])),
            }
        }
        let mut buf = Vec::with_capacity(self.resource.len() + batch.len() * 512 + 64);
        nested(&mut buf, 1, 4, |buf| {
            buf.extend_from_slice(&self.resource);
            for (instrumentation, spans) in &scopes {
                nested(buf, 2, 4, |buf| {
                    nested(buf, 1, 1, |buf| scope(buf, instrumentation));
                    for s in spans {
                        nested(buf, 2, 2, |buf| span(buf, s));
                    }
                    bytes_field(buf, 3, instrumentation.schema_url().unwrap_or_default().as_bytes());
                });
            }
            buf.extend_from_slice(&self.schema_url);
        });
        buf
    }
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
