//! The mother store: one redb file under `$PATINA_HOME/mother/`.
//!
//! Every process (CLI commands, `mother watch`, `patina mcp`) opens the file in redb's
//! `MultiWriter` concurrency mode: any number of processes may hold it open, and write
//! transactions are serialised by redb's byte-range locks. A process that meets a store
//! held under an incompatible lock waits (up to `PATINA_LOCK_WAIT` seconds, default 30)
//! and then reports [`OpenError::Locked`].
//!
//! A new store is never created under its final name: it is made beside it (a hidden
//! `.store.redb.creating-PID` in the same directory), its redb header and `meta` table
//! committed durably, and then renamed into place, all under an exclusive `flock` of the
//! directory. A process killed at any moment leaves either no store, a complete store, or
//! debris under the temporary name that the next creation removes.
//!
//! Architecture Invariant: opening never rewrites a file that is not a patina store. A
//! corrupt or foreign file is reported as [`OpenError::Corrupted`] and left untouched.
//! The one exception is a *leftover* of an interrupted creation by an older patina (or
//! redb itself), which provably holds no events: an empty file, or one whose redb magic
//! number was never written and whose bytes after the 320-byte redb header are all zero.
//! A leftover is replaced by a fresh store and the caller is told
//! ([`OpenNotice::ReplacedLeftover`]), never silently.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use redb::{
    ConcurrencyMode, Database, DatabaseError, ReadOnlyDatabase, ReadableDatabase, ReadableTable, StorageError,
    TableDefinition,
};

use crate::error::{Error, OpenError, StoreError};

/// The store's own format version (the layout of its tables). Records carry their own
/// format byte as well (see `event::codec`).
pub const STORE_FORMAT: u64 = 1;

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// redb's super-header: the magic number (9 bytes) and the rest of the header, then two
/// commit slots. redb writes the magic number last, once the rest is durable.
const REDB_HEADER_BYTES: usize = 320;
const REDB_MAGIC_BYTES: usize = 9;
/// A file without a magic number larger than this is not a leftover of ours (redb's
/// initial file is about 1 MiB).
const LEFTOVER_MAX_BYTES: u64 = 16 << 20;

/// Something [`Store::open`] tells its caller, for the caller to show the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenNotice<'a> {
    /// Another process holds the store under an incompatible lock; waiting for it.
    Waiting { path: &'a Path },
    /// The file at the store's path was a leftover of an interrupted creation (it held no
    /// events) and has been replaced by a fresh, empty store.
    ReplacedLeftover { path: &'a Path, what: &'static str },
}

impl std::fmt::Display for OpenNotice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenNotice::Waiting { path } => {
                write!(f, "{} is locked by another patina process; waiting…", path.display())
            }
            OpenNotice::ReplacedLeftover { path, what } => write!(
                f,
                "{} was {what}, left by an interrupted store creation and holding no events; \
                 replaced it with a fresh store",
                path.display()
            ),
        }
    }
}

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
    db: Db,
    path: PathBuf,
}

/// A store opened for writing, or read-only (redb's `ReadOnlyDatabase`: it never writes to
/// the file, not even to recover it).
enum Db {
    ReadWrite(Database),
    ReadOnly(ReadOnlyDatabase),
}

impl Store {
    /// Opens (creating if needed) the store at `path`. `on_notice` is called once if the
    /// store is locked by another process and we start waiting, and once if a leftover of
    /// an interrupted creation was replaced.
    pub fn open(path: &Path, options: &OpenOptions, on_notice: impl FnMut(OpenNotice<'_>)) -> Result<Store, Error> {
        Store::open_in(path, options, false, on_notice)
    }

    /// Opens the store for reading only: nothing this handle does writes to the file. A
    /// missing store is created first (empty), as by [`Store::open`], and a store a killed
    /// writer left unclean is first recovered by redb, which only a writer may do (the
    /// same recovery any open did before).
    pub fn open_read_only(
        path: &Path,
        options: &OpenOptions,
        on_notice: impl FnMut(OpenNotice<'_>),
    ) -> Result<Store, Error> {
        Store::open_in(path, options, true, on_notice)
    }

    fn open_in(
        path: &Path,
        options: &OpenOptions,
        read_only: bool,
        mut on_notice: impl FnMut(OpenNotice<'_>),
    ) -> Result<Store, Error> {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir).map_err(|source| OpenError::Io { path: dir.to_path_buf(), source })?;
        if let Some(what) = ensure_created(path, dir)? {
            on_notice(OpenNotice::ReplacedLeftover { path, what });
        }
        let started = Instant::now();
        let mut told = false;
        let db = loop {
            let opened = if read_only {
                open_db_read_only(path)
                    .or_else(|err| match err {
                        // Left unclean by a killed writer: redb lets only a writer recover it.
                        // Open it for writing once (the recovery), then read-only as asked.
                        DatabaseError::RepairAborted => {
                            drop(open_db(path)?);
                            open_db_read_only(path)
                        }
                        err => Err(err),
                    })
                    .map(Db::ReadOnly)
            } else {
                open_db(path).map(Db::ReadWrite)
            };
            match opened {
                Ok(db) => break db,
                Err(DatabaseError::DatabaseAlreadyOpen | DatabaseError::LockProtocolMismatch)
                    if started.elapsed() < options.lock_wait =>
                {
                    if !told {
                        on_notice(OpenNotice::Waiting { path });
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

    pub fn is_read_only(&self) -> bool {
        matches!(self.db, Db::ReadOnly(_))
    }

    pub(crate) fn begin_read(&self) -> Result<redb::ReadTransaction, Error> {
        Ok(match &self.db {
            Db::ReadWrite(db) => db.begin_read()?,
            Db::ReadOnly(db) => db.begin_read()?,
        })
    }

    /// A write transaction; an error on a read-only store.
    pub(crate) fn begin_write(&self) -> Result<redb::WriteTransaction, Error> {
        match &self.db {
            Db::ReadWrite(db) => Ok(db.begin_write()?),
            Db::ReadOnly(_) => Err(StoreError::ReadOnly.into()),
        }
    }

    /// The size of the store file in bytes.
    pub fn file_size(&self) -> u64 {
        std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0)
    }

    fn check_format(&self) -> Result<(), Error> {
        let read = self.begin_read()?;
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
            // Recorded by the next writer.
            None if self.is_read_only() => Ok(()),
            None => {
                let write = self.begin_write()?;
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

/// What is at the store's path before redb sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Missing,
    /// Provably holds no events (see the module docs); says what it looked like.
    Leftover(&'static str),
    /// A store, or something redb will judge (and we will leave untouched).
    Other,
}

fn inspect(path: &Path) -> std::io::Result<Found> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(err) => return Err(err),
    };
    // A symlink, a directory or a device is the user's business: redb reports it.
    if !meta.is_file() || meta.len() > LEFTOVER_MAX_BYTES {
        return Ok(Found::Other);
    }
    if meta.len() == 0 {
        return Ok(Found::Leftover("empty (0 bytes)"));
    }
    // Every open passes here: a store (magic number written) costs one 9-byte read.
    let mut file = std::fs::File::open(path)?;
    let mut magic = Vec::with_capacity(REDB_MAGIC_BYTES);
    (&mut file).take(REDB_MAGIC_BYTES as u64).read_to_end(&mut magic)?;
    if magic.iter().any(|&b| b != 0) {
        return Ok(Found::Other);
    }
    let mut bytes = Vec::new();
    file.take(LEFTOVER_MAX_BYTES).read_to_end(&mut bytes)?;
    let no_data = bytes.get(REDB_HEADER_BYTES - magic.len()..).unwrap_or_default().iter().all(|&b| b == 0);
    Ok(if no_data {
        Found::Leftover("a redb file whose header was never completed (no magic number, no data)")
    } else {
        Found::Other
    })
}

/// Makes sure a store exists at `path`, creating it beside its final name and renaming it
/// into place. Returns what a replaced leftover looked like.
fn ensure_created(path: &Path, dir: &Path) -> Result<Option<&'static str>, Error> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OpenError::Io { path, source }
    };
    if inspect(path).map_err(io_err(path))? == Found::Other {
        return Ok(None);
    }
    // Creators (and replacers) take turns; whoever comes second finds the store made.
    let dir_handle = std::fs::File::open(dir).map_err(io_err(dir))?;
    dir_handle.lock().map_err(io_err(dir))?;
    let leftover = match inspect(path).map_err(io_err(path))? {
        Found::Other => return Ok(None),
        Found::Missing => None,
        Found::Leftover(what) => Some(what),
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("store.redb");
    let debris_prefix = format!(".{name}.creating-");
    // Under the lock no one else is creating: every temporary file is a killed creator's.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(|n| n.starts_with(&debris_prefix)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let temp = dir.join(format!("{debris_prefix}{}", std::process::id()));
    let created = create_store_file(&temp)
        .and_then(|()| std::fs::rename(&temp, path).map_err(|source| io_err(path)(source).into()));
    if let Err(err) = created {
        let _ = std::fs::remove_file(&temp);
        return Err(err);
    }
    // The rename is durable once the directory is.
    let _ = dir_handle.sync_all();
    Ok(leftover)
}

/// A fresh store at `path` (a new file): redb's header and our `meta` table, committed
/// durably (redb's default `Durability::Immediate` syncs on commit).
fn create_store_file(path: &Path) -> Result<(), Error> {
    let _ = std::fs::remove_file(path);
    let mut builder = Database::builder();
    builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
    let db = builder.create(path).map_err(|err| map_open_error(path, err, Duration::ZERO))?;
    let write = db.begin_write()?;
    write.open_table(META)?.insert("store_format", STORE_FORMAT)?;
    write.commit()?;
    drop(db);
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|source| OpenError::Io { path: path.to_path_buf(), source })?;
    Ok(())
}

/// Opens an existing store file; never initialises one in place (see [`ensure_created`]).
fn open_db(path: &Path) -> Result<Database, DatabaseError> {
    let mut builder = Database::builder();
    builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
    builder.open(path)
}

/// Opens an existing store file read-only, beside any writers (`MultiWriter` mode).
fn open_db_read_only(path: &Path) -> Result<ReadOnlyDatabase, DatabaseError> {
    let mut builder = Database::builder();
    builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
    builder.open_read_only(path)
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

    fn open_noting(path: &Path) -> (Result<Store, Error>, Vec<String>) {
        let mut notices = Vec::new();
        let store = Store::open(path, &OpenOptions::default(), |n| notices.push(n.to_string()));
        (store, notices)
    }

    fn n_events(store: &Store) -> u64 {
        crate::event::log::EventLog::new(store).last_seq().unwrap().unwrap_or(0)
    }

    fn link_event(from: &str) -> crate::event::log::NewEvent {
        use crate::event::{EdgeType, Event, LinkAdded, Source};
        let link =
            LinkAdded { from: from.into(), edge_type: EdgeType::Uses, to: "b".into(), evidence: None, weight: None };
        crate::event::log::NewEvent::new(Source::file("test", 1, 1), Event::LinkAdded(link))
    }

    /// What redb leaves when killed between sizing the file and writing its magic number
    /// (taken from a home bricked by `kill -9` during `mother stats`).
    fn half_created_redb_file() -> Vec<u8> {
        let mut bytes = vec![0u8; 1_056_768];
        bytes[9..32].copy_from_slice(&[0, 4, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 1, 1, 0]);
        bytes[64] = 3;
        bytes[176..192].copy_from_slice(&[
            0x1a, 0x6a, 0xb5, 0xef, 0x61, 0xd1, 0x80, 0x8d, 7, 0x2c, 3, 0x93, 0x86, 0xfb, 0xbc, 0x3f,
        ]);
        bytes[192] = 3;
        bytes
    }

    #[test]
    fn a_new_store_appears_complete_under_its_name_and_leaves_no_debris() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mother").join("store.redb");
        let (store, notices) = open_noting(&path);
        let store = store.unwrap();
        assert!(notices.is_empty(), "{notices:?}");
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], b"redb", "the magic number is written before the file gets its name");
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("store.redb")]);
        drop(store);
        // The file got its name with the store's format already recorded.
        let db = Database::builder().open(&path).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(read.open_table(META).unwrap().get("store_format").unwrap().map(|v| v.value()), Some(STORE_FORMAT));
    }

    #[test]
    fn leftovers_of_an_interrupted_creation_are_replaced_with_one_notice() {
        for (leftover, said) in [(Vec::new(), "empty (0 bytes)"), (half_created_redb_file(), "never completed")] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("store.redb");
            std::fs::write(&path, &leftover).unwrap();
            // A killed creator's temporary file is cleaned up too.
            std::fs::write(dir.path().join(".store.redb.creating-99999"), b"debris").unwrap();
            let (store, notices) = open_noting(&path);
            let store = store.unwrap_or_else(|e| panic!("{said}: {e}"));
            assert_eq!(notices.len(), 1, "{notices:?}");
            assert!(notices[0].contains("store.redb") && notices[0].contains(said), "{notices:?}");
            assert!(notices[0].contains("replaced"), "{notices:?}");
            assert_eq!(n_events(&store), 0);
            assert!(!dir.path().join(".store.redb.creating-99999").exists());
            drop(store);
            let (store, notices) = open_noting(&path);
            store.unwrap();
            assert!(notices.is_empty(), "told once: {notices:?}");
        }
    }

    #[test]
    fn a_damaged_store_holding_events_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let store = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap();
        let log = crate::event::log::EventLog::new(&store);
        log.append(vec![link_event("a")]).unwrap();
        drop(store);
        // Damage exactly the magic number: the file now looks half-created in its header,
        // but its pages hold events.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[..REDB_MAGIC_BYTES].fill(0);
        std::fs::write(&path, &bytes).unwrap();
        let (store, notices) = open_noting(&path);
        let err = store.err().expect("must fail");
        assert!(matches!(err, Error::Open(OpenError::Corrupted { .. })), "{err}");
        assert!(notices.is_empty(), "{notices:?}");
        assert!(std::fs::read(&path).unwrap() == bytes, "left byte-for-byte untouched");
    }

    #[test]
    fn concurrent_creators_end_with_one_store_that_keeps_every_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        std::fs::write(&path, b"").unwrap();
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let store = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap();
                    crate::event::log::EventLog::new(&store).append(vec![link_event(&format!("p{i}"))]).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let store = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap();
        assert_eq!(n_events(&store), 4, "no creator replaced a store another had written to");
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
