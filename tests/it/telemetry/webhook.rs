//! The `conversion.webhook` span: a write at a version the webhook converts
//! from makes a client span under the request's, naming the webhook's host,
//! the number of objects reviewed and the outcome.

use super::{attribute, traceparent, Receiver, Traced};
use crate::conversion::{shaped, widgets_crd};
use crate::conversion_webhook::Webhook;

#[tokio::test]
async fn a_conversion_webhook_call_is_a_child_span_with_its_host_count_and_outcome() {
    let receiver = Receiver::default();
    let (grpc_receiver, _) = receiver.start().await;
    let traced = Traced::start(&format!("http://{grpc_receiver}"), "grpc").await;
    let hook = Webhook::start().await;
    crate::support::create(&mut traced.definitions().await, &widgets_crd(hook.conversion(&["v1"]))).await;

    // Created at v1, stored at v2: one review of one object.
    let (header, trace, parent) = traceparent(11);
    let created = reqwest::Client::new()
        .post(format!("http://{}/apis/example.com/v1/namespaces/ns/widgets", traced.http))
        .header("traceparent", header)
        .json(&shaped("v1", "w", "example.org", 80, 1))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    assert!(hook.reviews() >= 1);
    let server_span = receiver
        .wait_for("server span", |r| {
            r.spans.iter().find(|s| s.trace_id == trace && s.parent_span_id == parent).cloned()
        })
        .await;
    let webhook = receiver
        .wait_for("conversion.webhook span", |r| {
            r.spans.iter().find(|s| s.trace_id == trace && s.name == "conversion.webhook").cloned()
        })
        .await;
    // Under the request, directly or through admission's spans.
    let received = receiver.0.lock().unwrap().spans.clone();
    let mut up = webhook.parent_span_id.clone();
    while up != server_span.span_id {
        let ancestor = received.iter().find(|s| s.span_id == up);
        up = ancestor
            .unwrap_or_else(|| panic!("conversion.webhook is not under the request span"))
            .parent_span_id
            .clone();
    }
    assert_eq!(webhook.kind, 3, "a client span");
    assert_eq!(attribute(&webhook, "server.address").as_deref(), Some("localhost"));
    assert_eq!(attribute(&webhook, "crdstore.object_count").as_deref(), Some("1"));
    assert_eq!(attribute(&webhook, "crdstore.outcome").as_deref(), Some("success"));
    assert_eq!(attribute(&webhook, "http.response.status_code").as_deref(), Some("200"));
    assert_eq!(attribute(&webhook, "crdstore.desired_api_version").as_deref(), Some("example.com/v2"));
    assert!(webhook.end_time_unix_nano > webhook.start_time_unix_nano);

    // Still serving, and the object reads back through the webhook.
    let got =
        reqwest::get(format!("http://{}/apis/example.com/v1/namespaces/ns/widgets/w", traced.http)).await.unwrap();
    assert_eq!(got.status(), 200);
}
