//! A generation's semantic part: which model, which vector file, how many of the
//! generation's chunks have a vector. The lexical part of a generation is written once;
//! its vectors are published after it, as they are embedded (by the build from the cache,
//! then by the background worker), each time as a new file named by `vectors.json`.
//!
//! ```text
//! gen-…/vectors.json          {"model_id", "file", "bytes", "embedded", "chunks", "seq", …}
//! gen-…/vectors-<seq>.usearch the file it names (and the previous one, until the next)
//! ```
//!
//! Invariant: `vectors.json` is replaced by rename only after the file it names was
//! written and synced, so a reader sees a whole set, the old one or the new one.
//! Invariant: one model per set: every vector in the named file was made by `model_id`.
//! Invariant: a generation without `vectors.json` was built lexical-only; with one, its
//! `model_id` is the model the missing chunks are embedded with.
//! Invariant: the file the previous manifest named is kept until the next publication, so
//! a reader that read the old manifest a moment ago still opens its file.
//! Invariant: a vector's key is the id of a chunk of this generation, so semantic results
//! only ever name chunks that were embedded.

use std::io::Write;
use std::path::Path;

use super::vector::{VectorBuilder, VectorError};

/// The manifest's file name.
pub const MANIFEST: &str = "vectors.json";

/// The published vectors of one generation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VectorSet {
    /// The model every vector was made by (and the missing ones are to be made by).
    pub model_id: String,
    /// The usearch file in the generation's directory; `None` while nothing is embedded.
    pub file: Option<String>,
    /// The file's length (checked on open).
    pub bytes: u64,
    /// Chunks with a vector in the file.
    pub embedded: u64,
    /// Chunks in the generation.
    pub chunks: u64,
    /// Publication number, counting from 1 in each generation.
    pub seq: u64,
    pub published_ms: i64,
}

impl VectorSet {
    pub fn is_complete(&self) -> bool {
        self.embedded >= self.chunks
    }
}

/// Reading or publishing a set failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VectorSetError {
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}: not a vector manifest ({detail})")]
    Manifest { path: String, detail: String },
    #[error(transparent)]
    Vector(#[from] VectorError),
}

/// The set published in `gen_dir`, `None` when the generation is lexical-only.
pub fn read(gen_dir: &Path) -> Result<Option<VectorSet>, VectorSetError> {
    let path = gen_dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(VectorSetError::Io { path: path.display().to_string(), error }),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| VectorSetError::Manifest { path: path.display().to_string(), detail: e.to_string() })
}

/// Saves `vectors` as the next file of `gen_dir` and makes it the published set (see the
/// module's invariants); removes the file two publications back.
pub fn publish(
    gen_dir: &Path,
    model_id: &str,
    chunks: u64,
    vectors: &VectorBuilder,
    previous: Option<&VectorSet>,
) -> Result<VectorSet, VectorSetError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |error| VectorSetError::Io { path, error }
    };
    let seq = previous.map_or(0, |p| p.seq) + 1;
    let (file, bytes) = if vectors.is_empty() {
        (None, 0)
    } else {
        let name = format!("vectors-{seq}.usearch");
        let bytes = vectors.save(&gen_dir.join(&name))?;
        (Some(name), bytes)
    };
    let set = VectorSet {
        model_id: model_id.to_string(),
        file,
        bytes,
        embedded: vectors.len() as u64,
        chunks,
        seq,
        published_ms: jiff::Timestamp::now().as_millisecond(),
    };
    let tmp = gen_dir.join(format!("{MANIFEST}.tmp"));
    let json = serde_json::to_vec(&set).unwrap_or_default();
    let mut out = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    out.write_all(&json).and_then(|()| out.sync_all()).map_err(io(&tmp))?;
    let manifest = gen_dir.join(MANIFEST);
    std::fs::rename(&tmp, &manifest).map_err(io(&manifest))?;
    if let Ok(dir) = std::fs::File::open(gen_dir) {
        let _ = dir.sync_all();
    }
    // Keep the file the previous manifest named (a reader may be opening it); remove older.
    let keep: Vec<&str> =
        [set.file.as_deref(), previous.and_then(|p| p.file.as_deref())].into_iter().flatten().collect();
    if let Ok(entries) = std::fs::read_dir(gen_dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("vectors-") && name.ends_with(".usearch") && !keep.contains(&name.as_str()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::{Embedder, HashEmbedder};
    use crate::search::vector::VectorIndex;

    #[test]
    fn publications_replace_the_manifest_and_keep_one_file_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None, "no manifest: lexical-only");
        let vectors = HashEmbedder.embed(&["spawn entity", "cosine similarity", "parse number"]).unwrap();
        let mut builder = VectorBuilder::new(dir.path()).unwrap();
        let empty = publish(dir.path(), "m", 3, &builder, None).unwrap();
        assert_eq!((empty.file.as_deref(), empty.embedded, empty.is_complete()), (None, 0, false));
        let mut previous = empty;
        for (i, v) in vectors.iter().enumerate() {
            builder.add_many(&[(i as u64, v.as_slice())]).unwrap();
            previous = publish(dir.path(), "m", 3, &builder, Some(&previous)).unwrap();
        }
        let set = read(dir.path()).unwrap().unwrap();
        assert_eq!(set, previous);
        assert_eq!((set.seq, set.embedded), (4, 3));
        assert!(set.is_complete());
        let files: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".usearch"))
            .collect();
        assert_eq!(files.len(), 2, "the current file and the one before: {files:?}");
        let index = VectorIndex::open(&dir.path().join(set.file.unwrap()), set.bytes).unwrap();
        assert_eq!(index.search(&vectors[1], 1).unwrap()[0].0, 1);
        assert_eq!(index.get(2).unwrap(), vectors[2]);
        std::fs::write(dir.path().join(MANIFEST), "{").unwrap();
        assert!(matches!(read(dir.path()), Err(VectorSetError::Manifest { .. })));
    }
}
