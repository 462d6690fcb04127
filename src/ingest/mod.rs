//! `mother ingest`: turn session logs, manifests, bench logs, belief files and core pattern
//! files into events.
//!
//! For each input file the ingest computes the complete set of fact events the file
//! supports today, then appends the ones not yet live and retracts the live ones from that
//! file that are no longer supported. Re-ingesting an unchanged file appends nothing; a
//! changed file appends only its new facts; a deleted file (under a directory being
//! ingested) has its facts retracted.
//!
//! Architecture Invariant: the events of one file and the file's cache entry commit in
//! the same write transaction, so a killed ingest never marks a file done without its
//! events. The cache (`ingest_files`: path → fingerprint of content, nodes, cue vocabulary
//! and extractor version) is only a shortcut: deleting it changes no result.

pub mod belief;
pub mod bench_log;
pub mod candidates;
pub mod cues;
pub mod exemplars;
pub mod manifest;
pub mod mention;
pub mod read;
pub mod session;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use redb::TableDefinition;

use crate::error::{Error, InvalidInput};
use crate::event::log::{EventLog, NewEvent};
use crate::event::nodes::resolve_node;
use crate::event::{BenchRun, ContentHash, Event, EventKind, Import, Mention, NodeRegistered, Retracted, Source};
use crate::home::expand_home;
use crate::store::Store;
use cues::Cues;
use mention::NodeMatcher;

/// Bump when extraction changes, so cached files are read again.
const EXTRACTOR_VERSION: &[u8] = b"ingest-v37";

const INGEST_FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("ingest_files");

/// Default size cap for one input file.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Events per write transaction (files are never split across transactions).
const BATCH_EVENTS: usize = 5_000;

/// How to ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// The project every file belongs to; otherwise the node whose path contains the file.
    pub project: Option<String>,
    pub max_file_bytes: u64,
    /// Read every file even if its cache entry says it is unchanged.
    pub force: bool,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions { project: None, max_file_bytes: DEFAULT_MAX_FILE_BYTES, force: false }
    }
}

/// A file that was not ingested, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// What an ingest did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct IngestReport {
    /// Files recognised as inputs.
    pub files_seen: usize,
    /// Files read and scanned.
    pub files_read: usize,
    /// Files whose content (and the nodes and cues) had not changed since the last ingest.
    pub files_unchanged: usize,
    /// Files under the given directories that were ingested before and are gone now.
    pub files_gone: usize,
    pub bytes_read: u64,
    /// Events appended, by kind.
    pub added: BTreeMap<String, usize>,
    /// Facts retracted because their file changed or disappeared.
    pub retracted: usize,
    /// Mentions appended this run, by node and by cue class.
    pub mentions_by_node: BTreeMap<String, BTreeMap<String, usize>>,
    /// The embedding model that classified mentions by exemplars (`None`: phrases alone).
    pub exemplar_model: Option<String>,
    /// Mentions of the files read this run whose cue an exemplar decided.
    pub exemplar_cues: usize,
    pub skipped: Vec<Skipped>,
    /// Problems in files that were still ingested (bad lines, lossy UTF-8, unknown repos).
    pub warnings: Vec<String>,
    /// Files that could not be attributed to a project.
    pub errors: Vec<String>,
}

/// Progress of a long ingest, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    Found { files: usize },
    File { done: usize },
}

/// The compiled inputs of extraction.
struct World {
    nodes: BTreeMap<String, NodeRegistered>,
    /// Node id per matcher index.
    order: Vec<String>,
    matcher: NodeMatcher,
    cues: Cues,
    /// Package names, ids and aliases (lower-case) → node id, for manifests.
    packages: BTreeMap<String, String>,
    /// (expanded, absolute) node path → node id, longest first.
    paths: Vec<(PathBuf, String)>,
    fingerprint: blake3::Hasher,
}

impl World {
    fn new(nodes: BTreeMap<String, NodeRegistered>, cues: Cues, project: Option<&str>) -> World {
        let order: Vec<String> = nodes.keys().cloned().collect();
        let matcher = NodeMatcher::new(nodes.values(), &cues);
        let mut packages = BTreeMap::new();
        for node in nodes.values() {
            for name in std::iter::once(&node.id).chain(&node.aliases).chain(&node.packages) {
                packages.entry(name.to_lowercase()).or_insert_with(|| node.id.clone());
            }
        }
        let mut paths: Vec<(PathBuf, String)> = nodes
            .values()
            .filter_map(|n| n.path.as_deref().map(|p| (canonical_or_absolute(&expand_home(p)), n.id.clone())))
            .collect();
        paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.as_os_str().len()));
        let mut fingerprint = blake3::Hasher::new();
        fingerprint.update(EXTRACTOR_VERSION);
        fingerprint.update(&cues.fingerprint);
        for node in nodes.values() {
            fingerprint.update(&crate::event::codec::encode_payload(&Event::NodeRegistered(node.clone())));
        }
        fingerprint.update(project.unwrap_or("").as_bytes());
        World { nodes, order, matcher, cues, packages, paths, fingerprint }
    }

    fn project_for(&self, file: &Path) -> Option<&str> {
        self.paths.iter().find(|(root, _)| file.starts_with(root)).map(|(_, id)| id.as_str())
    }

    /// The node a manifest dependency names, if any.
    fn node_for_dependency(&self, name: &str) -> Option<&str> {
        let lower = name.to_lowercase();
        if let Some(id) = self.packages.get(&lower) {
            return Some(id);
        }
        // Go modules: `github.com/owner/name[/vN]` → alias `owner/name`.
        let parts: Vec<&str> = lower.split('/').collect();
        if parts.len() >= 3 && parts[0].contains('.') {
            let owner_name = format!("{}/{}", parts[1], parts[2]);
            return self.packages.get(&owner_name).map(String::as_str);
        }
        None
    }
}

fn canonical_or_absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).unwrap_or_else(|_| path.to_path_buf())
}

/// What kind of input a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    Session,
    Manifest(manifest::ManifestKind),
    Bench,
}

fn input_kind(path: &Path) -> Option<InputKind> {
    if let Some(kind) = manifest::kind_of(path) {
        Some(InputKind::Manifest(kind))
    } else if session::is_session_log(path) {
        Some(InputKind::Session)
    } else if bench_log::is_bench_log(path) {
        Some(InputKind::Bench)
    } else {
        None
    }
}

/// Ingests `paths` (files and directories) into the store's log.
pub fn ingest(
    store: &Store,
    paths: &[PathBuf],
    options: &IngestOptions,
    cues: Cues,
    mut progress: impl FnMut(Progress),
) -> Result<IngestReport, Error> {
    let log = EventLog::new(store);
    let nodes = log.nodes()?;
    if nodes.is_empty() {
        return Err(InvalidInput::Other(
            "no nodes are registered: run `patina mother sync --registry FILE` first".into(),
        )
        .into());
    }
    let project = options.project.as_deref().map(|p| resolve_node(&nodes, p)).transpose()?;
    let world = World::new(nodes, cues, project.as_deref());
    let mut report = IngestReport {
        exemplar_model: world.cues.exemplar_model.as_ref().map(|m| m.model_id().to_string()),
        ..IngestReport::default()
    };

    // Walk the inputs.
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut roots: Vec<PathBuf> = Vec::new();
    for path in paths {
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(err) => {
                report.skipped.push(Skipped { path: path.display().to_string(), reason: err.to_string() });
                continue;
            }
        };
        if meta.is_dir() {
            let root = canonical_or_absolute(path);
            walk(&root, &mut files, &mut report);
            roots.push(root);
        } else if input_kind(path).is_some() {
            files.insert(canonical_or_absolute(path));
        } else {
            report.skipped.push(Skipped {
                path: path.display().to_string(),
                reason: "not a recognised input (session log *.md, manifest, bench log *.jsonl)".into(),
            });
        }
    }
    report.files_seen = files.len();
    progress(Progress::Found { files: files.len() });

    // Extract and append, batching whole files per transaction.
    let mut pending: Vec<NewEvent> = Vec::new();
    let mut pending_cache: Vec<(String, [u8; 32])> = Vec::new();
    for (done, file) in files.iter().enumerate() {
        if let Some((events, cache)) = ingest_file(&log, &world, project.as_deref(), file, options, &mut report)? {
            pending.extend(events);
            pending_cache.push(cache);
        }
        if pending.len() >= BATCH_EVENTS {
            commit(&log, &mut pending, &mut pending_cache, &mut report)?;
        }
        progress(Progress::File { done: done + 1 });
    }
    commit(&log, &mut pending, &mut pending_cache, &mut report)?;

    // Files ingested before under these directories that are gone now.
    for root in &roots {
        let prefix = format!("{}/", root.display());
        for source in log.sources_under(&prefix)? {
            if files.contains(Path::new(&source)) || Path::new(&source).exists() {
                continue;
            }
            let retractions = retractions_for(&log, &source, &HashSet::new(), "was deleted")?;
            if !retractions.is_empty() {
                report.files_gone += 1;
                pending.extend(retractions);
            }
            pending_cache.push((source, [0; 32]));
        }
    }
    commit(&log, &mut pending, &mut pending_cache, &mut report)?;
    if let Some(model) = &world.cues.exemplar_model {
        model.save_cache();
    }
    Ok(report)
}

/// Retracts the live facts of files that no longer exist (e.g. a session log deleted
/// while `mother watch` runs) and forgets their cache entries. Paths that exist are left
/// alone. Returns the number of facts retracted.
pub fn retract_missing(store: &Store, paths: &[PathBuf]) -> Result<usize, Error> {
    let log = EventLog::new(store);
    let mut events = Vec::new();
    let mut forget = Vec::new();
    for path in paths {
        if path.exists() {
            continue;
        }
        // The file is gone, so canonicalise its directory, as ingest did when it existed.
        let absolute = match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) => canonical_or_absolute(dir).join(name),
            _ => canonical_or_absolute(path),
        };
        let Some(source) = absolute.to_str() else { continue };
        events.extend(retractions_for(&log, source, &HashSet::new(), "was deleted")?);
        forget.push(source.to_string());
    }
    let retracted = events.len();
    if !events.is_empty() || !forget.is_empty() {
        log.append_with(events, |txn| {
            let mut table = txn.open_table(INGEST_FILES)?;
            for source in &forget {
                table.remove(source.as_str())?;
            }
            Ok(())
        })?;
    }
    Ok(retracted)
}

/// Whether `path` is a file kind ingest reads (session log, manifest, bench log).
pub fn is_input(path: &Path) -> bool {
    input_kind(path).is_some()
}

fn walk(root: &Path, files: &mut BTreeSet<PathBuf>, report: &mut IngestReport) {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .follow_links(true)
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some(".git" | "node_modules" | "target")))
        .build();
    for entry in walker {
        match entry {
            // Not only regular files: a FIFO or socket with an input's name is handed to
            // the read, which refuses it, so it is listed as skipped rather than ignored.
            Ok(entry) if entry.file_type().is_some_and(|t| !t.is_dir()) => {
                if input_kind(entry.path()).is_some() {
                    files.insert(canonical_or_absolute(entry.path()));
                }
            }
            Ok(_) => {}
            Err(err) => report.skipped.push(Skipped {
                path: err_path(&err).unwrap_or_else(|| root.display().to_string()),
                reason: err.to_string(),
            }),
        }
    }
}

fn err_path(err: &ignore::Error) -> Option<String> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.display().to_string()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => err_path(err),
        ignore::Error::Loop { child, .. } => Some(child.display().to_string()),
        _ => None,
    }
}

fn commit(
    log: &EventLog<'_>,
    pending: &mut Vec<NewEvent>,
    cache: &mut Vec<(String, [u8; 32])>,
    report: &mut IngestReport,
) -> Result<(), Error> {
    if pending.is_empty() && cache.is_empty() {
        return Ok(());
    }
    let entries = std::mem::take(cache);
    let events = std::mem::take(pending);
    let mentions: Vec<(String, String, ContentHash)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Mention(m) => Some((m.repo.clone(), m.cue_class.to_string(), e.event.content_hash(&e.source))),
            _ => None,
        })
        .collect();
    let appended = log.append_with(events, |txn| {
        let mut table = txn.open_table(INGEST_FILES)?;
        for (path, fingerprint) in &entries {
            if *fingerprint == [0; 32] {
                table.remove(path.as_str())?;
            } else {
                table.insert(path.as_str(), fingerprint.as_slice())?;
            }
        }
        Ok(())
    })?;
    for (kind, n) in &appended.by_kind {
        if *kind == EventKind::Retracted {
            report.retracted += n;
        } else {
            *report.added.entry(kind.as_str().to_string()).or_default() += n;
        }
    }
    if appended.by_kind.contains_key(&EventKind::Mention) {
        // Count the mentions that were really appended (not already live).
        let appended_hashes: HashSet<ContentHash> = log_hashes(log, &appended.appended)?.into_iter().collect();
        for (repo, class, hash) in mentions {
            if appended_hashes.contains(&hash) {
                *report.mentions_by_node.entry(repo).or_default().entry(class).or_default() += 1;
            }
        }
    }
    Ok(())
}

fn log_hashes(log: &EventLog<'_>, seqs: &[u64]) -> Result<Vec<ContentHash>, Error> {
    let mut out = Vec::with_capacity(seqs.len());
    for seq in seqs {
        if let Some(e) = log.get(*seq)? {
            out.push(e.hash);
        }
    }
    Ok(out)
}

/// Repos the registry does not know, referenced as `owner/name` in the session logs
/// ingested so far (the files of the ingest cache, read again; a file gone or unreadable
/// since is reported and skipped). Never adds a node.
pub fn candidates(store: &Store, max_file_bytes: u64) -> Result<(candidates::Candidates, Vec<Skipped>), Error> {
    let log = EventLog::new(store);
    let nodes = log.nodes()?;
    // What the mention matcher knows a node by (ids, aliases, distinctive name parts:
    // `someorg/dojo` is a mention of dojo, never a candidate) and its package names.
    let mut known: HashSet<String> = HashSet::new();
    for node in nodes.values() {
        known.insert(node.id.to_lowercase());
        known.extend(node.aliases.iter().map(|a| a.to_lowercase()));
        for package in &node.packages {
            let package = package.to_lowercase();
            if let Some((_, name)) = package.split_once('/') {
                known.insert(name.to_string());
            }
            known.insert(package);
        }
    }
    let all: Vec<&NodeRegistered> = nodes.values().collect();
    known.extend(crate::registry::name_parts(&all).into_iter().map(|p| p.name));
    let files: Vec<String> = {
        let txn = store.begin_read()?;
        match txn.open_table(INGEST_FILES) {
            Ok(table) => {
                let mut out = Vec::new();
                for entry in redb::ReadableTable::iter(&table)? {
                    out.push(entry?.0.value().to_string());
                }
                out
            }
            Err(redb::TableError::TableDoesNotExist(_)) => Vec::new(),
            Err(err) => return Err(err.into()),
        }
    };
    let mut found = candidates::Candidates::default();
    let mut skipped = Vec::new();
    for file in files {
        let path = Path::new(&file);
        if input_kind(path) != Some(InputKind::Session) {
            continue;
        }
        let text = match read::read_bytes(path, max_file_bytes).and_then(read::decode) {
            Ok((text, _)) => text,
            Err(err) => {
                skipped.push(Skipped { path: file.clone(), reason: err.to_string() });
                continue;
            }
        };
        found.add(&file, candidates::find(&text, |n| known.contains(n)));
    }
    Ok((found, skipped))
}

fn cached_fingerprint(log_store: &Store, path: &str) -> Result<Option<[u8; 32]>, Error> {
    let txn = log_store.begin_read()?;
    let table = match txn.open_table(INGEST_FILES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    Ok(table.get(path)?.and_then(|v| v.value().try_into().ok()))
}

/// Retractions of the live facts from `source` whose hash is not in `keep`.
fn retractions_for(
    log: &EventLog<'_>,
    source: &str,
    keep: &HashSet<ContentHash>,
    why: &str,
) -> Result<Vec<NewEvent>, Error> {
    Ok(log
        .live_by_source(source)?
        .into_iter()
        .filter(|e| e.event.kind().is_fact() && !keep.contains(&e.hash))
        .map(|e| {
            NewEvent::new(
                Source::file(source, 0, 0),
                Event::Retracted(Retracted { target_seq: e.seq, reason: format!("{source} {why}") }),
            )
        })
        .collect())
}

type FileEvents = (Vec<NewEvent>, (String, [u8; 32]));

fn ingest_file(
    log: &EventLog<'_>,
    world: &World,
    project: Option<&str>,
    file: &Path,
    options: &IngestOptions,
    report: &mut IngestReport,
) -> Result<Option<FileEvents>, Error> {
    let shown = file.display().to_string();
    let Some(path) = file.to_str().map(str::to_string) else {
        report.skipped.push(Skipped { path: shown, reason: "path is not valid UTF-8".into() });
        return Ok(None);
    };
    let Some(kind) = input_kind(file) else { return Ok(None) };
    let bytes = match read::read_bytes(file, options.max_file_bytes) {
        Ok(bytes) => bytes,
        Err(why) => {
            report.skipped.push(Skipped { path, reason: why.to_string() });
            return Ok(None);
        }
    };
    let mut fingerprint = world.fingerprint.clone();
    fingerprint.update(&bytes);
    let fingerprint = *fingerprint.finalize().as_bytes();
    if !options.force && cached_fingerprint(log_store(log), &path)? == Some(fingerprint) {
        report.files_unchanged += 1;
        return Ok(None);
    }
    let n_bytes = bytes.len() as u64;
    let (text, lossy) = match read::decode(bytes) {
        Ok(decoded) => decoded,
        Err(why) => {
            report.skipped.push(Skipped { path, reason: why.to_string() });
            return Ok(None);
        }
    };
    if let Some(warning) = lossy {
        report.warnings.push(format!("{path}: {warning}"));
    }
    let Some(project) = project.or_else(|| world.project_for(file)) else {
        report.errors.push(format!(
            "{path}: cannot tell which project this file belongs to (no registered node's path contains it): pass --project ID"
        ));
        return Ok(None);
    };
    report.files_read += 1;
    report.bytes_read += n_bytes;
    // A markdown file is a session log unless it is a belief or core pattern file.
    let knowledge = if kind == InputKind::Session { belief::file_kind(file, &text) } else { None };
    let events = match (kind, knowledge) {
        (_, Some(knowledge)) => belief_events(project, file, &path, knowledge, &text, report),
        (InputKind::Session, None) => session_events(world, project, file, &path, &text, report),
        (InputKind::Manifest(kind), None) => manifest_events(world, project, kind, &path, &text, report),
        (InputKind::Bench, None) => bench_events(world, project, &path, &text, report),
    };
    // Events equal to an earlier one of the file would be no-ops at append (their hash is
    // live by then): drop them here, hashing each event once (a line naming a repo
    // 100,000 times makes 100,000 mentions and a handful of distinct events).
    let mut keep: HashSet<ContentHash> = HashSet::with_capacity(events.len());
    let mut all: Vec<NewEvent> = events.into_iter().filter(|e| keep.insert(e.event.content_hash(&e.source))).collect();
    all.extend(retractions_for(log, &path, &keep, "no longer says this")?);
    Ok(Some((all, (path, fingerprint))))
}

fn log_store<'a>(log: &'a EventLog<'_>) -> &'a Store {
    log.store()
}

/// A belief or core pattern file: its belief and its relations, each sourced to its lines.
fn belief_events(
    project: &str,
    file: &Path,
    path: &str,
    kind: belief::FileKind,
    text: &str,
    report: &mut IngestReport,
) -> Vec<NewEvent> {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("belief");
    let doc = belief::parse(project, path, stem, kind, text);
    report.warnings.extend(doc.warnings);
    let mut events = vec![NewEvent::new(Source::file(path, 1, doc.lines), Event::Belief(doc.belief))];
    events.extend(
        doc.relations
            .into_iter()
            .map(|(relation, line)| NewEvent::new(Source::file(path, line, line), Event::Relation(relation))),
    );
    events
}

fn session_events(
    world: &World,
    project: &str,
    file: &Path,
    path: &str,
    text: &str,
    report: &mut IngestReport,
) -> Vec<NewEvent> {
    let meta = session::meta(file, text);
    let mut mentions = mention::extract(text, &world.matcher, &world.cues, Some(project));
    if let Some(model) = &world.cues.exemplar_model {
        classify_by_exemplars(model, path, &mut mentions, &world.cues, report);
    }
    mentions
        .into_iter()
        .map(|m| {
            NewEvent::new(
                Source::file(path, m.line, m.line),
                Event::Mention(Mention {
                    project: project.to_string(),
                    repo: world.order[m.node].clone(),
                    session_id: meta.id.clone(),
                    session_date: meta.date.clone(),
                    cue_class: m.cue_class,
                    cue: m.cue,
                    strong_cue: m.strong_cue,
                    matched: m.matched,
                    sentence: m.sentence,
                    co_mentions: m.co_mentions,
                }),
            )
        })
        .collect()
}

/// Distinct sentences one file may send to the exemplars: a file of a million mentions,
/// each in its own sentence, would otherwise embed for hours. Beyond it, phrases alone.
const MAX_EXEMPLAR_TEXTS_PER_FILE: usize = 2_000;

/// Gives the mentions that phrases left plain or weak the cue their nearest exemplars vote
/// for (`exemplars.rs`): strong only when another sentence seconds it
/// ([`second_exemplar_cues`]). Endings, strong cues, cues bound to the mention's
/// own noun phrase (a compound: "the Dagger-based setup"), voided mentions (a plan, a
/// hypothesis, a negated phrase), mentions in code blocks (not prose), bulk lines and a
/// repo's second mention on a line where the first has a cue of its own are left alone,
/// and so is a decision for a class the file's own words never give a repo they give
/// another class strongly;
/// a mention whose sentence is past the file's [`MAX_EXEMPLAR_TEXTS_PER_FILE`] distinct
/// sentences keeps its phrase cue (one warning names the file).
fn classify_by_exemplars(
    model: &exemplars::ExemplarModel,
    path: &str,
    mentions: &mut [mention::FoundMention],
    cues: &cues::Cues,
    report: &mut IngestReport,
) {
    let bulk = cues.bulk_min_distinct_nodes;
    let mut distinct: Vec<String> = Vec::new();
    let mut slot: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut left = 0;
    let is_decided = |m: &mention::FoundMention| {
        m.strong_cue || m.bound || m.voided || !m.prose || m.cue_class == crate::event::CueClass::Ending
    };
    // A line that names a repo twice, once with a cue of its own ("feat(store): experimental
    // turso backend behind --features turso"): that cue speaks for the repo on the line.
    let decided_on_line: std::collections::HashSet<(u32, usize)> = mentions
        .iter()
        .filter(|m| !m.voided && (m.strong_cue || m.bound) && m.cue_class != crate::event::CueClass::Plain)
        .map(|m| (m.line, m.node))
        .collect();
    // What the file's own words (phrases, compounds, commands) say of each repo: a strong
    // cue of a class, or any cue at all of it.
    let phrased: std::collections::HashSet<(usize, crate::event::CueClass, bool)> = mentions
        .iter()
        .filter(|m| !m.voided && m.cue_class != crate::event::CueClass::Plain)
        .map(|m| (m.node, m.cue_class, m.strong_cue))
        .collect();
    for (i, m) in mentions.iter().enumerate() {
        if is_decided(m) || m.co_mentions as usize >= bulk || decided_on_line.contains(&(m.line, m.node)) {
            continue;
        }
        let text = exemplars::compared_text(&m.sentence, &m.matched, m.lead_in.as_deref());
        let next = distinct.len();
        let at = match slot.get(&text) {
            Some(&at) => at,
            None if next < MAX_EXEMPLAR_TEXTS_PER_FILE => {
                slot.insert(text.clone(), next);
                distinct.push(text);
                next
            }
            None => {
                left += 1;
                continue;
            }
        };
        open.push((i, at));
    }
    if left > 0 {
        report.warnings.push(format!(
            "{path}: {left} mention(s) keep their phrase cues: exemplars classify at most \
             {MAX_EXEMPLAR_TEXTS_PER_FILE} distinct sentences per file"
        ));
    }
    match model.classify(&distinct) {
        Ok(decisions) => {
            let mut by_exemplar = Vec::new();
            for (i, at) in open {
                let Some(decision) = &decisions[at] else { continue };
                let m = &mut mentions[i];
                // A class the file's words never give the repo, when they give it another
                // strongly ("cargo add turso", then "turso is 5x slower per query"): the
                // nearest exemplars read the same relation another way.
                // Looked up per class in `phrased`, not scanned: a file of many decisions
                // stays linear.
                let other_class_said = crate::event::CueClass::ALL.iter().any(|&class| {
                    class != decision.class
                        && class != crate::event::CueClass::Ending
                        && phrased.contains(&(m.node, class, true))
                });
                let own_class_said =
                    [true, false].iter().any(|&strong| phrased.contains(&(m.node, decision.class, strong)));
                if other_class_said && !own_class_said {
                    continue;
                }
                m.cue_class = decision.class;
                m.cue = decision.describe();
                // A resemblance is a weak cue until another sentence seconds it (below),
                // unless it reads a sweep of test subjects, which is strong as a phrase's is.
                m.strong_cue = false;
                mention::sweep_of_subjects(m, cues);
                report.exemplar_cues += 1;
                if !m.strong_cue {
                    by_exemplar.push(i);
                }
            }
            second_exemplar_cues(mentions, &by_exemplar);
        }
        Err(why) => {
            let warning = format!("cue exemplars are off for this run ({why}): phrases alone classify mentions");
            if !report.warnings.contains(&warning) {
                report.warnings.push(warning);
            }
            report.exemplar_model = None;
        }
    }
}

/// An exemplar's class is a resemblance, not the author's words: it is a strong cue (one
/// session makes the edge) only when another sentence of the same file gives the same repo
/// the same class, by a phrase (weak or strong) or by the exemplars too ("Real-world scrape
/// data (SDL):" and, further down, "Performance Results (SDL repo scrape):"). Alone in its
/// log it is a weak cue, which needs a second session like a weak phrase (and makes no
/// testing or learning edge by itself). A sentence copied word for word (a recap repeating
/// a bullet) is no second reading. The cue says which it is, so `explain` shows it.
/// `by_exemplar` are the mentions the exemplars classified and left weak.
///
/// Chosen on the fit data (stop 51): of the edges that rested on one exemplar-classified
/// mention in one session, 4 of 7 in the fit trap logs were wrong; the fit sets derived
/// whole lose 2 wrong edges and no right one, and the fit real logs no edge.
fn second_exemplar_cues(mentions: &mut [mention::FoundMention], by_exemplar: &[usize]) {
    // Per (repo, class): the lines of the first two distinct sentences that say it. Of two
    // distinct sentences at least one differs from any mention's own, so one pass and one
    // lookup each: a file of many mentions costs O(mentions).
    type Said<'a> = [Option<(u32, &'a str)>; 2];
    let mut said: std::collections::HashMap<(usize, crate::event::CueClass), Said<'_>> =
        std::collections::HashMap::new();
    for m in mentions.iter().filter(|m| !m.voided) {
        let entry = said.entry((m.node, m.cue_class)).or_insert([None, None]);
        match entry {
            [None, _] => entry[0] = Some((m.line, m.sentence.as_str())),
            [Some((_, first)), None] if *first != m.sentence => entry[1] = Some((m.line, m.sentence.as_str())),
            _ => {}
        }
    }
    let seconds: Vec<Option<u32>> = by_exemplar
        .iter()
        .map(|&i| {
            let m = &mentions[i];
            said.get(&(m.node, m.cue_class))
                .and_then(|entry| entry.iter().flatten().find(|(_, sentence)| *sentence != m.sentence))
                .map(|&(line, _)| line)
        })
        .collect();
    for (&i, second) in by_exemplar.iter().zip(seconds) {
        let m = &mut mentions[i];
        match second {
            Some(line) => {
                m.strong_cue = true;
                m.cue.push_str(&format!(", seconded by line {line}"));
            }
            None => m.cue.push_str(", alone in its log"),
        }
    }
}

fn manifest_events(
    world: &World,
    project: &str,
    kind: manifest::ManifestKind,
    path: &str,
    text: &str,
    report: &mut IngestReport,
) -> Vec<NewEvent> {
    let deps = match manifest::dependencies(kind, text) {
        Ok(deps) => deps,
        Err(err) => {
            report.warnings.push(format!("{path}: not a valid manifest: {err}"));
            return Vec::new();
        }
    };
    deps.into_iter()
        .filter_map(|dep| {
            let repo = world.node_for_dependency(&dep.name)?;
            (repo != project).then(|| {
                NewEvent::new(
                    Source::file(path, dep.line, dep.line),
                    Event::Import(Import {
                        project: project.to_string(),
                        repo: repo.to_string(),
                        manifest: path.to_string(),
                        dependency: dep.name,
                    }),
                )
            })
        })
        .collect()
}

fn bench_events(world: &World, project: &str, path: &str, text: &str, report: &mut IngestReport) -> Vec<NewEvent> {
    let (runs, diagnostics) = bench_log::parse(text);
    report.warnings.extend(diagnostics.into_iter().map(|d| format!("{path}: {d}")));
    let mut out = Vec::new();
    for (line, run) in runs {
        let resolve = |given: &str| resolve_node(&world.nodes, given).ok();
        let Some(repo) = resolve(&run.repo) else {
            report.warnings.push(format!("{path}: line {line}: unknown repo '{}'", run.repo));
            continue;
        };
        let run_project = match run.project.as_deref() {
            Some(given) => match resolve(given) {
                Some(p) => p,
                None => {
                    report.warnings.push(format!("{path}: line {line}: unknown project '{given}'"));
                    continue;
                }
            },
            None => project.to_string(),
        };
        if run_project == repo {
            continue;
        }
        out.push(NewEvent::new(
            Source::file(path, line, line),
            Event::BenchRun(BenchRun {
                project: run_project,
                repo,
                suite: run.suite,
                command: run.command,
                when: run.when,
            }),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::event::CueClass;
    use crate::search::embed::{EmbedError, Embedder, HashEmbedder};

    /// Counts the texts it embeds.
    struct Counting(Arc<Mutex<usize>>);

    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            "counting"
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            *self.0.lock().unwrap() += texts.len();
            HashEmbedder.embed(texts)
        }
    }

    fn mention(sentence: String) -> mention::FoundMention {
        mention::FoundMention {
            node: 0,
            line: 1,
            matched: "dojo".into(),
            sentence,
            cue_class: CueClass::Plain,
            cue: String::new(),
            strong_cue: false,
            co_mentions: 1,
            sentence_co_mentions: 1,
            lead_in: None,
            bound: false,
            inherited: false,
            voided: false,
            prose: true,
        }
    }

    #[test]
    fn one_file_sends_at_most_its_cap_of_distinct_sentences_to_the_exemplars() {
        let seen = Arc::new(Mutex::new(0));
        let counter = seen.clone();
        let exemplars = exemplars::Exemplars::load(&[]).unwrap();
        let n_exemplars = exemplars.sentences.len();
        let model = exemplars::ExemplarModel::new(
            exemplars,
            "counting",
            Box::new(move || Ok(Box::new(Counting(counter)) as Box<dyn Embedder>)),
            None,
        );
        // The cap's worth of distinct sentences, each twice, and 50 more past the cap.
        let mut mentions: Vec<_> = (0..MAX_EXEMPLAR_TEXTS_PER_FILE + 50)
            .flat_map(|i| {
                let m = mention(format!("Sentence number {i} names dojo."));
                if i < MAX_EXEMPLAR_TEXTS_PER_FILE { vec![m.clone(), m] } else { vec![m] }
            })
            .collect();
        let mut report = IngestReport::default();
        classify_by_exemplars(&model, "big.md", &mut mentions, &cues::Cues::load(&[]).unwrap(), &mut report);
        assert_eq!(*seen.lock().unwrap(), n_exemplars + MAX_EXEMPLAR_TEXTS_PER_FILE);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.warnings[0].starts_with("big.md: 50 mention(s) keep their phrase cues"),
            "{:?}",
            report.warnings
        );
    }

    #[test]
    fn an_exemplar_cue_is_strong_only_when_another_sentence_says_the_same() {
        let at = |line: u32, node: usize, class: CueClass, strong: bool, cue: &str, sentence: &str| {
            let mut m = mention(sentence.to_string());
            (m.line, m.node, m.cue_class, m.strong_cue) = (line, node, class, strong);
            m.cue = cue.into();
            m
        };
        use CueClass::{Learning, Testing};
        let mut mentions = vec![
            // 0, 1: one sentence naming the repo twice, then a copy of it: no second.
            at(1, 0, Testing, false, "exemplar \"a\" (0.70)", "Ran it over dojo and dojo again."),
            at(1, 0, Testing, false, "exemplar \"a\" (0.70)", "Ran it over dojo and dojo again."),
            at(9, 0, Testing, false, "exemplar \"a\" (0.70)", "Ran it over dojo and dojo again."),
            // 3: a weak phrase of the class on an earlier line seconds 4.
            at(2, 1, Testing, false, "scraped", "Scraped SDL."),
            at(3, 1, Testing, false, "exemplar \"b\" (0.71)", "SDL: 12k symbols in 3 s."),
            // 5, 6: two resemblances in two sentences second each other.
            at(4, 2, Learning, false, "exemplar \"c\" (0.72)", "Went through loro's sync code."),
            at(5, 2, Learning, false, "exemplar \"c\" (0.70)", "loro keeps one oplog per doc."),
            // 7: another class says nothing for it; 8: a voided phrase seconds nothing.
            at(6, 3, Learning, false, "exemplar \"d\" (0.73)", "Read the codex sandbox."),
            at(7, 3, Testing, true, "failed on", "Scrape failed on codex."),
            at(8, 3, Learning, true, "studied", "Never studied codex."),
        ];
        mentions[9].voided = true;
        second_exemplar_cues(&mut mentions, &[0, 1, 2, 4, 5, 6, 7]);
        let seen: Vec<(bool, &str)> = mentions.iter().map(|m| (m.strong_cue, m.cue.as_str())).collect();
        for copy in &seen[0..3] {
            assert_eq!(*copy, (false, "exemplar \"a\" (0.70), alone in its log"));
        }
        assert_eq!(seen[3], (false, "scraped"), "a phrase is left as it is");
        assert_eq!(seen[4], (true, "exemplar \"b\" (0.71), seconded by line 2"));
        assert_eq!(seen[5], (true, "exemplar \"c\" (0.72), seconded by line 5"));
        assert_eq!(seen[6], (true, "exemplar \"c\" (0.70), seconded by line 4"));
        assert_eq!(seen[7], (false, "exemplar \"d\" (0.73), alone in its log"));
    }

    /// The path from the model's decisions to the cues, without the model: the hash
    /// embedder puts a sentence next to exemplars of the same words, so made-up exemplars
    /// decide. A resemblance seconded by another line of the file is strong, one alone in
    /// its log is weak, and a class the file's words never give a repo they give another
    /// class strongly is left out.
    #[test]
    fn exemplar_decisions_reach_the_cues_seconded_alone_or_left_out() {
        let extra = r#"
[testing]
sentences = [
  "REPO zebra quokka narwhal",
  "REPO zebra quokka narwhal axolotl",
  "REPO zebra quokka narwhal okapi",
  "REPO zebra quokka narwhal tapir",
  "REPO zebra quokka narwhal pangolin",
]
"#;
        let exemplars = exemplars::Exemplars::load(&[("test".into(), extra.into())]).unwrap();
        let model = exemplars::ExemplarModel::new(
            exemplars,
            "hash",
            Box::new(|| Ok(Box::new(HashEmbedder) as Box<dyn Embedder>)),
            None,
        );
        let at = |line: u32, node: usize, matched: &str, sentence: &str| {
            let mut m = mention(sentence.to_string());
            (m.line, m.node, m.matched) = (line, node, matched.into());
            m
        };
        let mut using = at(7, 2, "loro", "Bumped loro for the release.");
        (using.cue_class, using.cue, using.strong_cue) = (CueClass::Using, "bumped".into(), true);
        let mut mentions = vec![
            at(1, 0, "dojo", "dojo zebra quokka narwhal."),
            at(3, 0, "dojo", "dojo zebra quokka narwhal axolotl."),
            at(5, 1, "SDL", "SDL zebra quokka narwhal."),
            at(6, 2, "loro", "loro zebra quokka narwhal."),
            using,
        ];
        let mut report = IngestReport::default();
        classify_by_exemplars(&model, "a.md", &mut mentions, &cues::Cues::load(&[]).unwrap(), &mut report);
        let seen: Vec<(CueClass, bool, &str)> =
            mentions.iter().map(|m| (m.cue_class, m.strong_cue, m.cue.as_str())).collect();
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        for (i, second) in [(0, 3), (1, 1)] {
            assert_eq!((seen[i].0, seen[i].1), (CueClass::Testing, true), "{seen:?}");
            assert!(seen[i].2.starts_with("exemplar \"REPO zebra quokka narwhal"), "{seen:?}");
            assert!(seen[i].2.ends_with(&format!(", seconded by line {second}")), "{seen:?}");
        }
        assert_eq!((seen[2].0, seen[2].1), (CueClass::Testing, false), "{seen:?}");
        assert!(seen[2].2.ends_with(", alone in its log"), "{seen:?}");
        assert_eq!(seen[3], (CueClass::Plain, false, ""), "loro is used strongly in the file: {seen:?}");
        assert_eq!(report.exemplar_cues, 3);
    }

    #[test]
    fn a_model_that_fails_to_load_leaves_the_phrase_cues_and_warns_once() {
        let loader: exemplars::EmbedderLoader =
            Box::new(|| Err(EmbedError::Model { path: "model.onnx".into(), detail: "truncated file".into() }));
        let model = exemplars::ExemplarModel::new(exemplars::Exemplars::load(&[]).unwrap(), "broken", loader, None);
        let mut report = IngestReport { exemplar_model: Some("broken".into()), ..IngestReport::default() };
        for file in ["a.md", "b.md"] {
            let mut mentions = vec![mention("Ran the extractor over dojo: 1,000 symbols.".into())];
            classify_by_exemplars(&model, file, &mut mentions, &cues::Cues::load(&[]).unwrap(), &mut report);
            assert_eq!((mentions[0].cue_class, mentions[0].strong_cue), (CueClass::Plain, false));
        }
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(report.warnings[0].contains("truncated file") && report.warnings[0].contains("phrases alone"));
        assert_eq!((report.exemplar_model, report.exemplar_cues), (None, 0));
    }
}
