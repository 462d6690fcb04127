//! `scry`: run a search, remember it under a query id, and expand one of its results.
//!
//! Two-step retrieval: [`scry`] returns snippets (path, lines, summary, scores) under a
//! short query id; [`detail`] returns one ranked chunk in full with a few lines of
//! context on each side.
//!
//! Invariant: [`detail`] serves text only from the repo's index (the chunk store), found
//! by the stored chunk id and verified by its content hash; it never opens a path taken
//! from the user or from the stored query, so no id or rank can reach another file.

pub mod route;
pub mod store;

use std::collections::{BTreeMap, BTreeSet};

use crate::home::PatinaHome;
use crate::search::index::{self, IndexError, StoredChunk};
use crate::search::{Hit, SearchError, SearchRequest, SearchResult, Searcher};
use route::Route;
use store::{QueryStore, QueryStoreError, StoredHit, StoredQuery};

/// Lines of context shown before and after a chunk.
pub const CONTEXT_LINES: usize = 5;

/// `scry` or `--detail` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScryError {
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] QueryStoreError),
    #[error("unknown query id '{id}' (query ids look like q1, q2a; run a query first)")]
    UnknownQuery { id: String },
    #[error("query {id} has {n} results; rank {rank} is not one of them (ranks start at 1)")]
    RankOutOfRange { id: String, rank: usize, n: usize },
    #[error(
        "{repo}:{path}:{start_line}: the index changed since query {id} and this chunk is no longer in it; run the query again"
    )]
    ChunkGone { id: String, repo: String, path: String, start_line: u32 },
}

/// A search with its query id.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Scry {
    pub query_id: String,
    pub query: String,
    pub repos: Vec<String>,
    /// Why each repo was (not) searched.
    pub route: Route,
    /// Per hit (same order as `result.hits`): why its repo was searched.
    pub provenance: Vec<String>,
    #[serde(flatten)]
    pub result: SearchResult,
}

/// Searches the route's repos, weights each hit by its repo's route factor, and stores
/// the results under a new query id.
pub fn scry(
    home: &PatinaHome,
    searcher: &mut Searcher,
    route: &Route,
    query: &str,
    limit: usize,
) -> Result<Scry, ScryError> {
    let request = SearchRequest { repos: route.repos(), query: query.to_string(), limit };
    let result = search_routed(searcher, route, query, limit)?;
    let provenance: Vec<String> = result.hits.iter().map(|h| provenance(route, h)).collect();
    let stored = StoredQuery {
        project: route.project.clone(),
        query: request.query.clone(),
        repos: request.repos.clone(),
        ts_ms: jiff::Timestamp::now().as_millisecond(),
        hits: result
            .hits
            .iter()
            .map(|h| StoredHit {
                repo: h.repo.clone(),
                path: h.path.clone(),
                start_line: h.start_line,
                end_line: h.end_line,
                language: h.language.clone(),
                symbol: h.symbol.clone(),
                summary: h.summary.clone(),
                fused_score: h.fused_score,
                lexical: h.lexical,
                semantic: h.semantic,
                chunk_id: h.chunk_id,
                chunk_hash: h.chunk_hash,
                route: route.reason(&h.repo).unwrap_or("").to_string(),
            })
            .collect(),
    };
    let query_id = QueryStore::open(&home.scry_path())?.insert(&stored)?;
    Ok(Scry {
        query_id,
        query: request.query.clone(),
        repos: request.repos.clone(),
        route: route.clone(),
        provenance,
        result,
    })
}

/// RRF's constant, for ranks within one repo.
const REPO_RANK_K: f64 = 60.0;

/// Searches the route's repos and merges their results fairly: raw BM25 scores are not
/// comparable across indexes (each has its own term statistics), so each hit is scored by
/// its rank *within its repo*, `factor / (60 + rank)`, where `factor` is the repo's route
/// factor ([`route::Routed::factor`]: mostly how likely the repo is to hold the answer,
/// by its selection pre-score, plus small bonuses for the local project, named repos and
/// edge weight). The repos' best results thus interleave near the top, the likeliest
/// repo's first.
pub fn search_routed(
    searcher: &mut Searcher,
    route: &Route,
    query: &str,
    limit: usize,
) -> Result<SearchResult, SearchError> {
    // Each repo answers on its own (its ranks are its own); the query is embedded once.
    let mut merged: Option<SearchResult> = None;
    for repo in route.repos() {
        let request = SearchRequest { repos: vec![repo.clone()], query: query.to_string(), limit };
        let mut result = searcher.search(&request)?;
        for (rank, hit) in result.hits.iter_mut().enumerate() {
            hit.fused_score = (route.factor(&hit.repo) / (REPO_RANK_K + rank as f64 + 1.0)) as f32;
        }
        match &mut merged {
            None => merged = Some(result),
            Some(all) => {
                all.hits.extend(result.hits);
                for w in result.warnings {
                    if !all.warnings.contains(&w) {
                        all.warnings.push(w);
                    }
                }
            }
        }
    }
    let mut result = merged.ok_or(SearchError::NoRepos)?;
    result.hits.sort_by(|a, b| b.fused_score.total_cmp(&a.fused_score).then_with(|| a.repo.cmp(&b.repo)));
    result.hits.truncate(limit);
    Ok(result)
}

/// Where a query should come from and go to (the CLI's and MCP's choices).
#[derive(Debug, Clone, Default)]
pub struct RouteChoice {
    /// The project to route from [default: the registered repo containing `cwd`].
    pub project: Option<String>,
    /// Search exactly these repos (ids or aliases).
    pub repos: Vec<String>,
    /// Search every indexed repo.
    pub all: bool,
}

/// Plans the route of `query`: resolves the project and repos, reads the project's edges
/// from the (refreshed) graph and routes. Errors name what is missing.
pub fn plan(
    store: &crate::store::Store,
    home: &PatinaHome,
    searcher: &mut Searcher,
    cwd: &std::path::Path,
    choice: &RouteChoice,
    query: &str,
) -> Result<Route, crate::Error> {
    use crate::error::InvalidInput;
    let log = crate::event::log::EventLog::new(store);
    let nodes = log.nodes()?;
    let indexed: std::collections::BTreeSet<String> =
        crate::repo::list(&log, home)?.into_iter().filter(|r| r.state == "indexed").map(|r| r.id).collect();
    let project = match &choice.project {
        Some(p) => Some(crate::repo::resolve(&nodes, p)?.id),
        None => crate::repo::containing(&nodes, cwd).map(|n| n.id),
    };
    let mode = if choice.all {
        if indexed.is_empty() {
            return Err(InvalidInput::Other("no repo is indexed yet (run `patina repo add PATH`)".into()).into());
        }
        route::Mode::All
    } else if !choice.repos.is_empty() {
        let mut ids = Vec::new();
        for id in &choice.repos {
            let node = crate::repo::resolve(&nodes, id)?;
            if !ids.contains(&node.id) {
                ids.push(node.id);
            }
        }
        route::Mode::Forced(ids)
    } else if project.is_some() {
        route::Mode::Graph
    } else {
        return Err(InvalidInput::Other(format!(
            "{} is not inside a registered repo; pass a project to route from (--project ID), repos (--repo ID), or all",
            cwd.display()
        ))
        .into());
    };
    let edges = match &project {
        Some(p) => {
            crate::graph::store::refresh(store, &crate::graph::Params::builtin())?;
            crate::graph::store::out_edges(store, p)?
        }
        None => Vec::new(),
    };
    let evidence = match (&project, &mode) {
        (Some(p), route::Mode::Graph) => edge_evidence(&log, p, edges.iter().map(|e| e.to.clone()))?,
        _ => BTreeMap::new(),
    };
    let selected = selection(searcher, &selection_scope(&mode, &indexed, project.as_deref()), query);
    let routed = route::route(
        project.as_deref(),
        query,
        &mode,
        route::RouteWorld { nodes: &nodes, indexed: &indexed, edges: &edges, evidence: &evidence },
        &route::RouteOptions::default(),
        |repo| selected.get(repo).copied(),
    );
    if routed.searched.is_empty() {
        let why: Vec<String> = routed.skipped.iter().map(|s| format!("{}: {}", s.repo, s.reason)).collect();
        return Err(InvalidInput::Other(format!("nothing to search ({})", why.join("; "))).into());
    }
    Ok(routed)
}

/// Records whether result `rank` of `query_id` was useful: a `RouteFeedback` event about
/// the query's project and the result's repo. Returns the hit and the new event's seq
/// (`None` if the same feedback was already recorded).
pub fn feedback(
    store: &crate::store::Store,
    home: &PatinaHome,
    query_id: &str,
    rank: usize,
    useful: bool,
    source: crate::event::Source,
) -> Result<(StoredQuery, StoredHit, Option<u64>), crate::Error> {
    let stored = stored_query(home, query_id).map_err(|e| crate::error::InvalidInput::Other(e.to_string()))?;
    let hit = rank.checked_sub(1).and_then(|i| stored.hits.get(i)).cloned().ok_or_else(|| {
        crate::error::InvalidInput::Other(format!(
            "query {query_id} has {} results; rank {rank} is not one of them (ranks start at 1)",
            stored.hits.len()
        ))
    })?;
    let event = crate::event::Event::RouteFeedback(crate::event::RouteFeedback {
        query_id: query_id.to_string(),
        project: stored.project.clone(),
        repo: hit.repo.clone(),
        rank: rank as u32,
        useful,
    });
    let report = crate::event::log::EventLog::new(store).append([crate::event::log::NewEvent::new(source, event)])?;
    Ok((stored, hit, report.appended.first().copied()))
}

/// What the log says `project` did with each of `repos`: the sentences of its live
/// mentions, the dependencies its manifests declare, the suites it ran, the notes of its
/// links. Routing matches the query against this (see [`route::evidence_relevance`]).
pub fn edge_evidence(
    log: &crate::event::log::EventLog<'_>,
    project: &str,
    repos: impl IntoIterator<Item = String>,
) -> Result<BTreeMap<String, Vec<String>>, crate::Error> {
    use crate::event::Event;
    let mut out = BTreeMap::new();
    for repo in repos {
        let mut texts = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for stored in log.live_by_node(&repo)? {
            let text = match stored.event {
                Event::Mention(m) if m.project == project && m.repo == repo => m.sentence,
                Event::Import(i) if i.project == project && i.repo == repo => i.dependency,
                Event::BenchRun(b) if b.project == project && b.repo == repo => b.suite,
                Event::LinkAdded(l) if l.from == project && l.to == repo => l.evidence.unwrap_or_default(),
                _ => continue,
            };
            if !text.is_empty() && seen.insert(text.clone()) {
                texts.push(text);
            }
        }
        if !texts.is_empty() {
            out.insert(repo, texts);
        }
    }
    Ok(out)
}

/// The repos whose content pre-scores a route compares: every indexed repo, except when
/// the repos are chosen (`--repo`, the oracle), where only they and the project can be
/// searched, so only their indexes are read.
pub fn selection_scope(mode: &route::Mode, indexed: &BTreeSet<String>, project: Option<&str>) -> BTreeSet<String> {
    match mode {
        route::Mode::Forced(repos) => {
            repos.iter().map(String::as_str).chain(project).filter(|r| indexed.contains(*r)).map(String::from).collect()
        }
        route::Mode::Graph | route::Mode::All => indexed.clone(),
    }
}

/// Routing's cheap pre-score: the CORI selection strength (0..1, see
/// [`crate::search::select`]) of the query in each indexed repo, compared across all of
/// them. Reads term statistics only; no document is scored.
pub fn selection(searcher: &mut Searcher, indexed: &BTreeSet<String>, query: &str) -> BTreeMap<String, f64> {
    let repos: Vec<String> = indexed.iter().cloned().collect();
    searcher.select(&repos, query).into_iter().map(|(r, b)| (r, crate::search::select::strength(b))).collect()
}

/// `[repo:channels] reason`: where a hit came from and why its repo was searched.
pub fn provenance(route: &Route, hit: &Hit) -> String {
    let channels = match (hit.semantic.is_some(), hit.lexical.is_some()) {
        (true, true) => "semantic+lexical",
        (true, false) => "semantic",
        (false, true) => "lexical",
        (false, false) => "none",
    };
    format!("[{}:{channels}] {}", hit.repo, route.reason(&hit.repo).unwrap_or(""))
}

/// The stored query `query_id`, for feedback.
pub fn stored_query(home: &PatinaHome, query_id: &str) -> Result<StoredQuery, ScryError> {
    let unknown = || ScryError::UnknownQuery { id: query_id.to_string() };
    if store::parse_query_id(query_id).is_none() || !home.scry_path().exists() {
        return Err(unknown());
    }
    QueryStore::open(&home.scry_path())?.get(query_id)?.ok_or_else(unknown)
}

/// Lines around a chunk, from its neighbouring chunks in the index.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Context {
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
}

/// One result in full.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Detail {
    pub query_id: String,
    pub query: String,
    pub rank: usize,
    pub hit: StoredHit,
    pub text: String,
    pub before: Option<Context>,
    pub after: Option<Context>,
}

/// The chunk at `rank` (1-based) of query `query_id`, with context.
pub fn detail(home: &PatinaHome, query_id: &str, rank: usize) -> Result<Detail, ScryError> {
    let unknown = || ScryError::UnknownQuery { id: query_id.to_string() };
    if store::parse_query_id(query_id).is_none() {
        return Err(unknown());
    }
    if !home.scry_path().exists() {
        return Err(unknown());
    }
    let stored = QueryStore::open(&home.scry_path())?.get(query_id)?.ok_or_else(unknown)?;
    let n = stored.hits.len();
    let hit = match rank.checked_sub(1).and_then(|i| stored.hits.get(i)) {
        Some(hit) => hit.clone(),
        None => return Err(ScryError::RankOutOfRange { id: query_id.to_string(), rank, n }),
    };
    let generation = index::open_chunks(&home.repo_dir(&hit.repo), &hit.repo)?;
    let gone = || ScryError::ChunkGone {
        id: query_id.to_string(),
        repo: hit.repo.clone(),
        path: hit.path.clone(),
        start_line: hit.start_line,
    };
    // The same generation still has it under its id; after a rebuild, find it by hash.
    let id = match generation.chunk(hit.chunk_id)? {
        Some(c) if c.hash == hit.chunk_hash && c.chunk.path == hit.path => hit.chunk_id,
        _ => generation.find_chunk(&hit.path, &hit.chunk_hash)?.ok_or_else(gone)?,
    };
    let chunk = generation.chunk(id)?.ok_or_else(gone)?;
    let (before, after) = generation.file_neighbours(&hit.path, id)?;
    let mut hit = hit;
    hit.chunk_id = id;
    hit.start_line = chunk.chunk.start_line;
    hit.end_line = chunk.chunk.end_line;
    Ok(Detail {
        query_id: query_id.to_string(),
        query: stored.query,
        rank,
        hit,
        text: chunk.chunk.text,
        before: before.and_then(|c| context(&c, true)),
        after: after.and_then(|c| context(&c, false)),
    })
}

/// The last (or first) [`CONTEXT_LINES`] of a neighbouring chunk.
fn context(neighbour: &StoredChunk, before: bool) -> Option<Context> {
    let lines: Vec<&str> = neighbour.chunk.text.lines().collect();
    if lines.is_empty() {
        return None;
    }
    let take = lines.len().min(CONTEXT_LINES);
    let (slice, start_line) = if before {
        (&lines[lines.len() - take..], neighbour.chunk.end_line + 1 - take as u32)
    } else {
        (&lines[..take], neighbour.chunk.start_line)
    };
    Some(Context { start_line, end_line: start_line + take as u32 - 1, text: slice.join("\n") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embed::HashEmbedder;

    #[test]
    fn scry_then_detail_with_context_and_bad_ids() {
        let home_dir = tempfile::tempdir().unwrap();
        let home = PatinaHome::at(home_dir.path());
        let repo = tempfile::tempdir().unwrap();
        let text = "/// Adds.\npub fn add(a: u32) -> u32 {\n    a + 1\n}\n\n/// Spawns an entity.\npub fn spawn_entity() -> u32 {\n    7\n}\n\n/// Removes.\npub fn remove_all() {\n    let _ = 1;\n}\n";
        std::fs::write(repo.path().join("lib.rs"), text).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        let mut searcher = Searcher::with_embedder(&home, Some(Box::new(HashEmbedder)));
        let route = route::Route {
            project: None,
            searched: vec![route::Routed {
                repo: "r".into(),
                factor: 1.0,
                score: 0.0,
                reason: "chosen (--repo)".into(),
            }],
            skipped: vec![],
        };
        let result = scry(&home, &mut searcher, &route, "spawn_entity", 3).unwrap();
        assert_eq!(result.query_id, "q1");
        assert_eq!(result.provenance[0], "[r:semantic+lexical] chosen (--repo)");
        assert_eq!(result.result.hits[0].start_line, 6);

        let detail = detail(&home, "q1", 1).unwrap();
        assert!(detail.text.contains("pub fn spawn_entity() -> u32 {"));
        let before = detail.before.unwrap();
        assert_eq!((before.start_line, before.end_line), (1, 4));
        let after = detail.after.unwrap();
        assert_eq!(after.start_line, 11);

        assert!(matches!(super::detail(&home, "q9", 1), Err(ScryError::UnknownQuery { .. })));
        assert!(matches!(super::detail(&home, "../../etc/passwd", 1), Err(ScryError::UnknownQuery { .. })));
        assert!(matches!(super::detail(&home, "q1", 0), Err(ScryError::RankOutOfRange { .. })));
        assert!(matches!(super::detail(&home, "q1", 99), Err(ScryError::RankOutOfRange { .. })));

        // After an edit elsewhere in the file, the chunk is found again by its hash.
        std::fs::write(repo.path().join("lib.rs"), format!("// header line\n{text}")).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        let moved = super::detail(&home, "q1", 1).unwrap();
        assert_eq!(moved.hit.start_line, 7);
        // After the chunk itself changed, it is gone.
        std::fs::write(repo.path().join("lib.rs"), text.replace("7", "8")).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        assert!(matches!(super::detail(&home, "q1", 1), Err(ScryError::ChunkGone { .. })));
    }
}
