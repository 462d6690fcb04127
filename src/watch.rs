//! `mother watch`: keep the graph current while files change.
//!
//! notify (through notify-debouncer-full) reports created, modified, renamed and deleted
//! files; bursts (an editor's save-rename-write, a log appended every few seconds) are
//! coalesced for the debounce interval. Each batch opens the store, ingests the changed
//! inputs, retracts the facts of deleted ones, re-derives the graph, closes the store, and
//! reports what changed in the graph.
//!
//! Architecture Invariant: the change stream is complete. Each batch reports the stored
//! graph against the graph the stream last reported, not against whatever the store held
//! when the batch began: another process (a `mother graph`, a `scry`, a `link`) may derive
//! and store the graph between a batch's ingest and its refresh, and its changes still
//! reach the stream, in the next batch at the latest.
//!
//! Architecture Invariant: the watcher holds the store only for the duration of a batch,
//! so every other command (and another watcher or MCP server) keeps working; the store is
//! opened in multi-writer mode besides. A batch that fails (a store held under an
//! incompatible lock for too long) keeps its files pending and is retried.
//!
//! Architecture Invariant: memory is bounded by one batch of paths and one graph; nothing
//! accumulates across batches except the set of watched roots and the graph last reported.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use notify::RecursiveMode;

use crate::error::{Error, InvalidInput};
use crate::event::NodeRegistered;
use crate::graph::{Edge, GraphDiff, Params, derive, store as graph_store};
use crate::home::{PatinaHome, expand_home};
use crate::ingest::cues::Cues;
use crate::ingest::{self, IngestOptions, IngestReport};
use crate::store::{OpenOptions, Store};

/// Session-log folders looked for under a node's path.
pub const SESSION_DIRS: &[&str] =
    &["layer/sessions", ".claude/context/sessions", ".patina/sessions", "sessions", "docs/sessions"];

/// A watched path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct WatchRoot {
    pub path: PathBuf,
    /// Recursive roots are session folders: every input under them counts. A
    /// non-recursive root is a project root: only its manifests count.
    pub recursive: bool,
    /// For a single watched file: the file (its parent is the watched directory).
    pub only: Option<PathBuf>,
}

impl WatchRoot {
    fn accepts(&self, path: &Path) -> bool {
        if let Some(only) = &self.only {
            return path == only;
        }
        if self.recursive {
            path.starts_with(&self.path) && ingest::is_input(path)
        } else {
            path.parent() == Some(self.path.as_path()) && ingest::manifest::kind_of(path).is_some()
        }
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).unwrap_or_else(|_| path.to_path_buf())
}

/// The default roots: every registered node's session folders (recursive) and its root
/// (for manifests), where they exist.
pub fn default_roots(nodes: &BTreeMap<String, NodeRegistered>) -> Vec<WatchRoot> {
    let mut roots = BTreeSet::new();
    for node in nodes.values() {
        let Some(path) = node.path.as_deref() else { continue };
        let root = expand_home(path);
        if !root.is_dir() {
            continue;
        }
        let root = absolute(&root);
        for dir in SESSION_DIRS {
            let candidate = root.join(dir);
            if candidate.is_dir() {
                roots.insert(WatchRoot { path: candidate, recursive: true, only: None });
            }
        }
        roots.insert(WatchRoot { path: root, recursive: false, only: None });
    }
    roots.into_iter().collect()
}

/// Roots for explicit paths: directories recursively, files alone.
pub fn roots_for(paths: &[PathBuf]) -> Result<Vec<WatchRoot>, Error> {
    let mut roots = Vec::new();
    for path in paths {
        if path.is_dir() {
            roots.push(WatchRoot { path: absolute(path), recursive: true, only: None });
        } else if path.is_file() {
            let file = absolute(path);
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
            roots.push(WatchRoot { path: dir, recursive: false, only: Some(file) });
        } else {
            return Err(InvalidInput::Other(format!("{}: no such file or directory to watch", path.display())).into());
        }
    }
    Ok(roots)
}

/// How to watch.
#[derive(Clone)]
pub struct WatchOptions {
    pub roots: Vec<WatchRoot>,
    pub debounce: Duration,
    pub ingest: IngestOptions,
    pub cues: Cues,
    /// The home whose graph parameters (`Params::for_home`) each batch derives with, read
    /// again per batch as every command, MCP call and daemon request reads them, so the
    /// stored graph's stamp agrees with theirs after the cue file is edited. `None`: the
    /// built-in parameters.
    pub params_home: Option<PatinaHome>,
    pub open: OpenOptions,
}

impl WatchOptions {
    /// The graph parameters for one batch.
    fn params(&self) -> Result<Params, Error> {
        match &self.params_home {
            Some(home) => Params::for_home(home),
            None => Ok(Params::builtin()),
        }
    }
}

/// What one batch did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BatchReport {
    pub changed_files: Vec<String>,
    pub deleted_files: Vec<String>,
    pub ingest: IngestReport,
    pub retracted_deleted: usize,
    pub diff: GraphDiff,
    pub edges: usize,
    /// From the batch's first file event to the graph being stored.
    pub latency_ms: f64,
}

/// What the watcher has to say.
#[derive(Debug)]
pub enum Notice {
    Watching(Vec<WatchRoot>),
    RootGone(PathBuf),
    RootBack(PathBuf),
    Batch(Box<BatchReport>),
    /// A batch failed; its files stay pending and are retried.
    Retrying(String),
}

/// Ingests `changed` (existing files) and retracts deleted ones, then refreshes the graph.
/// The report's diff is taken against `reported`, the graph the stream last reported
/// (else the graph stored before the batch); the graph after the batch is returned beside it.
pub fn process(
    store_path: &Path,
    options: &WatchOptions,
    changed: &BTreeSet<PathBuf>,
    reported: Option<&[Edge]>,
) -> Result<(BatchReport, Vec<Edge>), Error> {
    let store = Store::open(store_path, &options.open, |_| {})?;
    let before = baseline(&store, reported);
    let (present, gone): (Vec<PathBuf>, Vec<PathBuf>) = changed.iter().cloned().partition(|p| p.exists());
    let mut report = BatchReport::default();
    if !present.is_empty() {
        report.ingest = ingest::ingest(&store, &present, &options.ingest, options.cues.clone(), |_| {})?;
    }
    report.retracted_deleted = ingest::retract_missing(&store, &gone)?;
    let now = refresh_since(&store, &options.params()?, &before, &mut report)?;
    report.changed_files = present.iter().map(|p| p.display().to_string()).collect();
    report.deleted_files = gone.iter().map(|p| p.display().to_string()).collect();
    Ok((report, now))
}

/// Where a batch's diff starts: the graph the stream last reported, else (no batch has
/// read it yet) the stored one.
fn baseline<'a>(store: &Store, reported: Option<&'a [Edge]>) -> Cow<'a, [Edge]> {
    match reported {
        Some(edges) => Cow::Borrowed(edges),
        // The stored graph is derived state: one that no longer decodes counts as none.
        None => Cow::Owned(graph_store::read(store).ok().flatten().map(|g| g.edges).unwrap_or_default()),
    }
}

/// Refreshes the stored graph and reads its current edges back into `report` (the diff
/// from `before` and the edge count); returns them.
fn refresh_since(
    store: &Store,
    params: &Params,
    before: &[Edge],
    report: &mut BatchReport,
) -> Result<Vec<Edge>, Error> {
    graph_store::refresh(store, params)?;
    let now = graph_store::read(store)?.map(|g| g.edges).unwrap_or_default();
    report.diff = derive::diff(before, &now, graph_store::REWEIGHT_THRESHOLD);
    report.edges = now.len();
    Ok(now)
}

/// Catches up with changes made while nobody watched: ingests every root (the ingest cache
/// skips unchanged files; deleted session logs under recursive roots are retracted). The
/// diff is taken against the graph stored before.
pub fn catch_up(store_path: &Path, options: &WatchOptions) -> Result<BatchReport, Error> {
    catch_up_since(store_path, options, None).map(|(report, _)| report)
}

/// [`catch_up`], with the diff taken against `reported` when given.
fn catch_up_since(
    store_path: &Path,
    options: &WatchOptions,
    reported: Option<&[Edge]>,
) -> Result<(BatchReport, Vec<Edge>), Error> {
    let started = Instant::now();
    let store = Store::open(store_path, &options.open, |_| {})?;
    let before = baseline(&store, reported);
    let mut inputs: Vec<PathBuf> = Vec::new();
    for root in &options.roots {
        match (&root.only, root.recursive) {
            (Some(file), _) => inputs.push(file.clone()),
            (None, true) if root.path.is_dir() => inputs.push(root.path.clone()),
            (None, _) => {
                if let Ok(entries) = std::fs::read_dir(&root.path) {
                    let mut manifests: Vec<PathBuf> =
                        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| root.accepts(p)).collect();
                    manifests.sort();
                    inputs.extend(manifests);
                }
            }
        }
    }
    let mut report = BatchReport::default();
    let existing: Vec<PathBuf> = inputs.into_iter().filter(|p| p.exists()).collect();
    if !existing.is_empty() {
        report.ingest = ingest::ingest(&store, &existing, &options.ingest, options.cues.clone(), |_| {})?;
    }
    let now = refresh_since(&store, &options.params()?, &before, &mut report)?;
    report.latency_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok((report, now))
}

fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
}

/// Watches until `stop` is set. Runs a catch-up batch first.
pub fn run(
    store_path: &Path,
    options: &WatchOptions,
    stop: &AtomicBool,
    mut notice: impl FnMut(Notice),
) -> Result<(), Error> {
    let (tx, rx) = mpsc::channel();
    let mut debouncer = notify_debouncer_full::new_debouncer(options.debounce, None, tx)
        .map_err(|e| InvalidInput::Other(format!("starting the file watcher: {e}")))?;
    let mut watched: Vec<WatchRoot> = Vec::new();
    let mut missing: Vec<WatchRoot> = Vec::new();
    for root in &options.roots {
        let mode = if root.recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
        match debouncer.watch(&root.path, mode) {
            Ok(()) => watched.push(root.clone()),
            Err(_) => missing.push(root.clone()),
        }
    }
    notice(Notice::Watching(watched.clone()));
    for root in &missing {
        notice(Notice::RootGone(root.path.clone()));
    }
    // The graph as the stream last reported it; `None` until the first batch read it.
    let mut reported: Option<Vec<Edge>> = None;
    match catch_up_since(store_path, options, None) {
        Ok((report, now)) => {
            reported = Some(now);
            notice(Notice::Batch(Box::new(report)));
        }
        Err(err) => notice(Notice::Retrying(err.to_string())),
    }

    let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
    let mut first_event: Option<Instant> = None;
    let mut last_root_check = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Ok(events)) => {
                for event in events {
                    for path in &event.paths {
                        if watched.iter().any(|r| r.accepts(path)) {
                            pending.insert(path.clone());
                            first_event.get_or_insert(event.time);
                        }
                    }
                }
            }
            Ok(Err(errors)) => {
                for err in errors {
                    notice(Notice::Retrying(format!("file watcher: {err}")));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // Roots that vanished or came back (checked every second).
        if last_root_check.elapsed() >= Duration::from_secs(1) {
            last_root_check = Instant::now();
            let (gone, still): (Vec<WatchRoot>, Vec<WatchRoot>) = watched.drain(..).partition(|r| !r.path.exists());
            watched = still;
            for root in gone {
                let _ = debouncer.unwatch(&root.path);
                notice(Notice::RootGone(root.path.clone()));
                missing.push(root);
            }
            let (back, absent): (Vec<WatchRoot>, Vec<WatchRoot>) = missing.drain(..).partition(|r| r.path.exists());
            missing = absent;
            for root in back {
                let mode = if root.recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
                if debouncer.watch(&root.path, mode).is_ok() {
                    notice(Notice::RootBack(root.path.clone()));
                    let one = WatchOptions { roots: vec![root.clone()], ..options.clone() };
                    match catch_up_since(store_path, &one, reported.as_deref()) {
                        Ok((report, now)) => {
                            reported = Some(now);
                            notice(Notice::Batch(Box::new(report)));
                        }
                        Err(err) => notice(Notice::Retrying(err.to_string())),
                    }
                    watched.push(root);
                } else {
                    missing.push(root);
                }
            }
        }
        if pending.is_empty() {
            continue;
        }
        // A file still being written is read again when its write settles.
        let before: Vec<(PathBuf, Option<(u64, SystemTime)>)> = pending.iter().map(|p| (p.clone(), stamp(p))).collect();
        match process(store_path, options, &pending, reported.as_deref()) {
            Ok((mut report, now)) => {
                reported = Some(now);
                let started = first_event.take().unwrap_or_else(Instant::now);
                report.latency_ms = started.elapsed().as_secs_f64() * 1e3;
                pending.clear();
                for (path, was) in before {
                    if stamp(&path) != was {
                        pending.insert(path);
                        first_event.get_or_insert_with(Instant::now);
                    }
                }
                notice(Notice::Batch(Box::new(report)));
            }
            Err(err) => {
                notice(Notice::Retrying(err.to_string()));
                std::thread::sleep(options.debounce.max(Duration::from_millis(200)));
            }
        }
    }
    debouncer.stop();
    Ok(())
}
