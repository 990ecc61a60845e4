//! Traces, metrics and logs for the transports. `init` sets the process up
//! from the standard `OTEL_*` variables (OTLP traces and metrics over gRPC
//! or HTTP/protobuf, off unless an endpoint is set) and the log format.
//! `start` opens the server span and the request's metrics for one HTTP or
//! gRPC request (`observe` has the span, the labels and the body that ends
//! them); the domain adds child spans with `tracing` and records its own
//! instruments through `crate::metrics`.

mod exporters;
mod observe;
pub mod request_info;
mod series;
mod traces;

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry_sdk::metrics::PeriodicReader;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::Layer as _;

pub use observe::{note, start, InFlight, Transport};
pub use request_info::RequestInfo;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Whether spans are exported: only then is an incoming `traceparent` read.
static TRACING: AtomicBool = AtomicBool::new(false);

/// Whether traces are being exported.
pub fn tracing_on() -> bool {
    TRACING.load(Ordering::Relaxed)
}

/// Whether the log filter lets debug lines through, and with them the
/// request's span (debug level) into the lines written inside it.
static LOGS_SHOW_REQUEST_SPANS: AtomicBool = AtomicBool::new(true);

/// Whether a log line can show a request span's fields: only then are its
/// trace and span IDs written into it.
fn logs_show_request_spans() -> bool {
    LOGS_SHOW_REQUEST_SPANS.load(Ordering::Relaxed)
}

/// How log lines are written (to stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, with the fields of the enclosing spans
    /// (the request's, with its trace and span IDs when tracing is on).
    Json,
}

/// The telemetry of a process: flushes what is left on `shutdown`.
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Sends the spans and metrics not sent yet, then stops the exporters.
    /// Blocks: call it off the runtime's workers.
    pub fn shutdown(self) {
        if let Some(traces) = self.traces {
            if let Err(err) = traces.shutdown() {
                tracing::warn!(error = %err, "OTLP traces did not shut down cleanly");
            }
        }
        crate::metrics::shutdown();
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// An OTLP exporter setting of a signal (`TRACES`, `METRICS`):
/// `OTEL_EXPORTER_OTLP_<signal>_<setting>`, else the common
/// `OTEL_EXPORTER_OTLP_<setting>`.
fn signal_or_common(signal: &str, setting: &str) -> Option<String> {
    env(&format!("OTEL_EXPORTER_OTLP_{signal}_{setting}")).or_else(|| env(&format!("OTEL_EXPORTER_OTLP_{setting}")))
}

/// Whether OTLP export of a signal (`TRACES`, `METRICS`) is configured: an
/// endpoint for it or for all, and its exporter not `none`.
fn otlp_configured(signal: &str) -> bool {
    let exporter = env(&format!("OTEL_{signal}_EXPORTER"));
    exporter.as_deref() != Some("none") && signal_or_common(signal, "ENDPOINT").is_some()
}

/// The resource every signal carries: `service.name` from
/// `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`), else `crdstore`.
fn resource() -> Resource {
    let named = env("OTEL_SERVICE_NAME").is_some()
        || env("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|attrs| attrs.contains("service.name="));
    let builder = Resource::builder();
    let builder = if named { builder } else { builder.with_service_name("crdstore") };
    builder.with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))).build()
}

/// Sets up logging, and OTLP traces and metrics where the environment asks
/// for them (`OTEL_EXPORTER_OTLP_ENDPOINT` or the per-signal endpoint,
/// `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`,
/// `OTEL_METRIC_EXPORT_INTERVAL`, ...). Call once, inside the runtime,
/// before the server starts. `RUST_LOG` filters the log lines only: spans
/// go to OTLP whatever it says.
pub fn init(format: LogFormat) -> Result<Telemetry, BoxError> {
    let resource = resource();
    if otlp_configured("METRICS") {
        let reader = PeriodicReader::builder(exporters::metric_exporter()?).build();
        let resource = resource.clone();
        crate::metrics::install(move |builder| builder.with_reader(reader).with_resource(resource));
    }
    let provider = if otlp_configured("TRACES") {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        Some(traces::provider(resource)?)
    } else {
        None
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let debug = filter.max_level_hint().is_none_or(|level| level >= tracing::level_filters::LevelFilter::DEBUG);
    LOGS_SHOW_REQUEST_SPANS.store(debug, Ordering::Relaxed);
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let logs = match format {
        LogFormat::Text => tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(ansi).boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    // Spans are debug-level under the `crdstore` target: with tracing off
    // and the default filter nothing is interested, and they cost nothing.
    // What goes to OTLP is decided once per callsite (`traces::exported`).
    let spans = provider.as_ref().map(traces::layer);
    tracing_subscriber::registry().with(logs.with_filter(filter)).with(spans).try_init()?;
    TRACING.store(provider.is_some(), Ordering::Relaxed);
    Ok(Telemetry { traces: provider })
}

/// `/metrics`: every metric in the Prometheus text format.
pub fn render_metrics() -> Result<String, BoxError> {
    let families = crate::metrics::registry().gather();
    Ok(prometheus::TextEncoder::new().encode_to_string(&families)?)
}

/// The content type of `render_metrics`.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::Filter;

    use super::*;

    /// Without a hint the subscriber's hint is TRACE while spans are
    /// exported, and `log::max_level` with it: every `log::trace!` of the
    /// dependencies (sled's page cache: a dozen per write) is made into a
    /// record and dispatched.
    #[test]
    fn the_exported_spans_bound_the_log_level() {
        assert_eq!(
            Filter::<tracing_subscriber::Registry>::max_level_hint(&traces::exported()),
            Some(tracing::level_filters::LevelFilter::DEBUG)
        );
    }
}
