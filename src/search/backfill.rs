//! Backfill: embeds the chunks of a repo's live generation that have no vector yet, step
//! by step, and publishes the vectors as it goes. The background worker (`crate::worker`)
//! runs it for every repo with chunks pending; `repo add|update|embed --wait` runs it in
//! the foreground.
//!
//! ```text
//! repos/<id>/embed.lock   held by the repo's one embedder; holds its pid
//! repos/<id>/embed.json   its progress ([`Progress`]): done/total, rate, error
//! ```
//!
//! Invariant: one embedder per repo: `embed.lock` is held for the whole run, and only its
//! holder publishes vectors into the live generation (a build publishes only into the
//! generation it is writing, before it is live).
//! Invariant: each step's vectors are committed to the cache before they are added to the
//! published set, so a killed run loses at most the step it was embedding; the next run
//! adds what the cache has, publishes it at once, and embeds only the rest.
//! Invariant: a run follows the live generation: when `current` moves (a `repo update`),
//! it continues with the new generation's chunks; vectors are keyed by content, so what
//! it embedded is found in the cache.
//! Invariant: a run never creates the repo's directory; when it is removed (`repo rm`) or
//! replaced, the run stops at the next step ([`Outcome::Gone`]).
//! Invariant: the published set holds vectors of one model: a set of another model is
//! replaced (re-embedded from this model's cache entries and the model), never extended.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::cache::{self, VectorCache};
use super::embed::Embedder;
use super::index::{self, Generation, IndexError, embed_input};
use super::lock::{self, FileLock, LockState};
use super::vector::VectorBuilder;
use super::vector_set::{self, VectorSet};

/// The lock file of a repo's embedder.
pub const LOCK: &str = "embed.lock";
/// The progress file of a repo's embedder.
pub const PROGRESS: &str = "embed.json";
/// Cached vectors added to the in-memory index per batch when a run starts.
const LOAD_BATCH: usize = 1024;

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Config {
    /// Chunks embedded and committed to the cache per step (a kill loses at most one).
    pub step: usize,
    /// At least this long between two publications during a run (and at least four times
    /// as long as the last publication took, so saving a large index stays a small share
    /// of the work). The last step always publishes.
    pub publish_every: Duration,
    /// Wait for another embedder of the repo to finish instead of returning
    /// [`Outcome::Busy`].
    pub wait_for_lock: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { step: 32, publish_every: Duration::from_secs(10), wait_for_lock: false }
    }
}

/// An embedder's progress, as written to `embed.json` after every step.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub pid: u32,
    pub repo: String,
    pub model_id: String,
    pub generation: String,
    /// Chunks of the generation with a vector in the cache (embedded, maybe not published yet).
    pub done: u64,
    pub total: u64,
    /// Chunks embedded by this run.
    pub embedded_now: u64,
    pub started_ms: i64,
    pub updated_ms: i64,
    /// This run's embedding rate.
    pub chunks_per_s: f64,
    /// The run ended (complete, or with `error`).
    pub finished: bool,
    pub error: Option<String>,
}

impl Progress {
    /// Reads `embed.json` of `repo_dir` (`None` if absent or unreadable).
    pub fn read(repo_dir: &Path) -> Option<Progress> {
        serde_json::from_slice(&std::fs::read(repo_dir.join(PROGRESS)).ok()?).ok()
    }

    /// Replaces `embed.json` (by rename; it is informational, so not synced). Never
    /// creates the directory.
    pub fn write(&self, repo_dir: &Path) {
        let tmp = repo_dir.join(format!("{PROGRESS}.tmp"));
        if std::fs::write(&tmp, serde_json::to_vec(self).unwrap_or_default()).is_ok() {
            let _ = std::fs::rename(&tmp, repo_dir.join(PROGRESS));
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every chunk of the live generation has a published vector.
    Complete,
    /// The live generation is lexical-only (or there is none): nothing to embed.
    LexicalOnly,
    /// The repo's directory was removed or replaced.
    Gone,
    /// Another process embeds this repo.
    Busy { pid: Option<u32> },
    /// Asked to stop; what was embedded is published.
    Stopped,
}

/// What a run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub outcome: Outcome,
    pub repo: String,
    pub generation: String,
    pub model_id: String,
    pub chunks: u64,
    /// Chunks embedded by this run.
    pub embedded_now: u64,
    /// Chunks still without a published vector.
    pub pending: u64,
    pub elapsed_ms: u64,
}

impl Report {
    fn ended(outcome: Outcome, model_id: &str, started: Instant) -> Report {
        Report {
            outcome,
            repo: String::new(),
            generation: String::new(),
            model_id: model_id.to_string(),
            chunks: 0,
            embedded_now: 0,
            pending: 0,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }
}

/// Whether the repo in `repo_dir` has an embedder now: the pid that holds its lock.
pub fn embedder_of(repo_dir: &Path) -> LockState {
    lock::probe(&repo_dir.join(LOCK))
}

/// Where a repo's embedding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Every chunk has a published vector.
    Done,
    /// An embedder holds the repo's lock.
    Embedding,
    /// A background worker runs (or waits to) and will reach this repo.
    Queued,
    /// Chunks are pending and nothing embeds them (the worker was killed, or never
    /// started): `patina repo embed` resumes.
    Stalled,
    /// The last embedder of this generation stopped on an error (in the status's `error`).
    Failed,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Done => "done",
            State::Embedding => "embedding",
            State::Queued => "queued",
            State::Stalled => "stalled",
            State::Failed => "failed",
        }
    }
}

/// A repo's embedding, as `repo list` and `scry` report it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Status {
    pub state: State,
    /// The embedder's pid while one runs.
    pub pid: Option<u32>,
    /// The embedder's last progress on the live generation (while it runs, `done` may be
    /// ahead of the published count by up to one publication).
    pub progress: Option<Progress>,
    pub error: Option<String>,
}

/// The status of the embedding of generation `generation` (published `set`) in
/// `repo_dir`; `worker_active`: a background worker runs or waits (`worker::is_active`).
pub fn status(repo_dir: &Path, generation: &str, set: &VectorSet, worker_active: bool) -> Status {
    let progress = Progress::read(repo_dir).filter(|p| p.generation == generation);
    let (state, pid) = match embedder_of(repo_dir) {
        _ if set.is_complete() => (State::Done, None),
        LockState::Held { pid } => (State::Embedding, pid),
        LockState::Free if worker_active => (State::Queued, None),
        LockState::Free if progress.as_ref().is_some_and(|p| p.error.is_some()) => (State::Failed, None),
        LockState::Free => (State::Stalled, None),
    };
    let error = progress.as_ref().and_then(|p| p.error.clone()).filter(|_| state == State::Failed);
    Status { state, pid, progress: progress.filter(|_| state != State::Done), error }
}

/// Embeds the missing chunks of the live generation of the index in `repo_dir` with
/// `embedder` and publishes them (see the module's invariants). `on_step` sees the
/// progress after every step; `stop` is asked before every step.
pub fn run(
    repo_dir: &Path,
    embedder: &mut dyn Embedder,
    config: &Config,
    on_step: &mut dyn FnMut(&Progress),
    stop: &dyn Fn() -> bool,
) -> Result<Report, IndexError> {
    let started = Instant::now();
    let model_id = embedder.model_id().to_string();
    let lock_path = repo_dir.join(LOCK);
    let taken = if config.wait_for_lock { lock::lock_wait(&lock_path).map(Some) } else { lock::try_lock(&lock_path) };
    let held = match taken {
        Ok(Some(held)) => held,
        Ok(None) => {
            let pid = match lock::probe(&lock_path) {
                LockState::Held { pid } => pid,
                LockState::Free => None,
            };
            return Ok(Report::ended(Outcome::Busy { pid }, &model_id, started));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Report::ended(Outcome::Gone, &model_id, started));
        }
        Err(error) => return Err(IndexError::Io { path: lock_path, error }),
    };
    let cache = match VectorCache::open(repo_dir) {
        Ok(cache) => cache,
        Err(_) if !held.still_at_path() => return Ok(Report::ended(Outcome::Gone, &model_id, started)),
        Err(e) => return Err(e.into()),
    };
    let mut run = Run {
        repo_dir: repo_dir.to_path_buf(),
        held,
        cache,
        model_id,
        config: config.clone(),
        progress: Progress {
            pid: std::process::id(),
            started_ms: jiff::Timestamp::now().as_millisecond(),
            ..Progress::default()
        },
        started,
    };
    let result = run.follow_live(embedder, on_step, stop);
    run.progress.finished = true;
    run.progress.updated_ms = jiff::Timestamp::now().as_millisecond();
    match &result {
        Err(e) => run.progress.error = Some(e.to_string()),
        Ok(report) if report.outcome == Outcome::Gone => return result,
        Ok(_) => {}
    }
    if run.held.still_at_path() {
        run.progress.write(repo_dir);
    }
    result
}

/// One run's state.
struct Run {
    repo_dir: PathBuf,
    held: FileLock,
    cache: VectorCache,
    model_id: String,
    config: Config,
    progress: Progress,
    started: Instant,
}

/// Why embedding one generation stopped early.
enum Interrupted {
    /// `current` moved: continue with the new generation.
    Superseded,
    Ended(Outcome),
}

impl Run {
    /// Embeds the live generation, and the next one when a build replaces it meanwhile.
    fn follow_live(
        &mut self,
        embedder: &mut dyn Embedder,
        on_step: &mut dyn FnMut(&Progress),
        stop: &dyn Fn() -> bool,
    ) -> Result<Report, IndexError> {
        loop {
            if !self.held.still_at_path() {
                return Ok(Report::ended(Outcome::Gone, &self.model_id, self.started));
            }
            let Some((name, dir)) = index::current_generation(&self.repo_dir) else {
                let outcome = if self.repo_dir.is_dir() { Outcome::LexicalOnly } else { Outcome::Gone };
                return Ok(Report::ended(outcome, &self.model_id, self.started));
            };
            match self.generation(&name, &dir, embedder, on_step, stop) {
                Ok(Ok(report)) => return Ok(report),
                Ok(Err(Interrupted::Ended(outcome))) => {
                    return Ok(Report::ended(outcome, &self.model_id, self.started));
                }
                Ok(Err(Interrupted::Superseded)) => continue,
                // A build replaced the generation while we read or published it.
                Err(_) if self.superseded(&name) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn superseded(&self, name: &str) -> bool {
        index::live_generation_name(&self.repo_dir).as_deref() != Some(name)
    }

    /// Embeds the missing chunks of one generation.
    fn generation(
        &mut self,
        name: &str,
        dir: &Path,
        embedder: &mut dyn Embedder,
        on_step: &mut dyn FnMut(&Progress),
        stop: &dyn Fn() -> bool,
    ) -> Result<Result<Report, Interrupted>, IndexError> {
        let shown = self.repo_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let generation = Generation::open(&shown, dir)?;
        let Some(published) = generation.vector_set.clone() else {
            return Ok(Err(Interrupted::Ended(Outcome::LexicalOnly)));
        };
        let repo = generation.meta.repo.clone();
        let write_err = |e: &dyn std::fmt::Display| IndexError::Write { repo: repo.clone(), detail: e.to_string() };

        // The in-memory index: the published file when it holds this model's vectors
        // (else start over: never extend another model's set), plus what the cache has.
        // A published file that does not load is rebuilt from the cache, which holds every
        // vector it had.
        let loaded = match (&published.file, published.model_id == self.model_id) {
            (Some(file), true) => VectorBuilder::load(&dir.join(file), published.bytes).ok(),
            _ => None,
        };
        let rebuilt = loaded.is_none() && published.file.is_some();
        let mut vectors = match loaded {
            Some(vectors) => vectors,
            None => VectorBuilder::new(dir).map_err(|e| write_err(&e))?,
        };
        let chunk_keys = generation.chunk_hashes()?;
        let total = chunk_keys.len() as u64;
        let mut ids_of: HashMap<[u8; 32], Vec<u64>> = HashMap::new();
        let mut missing: Vec<[u8; 32]> = Vec::new();
        {
            let reader = self.cache.reader()?;
            let mut batch: Vec<(u64, Vec<f32>)> = Vec::new();
            for &(id, hash) in &chunk_keys {
                let key = cache::key(&self.model_id, &hash);
                let ids = ids_of.entry(key).or_default();
                ids.push(id);
                if vectors.contains(id) {
                    continue;
                }
                match reader.get(&key)? {
                    Some(vector) => batch.push((id, vector)),
                    // Identical chunks (copied files) are embedded once.
                    None if ids.len() == 1 => missing.push(key),
                    None => {}
                }
                if batch.len() == LOAD_BATCH {
                    add(&mut vectors, &batch).map_err(|e| write_err(&e))?;
                    batch.clear();
                }
            }
            add(&mut vectors, &batch).map_err(|e| write_err(&e))?;
        }
        self.progress.repo = repo.clone();
        self.progress.model_id = self.model_id.clone();
        self.progress.generation = name.to_string();
        self.progress.total = total;
        self.progress.done = vectors.len() as u64;
        self.progress.error = None;
        self.progress.updated_ms = jiff::Timestamp::now().as_millisecond();
        self.progress.write(&self.repo_dir);
        on_step(&self.progress);

        // Publish at once what a killed run embedded, or a set re-targeted to this model.
        let mut publisher =
            Publisher { dir, model_id: &self.model_id, total, published, last: Instant::now(), took: Duration::ZERO };
        if rebuilt
            || vectors.len() as u64 != publisher.published.embedded
            || publisher.published.model_id != self.model_id
        {
            publisher.publish(&vectors).map_err(|e| write_err(&e))?;
        }

        let step = self.config.step.max(1);
        for keys in missing.chunks(step) {
            if stop() {
                publisher.publish(&vectors).map_err(|e| write_err(&e))?;
                return Ok(Err(Interrupted::Ended(Outcome::Stopped)));
            }
            if !self.held.still_at_path() {
                return Ok(Err(Interrupted::Ended(Outcome::Gone)));
            }
            if self.superseded(name) {
                return Ok(Err(Interrupted::Superseded));
            }
            let mut texts = Vec::with_capacity(keys.len());
            for key in keys {
                let id = ids_of[key][0];
                let stored = generation.chunk(id)?.ok_or_else(|| IndexError::Corrupt {
                    repo: repo.clone(),
                    detail: format!("chunk {id} is listed but missing"),
                })?;
                texts.push(embed_input(&stored.chunk));
            }
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let embedded = embedder.embed(&refs)?;
            let entries: Vec<([u8; 32], &[f32])> =
                keys.iter().copied().zip(embedded.iter().map(Vec::as_slice)).collect();
            self.cache.insert(&entries)?;
            let keyed: Vec<(u64, &[f32])> =
                entries.iter().flat_map(|(key, v)| ids_of[key].iter().map(move |&id| (id, *v))).collect();
            vectors.add_many(&keyed).map_err(|e| write_err(&e))?;

            self.progress.embedded_now += keys.len() as u64;
            self.progress.done = vectors.len() as u64;
            let secs = self.started.elapsed().as_secs_f64();
            self.progress.chunks_per_s = if secs > 0.0 { self.progress.embedded_now as f64 / secs } else { 0.0 };
            self.progress.updated_ms = jiff::Timestamp::now().as_millisecond();
            self.progress.write(&self.repo_dir);
            on_step(&self.progress);
            if publisher.last.elapsed() >= self.config.publish_every.max(publisher.took * 4) {
                publisher.publish(&vectors).map_err(|e| write_err(&e))?;
            }
        }
        if vectors.len() as u64 != publisher.published.embedded {
            publisher.publish(&vectors).map_err(|e| write_err(&e))?;
        }
        let published = publisher.published;
        Ok(Ok(Report {
            outcome: Outcome::Complete,
            repo,
            generation: name.to_string(),
            model_id: self.model_id.clone(),
            chunks: total,
            embedded_now: self.progress.embedded_now,
            pending: total.saturating_sub(published.embedded),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        }))
    }
}

/// Publishes a generation's vectors, and remembers when and how long it took.
struct Publisher<'a> {
    dir: &'a Path,
    model_id: &'a str,
    total: u64,
    published: VectorSet,
    last: Instant,
    took: Duration,
}

impl Publisher<'_> {
    fn publish(&mut self, vectors: &VectorBuilder) -> Result<(), vector_set::VectorSetError> {
        let started = Instant::now();
        self.published = vector_set::publish(self.dir, self.model_id, self.total, vectors, Some(&self.published))?;
        self.took = started.elapsed();
        self.last = Instant::now();
        Ok(())
    }
}

fn add(vectors: &mut VectorBuilder, batch: &[(u64, Vec<f32>)]) -> Result<(), super::vector::VectorError> {
    let keyed: Vec<(u64, &[f32])> = batch.iter().map(|(id, v)| (*id, v.as_slice())).collect();
    vectors.add_many(&keyed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::{EmbedError, HashEmbedder};
    use crate::search::index::{self, Phase};

    /// The fake embedder under another model id, with different vectors, counting inputs.
    struct Other {
        inputs: usize,
    }

    impl Embedder for Other {
        fn model_id(&self) -> &str {
            "other-model"
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.inputs += texts.len();
            Ok(HashEmbedder.embed(texts)?.into_iter().map(|v| v.into_iter().map(|x| -x).collect()).collect())
        }
    }

    /// A repo of `n` distinct functions (one chunk each).
    fn repo(n: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("/// Computes value number {i}.\npub fn value_{i}() -> u32 {{\n    {i}\n}}\n\n"));
        }
        std::fs::write(dir.path().join("lib.rs"), text).unwrap();
        dir
    }

    fn quiet() -> impl FnMut(Phase, u64, u64) {
        |_, _, _| {}
    }

    fn small_steps() -> Config {
        Config { step: 4, publish_every: Duration::ZERO, wait_for_lock: false }
    }

    /// Every chunk's published vector, by id.
    fn published(dir: &Path) -> Vec<Option<Vec<f32>>> {
        let generation = index::open(dir, "r").unwrap();
        (0..generation.meta.chunks).map(|id| generation.vector(id).unwrap()).collect()
    }

    #[test]
    fn a_stopped_run_resumes_from_the_cache_and_ends_as_a_one_shot_run() {
        let src = repo(20);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("r");
        let built = index::build_lexical(&dir, "r", src.path(), Some("other-model"), &mut quiet()).unwrap();
        assert_eq!((built.chunks_pending, built.embedding), (20, "pending"));

        // Stopped after three steps: those are committed and published.
        let mut embedder = Other { inputs: 0 };
        let steps = std::cell::Cell::new(0);
        let stop = || {
            steps.set(steps.get() + 1);
            steps.get() > 3
        };
        let first = run(&dir, &mut embedder, &small_steps(), &mut |_| {}, &stop).unwrap();
        assert_eq!(first.outcome, Outcome::Stopped);
        let generation = index::open(&dir, "r").unwrap();
        let set = generation.coverage().unwrap();
        assert_eq!((set.embedded, set.chunks, set.model_id.as_str()), (12, 20, "other-model"));
        // Only embedded chunks can be found by meaning.
        let hits = generation.semantic(&generation.vector(0).unwrap().unwrap(), 50).unwrap().unwrap();
        assert!(hits.iter().all(|(id, _)| *id < 12), "{hits:?}");
        let progress = Progress::read(&dir).unwrap();
        assert_eq!((progress.done, progress.total, progress.finished), (12, 20, true));

        // The rerun embeds only the rest.
        let mut again = Other { inputs: 0 };
        let second = run(&dir, &mut again, &small_steps(), &mut |_| {}, &|| false).unwrap();
        assert_eq!((second.outcome, second.embedded_now, second.pending), (Outcome::Complete, 8, 0));
        assert_eq!(again.inputs, 8);

        let other_home = tempfile::tempdir().unwrap();
        let one_shot = other_home.path().join("r");
        index::build(&one_shot, "r", src.path(), Some(&mut Other { inputs: 0 }), &mut quiet()).unwrap();
        assert_eq!(published(&dir), published(&one_shot));
        assert!(published(&dir).iter().all(Option::is_some));
    }

    #[test]
    fn another_model_is_re_embedded_never_mixed() {
        let src = repo(10);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("r");
        index::build(&dir, "r", src.path(), Some(&mut HashEmbedder), &mut quiet()).unwrap();
        let hash_vectors = published(&dir);

        // A run with another model replaces the set: stopped half-way, the set holds only
        // the other model's vectors, none of the first model's.
        let steps = std::cell::Cell::new(0);
        let stop = || {
            steps.set(steps.get() + 1);
            steps.get() > 1
        };
        run(&dir, &mut Other { inputs: 0 }, &small_steps(), &mut |_| {}, &stop).unwrap();
        let generation = index::open(&dir, "r").unwrap();
        let set = generation.coverage().unwrap().clone();
        assert_eq!((set.model_id.as_str(), set.embedded), ("other-model", 4));
        let now = published(&dir);
        for (id, vector) in now.iter().enumerate() {
            match vector {
                Some(v) => assert_eq!(v, &hash_vectors[id].as_ref().unwrap().iter().map(|x| -x).collect::<Vec<_>>()),
                None => assert!(id >= 4),
            }
        }
        // A build for the first model again finds its vectors in the cache: nothing to embed,
        // and none of the other model's vectors in its set.
        let rebuilt = index::build_lexical(&dir, "r", src.path(), Some("hash-bag-of-words"), &mut quiet()).unwrap();
        assert!(!rebuilt.up_to_date, "another model's set is not up to date");
        assert_eq!((rebuilt.chunks_cached, rebuilt.chunks_pending), (10, 0));
        assert_eq!(published(&dir), hash_vectors);
    }

    #[test]
    fn a_damaged_vector_file_is_rebuilt_from_the_cache_without_embedding() {
        let src = repo(6);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("r");
        index::build(&dir, "r", src.path(), Some(&mut Other { inputs: 0 }), &mut quiet()).unwrap();
        let before = published(&dir);
        let (_, gen_dir) = index::current_generation(&dir).unwrap();
        let set = vector_set::read(&gen_dir).unwrap().unwrap();
        std::fs::write(gen_dir.join(set.file.as_ref().unwrap()), b"garbage").unwrap();
        assert!(index::open(&dir, "r").is_err(), "the damage shows");
        let mut embedder = Other { inputs: 0 };
        let report = run(&dir, &mut embedder, &small_steps(), &mut |_| {}, &|| false).unwrap();
        assert_eq!((report.outcome, report.embedded_now, embedder.inputs), (Outcome::Complete, 0, 0));
        assert_eq!(published(&dir), before);
    }

    #[test]
    fn busy_gone_and_lexical_only_end_a_run_without_embedding() {
        let src = repo(3);
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("r");
        index::build_lexical(&dir, "r", src.path(), None, &mut quiet()).unwrap();
        let mut embedder = Other { inputs: 0 };
        let config = Config::default();
        assert_eq!(run(&dir, &mut embedder, &config, &mut |_| {}, &|| false).unwrap().outcome, Outcome::LexicalOnly);

        index::build_lexical(&dir, "r", src.path(), Some("other-model"), &mut quiet()).unwrap();
        let held = lock::try_lock(&dir.join(LOCK)).unwrap().unwrap();
        let busy = run(&dir, &mut embedder, &config, &mut |_| {}, &|| false).unwrap();
        assert_eq!(busy.outcome, Outcome::Busy { pid: Some(std::process::id()) });
        let set = index::open(&dir, "r").unwrap().coverage().unwrap().clone();
        assert_eq!(status(&dir, &index::live_generation_name(&dir).unwrap(), &set, false).state, State::Embedding);
        drop(held);
        assert_eq!(status(&dir, &index::live_generation_name(&dir).unwrap(), &set, false).state, State::Stalled);
        assert_eq!(status(&dir, &index::live_generation_name(&dir).unwrap(), &set, true).state, State::Queued);

        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(run(&dir, &mut embedder, &config, &mut |_| {}, &|| false).unwrap().outcome, Outcome::Gone);
        assert!(!dir.exists(), "a run never brings a removed index back");
        assert_eq!(embedder.inputs, 0);
    }
}
