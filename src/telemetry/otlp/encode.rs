//! OTLP trace protobuf written straight into buffers: each span once, as
//! it ends, into the export queue (`batch`), and an export request framed
//! around a run of them. opentelemetry-otlp first converts every span into
//! opentelemetry-proto's structs (a `String` per attribute key and value),
//! groups them by scope, then prost walks the nesting once for lengths and
//! once to write: under callgrind that was over two fifths of what tracing
//! added to a create. Here each nested message is written in place behind
//! a length reserved for it, and the length filled in once known.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status};
use opentelemetry::{InstrumentationScope, Value};
use opentelemetry_sdk::Resource;
use prost::encoding::{decode_varint, encode_key, encode_varint, encoded_len_varint, WireType};

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

/// An attribute's value as a span records it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::telemetry) enum Scalar<'a> {
    Str(&'a str),
    Bool(bool),
    I64(i64),
    F64(f64),
}

/// An `AnyValue`'s string, written even when empty.
fn string_value(buf: &mut Vec<u8>, v: &str) {
    encode_key(1, WireType::LengthDelimited, buf);
    encode_varint(v.len() as u64, buf);
    buf.extend_from_slice(v.as_bytes());
}

/// An `AnyValue`'s body: its one field is written even when it holds the
/// default (it is a `oneof`).
fn any_value(buf: &mut Vec<u8>, value: Scalar<'_>) {
    match value {
        Scalar::Bool(v) => {
            encode_key(2, WireType::Varint, buf);
            encode_varint(u64::from(v), buf);
        }
        Scalar::I64(v) => {
            encode_key(3, WireType::Varint, buf);
            encode_varint(v as u64, buf);
        }
        Scalar::F64(v) => {
            encode_key(4, WireType::SixtyFourBit, buf);
            buf.extend_from_slice(&v.to_le_bytes());
        }
        Scalar::Str(v) => string_value(buf, v),
    }
}

/// A `KeyValue` at `tag`.
fn key_value(buf: &mut Vec<u8>, tag: u32, key: &str, value: Scalar<'_>) {
    nested(buf, tag, 1, |buf| {
        bytes_field(buf, 1, key.as_bytes());
        nested(buf, 2, 1, |buf| any_value(buf, value));
    });
}

/// A resource's or scope's attribute, as a scalar; an array (which no
/// crdstore resource has) as its text.
fn scalar(value: &Value) -> (Scalar<'_>, Option<String>) {
    match value {
        Value::Bool(v) => (Scalar::Bool(*v), None),
        Value::I64(v) => (Scalar::I64(*v), None),
        Value::F64(v) => (Scalar::F64(*v), None),
        Value::String(v) => (Scalar::Str(v.as_str()), None),
        other => (Scalar::Str(""), Some(other.as_str().into_owned())),
    }
}

fn attributes_of<'a>(buf: &mut Vec<u8>, tag: u32, kvs: impl IntoIterator<Item = (&'a str, &'a Value)>) {
    for (key, value) in kvs {
        match scalar(value) {
            (_, Some(text)) => key_value(buf, tag, key, Scalar::Str(&text)),
            (value, None) => key_value(buf, tag, key, value),
        }
    }
}

/// The span field holding its attributes.
const ATTRIBUTES: u32 = 9;

/// A span's attributes, kept as they are sent: the `KeyValue` fields of
/// its OTLP `Span`, in the order recorded, each key once.
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::telemetry) struct Attributes(Vec<u8>);

impl Attributes {
    pub(in crate::telemetry) fn with_capacity(bytes: usize) -> Self {
        Self(Vec::with_capacity(bytes))
    }

    /// Adds an attribute whose key is not there yet (a span's fields as it
    /// is made: `tracing` names each once).
    pub(in crate::telemetry) fn push(&mut self, key: &str, value: Scalar<'_>) {
        key_value(&mut self.0, ATTRIBUTES, key, value);
    }

    /// Sets an attribute, replacing the value it had.
    pub(in crate::telemetry) fn set(&mut self, key: &str, value: Scalar<'_>) {
        if let Some(at) = self.find(key) {
            self.0.drain(at);
        }
        self.push(key, value);
    }

    /// Where the attribute `key` is written, if it is.
    fn find(&self, key: &str) -> Option<std::ops::Range<usize>> {
        let mut at = 0;
        while at < self.0.len() {
            let mut rest = &self.0[at + 1..];
            let len = decode_varint(&mut rest).ok()? as usize;
            let body_at = self.0.len() - rest.len();
            let body = rest.get(..len)?;
            let mut inner = body.strip_prefix(&[0x0a][..]).unwrap_or(&[]);
            let named = match decode_varint(&mut inner) {
                Ok(n) => inner.get(..n as usize) == Some(key.as_bytes()),
                Err(_) => key.is_empty(),
            };
            if named {
                return Some(at..body_at + len);
            }
            at = body_at + len;
        }
        None
    }

    /// The attributes' bytes, as sent.
    #[cfg(test)]
    pub(in crate::telemetry) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
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

/// A span that has ended, as the layer kept it.
pub(in crate::telemetry) struct Finished<'a> {
    pub context: &'a SpanContext,
    pub parent_span_id: SpanId,
    pub parent_is_remote: bool,
    pub name: &'a str,
    pub kind: &'a SpanKind,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: &'a Attributes,
    pub status: &'a Status,
}

/// The `spans` field of a `ScopeSpans`: one span, as opentelemetry-proto's
/// conversion makes it.
pub(in crate::telemetry) fn span(buf: &mut Vec<u8>, span: &Finished<'_>) {
    nested(buf, 2, 2, |buf| {
        let context = span.context;
        bytes_field(buf, 1, &context.trace_id().to_bytes());
        bytes_field(buf, 2, &context.span_id().to_bytes());
        bytes_field(buf, 3, context.trace_state().header().as_bytes());
        if span.parent_span_id != SpanId::INVALID {
            bytes_field(buf, 4, &span.parent_span_id.to_bytes());
        }
        bytes_field(buf, 5, span.name.as_bytes());
        varint_field(buf, 6, span_kind(span.kind));
        fixed64_field(buf, 7, nanos(span.start));
        fixed64_field(buf, 8, nanos(span.end));
        buf.extend_from_slice(&span.attributes.0);
        nested(buf, 15, 1, |buf| match span.status {
            Status::Unset => {}
            Status::Ok => varint_field(buf, 3, 1),
            Status::Error { description } => {
                bytes_field(buf, 2, description.as_bytes());
                varint_field(buf, 3, 2);
            }
        });
        let remote = if span.parent_is_remote { IS_REMOTE } else { 0 };
        fixed32_field(buf, 16, u32::from(context.trace_flags().to_u8()) | HAS_IS_REMOTE | remote);
    });
}

/// Frames runs of encoded spans as export requests: one `ResourceSpans`
/// with one `ScopeSpans`, both written once, when the exporter is made.
#[derive(Debug, Default, Clone)]
pub(super) struct Encoder {
    /// The `Resource` field of `ResourceSpans`, key included.
    resource: Vec<u8>,
    /// `ResourceSpans`' `schema_url` field.
    resource_schema: Vec<u8>,
    /// The `scope` field of `ScopeSpans`, key included.
    scope: Vec<u8>,
    /// `ScopeSpans`' `schema_url` field.
    scope_schema: Vec<u8>,
}

impl Encoder {
    pub(super) fn new(resource: &Resource, scope: &InstrumentationScope) -> Self {
        let mut encoded = Vec::new();
        nested(&mut encoded, 1, 2, |buf| attributes_of(buf, 1, resource.iter().map(|(k, v)| (k.as_str(), v))));
        let mut resource_schema = Vec::new();
        bytes_field(&mut resource_schema, 3, resource.schema_url().unwrap_or_default().as_bytes());
        let mut scope_field = Vec::new();
        nested(&mut scope_field, 1, 1, |buf| {
            bytes_field(buf, 1, scope.name().as_bytes());
            bytes_field(buf, 2, scope.version().unwrap_or_default().as_bytes());
            attributes_of(buf, 3, scope.attributes().map(|kv| (kv.key.as_str(), &kv.value)));
        });
        let mut scope_schema = Vec::new();
        bytes_field(&mut scope_schema, 3, scope.schema_url().unwrap_or_default().as_bytes());
        Self { resource: encoded, resource_schema, scope: scope_field, scope_schema }
    }

    /// The `ExportTraceServiceRequest` carrying `spans` (spans as `span`
    /// wrote them, back to back).
    pub(super) fn request(&self, spans: &[u8]) -> Vec<u8> {
        let scope_spans = self.scope.len() + spans.len() + self.scope_schema.len();
        let resource_spans =
            self.resource.len() + 1 + encoded_len_varint(scope_spans as u64) + scope_spans + self.resource_schema.len();
        let mut buf = Vec::with_capacity(resource_spans + 16);
        encode_key(1, WireType::LengthDelimited, &mut buf);
        encode_varint(resource_spans as u64, &mut buf);
        buf.extend_from_slice(&self.resource);
        encode_key(2, WireType::LengthDelimited, &mut buf);
        encode_varint(scope_spans as u64, &mut buf);
        buf.extend_from_slice(&self.scope);
        buf.extend_from_slice(spans);
        buf.extend_from_slice(&self.scope_schema);
        buf.extend_from_slice(&self.resource_schema);
        buf
    }
}

#[cfg(test)]
#[path = "encode_tests.rs"]
mod tests;
