//! The semantic channel's store: a usearch HNSW index of chunk vectors, one file per
//! index generation, keyed by chunk id.
//!
//! Invariant: the file holds [`DIMENSIONS`]-d `f32` vectors under the cosine metric, and
//! a key is the `chunk_id` of the chunk its vector was embedded from.
//! Invariant: a file is only opened after its header says 384 dimensions and its length
//! matches the length recorded when it was written, so a truncated or foreign file is an
//! error value rather than a crash inside the C++ library.

use std::path::Path;

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::embed::DIMENSIONS;

/// Building, writing or opening a vector file failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    #[error("{path}: {detail}")]
    Usearch { path: String, detail: String },
    #[error("{path}: vector file is {found} bytes, expected {expected} (truncated or replaced)")]
    Length { path: String, found: u64, expected: u64 },
    #[error("{path}: vectors have {found} dimensions, expected {DIMENSIONS}")]
    Dimensions { path: String, found: u64 },
    #[error("vector for chunk {key} has {found} dimensions, expected {DIMENSIONS}")]
    BadVector { key: u64, found: usize },
}

fn options() -> IndexOptions {
    // The defaults are BF16 with 256 dimensions: say what we store.
    IndexOptions {
        dimensions: DIMENSIONS,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F32,
        connectivity: 16,
        expansion_add: 128,
        expansion_search: 64,
        multi: false,
    }
}

fn usearch_err<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> VectorError + '_ {
    move |e| VectorError::Usearch { path: path.display().to_string(), detail: e.to_string() }
}

/// Builds an index over `vectors` (`(chunk_id, vector)`) and saves it to `path`; returns
/// the file's length (to be recorded and checked by [`VectorIndex::open`]).
pub fn write(path: &Path, vectors: &[(u64, &[f32])]) -> Result<u64, VectorError> {
    let mut builder = VectorBuilder::new(path)?;
    builder.add_many(vectors)?;
    builder.save(path)
}

/// An index being grown in memory (by a build, or by the embedding worker step by step),
/// saved to a new file whenever its vectors are to be published.
pub struct VectorBuilder {
    index: Index,
    threads: usize,
}

impl VectorBuilder {
    /// An empty index (`path` only names it in errors).
    pub fn new(path: &Path) -> Result<VectorBuilder, VectorError> {
        let index = Index::new(&options()).map_err(usearch_err(path))?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
        Ok(VectorBuilder { index, threads })
    }

    /// The index saved at `path` (checked as [`VectorIndex::open`] checks it), loaded into
    /// memory to grow.
    pub fn load(path: &Path, expected_len: u64) -> Result<VectorBuilder, VectorError> {
        let path_str = checked(path, expected_len)?;
        let builder = VectorBuilder::new(path)?;
        builder.index.load(path_str).map_err(usearch_err(path))?;
        Ok(builder)
    }

    pub fn len(&self) -> usize {
        self.index.size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, key: u64) -> bool {
        self.index.contains(key)
    }

    /// Adds vectors (in parallel when there are many); a key already present is skipped.
    pub fn add_many(&mut self, vectors: &[(u64, &[f32])]) -> Result<(), VectorError> {
        if let Some((key, v)) = vectors.iter().find(|(_, v)| v.len() != DIMENSIONS) {
            return Err(VectorError::BadVector { key: *key, found: v.len() });
        }
        let fresh: Vec<&(u64, &[f32])> = vectors.iter().filter(|(k, _)| !self.index.contains(*k)).collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let needed = self.index.size() + fresh.len();
        if needed > self.index.capacity() {
            // Grow geometrically: the worker adds a step at a time.
            let capacity = needed.max(self.index.capacity() * 2).max(64);
            self.index
                .reserve_capacity_and_threads(capacity, self.threads)
                .map_err(|e| VectorError::Usearch { path: "(adding)".into(), detail: e.to_string() })?;
        }
        let threads = if fresh.len() >= 256 { self.threads } else { 1 };
        let failure = std::sync::Mutex::new(None);
        std::thread::scope(|scope| {
            for part in fresh.chunks(fresh.len().div_ceil(threads).max(1)) {
                let (index, failure) = (&self.index, &failure);
                scope.spawn(move || {
                    for (key, vector) in part {
                        if let Err(e) = index.add(*key, vector) {
                            *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
                            return;
                        }
                    }
                });
            }
        });
        match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(detail) => Err(VectorError::Usearch { path: "(adding)".into(), detail }),
            None => Ok(()),
        }
    }

    /// Relabels a loaded index for a new generation: keeps the vectors of the old keys in
    /// `moved` (`(old key, new key)`) under their new keys and removes every other key
    /// below `old_len`. Removed entries stay in the graph as tombstones (search skips them,
    /// later adds reuse their slots). Returns how many vectors were kept.
    pub fn relabel(&mut self, moved: &[(u64, u64)], old_len: u64) -> Result<usize, VectorError> {
        // New keys may collide with old keys not renamed yet: rename through a namespace
        // no chunk id reaches.
        const STAGED: u64 = 1 << 62;
        fn err(e: impl std::fmt::Display) -> VectorError {
            VectorError::Usearch { path: "(relabelling)".into(), detail: e.to_string() }
        }
        let kept: std::collections::HashSet<u64> =
            moved.iter().map(|&(old, _)| old).filter(|&old| self.index.contains(old)).collect();
        for key in 0..old_len {
            if !kept.contains(&key) && self.index.contains(key) {
                self.index.remove(key).map_err(err)?;
            }
        }
        for &(old, new) in moved.iter().filter(|(old, _)| kept.contains(old)) {
            self.index.rename(old, new | STAGED).map_err(err)?;
        }
        for &(_, new) in moved.iter().filter(|(old, _)| kept.contains(old)) {
            self.index.rename(new | STAGED, new).map_err(err)?;
        }
        Ok(kept.len())
    }

    /// Saves the index to `path`, synced; returns the file's length.
    pub fn save(&self, path: &Path) -> Result<u64, VectorError> {
        let path_str = path.to_str().ok_or_else(|| VectorError::Usearch {
            path: path.display().to_string(),
            detail: "path is not UTF-8".into(),
        })?;
        if self.index.capacity() == 0 {
            // usearch cannot save an index that never reserved memory.
            self.index.reserve(1).map_err(usearch_err(path))?;
        }
        self.index.save(path_str).map_err(usearch_err(path))?;
        std::fs::File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| VectorError::Usearch { path: path.display().to_string(), detail: e.to_string() })?;
        Ok(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
    }
}

/// Checks that the file at `path` has the recorded length and 384-d vectors.
fn checked(path: &Path, expected_len: u64) -> Result<&str, VectorError> {
    let shown = path.display().to_string();
    let found =
        std::fs::metadata(path).map_err(|e| VectorError::Usearch { path: shown.clone(), detail: e.to_string() })?.len();
    if found != expected_len {
        return Err(VectorError::Length { path: shown, found, expected: expected_len });
    }
    let path_str = path
        .to_str()
        .ok_or_else(|| VectorError::Usearch { path: shown.clone(), detail: "path is not UTF-8".into() })?;
    let meta = Index::metadata(path_str).map_err(usearch_err(path))?;
    if meta.dimensions != DIMENSIONS as u64 {
        return Err(VectorError::Dimensions { path: shown, found: meta.dimensions });
    }
    Ok(path_str)
}

/// An open (memory-mapped) vector index.
pub struct VectorIndex {
    index: Index,
}

impl VectorIndex {
    pub fn open(path: &Path, expected_len: u64) -> Result<VectorIndex, VectorError> {
        let path_str = checked(path, expected_len)?;
        let err = usearch_err(path);
        let index = Index::new(&options()).map_err(&err)?;
        index.view(path_str).map_err(&err)?;
        Ok(VectorIndex { index })
    }

    /// The stored vector of chunk `key`, if it has one.
    pub fn get(&self, key: u64) -> Option<Vec<f32>> {
        let mut buffer = vec![0f32; DIMENSIONS];
        match self.index.get(key, &mut buffer) {
            Ok(n) if n > 0 => Some(buffer),
            _ => None,
        }
    }

    /// The `limit` nearest chunks: `(chunk_id, cosine similarity)`, best first.
    pub fn search(&self, query: &[f32], limit: usize) -> Result<Vec<(u64, f32)>, VectorError> {
        if query.len() != DIMENSIONS {
            return Err(VectorError::BadVector { key: 0, found: query.len() });
        }
        if limit == 0 || self.index.size() == 0 {
            return Ok(Vec::new());
        }
        let matches = self
            .index
            .search(query, limit)
            .map_err(|e| VectorError::Usearch { path: "(search)".into(), detail: e.to_string() })?;
        Ok(matches.keys.into_iter().zip(matches.distances).map(|(k, d)| (k, 1.0 - d)).collect())
    }

    pub fn len(&self) -> usize {
        self.index.size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::{Embedder, HashEmbedder};

    #[test]
    fn write_open_search_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let texts = ["spawn entity world", "cosine similarity of vectors", "parse a number"];
        let vectors = HashEmbedder.embed(&texts).unwrap();
        let keyed: Vec<(u64, &[f32])> =
            vectors.iter().enumerate().map(|(i, v)| (i as u64 + 10, v.as_slice())).collect();
        let len = write(&path, &keyed).unwrap();
        let index = VectorIndex::open(&path, len).unwrap();
        assert_eq!(index.len(), 3);
        let hits = index.search(&vectors[1], 2).unwrap();
        assert_eq!(hits[0].0, 11);
        assert!((hits[0].1 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn truncated_or_garbage_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        std::fs::write(&path, b"not a usearch file at all").unwrap();
        assert!(VectorIndex::open(&path, 25).is_err());
        assert!(matches!(VectorIndex::open(&path, 99), Err(VectorError::Length { .. })));
        assert!(VectorIndex::open(&dir.path().join("missing"), 0).is_err());
    }

    #[test]
    fn wrong_dimensions_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let short = [0.5f32; 3];
        assert!(matches!(write(&dir.path().join("v"), &[(1, &short[..])]), Err(VectorError::BadVector { .. })));
    }
}
