//! Request lines as long as kube-apiserver takes. hyper (and the `http`
//! crate's `Uri`) refuse a request target over 65,534 bytes, answering 414
//! with an empty body, so a label selector over about 64 KB could not be
//! sent. kube-apiserver reads request heads up to 1 MiB (Go's
//! `MaxHeaderBytes`).
//!
//! [`LongUris`] wraps an HTTP/1 connection and follows its messages: the
//! head of a request whose target is over hyper's limit reaches hyper with
//! the target's query moved into the [`QUERY_HEADER`] header, which the
//! gateway reads as the query ([`raw_query`]); a client's own header of that
//! name is dropped. Bodies are passed on as their `Content-Length` or
//! chunked framing says, so the next head is found. A head over 1 MiB is
//! answered here, 414 with a Kubernetes `Status`, and the connection
//! closed. An HTTP/2 connection (its preface) is passed on untouched.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{HeaderMap, Uri};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

use crate::error::Error;

/// The header a long target's query travels in, from here to the gateway.
pub const QUERY_HEADER: &str = "x-crdstore-long-query";
/// The most bytes a request head (request line and headers) may have, as
/// kube-apiserver's `MaxHeaderBytes`.
pub const MAX_HEAD_BYTES: usize = 1 << 20;
/// The longest target hyper reads.
const HYPER_MAX_URI: usize = (u16::MAX - 1) as usize;
/// The longest chunk-size or trailer line followed; past it the bytes are
/// passed on for hyper to refuse.
const MAX_LINE: usize = 4096;

/// The query of a request: the target's, or the one [`LongUris`] moved out
/// of a target too long for hyper.
pub fn raw_query(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    match headers.get(QUERY_HEADER).and_then(|v| v.to_str().ok()) {
        Some(query) => Some(query.to_string()),
        None => uri.query().map(str::to_string),
    }
}

enum State {
    /// Reading a request head.
    Head,
    /// Passing on this many more bytes of a body.
    Body(u64),
    Chunked(Chunk),
    /// HTTP/2, or framing this does not follow: everything passed on.
    Through,
    /// Answering a head over the limit, then the end.
    Refusing(Vec<u8>),
    Closed,
}

enum Chunk {
    Size(Vec<u8>),
    Data(u64),
    DataEnd(u8),
    Trailer(Vec<u8>),
}

/// An HTTP/1 connection whose long request targets hyper can read.
pub struct LongUris<S> {
    inner: S,
    /// How long a head may take from its first byte: hyper sees a head only
    /// once it is whole, so its own head timeout cannot.
    head_timeout: Duration,
    deadline: Option<Pin<Box<Sleep>>>,
    state: State,
    /// Read from the connection, not yet followed.
    input: Vec<u8>,
    /// Followed, not yet handed to hyper.
    output: Vec<u8>,
    eof: bool,
}

impl<S> LongUris<S> {
    pub fn new(inner: S, head_timeout: Duration) -> Self {
        Self {
            inner,
            head_timeout,
            deadline: None,
            state: State::Head,
            input: Vec::new(),
            output: Vec::new(),
            eof: false,
        }
    }

    /// Whether a head has begun and not ended within the head timeout.
    fn head_timed_out(&mut self, cx: &mut Context<'_>) -> bool {
        if !matches!(self.state, State::Head) || self.input.is_empty() {
            self.deadline = None;
            return false;
        }
        let timeout = self.head_timeout;
        let deadline = self.deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        deadline.as_mut().poll(cx).is_ready()
    }

    /// Follows what `input` holds, moving it to `output`; false when more
    /// input is needed first.
    fn follow(&mut self) -> bool {
        match &mut self.state {
            State::Through => {
                self.output.append(&mut self.input);
                true
            }
            State::Closed | State::Refusing(_) => {
                self.input.clear();
                true
            }
            State::Body(left) => {
                let n = (*left).min(self.input.len() as u64) as usize;
                self.output.extend(self.input.drain(..n));
                *left -= n as u64;
                if *left == 0 {
                    self.state = State::Head;
                }
                n > 0
            }
            State::Chunked(_) => self.follow_chunks(),
            State::Head => self.follow_head(),
        }
    }

    fn follow_head(&mut self) -> bool {
        if self.input.starts_with(b"PRI ") {
            self.state = State::Through;
            return true;
        }
        let Some(end) = find(&self.input, b"\r\n\r\n") else {
            if self.input.len() > MAX_HEAD_BYTES {
                self.state = State::Refusing(too_long());
                return true;
            }
            return false;
        };
        let head: Vec<u8> = self.input.drain(..end + 4).collect();
        self.deadline = None;
        if head.len() > MAX_HEAD_BYTES {
            self.state = State::Refusing(too_long());
            return true;
        }
        let (rewritten, framing) = rewrite(&head);
        self.output.extend_from_slice(&rewritten);
        self.state = framing;
        true
    }

    fn follow_chunks(&mut self) -> bool {
        let State::Chunked(chunk) = &mut self.state else { return false };
        let mut progressed = false;
        while !self.input.is_empty() {
            progressed = true;
            match chunk {
                Chunk::Data(left) => {
                    let n = (*left).min(self.input.len() as u64) as usize;
                    self.output.extend(self.input.drain(..n));
                    *left -= n as u64;
                    if *left == 0 {
                        *chunk = Chunk::DataEnd(2);
                    }
                }
                Chunk::DataEnd(left) => {
                    self.output.push(self.input.remove(0));
                    *left -= 1;
                    if *left == 0 {
                        *chunk = Chunk::Size(Vec::new());
                    }
                }
                Chunk::Size(line) | Chunk::Trailer(line) => {
                    let byte = self.input.remove(0);
                    self.output.push(byte);
                    line.push(byte);
                    if line.len() > MAX_LINE {
                        self.state = State::Through;
                        return true;
                    }
                    if byte != b'\n' {
                        continue;
                    }
                    let text = String::from_utf8_lossy(line).trim().to_string();
                    let size = text.split(';').next().map(|s| u64::from_str_radix(s.trim(), 16));
                    *chunk = match (&*chunk, size) {
                        (Chunk::Trailer(_), _) if text.is_empty() => {
                            self.state = State::Head;
                            return true;
                        }
                        (Chunk::Trailer(_), _) | (Chunk::Size(_), Some(Ok(0))) => Chunk::Trailer(Vec::new()),
                        (Chunk::Size(_), Some(Ok(n))) => Chunk::Data(n),
                        _ => {
                            self.state = State::Through;
                            return true;
                        }
                    };
                }
            }
        }
        progressed
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The 414 answer to a head over [`MAX_HEAD_BYTES`], a Kubernetes `Status`.
fn too_long() -> Vec<u8> {
    let err = Error::bad_request(format!("the request line and headers are longer than {MAX_HEAD_BYTES} bytes"));
    let mut status = super::status::status_object(&err);
    status["code"] = 414.into();
    let body = status.to_string();
    let head = format!(
        "HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    [head.into_bytes(), body.into_bytes()].concat()
}

/// A request head as hyper is to read it (its target's query moved to
/// [`QUERY_HEADER`] when the target is too long for hyper, a client's own
/// header of that name dropped), and how its body is framed.
fn rewrite(head: &[u8]) -> (Vec<u8>, State) {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut framing = State::Head;
    let mut out = String::with_capacity(head.len() + 32);
    let mut parts = request_line.splitn(3, ' ');
    let (method, target, version) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
    let moved = match (target.len() > HYPER_MAX_URI, target.split_once('?'), version) {
        (true, Some((path, query)), Some(version)) if path.len() <= HYPER_MAX_URI => {
            out.push_str(&format!("{method} {path} {version}\r\n"));
            Some(query)
        }
        _ => {
            out.push_str(request_line);
            out.push_str("\r\n");
            None
        }
    };
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        let name = name.trim().to_ascii_lowercase();
        if name == QUERY_HEADER {
            continue;
        }
        if name == "content-length" {
            framing = value.trim().parse().map_or(State::Through, State::Body);
        } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked") {
            framing = State::Chunked(Chunk::Size(Vec::new()));
        } else if name == "upgrade" || (name == "connection" && value.to_ascii_lowercase().contains("upgrade")) {
            framing = State::Through;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    if let Some(query) = moved {
        out.push_str(&format!("{QUERY_HEADER}: {query}\r\n"));
    }
    out.push_str("\r\n");
    let framing = match framing {
        State::Body(0) => State::Head,
        other => other,
    };
    // A head that is not UTF-8 is passed on as it came, for hyper to judge.
    match std::str::from_utf8(head) {
        Ok(_) => (out.into_bytes(), framing),
        Err(_) => (head.to_vec(), State::Through),
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for LongUris<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if let State::Refusing(answer) = &mut this.state {
                while !answer.is_empty() {
                    let written = std::task::ready!(Pin::new(&mut this.inner).poll_write(cx, answer))?;
                    answer.drain(..written);
                }
                std::task::ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
                this.state = State::Closed;
            }
            if matches!(this.state, State::Closed) {
                return Poll::Ready(Ok(()));
            }
            if !this.output.is_empty() {
                let n = this.output.len().min(buf.remaining());
                buf.put_slice(&this.output[..n]);
                this.output.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if !this.input.is_empty() && this.follow() {
                continue;
            }
            if this.eof {
                // What is left unfollowed goes on for hyper to judge.
                this.output.append(&mut this.input);
                if this.output.is_empty() {
                    return Poll::Ready(Ok(()));
                }
                continue;
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            if Pin::new(&mut this.inner).poll_read(cx, &mut read)?.is_pending() {
                if this.head_timed_out(cx) {
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the request head took too long")));
                }
                return Poll::Pending;
            }
            if read.filled().is_empty() {
                this.eof = true;
            }
            this.input.extend_from_slice(read.filled());
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for LongUris<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(bytes: &[u8]) -> Vec<String> {
        let mut wrapped = LongUris::new(tokio::io::empty(), Duration::from_secs(1));
        wrapped.input = bytes.to_vec();
        while !wrapped.input.is_empty() && wrapped.follow() {}
        String::from_utf8(wrapped.output).unwrap().split("\r\n\r\n").map(str::to_string).collect()
    }

    #[test]
    fn long_targets_move_their_query_and_bodies_are_followed() {
        let long = "a".repeat(HYPER_MAX_URI);
        let request = format!(
            "POST /x?q=1 HTTP/1.1\r\nContent-Length: 4\r\nX-Crdstore-Long-Query: forged\r\n\r\nbodyGET /y?s={long} HTTP/1.1\r\n\r\n\
             PUT /z HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab\r\n\r\n0\r\n\r\nGET /w HTTP/1.1\r\n\r\n"
        );
        let expected = request.replace("\r\nX-Crdstore-Long-Query: forged", "").replace(
            &format!("GET /y?s={long} HTTP/1.1\r\n"),
            &format!("GET /y HTTP/1.1\r\n{QUERY_HEADER}: s={long}\r\n"),
        );
        assert_eq!(heads(request.as_bytes()).join("\r\n\r\n"), expected);
    }

    #[test]
    fn http2_passes_untouched_and_over_long_heads_are_refused_with_a_status() {
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nGET /x?y HTTP/1.1\r\nX-Crdstore-Long-Query: a\r\n\r\n";
        assert_eq!(heads(preface).join("\r\n\r\n").as_bytes(), preface);
        let mut wrapped = LongUris::new(tokio::io::empty(), Duration::from_secs(1));
        wrapped.input = format!("GET /?{} HTTP/1.1\r\n", "a".repeat(MAX_HEAD_BYTES)).into_bytes();
        assert!(wrapped.follow());
        let State::Refusing(answer) = &wrapped.state else { panic!("not refused") };
        let answer = String::from_utf8_lossy(answer);
        assert!(answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{answer}");
        assert!(answer.contains(r#""kind":"Status""#) && answer.contains(r#""code":414"#), "{answer}");
    }
}
