//! Repositories as library operations: register (a `NodeRegistered` event) and index,
//! re-index, embed, list, remove. The CLI's `patina repo …` and later the MCP server call
//! these.
//!
//! Invariant: only [`register`] and [`remove`] write to the mother event log; indexing
//! and embedding write only under `$PATINA_HOME/repos/<id>/`, which is derived state.
//! Invariant: [`remove`] first renames the index directory out of the way (one atomic
//! step), so an embedder still running on it finds it gone and stops; nothing recreates it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, InvalidInput};
use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::event::{Event, NodeKind, NodeRegistered, NodeRemoved, Source};
use crate::home::PatinaHome;
use crate::home::expand_home;
use crate::registry::validate_id;
use crate::search::backfill;
use crate::search::embed::Embedder;
use crate::search::index::{self, BuildReport, IndexMeta, Progress};

/// A repo operation failed: in the log (the foundation) or in its index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepoError {
    #[error(transparent)]
    Foundation(#[from] Error),
    #[error(transparent)]
    Index(#[from] index::IndexError),
}

impl From<InvalidInput> for RepoError {
    fn from(err: InvalidInput) -> Self {
        RepoError::Foundation(err.into())
    }
}

/// `patina repo add`: what to register.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    pub path: PathBuf,
    pub id: Option<String>,
    pub kind: Option<NodeKind>,
    pub domains: Option<Vec<String>>,
}

/// What [`register`] did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Registered {
    pub node: NodeRegistered,
    /// The appended event's seq, or `None` when the log already said exactly this.
    pub seq: Option<u64>,
}

/// Registers (or re-registers) a repository directory as a node. An existing node of the
/// same id keeps the fields not given (summary, aliases, packages; kind and domains
/// unless given).
pub fn register(log: &EventLog<'_>, request: &AddRequest) -> Result<Registered, Error> {
    let root = std::fs::canonicalize(&request.path)
        .map_err(|e| InvalidInput::Other(format!("{}: {e} (repo add takes a directory)", request.path.display())))?;
    if !root.is_dir() {
        return Err(InvalidInput::Other(format!("{}: not a directory", root.display())).into());
    }
    let id = match &request.id {
        Some(id) => id.trim().to_string(),
        None => root
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .ok_or_else(|| InvalidInput::Other(format!("{}: cannot name this directory; pass --id", root.display())))?,
    };
    validate_id(&id).map_err(InvalidInput::Other)?;
    let nodes = log.nodes()?;
    let existing = nodes.get(&id).cloned().or_else(|| {
        let lower = id.to_lowercase();
        nodes.values().find(|n| n.id.to_lowercase() == lower).cloned()
    });
    let domains = request.domains.as_ref().map(|d| {
        let mut d: Vec<String> =
            d.iter().map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()).collect::<Vec<_>>();
        d.sort();
        d.dedup();
        d
    });
    let node = match existing {
        Some(old) => NodeRegistered {
            path: Some(root.display().to_string()),
            kind: request.kind.unwrap_or(old.kind),
            domains: domains.unwrap_or(old.domains.clone()),
            ..old
        },
        None => NodeRegistered {
            id,
            kind: request.kind.unwrap_or(NodeKind::Reference),
            path: Some(root.display().to_string()),
            domains: domains.unwrap_or_default(),
            summary: None,
            aliases: Vec::new(),
            packages: Vec::new(),
        },
    };
    let report = log.append([crate::event::log::NewEvent::new(Source::Cli, Event::NodeRegistered(node.clone()))])?;
    Ok(Registered { node, seq: report.appended.first().copied() })
}

/// The directory a registered node points at.
pub fn node_root(node: &NodeRegistered) -> Result<PathBuf, InvalidInput> {
    match &node.path {
        Some(path) => Ok(expand_home(path)),
        None => Err(InvalidInput::Other(format!(
            "node '{}' has no path; register its directory with `patina repo add PATH --id {}`",
            node.id, node.id
        ))),
    }
}

/// Builds (or incrementally rebuilds) the index of a registered node and makes it live:
/// the lexical part, and for `model_id` the vectors the cache has. The chunks left without
/// a vector (`chunks_pending`) are for [`embed`] or the background worker.
pub fn index(
    home: &PatinaHome,
    node: &NodeRegistered,
    model_id: Option<&str>,
    progress: Progress<'_>,
) -> Result<BuildReport, RepoError> {
    let root = node_root(node)?;
    Ok(index::build_lexical(&home.repo_dir(&node.id), &node.id, &root, model_id, progress)?)
}

/// Embeds the pending chunks of a repo's live index in this process (returns
/// [`backfill::Outcome::Busy`] at once when another process embeds it).
pub fn embed(
    home: &PatinaHome,
    id: &str,
    embedder: &mut dyn Embedder,
    on_step: &mut dyn FnMut(&backfill::Progress),
) -> Result<backfill::Report, RepoError> {
    Ok(backfill::run(&home.repo_dir(id), embedder, &backfill::Config::default(), on_step, &|| false)?)
}

/// Resolves a repo given by id or alias.
pub fn resolve(nodes: &BTreeMap<String, NodeRegistered>, given: &str) -> Result<NodeRegistered, InvalidInput> {
    let id = resolve_node(nodes, given)?;
    Ok(nodes[&id].clone())
}

/// Removes a repo: a `NodeRemoved` event, then its index directory.
pub fn remove(log: &EventLog<'_>, home: &PatinaHome, given: &str) -> Result<String, Error> {
    let nodes = log.nodes()?;
    let id = resolve_node(&nodes, given)?;
    log.append([crate::event::log::NewEvent::new(
        Source::Cli,
        Event::NodeRemoved(NodeRemoved { id: id.clone(), reason: Some("patina repo rm".into()) }),
    )])?;
    let dir = home.repo_dir(&id);
    if dir.exists() {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let doomed = home.repos_dir().join(format!(".removing-{name}-{}", std::process::id()));
        let removed = std::fs::rename(&dir, &doomed).and_then(|()| std::fs::remove_dir_all(&doomed));
        removed.map_err(|e| InvalidInput::Other(format!("{}: could not remove the index: {e}", dir.display())))?;
    }
    Ok(id)
}

/// One line of `repo list`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RepoStatus {
    pub id: String,
    pub kind: NodeKind,
    pub path: Option<String>,
    pub domains: Vec<String>,
    /// `indexed`, `not-indexed` or `unreadable`.
    pub state: &'static str,
    pub files: Option<u64>,
    pub chunks: Option<u64>,
    /// The embedding model of the index, `None` when lexical only or not indexed.
    pub model_id: Option<String>,
    pub index_bytes: Option<u64>,
    pub indexed_at_ms: Option<i64>,
    pub error: Option<String>,
    /// The semantic channel's coverage and its embedder; `None` when lexical only or not
    /// indexed.
    pub embedding: Option<Embedding>,
}

/// How far the embedding of a repo's live index is.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Embedding {
    pub model_id: String,
    /// Chunks with a published vector (what `scry` searches by meaning).
    pub embedded: u64,
    pub chunks: u64,
    /// `done`, `embedding`, `queued` (a worker will reach it), `stalled` (nothing embeds
    /// it: `patina repo embed ID` resumes) or `failed` (see `error`).
    pub state: backfill::State,
    /// The embedder's pid while one runs.
    pub pid: Option<u32>,
    /// Chunks with a vector in the cache (ahead of `embedded` until the next publication).
    pub done: Option<u64>,
    pub chunks_per_s: Option<f64>,
    /// Seconds left at the current rate.
    pub eta_s: Option<u64>,
    pub error: Option<String>,
}

/// Every registered node with its index state, by id.
pub fn list(log: &EventLog<'_>, home: &PatinaHome) -> Result<Vec<RepoStatus>, Error> {
    let nodes = log.nodes()?;
    Ok(nodes.values().map(|node| status(home, node)).collect())
}

fn status(home: &PatinaHome, node: &NodeRegistered) -> RepoStatus {
    let dir = home.repo_dir(&node.id);
    let mut status = RepoStatus {
        id: node.id.clone(),
        kind: node.kind,
        path: node.path.clone(),
        domains: node.domains.clone(),
        state: "not-indexed",
        files: None,
        chunks: None,
        model_id: None,
        index_bytes: None,
        indexed_at_ms: None,
        error: None,
        embedding: None,
    };
    match index::open_chunks(&dir, &node.id) {
        Ok(generation) => {
            let meta: &IndexMeta = &generation.meta;
            status.state = "indexed";
            status.files = Some(meta.files);
            status.chunks = Some(meta.chunks);
            if let Some(set) = &generation.vector_set {
                status.model_id = Some(set.model_id.clone());
                let now = backfill::status(&dir, &meta.generation, set, crate::worker::is_active(home));
                let running = now.progress.as_ref().filter(|_| now.state == backfill::State::Embedding);
                let rate = running.map(|p| p.chunks_per_s).filter(|r| *r > 0.0);
                let done = now.progress.as_ref().map(|p| p.done.max(set.embedded));
                status.embedding = Some(Embedding {
                    model_id: set.model_id.clone(),
                    embedded: set.embedded,
                    chunks: set.chunks,
                    state: now.state,
                    pid: now.pid,
                    done,
                    chunks_per_s: rate,
                    eta_s: rate
                        .map(|r| (set.chunks.saturating_sub(done.unwrap_or(set.embedded)) as f64 / r).ceil() as u64),
                    error: now.error,
                });
            }
            status.index_bytes = Some(index::dir_size(&dir.join(&meta.generation)));
            status.indexed_at_ms = Some(meta.built_ms);
        }
        Err(index::IndexError::NotIndexed { .. }) => {}
        Err(e) => {
            status.state = "unreadable";
            status.error = Some(e.to_string());
        }
    }
    status
}

/// The registered node whose directory contains `dir` (the deepest one), if any.
pub fn containing(nodes: &BTreeMap<String, NodeRegistered>, dir: &Path) -> Option<NodeRegistered> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    nodes
        .values()
        .filter_map(|node| {
            let root = node_root(node).ok()?;
            let root = std::fs::canonicalize(&root).unwrap_or(root);
            dir.starts_with(&root).then(|| (root.components().count(), node))
        })
        .max_by_key(|(depth, _)| *depth)
        .map(|(_, node)| node.clone())
}
