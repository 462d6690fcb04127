//! The mother store: one redb file under `$PATINA_HOME/mother/`.
//!
//! Every process (CLI commands, `mother watch`, `patina mcp`) opens the file in redb's
//! `MultiWriter` concurrency mode: any number of processes may hold it open, and write
//! transactions are serialised by redb's byte-range locks. A process that meets a store
//! held under an incompatible lock waits (up to `PATINA_LOCK_WAIT` seconds, default 30)
//! and then reports [`OpenError::Locked`].
//!
//! Architecture Invariant: opening never rewrites a file that is not a patina store. A
//! corrupt or foreign file is reported as [`OpenError::Corrupted`] and left untouched.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use redb::{ConcurrencyMode, Database, DatabaseError, ReadableDatabase, ReadableTable, StorageError, TableDefinition};

use crate::error::{Error, OpenError};

/// The store's own format version (the layout of its tables). Records carry their own
/// format byte as well (see `event::codec`).
pub const STORE_FORMAT: u64 = 1;

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// How to open the store.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How long to wait for another process that holds the store locked.
    pub lock_wait: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        let secs = std::env::var("PATINA_LOCK_WAIT").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
        OpenOptions { lock_wait: Duration::from_secs(secs) }
    }
}

/// An open mother store.
pub struct Store {
    pub(crate) db: Database,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the store at `path`. `on_wait` is called once if the
    /// store is locked by another process and we start waiting.
    pub fn open(path: &Path, options: &OpenOptions, mut on_wait: impl FnMut(&Path)) -> Result<Store, Error> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| OpenError::Io { path: parent.to_path_buf(), source })?;
        }
        let started = Instant::now();
        let mut told = false;
        let db = loop {
            match open_db(path) {
                Ok(db) => break db,
                Err(DatabaseError::DatabaseAlreadyOpen | DatabaseError::LockProtocolMismatch)
                    if started.elapsed() < options.lock_wait =>
                {
                    if !told {
                        on_wait(path);
                        told = true;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(err) => return Err(map_open_error(path, err, started.elapsed()).into()),
            }
        };
        let store = Store { db, path: path.to_path_buf() };
        store.check_format()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size of the store file in bytes.
    pub fn file_size(&self) -> u64 {
        std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0)
    }

    fn check_format(&self) -> Result<(), Error> {
        let read = self.db.begin_read()?;
        let found = match read.open_table(META) {
            Ok(meta) => meta.get("store_format")?.map(|v| v.value()),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(err) => return Err(err.into()),
        };
        drop(read);
        match found {
            Some(v) if v > STORE_FORMAT => Err(OpenError::UnsupportedVersion {
                path: self.path.clone(),
                found: v as u32,
                supported: STORE_FORMAT as u32,
            }
            .into()),
            Some(_) => Ok(()),
            None => {
                let write = self.db.begin_write()?;
                {
                    let mut meta = write.open_table(META)?;
                    if meta.get("store_format")?.is_none() {
                        meta.insert("store_format", STORE_FORMAT)?;
                    }
                }
                write.commit()?;
                Ok(())
            }
        }
    }
}

fn open_db(path: &Path) -> Result<Database, DatabaseError> {
    let mut builder = Database::builder();
    builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
    let exists = std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
    if exists { builder.open(path) } else { builder.create(path) }
}

fn map_open_error(path: &Path, err: DatabaseError, waited: Duration) -> OpenError {
    let path = path.to_path_buf();
    match err {
        DatabaseError::DatabaseAlreadyOpen | DatabaseError::LockProtocolMismatch => {
            OpenError::Locked { path, waited_secs: waited.as_secs() }
        }
        DatabaseError::Storage(StorageError::Io(source)) if source.kind() != std::io::ErrorKind::InvalidData => {
            OpenError::Io { path, source }
        }
        other => OpenError::Corrupted { path, detail: other.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_file_is_reported_corrupt_and_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let garbage: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, &garbage).unwrap();
        let err = Store::open(&path, &OpenOptions::default(), |_| {}).err().expect("must fail");
        let msg = err.to_string();
        assert!(matches!(err, Error::Open(OpenError::Corrupted { .. })), "{msg}");
        assert!(msg.contains("store.redb"), "{msg}");
        assert_eq!(std::fs::read(&path).unwrap(), garbage);
    }

    #[test]
    fn two_handles_share_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let a = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap();
        let b = Store::open(&path, &OpenOptions { lock_wait: Duration::ZERO }, |_| {}).unwrap();
        drop((a, b));
    }
}
