//! The transport (the performance issue): sequential round trips on one
//! connection answer in well under the 40 ms a Nagle/delayed-ACK stall
//! costs, over gRPC, HTTP/1.1 and HTTP/2 cleartext. The bound is generous
//! (10 ms for a median) so that only the stall, not a busy machine, fails it.
//! The round trip is a Get of a definition: its answer (a few KiB) is written
//! in more than one segment, which is what the stall needs.

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode, Version};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{get, register_widgets, TestServer};

const ROUND_TRIPS: usize = 100;
const BOUND: Duration = Duration::from_millis(10);
const NAME: &str = "widgets.example.com";
const PATH: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";

fn median(mut latencies: Vec<Duration>) -> Duration {
    latencies.sort();
    latencies[latencies.len() / 2]
}

/// `ROUND_TRIPS` sequential GETs of the definition on one HTTP client.
async fn http_median(server: &TestServer, client: &Client, version: Version) -> Duration {
    let url = format!("http://{}{PATH}", server.server().http_addr);
    let mut latencies = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..ROUND_TRIPS {
        let started = Instant::now();
        let response = client.get(&url).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.version(), version);
        let body: serde_json::Value = response.json().await.unwrap();
        latencies.push(started.elapsed());
        assert_eq!(body["metadata"]["name"], NAME);
    }
    median(latencies)
}

#[tokio::test]
async fn sequential_grpc_round_trips_do_not_stall() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let mut definitions = server.definitions().await;
    let mut latencies = Vec::with_capacity(ROUND_TRIPS);
    for _ in 0..ROUND_TRIPS {
        let started = Instant::now();
        let definition = get(&mut definitions, NAME).await;
        latencies.push(started.elapsed());
        assert_eq!(definition["metadata"]["name"], NAME);
    }
    let median = median(latencies);
    eprintln!("gRPC: median of {ROUND_TRIPS} sequential definition gets {median:?}");
    assert!(median < BOUND, "the median gRPC round trip took {median:?}");
    // Still serves, on the same channel and on a new one.
    get(&mut definitions, NAME).await;
    get(&mut server.definitions().await, NAME).await;
}

#[tokio::test]
async fn sequential_http1_round_trips_do_not_stall() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let client = Client::builder().http1_only().build().unwrap();
    let median = http_median(&server, &client, Version::HTTP_11).await;
    eprintln!("HTTP/1.1: median of {ROUND_TRIPS} sequential definition gets {median:?}");
    assert!(median < BOUND, "the median HTTP/1.1 round trip took {median:?}");
}

#[tokio::test]
async fn the_gateway_serves_http2_cleartext_without_stalling() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let client = Client::builder().http2_prior_knowledge().build().unwrap();
    let median = http_median(&server, &client, Version::HTTP_2).await;
    eprintln!("HTTP/2: median of {ROUND_TRIPS} sequential definition gets {median:?}");
    assert!(median < BOUND, "the median HTTP/2 round trip took {median:?}");
    // HTTP/1.1 is still served beside it.
    let http1 = Client::builder().http1_only().build().unwrap();
    let response = http1.get(format!("http://{}{PATH}", server.server().http_addr)).send().await.unwrap();
    assert_eq!((response.status(), response.version()), (StatusCode::OK, Version::HTTP_11));
}

#[tokio::test]
async fn a_connection_that_stops_in_the_http2_preface_is_closed() {
    let server = TestServer::start_with(|config| config.head_timeout = Duration::from_secs(1)).await;
    let addr = server.server().http_addr;
    // Half a preface: neither HTTP/1 nor yet HTTP/2.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stalled.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "a connection stalled in the HTTP/2 preface stayed open");
    assert!(buf.is_empty(), "{}", String::from_utf8_lossy(&buf));
    assert!(started.elapsed() >= Duration::from_millis(500), "closed after {:?}", started.elapsed());
    // Still serves, over both versions.
    let url = format!("http://{addr}/healthz");
    let response = Client::builder().http2_prior_knowledge().build().unwrap().get(&url).send().await.unwrap();
    assert_eq!((response.status(), response.version()), (StatusCode::OK, Version::HTTP_2));
    let response = Client::new().get(&url).send().await.unwrap();
    assert_eq!((response.status(), response.version()), (StatusCode::OK, Version::HTTP_11));
}
