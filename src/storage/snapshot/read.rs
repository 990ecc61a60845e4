//! Reading snapshots: checking one whole before anything is built from it
//! (`verify`), reading it as a store image (`read`), and restoring a data
//! directory from it with nothing half-built left behind (`restore`).

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{
    io_err, sync_parent, Header, Phase, Progress, SnapshotError, Summary, BUFFER, END, HEADER_LEN, HISTORY, MAX_RECORD,
    OBJECT, TRAILER_LEN,
};
use crate::storage::{Image, ImageItem, StorageError};

/// Progress is reported about every this many bytes.
const REPORT_EVERY: u64 = 4 * 1024 * 1024;

fn open(path: &Path) -> Result<(File, u64), SnapshotError> {
    let file = File::open(path).map_err(io_err(format!("opening {}", path.display())))?;
    let len = file.metadata().map_err(io_err(format!("reading {}", path.display())))?.len();
    Ok((file, len))
}

/// Reads as much of `buf` as the input holds; returns how much that was.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// Checks the snapshot file at `path` whole: its header, its end record and
/// the checksum over everything. Returns its header.
pub fn verify(path: &Path, progress: &Progress) -> Result<Header, SnapshotError> {
    let context = format!("reading {}", path.display());
    let (file, len) = open(path)?;
    let mut input = BufReader::with_capacity(BUFFER, file);
    let mut head = [0u8; HEADER_LEN as usize];
    let got = read_full(&mut input, &mut head).map_err(io_err(&context))?;
    let header = Header::decode(&head[..got])?;
    if len < HEADER_LEN + TRAILER_LEN {
        return Err(SnapshotError::Truncated(format!("it ends at byte {len}, before its end record")));
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let summed = len - 4;
    let mut at = HEADER_LEN;
    let mut buf = vec![0u8; BUFFER];
    let mut reported = 0;
    progress(Phase::Verify, 0, len);
    while at < summed {
        let want = (summed - at).min(BUFFER as u64) as usize;
        let got = read_full(&mut input, &mut buf[..want]).map_err(io_err(&context))?;
        if got < want {
            return Err(SnapshotError::Truncated(format!("{} changed while it was read", path.display())));
        }
        crc.update(&buf[..got]);
        // The end record: its tag and the length it records.
        if at + got as u64 == summed {
            let end = &buf[got - 9..got];
            let recorded = u64::from_be_bytes(end[1..9].try_into().expect("8 bytes"));
            if end[0] != END || recorded != len - TRAILER_LEN {
                return Err(SnapshotError::Truncated(format!(
                    "it has no end record where the file ends, at byte {len}"
                )));
            }
        }
        at += got as u64;
        if at - reported >= REPORT_EVERY {
            reported = at;
            progress(Phase::Verify, at, len);
        }
    }
    let mut recorded = [0u8; 4];
    input.read_exact(&mut recorded).map_err(io_err(&context))?;
    let (recorded, computed) = (u32::from_be_bytes(recorded), crc.finalize());
    if recorded != computed {
        return Err(SnapshotError::Checksum { recorded, computed });
    }
    progress(Phase::Verify, len, len);
    Ok(header)
}

/// The records of a snapshot being read, checked as they come and, at the
/// end, against the end record and the checksum.
struct Records<R: Read> {
    input: BufReader<R>,
    crc: crc32fast::Hasher,
    read: u64,
    header: Header,
    record: u64,
    done: bool,
    progress: Option<(Progress, u64)>,
    reported: u64,
}

impl<R: Read> Records<R> {
    fn take(&mut self, buf: &mut [u8], what: &str) -> Result<(), SnapshotError> {
        let got = read_full(&mut self.input, buf).map_err(io_err("reading the snapshot"))?;
        if got < buf.len() {
            return Err(SnapshotError::Truncated(format!("it ends at byte {} inside {what}", self.read + got as u64)));
        }
        self.crc.update(buf);
        self.read += got as u64;
        Ok(())
    }

    fn next_item(&mut self) -> Result<Option<ImageItem>, SnapshotError> {
        let record = self.record;
        let expected = if record < self.header.objects {
            OBJECT
        } else if record < self.header.records() {
            HISTORY
        } else {
            END
        };
        let mut tag = [0u8];
        self.take(&mut tag, &format!("record {record}"))?;
        if tag[0] != expected {
            return Err(SnapshotError::Corrupt(format!(
                "record {record} has tag {:?} where {:?} was expected",
                tag[0] as char, expected as char
            )));
        }
        if expected == END {
            self.end()?;
            return Ok(None);
        }
        let mut len = [0u8; 4];
        self.take(&mut len, &format!("record {record}"))?;
        let len = u32::from_be_bytes(len);
        if len > MAX_RECORD {
            return Err(SnapshotError::Corrupt(format!("record {record} claims {len} bytes")));
        }
        let mut body = vec![0u8; len as usize];
        self.take(&mut body, &format!("record {record}"))?;
        self.record += 1;
        if let Some((progress, total)) = &self.progress {
            if self.read - self.reported >= REPORT_EVERY {
                self.reported = self.read;
                progress(Phase::Restore, self.read, *total);
            }
        }
        super::decode_item(expected, &body, record).map(Some)
    }

    fn end(&mut self) -> Result<(), SnapshotError> {
        let before = self.read - 1;
        let mut length = [0u8; 8];
        self.take(&mut length, "its end record")?;
        if u64::from_be_bytes(length) != before {
            return Err(SnapshotError::Corrupt(format!("its end record does not match its length, {before}")));
        }
        let mut recorded = [0u8; 4];
        let got = read_full(&mut self.input, &mut recorded).map_err(io_err("reading the snapshot"))?;
        if got < 4 {
            return Err(SnapshotError::Truncated("it ends inside its checksum".into()));
        }
        let (recorded, computed) = (u32::from_be_bytes(recorded), self.crc.clone().finalize());
        if recorded != computed {
            return Err(SnapshotError::Checksum { recorded, computed });
        }
        if read_full(&mut self.input, &mut [0u8])? != 0 {
            return Err(SnapshotError::Corrupt("it has bytes after its end record".into()));
        }
        if let Some((progress, total)) = &self.progress {
            progress(Phase::Restore, *total, *total);
        }
        Ok(())
    }
}

impl From<io::Error> for SnapshotError {
    fn from(source: io::Error) -> Self {
        SnapshotError::Io { context: "reading the snapshot".into(), source }
    }
}

impl<R: Read> Iterator for Records<R> {
    type Item = Result<ImageItem, StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_item() {
            Ok(Some(item)) => Some(Ok(item)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(err) => {
                self.done = true;
                Some(Err(StorageError::Internal(err.to_string())))
            }
        }
    }
}

/// Reads a snapshot from `input` as a store image. The image's items check
/// each record as it comes and end with an error on one that is wrong, on
/// a truncated input or a checksum that does not match; `verify` first to
/// refuse such a snapshot before anything is built from it.
pub fn read<R: Read + Send + 'static>(input: R, progress: Option<(Progress, u64)>) -> Result<Image, SnapshotError> {
    let mut input = BufReader::with_capacity(BUFFER, input);
    let mut head = [0u8; HEADER_LEN as usize];
    let got = read_full(&mut input, &mut head)?;
    let header = Header::decode(&head[..got])?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let records = Records { input, crc, read: HEADER_LEN, header, record: 0, done: false, progress, reported: 0 };
    Ok(Image {
        revision: header.revision,
        compacted: header.compacted,
        objects: header.objects,
        items: Box::new(records),
    })
}

/// A directory being built, removed unless it was finished.
struct Building(Option<PathBuf>);

impl Drop for Building {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Restores the data directory `data_dir`, which must not exist or be
/// empty, from the snapshot file `from`, with `build` (a backend's
/// constructor, `SledStore::restore`). The whole snapshot is checked first;
/// the store is built in a sibling directory and renamed into place once
/// complete, so on any error nothing is left behind.
pub fn restore(
    from: &Path,
    data_dir: &Path,
    build: impl FnOnce(&Path, Image) -> Result<(), StorageError>,
    progress: &Progress,
) -> Result<Summary, SnapshotError> {
    let occupied = match std::fs::read_dir(data_dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(err) if err.kind() == io::ErrorKind::NotFound => false,
        Err(err) if err.kind() == io::ErrorKind::NotADirectory => true,
        Err(err) => return Err(io_err(format!("reading {}", data_dir.display()))(err)),
    };
    if occupied {
        return Err(SnapshotError::NotEmpty(data_dir.to_path_buf()));
    }
    let header = verify(from, progress)?;
    let (file, len) = open(from)?;
    let image = read(file, Some((progress.clone(), len)))?;
    let name = data_dir.file_name().ok_or_else(|| SnapshotError::Io {
        context: format!("restoring into {}", data_dir.display()),
        source: io::Error::new(io::ErrorKind::InvalidInput, "the data directory has no name"),
    })?;
    let parent = data_dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io_err(format!("creating {}", parent.display())))?;
    let mut temp = name.to_owned();
    temp.push(format!(".restoring-{}", std::process::id()));
    let temp = parent.join(temp);
    if temp.exists() {
        // A restore of this process that did not finish (it would have
        // removed it): nothing else names a directory so.
        std::fs::remove_dir_all(&temp).map_err(io_err(format!("removing {}", temp.display())))?;
    }
    std::fs::create_dir(&temp).map_err(io_err(format!("creating {}", temp.display())))?;
    let mut building = Building(Some(temp.clone()));
    progress(Phase::Restore, 0, len);
    build(&temp, image)?;
    std::fs::rename(&temp, data_dir).map_err(io_err(format!(
        "renaming {} to {}",
        temp.display(),
        data_dir.display()
    )))?;
    building.0 = None;
    sync_parent(data_dir);
    Ok(Summary { header, bytes: len })
}
