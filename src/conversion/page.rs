//! A page through a webhook over bytes, without reading any object twice:
//! `Objects` gathers the originals' JSON one after another, as the review
//! carries them, each with where its `kind` and `metadata` are (noted by
//! whoever wrote it, so the checks read only those, not the object again);
//! `check` reads each converted object of the answer once, checks it and
//! restores its metadata (`raw::check_and_restore`). Both run over a large
//! page's chunks on every core (`split`), answering what one pass in the
//! page's order answers: the same bytes, the same first error.

use std::ops::Range;

use bytes::Bytes;

use super::raw;
use crate::error::{Error, Result};

/// Pages at least this long are split over the machine's cores.
pub const PARALLEL_FROM: usize = 512;

/// How many parts a page of `len` objects is split into: one per core for
/// a large page, else one.
pub fn parts_for(len: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if len < PARALLEL_FROM {
        1
    } else {
        cores
    }
}

/// Where in an object's JSON its last `kind` and `metadata` members'
/// values are, relative to the object's first byte.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parts {
    pub kind: Option<Range<usize>>,
    pub metadata: Option<Range<usize>>,
}

impl Parts {
    /// The parts of `json` (an object's JSON), read from it.
    pub fn find(json: &[u8]) -> Self {
        let Ok(text) = std::str::from_utf8(json) else { return Self::default() };
        let Some(members) = raw::Members::of_json(text) else { return Self::default() };
        let at = |name: &str| {
            members.get(name).map(|raw| {
                let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
                start..start + raw.get().len()
            })
        };
        Self { kind: at("kind"), metadata: at("metadata") }
    }

    fn shifted(self, by: usize) -> Self {
        let shift = |r: Range<usize>| r.start + by..r.end + by;
        Self { kind: self.kind.map(shift), metadata: self.metadata.map(shift) }
    }
}

/// The originals of a review: their JSON, comma-separated as in the
/// review's `objects`, and where each and its parts are in it; kept in the
/// chunks they were written in (`append` copies nothing), joined once into
/// the review (`into_review`).
#[derive(Debug, Default)]
pub struct Objects {
    chunks: Vec<Chunk>,
}

/// Objects written one after another, and where each and its parts are.
#[derive(Debug, Default)]
struct Chunk {
    bytes: Vec<u8>,
    spans: Vec<(Range<usize>, Parts)>,
}

impl Objects {
    pub fn with_capacity(bytes: usize, objects: usize) -> Self {
        Self { chunks: vec![Chunk { bytes: Vec::with_capacity(bytes), spans: Vec::with_capacity(objects) }] }
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.spans.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the object `write` appends to the buffer it is given (its
    /// compact JSON), which answers its parts, or None to have them read
    /// from what it wrote. Nothing is kept of a write that fails.
    pub fn push(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Result<Option<Parts>>) -> Result<()> {
        if self.chunks.is_empty() {
            self.chunks.push(Chunk::default());
        }
        let chunk = self.chunks.last_mut().expect("a chunk");
        let before = chunk.bytes.len();
        if !chunk.spans.is_empty() {
            chunk.bytes.push(b',');
        }
        let start = chunk.bytes.len();
        match write(&mut chunk.bytes) {
            Ok(parts) => {
                let parts = parts.unwrap_or_else(|| Parts::find(&chunk.bytes[start..]));
                chunk.spans.push((start..chunk.bytes.len(), parts.shifted(start)));
                Ok(())
            }
            Err(e) => {
                chunk.bytes.truncate(before);
                Err(e)
            }
        }
    }

    /// `other`'s objects after these.
    pub fn append(&mut self, other: Objects) {
        self.chunks.extend(other.chunks.into_iter().filter(|c| !c.spans.is_empty()));
    }

    /// The objects written after `head` (a review up to its objects) and
    /// followed by `tail`: the review's bytes, and where each object's
    /// parts are in them.
    pub fn into_review(self, mut head: Vec<u8>, tail: &[u8]) -> (Bytes, Vec<Parts>) {
        let chunks: Vec<Chunk> = self.chunks.into_iter().filter(|c| !c.spans.is_empty()).collect();
        head.reserve(chunks.iter().map(|c| c.bytes.len() + 1).sum::<usize>() + tail.len());
        let mut parts = Vec::with_capacity(chunks.iter().map(|c| c.spans.len()).sum());
        for (i, chunk) in chunks.into_iter().enumerate() {
            if i > 0 {
                head.push(b',');
            }
            let by = head.len();
            head.extend_from_slice(&chunk.bytes);
            parts.extend(chunk.spans.into_iter().map(|(_, p)| p.shifted(by)));
        }
        head.extend_from_slice(tail);
        (head.into(), parts)
    }

    /// Each object's JSON (for tests).
    #[cfg(test)]
    pub fn each(&self) -> Vec<&[u8]> {
        self.chunks.iter().flat_map(|c| c.spans.iter().map(|(r, _)| &c.bytes[r.clone()])).collect()
    }
}

/// Runs `work` over `items` in `parts` chunks, in order, the first on
/// this task and the others on blocking threads: each chunk's result, in
/// the chunks' order, or the first chunk's error in that order (as one
/// pass over the whole stops at its first error).
pub async fn split<T, R, W>(mut items: Vec<T>, parts: usize, work: W) -> Result<Vec<R>>
where
    T: Send + 'static,
    R: Send + 'static,
    W: Fn(usize, Vec<T>) -> Result<R> + Clone + Send + 'static,
{
    let size = items.len().div_ceil(parts.max(1)).max(1);
    let mut chunks = Vec::with_capacity(parts);
    let mut at = 0;
    while items.len() > size {
        let rest = items.split_off(size);
        chunks.push((at, std::mem::replace(&mut items, rest)));
        at += size;
    }
    chunks.push((at, items));
    let mut chunks = chunks.into_iter();
    let (first_at, first) = chunks.next().expect("a page has a chunk");
    let others: Vec<_> = chunks
        .map(|(at, chunk)| {
            let work = work.clone();
            tokio::task::spawn_blocking(move || work(at, chunk))
        })
        .collect();
    let mut out = work(first_at, first).map(|r| vec![r]);
    for other in others {
        let done = other.await.map_err(|e| Error::internal(format!("converting a page failed: {e}")))?;
        out = out.and_then(|mut out| {
            out.push(done?);
            Ok(out)
        });
    }
    out
}

/// The answer `body` to a review of `originals` (in `review`), read once
/// by `read` (its converted objects read with it, `raw::Converted`), each
/// converted object checked against its original and restored in `parts`
/// chunks: what `Webhook::convert` answers, as bytes, or the first refusal
/// in the page's order. `refused` words the refusal of the object at an
/// index. A page in more than one part is read and checked off the async
/// workers.
pub async fn check<F, R>(
    review: Bytes,
    originals: Vec<Parts>,
    body: Bytes,
    read: F,
    desired: String,
    parts: usize,
    refused: R,
) -> Result<Vec<Vec<u8>>>
where
    F: for<'b> FnOnce(&'b [u8]) -> Result<Vec<raw::Converted<'b>>> + Send + 'static,
    R: Fn(usize, raw::Refused) -> Error + Send + Sync + 'static,
{
    let work = move || {
        let converted = read(&body)?;
        check_all(&review, &originals, &converted, &desired, parts, &refused)
    };
    if parts <= 1 {
        return work();
    }
    tokio::task::spawn_blocking(work).await.map_err(|e| Error::internal(format!("converting a page failed: {e}")))?
}

/// `check` of the objects read, the first chunk on this thread and the
/// others on threads of their own, borrowing what was read.
fn check_all<R>(
    review: &[u8],
    originals: &[Parts],
    converted: &[raw::Converted<'_>],
    desired: &str,
    parts: usize,
    refused: &R,
) -> Result<Vec<Vec<u8>>>
where
    R: Fn(usize, raw::Refused) -> Error + Sync,
{
    let size = converted.len().div_ceil(parts.max(1)).max(1);
    let mut chunks = converted.chunks(size).zip(originals.chunks(size)).enumerate();
    let Some((_, (first, first_originals))) = chunks.next() else { return Ok(Vec::new()) };
    std::thread::scope(|scope| {
        let others: Vec<_> = chunks
            .map(|(i, (converted, originals))| {
                scope.spawn(move || check_chunk(review, originals, converted, i * size, desired, refused))
            })
            .collect();
        let mut out = check_chunk(review, first_originals, first, 0, desired, refused);
        for other in others {
            let done = other.join().map_err(|_| Error::internal("checking a converted page failed"))?;
            // The first error in the page's order, as one pass gives.
            out = out.and_then(|mut out| {
                out.extend(done?);
                Ok(out)
            });
        }
        out
    })
}

/// The objects of a chunk starting at index `at` of the page, checked and
/// restored in order.
fn check_chunk<R>(
    review: &[u8],
    originals: &[Parts],
    converted: &[raw::Converted<'_>],
    at: usize,
    desired: &str,
    refused: &R,
) -> Result<Vec<Vec<u8>>>
where
    R: Fn(usize, raw::Refused) -> Error,
{
    let slice = |r: &Option<Range<usize>>| r.clone().and_then(|r| std::str::from_utf8(&review[r]).ok());
    originals
        .iter()
        .zip(converted)
        .enumerate()
        .map(|(i, (original, converted))| {
            let original = raw::Original::from_parts(slice(&original.kind), slice(&original.metadata));
            raw::check_and_restore_converted(&original, converted, desired).map_err(|r| refused(at + i, r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn original(name: &str) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": name, "namespace": "n", "uid": format!("u-{name}"), "generation": 2,
                            "labels": {"app": "x"}},
               "spec": {"hostPort": "h:1", "data": "ü \"q\" \\"}})
    }

    /// `count` originals in `parts` chunks of `Objects`, appended, half of
    /// them with their parts found by reading them.
    fn objects(count: usize, parts: usize) -> Objects {
        let mut all = Objects::default();
        let size = count.div_ceil(parts);
        for chunk in (0..count).collect::<Vec<_>>().chunks(size) {
            let mut objects = Objects::with_capacity(0, 0);
            for &i in chunk {
                let json = serde_json::to_vec(&original(&format!("w{i}"))).unwrap();
                let told = i % 2 == 0;
                objects
                    .push(|out| {
                        out.extend_from_slice(&json);
                        Ok(told.then(|| Parts::find(&json)))
                    })
                    .unwrap();
            }
            all.append(objects);
        }
        all
    }

    /// The answer of a webhook that converts each original to v2 and
    /// changes it as `change` says, at its index.
    fn answer(count: usize, change: impl Fn(usize, &mut Value)) -> Bytes {
        let converted: Vec<Value> = (0..count)
            .map(|i| {
                let mut obj = original(&format!("w{i}"));
                obj["apiVersion"] = json!("example.com/v2");
                obj["metadata"]["generation"] = json!(9);
                change(i, &mut obj);
                obj
            })
            .collect();
        let answer = json!({"response": {"convertedObjects": converted, "result": {"status": "Success"}}});
        serde_json::to_vec(&answer).unwrap().into()
    }

    fn hrtb<F: for<'b> FnOnce(&'b [u8]) -> Result<Vec<raw::Converted<'b>>>>(f: F) -> F {
        f
    }

    async fn checked(count: usize, parts: usize, body: Bytes) -> Result<Vec<Vec<u8>>> {
        let objects = objects(count, parts);
        assert_eq!(objects.len(), count);
        let (review, originals) = objects.into_review(b"{\"objects\":[".to_vec(), b"]}");
        let sent: Value = serde_json::from_slice(&review).expect("the review is JSON");
        assert_eq!(sent["objects"].as_array().unwrap().len(), count);
        let refused = |index: usize, refused: raw::Refused| match refused {
            raw::Refused::Object(cause) => Error::internal(format!("object at index {index}: {cause}")),
            raw::Refused::Metadata(cause) => Error::internal(format!("metadata at index {index}: {cause}")),
        };
        let read = hrtb(|body| {
            let answer: crate::conversion::review::Answer<raw::Converted<'_>> =
                serde_json::from_slice(body).map_err(|e| Error::internal(e.to_string()))?;
            answer.converted(crate::conversion::review::ReviewVersion::V1beta1, "").map_err(Error::internal)
        });
        check(review, originals, body, read, "example.com/v2".into(), parts, refused).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_split_page_answers_what_one_pass_answers() {
        let body = answer(7, |i, obj| {
            if i == 3 {
                obj["metadata"]["labels"] = json!({"app": "y"});
            }
        });
        let whole = checked(7, 1, body.clone()).await.unwrap();
        for parts in [2, 3, 7, 9] {
            assert_eq!(checked(7, parts, body.clone()).await.unwrap(), whole, "{parts} parts");
        }
        let fourth: Value = serde_json::from_slice(&whole[3]).unwrap();
        assert_eq!(fourth["metadata"]["generation"], 2, "metadata is restored: {fourth}");
        assert_eq!(fourth["metadata"]["labels"], json!({"app": "y"}), "but for labels");
        assert_eq!(fourth["metadata"]["uid"], "u-w3");
        assert_eq!(fourth["apiVersion"], "example.com/v2");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_split_page_refuses_its_first_bad_object_in_page_order() {
        // Index 2 renamed, index 5 not an object, index 6 a bad label: the
        // first in the page's order is the refusal, however it is split.
        let body = answer(7, |i, obj| match i {
            2 => obj["metadata"]["name"] = json!("other"),
            5 => *obj = json!("text"),
            6 => obj["metadata"]["labels"] = json!({"app": 1}),
            _ => {}
        });
        for parts in [1, 2, 3, 7] {
            let err = checked(7, parts, body.clone()).await.unwrap_err();
            assert!(err.to_string().contains("object at index 2: must have the same name: w2 != other"), "{err}");
        }
        let body = answer(7, |i, obj| match i {
            5 => *obj = json!("text"),
            6 => obj["metadata"]["labels"] = json!({"app": 1}),
            _ => {}
        });
        for parts in [1, 2, 3, 7] {
            let err = checked(7, parts, body.clone()).await.unwrap_err();
            assert!(err.to_string().contains("object at index 5: converted object is not a JSON object"), "{err}");
        }
        let body = answer(7, |i, obj| {
            if i == 6 {
                obj["metadata"]["labels"] = json!({"app": 1});
            }
        });
        for parts in [1, 3] {
            let err = checked(7, parts, body.clone()).await.unwrap_err();
            assert!(
                err.to_string().contains(
                    "metadata at index 6: metadata.labels[app] must be a string, but is int64 in converted object"
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn parts_are_where_the_members_are() {
        let json = br#"{"kind":"A","metadata":{"name":"x"},"spec":{"kind":"B"},"kind":"W"}"#;
        let parts = Parts::find(json);
        assert_eq!(&json[parts.kind.unwrap()], br#""W""#, "the last kind, as a parsed map keeps it");
        assert_eq!(&json[parts.metadata.unwrap()], br#"{"name":"x"}"#);
        assert_eq!(Parts::find(b"[1]"), Parts::default());
        let mut objects = Objects::default();
        let failed = objects.push(|out| {
            out.extend_from_slice(b"{\"half");
            Err(Error::internal("no"))
        });
        assert!(failed.is_err());
        objects
            .push(|out| {
                out.extend_from_slice(json);
                Ok(None)
            })
            .unwrap();
        assert_eq!(objects.each(), [&json[..]], "nothing is kept of a failed write");
    }
}
