//! `cargo bench --bench conversion`: what conversion costs a list. 10,000
//! 1 KB Widgets stored at `v1`, listed whole (as the JSON the transports
//! send) at the storage version, and at `v2` through a conversion webhook
//! on loopback (HTTPS, the test webhook of `tests/it/conversion_webhook.rs`,
//! one review per list). The median of `CRDSTORE_BENCH_ROUNDS` (default 5)
//! lists each; figures are printed, not asserted. Issue 18's target: a
//! webhook list within 3x the storage-version list. Then through the
//! bench's own webhook (converting over bytes, as a minimal webhook in
//! Rust would, on a runtime of its own as a webhook process has), in
//! interleaved rounds with the storage-version list, the
//! webhook's own work timed apart. `CRDSTORE_BENCH_PARTS` (`webhook`,
//! `bytes`, `declarative`, comma-separated) runs some parts only, and
//! `CRDSTORE_BENCH_CEL` (`short`, `distinct`, `payload`) one declarative
//! variant.
//!
//! Then the same 10,000 objects in a second store whose definition has
//! `strategy: Declarative` (v1 -> v2: a rename, a move, a default and a
//! CEL rule each way, over typed schemas), listed at the storage version
//! and at v2 through the declarative engine (target: within 1.3x), with
//! where its time goes: the page read as values and serialised again
//! (what any conversion costs over the stored bytes the storage-version
//! list sends as they are), and the engine alone. A page computes each CEL
//! rule once per distinct input (`conversion/declarative/memo.rs`), and
//! every object here has the same `timeoutSeconds` and `data`; the
//! `distinct` variant gives each object its own `timeoutSeconds`, so the
//! short rule is evaluated for every object, as it is without the memo.

#[path = "../tests/it/conversion_webhook.rs"]
mod conversion_webhook;

use std::sync::Arc;
use std::time::Instant;

use crdstore::apimachinery::options::{ListOptions, WriteOptions};
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::Storage;
use crdstore::watch::stream::WatchDefaults;
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OBJECTS: usize = 10_000;

fn rounds() -> usize {
    std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5).max(1)
}

fn reference(version: &str, name: &str) -> Ref {
    Ref {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        namespace: "bench".into(),
        name: name.into(),
    }
}

/// Widgets v1 (storage) and v2, both preserving unknown fields.
fn open_versions() -> serde_json::Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!([{"name": "v1", "served": true, "storage": true, "schema": schema},
           {"name": "v2", "served": true, "storage": false, "schema": schema}])
}

/// Widgets v1 (storage) and v2 with typed schemas and v1's declaration of
/// v2: `hostPort` renamed `endpoint`, `replicas` moved to
/// `scaling.replicas`, `tier` defaulted, and a CEL rule each way: with
/// `payload_cel`, over `data` (the 850-byte filler that makes an object
/// 1 KB, so the rule copies most of each object several times: a worst
/// case); else over `timeoutSeconds` (`30` becomes `"30s"` and back), the
/// kind of short field a conversion computes.
fn declarative_versions(payload_cel: bool) -> serde_json::Value {
    let (int, string) = (json!({"type": "integer"}), json!({"type": "string"}));
    let schema = |spec: serde_json::Value| json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}});
    let cel = if payload_cel {
        json!({"from": ".spec.data", "to": ".spec.payload", "forward": "'b:' + self", "backward": "self.substring(2)"})
    } else {
        json!({"from": ".spec.timeoutSeconds", "to": ".spec.timeout",
               "forward": "string(self) + 's'", "backward": "int(self.substring(0, size(self) - 1))"})
    };
    let v2 = if payload_cel {
        json!({"endpoint": string, "tier": string, "payload": string, "timeoutSeconds": int,
               "scaling": {"type": "object", "properties": {"replicas": int}}})
    } else {
        json!({"endpoint": string, "tier": string, "data": string, "timeout": string,
               "scaling": {"type": "object", "properties": {"replicas": int}}})
    };
    json!([
        {"name": "v1", "served": true, "storage": true,
         "schema": schema(json!({"hostPort": string, "replicas": int, "data": string, "timeoutSeconds": int})),
         "conversion": {"declarative": {"v2": {"rules": [
             {"rename": {"from": ".spec.hostPort", "to": ".spec.endpoint"}},
             {"rename": {"from": ".spec.replicas", "to": ".spec.scaling.replicas"}},
             {"default": {"path": ".spec.tier", "value": "gold"}},
             {"cel": cel}]}}}},
        {"name": "v2", "served": true, "storage": false, "schema": schema(v2)}
    ])
}

/// Registers Widgets with `versions` (v1 storage, v2 served) converting as
/// `conversion` says, and fills them with 10,000 1 KB objects at v1.
async fn setup(conversion: serde_json::Value, versions: serde_json::Value) -> (Arc<Resources>, Keep) {
    setup_with(conversion, versions, false).await
}

/// `setup`; with `distinct`, each object's `timeoutSeconds` is its own
/// (`30 + i`), else all are 30.
async fn setup_with(
    conversion: serde_json::Value,
    versions: serde_json::Value,
    distinct: bool,
) -> (Arc<Resources>, Keep) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": versions,
                 "conversion": conversion}});
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    resources
        .create(
            &crdstore::resource::definitions::at(""),
            &serde_json::to_vec(&crd).expect("crd"),
            &WriteOptions::default(),
        )
        .await
        .expect("register");
    let mut tasks = Vec::new();
    for client in 0..16 {
        let resources = resources.clone();
        tasks.push(tokio::spawn(async move {
            for i in (client..OBJECTS).step_by(16) {
                let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": format!("w{i:05}"), "labels": {"app": "bench"}},
                    "spec": {"hostPort": format!("host-{i}:{}", 1000 + i), "replicas": 1,
                             "timeoutSeconds": if distinct { 30 + i } else { 30 },
                             "data": "x".repeat(830)}});
                let body = serde_json::to_vec(&obj).expect("serialize");
                resources.create(&reference("v1", ""), &body, &WriteOptions::default()).await.expect("create");
            }
        }));
    }
    for task in tasks {
        task.await.expect("fill");
    }
    (resources, (stop, dir))
}

/// What must live while the resources are used: the stop signal and the
/// data directory.
type Keep = (tokio::sync::watch::Sender<bool>, tempfile::TempDir);

/// The median time of listing all objects at `version` by the `Value` path
/// (each item converted as a value and serialised), in milliseconds.
async fn value_list_ms(resources: &Resources, version: &str) -> f64 {
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let page = resources.list(&reference(version, ""), &ListOptions::default()).await.expect("list");
        let items: Vec<Vec<u8>> = page.items.iter().map(|v| serde_json::to_vec(v).expect("serialize")).collect();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(items.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The median time of listing all objects at `version`, in milliseconds.
async fn list_ms(resources: &Resources, version: &str) -> f64 {
    let mut times = Vec::new();
    for _ in 0..rounds() {
        times.push(timed_once(resources, version).await);
    }
    median(times)
}

/// One list of all objects at `version`, in milliseconds.
async fn timed_once(resources: &Resources, version: &str) -> f64 {
    let start = Instant::now();
    let page = resources.list_json(&reference(version, ""), &ListOptions::default()).await.expect("list");
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(page.items.len(), OBJECTS);
    ms
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The machine's load average, as /proc/loadavg says it.
fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("conversion: bench");
        return;
    }
    if part("webhook") {
        test_webhook().await;
    }
    if part("bytes") {
        byte_webhook().await;
    }
    if part("declarative") {
        declarative().await;
    }
}

/// Whether `CRDSTORE_BENCH_PARTS` (a comma-separated list of `webhook`,
/// `bytes` and `declarative`; all when unset) asks for `name`.
fn part(name: &str) -> bool {
    std::env::var("CRDSTORE_BENCH_PARTS").map_or(true, |parts| parts.split(',').any(|p| p.trim() == name))
}

/// Through the test webhook of `tests/it/conversion_webhook.rs`, which
/// parses each review into values.
async fn test_webhook() {
    let hook = conversion_webhook::Webhook::start().await;
    let (resources, _keep) = setup(hook.conversion(&["v1"]), open_versions()).await;
    let stored = list_ms(&resources, "v1").await;
    let before = hook.reviews();
    let webhook = list_ms(&resources, "v2").await;
    let reviews = (hook.reviews() - before) / rounds();
    println!("list of {OBJECTS} objects at the storage version:        {stored:>8.1} ms");
    println!(
        "list of {OBJECTS} objects through a webhook (loopback):  {webhook:>8.1} ms  ({:.2}x, {reviews} review per list; target <= 3x)",
        webhook / stored
    );
    let values = value_list_ms(&resources, "v2").await;
    println!(
        "  the same list by the Value path (list, serialise):              {values:>8.1} ms  ({:.2}x)",
        values / stored
    );
    // Where the webhook list's time goes: the page read as values at the
    // storage version, and the converter's call alone (one review).
    let served = resources.served("example.com", "v2", "widgets").expect("served");
    let values = resources.list(&reference("v1", ""), &ListOptions::default()).await.expect("list").items;
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let converted = served.converter.convert(values.clone(), "v2").await.expect("convert");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(converted.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "  of which the review alone (serialise, HTTPS, webhook, parse, check): {:>8.1} ms",
        times[times.len() / 2]
    );
    drop((resources, _keep, hook));
}

/// Through the bench's own webhook, which converts over bytes as a minimal
/// webhook written in Rust would.
async fn byte_webhook() {
    let hook = bytes_webhook::Webhook::start().await;
    let (resources, _keep) = setup(hook.conversion(), open_versions()).await;
    // Interleaved rounds, so both lists see the same machine: each round
    // lists at the storage version, then through the webhook, timing the
    // webhook's own work (parse, convert, answer) apart.
    let (mut stored, mut webhook, mut own) = (Vec::new(), Vec::new(), Vec::new());
    let before = hook.reviews();
    for _ in 0..rounds() {
        stored.push(timed_once(&resources, "v1").await);
        let busy = hook.busy_ms();
        webhook.push(timed_once(&resources, "v2").await);
        own.push(hook.busy_ms() - busy);
    }
    let reviews = (hook.reviews() - before) / rounds();
    let ours: Vec<f64> = webhook.iter().zip(&own).map(|(w, o)| w - o).collect();
    // Each round's ratio to its own storage-version list, then the median.
    let ratio = median(webhook.iter().zip(&stored).map(|(w, s)| w / s).collect());
    let ours_ratio = median(ours.iter().zip(&stored).map(|(o, s)| o / s).collect());
    let (stored, webhook, own, ours) = (median(stored), median(webhook), median(own), median(ours));
    println!("list of {OBJECTS} objects at the storage version:        {stored:>8.1} ms  (load average {})", load());
    println!(
        "list of {OBJECTS} objects through the bench's byte webhook: {webhook:>8.1} ms  ({ratio:.2}x, {reviews} review per list; target <= 3x)"
    );
    println!(
        "  of which the webhook's own work (parse, convert, answer):        {own:>8.1} ms; crdstore's and the wire's {ours:.1} ms ({ours_ratio:.2}x the storage-version list)"
    );
    drop((resources, _keep, hook));
}

/// Through declarative conversion: each variant, or the one
/// `CRDSTORE_BENCH_CEL` names (`short`, `distinct` or `payload`).
async fn declarative() {
    let only = std::env::var("CRDSTORE_BENCH_CEL").ok();
    for variant in [Variant::Short, Variant::Distinct, Variant::Payload] {
        if only.as_deref().is_none_or(|only| only == variant.name()) {
            declarative_with(variant).await;
        }
    }
}

/// Which CEL rule the declarative list converts with, over which values.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// Over `timeoutSeconds`, 30 in every object.
    Short,
    /// Over `timeoutSeconds`, another value in every object.
    Distinct,
    /// Over the 850-byte `data`, the same in every object.
    Payload,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Short => "short",
            Variant::Distinct => "distinct",
            Variant::Payload => "payload",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Variant::Short => "the CEL rule over a short field",
            Variant::Distinct => "the CEL rule over a short field, distinct in every object",
            Variant::Payload => "the CEL rule over the 850-byte payload",
        }
    }
}

/// Lists through declarative conversion with `variant`'s CEL rule, in
/// interleaved rounds with the storage-version list: each round lists at
/// the storage version, then at v2 cold (the converted-object cache
/// emptied first), then warm.
async fn declarative_with(variant: Variant) {
    let payload_cel = variant == Variant::Payload;
    let (resources, _keep) =
        setup_with(json!({"strategy": "Declarative"}), declarative_versions(payload_cel), variant == Variant::Distinct)
            .await;
    let (mut stored, mut cold, mut warm) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cold_ratio, mut warm_ratio) = (Vec::new(), Vec::new());
    for _ in 0..rounds() {
        let at_storage = timed_once(&resources, "v1").await;
        crdstore::resource::stored::Converted::global().clear();
        let first = timed_once(&resources, "v2").await;
        let again = timed_once(&resources, "v2").await;
        cold_ratio.push(first / at_storage);
        warm_ratio.push(again / at_storage);
        stored.push(at_storage);
        cold.push(first);
        warm.push(again);
    }
    let (stored, cold, declarative) = (median(stored), median(cold), median(warm));
    let (cold_ratio, warm_ratio) = (median(cold_ratio), median(warm_ratio));
    let sample =
        resources.get(&reference("v2", "w00001"), Default::default()).await.expect("get").into_value().expect("JSON");
    match variant {
        Variant::Payload => assert_eq!(sample["spec"]["payload"].as_str().map(|p| &p[..2]), Some("b:"), "{sample}"),
        Variant::Short => assert_eq!(sample["spec"]["timeout"], "30s", "{sample}"),
        Variant::Distinct => assert_eq!(sample["spec"]["timeout"], "31s", "{sample}"),
    }
    println!("declarative conversion, {}:", variant.describe());
    println!("list of {OBJECTS} objects at the storage version (typed):  {stored:>8.1} ms  (load average {})", load());
    println!(
        "list of {OBJECTS} objects through declarative conversion, cold: {cold:>8.1} ms  ({:+.0}% by the rounds' median ratio; target <= +30%)",
        (cold_ratio - 1.0) * 100.0
    );
    println!(
        "list of {OBJECTS} objects through declarative conversion, warm: {declarative:>8.1} ms  ({:+.0}%; target <= +30%; cache {} KiB)",
        (warm_ratio - 1.0) * 100.0,
        crdstore::resource::stored::Converted::global().bytes() / 1024
    );
    let values = value_list_ms(&resources, "v2").await;
    println!(
        "  the same list by the Value path (list, serialise):              {values:>8.1} ms  ({:+.0}%)",
        (values / stored - 1.0) * 100.0
    );
    // Where it goes: the storage-version list above sends the stored bytes
    // as they are; any conversion first reads the page as values (parse,
    // prune and default) and serialises them again, then converts.
    let mut times = Vec::new();
    let mut values = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        values = resources.list(&reference("v1", ""), &ListOptions::default()).await.expect("list").items;
        let bytes: Vec<Vec<u8>> = values.iter().map(|v| serde_json::to_vec(v).expect("serialize")).collect();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(bytes.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    let as_values = times[times.len() / 2];
    let served = resources.served("example.com", "v2", "widgets").expect("served");
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let page = values.clone();
        let start = Instant::now();
        let converted = served.converter.convert(page, "v2").await.expect("convert");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(converted.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    let engine = times[times.len() / 2];
    println!(
        "  the same list read as values and serialised (no conversion):    {as_values:>8.1} ms  (declarative {:+.0}% on it)",
        (declarative / as_values - 1.0) * 100.0
    );
    println!("  of which the declarative engine alone (10,000 objects):         {engine:>8.1} ms");
}

/// A conversion webhook made for the bench (the test webhook of
/// `tests/it/conversion_webhook.rs` parses every review into values and
/// serialises the answer again, which is its cost, not crdstore's): the
/// same HTTPS on loopback with a CA of its own, converting v1 Widgets to v2
/// (`spec.hostPort: "host:port"` becomes `spec.host` and `spec.port`) over
/// each object's bytes, every other member copied as it is.
mod bytes_webhook {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    use http_body_util::{BodyExt, Full};
    use hyper::body::{Bytes, Incoming};
    use serde_json::value::RawValue;
    use serde_json::{json, Value};
    use tokio_rustls::rustls;

    pub struct Webhook {
        url: String,
        ca_pem: String,
        reviews: Arc<AtomicUsize>,
        /// Nanoseconds the webhook spent on its own work (parse, convert,
        /// write the answer), across its reviews.
        busy: Arc<AtomicU64>,
        /// The webhook's own runtime, as a webhook is a process of its own:
        /// its tasks never wait behind crdstore's on the same workers.
        runtime: Option<tokio::runtime::Runtime>,
    }

    impl Drop for Webhook {
        fn drop(&mut self) {
            if let Some(runtime) = self.runtime.take() {
                runtime.shutdown_background();
            }
        }
    }

    impl Webhook {
        pub fn reviews(&self) -> usize {
            self.reviews.load(Ordering::SeqCst)
        }

        /// The webhook's own time so far, in milliseconds.
        pub fn busy_ms(&self) -> f64 {
            self.busy.load(Ordering::SeqCst) as f64 / 1e6
        }

        pub fn conversion(&self) -> Value {
            use base64::Engine;
            json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"url": self.url,
                                 "caBundle": base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)},
                "conversionReviewVersions": ["v1"]}})
        }

        pub async fn start() -> Self {
            let ca_key = rcgen::KeyPair::generate().unwrap();
            let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
            ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
            let ca = ca_params.self_signed(&ca_key).unwrap();
            let key = rcgen::KeyPair::generate().unwrap();
            let params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
            let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = rustls::ServerConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(
                    vec![cert.der().clone()],
                    rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
                )
                .unwrap();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.set_nonblocking(true).unwrap();
            let url = format!("https://localhost:{}/convert", listener.local_addr().unwrap().port());
            let reviews = Arc::new(AtomicUsize::new(0));
            let busy = Arc::new(AtomicU64::new(0));
            let (counted, timed) = (reviews.clone(), busy.clone());
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("webhook")
                .enable_all()
                .build()
                .unwrap();
            runtime.spawn(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((tcp, _)) = listener.accept().await else { return };
                    // As Go's net/http and every production server do: without it an
                    // answer's last segment waits for a delayed ACK (40 ms on Linux).
                    let _ = tcp.set_nodelay(true);
                    let (acceptor, counted, timed) = (acceptor.clone(), counted.clone(), timed.clone());
                    tokio::spawn(async move {
                        let Ok(tls) = acceptor.accept(tcp).await else { return };
                        let service =
                            hyper::service::service_fn(move |req| answer(req, counted.clone(), timed.clone()));
                        let mut builder =
                            hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
                        builder
                            .http2()
                            .initial_stream_window_size(16 << 20)
                            .initial_connection_window_size(16 << 20)
                            .max_frame_size(1 << 20);
                        let _ = builder.serve_connection(hyper_util::rt::TokioIo::new(tls), service).await;
                    });
                }
            });
            Self { url, ca_pem: ca.pem(), reviews, busy, runtime: Some(runtime) }
        }
    }

    #[derive(serde::Deserialize)]
    struct Review<'a> {
        #[serde(rename = "apiVersion", borrow)]
        api_version: Cow<'a, str>,
        #[serde(borrow)]
        request: Request<'a>,
    }

    #[derive(serde::Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        uid: Cow<'a, str>,
        #[serde(rename = "desiredAPIVersion", borrow)]
        desired: Cow<'a, str>,
        #[serde(borrow)]
        objects: Vec<&'a RawValue>,
    }

    async fn answer(
        req: hyper::Request<Incoming>,
        reviews: Arc<AtomicUsize>,
        busy: Arc<AtomicU64>,
    ) -> Result<hyper::Response<Full<Bytes>>, std::convert::Infallible> {
        let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        let start = Instant::now();
        reviews.fetch_add(1, Ordering::SeqCst);
        let review: Review = serde_json::from_slice(&body).expect("a review");
        let mut out = Vec::with_capacity(body.len() + 4096);
        out.extend_from_slice(b"{\"apiVersion\":");
        serde_json::to_writer(&mut out, &review.api_version).unwrap();
        out.extend_from_slice(b",\"kind\":\"ConversionReview\",\"response\":{\"uid\":");
        serde_json::to_writer(&mut out, &review.request.uid).unwrap();
        out.extend_from_slice(b",\"convertedObjects\":[");
        for (i, obj) in review.request.objects.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            convert(obj, &review.request.desired, &mut out);
        }
        out.extend_from_slice(b"],\"result\":{\"status\":\"Success\"}}}");
        busy.fetch_add(start.elapsed().as_nanos() as u64, Ordering::SeqCst);
        Ok(hyper::Response::builder()
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(out)))
            .unwrap())
    }

    type Members<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

    fn members(raw: &RawValue) -> Members<'_> {
        serde_json::from_str::<ordered::Ordered>(raw.get()).expect("an object").0
    }

    mod ordered {
        use std::borrow::Cow;
        use std::fmt;

        use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
        use serde_json::value::RawValue;

        pub struct Ordered<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

        impl<'de> Deserialize<'de> for Ordered<'de> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Ordered<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<'de>, A::Error> {
                        let mut out = Vec::new();
                        while let Some((k, v)) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                            out.push((k, v));
                        }
                        Ok(Ordered(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
    }

    fn write_key(out: &mut Vec<u8>, key: &str) {
        serde_json::to_writer(&mut *out, key).unwrap();
        out.push(b':');
    }

    /// A v1 Widget as v2: apiVersion, and `spec.hostPort` split.
    fn convert(obj: &RawValue, desired: &str, out: &mut Vec<u8>) {
        out.push(b'{');
        for (i, (key, value)) in members(obj).iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_key(out, key);
            match key.as_ref() {
                "apiVersion" => serde_json::to_writer(&mut *out, desired).unwrap(),
                "spec" => {
                    out.push(b'{');
                    let mut first = true;
                    let mut comma = |out: &mut Vec<u8>| {
                        if !std::mem::take(&mut first) {
                            out.push(b',');
                        }
                    };
                    for (key, value) in members(value) {
                        if key == "hostPort" {
                            let hp: Cow<'_, str> = serde_json::from_str(value.get()).unwrap();
                            let (host, port) = hp.split_once(':').unwrap_or((&hp, "0"));
                            comma(out);
                            write_key(out, "host");
                            serde_json::to_writer(&mut *out, host).unwrap();
                            comma(out);
                            write_key(out, "port");
                            out.extend_from_slice(port.as_bytes());
                        } else {
                            comma(out);
                            write_key(out, &key);
                            out.extend_from_slice(value.get().as_bytes());
                        }
                    }
                    out.push(b'}');
                }
                _ => out.extend_from_slice(value.get().as_bytes()),
            }
        }
        out.push(b'}');
    }
}
