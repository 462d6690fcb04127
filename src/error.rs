//! The foundation's errors (store, log, codec, registry, user input), folded into
//! [`Error`].
//!
//! Architecture Invariant: this module names nothing above the foundation. Higher
//! modules own their errors (`search::SearchError`, `search::index::IndexError`,
//! `scry::ScryError`, `repo::RepoError`, `models::ModelsError`) and fold `Error` into
//! them, never the other way round.
//!
//! Corruption is a value, never a panic: every decode of bytes that came from disk or
//! from a user returns one of these.

use std::path::PathBuf;

/// Every error the library returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Open(#[from] OpenError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Opening the mother store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    #[error(
        "{path}: not a readable patina store ({detail}); it was left untouched \
         (`patina mother repair` saves the events that can still be read)"
    )]
    Corrupted { path: PathBuf, detail: String },
    #[error(
        "{path}: the store is in use by another patina process and stayed locked for {waited_secs}s \
         (set PATINA_LOCK_WAIT to wait longer)"
    )]
    Locked { path: PathBuf, waited_secs: u64 },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: store format version {found} is newer than this patina understands ({supported})")]
    UnsupportedVersion { path: PathBuf, found: u32, supported: u32 },
}

/// A read or write against an open store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("store I/O: {0}")]
    Storage(String),
    #[error("store transaction: {0}")]
    Transaction(String),
    #[error("event #{seq} is corrupted: {error}; run `patina mother repair`")]
    CorruptEvent { seq: u64, error: DecodeError },
    /// redb panicked reading the file (see `damage::contain`).
    #[error("store damaged at {path}: {detail}; run `patina mother repair`")]
    Damaged { path: PathBuf, detail: String },
    #[error("the store was opened read-only")]
    ReadOnly,
}

macro_rules! storage_from {
    ($($ty:ty),*) => {$(
        impl From<$ty> for StoreError {
            fn from(err: $ty) -> Self {
                StoreError::Storage(err.to_string())
            }
        }
        impl From<$ty> for Error {
            fn from(err: $ty) -> Self {
                Error::Store(err.into())
            }
        }
    )*};
}
storage_from!(redb::StorageError, redb::TableError, redb::CommitError, redb::CompactionError);

impl From<redb::TransactionError> for StoreError {
    fn from(err: redb::TransactionError) -> Self {
        StoreError::Transaction(err.to_string())
    }
}
impl From<redb::TransactionError> for Error {
    fn from(err: redb::TransactionError) -> Self {
        Error::Store(err.into())
    }
}

/// Bytes that do not decode into an event record.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    #[error("record is empty")]
    Empty,
    #[error("record format {0} is unknown")]
    UnknownFormat(u8),
    #[error("event kind tag {0} is unknown")]
    UnknownKind(u8),
    #[error("event kind {kind} has unknown payload version {version}")]
    UnknownVersion { kind: &'static str, version: u8 },
    #[error("record is truncated or malformed: {0}")]
    Malformed(String),
    #[error("record has {0} trailing bytes")]
    TrailingBytes(usize),
}

/// The registry file could not be read or is invalid.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("{path}:{line}: {message}")]
    Invalid { path: PathBuf, line: usize, message: String },
}

/// A value given by the user (on the command line or through MCP) is not valid.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidInput {
    #[error("unknown node '{id}'{hint}")]
    UnknownNode { id: String, hint: String },
    #[error("unknown edge type '{given}' (valid: USES, LEARNS_FROM, TESTS_WITH, SIBLING, DOMAIN)")]
    UnknownEdgeType { given: String },
    #[error("unknown event kind '{given}' (valid: {valid})")]
    UnknownEventKind { given: String, valid: String },
    #[error("{0}")]
    Other(String),
}
