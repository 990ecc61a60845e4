//! The process's metrics: one OpenTelemetry meter provider whose instruments
//! carry the Kubernetes apiserver's names and labels where one exists
//! (`apiserver_*`) and crdstore's own (`crdstore_*`). It always feeds a
//! Prometheus registry (the gateway's `/metrics`); `install` may add an OTLP
//! reader before first use. Instruments are process-wide: call sites are
//! one line, `metrics::get().<instrument>.add(..)`.

use std::sync::OnceLock;

use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider as _, UpDownCounter};
use opentelemetry_sdk::metrics::{MeterProviderBuilder, SdkMeterProvider};

/// Latency buckets in seconds: the apiserver's request-duration buckets.
pub const REQUEST_BUCKETS: &[f64] = &[
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0,
    45.0, 60.0,
];
/// Storage latency buckets in seconds: etcd's disk buckets (0.5 ms to 8 s).
pub const DISK_BUCKETS: &[f64] =
    &[0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192];
/// Writes per group commit: powers of two up to the writer's largest group.
pub const GROUP_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0];
/// CEL cost units per request: the apiserver's `apiserver_cel_evaluation_cost`
/// style, powers of ten up to the per-request budget.
pub const COST_BUCKETS: &[f64] = &[1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];

/// Every instrument, by its exported name.
pub struct Metrics {
    /// `apiserver_request_total`: verb, group, version, resource,
    /// subresource, scope, code.
    pub requests: Counter<u64>,
    /// `apiserver_request_duration_seconds`: the labels above but code.
    pub request_duration: Histogram<f64>,
    /// `apiserver_longrunning_requests`: open watches by verb, group,
    /// version, resource, subresource, scope.
    pub longrunning: UpDownCounter<i64>,
    /// `apiserver_watch_events_total`: group, version, kind.
    pub watch_events: Counter<u64>,
    /// `apiserver_registered_watchers`: group, version, kind.
    pub registered_watchers: UpDownCounter<i64>,
    /// `crdstore_storage_commit_duration_seconds`: from a commit's call to
    /// its durable answer.
    pub commit_duration: Histogram<f64>,
    /// `crdstore_storage_fsync_duration_seconds`: one flush.
    pub fsync_duration: Histogram<f64>,
    /// `crdstore_storage_group_commit_size`: writes per group commit.
    pub group_commit_size: Histogram<u64>,
    /// `crdstore_storage_compactions_total`.
    pub compactions: Counter<u64>,
    /// `crdstore_cel_evaluation_cost`: CEL cost charged per validated write.
    pub cel_cost: Histogram<u64>,
    meter: Meter,
}

impl Metrics {
    fn new(meter: Meter) -> Self {
        let seconds = |name: &'static str, help: &'static str, buckets: &[f64]| {
            meter.f64_histogram(name).with_description(help).with_boundaries(buckets.to_vec()).build()
        };
        Self {
            requests: meter
                .u64_counter("apiserver_request_total")
                .with_description("Counter of apiserver requests broken out for each verb, group, version, resource, scope, subresource and HTTP response code.")
                .build(),
            request_duration: seconds(
                "apiserver_request_duration_seconds",
                "Response latency distribution in seconds for each verb, group, version, resource, subresource and scope.",
                REQUEST_BUCKETS,
            ),
            longrunning: meter
                .i64_up_down_counter("apiserver_longrunning_requests")
                .with_description("Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and subresource.")
                .build(),
            watch_events: meter
                .u64_counter("apiserver_watch_events_total")
                .with_description("Number of events sent in watch clients")
                .build(),
            registered_watchers: meter
                .i64_up_down_counter("apiserver_registered_watchers")
                .with_description("Number of currently registered watchers for a given resources")
                .build(),
            commit_duration: seconds(
                "crdstore_storage_commit_duration_seconds",
                "Latency of a storage commit, from the call to its durable answer.",
                DISK_BUCKETS,
            ),
            fsync_duration: seconds(
                "crdstore_storage_fsync_duration_seconds",
                "Latency of one storage flush to disk.",
                DISK_BUCKETS,
            ),
            group_commit_size: meter
                .u64_histogram("crdstore_storage_group_commit_size")
                .with_description("Writes applied together in one group commit.")
                .with_boundaries(GROUP_BUCKETS.to_vec())
                .build(),
            compactions: meter
                .u64_counter("crdstore_storage_compactions_total")
                .with_description("Compactions of the storage history.")
                .build(),
            cel_cost: meter
                .u64_histogram("crdstore_cel_evaluation_cost")
                .with_description("CEL cost charged to validate one write.")
                .with_boundaries(COST_BUCKETS.to_vec())
                .build(),
            meter,
        }
    }

    /// The meter the instruments come from, for observable instruments
    /// registered by the assembly.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }
}

struct Installed {
    provider: SdkMeterProvider,
    registry: prometheus::Registry,
    metrics: Metrics,
}

static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Builds the provider on first use: a Prometheus reader always, and what
/// `extra` adds (an OTLP reader). Returns false when it was built already
/// (`extra` then is not applied).
pub fn install(extra: impl FnOnce(MeterProviderBuilder) -> MeterProviderBuilder) -> bool {
    let mut fresh = false;
    INSTALLED.get_or_init(|| {
        fresh = true;
        let registry = prometheus::Registry::new();
        let exporter = opentelemetry_prometheus::exporter()
            .with_registry(registry.clone())
            .without_units()
            .without_counter_suffixes()
            .without_target_info()
            .scope_info_enabled(false)
            .build()
            .expect("a fresh Prometheus registry takes the exporter");
        let provider = extra(SdkMeterProvider::builder().with_reader(exporter)).build();
        let metrics = Metrics::new(provider.meter("crdstore"));
        Installed { provider, registry, metrics }
    });
    fresh
}

/// Installs instruments that record nothing (a provider without readers;
/// `/metrics` stays empty), unless the provider was built already: the
/// baseline the telemetry benchmark measures the metrics' cost against.
pub fn install_disabled() -> bool {
    let mut fresh = false;
    INSTALLED.get_or_init(|| {
        fresh = true;
        let provider = SdkMeterProvider::builder().build();
        let metrics = Metrics::new(provider.meter("crdstore"));
        Installed { provider, registry: prometheus::Registry::new(), metrics }
    });
    fresh
}

fn installed() -> &'static Installed {
    install(|builder| builder);
    INSTALLED.get().expect("installed above")
}

/// The instruments.
pub fn get() -> &'static Metrics {
    &installed().metrics
}

/// The Prometheus registry `/metrics` renders.
pub fn registry() -> &'static prometheus::Registry {
    &installed().registry
}

/// Sends what is left to the OTLP reader, if any (at exit).
pub fn shutdown() {
    if let Some(installed) = INSTALLED.get() {
        let _ = installed.provider.shutdown();
    }
}

/// Seconds since `start`, for the histograms.
pub fn since(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruments_export_under_their_own_names() {
        get().compactions.add(1, &[]);
        get().group_commit_size.record(3, &[]);
        let families = registry().gather();
        let names: Vec<&str> = families.iter().map(|f| f.name()).collect();
        assert!(names.contains(&"crdstore_storage_compactions_total"), "{names:?}");
        assert!(names.contains(&"crdstore_storage_group_commit_size"), "{names:?}");
    }
}
