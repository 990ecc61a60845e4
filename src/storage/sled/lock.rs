//! Opening sled's files in a directory a store has just left. sled holds an
//! exclusive lock on its files until the last of its own threads lets go of
//! them, a moment after the store is dropped; a restart in the same process,
//! or a store restored and then opened, can come that moment too early. So
//! opening waits the lock out for a while, as etcd's bbolt does with its
//! open timeout, and then says which directory is held.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::storage::StorageError;

/// How long opening waits for another holder of the directory's lock.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(10);
/// How often it tries again meanwhile.
const RETRY_EVERY: Duration = Duration::from_millis(20);

/// Whether sled refused to open because another holder has its lock.
fn is_locked(err: &sled::Error) -> bool {
    matches!(err, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

/// Opens `config`'s database in `dir`, trying again for up to `wait` while
/// another holder (a store closing, another process) has its lock.
pub(super) fn open(config: &sled::Config, dir: &Path, wait: Duration) -> Result<sled::Db, StorageError> {
    let started = Instant::now();
    loop {
        match config.open() {
            Ok(db) => return Ok(db),
            Err(err) if is_locked(&err) && started.elapsed() < wait => std::thread::sleep(RETRY_EVERY),
            Err(err) if is_locked(&err) => {
                return Err(StorageError::Unavailable(format!(
                    "sled: the data directory {} is in use by another store (still locked after {:?}): {err}",
                    dir.display(),
                    wait
                )))
            }
            Err(err) => return Err(super::sled_err(err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path) -> sled::Config {
        sled::Config::new().path(dir)
    }

    #[test]
    fn opening_waits_for_a_holder_that_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let held = open(&config(dir.path()), dir.path(), LOCK_WAIT).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let started = Instant::now();
        let db = open(&config(dir.path()), dir.path(), LOCK_WAIT).expect("opens once the holder lets go");
        assert!(started.elapsed() >= Duration::from_millis(250), "it did wait for the holder");
        release.join().unwrap();
        drop(db);
    }

    #[test]
    fn a_holder_that_stays_is_an_error_naming_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let _held = open(&config(dir.path()), dir.path(), LOCK_WAIT).unwrap();
        let err = open(&config(dir.path()), dir.path(), Duration::from_millis(100)).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(&dir.path().display().to_string()), "{message}");
        assert!(message.contains("is in use by another store"), "{message}");
    }
}
