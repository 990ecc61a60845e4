//! Traces through the OpenTelemetry SDK: tracing-opentelemetry's layer
//! makes crdstore's `tracing` spans SDK spans, with the events logged inside
//! them as span events and `follows_from` as links; the SDK's sampler
//! (`OTEL_TRACES_SAMPLER`, `_ARG`) decides, its `BatchSpanProcessor` batches
//! (`OTEL_BSP_*`) and opentelemetry-otlp's exporter sends (`exporters`).
//!
//! The special fields are tracing-opentelemetry's: `otel.name`,
//! `otel.kind`, `otel.status_code` (`error` or `ok`) and
//! `otel.status_message`. A request's span is a root whose parent is the
//! `traceparent`'s (`adopt`).

use opentelemetry::trace::{SpanContext, TraceContextExt as _, TracerProvider as _};
use opentelemetry::InstrumentationScope;
use opentelemetry_sdk::trace::{BatchConfig, BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use tracing::level_filters::LevelFilter;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::{env, BoxError};

/// The SDK's batching from the `OTEL_BSP_*` variables, with a queue and
/// batches four times the SDK's defaults (8192 and 2048 spans) where they
/// are not set: a create makes eight spans, so at thousands of requests a
/// second the SDK's 2048 would drop spans between two exports, and its
/// batches of 512 would make an export call every 64 creates.
fn batching() -> BatchConfig {
    let mut config = BatchConfigBuilder::default();
    if env("OTEL_BSP_MAX_QUEUE_SIZE").is_none() {
        config = config.with_max_queue_size(8192);
    }
    if env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE").is_none() {
        config = config.with_max_export_batch_size(2048);
    }
    config.build()
}

/// The tracer provider: the sampler from `OTEL_TRACES_SAMPLER` (the SDK
/// reads it; parent-based always-on unless set), spans batched and sent
/// over OTLP. Call inside the runtime.
pub(super) fn provider(resource: Resource) -> Result<SdkTracerProvider, BoxError> {
    let processor =
        BatchSpanProcessor::builder(super::exporters::span_exporter()?).with_batch_config(batching()).build();
    Ok(SdkTracerProvider::builder().with_span_processor(processor).with_resource(resource).build())
}

/// The layer that hands crdstore's spans (and the events inside them) to
/// `provider`'s tracer, and makes none inside a request not sampled
/// (`SkipUnsampled`).
///
/// Each span carries what crdstore gives it and nothing per span besides:
/// no source location, thread or target attributes, no busy and idle
/// times, and no OpenTelemetry context made current on every enter (a
/// child finds its parent through the registry; nothing in crdstore reads
/// `opentelemetry::Context::current`).
pub(super) fn layer<S>(provider: &SdkTracerProvider) -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    let scope = InstrumentationScope::builder("crdstore").with_version(env!("CARGO_PKG_VERSION")).build();
    tracing_opentelemetry::layer()
        .with_tracer(provider.tracer_with_scope(scope))
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false)
        .with_filter(exported())
        .and_then(SkipUnsampled.with_filter(CrdstoreSpans))
}

/// What goes to OTLP, decided once per callsite: crdstore's spans at debug
/// level and above, and its events at info and above as events of the span
/// they happen in, but not the request's own log line (a log line, and its
/// fields are the span's already). With its level as a hint, so that the
/// `log` crate's records below it are not made at all: without one,
/// `log::max_level` is TRACE while spans are exported, and every `trace!`
/// of sled's page cache (a dozen per write) became a record dispatched
/// through both layers' filters.
pub(super) fn exported() -> tracing_subscriber::filter::FilterFn<impl Fn(&tracing::Metadata<'_>) -> bool> {
    tracing_subscriber::filter::filter_fn(|meta| {
        let ours = meta.target().starts_with("crdstore");
        match meta.is_span() {
            true => ours && *meta.level() <= tracing::Level::DEBUG,
            false => ours && *meta.level() <= tracing::Level::INFO && meta.target() != "crdstore::request",
        }
    })
    .with_max_level_hint(LevelFilter::DEBUG)
}

/// A request's span that its sampler dropped.
struct Unsampled;

/// Makes no span inside a request its sampler dropped.
///
/// tracing-opentelemetry makes an OpenTelemetry span builder, with every
/// field as an attribute, for each span it is handed, sampled or not, and
/// asks the sampler only when the span starts: at 10% sampling, nine
/// requests in ten paid for spans that were then dropped. A request's span
/// starts when it is made (`adopt`), and one not sampled is marked
/// `Unsampled`; a crdstore span made inside it (on its thread, the request
/// current) is then not made at all, for any layer: a per-layer filter
/// would keep it from tracing-opentelemetry only, which would then take
/// its explicit children (the storage threads' `storage.fsync`) for roots.
/// Those children are still made, and dropped by the SDK's parent-based
/// sampler as the request's.
struct SkipUnsampled;

impl<S> Layer<S> for SkipUnsampled
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn enabled(&self, _: &tracing::Metadata<'_>, cx: Context<'_, S>) -> bool {
        cx.lookup_current().is_none_or(|span| span.extensions().get::<Unsampled>().is_none())
    }
}

/// What `SkipUnsampled` is asked about: crdstore's spans, every time one is
/// made (`sometimes`).
struct CrdstoreSpans;

impl CrdstoreSpans {
    fn ours(meta: &tracing::Metadata<'_>) -> bool {
        meta.is_span() && meta.target().starts_with("crdstore") && *meta.level() <= tracing::Level::DEBUG
    }
}

impl<S> tracing_subscriber::layer::Filter<S> for CrdstoreSpans {
    fn enabled(&self, meta: &tracing::Metadata<'_>, _: &Context<'_, S>) -> bool {
        Self::ours(meta)
    }

    fn callsite_enabled(&self, meta: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        match Self::ours(meta) {
            true => tracing::subscriber::Interest::sometimes(),
            false => tracing::subscriber::Interest::never(),
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::DEBUG)
    }
}

/// Makes the just-made root `span` a child of `parent` (an incoming
/// `traceparent`, or none) and starts it: the sampler decides now, and a
/// span it drops is marked `Unsampled`. Its IDs, with `ids`, for the
/// request's log line.
pub(super) fn adopt(span: &tracing::Span, parent: opentelemetry::Context, ids: bool) -> Option<SpanContext> {
    span.set_parent(parent).ok()?;
    let started = span.context().span().span_context().clone();
    if !started.is_sampled() {
        span.with_subscriber(|(id, dispatch)| {
            let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>();
            if let Some(data) = registry.and_then(|registry| registry.span(id)) {
                data.extensions_mut().insert(Unsampled);
            }
        });
    }
    ids.then_some(started)
}

#[cfg(test)]
#[path = "traces_tests.rs"]
mod tests;
