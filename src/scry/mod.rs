//! `scry`: the one query path. [`run`] routes a query ([`route`]), searches the routed
//! repos in one weighted search ([`Searcher::search_weighted`]), tags every result with
//! its provenance and (optionally) remembers it under a short query id; [`detail`]
//! returns one result's chunk in full with a few lines of context on each side.
//!
//! The CLI, the MCP server and `bench retrieval` all call [`run`]; they differ only in
//! how long they keep the [`Searcher`] (indexes and model) and the [`World`] open.
//!
//! Invariant: the query path reads, it never writes the mother store: the graph it routes
//! on is the stored one (write paths refresh it); only the query id store
//! (`scry.redb`, apart from the log) is written, and only when asked to record.
//! Invariant: [`detail`] serves text only from the repo's index (the chunk store), found
//! by the stored chunk id and verified by its content hash; it never opens a path taken
//! from the user or from the stored query, so no id or rank can reach another file.

pub mod persona;
pub mod route;
pub mod store;

use std::collections::{BTreeMap, BTreeSet};

use crate::event::NodeRegistered;
use crate::graph::Edge;
use crate::home::PatinaHome;
use crate::search::index::{self, IndexError, StoredChunk};
use crate::search::{Hit, SearchError, SearchResult, Searcher, WeightedRequest};
use route::Route;
use store::{QueryStore, QueryStoreError, StoredChunkRef, StoredHit, StoredQuery};

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
    #[error("result {rank} of query {id} lists {n} other chunks; {rank}.{part} is not one of them")]
    PartOutOfRange { id: String, rank: usize, part: usize, n: usize },
    #[error(
        "{repo}:{path}:{start_line}: the index changed since query {id} and this chunk is no longer in it; run the query again"
    )]
    ChunkGone { id: String, repo: String, path: String, start_line: u32 },
    #[error("{0}")]
    Route(String),
    #[error(
        "result {rank} of query {id} is the {kind} '{item}', not code: `patina belief show {item}` shows it in full"
    )]
    NotCode { id: String, rank: usize, kind: &'static str, item: String },
}

/// A search with its query id.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Scry {
    /// Empty when the query was not recorded (benchmarks).
    pub query_id: String,
    pub query: String,
    pub repos: Vec<String>,
    /// Why each repo was (not) searched.
    pub route: Route,
    /// Per hit (same order as `result.hits`): where it came from and why its repo was searched.
    pub provenance: Vec<String>,
    #[serde(flatten)]
    pub result: SearchResult,
    /// `scry --persona` only: per hit, `PROJECT` (the local project's), `PERSONA-<DOMAIN>`
    /// (from elsewhere, on one of the project's domains) or `PERSONA`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `scry --persona` only: per hit, for a belief or observation from elsewhere, whether
    /// the project can adopt it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adoptability: Vec<Option<crate::knowledge::persona::Adoptability>>,
    /// `scry --persona` only: whether and why the mother was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
}

/// What routing reads from the log, loaded once (per command, or per process for MCP
/// and the benchmark): the registered nodes, the repos with an index, and for each
/// project asked about its out-edges and the evidence behind them.
#[derive(Debug, Clone, Default)]
pub struct World {
    pub nodes: BTreeMap<String, NodeRegistered>,
    pub indexed: BTreeSet<String>,
    pub edges: BTreeMap<String, Vec<Edge>>,
    /// Per project: the out-edges of its neighbours (routing's second hop).
    pub second_hop: BTreeMap<String, Vec<Edge>>,
    pub evidence: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Domains that name a language (`rules/graph.toml`).
    pub languages: Vec<String>,
    /// Per node: the names it also goes by in a query (`route::other_names`).
    pub other_names: BTreeMap<String, Vec<String>>,
    /// The live beliefs, observations and relations (the knowledge channel).
    pub knowledge: crate::knowledge::Knowledge,
    /// The vector cache file (belief and observation texts, registry entries), decoded,
    /// while the file is unchanged: a warm world (the daemon's) reads it once, not per query.
    knowledge_vector_file: std::sync::Arc<std::sync::Mutex<Option<VectorFile>>>,
}

/// `$PATINA_HOME/cache/knowledge-vectors.bin` as read: (modified time, length) and its
/// vectors by blake3(model, text).
#[derive(Debug)]
struct VectorFile {
    stamp: (Option<std::time::SystemTime>, u64),
    vectors: std::collections::HashMap<[u8; 32], Vec<f32>>,
}

fn file_stamp(path: &std::path::Path) -> (Option<std::time::SystemTime>, u64) {
    std::fs::metadata(path).map(|m| (m.modified().ok(), m.len())).unwrap_or((None, 0))
}

impl World {
    /// Reads the nodes, which of them have a live index (one small file each), and the
    /// stored graph's out-edges and edge evidence of `projects`. Never derives or writes.
    pub fn load<'a>(
        store: &crate::store::Store,
        home: &PatinaHome,
        projects: impl IntoIterator<Item = &'a str>,
    ) -> Result<World, crate::Error> {
        let log = crate::event::log::EventLog::new(store);
        let nodes = log.nodes()?;
        let indexed =
            nodes.keys().filter(|id| index::live_generation_name(&home.repo_dir(id)).is_some()).cloned().collect();
        let mut knowledge = crate::knowledge::Knowledge::load(&log)?;
        // The user's cross-project beliefs (read here, never logged): `scry --persona`.
        for warning in crate::knowledge::persona::load(&home.root().join("persona"), &mut knowledge) {
            eprintln!("patina: persona: {warning}");
        }
        let languages = crate::graph::Params::builtin().languages.clone();
        let other_names = route::other_names(&nodes);
        let mut world = World { nodes, indexed, knowledge, languages, other_names, ..World::default() };
        world.add_projects(store, projects)?;
        Ok(world)
    }

    /// The world one query needs: `choice` with its project filled in from `cwd` (see
    /// [`RouteChoice::or_project_at`]) and that project's edges.
    pub fn for_query(
        store: &crate::store::Store,
        home: &PatinaHome,
        choice: RouteChoice,
        cwd: &std::path::Path,
    ) -> Result<(World, RouteChoice), crate::Error> {
        let mut world = World::load(store, home, std::iter::empty())?;
        let choice = choice.or_project_at(&world, cwd);
        if let Some(project) = choice.project_id(&world) {
            world.add_projects(store, [project.as_str()])?;
        }
        Ok((world, choice))
    }

    /// Loads the out-edges and edge evidence of `projects` not loaded yet.
    pub fn add_projects<'a>(
        &mut self,
        store: &crate::store::Store,
        projects: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), crate::Error> {
        let log = crate::event::log::EventLog::new(store);
        let world = self;
        for project in projects {
            if world.edges.contains_key(project) || !world.nodes.contains_key(project) {
                continue;
            }
            let out = crate::graph::store::out_edges(store, project)?;
            let evidence = edge_evidence(&log, project, out.iter().map(|e| e.to.clone()))?;
            let mut second = Vec::new();
            let neighbours: BTreeSet<&str> = out.iter().map(|e| e.to.as_str()).collect();
            for neighbour in neighbours {
                second.extend(crate::graph::store::out_edges(store, neighbour)?);
            }
            world.second_hop.insert(project.to_string(), second);
            world.evidence.insert(project.to_string(), evidence);
            world.edges.insert(project.to_string(), out);
        }
        Ok(())
    }
}

/// Where a query should come from and go to (the CLI's, MCP's and the benchmark's choices).
#[derive(Debug, Clone, Default)]
pub struct RouteChoice {
    /// The project to route from (an id or alias).
    pub project: Option<String>,
    /// Search exactly these repos (ids or aliases).
    pub repos: Vec<String>,
    /// Search every indexed repo.
    pub all: bool,
}

impl RouteChoice {
    /// Fills in the project from `cwd` (the deepest registered repo containing it) when
    /// neither a project, nor repos, nor all repos were chosen.
    pub fn or_project_at(mut self, world: &World, cwd: &std::path::Path) -> RouteChoice {
        if self.project.is_none() && self.repos.is_empty() && !self.all {
            self.project = crate::repo::containing(&world.nodes, cwd).map(|n| n.id);
        }
        self
    }

    /// The project this choice routes from, resolved to its id when registered.
    pub fn project_id(&self, world: &World) -> Option<String> {
        let given = self.project.as_deref()?;
        crate::repo::resolve(&world.nodes, given).ok().map(|n| n.id)
    }
}

/// One query.
#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub choice: RouteChoice,
    pub limit: usize,
    /// Channels (both by default).
    pub lexical: bool,
    pub semantic: bool,
    /// Store the result under a query id (for `--detail` and feedback).
    pub record: bool,
    /// Search the beliefs and observations of the routed projects too.
    pub knowledge: bool,
}

impl Query {
    pub fn new(text: &str, choice: RouteChoice, limit: usize) -> Query {
        Query { text: text.to_string(), choice, limit, lexical: true, semantic: true, record: true, knowledge: true }
    }
}

/// The one query path: route, search, tag, record.
pub fn run(home: &PatinaHome, searcher: &mut Searcher, world: &World, query: &Query) -> Result<Scry, ScryError> {
    let route = plan(home, searcher, world, &query.choice, &query.text)?;
    let request = WeightedRequest {
        repos: route.searched.iter().map(|r| (r.repo.clone(), r.prior)).collect(),
        query: query.text.clone(),
        limit: query.limit,
        lexical: query.lexical,
        semantic: query.semantic,
    };
    let mut result = searcher.search_weighted(&request)?;
    if query.knowledge {
        let projects = knowledge_projects(&route);
        let vectors =
            if query.semantic { knowledge_vectors(home, searcher, world, &projects, &query.text) } else { None };
        let semantic =
            vectors.as_ref().map(|(q, items)| crate::knowledge::search::Semantic { query: q.as_slice(), items });
        merge_knowledge(&mut result, world, &route, &query.text, query.limit, semantic.as_ref());
    }
    finish(home, query, route, result)
}

/// The answer to `query`: provenance per hit, recorded under a query id when asked.
pub(crate) fn finish(home: &PatinaHome, query: &Query, route: Route, result: SearchResult) -> Result<Scry, ScryError> {
    let advice = crate::knowledge::intent::advice(&query.text);
    let provenance: Vec<String> = result
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let why = provenance(&route, h);
            match &advice {
                Some(cue) if i < ADVICE_FIRST && h.kind != crate::search::HitKind::Code => {
                    format!("{why}; first: the query asks for advice (\"{cue}\")")
                }
                _ => why,
            }
        })
        .collect();
    let query_id = if query.record { record(home, &route, &query.text, &result)? } else { String::new() };
    Ok(Scry {
        query_id,
        query: query.text.clone(),
        repos: route.repos(),
        route,
        provenance,
        result,
        tags: Vec::new(),
        adoptability: Vec::new(),
        persona: None,
    })
}

/// Knowledge hits in one list, at most this many.
pub const MAX_KNOWLEDGE_HITS: usize = 3;

/// Adds the beliefs and observations of the routed projects (the local project and every
/// searched repo) that answer the query to the result, by score: a knowledge hit's score
/// (the share of the query it answers, 0..1) sits on the same scale as the fused file
/// scores. At most [`MAX_KNOWLEDGE_HITS`]; the list keeps its length.
///
/// A query that asks for advice gets the channel's best [`ADVICE_FIRST`] ahead of the
/// code. A query that names another repo and does not ask for advice ("how does Loro
/// fold undo steps") asks about that repo's code: an item of a project it does not name
/// places there by its words only, and one found by meaning alone goes after the code.
fn merge_knowledge(
    result: &mut SearchResult,
    world: &World,
    route: &Route,
    query: &str,
    limit: usize,
    semantic: Option<&crate::knowledge::search::Semantic<'_>>,
) {
    let projects = knowledge_projects(route);
    let found = crate::knowledge::search::search_with(&world.knowledge, &projects, query, MAX_KNOWLEDGE_HITS, semantic);
    if found.is_empty() {
        return;
    }
    let advice = crate::knowledge::intent::advice(query).is_some();
    let named: Vec<&str> = route.searched.iter().filter(|r| r.prior > 1.0).map(|r| r.repo.as_str()).collect();
    let (mut first, mut last) = (Vec::new(), Vec::new());
    for (rank, k) in found.into_iter().enumerate() {
        let mut hit = knowledge_hit(world, &k, rank);
        if advice && rank < ADVICE_FIRST {
            first.push(hit);
        } else if !advice && !named.is_empty() && !named.contains(&k.project.as_str()) && k.by_meaning {
            let elsewhere = named.join(", ");
            if k.lexical >= crate::knowledge::search::MIN_SCORE {
                hit.fused_score = k.lexical;
                hit.why = Some(format!(
                    "by words: {:.0}% of the query (the query names {elsewhere}: not by meaning)",
                    k.lexical * 100.0
                ));
                result.hits.push(hit);
            } else {
                hit.why = hit.why.map(|w| format!("{w}; after the code: the query names {elsewhere}"));
                last.push(hit);
            }
        } else {
            result.hits.push(hit);
        }
    }
    // Stable: equal scores keep code first.
    result.hits.sort_by(|a, b| b.fused_score.total_cmp(&a.fused_score));
    result.hits.splice(0..0, first);
    result.hits.extend(last);
    result.hits.truncate(limit);
}

/// For a query that asks for advice (`knowledge::intent`): this many of the knowledge
/// channel's best hits go ahead of the code.
pub const ADVICE_FIRST: usize = 2;

/// The projects whose knowledge a route reaches: its project and every searched repo.
fn knowledge_projects(route: &Route) -> Vec<String> {
    let mut projects: Vec<String> = route.project.iter().cloned().collect();
    projects.extend(route.repos());
    projects
}

/// Item id → the embeddings of its texts (see [`crate::knowledge::search::texts`]).
type ItemVectors = std::collections::HashMap<String, Vec<(crate::knowledge::search::Part, Vec<f32>)>>;

/// The query's embedding and those of the routed projects' beliefs and observations, when
/// a model is loaded. Item vectors are cached by (model, text) in
/// `$PATINA_HOME/cache/knowledge-vectors.bin` (derived state: deleting it only costs a
/// re-embedding), so only new or edited items are embedded.
pub(crate) fn knowledge_vectors(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    projects: &[String],
    query: &str,
) -> Option<(Vec<f32>, ItemVectors)> {
    searcher.model_id()?;
    let items: Vec<(&str, Vec<(crate::knowledge::search::Part, String)>)> = world
        .knowledge
        .items
        .values()
        .filter(|e| projects.iter().any(|p| p == e.item.project()))
        .map(|e| (e.item.id(), crate::knowledge::search::texts(&e.item)))
        .collect();
    if items.is_empty() {
        return None;
    }
    let query_vector = searcher.embed_query(query)?;
    let texts: Vec<&str> = items.iter().flat_map(|(_, texts)| texts).map(|(_, t)| t.as_str()).collect();
    let mut embedded = cached_vectors(home, searcher, world, &texts, <[f32]>::to_vec)?.into_iter();
    let vectors = items
        .iter()
        .map(|(id, texts)| {
            let vectors = texts.iter().zip(embedded.by_ref()).map(|((part, _), v)| (*part, v)).collect();
            (id.to_string(), vectors)
        })
        .collect();
    Some((query_vector, vectors))
}

/// What the registry entries say by meaning, with a model (both empty without one).
#[derive(Debug, Default)]
struct RegistryMeaning {
    /// The cosine of the query to each indexed repo's registry entry
    /// ([`route::registry_text`]) other than the project's, so a query that describes a
    /// repo in other words than its summary's ("AI coding assistant" for "terminal AI
    /// coding agent") still finds it.
    described: BTreeMap<String, f64>,
    /// Per indexed repo (not the project), the others whose entries are alike
    /// ([`route::ALIKE_COSINE`]): routing's second hop by meaning (`route::RouteWorld::alike`).
    alike: BTreeMap<String, Vec<(String, f64)>>,
}

/// The registry entries of the indexed repos other than `project`, by meaning: their
/// cosine to the query and to each other. Entry vectors share the knowledge channel's
/// cache; empty without a model.
fn registry_meaning(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    project: &str,
    query: &str,
) -> RegistryMeaning {
    let nodes: Vec<&NodeRegistered> =
        world.indexed.iter().filter(|r| r.as_str() != project).filter_map(|r| world.nodes.get(r)).collect();
    if nodes.is_empty() || searcher.model_id().is_none() {
        return RegistryMeaning::default();
    }
    let Some(query_vector) = searcher.embed_query(query) else { return RegistryMeaning::default() };
    let texts: Vec<String> = nodes.iter().map(|n| route::registry_text(n)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let Some(vectors) = cached_vectors(home, searcher, world, &refs, <[f32]>::to_vec) else {
        return RegistryMeaning::default();
    };
    let cosine = |a: &[f32], b: &[f32]| f64::from(crate::search::embed::cosine(a, b));
    let described = nodes.iter().zip(&vectors).map(|(n, v)| (n.id.clone(), cosine(&query_vector, v))).collect();
    let mut alike: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for (i, (a, va)) in nodes.iter().zip(&vectors).enumerate() {
        for (b, vb) in nodes.iter().zip(&vectors).skip(i + 1) {
            let cos = cosine(va, vb);
            if cos >= route::ALIKE_COSINE {
                alike.entry(a.id.clone()).or_default().push((b.id.clone(), cos));
                alike.entry(b.id.clone()).or_default().push((a.id.clone(), cos));
            }
        }
    }
    RegistryMeaning { described, alike }
}

/// The cache key of `text`'s embedding by `model`.
fn vector_key(model: &str, text: &str) -> [u8; 32] {
    *blake3::hash(format!("{model}\0{text}").as_bytes()).as_bytes()
}

/// The embeddings of `texts` by the searcher's model, read from
/// `$PATINA_HOME/cache/knowledge-vectors.bin` (by [`vector_key`]; derived state: deleting
/// it only costs a re-embedding); only texts not there yet are embedded, and the file is
/// rewritten with them. Returns `read` of each text's vector, in order (the vector itself,
/// or what the caller needs of it, without a copy).
fn cached_vectors<T>(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    texts: &[&str],
    read: impl Fn(&[f32]) -> T,
) -> Option<Vec<T>> {
    let model = searcher.model_id()?;
    let path = home.root().join("cache").join("knowledge-vectors.bin");
    let config = bincode::config::standard().with_limit::<{ 256 * 1024 * 1024 }>();
    let mut held = world.knowledge_vector_file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let stamp = file_stamp(&path);
    let mut cache = match held.take() {
        Some(file) if file.stamp == stamp && stamp.0.is_some() => file.vectors,
        _ => std::fs::read(&path)
            .ok()
            .and_then(|bytes| bincode::serde::decode_from_slice(&bytes, config).ok().map(|(c, _)| c))
            .unwrap_or_default(),
    };
    let mut missing: Vec<&str> =
        texts.iter().copied().filter(|t| !cache.contains_key(&vector_key(&model, t))).collect();
    missing.sort_unstable();
    missing.dedup();
    if !missing.is_empty() {
        let Some(vectors) = searcher.embed_texts(&missing) else {
            *held = Some(VectorFile { stamp, vectors: cache });
            return None;
        };
        for (text, vector) in missing.iter().zip(vectors) {
            cache.insert(vector_key(&model, text), vector);
        }
        // Best effort: a cache that cannot be written is rebuilt next time.
        if let Ok(bytes) = bincode::serde::encode_to_vec(&cache, config) {
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(home.root()));
            let tmp = path.with_extension("tmp");
            if std::fs::write(&tmp, bytes).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
    }
    let read = texts.iter().map(|t| cache.get(&vector_key(&model, t)).map(|v| read(v))).collect();
    *held = Some(VectorFile { stamp: file_stamp(&path), vectors: cache });
    read
}

/// A knowledge hit as a result row (`rank`: its 0-based rank in the knowledge channel).
pub(crate) fn knowledge_hit(world: &World, k: &crate::knowledge::search::KnowledgeHit, rank: usize) -> Hit {
    let (start_line, end_line) = world
        .knowledge
        .get(&k.id)
        .and_then(|e| match &e.source {
            crate::event::Source::File { start_line, end_line, .. } => Some((*start_line, *end_line)),
            _ => None,
        })
        .unwrap_or((0, 0));
    Hit {
        kind: if k.observation { crate::search::HitKind::Observation } else { crate::search::HitKind::Belief },
        repo: k.project.clone(),
        path: k.source.split(':').next().unwrap_or("").to_string(),
        start_line,
        end_line,
        language: k.kind.clone(),
        symbol: k.id.clone(),
        summary: k.summary.clone(),
        fused_score: k.score,
        lexical: Some(crate::search::fuse::ChannelScore { rank: rank as u32 + 1, score: k.bm25 }),
        // Its cosine when the model scored it (`rank`: its rank in the channel).
        semantic: k.cosine.map(|cos| crate::search::fuse::ChannelScore { rank: rank as u32 + 1, score: cos }),
        also: Vec::new(),
        why: Some(knowledge_why(k)),
        chunk_id: 0,
        chunk_hash: [0; 32],
    }
}

/// Why the knowledge channel found `k`: by meaning (which of its texts, the cosine) or by
/// words (the share of the query it answers).
fn knowledge_why(k: &crate::knowledge::search::KnowledgeHit) -> String {
    match (k.by_meaning, k.part, k.cosine) {
        (true, Some(part), Some(cos)) => format!("by meaning: its {} (cosine {cos:.2})", part.as_str()),
        _ => format!("by words: {:.0}% of the query", k.score * 100.0),
    }
}

pub(crate) fn record(
    home: &PatinaHome,
    route: &Route,
    query: &str,
    result: &SearchResult,
) -> Result<String, ScryError> {
    let stored = StoredQuery {
        project: route.project.clone(),
        query: query.to_string(),
        repos: route.repos(),
        ts_ms: jiff::Timestamp::now().as_millisecond(),
        hits: result
            .hits
            .iter()
            .map(|h| StoredHit {
                kind: h.kind,
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
                also: h
                    .also
                    .iter()
                    .map(|c| StoredChunkRef {
                        start_line: c.start_line,
                        end_line: c.end_line,
                        symbol: c.symbol.clone(),
                        chunk_id: c.chunk_id,
                        chunk_hash: c.chunk_hash,
                    })
                    .collect(),
            })
            .collect(),
    };
    Ok(QueryStore::open(&home.scry_path())?.insert(&stored)?)
}

/// Plans the route of `query`: resolves the project and repos against the world's nodes
/// and routes on its stored graph. Errors name what is missing.
pub fn plan(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    choice: &RouteChoice,
    query: &str,
) -> Result<Route, ScryError> {
    let resolve = |given: &str| crate::repo::resolve(&world.nodes, given).map_err(|e| ScryError::Route(e.to_string()));
    let project = match &choice.project {
        Some(p) => Some(resolve(p)?.id),
        None => None,
    };
    let mode = if choice.all {
        if world.indexed.is_empty() {
            return Err(ScryError::Route("no repo is indexed yet (run `patina repo add PATH`)".into()));
        }
        route::Mode::All
    } else if !choice.repos.is_empty() {
        let mut ids = Vec::new();
        for id in &choice.repos {
            let node = resolve(id)?;
            if !ids.contains(&node.id) {
                ids.push(node.id);
            }
        }
        route::Mode::Forced(ids)
    } else if project.is_some() {
        route::Mode::Graph
    } else {
        return Err(ScryError::Route(
            "not inside a registered repo; pass a project to route from (--project ID), repos (--repo ID), or all"
                .into(),
        ));
    };
    let no_edges = Vec::new();
    let no_evidence = BTreeMap::new();
    let second_hop = match &project {
        Some(p) if mode == route::Mode::Graph => world.second_hop.get(p).unwrap_or(&no_edges),
        _ => &no_edges,
    };
    let (edges, evidence) = match &project {
        Some(p) => (
            world.edges.get(p).unwrap_or(&no_edges),
            world.evidence.get(p).filter(|_| mode == route::Mode::Graph).unwrap_or(&no_evidence),
        ),
        None => (&no_edges, &no_evidence),
    };
    // Content pre-scores choose among connected repos; chosen or all repos need none.
    let selected =
        if mode == route::Mode::Graph { selection(searcher, &world.indexed, query) } else { Selection::default() };
    let meaning = match &project {
        Some(p) if mode == route::Mode::Graph => registry_meaning(home, searcher, world, p, query),
        _ => RegistryMeaning::default(),
    };
    let routed = route::route(
        project.as_deref(),
        query,
        &mode,
        route::RouteWorld {
            nodes: &world.nodes,
            indexed: &world.indexed,
            edges,
            evidence,
            second_hop,
            languages: &world.languages,
            described: &meaning.described,
            alike: &meaning.alike,
            other_names: &world.other_names,
            content_by_meaning: selected.by_meaning,
        },
        &route::RouteOptions::default(),
        |repo| selected.scores.get(repo).copied(),
    );
    if routed.searched.is_empty() {
        let why: Vec<String> = routed.skipped.iter().map(|s| format!("{}: {}", s.repo, s.reason)).collect();
        return Err(ScryError::Route(format!("nothing to search ({})", why.join("; "))));
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

/// Routing's content pre-score of a query in each indexed repo: 0..1, compared across all
/// of them (see [`crate::search::select`]), and how it was judged.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub scores: BTreeMap<String, f64>,
    /// By meaning (the nearest chunk vectors) rather than by words (CORI).
    pub by_meaning: bool,
}

/// Judges the query's content in each indexed repo: by meaning when the model is loaded
/// and every repo with chunks has vectors of it; by words (CORI, term statistics only)
/// otherwise, since a repo not yet embedded would lose to the others for want of
/// vectors, not of answers.
pub fn selection(searcher: &mut Searcher, indexed: &BTreeSet<String>, query: &str) -> Selection {
    use crate::search::select;
    let repos: Vec<String> = indexed.iter().cloned().collect();
    if let Some(nearest) = searcher.nearest_in_all(&repos, query, select::NEAREST_CHUNKS) {
        let scores = nearest.into_iter().map(|(repo, nearest)| (repo, select::semantic_strength(&nearest))).collect();
        return Selection { scores, by_meaning: true };
    }
    let scores = searcher.select(&repos, query).into_iter().map(|(r, b)| (r, select::strength(b))).collect();
    Selection { scores, by_meaning: false }
}

/// `[repo:channels] reason`: where a hit came from and why its repo was searched; for a
/// belief or observation `[belief]` (the local project's) or `[belief:dojo]` (a routed
/// project's).
pub fn provenance(route: &Route, hit: &Hit) -> String {
    let tag = match hit.kind {
        crate::search::HitKind::Code => None,
        crate::search::HitKind::Belief => Some("belief"),
        crate::search::HitKind::Observation => Some("observation"),
    };
    if let Some(tag) = tag {
        let why = hit.why.as_deref().map(|w| format!("; {w}")).unwrap_or_default();
        return if route.project.as_deref() == Some(hit.repo.as_str()) {
            format!("[{tag}] {} of {}, the local project{why}", hit.language, hit.repo)
        } else {
            format!("[{tag}:{}] {}{why}", hit.repo, route.reason(&hit.repo).unwrap_or(""))
        };
    }
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
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Context {
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
}

/// One result in full.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Detail {
    pub query_id: String,
    pub query: String,
    pub rank: usize,
    /// Which of the result's other chunks (`RANK.N`), or `None` for its best chunk.
    pub part: Option<usize>,
    pub hit: StoredHit,
    pub text: String,
    pub before: Option<Context>,
    pub after: Option<Context>,
}

/// The best chunk of result `rank` (1-based) of query `query_id`, or with `part` = N the
/// N-th (1-based) of its other matching chunks, with context.
pub fn detail(home: &PatinaHome, query_id: &str, rank: usize, part: Option<usize>) -> Result<Detail, ScryError> {
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
    if hit.kind != crate::search::HitKind::Code {
        let kind = if hit.kind == crate::search::HitKind::Belief { "belief" } else { "observation" };
        return Err(ScryError::NotCode { id: query_id.to_string(), rank, kind, item: hit.symbol });
    }
    let hit = match part {
        None => hit,
        Some(part) => match part.checked_sub(1).and_then(|i| hit.also.get(i)) {
            Some(c) => StoredHit {
                start_line: c.start_line,
                end_line: c.end_line,
                symbol: c.symbol.clone(),
                chunk_id: c.chunk_id,
                chunk_hash: c.chunk_hash,
                ..hit.clone()
            },
            None => {
                return Err(ScryError::PartOutOfRange { id: query_id.to_string(), rank, part, n: hit.also.len() });
            }
        },
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
        part,
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
        let text = "/// Adds.\npub fn add(a: u32) -> u32 {\n    a + 1\n}\n\n/// Spawns an entity.\npub fn spawn_entity() -> u32 {\n    7\n}\n\n/// Removes.\npub fn remove_all() {\n    let _ = 1;\n}\n\n/// Spawns an entity twice.\npub fn spawn_entity_twice() -> u32 {\n    spawn_entity() + spawn_entity()\n}\n";
        std::fs::write(repo.path().join("lib.rs"), text).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        let mut searcher = Searcher::with_embedder(&home, Some(Box::new(HashEmbedder)));
        let node = NodeRegistered {
            id: "r".into(),
            kind: crate::event::NodeKind::Reference,
            path: Some(repo.path().display().to_string()),
            domains: vec![],
            summary: None,
            aliases: vec![],
            packages: vec![],
        };
        let world = World {
            nodes: [("r".to_string(), node)].into_iter().collect(),
            indexed: ["r".to_string()].into_iter().collect(),
            ..World::default()
        };
        let choice = RouteChoice { project: None, repos: vec!["r".into()], all: false };
        let result = run(&home, &mut searcher, &world, &Query::new("spawn_entity", choice, 3)).unwrap();
        assert_eq!(result.query_id, "q1");
        assert_eq!(result.provenance[0], "[r:semantic+lexical] chosen (--repo)");
        assert_eq!(result.result.hits.len(), 1, "one file, one result: {:?}", result.result.hits);
        assert_eq!(result.result.hits[0].start_line, 6, "the best chunk is the snippet");
        let also = &result.result.hits[0].also;
        assert!(!also.is_empty() && also.iter().all(|c| c.start_line != 6), "{also:?}");

        let part = detail(&home, "q1", 1, Some(1)).unwrap();
        assert_eq!(part.hit.start_line, also[0].start_line);
        assert_eq!(part.part, Some(1));
        assert!(matches!(detail(&home, "q1", 1, Some(99)), Err(ScryError::PartOutOfRange { .. })));

        let detail = detail(&home, "q1", 1, None).unwrap();
        assert!(detail.text.contains("pub fn spawn_entity() -> u32 {"));
        let before = detail.before.unwrap();
        assert_eq!((before.start_line, before.end_line), (1, 4));
        let after = detail.after.unwrap();
        assert_eq!(after.start_line, 11);

        assert!(matches!(super::detail(&home, "q9", 1, None), Err(ScryError::UnknownQuery { .. })));
        assert!(matches!(super::detail(&home, "../../etc/passwd", 1, None), Err(ScryError::UnknownQuery { .. })));
        assert!(matches!(super::detail(&home, "q1", 0, None), Err(ScryError::RankOutOfRange { .. })));
        assert!(matches!(super::detail(&home, "q1", 99, None), Err(ScryError::RankOutOfRange { .. })));

        // After an edit elsewhere in the file, the chunk is found again by its hash.
        std::fs::write(repo.path().join("lib.rs"), format!("// header line\n{text}")).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        let moved = super::detail(&home, "q1", 1, None).unwrap();
        assert_eq!(moved.hit.start_line, 7);
        // After the chunk itself changed, it is gone.
        std::fs::write(repo.path().join("lib.rs"), text.replace("7", "8")).unwrap();
        index::build(&home.repo_dir("r"), "r", repo.path(), Some(&mut HashEmbedder), &mut |_, _, _| {}).unwrap();
        assert!(matches!(super::detail(&home, "q1", 1, None), Err(ScryError::ChunkGone { .. })));
    }
}
