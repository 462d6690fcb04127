//! The query store: query ids → the query and its ranked hits, in `$PATINA_HOME/scry.redb`.
//!
//! Kept apart from the mother event log so searching never contends with log writers;
//! opened in redb's multi-writer mode so concurrent `scry` processes take turns.
//!
//! Invariant: ids are `q` + lower-case Crockford base32 of a counter that only grows, so
//! an id is never reused for another query; the newest [`KEEP`] queries are kept.
//! Invariant: a stored hit names a chunk by repo, path, chunk id and content hash only;
//! its text is always fetched from the repo's index.

use std::path::Path;

use redb::{ConcurrencyMode, Database, ReadableDatabase, ReadableTable, TableDefinition};

use crate::search::fuse::ChannelScore;

/// Version 2: hits are files with their other matching chunks (`also`); queries stored by
/// older versions live in the old table and are no longer offered.
const QUERIES: TableDefinition<u64, &[u8]> = TableDefinition::new("queries-v2");
const COUNTER: TableDefinition<&str, u64> = TableDefinition::new("counter");
/// Queries kept for `--detail` (older ones are dropped).
pub const KEEP: u64 = 10_000;

/// A stored result row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredHit {
    pub kind: crate::search::HitKind,
    pub repo: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: String,
    pub symbol: String,
    pub summary: String,
    pub fused_score: f32,
    pub lexical: Option<ChannelScore>,
    pub semantic: Option<ChannelScore>,
    pub chunk_id: u64,
    pub chunk_hash: [u8; 32],
    /// Why this repo was searched (`local project`, `via patina TESTS_WITH dojo, …`).
    pub route: String,
    /// The file's other matching chunks (`--detail Q RANK.N` opens the N-th).
    pub also: Vec<StoredChunkRef>,
}

/// Another chunk of a result file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredChunkRef {
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: String,
    pub chunk_id: u64,
    pub chunk_hash: [u8; 32],
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredQuery {
    /// The project the query was routed from, if any (feedback is about its edges).
    pub project: Option<String>,
    pub query: String,
    pub repos: Vec<String>,
    pub ts_ms: i64,
    pub hits: Vec<StoredHit>,
}

/// Reading or writing the query store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryStoreError {
    #[error(
        "{path}: the query store is unreadable ({detail}); delete it to start afresh (only old query ids are lost)"
    )]
    Corrupt { path: String, detail: String },
    #[error("{path}: {detail}")]
    Io { path: String, detail: String },
}

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// `q` + base32 of `n`.
pub fn query_id(n: u64) -> String {
    let mut digits = Vec::new();
    let mut n = n;
    loop {
        digits.push(ALPHABET[(n % 32) as usize]);
        n /= 32;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    format!("q{}", String::from_utf8_lossy(&digits))
}

/// The counter of a query id, or `None` if it is not one.
pub fn parse_query_id(id: &str) -> Option<u64> {
    let body = id.trim().strip_prefix(['q', 'Q'])?;
    if body.is_empty() || body.len() > 12 {
        return None;
    }
    body.bytes().try_fold(0u64, |acc, b| {
        let digit = ALPHABET.iter().position(|&a| a == b.to_ascii_lowercase())? as u64;
        acc.checked_mul(32)?.checked_add(digit)
    })
}

pub struct QueryStore {
    db: Database,
    path: String,
}

impl QueryStore {
    pub fn open(path: &Path) -> Result<QueryStore, QueryStoreError> {
        let shown = path.display().to_string();
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| QueryStoreError::Io { path: shown.clone(), detail: e.to_string() })?;
        }
        let mut builder = Database::builder();
        builder.set_concurrency_mode(ConcurrencyMode::MultiWriter);
        let exists = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let db = if exists { builder.open(path) } else { builder.create(path) }
            .map_err(|e| QueryStoreError::Corrupt { path: shown.clone(), detail: e.to_string() })?;
        Ok(QueryStore { db, path: shown })
    }

    fn err(&self) -> impl Fn(String) -> QueryStoreError + '_ {
        |detail| QueryStoreError::Corrupt { path: self.path.clone(), detail }
    }

    /// Stores a query under a new id and returns the id.
    pub fn insert(&self, query: &StoredQuery) -> Result<String, QueryStoreError> {
        let err = self.err();
        let bytes =
            bincode::serde::encode_to_vec(query, bincode::config::standard()).map_err(|e| err(e.to_string()))?;
        let txn = self.db.begin_write().map_err(|e| err(e.to_string()))?;
        let n;
        {
            let mut counter = txn.open_table(COUNTER).map_err(|e| err(e.to_string()))?;
            n = counter.get("next").map_err(|e| err(e.to_string()))?.map_or(1, |v| v.value());
            counter.insert("next", n + 1).map_err(|e| err(e.to_string()))?;
            let mut queries = txn.open_table(QUERIES).map_err(|e| err(e.to_string()))?;
            queries.insert(n, bytes.as_slice()).map_err(|e| err(e.to_string()))?;
            if n > KEEP {
                queries.remove(n - KEEP).map_err(|e| err(e.to_string()))?;
            }
        }
        txn.commit().map_err(|e| err(e.to_string()))?;
        Ok(query_id(n))
    }

    pub fn get(&self, id: &str) -> Result<Option<StoredQuery>, QueryStoreError> {
        let Some(n) = parse_query_id(id) else { return Ok(None) };
        let err = self.err();
        let txn = self.db.begin_read().map_err(|e| err(e.to_string()))?;
        let queries = match txn.open_table(QUERIES) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(err(e.to_string())),
        };
        let Some(bytes) = queries.get(n).map_err(|e| err(e.to_string()))? else { return Ok(None) };
        bincode::serde::decode_from_slice(bytes.value(), bincode::config::standard())
            .map(|(q, _)| Some(q))
            .map_err(|e| err(format!("query {id}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_ids_round_trip_and_reject_garbage() {
        for n in [0, 1, 31, 32, 1023, 123_456_789] {
            assert_eq!(parse_query_id(&query_id(n)), Some(n));
        }
        assert_eq!(query_id(1), "q1");
        assert_eq!(query_id(32), "q10");
        for bad in ["", "q", "1", "qi", "q../x", "qzzzzzzzzzzzzzz", "x1"] {
            assert_eq!(parse_query_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn insert_then_get() {
        let dir = tempfile::tempdir().unwrap();
        let store = QueryStore::open(&dir.path().join("scry.redb")).unwrap();
        let query =
            StoredQuery { project: None, query: "spawn".into(), repos: vec!["a".into()], ts_ms: 1, hits: vec![] };
        assert_eq!(store.get("q1").unwrap(), None);
        let id = store.insert(&query).unwrap();
        assert_eq!(id, "q1");
        assert_eq!(store.insert(&query).unwrap(), "q2");
        assert_eq!(store.get("Q1").unwrap(), Some(query));
        assert_eq!(store.get("nonsense").unwrap(), None);
    }

    #[test]
    fn a_corrupt_store_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scry.redb");
        std::fs::write(&path, b"definitely not redb").unwrap();
        assert!(matches!(QueryStore::open(&path), Err(QueryStoreError::Corrupt { .. })));
    }
}
