//! The layer that turns crdstore's `tracing` spans into OTLP spans in the
//! export queue. tracing-opentelemetry did this through the SDK's tracer: a
//! `SpanBuilder` per span, a second SDK span built from it at close, then
//! the `SpanData`; under callgrind its callbacks were most of what tracing
//! still cost a create. Here a span is one small record in the registry's
//! extensions, decided sampled or not when it opens (its parent's
//! decision, else the SDK's sampler from `OTEL_TRACES_SAMPLER`), its
//! attributes kept already encoded, and written into the queue's batch
//! when it closes.
//!
//! The special fields are tracing-opentelemetry's: `otel.name`, `otel.kind`
//! and `otel.status_code` (`error` or `ok`), `otel.status_message`. A
//! request's span takes its remote parent and its IDs from `observe`
//! through `with_root` (a thread-local handed over while the span is made,
//! on the same thread), which keeps the layer free of downcasts.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt as _, TraceFlags, TraceId, TraceState,
};
use opentelemetry_sdk::trace::{IdGenerator as _, RandomIdGenerator, SamplingDecision, ShouldSample};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use super::otlp::{Attributes as Encoded, Finished, Queue, Scalar};

/// What a request's span is given by `observe`: its IDs, and the remote
/// parent its `traceparent` named, if any.
#[derive(Debug, Clone)]
pub struct Root {
    pub trace_id: TraceId,
    pub span_id: SpanId,
    pub parent: Option<SpanContext>,
}

impl Root {
    /// New IDs under `parent` (the parent's trace), or a new trace.
    pub fn new(parent: Option<SpanContext>) -> Self {
        let ids = RandomIdGenerator::default();
        let parent = parent.filter(SpanContext::is_valid);
        let trace_id = parent.as_ref().map_or_else(|| ids.new_trace_id(), SpanContext::trace_id);
        Self { trace_id, span_id: ids.new_span_id(), parent }
    }
}

thread_local! {
    static ROOT: RefCell<Option<Root>> = const { RefCell::new(None) };
}

/// Makes a span with `make` that takes `root`'s IDs and remote parent (when
/// the span has no local parent).
pub fn with_root<T>(root: Root, make: impl FnOnce() -> T) -> T {
    /// Takes back a root no span took, even when `make` panics.
    struct Handed;
    impl Drop for Handed {
        fn drop(&mut self) {
            ROOT.with(|r| r.borrow_mut().take());
        }
    }
    ROOT.with(|r| *r.borrow_mut() = Some(root));
    let _handed = Handed;
    make()
}

/// A span's record in the registry.
enum Recorded {
    /// Not sampled: nothing is kept but what its children inherit.
    Dropped(SpanContext),
    Sampled(Box<Open>),
}

impl Recorded {
    fn context(&self) -> &SpanContext {
        match self {
            Recorded::Dropped(context) => context,
            Recorded::Sampled(open) => &open.context,
        }
    }
}

struct Open {
    context: SpanContext,
    parent_span_id: SpanId,
    parent_is_remote: bool,
    name: Cow<'static, str>,
    kind: SpanKind,
    start: SystemTime,
    attributes: Encoded,
    /// `Fields::present` of the attributes.
    present: u64,
    status: Status,
}

/// The fields of a span as OpenTelemetry reads them.
#[derive(Default)]
struct Fields {
    name: Option<String>,
    kind: Option<SpanKind>,
    status_code: Option<&'static str>,
    status_message: Option<String>,
    attributes: Encoded,
    /// Which of the callsite's fields (by index, the first 64) are among
    /// the attributes: only those are looked for when recorded again.
    present: u64,
}

fn kind(value: &str) -> Option<SpanKind> {
    match value {
        "server" => Some(SpanKind::Server),
        "client" => Some(SpanKind::Client),
        "producer" => Some(SpanKind::Producer),
        "consumer" => Some(SpanKind::Consumer),
        "internal" => Some(SpanKind::Internal),
        _ => None,
    }
}

impl Fields {
    fn set(&mut self, field: &Field, value: Scalar<'_>) {
        match 1u64.checked_shl(field.index() as u32) {
            Some(bit) if self.present & bit == 0 => {
                self.attributes.push(field.name(), value);
                self.present |= bit;
            }
            _ => self.attributes.set(field.name(), value),
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "otel.name" => self.name = Some(value.to_string()),
            "otel.kind" => self.kind = kind(value),
            "otel.status_code" => {
                self.status_code = match value {
                    "error" | "ERROR" | "Error" => Some("error"),
                    "ok" | "OK" | "Ok" => Some("ok"),
                    _ => None,
                }
            }
            "otel.status_message" => self.status_message = Some(value.to_string()),
            // The request's IDs, written for its log line.
            "trace_id" | "span_id" => {}
            _ => self.set(field, Scalar::Str(value)),
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field, Scalar::Bool(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field, Scalar::I64(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match i64::try_from(value) {
            Ok(v) => self.set(field, Scalar::I64(v)),
            Err(_) => self.set(field, Scalar::Str(&value.to_string())),
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field, Scalar::F64(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match field.name() {
            "trace_id" | "span_id" => {}
            _ => self.record_str(field, &format!("{value:?}")),
        }
    }
}

fn status(code: Option<&'static str>, message: Option<String>) -> Status {
    match code {
        Some("error") => Status::error(message.unwrap_or_default()),
        Some("ok") => Status::Ok,
        _ => Status::Unset,
    }
}

/// The layer: spans to `queue`, sampled by `sampler`.
pub struct SpanLayer {
    queue: Arc<Queue>,
    sampler: Box<dyn ShouldSample>,
    ids: RandomIdGenerator,
}

impl SpanLayer {
    pub fn new(queue: Arc<Queue>, sampler: Box<dyn ShouldSample>) -> Self {
        Self { queue, sampler, ids: RandomIdGenerator::default() }
    }

    /// Whether a span with no local parent is sampled, under `parent`.
    fn sample(&self, parent: Option<&SpanContext>, trace_id: TraceId, name: &str, kind: &SpanKind) -> bool {
        let cx = parent.map(|p| opentelemetry::Context::new().with_remote_span_context(p.clone()));
        let result = self.sampler.should_sample(cx.as_ref(), trace_id, name, kind, &[], &[]);
        result.decision == SamplingDecision::RecordAndSample
    }
}

impl<S> tracing_subscriber::Layer<S> for SpanLayer
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let local = match attrs.parent() {
            Some(parent) => ctx.span(parent),
            None if attrs.is_contextual() => ctx.lookup_current(),
            None => None,
        };
        let local = local.and_then(|p| p.extensions().get::<Recorded>().map(|r| r.context().clone()));
        // Room for the fields as most spans have them: a request's twenty
        // grew its buffer five times.
        let room = attrs.metadata().fields().len() * 48;
        let mut fields = Fields { attributes: Encoded::with_capacity(room), ..Fields::default() };
        attrs.record(&mut fields);
        let name: Cow<'static, str> = fields.name.take().map_or(Cow::Borrowed(attrs.metadata().name()), Cow::Owned);
        let kind = fields.kind.take().unwrap_or(SpanKind::Internal);
        let (trace_id, span_id, parent, parent_is_remote, sampled) = match local {
            Some(parent) => {
                let sampled = parent.is_sampled();
                (parent.trace_id(), self.ids.new_span_id(), Some(parent), false, sampled)
            }
            None => {
                let root = ROOT.with(|r| r.borrow_mut().take()).unwrap_or_else(|| Root::new(None));
                let sampled = self.sample(root.parent.as_ref(), root.trace_id, &name, &kind);
                let remote = root.parent.is_some();
                (root.trace_id, root.span_id, root.parent, remote, sampled)
            }
        };
        let flags = if sampled { TraceFlags::SAMPLED } else { TraceFlags::default() };
        let state = parent.as_ref().map_or_else(TraceState::default, |p| p.trace_state().clone());
        let context = SpanContext::new(trace_id, span_id, flags, false, state);
        let recorded = match sampled {
            false => Recorded::Dropped(context),
            true => Recorded::Sampled(Box::new(Open {
                context,
                parent_span_id: parent.as_ref().map_or(SpanId::INVALID, SpanContext::span_id),
                parent_is_remote,
                name,
                kind,
                start: SystemTime::now(),
                status: status(fields.status_code, fields.status_message),
                attributes: fields.attributes,
                present: fields.present,
            })),
        };
        span.extensions_mut().insert(recorded);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        let Some(Recorded::Sampled(open)) = extensions.get_mut::<Recorded>() else { return };
        let mut fields =
            Fields { attributes: std::mem::take(&mut open.attributes), present: open.present, ..Fields::default() };
        values.record(&mut fields);
        open.attributes = fields.attributes;
        open.present = fields.present;
        if let Some(name) = fields.name {
            open.name = Cow::Owned(name);
        }
        if let Some(kind) = fields.kind {
            open.kind = kind;
        }
        if fields.status_code.is_some() {
            open.status = status(fields.status_code, fields.status_message);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(Recorded::Sampled(open)) = span.extensions_mut().remove::<Recorded>() else { return };
        self.queue.push(&Finished {
            context: &open.context,
            parent_span_id: open.parent_span_id,
            parent_is_remote: open.parent_is_remote,
            name: &open.name,
            kind: &open.kind,
            start: open.start,
            end: SystemTime::now(),
            attributes: &open.attributes,
            status: &open.status,
        });
    }
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
