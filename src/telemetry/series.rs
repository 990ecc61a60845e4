//! The request series a request ends in: `apiserver_request_duration_seconds`
//! and `apiserver_request_total` under its labels, bound once per label set
//! (and code) on each thread. An unbound instrument hashes and compares its
//! six or seven labels with SipHash on every call, once per reader (the
//! Prometheus one and the OTLP one): most of what metrics cost a request.
//! Bound, a request is one foldhash lookup here and an atomic add there.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use indexmap::{Equivalent, IndexMap};
use opentelemetry::metrics::{BoundCounter, BoundHistogram};
use opentelemetry::KeyValue;

use super::RequestInfo;
use crate::metrics;

/// Label sets kept per thread before the cache starts again (their series
/// stay; only the bindings are dropped and made again when next used).
const MAX_SERIES: usize = 1024;

/// A request's labels, owned: the cache's key.
#[derive(PartialEq, Eq)]
struct Labels {
    verb: &'static str,
    subresource: &'static str,
    scope: &'static str,
    group: Box<str>,
    version: Box<str>,
    resource: Box<str>,
}

/// A request's labels, borrowed from its `RequestInfo`: what a lookup hashes.
struct Borrowed<'a> {
    verb: &'static str,
    subresource: &'static str,
    scope: &'static str,
    group: &'a str,
    version: &'a str,
    resource: &'a str,
}

// Both hash as the same fields in the same order, so a borrowed key finds
// its owned one.
impl Hash for Labels {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Borrowed::from(self).hash(state)
    }
}

impl Hash for Borrowed<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.verb, self.subresource, self.scope, self.group, self.version, self.resource).hash(state)
    }
}

impl<'a> From<&'a Labels> for Borrowed<'a> {
    fn from(l: &'a Labels) -> Self {
        Borrowed {
            verb: l.verb,
            subresource: l.subresource,
            scope: l.scope,
            group: &l.group,
            version: &l.version,
            resource: &l.resource,
        }
    }
}

impl Equivalent<Labels> for Borrowed<'_> {
    fn equivalent(&self, key: &Labels) -> bool {
        let key = Borrowed::from(key);
        (self.verb, self.subresource, self.scope, self.group, self.version, self.resource)
            == (key.verb, key.subresource, key.scope, key.group, key.version, key.resource)
    }
}

impl Borrowed<'_> {
    fn attributes(&self) -> Vec<KeyValue> {
        vec![
            KeyValue::new("verb", self.verb),
            KeyValue::new("group", self.group.to_string()),
            KeyValue::new("version", self.version.to_string()),
            KeyValue::new("resource", self.resource.to_string()),
            KeyValue::new("subresource", self.subresource),
            KeyValue::new("scope", self.scope),
        ]
    }
}

/// The bound series of one label set.
struct Series {
    /// Its attributes, for binding a code first seen.
    attributes: Vec<KeyValue>,
    duration: BoundHistogram<f64>,
    /// `apiserver_request_total` by code (a handful per label set).
    codes: Vec<(u16, BoundCounter<u64>)>,
}

thread_local! {
    static SERIES: RefCell<IndexMap<Labels, Series, foldhash::fast::FixedState>> = RefCell::default();
}

/// Counts a request that ended with `code` after `seconds`.
pub(super) fn record(info: &RequestInfo, code: u16, seconds: f64) {
    let labels = Borrowed {
        verb: info.verb,
        subresource: info.subresource,
        scope: info.scope(),
        group: &info.group,
        version: &info.version,
        resource: &info.resource,
    };
    let recorded = SERIES.try_with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.get(&labels).is_none() {
            if cache.len() >= MAX_SERIES {
                cache.clear();
            }
            let attributes = labels.attributes();
            let duration = metrics::get().request_duration.bind(&attributes);
            let key = Labels {
                verb: labels.verb,
                subresource: labels.subresource,
                scope: labels.scope,
                group: labels.group.into(),
                version: labels.version.into(),
                resource: labels.resource.into(),
            };
            cache.insert(key, Series { attributes, duration, codes: Vec::new() });
        }
        let series = cache.get_mut(&labels).expect("inserted above");
        series.duration.record(seconds);
        match series.codes.iter().find(|(c, _)| *c == code) {
            Some((_, counter)) => counter.add(1),
            None => {
                let mut attributes = series.attributes.clone();
                attributes.push(KeyValue::new("code", code.to_string()));
                let counter = metrics::get().requests.bind(&attributes);
                counter.add(1);
                series.codes.push((code, counter));
            }
        }
    });
    if recorded.is_err() {
        // The thread is exiting: record unbound.
        let mut attributes = labels.attributes();
        metrics::get().request_duration.record(seconds, &attributes);
        attributes.push(KeyValue::new("code", code.to_string()));
        metrics::get().requests.add(1, &attributes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(name: &str, labels: &[(&str, &str)]) -> f64 {
        metrics::registry()
            .gather()
            .iter()
            .filter(|f| f.name() == name)
            .flat_map(|f| f.get_metric())
            .filter(|m| labels.iter().all(|(k, v)| m.get_label().iter().any(|l| l.name() == *k && l.value() == *v)))
            .map(|m| {
                if m.get_histogram().get_sample_count() > 0 {
                    m.get_histogram().get_sample_count() as f64
                } else {
                    m.get_counter().get_value()
                }
            })
            .sum()
    }

    #[test]
    fn bound_series_count_by_labels_and_code() {
        let info = |name: &str| RequestInfo {
            verb: "get",
            group: "series.example.com".into(),
            version: "v1".into(),
            resource: "things".into(),
            namespace: "ns".into(),
            name: name.into(),
            ..RequestInfo::default()
        };
        record(&info("a"), 200, 0.001);
        record(&info("b"), 200, 0.002);
        record(&info("c"), 404, 0.003);
        // Another thread binds its own handles to the same series.
        std::thread::spawn(move || record(&info("d"), 404, 0.004)).join().unwrap();
        let group = ("group", "series.example.com");
        assert_eq!(count("apiserver_request_total", &[group, ("code", "200"), ("scope", "resource")]), 2.0);
        assert_eq!(count("apiserver_request_total", &[group, ("code", "404")]), 2.0);
        assert_eq!(count("apiserver_request_duration_seconds", &[group, ("verb", "get")]), 4.0);
    }
}
