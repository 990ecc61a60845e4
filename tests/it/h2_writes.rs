//! The patched h2 (`third_party/h2.patch`): a unary answer of about a
//! kilobyte (HEADERS, one DATA frame, trailers, as every gRPC answer of one
//! object is framed) leaves the server in one write, not two. Driven over
//! an in-memory pipe that counts the server's writes, on one thread, so
//! the frames are all queued before the connection writes any of them.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};

/// A pipe end that counts the writes made to it. It writes vectors whole,
/// as a socket does, so h2 frames as it does over TCP.
struct Counted {
    inner: DuplexStream,
    writes: Arc<AtomicUsize>,
}

impl AsyncRead for Counted {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(_))) {
            self.writes.fetch_add(1, Ordering::SeqCst);
        }
        written
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // The pipe is far larger than any write here, so it takes the
        // whole vector at once, as loopback TCP does.
        let whole: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
        self.poll_write(cx, &whole)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_small_unary_answer_and_its_trailers_leave_in_one_write() {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let writes = Arc::new(AtomicUsize::new(0));
    let server_io = Counted { inner: server_end, writes: writes.clone() };

    let server = tokio::spawn(async move {
        let mut connection = h2::server::handshake(server_io).await.unwrap();
        let (_request, respond) = connection.accept().await.unwrap().unwrap();
        // Drive the connection from here on, as hyper's server does.
        tokio::spawn(async move { while connection.accept().await.is_some() {} });
        respond
    });
    let (mut client, connection) = h2::client::handshake(client_end).await.unwrap();
    tokio::spawn(connection);
    let request = http::Request::post("http://crdstore/crdstore.v1.CustomResources/Get").body(()).unwrap();
    let (answer, _) = client.send_request(request, true).unwrap();
    let mut respond = server.await.unwrap();
    // Let the connection write whatever the handshake left (SETTINGS acks).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = writes.load(Ordering::SeqCst);

    // An answer framed as tonic frames a Get's: HEADERS, one DATA frame of
    // the encoded object (a 1 KB object is about 1,100 bytes), trailers.
    let head = http::Response::builder().header("content-type", "application/grpc").body(()).unwrap();
    let mut stream = respond.send_response(head, false).unwrap();
    stream.send_data(Bytes::from(vec![b'x'; 1_100]), false).unwrap();
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
    stream.send_trailers(trailers).unwrap();

    let mut body = answer.await.unwrap().into_body();
    let mut received = 0;
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        received += chunk.len();
        body.flow_control().release_capacity(chunk.len()).unwrap();
    }
    let trailers = body.trailers().await.unwrap().expect("the answer's trailers");
    assert_eq!((received, &trailers["grpc-status"]), (1_100, &http::HeaderValue::from_static("0")));
    assert_eq!(
        writes.load(Ordering::SeqCst) - before,
        1,
        "HEADERS, DATA and trailers must leave in one write (third_party/h2.patch)"
    );
}
