//! `cargo bench --bench schemas`: validations per second on one core for a
//! 5 KB object against a schema of about 50 properties with CEL rules (the
//! schemas issue's target is 50,000/s), measured through the schema API the
//! write path uses: validation alone, validation of an update against its
//! old object (ratcheting), and the whole admission (prune, default,
//! validate) of a fresh copy, without feature gates and with 10 gates
//! over 20 paths (`spec.customFeatureGates`, applied as a write's prepare
//! phase does: the field-gating target is at most 5% slower).
//!
//! Figures are printed, not asserted: the median of 50 ms rounds, and the
//! best round. `CRDSTORE_BENCH_SECONDS` sets the measuring time of each
//! figure (default 3); `CRDSTORE_BENCH_ITERATIONS` runs each a fixed number
//! of times instead (for instruction-counting profilers); words after `--`
//! pick the figures whose labels start with them.

use std::time::{Duration, Instant};

use crdstore::gates::{CustomFeatureGates, Gates};
use crdstore::schema::{apply_defaults, prune, validate_update, Root, Schema};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn seconds() -> Duration {
    let secs = std::env::var("CRDSTORE_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

/// About 50 properties: scalars with bounds, patterns, enums and formats, a
/// keyed list of objects, a map, and four CEL rules.
fn schema() -> Value {
    let mut settings = serde_json::Map::new();
    for i in 0..34 {
        let property = match i % 4 {
            0 => json!({"type": "string", "maxLength": 200, "pattern": "^[a-z0-9-]*$"}),
            1 => json!({"type": "integer", "minimum": 0, "maximum": 1000000}),
            2 => json!({"type": "boolean"}),
            _ => json!({"type": "string", "enum": ["low", "medium", "high"]}),
        };
        settings.insert(format!("setting{i}"), property);
    }
    json!({"type": "object", "properties": {"spec": {"type": "object",
        "required": ["name", "minReplicas", "maxReplicas"],
        "x-kubernetes-validations": [
            {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
            {"rule": "self.name.startsWith('app-')"},
            {"rule": "self.containers.all(c, c.port > 0 && c.port < 65536)"},
            {"rule": "self.labels.all(k, size(self.labels[k]) < 64)"}],
        "properties": {
            "name": {"type": "string", "maxLength": 63},
            "description": {"type": "string", "maxLength": 2048},
            "id": {"type": "string", "format": "uuid"},
            "created": {"type": "string", "format": "date-time"},
            "minReplicas": {"type": "integer", "minimum": 0, "maximum": 100},
            "maxReplicas": {"type": "integer", "minimum": 0, "maximum": 100},
            "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
            "labels": {"type": "object", "maxProperties": 16, "additionalProperties": {"type": "string", "maxLength": 64}},
            "settings": {"type": "object", "properties": settings},
            "containers": {"type": "array", "maxItems": 16, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "maxLength": 63},
                    "image": {"type": "string", "maxLength": 255},
                    "port": {"type": "integer", "format": "int32"},
                    "args": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 128}},
                    "env": {"type": "object", "maxProperties": 16, "additionalProperties": {"type": "string", "maxLength": 256}}}}}}}}})
}

/// A valid object of about 5 KB.
fn object() -> Value {
    let mut settings = serde_json::Map::new();
    for i in 0..34 {
        let value = match i % 4 {
            0 => json!(format!("value-{i}-abcdefghijklmnopqrstuvwxyz-0123456789-abcdefghijklmnopqrstuvwxyz")),
            1 => json!(i * 1000),
            2 => json!(i % 3 == 0),
            _ => json!("medium"),
        };
        settings.insert(format!("setting{i}"), value);
    }
    let containers: Vec<Value> = (0..8)
        .map(|i| {
            json!({"name": format!("container-{i}"), "image": format!("registry.example.com/team/image-{i}:v1.2.3"),
                   "port": 8000 + i, "args": ["--verbose", "--listen=0.0.0.0", format!("--id={i}"), "--config=/etc/widget/config.yaml", "--log-format=json"],
                   "env": {"MODE": "production", "REGION": "eu-west-1", "LEVEL": format!("{i}"), "ENDPOINT": "https://api.example.com/v1/widgets", "OWNER": "platform-team@example.com"}})
        })
        .collect();
    let labels: serde_json::Map<String, Value> =
        (0..10).map(|i| (format!("label-{i}"), json!(format!("v{i}")))).collect();
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"},
           "spec": {"name": "app-widget", "description": "A widget. ".repeat(70), "id": "6f1c2a1e-2b7d-4c1e-9a3b-1f2e3d4c5b6a", "created": "2026-11-21T10:00:00Z",
                    "minReplicas": 2, "maxReplicas": 10, "mode": "fast", "labels": labels, "settings": settings,
                    "containers": containers}})
}

/// Measures `f` unless the command line names other figures: `cargo bench
/// --bench schemas -- admit` measures the figures whose label starts with
/// "admit".
fn measure(label: &str, mut f: impl FnMut()) {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if !filters.is_empty() && !filters.iter().any(|f| label.starts_with(f.as_str())) {
        return;
    }
    // Rounds of 50 ms: the median is the figure; the best round is what
    // one core does undisturbed (shared machines lose whole rounds to
    // other tenants).
    if let Some(n) = std::env::var("CRDSTORE_BENCH_ITERATIONS").ok().and_then(|n| n.parse::<u64>().ok()) {
        // A fixed count, for profilers that count instructions.
        let start = Instant::now();
        (0..n).for_each(|_| f());
        println!("{label}: {n} in {:.1?}", start.elapsed());
        return;
    }
    let budget = seconds();
    let start = Instant::now();
    let mut rates = Vec::new();
    while start.elapsed() < budget || rates.is_empty() {
        let round = Instant::now();
        let mut n = 0u64;
        while round.elapsed() < Duration::from_millis(50) {
            for _ in 0..20 {
                f();
            }
            n += 20;
        }
        rates.push(n as f64 / round.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let best = rates[rates.len() - 1];
    println!("{label}: {median:.0}/s ({:.1} µs each); best round {best:.0}/s", 1e6 / median);
}

fn main() {
    let schema = Schema::compile(&schema()).expect("the bench schema compiles");
    let obj = object();
    let size = serde_json::to_vec(&obj).expect("serialize").len();
    let properties = count_properties(&self::schema());
    println!("object: {size} bytes; schema: {properties} properties, 4 CEL rules; one thread");
    let out = validate_update(&obj, None, &schema, "", Root::Object);
    assert!(out.errors.is_empty(), "the bench object is valid: {:?}", out.errors);

    measure("validate (create)", || {
        std::hint::black_box(validate_update(&obj, None, &schema, "", Root::Object));
    });
    let mut plain_json = self::schema();
    plain_json["properties"]["spec"].as_object_mut().expect("spec").remove("x-kubernetes-validations");
    let plain = Schema::compile(&plain_json).expect("compiles");
    measure("the same schema without its CEL rules: validate (create)", || {
        std::hint::black_box(validate_update(&obj, None, &plain, "", Root::Object));
    });
    let mut old = obj.clone();
    old["spec"]["maxReplicas"] = json!(9);
    old["spec"]["containers"][3]["port"] = json!(9999);
    measure("validate (update, ratcheting against the old object)", || {
        std::hint::black_box(validate_update(&obj, Some(&old), &schema, "", Root::Object));
    });
    measure("admit (clone, prune, default, validate)", || {
        let mut copy = obj.clone();
        std::hint::black_box(prune(&mut copy, &schema));
        apply_defaults(&mut copy, &schema);
        std::hint::black_box(validate_update(&copy, None, &schema, "", Root::Object));
    });
    admit_with_gates(&schema, &obj);
}

/// Admission of an update with no gates and with 10 gates over 20 paths
/// (half of them disabled, so fields are kept from the old object), as the
/// write path runs it: prune, default, gate, validate.
fn admit_with_gates(schema: &Schema, obj: &Value) {
    let gate_set: Vec<Value> = (0..10)
        .map(|g| {
            json!({"name": format!("Gate{g}"), "preRelease": "beta", "default": g % 2 == 0,
                   "fieldPaths": [format!(".spec.settings.setting{}", 2 * g), format!(".spec.settings.setting{}", 2 * g + 1)]})
        })
        .collect();
    let gates: CustomFeatureGates =
        serde_json::from_value(json!({"featureGates": gate_set})).expect("the bench gates parse");
    let gates = Gates::compile(Some(&gates));
    let none = Gates::compile(None);
    let mut old = obj.clone();
    old["spec"]["settings"]["setting1"] = json!(42);
    let admit = |gates: &Gates| {
        let mut copy = obj.clone();
        std::hint::black_box(prune(&mut copy, schema));
        apply_defaults(&mut copy, schema);
        std::hint::black_box(gates.apply(&mut copy, Some(&old)));
        std::hint::black_box(validate_update(&copy, Some(&old), schema, "", Root::Object));
    };
    measure("admit an update with no feature gates", || admit(&none));
    measure("admit an update with 10 feature gates over 20 paths", || admit(&gates));
    // The gating step alone, on a copy made once: what the gates add to
    // an admission, free of the noise of the rest.
    let mut copy = obj.clone();
    measure("admit an update: the gating step alone (10 gates over 20 paths)", || {
        std::hint::black_box(gates.apply(&mut copy, Some(&old)));
    });
}

fn count_properties(json: &Value) -> usize {
    let here = json.get("properties").and_then(Value::as_object).map_or(0, |p| p.len());
    let below: usize = ["properties"]
        .iter()
        .filter_map(|k| json.get(*k).and_then(Value::as_object))
        .flat_map(|p| p.values())
        .map(count_properties)
        .sum();
    let items = json.get("items").map_or(0, count_properties);
    here + below + items
}
