//! The export queue's batching, bound and shutdown, and the exporter task
//! against a collector on loopback.

use std::collections::HashMap;
use std::sync::Mutex as StdMutex;
use std::time::SystemTime;

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message as _;

use super::super::{collector, Attributes, Encoder};
use super::*;

fn batching(max_queue: usize, max_batch: usize) -> Batching {
    Batching { delay: Duration::from_secs(3600), max_queue, max_batch }
}

/// Ends a span named `name` into `queue`.
fn end(queue: &Queue, name: &str) {
    let context =
        SpanContext::new(TraceId::from(7_u128), SpanId::from(9_u64), TraceFlags::SAMPLED, false, TraceState::NONE);
    let now = SystemTime::now();
    queue.push(&Finished {
        context: &context,
        parent_span_id: SpanId::INVALID,
        parent_is_remote: false,
        name,
        kind: &SpanKind::Internal,
        start: now,
        end: now,
        attributes: &Attributes::default(),
        status: &Status::Unset,
    });
}

/// The names of the spans in an export request's bytes.
fn names(request: &[u8]) -> Vec<String> {
    let request = ExportTraceServiceRequest::decode(request).expect("an export request");
    request.resource_spans.into_iter().flat_map(|r| r.scope_spans).flat_map(|s| s.spans).map(|s| s.name).collect()
}

fn taken_names(batch: Option<(Vec<u8>, usize)>) -> Vec<String> {
    let (spans, count) = batch.expect("a batch");
    let names = names(&Encoder::default().request(&spans));
    assert_eq!(names.len(), count);
    names
}

#[test]
fn spans_fill_batches_of_the_batch_size_and_the_rest_goes_when_asked() {
    let queue = Queue::new(batching(10, 3));
    for n in 0..7 {
        end(&queue, &format!("s{n}"));
    }
    assert_eq!(taken_names(queue.take(false)), ["s0", "s1", "s2"]);
    assert_eq!(taken_names(queue.take(false)), ["s3", "s4", "s5"]);
    assert!(queue.take(false).is_none(), "the third batch is not full");
    assert_eq!(taken_names(queue.take(true)), ["s6"]);
    assert!(queue.take(true).is_none());
}

#[test]
fn past_the_queue_size_spans_are_dropped_and_counted_until_a_batch_is_taken() {
    let queue = Queue::new(batching(4, 2));
    for n in 0..6 {
        end(&queue, &format!("s{n}"));
    }
    assert_eq!(queue.dropped(), 2);
    assert_eq!(queue.dropped(), 0, "counted once");
    assert_eq!(taken_names(queue.take(false)), ["s0", "s1"]);
    end(&queue, "s6");
    assert_eq!(queue.dropped(), 0, "room again once a batch is taken");
    assert_eq!(taken_names(queue.take(false)), ["s2", "s3"]);
    assert_eq!(taken_names(queue.take(true)), ["s6"]);
    queue.close();
    end(&queue, "late");
    assert!(queue.take(true).is_none(), "a span that ends after shutdown is not kept");
    assert_eq!(queue.dropped(), 1);
}

#[test]
fn the_variables_set_the_batching_and_a_batch_is_never_larger_than_the_queue() {
    let from = |pairs: &[(&str, &str)]| {
        let vars: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Batching::from_lookup(|name| vars.get(name).cloned())
    };
    assert_eq!(from(&[]), Batching::default());
    let set = from(&[
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_BSP_MAX_QUEUE_SIZE", "10"),
        ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "50"),
    ]);
    assert_eq!(set, Batching { delay: Duration::from_millis(100), max_queue: 10, max_batch: 10 });
    let unreadable = from(&[("OTEL_BSP_SCHEDULE_DELAY", "soon"), ("OTEL_BSP_MAX_QUEUE_SIZE", "-1")]);
    assert_eq!(unreadable, Batching::default(), "as the SDK does, a value that is no number is ignored");
}

fn sent(bodies: &StdMutex<Vec<Vec<u8>>>) -> Vec<String> {
    bodies.lock().unwrap().iter().flat_map(|b| names(b)).collect()
}

/// Waits until the collector has had a request.
async fn first_request(bodies: &StdMutex<Vec<Vec<u8>>>) {
    for _ in 0..500 {
        if !bodies.lock().unwrap().is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no export request arrived");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_batch_is_sent_at_once_and_the_rest_on_shutdown() {
    let (sender, bodies) = collector(Vec::new(), Duration::ZERO).await;
    let queue = Arc::new(Queue::new(batching(100, 2)));
    let exporter = Exporter::start(queue.clone(), sender);
    end(&queue, "a");
    end(&queue, "b");
    end(&queue, "c");
    let sent =
        |bodies: &StdMutex<Vec<Vec<u8>>>| bodies.lock().unwrap().iter().flat_map(|b| names(b)).collect::<Vec<_>>();
    first_request(&bodies).await;
    assert_eq!(sent(&bodies), ["a", "b"], "the full batch, long before the schedule's hour");
    tokio::task::spawn_blocking(move || exporter.shutdown()).await.unwrap();
    assert_eq!(sent(&bodies), ["a", "b", "c"], "the rest on shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_while_a_batch_is_being_sent_still_sends_the_rest() {
    let (sender, bodies) = collector(Vec::new(), Duration::from_millis(300)).await;
    let queue = Arc::new(Queue::new(batching(100, 2)));
    let exporter = Exporter::start(queue.clone(), sender);
    end(&queue, "a");
    end(&queue, "b");
    first_request(&bodies).await;
    // The full batch's answer is still 300 ms away.
    end(&queue, "c");
    tokio::task::spawn_blocking(move || exporter.shutdown()).await.unwrap();
    assert_eq!(sent(&bodies), ["a", "b", "c"], "the batch being filled went out after the one in flight");
}
