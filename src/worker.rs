//! The background embedding worker: `patina repo embed --worker`, started detached by
//! `repo add|update|embed` when chunks are left without a vector, so those commands
//! return as soon as the lexical index is live.
//!
//! ```text
//! $PATINA_HOME/embed/worker.lock   held by the running worker (its pid inside)
//! $PATINA_HOME/embed/queue.lock    held by the one worker waiting to run next
//! $PATINA_HOME/embed/worker.log    the workers' stderr
//! ```
//!
//! A worker embeds every repo whose live generation has chunks without a vector of the
//! model, one repo at a time (fewest pending first) with [`backfill::run`], and scans
//! again until nothing is pending; then it exits. One model in memory per home, and two
//! cores not fought over by several workers.
//!
//! Invariant: at most one worker runs per home and at most one waits. A new worker takes
//! the queue lock (or exits: the waiting one scans later), waits for the run lock, lets
//! go of the queue lock, and only then scans. So a publication followed by [`spawn`] is
//! always seen by a scan that starts after it: no repo is left pending behind a worker
//! that was about to exit.
//! Invariant: a killed worker holds nothing (the kernel releases its locks); its repos
//! show as stalled, and the next `repo update` or `repo embed` starts a worker that
//! resumes from the cache.
//! Invariant: a repo is skipped when another process embeds it (`embed.lock`, e.g. a
//! `--wait`), and retried in the same run only after its generation or vectors changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::home::PatinaHome;
use crate::search::backfill::{self, Outcome};
use crate::search::embed::Embedder;
use crate::search::index::{self, Generation};
use crate::search::lock::{self, LockState};
use crate::search::vector_set;

/// The worker log is cut back to nothing when it passes this size.
const MAX_LOG_BYTES: u64 = 1 << 20;

fn worker_lock(home: &PatinaHome) -> PathBuf {
    home.embed_dir().join("worker.lock")
}

fn queue_lock(home: &PatinaHome) -> PathBuf {
    home.embed_dir().join("queue.lock")
}

/// The workers' log.
pub fn log_path(home: &PatinaHome) -> PathBuf {
    home.embed_dir().join("worker.log")
}

/// The pid of the running worker, if one runs.
pub fn running(home: &PatinaHome) -> LockState {
    lock::probe(&worker_lock(home))
}

/// Whether a worker runs or waits to run (it will reach every pending repo).
pub fn is_active(home: &PatinaHome) -> bool {
    running(home).is_held() || lock::probe(&queue_lock(home)).is_held()
}

/// What [`spawn`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spawned {
    /// A worker process was started (it may wait for the running one).
    Started { pid: u32 },
    /// A worker already waits to run; it will scan after this publication.
    AlreadyQueued,
}

/// Starts a detached worker (`exe repo embed --worker --home HOME`): its own session,
/// stdin and stdout closed, stderr appended to [`log_path`], never waited for, so it
/// outlives the command that started it.
pub fn spawn(home: &PatinaHome, exe: &Path) -> std::io::Result<Spawned> {
    let dir = home.embed_dir();
    std::fs::create_dir_all(&dir)?;
    if lock::probe(&queue_lock(home)).is_held() {
        return Ok(Spawned::AlreadyQueued);
    }
    let log_file = log_path(home);
    let log = std::fs::OpenOptions::new().create(true).append(true).open(&log_file)?;
    if log.metadata().is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        log.set_len(0)?;
    }
    let root = std::fs::canonicalize(home.root()).unwrap_or_else(|_| home.root().to_path_buf());
    let mut command = Command::new(exe);
    command
        .args(["repo", "embed", "--worker", "--home"])
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `setsid` is async-signal-safe and touches no memory of the parent; it
        // detaches the worker from the terminal's session (no SIGHUP or Ctrl-C from it).
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    let child = command.spawn()?;
    Ok(Spawned::Started { pid: child.id() })
}

/// A repo whose live generation has chunks without a vector of the model.
#[derive(Debug, Clone)]
pub struct Pending {
    pub repo_dir: PathBuf,
    pub repo: String,
    pub generation: String,
    /// The published set's publication number.
    pub seq: u64,
    pub chunks: u64,
    pub embedded: u64,
}

/// Every repo under `repos/` with chunks to embed for `model_id` that no other process
/// embeds now, fewest pending chunks first.
pub fn pending(home: &PatinaHome, model_id: &str) -> Vec<Pending> {
    let Ok(entries) = std::fs::read_dir(home.repos_dir()) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let repo_dir = entry.path();
        let Some((name, gen_dir)) = index::current_generation(&repo_dir) else { continue };
        let Ok(Some(set)) = vector_set::read(&gen_dir) else { continue };
        let retarget = set.model_id != model_id;
        if (set.is_complete() && !retarget) || backfill::embedder_of(&repo_dir).is_held() {
            continue;
        }
        let Ok(generation) = Generation::open(&entry.file_name().to_string_lossy(), &gen_dir) else { continue };
        let embedded = if retarget { 0 } else { set.embedded };
        out.push(Pending {
            repo_dir,
            repo: generation.meta.repo.clone(),
            generation: name,
            seq: set.seq,
            chunks: set.chunks,
            embedded,
        });
    }
    out.sort_by(|a, b| (a.chunks - a.embedded, &a.repo).cmp(&(b.chunks - b.embedded, &b.repo)));
    out
}

/// What a worker did.
#[derive(Debug, Clone, Default)]
pub struct WorkerReport {
    /// Another worker was already waiting: this one did nothing.
    pub queued_elsewhere: bool,
    pub repos: Vec<backfill::Report>,
}

/// The worker: see the module's docs. `load` is called once, when the first repo needs
/// the model; if it fails, every pending repo's progress says why and the worker ends.
/// `log` gets one line per event (the process prints them to its log).
pub fn run(
    home: &PatinaHome,
    model_id: &str,
    load: &mut dyn FnMut() -> Result<Box<dyn Embedder>, String>,
    log: &mut dyn FnMut(String),
) -> std::io::Result<WorkerReport> {
    std::fs::create_dir_all(home.embed_dir())?;
    let mut report = WorkerReport::default();
    let Some(queued) = lock::try_lock(&queue_lock(home))? else {
        report.queued_elsewhere = true;
        return Ok(report);
    };
    let _running = lock::lock_wait(&worker_lock(home))?;
    drop(queued);
    let mut embedder: Option<Box<dyn Embedder>> = None;
    // Repos run in this worker, with the (generation, seq) they were left at.
    let mut tried: HashMap<PathBuf, (String, u64)> = HashMap::new();
    loop {
        let mut todo = pending(home, model_id);
        todo.retain(|p| tried.get(&p.repo_dir) != Some(&(p.generation.clone(), p.seq)));
        if todo.is_empty() {
            return Ok(report);
        }
        if embedder.is_none() {
            match load() {
                Ok(loaded) => embedder = Some(loaded),
                Err(why) => {
                    log(format!("cannot load the model: {why}"));
                    for p in &todo {
                        failed(p, model_id, &why);
                    }
                    return Err(std::io::Error::other(why));
                }
            }
        }
        let Some(model) = embedder.as_mut() else { return Ok(report) };
        for p in todo {
            log(format!("{}: embedding {} of {} chunks", p.repo, p.chunks - p.embedded, p.chunks));
            let config = backfill::Config::default();
            match backfill::run(&p.repo_dir, model.as_mut(), &config, &mut |_| {}, &|| false) {
                Ok(done) => {
                    log(format!(
                        "{}: {:?}, {} chunks embedded in {:.1} s, {} pending",
                        p.repo,
                        done.outcome,
                        done.embedded_now,
                        done.elapsed_ms as f64 / 1000.0,
                        done.pending
                    ));
                    if done.outcome == Outcome::Gone {
                        continue;
                    }
                    report.repos.push(done);
                }
                Err(e) => log(format!("{}: {e}", p.repo)),
            }
            let now = index::current_generation(&p.repo_dir)
                .and_then(|(name, dir)| Some((name, vector_set::read(&dir).ok()??.seq)))
                .unwrap_or_default();
            tried.insert(p.repo_dir, now);
        }
    }
}

/// Records in a repo's progress that its embedding could not start.
fn failed(p: &Pending, model_id: &str, why: &str) {
    let mut progress = backfill::Progress::read(&p.repo_dir).unwrap_or_default();
    progress.pid = std::process::id();
    progress.repo = p.repo.clone();
    progress.generation = p.generation.clone();
    progress.model_id = model_id.to_string();
    progress.finished = true;
    progress.error = Some(why.to_string());
    progress.updated_ms = jiff::Timestamp::now().as_millisecond();
    progress.write(&p.repo_dir);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::HashEmbedder;

    const MODEL: &str = "hash-bag-of-words";

    fn home_with_repos(sizes: &[usize]) -> (tempfile::TempDir, PatinaHome, Vec<tempfile::TempDir>) {
        let dir = tempfile::tempdir().unwrap();
        let home = PatinaHome::at(dir.path());
        let mut sources = Vec::new();
        for (r, &n) in sizes.iter().enumerate() {
            let src = tempfile::tempdir().unwrap();
            for i in 0..n {
                let text = format!("/// Item {i} of repo {r}.\npub fn item_{r}_{i}() -> usize {{\n    {i}\n}}\n");
                std::fs::write(src.path().join(format!("f{i}.rs")), text).unwrap();
            }
            let id = format!("r{r}");
            index::build_lexical(&home.repo_dir(&id), &id, src.path(), Some(MODEL), &mut |_, _, _| {}).unwrap();
            sources.push(src);
        }
        (dir, home, sources)
    }

    #[test]
    fn a_worker_embeds_every_pending_repo_smallest_first_then_exits() {
        let (_dir, home, _sources) = home_with_repos(&[5, 2]);
        let found: Vec<(String, u64)> = pending(&home, MODEL).iter().map(|p| (p.repo.clone(), p.chunks)).collect();
        assert_eq!(found, [("r1".to_string(), 2), ("r0".to_string(), 5)]);
        let mut loads = 0;
        let mut load = || {
            loads += 1;
            Ok(Box::new(HashEmbedder) as Box<dyn Embedder>)
        };
        let report = run(&home, MODEL, &mut load, &mut |_| {}).unwrap();
        let done: Vec<(&str, Outcome)> = report.repos.iter().map(|r| (r.repo.as_str(), r.outcome)).collect();
        assert_eq!(done, [("r1", Outcome::Complete), ("r0", Outcome::Complete)]);
        assert_eq!(loads, 1, "one model for every repo");
        assert!(pending(&home, MODEL).is_empty());
        assert!(!is_active(&home), "the worker let go of its locks");
        // Another model's worker finds every repo to re-embed.
        assert_eq!(pending(&home, "another-model").len(), 2);
    }

    #[test]
    fn a_second_waiting_worker_is_not_started_and_a_failed_load_is_recorded() {
        let (_dir, home, _sources) = home_with_repos(&[3]);
        std::fs::create_dir_all(home.embed_dir()).unwrap();
        let queued = lock::try_lock(&queue_lock(&home)).unwrap().unwrap();
        assert!(is_active(&home));
        assert_eq!(spawn(&home, Path::new("/nonexistent/patina")).unwrap(), Spawned::AlreadyQueued);
        let mut load = || -> Result<Box<dyn Embedder>, String> { panic!("a queued-elsewhere worker loads nothing") };
        assert!(run(&home, MODEL, &mut load, &mut |_| {}).unwrap().queued_elsewhere);
        drop(queued);

        let mut broken = || -> Result<Box<dyn Embedder>, String> { Err("no runtime here".into()) };
        assert!(run(&home, MODEL, &mut broken, &mut |_| {}).is_err());
        let dir = home.repo_dir("r0");
        let (name, gen_dir) = index::current_generation(&dir).unwrap();
        let set = vector_set::read(&gen_dir).unwrap().unwrap();
        let status = backfill::status(&dir, &name, &set, is_active(&home));
        assert_eq!((status.state, status.error.as_deref()), (backfill::State::Failed, Some("no runtime here")));
    }
}
