//! One repository's search index: building it (from scratch or incrementally), switching
//! generations atomically, and opening it for queries.
//!
//! ```text
//! $PATINA_HOME/repos/<id>/
//!   current              name of the live generation ("gen-…"), replaced by rename
//!   gen-<ms>-<pid>/      one complete generation
//!     chunks.redb        chunk records, the file manifest (path → content hash, chunk ids), meta
//!     text/              tantivy index of chunks (the lexical channel's snippets)
//!     files/             tantivy index of whole files (the lexical channel's ranking)
//!     vectors.json       the published vectors (`vector_set`), absent when built lexical-only
//!     vectors-<n>.usearch  usearch index of the chunks embedded so far (semantic channel)
//!   cache.redb           embeddings by (model, content hash) (`cache`)
//!   build.lock           held by the one build of this repo at a time (`lock`)
//!   embed.lock, embed.json  the repo's embedder and its progress (`backfill`)
//! ```
//!
//! A build ([`build_lexical`]) writes the lexical part and publishes the vectors the cache
//! already has, then makes the generation live: search works at once. The chunks still
//! without a vector are embedded afterwards by `backfill` (the background worker, or
//! [`build`] in the foreground), which publishes vectors into the live generation.
//!
//! Invariant: `current` only ever names a generation whose lexical part and first vector
//! set were written and synced, so a killed build leaves the previous generation live
//! and untouched; the next build deletes the half-written directory.
//! Invariant: a build reads every file, but chunks only files whose BLAKE3 hash changed
//! (others reuse their chunk records), and never embeds: only `backfill` does, and only
//! chunks whose (model, path, text) hash is not in `cache.redb`.
//! Invariant: the index is derived data: deleting `repos/<id>/` loses nothing that a
//! rebuild from the repository cannot restore.
//! Invariant: chunk text is only ever served from `chunks.redb`; nothing here opens a
//! file outside the repository root that the walk found (symlinks are not followed).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use redb::{Database, ReadOnlyDatabase, ReadableDatabase, ReadableTable, TableDefinition};

use super::backfill;
use super::cache::{self, CacheError, VectorCache};
use super::chunk::{self, Chunk, SkipReason};
use super::embed::{EmbedError, Embedder};
use super::lock;
use super::text::{CorpusStats, TextIndex, TextIndexWriter, Weights};
use super::vector::{VectorBuilder, VectorError, VectorIndex};
use super::vector_set::{self, VectorSet};

const CHUNKS: TableDefinition<u64, &[u8]> = TableDefinition::new("chunks");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// Bumped when the layout of a generation changes; older generations are rebuilt.
/// 3: vectors published apart from the lexical part (`vectors.json`), not in the meta.
pub const FORMAT: u32 = 3;
/// Cached vectors added to a new generation's vector index per batch.
const PUBLISH_BATCH: usize = 1024;
/// redb's page cache for reading a generation's chunk store.
const CHUNKS_CACHE_BYTES: usize = 32 << 20;
/// Directory names never indexed: vendored code, environments, caches.
const SKIP_DIRS: [&str; 7] = ["vendor", "node_modules", "third_party", "__pycache__", "venv", ".venv", ".git"];
/// Directory names of build output, skipped unless inside a `src` directory (where they
/// are source: SvelteKit's `src/exports/vite/build/`, a `src/build/` module).
const BUILD_DIRS: [&str; 3] = ["target", "dist", "build"];

/// Whether the walk skips this directory (`rel`: its path relative to the repo root).
fn skip_dir(rel: &Path) -> bool {
    let Some(name) = rel.file_name().map(|n| n.to_string_lossy()) else { return false };
    if SKIP_DIRS.contains(&name.as_ref()) {
        return true;
    }
    BUILD_DIRS.contains(&name.as_ref())
        && !rel.parent().is_some_and(|parent| parent.components().any(|c| c.as_os_str() == "src"))
}

/// Building or opening an index failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    #[error("{path}: not a directory (is the repository still there?)")]
    RootMissing { path: PathBuf },
    #[error("repo '{repo}' is being indexed by another patina process; try again when it is done")]
    Busy { repo: String },
    #[error("repo '{repo}' has no search index yet (run `patina repo update {repo}`)")]
    NotIndexed { repo: String },
    #[error("the search index of '{repo}' is unreadable ({detail}); rebuild it with `patina repo update {repo}`")]
    Corrupt { repo: String, detail: String },
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error("writing the index of '{repo}': {detail}")]
    Write { repo: String, detail: String },
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Cache(#[from] CacheError),
}

/// A chunk as stored, with the content hash that keys its embedding.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredChunk {
    pub chunk: Chunk,
    /// BLAKE3 of the embedding input (path and text); the same for every model.
    pub hash: [u8; 32],
}

/// The manifest entry of one indexed file.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct FileEntry {
    hash: [u8; 32],
    first_chunk: u64,
    n_chunks: u32,
}

/// A generation's description (of its lexical part: the vectors are described by its
/// [`VectorSet`], published apart).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct IndexMeta {
    pub format: u32,
    pub repo: String,
    pub root: String,
    pub generation: String,
    pub files: u64,
    pub chunks: u64,
    pub built_ms: i64,
    pub skipped: u64,
}

/// A file the build did not index, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// What a build did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BuildReport {
    pub repo: String,
    pub generation: String,
    pub files: u64,
    /// Files read and chunked because they are new or changed.
    pub files_changed: u64,
    pub files_unchanged: u64,
    /// Files in the previous generation that are gone.
    pub files_removed: u64,
    pub chunks: u64,
    /// Chunks embedded by this command (in the foreground: [`build`], `--wait`).
    pub chunks_embedded: u64,
    /// Chunks whose vector came from the cache.
    pub chunks_cached: u64,
    /// Chunks still without a vector when the command returned (the background worker
    /// embeds them).
    pub chunks_pending: u64,
    /// The embedding model, or `None` when built lexical-only.
    pub model_id: Option<String>,
    /// What becomes of the chunks without a vector: `off` (lexical only), `complete`
    /// (none left), `pending` (left for `repo embed`), `background` (a worker embeds them).
    pub embedding: &'static str,
    pub skipped: Vec<Skipped>,
    /// Files ignored because they are not source or documentation (not listed).
    pub not_source: u64,
    pub index_bytes: u64,
    pub elapsed_ms: u64,
    pub embed_ms: u64,
    /// Nothing changed since the live generation (same files, root and model): it was
    /// kept as it is and nothing was written.
    pub up_to_date: bool,
}

/// Where a build is, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Scan,
    Embed,
    Write,
}

/// Progress callback: `(phase, done, total)`.
pub type Progress<'a> = &'a mut dyn FnMut(Phase, u64, u64);

fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, bincode::config::standard()).unwrap_or_default()
}

fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard()).map(|(v, _)| v).map_err(|e| e.to_string())
}

/// Hash keying a chunk's embedding: what the model sees.
pub fn embed_input(chunk: &Chunk) -> String {
    format!("{}\n{}", chunk.path, chunk.text)
}

fn is_generation_name(name: &str) -> bool {
    name.strip_prefix("gen-")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '-'))
}

/// The name of the live generation of the index in `repo_dir`, if any (one small read).
pub fn live_generation_name(repo_dir: &Path) -> Option<String> {
    current_generation(repo_dir).map(|(name, _)| name)
}

/// The live generation's name and directory, if `current` names a valid one.
pub fn current_generation(repo_dir: &Path) -> Option<(String, PathBuf)> {
    let name = std::fs::read_to_string(repo_dir.join("current")).ok()?;
    let name = name.trim().to_string();
    is_generation_name(&name).then(|| (name.clone(), repo_dir.join(name)))
}

/// Builds a new generation of `repo`'s index and embeds every chunk in this process
/// before returning: [`build_lexical`], then `backfill` (waiting for a background
/// embedder of the repo to let go first). `embedder` `None` builds the lexical channel only.
pub fn build(
    repo_dir: &Path,
    repo: &str,
    root: &Path,
    embedder: Option<&mut dyn Embedder>,
    progress: Progress<'_>,
) -> Result<BuildReport, IndexError> {
    let model_id = embedder.as_ref().map(|e| e.model_id().to_string());
    let mut report = build_lexical(repo_dir, repo, root, model_id.as_deref(), progress)?;
    if let Some(embedder) = embedder
        && report.chunks_pending > 0
    {
        let started = Instant::now();
        let config = backfill::Config { wait_for_lock: true, ..backfill::Config::default() };
        let mut on_step = |p: &backfill::Progress| progress(Phase::Embed, p.done, p.total);
        let done = backfill::run(repo_dir, embedder, &config, &mut on_step, &|| false)?;
        report.chunks_embedded = done.embedded_now;
        report.chunks_pending = done.pending;
        report.embedding = embedding_plan(&report);
        report.embed_ms = started.elapsed().as_millis() as u64;
        report.elapsed_ms += report.embed_ms;
        report.index_bytes = current_generation(repo_dir).map_or(0, |(_, dir)| dir_size(&dir));
    }
    Ok(report)
}

/// How long a build waits for another build of the same repo (`PATINA_LOCK_WAIT`
/// seconds, default 30).
fn build_lock_wait() -> std::time::Duration {
    let secs = std::env::var("PATINA_LOCK_WAIT").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    std::time::Duration::from_secs(secs)
}

/// Takes `build.lock`, waiting a while for another build of the repo to finish.
fn build_lock(repo_dir: &Path, repo: &str) -> Result<lock::FileLock, IndexError> {
    let path = repo_dir.join("build.lock");
    let started = Instant::now();
    loop {
        match lock::try_lock(&path) {
            Ok(Some(held)) => return Ok(held),
            Ok(None) if started.elapsed() < build_lock_wait() => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Ok(None) => return Err(IndexError::Busy { repo: repo.to_string() }),
            Err(error) => return Err(IndexError::Io { path, error }),
        }
    }
}

/// Builds a new generation of `repo`'s index from the files under `root` and makes it
/// live: the lexical part, and with `model_id` the vectors of that model already in the
/// cache (a `VectorSet`); the chunks without one are counted in `chunks_pending` for
/// `backfill`. `model_id` `None` builds the lexical channel only. Never embeds.
pub fn build_lexical(
    repo_dir: &Path,
    repo: &str,
    root: &Path,
    model_id: Option<&str>,
    progress: Progress<'_>,
) -> Result<BuildReport, IndexError> {
    let started = Instant::now();
    if !root.is_dir() {
        return Err(IndexError::RootMissing { path: root.to_path_buf() });
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| IndexError::Io { path, error }
    };
    let write_err = |detail: String| IndexError::Write { repo: repo.to_string(), detail };
    std::fs::create_dir_all(repo_dir).map_err(io(repo_dir))?;

    // One builder per repo at a time.
    let _build_lock = build_lock(repo_dir, repo)?;

    // Remove generations a killed build left behind.
    let live = current_generation(repo_dir);
    for entry in std::fs::read_dir(repo_dir).map_err(io(repo_dir))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_generation_name(&name) && live.as_ref().is_none_or(|(n, _)| *n != name) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let previous = live.as_ref().and_then(|(_, dir)| Generation::open(repo, dir).ok());

    // 1. Walk and chunk (reusing unchanged files' chunks).
    let mut report = BuildReport {
        repo: repo.to_string(),
        generation: String::new(),
        files: 0,
        files_changed: 0,
        files_unchanged: 0,
        files_removed: 0,
        chunks: 0,
        chunks_embedded: 0,
        chunks_cached: 0,
        chunks_pending: 0,
        model_id: model_id.map(str::to_string),
        embedding: "off",
        skipped: Vec::new(),
        not_source: 0,
        index_bytes: 0,
        elapsed_ms: 0,
        embed_ms: 0,
        up_to_date: false,
    };
    let files = walk(root, &mut report);
    let mut chunks: Vec<StoredChunk> = Vec::new();
    let mut manifest: Vec<(String, FileEntry)> = Vec::new();
    // `(id in the previous generation, id in this one)` of every chunk reused unchanged.
    let mut moved: Vec<(u64, u64)> = Vec::new();
    let total = files.len() as u64;
    for (done, (rel, abs)) in files.into_iter().enumerate() {
        progress(Phase::Scan, done as u64, total);
        let bytes = match crate::safe_read::read_regular(&abs, chunk::MAX_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                report.skipped.push(Skipped { path: rel, reason: format!("{}: {e}", SkipReason::Unreadable.as_str()) });
                continue;
            }
        };
        let hash = *blake3::hash(&bytes).as_bytes();
        let first_chunk = chunks.len() as u64;
        let reused = previous.as_ref().and_then(|prev| prev.file_chunks(&rel, &hash));
        let file_chunks: Vec<StoredChunk> = match reused {
            Some((old_first, stored)) => {
                report.files_unchanged += 1;
                moved.extend((0..stored.len() as u64).map(|i| (old_first + i, first_chunk + i)));
                stored
            }
            None => {
                let text = match chunk::classify(&bytes) {
                    Ok(text) => text,
                    Err(reason) => {
                        report.skipped.push(Skipped { path: rel, reason: reason.as_str().to_string() });
                        continue;
                    }
                };
                report.files_changed += 1;
                let language = chunk::language_of(&rel).unwrap_or("text");
                chunk::chunk_file(&rel, language, text)
                    .into_iter()
                    .map(|c| StoredChunk { hash: *blake3::hash(embed_input(&c).as_bytes()).as_bytes(), chunk: c })
                    .collect()
            }
        };
        manifest.push((rel, FileEntry { hash, first_chunk, n_chunks: file_chunks.len() as u32 }));
        chunks.extend(file_chunks);
    }
    progress(Phase::Scan, total, total);
    if let Some(prev) = &previous {
        let now: std::collections::HashSet<&str> = manifest.iter().map(|(p, _)| p.as_str()).collect();
        report.files_removed = prev.file_paths().iter().filter(|p| !now.contains(p.as_str())).count() as u64;
    }
    report.files = manifest.len() as u64;
    report.chunks = chunks.len() as u64;

    // Nothing changed: keep the live generation (if it opens whole) and write nothing.
    if let (Some(prev), Some((name, dir))) = (&previous, &live)
        && report.files_changed == 0
        && report.files_removed == 0
        && prev.meta.root == root.display().to_string()
        && prev.vector_set.as_ref().map(|s| s.model_id.as_str()) == model_id
        && open(repo_dir, repo).is_ok()
    {
        report.files_unchanged = report.files;
        if let Some(set) = &prev.vector_set {
            report.chunks_cached = set.embedded;
            report.chunks_pending = set.chunks.saturating_sub(set.embedded);
        }
        report.embedding = embedding_plan(&report);
        report.generation = name.clone();
        report.index_bytes = dir_size(dir);
        report.up_to_date = true;
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        progress(Phase::Write, 1, 1);
        return Ok(report);
    }

    // 2. Write the new generation beside the live one: the lexical part, then the vectors
    // the cache already has.
    progress(Phase::Write, 0, 1);
    let generation = format!("gen-{}-{}", jiff::Timestamp::now().as_millisecond(), std::process::id());
    let gen_dir = repo_dir.join(&generation);
    std::fs::create_dir_all(gen_dir.join("text")).map_err(io(&gen_dir))?;
    std::fs::create_dir_all(gen_dir.join("files")).map_err(io(&gen_dir))?;
    let mut text = TextIndexWriter::create(&gen_dir.join("text")).map_err(|e| write_err(e.to_string()))?;
    let mut files = TextIndexWriter::create(&gen_dir.join("files")).map_err(|e| write_err(e.to_string()))?;
    for (path, entry) in &manifest {
        let range = entry.first_chunk as usize..(entry.first_chunk as usize + entry.n_chunks as usize);
        let file_chunks = &chunks[range];
        for (i, stored) in file_chunks.iter().enumerate() {
            let c = &stored.chunk;
            text.add(entry.first_chunk + i as u64, entry.first_chunk, &c.path, &c.symbol, &c.text)
                .map_err(|e| write_err(e.to_string()))?;
        }
        if !file_chunks.is_empty() {
            let symbols: Vec<&str> =
                file_chunks.iter().map(|s| s.chunk.symbol.as_str()).filter(|s| !s.is_empty()).collect();
            let body: Vec<&str> = file_chunks.iter().map(|s| s.chunk.text.as_str()).collect();
            files
                .add(entry.first_chunk, entry.first_chunk, path, &symbols.join("\n"), &body.join("\n"))
                .map_err(|e| write_err(e.to_string()))?;
        }
    }
    text.finish().map_err(|e| write_err(e.to_string()))?;
    files.finish().map_err(|e| write_err(e.to_string()))?;
    let meta = IndexMeta {
        format: FORMAT,
        repo: repo.to_string(),
        root: root.display().to_string(),
        generation: generation.clone(),
        files: report.files,
        chunks: report.chunks,
        built_ms: jiff::Timestamp::now().as_millisecond(),
        skipped: report.skipped.len() as u64,
    };
    write_chunks_db(&gen_dir.join("chunks.redb"), &chunks, &manifest, &meta).map_err(write_err)?;
    let cache = match model_id {
        Some(model_id) => {
            let cache = VectorCache::open(repo_dir)?;
            // The previous generation's vectors of this model, relabelled, instead of
            // building the index again from the cache (≈ 16 s per 92k vectors here).
            let reuse = previous.as_ref().and_then(|prev| {
                let set = prev.vector_set.as_ref().filter(|s| s.model_id == model_id)?;
                Some(Reuse { file: prev.dir.join(set.file.as_ref()?), bytes: set.bytes, old_chunks: prev.meta.chunks })
            });
            let set =
                publish_cached(&gen_dir, &cache, model_id, &chunks, reuse.as_ref().map(|r| (r, moved.as_slice())))
                    .map_err(|e| write_err(e.to_string()))?;
            report.chunks_cached = set.embedded;
            report.chunks_pending = set.chunks - set.embedded;
            Some((cache, model_id))
        }
        None => None,
    };
    sync_dir(&gen_dir);

    // 3. Switch: write `current.tmp`, sync, rename over `current`.
    let tmp = repo_dir.join("current.tmp");
    let mut file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    file.write_all(generation.as_bytes()).and_then(|()| file.sync_all()).map_err(io(&tmp))?;
    std::fs::rename(&tmp, repo_dir.join("current")).map_err(io(repo_dir))?;
    sync_dir(repo_dir);
    drop(previous);
    if let Some((_, old)) = live {
        let _ = std::fs::remove_dir_all(old);
    }
    // Keep the cache to what the live generation uses (when it uses the cache).
    if let Some((cache, model_id)) = cache {
        let live_keys: std::collections::HashSet<[u8; 32]> =
            chunks.iter().map(|c| cache::key(model_id, &c.hash)).collect();
        let _ = cache.retain(&live_keys);
    }
    report.embedding = embedding_plan(&report);
    report.generation = generation;
    report.index_bytes = dir_size(&gen_dir);
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    progress(Phase::Write, 1, 1);
    Ok(report)
}

fn embedding_plan(report: &BuildReport) -> &'static str {
    match (&report.model_id, report.chunks_pending) {
        (None, _) => "off",
        (Some(_), 0) => "complete",
        (Some(_), _) => "pending",
    }
}

/// The previous generation's published vectors, to be relabelled for the new one.
struct Reuse {
    file: PathBuf,
    bytes: u64,
    old_chunks: u64,
}

/// Publishes the first vector set of a new generation: the previous generation's vectors
/// of the unchanged chunks under their new ids (`reuse`, with `moved`: old id → new id),
/// then the vectors of `model_id` the cache has for the other chunks (added in batches,
/// so they are never all in memory twice).
fn publish_cached(
    gen_dir: &Path,
    cache: &VectorCache,
    model_id: &str,
    chunks: &[StoredChunk],
    reuse: Option<(&Reuse, &[(u64, u64)])>,
) -> Result<VectorSet, Box<dyn std::error::Error>> {
    let reader = cache.reader()?;
    let reused = reuse.and_then(|(r, moved)| {
        let mut builder = VectorBuilder::load(&r.file, r.bytes).ok()?;
        builder.relabel(moved, r.old_chunks).ok()?;
        Some(builder)
    });
    let mut builder = match reused {
        Some(builder) => builder,
        None => VectorBuilder::new(gen_dir)?,
    };
    let mut batch: Vec<(u64, Vec<f32>)> = Vec::with_capacity(PUBLISH_BATCH);
    let flush = |builder: &mut VectorBuilder, batch: &mut Vec<(u64, Vec<f32>)>| {
        let keyed: Vec<(u64, &[f32])> = batch.iter().map(|(id, v)| (*id, v.as_slice())).collect();
        let added = builder.add_many(&keyed);
        batch.clear();
        added
    };
    for (id, stored) in chunks.iter().enumerate() {
        if builder.contains(id as u64) {
            continue;
        }
        if let Some(vector) = reader.get(&cache::key(model_id, &stored.hash))? {
            batch.push((id as u64, vector));
            if batch.len() == PUBLISH_BATCH {
                flush(&mut builder, &mut batch)?;
            }
        }
    }
    flush(&mut builder, &mut batch)?;
    Ok(vector_set::publish(gen_dir, model_id, chunks.len() as u64, &builder, None)?)
}

fn write_chunks_db(
    path: &Path,
    chunks: &[StoredChunk],
    manifest: &[(String, FileEntry)],
    meta: &IndexMeta,
) -> Result<(), String> {
    let db = Database::create(path).map_err(|e| e.to_string())?;
    let txn = db.begin_write().map_err(|e| e.to_string())?;
    {
        let mut table = txn.open_table(CHUNKS).map_err(|e| e.to_string())?;
        for (id, chunk) in chunks.iter().enumerate() {
            table.insert(id as u64, encode(chunk).as_slice()).map_err(|e| e.to_string())?;
        }
        let mut table = txn.open_table(FILES).map_err(|e| e.to_string())?;
        for (path, entry) in manifest {
            table.insert(path.as_str(), encode(entry).as_slice()).map_err(|e| e.to_string())?;
        }
        let mut table = txn.open_table(META).map_err(|e| e.to_string())?;
        table.insert("meta", encode(meta).as_slice()).map_err(|e| e.to_string())?;
    }
    txn.commit().map_err(|e| e.to_string())
}

/// Lists the files to index: `.gitignore`d, hidden, vendored and build directories are
/// skipped (see [`skip_dir`]), symlinks are not followed. Sorted by path. Walk errors become `skipped`.
fn walk(root: &Path, report: &mut BuildReport) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let base = root.to_path_buf();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && entry.path().strip_prefix(&base).is_ok_and(skip_dir))
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                report.skipped.push(Skipped { path: String::new(), reason: e.to_string() });
                continue;
            }
        };
        let Some(file_type) = entry.file_type() else { continue };
        if !file_type.is_file() {
            continue; // directories, and symlinks (never followed)
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let Some(rel_str) = rel.to_str() else {
            report.skipped.push(Skipped { path: rel.display().to_string(), reason: "file name is not UTF-8".into() });
            continue;
        };
        let rel_str = rel_str.replace(std::path::MAIN_SEPARATOR, "/");
        if chunk::language_of(&rel_str).is_none() {
            report.not_source += 1;
            continue;
        }
        if entry.metadata().is_ok_and(|m| m.len() > chunk::MAX_FILE_BYTES) {
            report.skipped.push(Skipped { path: rel_str, reason: SkipReason::TooLarge.as_str().into() });
            continue;
        }
        files.push((rel_str, entry.path().to_path_buf()));
    }
    files
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Disk space used by the files under `dir` (allocated blocks: redb files are sparse).
pub fn dir_size(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.blocks() * 512),
            Err(_) => 0,
        })
        .sum()
}

/// An open generation: chunk store, lexical index and (if built with a model) vectors.
pub struct Generation {
    repo: String,
    db: ReadOnlyDatabase,
    pub meta: IndexMeta,
    /// The generation's directory.
    dir: PathBuf,
    text: Option<TextIndex>,
    /// Opened on first use (routing reads only `text` of most repos).
    files: std::sync::OnceLock<TextIndex>,
    /// The published vector set when the generation was opened (`None`: lexical-only),
    /// or why its manifest could not be read.
    pub vector_set: Option<VectorSet>,
    vector_set_error: Option<String>,
    /// The set whose file was opened (on first use) and its index.
    vectors: std::sync::OnceLock<(VectorSet, VectorIndex)>,
    /// First chunk id of every file, ascending (loaded on first use): maps a chunk to
    /// its file.
    file_starts: std::sync::OnceLock<Vec<u64>>,
}

impl Generation {
    /// Opens the chunk store only (enough for reuse during builds and for `--detail`), and
    /// reads the vector manifest.
    pub fn open(repo: &str, dir: &Path) -> Result<Generation, IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt { repo: repo.to_string(), detail };
        // A small page cache: queries read a few chunks, the worker streams through them all
        // once (the default, 1 GiB, would keep them all).
        let db = redb::Builder::new()
            .set_cache_size(CHUNKS_CACHE_BYTES)
            .open_read_only(dir.join("chunks.redb"))
            .map_err(|e| corrupt(format!("chunks.redb: {e}")))?;
        let meta: IndexMeta = {
            let txn = db.begin_read().map_err(|e| corrupt(e.to_string()))?;
            let table = txn.open_table(META).map_err(|e| corrupt(format!("chunks.redb: {e}")))?;
            let bytes =
                table.get("meta").map_err(|e| corrupt(e.to_string()))?.ok_or_else(|| corrupt("no meta".into()))?;
            // The format leads the record: check it before decoding the rest, whose
            // fields may differ between formats.
            let format: u32 = decode(bytes.value()).map_err(|e| corrupt(format!("meta: {e}")))?;
            if format != FORMAT {
                return Err(corrupt(format!("index format {format} (this patina writes {FORMAT})")));
            }
            decode(bytes.value()).map_err(|e| corrupt(format!("meta: {e}")))?
        };
        let (vector_set, vector_set_error) = match vector_set::read(dir) {
            Ok(set) => (set, None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Generation {
            repo: repo.to_string(),
            db,
            meta,
            dir: dir.to_path_buf(),
            text: None,
            files: std::sync::OnceLock::new(),
            vector_set,
            vector_set_error,
            vectors: std::sync::OnceLock::new(),
            file_starts: std::sync::OnceLock::new(),
        })
    }

    /// The generation's directory name.
    pub fn name(&self) -> &str {
        &self.meta.generation
    }

    /// Whether this is still what `repo_dir` serves: the live generation, with the vector
    /// set it was opened with (cheap: two small reads). Long-lived readers reopen when not.
    pub fn is_current(&self, repo_dir: &Path) -> bool {
        live_generation_name(repo_dir).as_deref() == Some(self.name())
            && vector_set::read(&self.dir).ok().flatten().map(|s| s.seq) == self.vector_set.as_ref().map(|s| s.seq)
    }

    /// `(chunk id, content hash)` of every chunk, in id order (for the embedding worker).
    pub fn chunk_hashes(&self) -> Result<Vec<(u64, [u8; 32])>, IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
        let txn = self.db.begin_read().map_err(|e| corrupt(e.to_string()))?;
        let table = txn.open_table(CHUNKS).map_err(|e| corrupt(e.to_string()))?;
        let mut out = Vec::new();
        for entry in table.iter().map_err(|e| corrupt(e.to_string()))? {
            let (id, value) = entry.map_err(|e| corrupt(e.to_string()))?;
            let stored: StoredChunk = decode(value.value()).map_err(|e| corrupt(format!("chunk: {e}")))?;
            out.push((id.value(), stored.hash));
        }
        Ok(out)
    }

    /// The stored chunks of `path` and the id of the first, if the file's hash is still `hash`.
    fn file_chunks(&self, path: &str, hash: &[u8; 32]) -> Option<(u64, Vec<StoredChunk>)> {
        let txn = self.db.begin_read().ok()?;
        let entry: FileEntry = decode(txn.open_table(FILES).ok()?.get(path).ok()??.value()).ok()?;
        if entry.hash != *hash {
            return None;
        }
        let table = txn.open_table(CHUNKS).ok()?;
        let chunks = (entry.first_chunk..entry.first_chunk + u64::from(entry.n_chunks))
            .map(|id| decode(table.get(id).ok()??.value()).ok())
            .collect::<Option<Vec<StoredChunk>>>()?;
        Some((entry.first_chunk, chunks))
    }

    fn file_paths(&self) -> Vec<String> {
        let Ok(txn) = self.db.begin_read() else { return Vec::new() };
        let Ok(table) = txn.open_table(FILES) else { return Vec::new() };
        let Ok(iter) = table.iter() else { return Vec::new() };
        iter.flatten().map(|(k, _)| k.value().to_string()).collect()
    }

    /// One chunk by id.
    pub fn chunk(&self, id: u64) -> Result<Option<StoredChunk>, IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
        let txn = self.db.begin_read().map_err(|e| corrupt(e.to_string()))?;
        let table = txn.open_table(CHUNKS).map_err(|e| corrupt(e.to_string()))?;
        match table.get(id).map_err(|e| corrupt(e.to_string()))? {
            None => Ok(None),
            Some(bytes) => decode(bytes.value()).map(Some).map_err(|e| corrupt(format!("chunk {id}: {e}"))),
        }
    }

    /// The id of the chunk of `path` with content hash `hash`, if this generation has it.
    pub fn find_chunk(&self, path: &str, hash: &[u8; 32]) -> Result<Option<u64>, IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
        let txn = self.db.begin_read().map_err(|e| corrupt(e.to_string()))?;
        let files = txn.open_table(FILES).map_err(|e| corrupt(e.to_string()))?;
        let Some(entry) = files.get(path).map_err(|e| corrupt(e.to_string()))? else { return Ok(None) };
        let entry: FileEntry = decode(entry.value()).map_err(corrupt)?;
        let chunks = txn.open_table(CHUNKS).map_err(|e| corrupt(e.to_string()))?;
        for id in entry.first_chunk..entry.first_chunk + u64::from(entry.n_chunks) {
            if let Some(bytes) = chunks.get(id).map_err(|e| corrupt(e.to_string()))? {
                let stored: StoredChunk = decode(bytes.value()).map_err(corrupt)?;
                if stored.hash == *hash {
                    return Ok(Some(id));
                }
            }
        }
        Ok(None)
    }

    /// The chunks of `path` with ids in `range` order, for context around a chunk.
    pub fn file_neighbours(
        &self,
        path: &str,
        id: u64,
    ) -> Result<(Option<StoredChunk>, Option<StoredChunk>), IndexError> {
        let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
        let txn = self.db.begin_read().map_err(|e| corrupt(e.to_string()))?;
        let files = txn.open_table(FILES).map_err(|e| corrupt(e.to_string()))?;
        let Some(entry) = files.get(path).map_err(|e| corrupt(e.to_string()))? else { return Ok((None, None)) };
        let entry: FileEntry = decode(entry.value()).map_err(corrupt)?;
        let end = entry.first_chunk + u64::from(entry.n_chunks);
        let before = if id > entry.first_chunk && id <= end { self.chunk(id - 1)? } else { None };
        let after = if id >= entry.first_chunk && id + 1 < end { self.chunk(id + 1)? } else { None };
        Ok((before, after))
    }

    fn corrupt(&self) -> impl Fn(tantivy::TantivyError) -> IndexError + '_ {
        |e| IndexError::Corrupt { repo: self.repo.clone(), detail: e.to_string() }
    }

    /// BM25 top chunks with this index's own statistics: `(chunk_id, score)`.
    pub fn lexical(&self, terms: &[String], limit: usize) -> Result<Vec<(u64, f32)>, IndexError> {
        let Some(text) = &self.text else { return Ok(Vec::new()) };
        text.search(terms, limit).map_err(self.corrupt())
    }

    /// Adds this generation's statistics of `terms` to the chunk-level and file-level
    /// corpus statistics.
    pub fn add_stats(
        &self,
        terms: &[String],
        chunks: &mut CorpusStats,
        files: &mut CorpusStats,
    ) -> Result<(), IndexError> {
        if let Some(text) = &self.text {
            text.add_stats(terms, chunks).map_err(self.corrupt())?;
        }
        self.files()?.add_stats(terms, files).map_err(self.corrupt())?;
        Ok(())
    }

    /// The file-level index, opened on first use.
    fn files(&self) -> Result<&TextIndex, IndexError> {
        if let Some(files) = self.files.get() {
            return Ok(files);
        }
        let files = TextIndex::open(&self.dir.join("files"))
            .map_err(|e| IndexError::Corrupt { repo: self.repo.clone(), detail: format!("file index: {e}") })?;
        Ok(self.files.get_or_init(|| files))
    }

    /// The published vectors, opened on first use: `None` when the generation is
    /// lexical-only or nothing is embedded yet. A file replaced by a newer publication
    /// since the manifest was read is found through the manifest read again.
    fn vectors(&self) -> Result<Option<&(VectorSet, VectorIndex)>, IndexError> {
        if let Some(opened) = self.vectors.get() {
            return Ok(Some(opened));
        }
        let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
        if let Some(detail) = &self.vector_set_error {
            return Err(corrupt(detail.clone()));
        }
        let Some(set) = &self.vector_set else { return Ok(None) };
        let open = |set: &VectorSet| -> Result<Option<VectorIndex>, VectorError> {
            match &set.file {
                Some(file) => VectorIndex::open(&self.dir.join(file), set.bytes).map(Some),
                None => Ok(None),
            }
        };
        let (set, index) = match open(set) {
            Ok(index) => (set.clone(), index),
            Err(first) => match vector_set::read(&self.dir) {
                Ok(Some(fresh)) if fresh != *set && fresh.model_id == set.model_id => {
                    let index = open(&fresh).map_err(|e| corrupt(e.to_string()))?;
                    (fresh, index)
                }
                _ => return Err(corrupt(first.to_string())),
            },
        };
        let Some(index) = index else { return Ok(None) };
        Ok(Some(self.vectors.get_or_init(|| (set, index))))
    }

    /// The published vector set: the one opened, else the one read when the generation
    /// was opened.
    pub fn coverage(&self) -> Option<&VectorSet> {
        self.vectors.get().map(|(set, _)| set).or(self.vector_set.as_ref())
    }

    /// The stored vector of chunk `id`, if it has one.
    pub fn vector(&self, id: u64) -> Result<Option<Vec<f32>>, IndexError> {
        Ok(self.vectors()?.and_then(|(_, index)| index.get(id)))
    }

    /// BM25 top files scored with `stats`: `(file, score)`, `file` being the id of its
    /// first chunk. `weights`: [`Weights::File`], or [`Weights::Body`] for the baseline.
    pub fn lexical_files(
        &self,
        terms: &[String],
        limit: usize,
        stats: &CorpusStats,
        weights: Weights,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        self.files()?.search_with_stats(terms, limit, stats, weights).map_err(self.corrupt())
    }

    /// BM25 scores (with `stats`) of the chunks of `file` that hold a query term.
    pub fn lexical_in_file(
        &self,
        terms: &[String],
        file: u64,
        limit: usize,
        stats: &CorpusStats,
    ) -> Result<Vec<(u64, f32)>, IndexError> {
        let Some(text) = &self.text else { return Ok(Vec::new()) };
        text.file_chunks(terms, file, limit, stats).map_err(self.corrupt())
    }

    /// The file (id of its first chunk) that chunk `id` belongs to.
    pub fn file_of(&self, id: u64) -> Result<u64, IndexError> {
        let starts = match self.file_starts.get() {
            Some(starts) => starts,
            None => {
                let corrupt = |detail: String| IndexError::Corrupt { repo: self.repo.clone(), detail };
                let txn = self.db.begin_read().map_err(|e| corrupt(e.to_string()))?;
                let table = txn.open_table(FILES).map_err(|e| corrupt(e.to_string()))?;
                let mut starts = Vec::new();
                for entry in table.iter().map_err(|e| corrupt(e.to_string()))? {
                    let (_, value) = entry.map_err(|e| corrupt(e.to_string()))?;
                    let entry: FileEntry = decode(value.value()).map_err(corrupt)?;
                    if entry.n_chunks > 0 {
                        starts.push(entry.first_chunk);
                    }
                }
                starts.sort_unstable();
                self.file_starts.get_or_init(|| starts)
            }
        };
        Ok(match starts.binary_search(&id) {
            Ok(i) => starts[i],
            Err(0) => id,
            Err(i) => starts[i - 1],
        })
    }

    /// Statistics of the analysed `terms` in this generation's lexical index (empty
    /// statistics when it has none).
    pub fn term_stats(&self, terms: &[String]) -> Result<super::text::TermStats, IndexError> {
        let Some(text) = &self.text else {
            return Ok(super::text::TermStats { doc_freqs: vec![0; terms.len()], ..Default::default() });
        };
        text.term_stats(terms).map_err(|e| IndexError::Corrupt { repo: self.repo.clone(), detail: e.to_string() })
    }

    /// The `limit` nearest embedded chunks: `None` when this generation has no vectors.
    /// Only chunks that were embedded can be found: the others have no vector.
    pub fn semantic(&self, query: &[f32], limit: usize) -> Result<Option<Vec<(u64, f32)>>, IndexError> {
        let Some((_, vectors)) = self.vectors()? else { return Ok(None) };
        vectors
            .search(query, limit)
            .map(Some)
            .map_err(|e| IndexError::Corrupt { repo: self.repo.clone(), detail: e.to_string() })
    }

    /// Whether the generation was built for the semantic channel (it may still have no
    /// vector: see [`Generation::coverage`]).
    pub fn has_vectors(&self) -> bool {
        self.vector_set.is_some()
    }
}

/// Opens the live generation of a repo and checks that every part of it opens.
pub fn open(repo_dir: &Path, repo: &str) -> Result<Generation, IndexError> {
    let generation = open_lazy(repo_dir, repo)?;
    generation.files()?;
    generation.vectors()?;
    Ok(generation)
}

/// Opens the live generation of a repo for queries: the chunk store and the chunk index
/// now, the file index and the vectors when first used (their damage is reported then).
pub fn open_lazy(repo_dir: &Path, repo: &str) -> Result<Generation, IndexError> {
    let Some((_, dir)) = current_generation(repo_dir) else {
        return Err(if repo_dir.join("current").exists() {
            IndexError::Corrupt { repo: repo.to_string(), detail: "`current` names no generation".into() }
        } else {
            IndexError::NotIndexed { repo: repo.to_string() }
        });
    };
    let mut generation = Generation::open(repo, &dir)?;
    let corrupt = |detail: String| IndexError::Corrupt { repo: repo.to_string(), detail };
    generation.text = Some(TextIndex::open(&dir.join("text")).map_err(|e| corrupt(format!("text index: {e}")))?);
    Ok(generation)
}

/// Opens only the chunk store of the live generation (for `--detail` and listings).
pub fn open_chunks(repo_dir: &Path, repo: &str) -> Result<Generation, IndexError> {
    match current_generation(repo_dir) {
        Some((_, dir)) => Generation::open(repo, &dir),
        None => Err(IndexError::NotIndexed { repo: repo.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::{DIMENSIONS, HashEmbedder};

    /// The file of the live generation's published vectors.
    fn vector_file(dir: &Path) -> PathBuf {
        let (_, gen_dir) = current_generation(dir).unwrap();
        let set = vector_set::read(&gen_dir).unwrap().unwrap();
        gen_dir.join(set.file.unwrap())
    }

    fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn quiet() -> impl FnMut(Phase, u64, u64) {
        |_, _, _| {}
    }

    const WORLD: &str = "/// Spawns an entity.\npub fn spawn_entity() -> u32 {\n    1\n}\n\n/// Removes an entity.\npub fn despawn(e: u32) {\n    drop(e);\n}\n";

    #[test]
    fn build_then_update_reuses_unchanged_files_and_cached_vectors() {
        let src = repo(&[("src/world.rs", WORLD), ("README.md", "# Demo\nA demo repo.\nWith words.\n")]);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("demo");
        let mut embedder = HashEmbedder;
        let first = build(&dir, "demo", src.path(), Some(&mut embedder), &mut quiet()).unwrap();
        assert_eq!((first.files, first.files_changed, first.chunks_embedded), (2, 2, first.chunks));
        assert!(first.chunks >= 3);

        std::fs::write(
            src.path().join("src/extra.rs"),
            "/// Counts things.\npub fn count_things() -> usize {\n    0\n}\n",
        )
        .unwrap();
        let second = build(&dir, "demo", src.path(), Some(&mut embedder), &mut quiet()).unwrap();
        assert_eq!((second.files_changed, second.files_unchanged), (1, 2));
        assert_eq!(second.chunks_embedded, 1, "only the new file's chunk is embedded");
        let generations: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("gen-"))
            .collect();
        assert_eq!(generations.len(), 1, "the old generation is removed");

        let generation = open(&dir, "demo").unwrap();
        let hits = generation.lexical(&crate::search::text::query_terms("count things"), 5).unwrap();
        let top = generation.chunk(hits[0].0).unwrap().unwrap();
        assert_eq!(top.chunk.path, "src/extra.rs");
        let vector = HashEmbedder.embed(&[&embed_input(&top.chunk)]).unwrap();
        let near = generation.semantic(&vector[0], 1).unwrap().unwrap();
        assert_eq!(near[0].0, hits[0].0);
    }

    /// Every chunk's published vector, by id.
    fn all_vectors(dir: &Path) -> Vec<Option<Vec<f32>>> {
        let generation = open(dir, "demo").unwrap();
        (0..generation.meta.chunks).map(|id| generation.vector(id).unwrap()).collect()
    }

    #[test]
    fn an_update_relabels_the_previous_vectors_to_the_new_chunk_ids() {
        let item = |name: &str| format!("/// Does {name}.\npub fn {name}() -> u32 {{\n    7\n}}\n\n");
        let text = |names: &[&str]| names.iter().map(|n| item(n)).collect::<String>();
        let src = repo(&[
            ("a.rs", &text(&["alpha_one", "alpha_two"])),
            ("b.rs", &text(&["beta_one", "beta_two", "beta_three"])),
            ("c.rs", &text(&["gamma_one", "gamma_two"])),
            ("d.rs", &text(&["delta_one"])),
        ]);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("demo");
        build(&dir, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();

        // b.rs shrinks (ids after it shift), c.rs goes, e.rs comes.
        std::fs::write(src.path().join("b.rs"), text(&["beta_one"])).unwrap();
        std::fs::remove_file(src.path().join("c.rs")).unwrap();
        std::fs::write(src.path().join("e.rs"), text(&["epsilon_one"])).unwrap();
        let update = build(&dir, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        assert_eq!(update.chunks_embedded + update.chunks_cached, update.chunks, "{update:?}");
        assert!(update.chunks_embedded >= 1 && update.chunks_cached >= 3, "{update:?}");

        let fresh_home = tempfile::tempdir().unwrap();
        let fresh = fresh_home.path().join("demo");
        build(&fresh, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        let (updated, rebuilt) = (all_vectors(&dir), all_vectors(&fresh));
        assert_eq!(updated, rebuilt);
        assert!(updated.iter().all(Option::is_some));
        let generation = open(&dir, "demo").unwrap();
        assert_eq!(generation.coverage().unwrap().embedded, generation.meta.chunks);
        // A removed chunk's vector is gone: searching with it finds only live chunks.
        let gone = HashEmbedder.embed(&[&format!("c.rs\n{}", item("gamma_one").trim_end())]).unwrap();
        let hits = generation.semantic(&gone[0], 50).unwrap().unwrap();
        assert_eq!(hits.len() as u64, generation.meta.chunks, "{hits:?}");
    }

    #[test]
    fn an_update_with_nothing_changed_writes_nothing() {
        let src = repo(&[("src/world.rs", WORLD)]);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("demo");
        let first = build(&dir, "demo", src.path(), None, &mut quiet()).unwrap();
        assert!(!first.up_to_date);
        let again = build(&dir, "demo", src.path(), None, &mut quiet()).unwrap();
        assert!(again.up_to_date);
        assert_eq!(again.generation, first.generation, "the live generation is kept");
        assert_eq!((again.files_unchanged, again.chunks), (1, first.chunks));

        // Asking for the semantic channel is a change.
        let semantic = build(&dir, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        assert!(!semantic.up_to_date && semantic.chunks_embedded > 0);
        assert!(build(&dir, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap().up_to_date);

        // A damaged live generation is rebuilt, not kept.
        std::fs::write(vector_file(&dir), b"garbage").unwrap();
        let repaired = build(&dir, "demo", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        assert!(!repaired.up_to_date);
        assert_eq!(repaired.chunks_embedded, 0, "vectors come back from the cache");
        assert!(open(&dir, "demo").is_ok());
    }

    #[test]
    fn skips_binary_non_utf8_ignored_vendored_and_symlinks() {
        let src = repo(&[
            ("ok.rs", "fn fine() {}\n"),
            ("bin.rs", "\0\0\0binary"),
            ("latin1.py", ""),
            ("vendor/lib.rs", "fn vendored() {}\n"),
            ("dist/bundle.js", "function bundled() {}\n"),
            ("packages/app/build/out.js", "function built() {}\n"),
            ("src/exports/vite/build/index.js", "function plugin() {}\n"),
            ("ignored.rs", "fn ignored() {}\n"),
            (".gitignore", "ignored.rs\n"),
            ("logo.png", "png"),
        ]);
        std::fs::write(src.path().join("latin1.py"), b"caf\xe9 = 1\n").unwrap();
        std::os::unix::fs::symlink(src.path(), src.path().join("loop")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.path().join("passwd.txt")).unwrap();
        let home = tempfile::tempdir().unwrap();
        let report = build(&home.path().join("r"), "r", src.path(), None, &mut quiet()).unwrap();
        // ok.rs, and the `build/` directory inside `src/` (source, not output).
        assert_eq!(report.files, 2);
        let generation = open_chunks(&home.path().join("r"), "r").unwrap();
        assert_eq!(generation.file_paths(), ["ok.rs", "src/exports/vite/build/index.js"]);
        let reasons: Vec<(&str, &str)> = report.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect();
        assert!(reasons.contains(&("bin.rs", "binary (contains NUL bytes)")), "{reasons:?}");
        assert!(reasons.contains(&("latin1.py", "not valid UTF-8")), "{reasons:?}");
        assert_eq!(report.model_id, None);
        let generation = open(&home.path().join("r"), "r").unwrap();
        assert!(!generation.has_vectors());
        assert!(generation.semantic(&[0.0; DIMENSIONS], 3).unwrap().is_none());
    }

    #[test]
    fn a_killed_build_leaves_the_live_generation_and_is_cleaned_up() {
        let src = repo(&[("a.rs", WORLD)]);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("a");
        build(&dir, "a", src.path(), None, &mut quiet()).unwrap();
        let (live, _) = current_generation(&dir).unwrap();
        // What a kill mid-write leaves: a half generation and a temp pointer.
        std::fs::create_dir_all(dir.join("gen-1-1/text")).unwrap();
        std::fs::write(dir.join("current.tmp"), "gen-1-1").unwrap();
        assert_eq!(current_generation(&dir).unwrap().0, live);
        assert!(open(&dir, "a").is_ok());
        build(&dir, "a", src.path(), None, &mut quiet()).unwrap();
        assert!(!dir.join("gen-1-1").exists());
    }

    #[test]
    fn corrupt_index_is_an_error_value() {
        let src = repo(&[("a.rs", WORLD)]);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("a");
        assert!(matches!(open(&dir, "a"), Err(IndexError::NotIndexed { .. })));
        build(&dir, "a", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        let (_, gen_dir) = current_generation(&dir).unwrap();
        std::fs::write(vector_file(&dir), b"garbage").unwrap();
        assert!(matches!(open(&dir, "a"), Err(IndexError::Corrupt { .. })));
        std::fs::write(gen_dir.join("chunks.redb"), b"garbage").unwrap();
        assert!(matches!(open(&dir, "a"), Err(IndexError::Corrupt { .. })));
        std::fs::write(dir.join("current"), "../../etc").unwrap();
        assert!(matches!(open(&dir, "a"), Err(IndexError::Corrupt { .. })));
        // A rebuild recovers.
        build(&dir, "a", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        assert!(open(&dir, "a").is_ok());
    }
}
