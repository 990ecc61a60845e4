//! The snapshot file, what `crdstore backup` writes and `crdstore restore`
//! reads: a store image (`Image`) at one revision, whatever the backend, with
//! a header and a checksum.
//!
//! Layout, integers big-endian (format version 1):
//!
//! | bytes | what |
//! |-------|------|
//! | 8     | magic `CRDSNAP\0` |
//! | 4     | format version (u32) |
//! | 4     | flags, 0 |
//! | 8     | revision: the store's revision (i64) |
//! | 8     | compacted: the newest revision whose history is left out (i64) |
//! | 8     | objects (u64) |
//! | 8     | created at, Unix ms (i64) |
//! | ...   | `objects` object records (`O`), in key order, then one history record (`H`) per revision from compacted + 1 to revision |
//! | 1     | `E`, the end record |
//! | 8     | the length of everything before the `E` (u64) |
//! | 4     | CRC-32 (IEEE) of everything before it |
//!
//! A record is its tag (one byte), the length of its body (u32) and the body,
//! postcard-encoded: an object is its key, value, create and mod revisions;
//! a history record is its revision, commit time and events (key, state
//! after, state before). A restore checks the header and the checksum of the
//! whole file before it writes anything, builds the store in a sibling
//! directory and renames it into place only once it is complete.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{Event, Image, ImageItem, KeyValue, Revision, StorageError};

mod read;
pub use read::{read, restore, verify};

/// The first bytes of every snapshot.
pub const MAGIC: [u8; 8] = *b"CRDSNAP\0";
/// The version of the layout above; a reader refuses any other.
pub const FORMAT_VERSION: u32 = 1;
/// The length of the header.
pub const HEADER_LEN: u64 = 48;
/// The length of the end record.
const TRAILER_LEN: u64 = 13;
/// The longest record body a reader accepts (a value is at most 3 MiB, a
/// history record holds a commit's values before and after).
const MAX_RECORD: u32 = 256 * 1024 * 1024;
/// Buffers of files and streams.
const BUFFER: usize = 1024 * 1024;
/// The buffer of a snapshot being written: what a backup whose reader is
/// slow holds, beside the record it is writing and its transport's.
const WRITE_BUFFER: usize = 256 * 1024;

const OBJECT: u8 = b'O';
const HISTORY: u8 = b'H';
const END: u8 = b'E';

/// Why a snapshot could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("not a crdstore snapshot: it does not start with the snapshot magic")]
    NotASnapshot,
    #[error("snapshot format version {0} is not supported (this crdstore reads version {FORMAT_VERSION})")]
    UnsupportedVersion(u32),
    #[error("snapshot is truncated: {0}")]
    Truncated(String),
    #[error("snapshot is corrupt: checksum mismatch (recorded {recorded:08x}, computed {computed:08x})")]
    Checksum { recorded: u32, computed: u32 },
    #[error("snapshot is corrupt: {0}")]
    Corrupt(String),
    #[error("data directory {0} is not empty: restore only into a new or empty directory")]
    NotEmpty(PathBuf),
    #[error("{0}")]
    Storage(#[from] StorageError),
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
}

fn io_err(context: impl std::fmt::Display) -> impl FnOnce(io::Error) -> SnapshotError {
    move |source| SnapshotError::Io { context: context.to_string(), source }
}

/// What a backup or restore is doing, for `Progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Writing a snapshot: counted in records (objects and revisions).
    Backup,
    /// Checking a snapshot's checksum: counted in bytes.
    Verify,
    /// Building a store from a snapshot: counted in bytes.
    Restore,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Backup => "backup",
            Phase::Verify => "verify",
            Phase::Restore => "restore",
        })
    }
}

/// Told `(phase, done, total)` as a backup or restore goes on.
pub type Progress = Arc<dyn Fn(Phase, u64, u64) + Send + Sync>;

/// Progress nobody watches.
pub fn no_progress() -> Progress {
    Arc::new(|_, _, _| {})
}

/// A snapshot's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub revision: Revision,
    pub compacted: Revision,
    pub objects: u64,
    pub created_at_ms: i64,
}

impl Header {
    /// How many revisions of history the snapshot holds.
    pub fn revisions(&self) -> u64 {
        self.revision.since(self.compacted).max(0) as u64
    }

    /// Every record: objects and revisions.
    pub fn records(&self) -> u64 {
        self.objects + self.revisions()
    }

    fn encode(&self) -> [u8; HEADER_LEN as usize] {
        let mut out = [0u8; HEADER_LEN as usize];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_be_bytes());
        out[16..24].copy_from_slice(&self.revision.get().to_be_bytes());
        out[24..32].copy_from_slice(&self.compacted.get().to_be_bytes());
        out[32..40].copy_from_slice(&self.objects.to_be_bytes());
        out[40..48].copy_from_slice(&self.created_at_ms.to_be_bytes());
        out
    }

    /// Reads a header (only as many bytes as there are: fewer than
    /// `HEADER_LEN` is a truncated snapshot, or none at all).
    pub fn decode(bytes: &[u8]) -> Result<Header, SnapshotError> {
        let magic = &bytes[..bytes.len().min(MAGIC.len())];
        if magic != &MAGIC[..magic.len()] || bytes.is_empty() {
            return Err(SnapshotError::NotASnapshot);
        }
        if bytes.len() < HEADER_LEN as usize {
            return Err(SnapshotError::Truncated(format!("it ends at byte {} inside its header", bytes.len())));
        }
        let u64_at = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = u32::from_be_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(SnapshotError::UnsupportedVersion(version));
        }
        let header = Header {
            revision: Revision::new(u64_at(16) as i64),
            compacted: Revision::new(u64_at(24) as i64),
            objects: u64_at(32),
            created_at_ms: u64_at(40) as i64,
        };
        if header.compacted < 0 || header.revision < header.compacted {
            return Err(SnapshotError::Corrupt(format!(
                "its header has revision {} below compacted revision {}",
                header.revision, header.compacted
            )));
        }
        Ok(header)
    }
}

/// A written snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub header: Header,
    /// The snapshot's length in bytes.
    pub bytes: u64,
}

#[derive(Serialize, Deserialize)]
struct Value<'a> {
    create_revision: i64,
    mod_revision: i64,
    #[serde(borrow, with = "serde_bytes")]
    value: &'a [u8],
}

#[derive(Serialize, Deserialize)]
struct ObjectRecord<'a> {
    key: &'a str,
    #[serde(borrow)]
    value: Value<'a>,
}

#[derive(Serialize, Deserialize)]
struct EventRecord<'a> {
    key: &'a str,
    #[serde(borrow)]
    current: Option<Value<'a>>,
    #[serde(borrow)]
    previous: Option<Value<'a>>,
}

#[derive(Serialize, Deserialize)]
struct HistoryRecord<'a> {
    revision: i64,
    committed_at_ms: i64,
    #[serde(borrow)]
    events: Vec<EventRecord<'a>>,
}

fn value(kv: &KeyValue) -> Value<'_> {
    Value { create_revision: kv.create_revision.get(), mod_revision: kv.mod_revision.get(), value: &kv.value }
}

fn key_value(key: &Arc<str>, v: Value<'_>) -> KeyValue {
    KeyValue {
        key: key.clone(),
        value: Arc::from(v.value),
        create_revision: Revision::new(v.create_revision),
        mod_revision: Revision::new(v.mod_revision),
    }
}

fn encode_item(item: &ImageItem) -> (u8, Vec<u8>) {
    let encoded = match item {
        ImageItem::Object(kv) => (OBJECT, postcard::to_stdvec(&ObjectRecord { key: &kv.key, value: value(kv) })),
        ImageItem::History { revision, committed_at_ms, events } => {
            let events = events
                .iter()
                .map(|event| match event {
                    Event::Put { current, previous } => EventRecord {
                        key: &current.key,
                        current: Some(value(current)),
                        previous: previous.as_ref().map(value),
                    },
                    Event::Delete { previous, .. } => {
                        EventRecord { key: &previous.key, current: None, previous: Some(value(previous)) }
                    }
                })
                .collect();
            let record = HistoryRecord { revision: revision.get(), committed_at_ms: *committed_at_ms, events };
            (HISTORY, postcard::to_stdvec(&record))
        }
    };
    (encoded.0, encoded.1.expect("records always encode"))
}

fn decode_item(tag: u8, body: &[u8], record: u64) -> Result<ImageItem, SnapshotError> {
    let corrupt = |err: postcard::Error| SnapshotError::Corrupt(format!("record {record} does not decode: {err}"));
    match tag {
        OBJECT => {
            let object: ObjectRecord<'_> = postcard::from_bytes(body).map_err(corrupt)?;
            Ok(ImageItem::Object(key_value(&Arc::from(object.key), object.value)))
        }
        _ => {
            let history: HistoryRecord<'_> = postcard::from_bytes(body).map_err(corrupt)?;
            let revision = Revision::new(history.revision);
            let mut events = Vec::with_capacity(history.events.len());
            for event in history.events {
                let key: Arc<str> = Arc::from(event.key);
                let previous = event.previous.map(|v| key_value(&key, v));
                events.push(match (event.current, previous) {
                    (Some(current), previous) => Event::Put { current: key_value(&key, current), previous },
                    (None, Some(previous)) => Event::Delete { previous, revision },
                    (None, None) => {
                        return Err(SnapshotError::Corrupt(format!("record {record} has an event with no state")))
                    }
                });
            }
            Ok(ImageItem::History { revision, committed_at_ms: history.committed_at_ms, events })
        }
    }
}

/// A writer that sums and counts what passes.
struct Summing<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> Summing<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.written += bytes.len() as u64;
        self.inner.write_all(bytes)
    }
}

/// Writes `image` as a snapshot to `out`, reporting records as it goes.
pub fn write(image: Image, out: impl Write, progress: &Progress) -> Result<Summary, SnapshotError> {
    let created_at_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let header = Header { revision: image.revision, compacted: image.compacted, objects: image.objects, created_at_ms };
    let total = header.records();
    let context = "writing the snapshot";
    let mut out =
        Summing { inner: BufWriter::with_capacity(WRITE_BUFFER, out), crc: crc32fast::Hasher::new(), written: 0 };
    out.put(&header.encode()).map_err(io_err(context))?;
    progress(Phase::Backup, 0, total);
    let mut done = 0u64;
    for item in image.items {
        let (tag, body) = encode_item(&item?);
        let len = u32::try_from(body.len()).ok().filter(|len| *len <= MAX_RECORD).ok_or_else(|| {
            SnapshotError::Storage(StorageError::Internal(format!("record {done} is too large for a snapshot")))
        })?;
        out.put(&[tag]).map_err(io_err(context))?;
        out.put(&len.to_be_bytes()).map_err(io_err(context))?;
        out.put(&body).map_err(io_err(context))?;
        done += 1;
        if done.is_multiple_of(4096) {
            progress(Phase::Backup, done, total);
        }
    }
    if done != total {
        return Err(SnapshotError::Storage(StorageError::Internal(format!(
            "the store's image held {done} records where {total} were announced"
        ))));
    }
    progress(Phase::Backup, done, total);
    let length = out.written;
    out.put(&[END]).map_err(io_err(context))?;
    out.put(&length.to_be_bytes()).map_err(io_err(context))?;
    let crc = out.crc.clone().finalize();
    out.inner.write_all(&crc.to_be_bytes()).map_err(io_err(context))?;
    out.inner.flush().map_err(io_err(context))?;
    Ok(Summary { header, bytes: length + TRAILER_LEN })
}

/// A snapshot file being written: it takes its name only once complete and
/// checked, and a partial one is removed.
pub struct SnapshotFile {
    path: PathBuf,
    partial: PathBuf,
    file: Option<BufWriter<File>>,
}

impl SnapshotFile {
    /// Starts writing the snapshot `path` (as `path.partial`).
    pub fn create(path: &Path) -> Result<Self, SnapshotError> {
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let file = File::create(&partial).map_err(io_err(format!("creating {}", partial.display())))?;
        Ok(Self { path: path.to_path_buf(), partial, file: Some(BufWriter::with_capacity(BUFFER, file)) })
    }

    /// Where the bytes go.
    pub fn writer(&mut self) -> &mut impl Write {
        self.file.as_mut().expect("open until finished")
    }

    /// Makes the file durable, checks it is a whole snapshot, and gives it
    /// its name.
    pub fn finish(mut self) -> Result<Header, SnapshotError> {
        let file = self.file.take().expect("open until finished");
        let context = format!("writing {}", self.partial.display());
        let file = file.into_inner().map_err(|e| io_err(&context)(e.into_error()))?;
        file.sync_all().map_err(io_err(&context))?;
        let header = verify(&self.partial, &no_progress())?;
        std::fs::rename(&self.partial, &self.path).map_err(io_err(format!("renaming to {}", self.path.display())))?;
        sync_parent(&self.path);
        Ok(header)
    }
}

impl Drop for SnapshotFile {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// Makes a rename in `path`'s directory durable, where the platform can.
fn sync_parent(path: &Path) {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Ok(dir) = File::open(parent) {
            let _ = dir.sync_all();
        }
    }
}

/// Writes `image` to the snapshot file `to` (see `SnapshotFile`).
pub fn write_file(image: Image, to: &Path, progress: &Progress) -> Result<Summary, SnapshotError> {
    let mut file = SnapshotFile::create(to)?;
    let summary = write(image, file.writer(), progress)?;
    file.finish()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(key: &str, value: &str, create: i64, modified: i64) -> KeyValue {
        KeyValue {
            key: Arc::from(key),
            value: Arc::from(value.as_bytes()),
            create_revision: Revision::new(create),
            mod_revision: Revision::new(modified),
        }
    }

    fn items() -> Vec<ImageItem> {
        vec![
            ImageItem::Object(kv("/a", "{\"a\":1}", 1, 1)),
            ImageItem::Object(kv("/b", "{\"b\":2}", 2, 3)),
            ImageItem::History {
                revision: Revision::new(3),
                committed_at_ms: 42,
                events: vec![
                    Event::Put { current: kv("/b", "{\"b\":2}", 2, 3), previous: Some(kv("/b", "{}", 2, 2)) },
                    Event::Delete { previous: kv("/c", "{}", 1, 1), revision: Revision::new(3) },
                ],
            },
        ]
    }

    fn image() -> Image {
        Image {
            revision: Revision::new(3),
            compacted: Revision::new(2),
            objects: 2,
            items: Box::new(items().into_iter().map(Ok)),
        }
    }

    fn snapshot_bytes() -> Vec<u8> {
        let mut out = Vec::new();
        let summary = write(image(), &mut out, &no_progress()).unwrap();
        assert_eq!(summary.bytes, out.len() as u64);
        out
    }

    #[test]
    fn a_snapshot_reads_back_as_its_image() {
        let bytes = snapshot_bytes();
        assert_eq!(&bytes[..8], b"CRDSNAP\0");
        let read = read(std::io::Cursor::new(bytes), None).unwrap();
        assert_eq!((read.revision, read.compacted, read.objects), (Revision::new(3), Revision::new(2), 2));
        assert_eq!(read.items.collect::<Result<Vec<_>, _>>().unwrap(), items());
    }

    #[test]
    fn every_truncation_and_every_flipped_bit_is_refused() {
        let bytes = snapshot_bytes();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(verify(&path, &no_progress()).unwrap().objects, 2);
        for len in 1..bytes.len() {
            std::fs::write(&path, &bytes[..len]).unwrap();
            let err = verify(&path, &no_progress()).unwrap_err();
            assert!(matches!(err, SnapshotError::Truncated(_)), "cut at {len}: {err}");
        }
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[at] ^= 1 << bit;
                std::fs::write(&path, &flipped).unwrap();
                assert!(verify(&path, &no_progress()).is_err(), "bit {bit} of byte {at} flipped");
                let read = read(std::io::Cursor::new(flipped), None)
                    .and_then(|image| image.items.collect::<Result<Vec<_>, _>>().map_err(SnapshotError::Storage));
                assert!(read.is_err(), "read: bit {bit} of byte {at} flipped");
            }
        }
    }

    #[test]
    fn another_format_version_is_refused_by_name() {
        let mut bytes = snapshot_bytes();
        bytes[11] = 2;
        let err = Header::decode(&bytes).unwrap_err();
        assert_eq!(err.to_string(), "snapshot format version 2 is not supported (this crdstore reads version 1)");
        assert!(matches!(Header::decode(b"PK\x03\x04"), Err(SnapshotError::NotASnapshot)));
    }
}
