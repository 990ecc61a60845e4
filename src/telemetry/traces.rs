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
/// `provider`'s tracer.
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

/// Makes the just-made root `span` a child of `parent` (an incoming
/// `traceparent`, or none), and with `ids` starts it, for the request's log
/// line to show its IDs; else it starts when its first child is made, or
/// when it ends.
pub(super) fn adopt(span: &tracing::Span, parent: opentelemetry::Context, ids: bool) -> Option<SpanContext> {
    span.set_parent(parent).ok()?;
    ids.then(|| span.context().span().span_context().clone())
}

#[cfg(test)]
#[path = "traces_tests.rs"]
mod tests;
