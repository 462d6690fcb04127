//! One repo's embedding cache, `repos/<id>/cache.redb`: vectors by (model, chunk content
//! hash). Builds read it to publish what is already embedded; the embedding worker
//! (`backfill`) writes it step by step.
//!
//! Invariant: a key covers the model id and the chunk's content hash ([`key`]), so a
//! vector is only ever found for the model that made it: vectors of two models never mix.
//! Invariant: the file is opened in redb's `MultiWriter` mode, so a build and the worker
//! hold it side by side; each step of the worker is one durable write transaction, so a
//! killed worker loses at most the step it was embedding.
//! Invariant: a cache is only a cache: a file that does not open as one is replaced by an
//! empty cache (what it held is embedded again).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use redb::{ConcurrencyMode, Database, ReadOnlyTable, ReadableDatabase, TableDefinition};

use super::embed::DIMENSIONS;

const VECTORS: TableDefinition<&[u8; 32], &[u8]> = TableDefinition::new("vectors");

/// The cache could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[error("vector cache {path}: {detail}")]
pub struct CacheError {
    pub path: PathBuf,
    pub detail: String,
}

/// The key of a chunk's vector made by `model_id`.
pub fn key(model_id: &str, hash: &[u8; 32]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(model_id.as_bytes());
    hasher.update(&[0]);
    hasher.update(hash);
    *hasher.finalize().as_bytes()
}

/// An open cache.
pub struct VectorCache {
    db: Database,
    path: PathBuf,
}

/// A snapshot of the cache for lookups.
pub struct CacheReader {
    table: Option<ReadOnlyTable<&'static [u8; 32], &'static [u8]>>,
    path: PathBuf,
}

/// redb's page cache for this file: lookups and step-sized inserts need little, and the
/// default (1 GiB) would keep every vector read at a worker's start a second time in memory.
const CACHE_BYTES: usize = 16 << 20;

fn builder() -> redb::Builder {
    let mut builder = Database::builder();
    builder.set_concurrency_mode(ConcurrencyMode::MultiWriter).set_cache_size(CACHE_BYTES);
    builder
}

impl VectorCache {
    /// Opens (or creates) `cache.redb` in `repo_dir`, which must exist: it is never created
    /// here (a worker whose repo was removed must not bring its directory back).
    pub fn open(repo_dir: &Path) -> Result<VectorCache, CacheError> {
        let path = repo_dir.join("cache.redb");
        let err = |detail: String| CacheError { path: path.clone(), detail };
        if !repo_dir.is_dir() {
            return Err(err("the index directory is gone".into()));
        }
        let opened = if std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
            builder().open(&path)
        } else {
            builder().create(&path)
        };
        let db = match opened {
            Ok(db) => db,
            Err(e @ (redb::DatabaseError::DatabaseAlreadyOpen | redb::DatabaseError::LockProtocolMismatch)) => {
                return Err(err(format!("{e} (an older patina is indexing this repo?)")));
            }
            Err(_) => {
                let _ = std::fs::remove_file(&path);
                builder().create(&path).map_err(|e| err(e.to_string()))?
            }
        };
        Ok(VectorCache { db, path })
    }

    fn err(&self, e: impl std::fmt::Display) -> CacheError {
        CacheError { path: self.path.clone(), detail: e.to_string() }
    }

    /// A snapshot for lookups (later writes are not seen by it).
    pub fn reader(&self) -> Result<CacheReader, CacheError> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let table = match txn.open_table(VECTORS) {
            Ok(table) => Some(table),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(self.err(e)),
        };
        Ok(CacheReader { table, path: self.path.clone() })
    }

    /// Stores vectors, in one durable transaction.
    pub fn insert(&self, entries: &[([u8; 32], &[f32])]) -> Result<(), CacheError> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut table = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            for (key, vector) in entries {
                let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
                table.insert(key, bytes.as_slice()).map_err(|e| self.err(e))?;
            }
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// Keeps only the vectors whose key is in `keep` (those the live generation uses).
    pub fn retain(&self, keep: &HashSet<[u8; 32]>) -> Result<(), CacheError> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut table = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            table.retain(|k, _| keep.contains(k)).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }
}

impl CacheReader {
    /// The vector under `key`, if cached (a stored value of the wrong size counts as absent).
    pub fn get(&self, key: &[u8; 32]) -> Result<Option<Vec<f32>>, CacheError> {
        let Some(table) = &self.table else { return Ok(None) };
        let err = |e: redb::StorageError| CacheError { path: self.path.clone(), detail: e.to_string() };
        Ok(table.get(key).map_err(err)?.and_then(|v| floats(v.value())))
    }
}

fn floats(bytes: &[u8]) -> Option<Vec<f32>> {
    (bytes.len() == DIMENSIONS * 4)
        .then(|| bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_found_only_under_their_model_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let hash = [7u8; 32];
        let vector = vec![0.5f32; DIMENSIONS];
        {
            let cache = VectorCache::open(dir.path()).unwrap();
            cache.insert(&[(key("model-a", &hash), vector.as_slice())]).unwrap();
        }
        let cache = VectorCache::open(dir.path()).unwrap();
        let reader = cache.reader().unwrap();
        assert_eq!(reader.get(&key("model-a", &hash)).unwrap(), Some(vector));
        assert_eq!(reader.get(&key("model-b", &hash)).unwrap(), None, "another model's key misses");
    }

    #[test]
    fn two_handles_write_side_by_side_and_garbage_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let a = VectorCache::open(dir.path()).unwrap();
        let b = VectorCache::open(dir.path()).unwrap();
        let v = vec![1.0f32; DIMENSIONS];
        a.insert(&[([1; 32], v.as_slice())]).unwrap();
        b.insert(&[([2; 32], v.as_slice())]).unwrap();
        assert!(a.reader().unwrap().get(&[2; 32]).unwrap().is_some());
        drop((a, b));
        std::fs::write(dir.path().join("cache.redb"), b"not a database").unwrap();
        let cache = VectorCache::open(dir.path()).unwrap();
        assert!(cache.reader().unwrap().get(&[1; 32]).unwrap().is_none());
        assert!(VectorCache::open(&dir.path().join("gone")).is_err(), "a missing directory is not created");
    }
}
