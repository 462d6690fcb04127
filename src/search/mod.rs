//! Search over indexed repositories: two channels (lexical BM25 via tantivy, semantic
//! via ONNX embeddings in usearch), fused once over every searched repo. A result is a
//! file: its best chunk is the snippet, its other matching chunks are listed under it.
//!
//! ```text
//! repo files ─ chunk ─┬─ text (tantivy: files and chunks) ─┐
//!                     └─ embed (ort) ─ vector (usearch) ───┴─ fuse (scores, × prior) ─▶ files
//! ```
//!
//! [`Searcher::search_weighted`] is the one entry point: the router hands it the repos
//! to search, each with its prior. The [`Searcher`] keeps indexes and the model open
//! across queries (benchmarks, servers).
//!
//! Invariant: scores compare across repos. BM25 is computed with the combined statistics
//! of the searched repos (one [`text::CorpusStats`]), cosines come from one model, so each
//! channel yields one ranked list over all repos, and the two lists are fused once. A
//! repo's prior multiplies its files' fused scores; it never interleaves ranks.
//! Invariant: a hit only ever names chunks that are in a repo's live index; their text is
//! served from the index's chunk store, never read from a path a caller supplied.
//! Invariant: when the model is unavailable the search still answers from the lexical
//! channel and says why in [`SearchResult::warnings`]; it never fails for that reason.
//! Invariant: the semantic channel searches only vectors of the query's model, and only
//! the chunks embedded so far (a repo may be embedding in the background): each searched
//! repo's share is in [`SearchResult::coverage`], and a warning says when it is not all.

pub mod backfill;
pub mod cache;
pub mod chunk;
pub mod embed;
pub mod fuse;
pub mod index;
pub mod lock;
pub mod select;
pub mod text;
pub mod vector;
pub mod vector_set;

use std::collections::BTreeMap;

use crate::home::PatinaHome;
use crate::models;
use embed::{Embedder, OnnxEmbedder};
use fuse::ChannelScore;
use index::{Generation, IndexError};

/// Per-channel candidates fetched for each repo (before fusion).
const MIN_CANDIDATES: usize = 50;
/// Other matching chunks listed under a file result, at most.
pub const MAX_ALSO: usize = 4;

/// A search over some repos, each with the same prior.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// Registered repo ids; each must have an index.
    pub repos: Vec<String>,
    pub query: String,
    pub limit: usize,
}

/// A search over repos, each with its prior (see [`Searcher::search_weighted`]).
#[derive(Debug, Clone)]
pub struct WeightedRequest {
    /// `(repo, prior)`; on equal scores the earlier repo wins (the local project first).
    pub repos: Vec<(String, f64)>,
    pub query: String,
    pub limit: usize,
    pub lexical: bool,
    pub semantic: bool,
}

/// A chunk of a result file: where it is and how each channel scored it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ChunkMatch {
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: String,
    /// BM25 of the chunk (combined statistics), if it holds a query term.
    pub lexical: Option<f32>,
    /// Cosine similarity to the query, if among the semantic candidates.
    pub semantic: Option<f32>,
    #[serde(skip)]
    pub chunk_id: u64,
    #[serde(skip)]
    pub chunk_hash: [u8; 32],
}

/// What a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    /// A file of an indexed repo.
    #[default]
    Code,
    /// A belief or core pattern of a project (`repo` is the project, `symbol` its id).
    Belief,
    /// An observation of a project (`repo` is the project, `symbol` its id).
    Observation,
}

/// One result: a file, with its best chunk as the snippet and its fused and
/// per-channel scores (the channels rank files); or a belief or observation.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Hit {
    pub kind: HitKind,
    pub repo: String,
    pub path: String,
    /// The best chunk's lines.
    pub start_line: u32,
    pub end_line: u32,
    pub language: String,
    pub symbol: String,
    pub summary: String,
    pub fused_score: f32,
    /// The file's rank and BM25 score in the lexical channel, if it found the file.
    pub lexical: Option<ChannelScore>,
    /// The file's rank and best chunk cosine in the semantic channel, if it found it.
    pub semantic: Option<ChannelScore>,
    /// Other chunks of the file that match, best first (at most [`MAX_ALSO`]).
    pub also: Vec<ChunkMatch>,
    /// A belief or observation: why the knowledge channel found it ("by meaning: its
    /// evidence, cosine 0.41"); `None` for code (its channels say why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Where the best chunk is: the generation's id at query time, and its content hash.
    #[serde(skip)]
    pub chunk_id: u64,
    #[serde(skip)]
    pub chunk_hash: [u8; 32],
}

/// Which channels answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channels {
    Fused,
    LexicalOnly,
    SemanticOnly,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SearchResult {
    pub hits: Vec<Hit>,
    pub channels: Channels,
    /// Why a channel or a repo was left out (printed once on stderr by the CLI).
    pub warnings: Vec<String>,
    /// The semantic channel's coverage of each searched repo (empty when the channel did
    /// not run: lexical-only, or no model).
    #[serde(default)]
    pub coverage: Vec<Coverage>,
}

/// How much of a searched repo the semantic channel could search.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Coverage {
    pub repo: String,
    /// The model of the repo's vectors (`None`: indexed lexical-only).
    pub model_id: Option<String>,
    /// Chunks with a vector of the query's model (0 when the repo's vectors are of
    /// another model: those are never searched).
    pub embedded: u64,
    pub chunks: u64,
    /// `done`, `embedding`, `queued`, `stalled`, `failed`, `lexical-only` or `other-model`.
    pub state: String,
}

/// Searching failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    #[error("no repos to search (register one with `patina repo add PATH`, or pass --repo ID)")]
    NoRepos,
    #[error("the query has no words to search for")]
    EmptyQuery,
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// A file during fusion: `(repo index, file id)`.
type FileKey = (usize, u64);

/// Keeps repo indexes and the embedding model open across queries.
pub struct Searcher {
    home: PatinaHome,
    embedder: Option<Box<dyn Embedder>>,
    /// Why there is no embedder (reported with each result).
    no_model: Option<String>,
    open: BTreeMap<String, Generation>,
    /// The last query's embedding (routing and search may ask for it in turn).
    last_query: Option<(String, Vec<f32>)>,
}

impl Searcher {
    /// A searcher with the real model if its files are in the models directory.
    pub fn new(home: &PatinaHome) -> Searcher {
        let dir = models::models_dir(home);
        let (embedder, no_model) = match models::locate(&dir) {
            None => (
                None,
                Some(format!(
                    "semantic search is off: the embedding model is not in {} (run `patina models fetch`); results are lexical only",
                    dir.display()
                )),
            ),
            Some(paths) => match OnnxEmbedder::load(&paths) {
                Ok(e) => (Some(Box::new(e) as Box<dyn Embedder>), None),
                Err(e) => (None, Some(format!("semantic search is off: {e}; results are lexical only"))),
            },
        };
        Searcher { home: home.clone(), embedder, no_model, open: BTreeMap::new(), last_query: None }
    }

    /// A searcher with a given embedder (or none: lexical only).
    pub fn with_embedder(home: &PatinaHome, embedder: Option<Box<dyn Embedder>>) -> Searcher {
        let no_model = embedder.is_none().then(|| "semantic search is off; results are lexical only".to_string());
        Searcher { home: home.clone(), embedder, no_model, open: BTreeMap::new(), last_query: None }
    }

    /// A searcher that was asked for the lexical channel only (says nothing about the model).
    pub fn lexical_only(home: &PatinaHome) -> Searcher {
        Searcher { home: home.clone(), embedder: None, no_model: None, open: BTreeMap::new(), last_query: None }
    }

    pub fn has_model(&self) -> bool {
        self.embedder.is_some()
    }

    /// The repo's live generation, opened once and kept.
    fn generation(&mut self, repo: &str) -> Result<&Generation, IndexError> {
        if !self.open.contains_key(repo) {
            let generation = index::open_lazy(&self.home.repo_dir(repo), repo)?;
            self.open.insert(repo.to_string(), generation);
        }
        Ok(&self.open[repo])
    }

    /// Forgets open indexes (after a rebuild).
    pub fn reload(&mut self) {
        self.open.clear();
    }

    /// Forgets the open indexes whose live generation or published vectors changed on
    /// disk since they were opened (cheap: two small file reads per open repo). For
    /// long-lived searchers.
    pub fn refresh(&mut self) {
        let home = self.home.clone();
        self.open.retain(|repo, generation| generation.is_current(&home.repo_dir(repo)));
    }

    /// CORI beliefs (see [`select`]) of `query` in each of `repos`, in order. A repo whose
    /// index cannot be opened is left out (the search itself reports it).
    pub fn select(&mut self, repos: &[String], query: &str) -> Vec<(String, f64)> {
        let stats = self.term_stats(repos, query);
        let refs: Vec<(&str, &text::TermStats)> = stats.iter().map(|(r, s)| (r.as_str(), s)).collect();
        select::cori(&refs).into_iter().map(|(r, b)| (r.to_string(), b)).collect()
    }

    /// The cosines of `query`'s `k` nearest chunks in each of `repos` that has chunks,
    /// best first, and how many chunks with vectors they were drawn from; `None` without
    /// a model, or when one of those repos has no vector of the searcher's model (indexed
    /// lexical-only, of another model, or not embedded yet): then nothing is searched. A
    /// repo whose index cannot be opened is left out.
    pub fn nearest_in_all(
        &mut self,
        repos: &[String],
        query: &str,
        k: usize,
    ) -> Option<BTreeMap<String, select::Nearest>> {
        let model = self.model_id()?;
        let mut embedded = Vec::with_capacity(repos.len());
        for repo in repos {
            let Ok(g) = self.generation(repo) else { continue };
            if g.meta.chunks == 0 {
                continue;
            }
            match g.coverage() {
                // The nearest are drawn from the chunks with vectors: their number is the
                // repo's size for the chance of a near one.
                Some(set) if set.model_id == model && set.embedded > 0 => embedded.push((repo, set.embedded)),
                _ => return None,
            }
        }
        if embedded.is_empty() {
            return None;
        }
        let vector = self.query_vector(query, &mut Vec::new())?;
        let mut out = BTreeMap::new();
        for (repo, chunks) in embedded {
            let hits = self.open[repo].semantic(&vector, k).ok().flatten()?;
            let mut cosines: Vec<f32> = hits.into_iter().map(|(_, c)| c).collect();
            cosines.sort_by(|a, b| b.total_cmp(a));
            out.insert(repo.clone(), select::Nearest { cosines, chunks });
        }
        Some(out)
    }

    /// The collection statistics of `query`'s analysed terms in each of `repos`, in
    /// order. A repo whose index cannot be opened is left out.
    pub fn term_stats(&mut self, repos: &[String], query: &str) -> Vec<(String, text::TermStats)> {
        let terms = text::query_terms(query);
        let mut stats = Vec::new();
        for repo in repos {
            if let Ok(s) = self.generation(repo).and_then(|g| g.term_stats(&terms)) {
                stats.push((repo.clone(), s));
            }
        }
        stats
    }

    /// Both channels over every requested repo, each with prior 1.
    pub fn search(&mut self, request: &SearchRequest) -> Result<SearchResult, SearchError> {
        self.search_weighted(&WeightedRequest {
            repos: request.repos.iter().map(|r| (r.clone(), 1.0)).collect(),
            query: request.query.clone(),
            limit: request.limit,
            lexical: true,
            semantic: true,
        })
    }

    /// The query's embedding (`None` without a model, or when embedding fails).
    pub fn embed_query(&mut self, query: &str) -> Option<Vec<f32>> {
        self.query_vector(query, &mut Vec::new())
    }

    /// Embeddings of `texts` with the searcher's model (`None` without one).
    pub fn embed_texts(&mut self, texts: &[&str]) -> Option<Vec<Vec<f32>>> {
        self.embedder.as_mut()?.embed(texts).ok()
    }

    /// The model's id, if a model is loaded.
    pub fn model_id(&self) -> Option<String> {
        self.embedder.as_ref().map(|e| e.model_id().to_string())
    }

    /// The query's embedding, computed once per query text.
    fn query_vector(&mut self, query: &str, warnings: &mut Vec<String>) -> Option<Vec<f32>> {
        if let Some((q, v)) = &self.last_query
            && q == query
            && self.embedder.is_some()
        {
            return Some(v.clone());
        }
        match (&mut self.embedder, &self.no_model) {
            (Some(embedder), _) => match embedder.embed(&[query]) {
                Ok(mut v) => {
                    let vector = v.pop()?;
                    self.last_query = Some((query.to_string(), vector.clone()));
                    Some(vector)
                }
                Err(e) => {
                    warnings.push(format!("semantic search failed: {e}; results are lexical only"));
                    None
                }
            },
            (None, Some(why)) => {
                warnings.push(why.clone());
                None
            }
            (None, None) => None,
        }
    }

    /// The one search: ranks files over all `request.repos` together (see the module
    /// docs). Lexical: file-level BM25 with the combined statistics of the repos. Semantic:
    /// a file's best chunk cosine. The two file lists are fused by normalised score ([`fuse`]), each
    /// file's fused score multiplied by its repo's prior; the best chunk of each result
    /// (by chunk-level BM25 and cosine) is its snippet.
    pub fn search_weighted(&mut self, request: &WeightedRequest) -> Result<SearchResult, SearchError> {
        if request.repos.is_empty() {
            return Err(SearchError::NoRepos);
        }
        if request.query.trim().is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        let terms = if request.lexical { text::query_terms(&request.query) } else { Vec::new() };
        let mut warnings = Vec::new();
        let query_vector = if request.semantic { self.query_vector(&request.query, &mut warnings) } else { None };
        if terms.is_empty() && query_vector.is_none() {
            return Err(SearchError::EmptyQuery);
        }
        let candidates = (request.limit * 4).max(MIN_CANDIDATES);
        // A repo whose index cannot be opened is left out with a warning, unless it is the
        // only one (then its error is the answer).
        let mut repos: Vec<(String, f64)> = Vec::with_capacity(request.repos.len());
        let mut first_error = None;
        for (repo, prior) in &request.repos {
            match self.generation(repo) {
                Ok(_) => repos.push((repo.clone(), *prior)),
                Err(e) => {
                    warnings.push(format!("{repo} left out: {e}"));
                    first_error.get_or_insert(e);
                }
            }
        }
        if repos.is_empty() {
            return Err(first_error.map_or(SearchError::NoRepos, SearchError::Index));
        }
        let generations: Vec<&Generation> = repos.iter().map(|(r, _)| &self.open[r]).collect();

        // DFS: statistics of the query's terms over every searched repo, then score.
        let mut chunk_stats = text::CorpusStats::default();
        let mut file_stats = text::CorpusStats::default();
        if !terms.is_empty() {
            for g in &generations {
                g.add_stats(&terms, &mut chunk_stats, &mut file_stats)?;
            }
        }
        // A query written as code (`spawn_entity`, `HashMap::new`) asks for a definition:
        // then item names count when ranking files.
        let file_weights =
            if text::looks_like_code(&request.query) { text::Weights::FileByName } else { text::Weights::File };
        let mut lexical: Vec<(FileKey, f32)> = Vec::new();
        let mut semantic_chunks: Vec<(usize, u64, f32)> = Vec::new();
        let mut coverage = Vec::new();
        let query_model = self.embedder.as_ref().map(|e| e.model_id().to_string());
        let worker_active = crate::worker::is_active(&self.home);
        for (repo_idx, g) in generations.iter().enumerate() {
            if !terms.is_empty() {
                let files = g.lexical_files(&terms, candidates, &file_stats, file_weights)?;
                lexical.extend(files.into_iter().map(|(file, s)| ((repo_idx, file), s)));
            }
            let (Some(vector), Some(model)) = (&query_vector, &query_model) else { continue };
            let repo = &repos[repo_idx].0;
            let covered = repo_coverage(&self.home.repo_dir(repo), repo, g, model, worker_active);
            if covered.state != "lexical-only" && covered.state != "other-model" {
                // Vectors of the query's model only; the others are never compared with it.
                if let Some(hits) = g.semantic(vector, candidates)? {
                    semantic_chunks.extend(hits.into_iter().map(|(id, s)| (repo_idx, id, s)));
                }
            }
            coverage.push(covered);
        }
        warnings.extend(coverage_warnings(&coverage, query_model.as_deref().unwrap_or("")));
        // A file's semantic score is its best chunk's cosine.
        let mut semantic_files: BTreeMap<FileKey, f32> = BTreeMap::new();
        let mut chunk_cosines: BTreeMap<FileKey, Vec<(u64, f32)>> = BTreeMap::new();
        for &(repo_idx, id, cosine) in &semantic_chunks {
            let file = generations[repo_idx].file_of(id)?;
            let best = semantic_files.entry((repo_idx, file)).or_insert(f32::MIN);
            *best = best.max(cosine);
            chunk_cosines.entry((repo_idx, file)).or_default().push((id, cosine));
        }
        let mut semantic: Vec<(FileKey, f32)> = semantic_files.into_iter().collect();
        let by_score = |a: &(FileKey, f32), b: &(FileKey, f32)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0));
        lexical.sort_by(by_score);
        semantic.sort_by(by_score);
        let mut fused = fuse::fuse(&lexical, &semantic, file_stats.ideal_body_score(&terms));
        for f in &mut fused {
            f.score *= repos[f.key.0].1 as f32;
        }
        fused.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.key.0.cmp(&b.key.0))
                .then_with(|| a.best_rank().cmp(&b.best_rank()))
                .then_with(|| a.key.1.cmp(&b.key.1))
        });

        // The chunks of each result file, scored like the files: each channel relative to
        // its best chunk over all results (chunk BM25 with the combined statistics).
        let top: Vec<fuse::Fused<FileKey>> = fused.into_iter().take(request.limit).collect();
        let mut per_file = Vec::with_capacity(top.len());
        for f in &top {
            let (repo_idx, file) = f.key;
            let in_file = if terms.is_empty() {
                Vec::new()
            } else {
                generations[repo_idx].lexical_in_file(&terms, file, 16, &chunk_stats)?
            };
            per_file.push((in_file, chunk_cosines.remove(&f.key).unwrap_or_default()));
        }
        let max_lexical =
            per_file.iter().flat_map(|(l, _)| l).map(|x| x.1).fold(chunk_stats.ideal_body_score(&terms), f32::max);
        let max_cosine = semantic_chunks.iter().map(|x| x.2).fold(0.0f32, f32::max);
        let mut hits = Vec::with_capacity(request.limit);
        for (f, (in_file_lexical, cosines)) in top.into_iter().zip(per_file) {
            let (repo_idx, file) = f.key;
            let g = generations[repo_idx];
            let chunks = rank_chunks(&in_file_lexical, &cosines, max_lexical, max_cosine);
            let Some(&(best_id, _, _)) = chunks.first() else {
                // A file matched by its name or path only: its first chunk.
                let Some(stored) = g.chunk(file)? else { continue };
                hits.push(hit(&repos[repo_idx].0, file, stored, &f, Vec::new()));
                continue;
            };
            let Some(stored) = g.chunk(best_id)? else { continue };
            let mut also = Vec::new();
            // Other chunks that match at least half as well as the best one.
            let best_score = chunk_score(chunks[0].1, chunks[0].2, max_lexical, max_cosine);
            let also_matching = chunks
                .iter()
                .skip(1)
                .filter(|c| chunk_score(c.1, c.2, max_lexical, max_cosine) >= 0.5 * best_score)
                .take(MAX_ALSO);
            for &(id, lexical, semantic) in also_matching {
                if let Some(other) = g.chunk(id)? {
                    also.push(ChunkMatch {
                        start_line: other.chunk.start_line,
                        end_line: other.chunk.end_line,
                        symbol: other.chunk.symbol,
                        lexical,
                        semantic,
                        chunk_id: id,
                        chunk_hash: other.hash,
                    });
                }
            }
            also.sort_by_key(|c| c.start_line);
            hits.push(hit(&repos[repo_idx].0, best_id, stored, &f, also));
        }
        let channels = match (query_vector.is_some(), !terms.is_empty()) {
            (true, true) => Channels::Fused,
            (true, false) => Channels::SemanticOnly,
            _ => Channels::LexicalOnly,
        };
        Ok(SearchResult { hits, channels, warnings, coverage })
    }

    /// The plain baseline: file-level BM25 of the file text alone over `repos`, with
    /// their combined statistics; no names, paths, vectors, fusion or priors.
    /// `(repo, path, score)`, best first.
    pub fn bm25_files(
        &mut self,
        repos: &[String],
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, String, f32)>, SearchError> {
        let terms = text::query_terms(query);
        if terms.is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        for repo in repos {
            self.generation(repo)?;
        }
        let mut chunk_stats = text::CorpusStats::default();
        let mut file_stats = text::CorpusStats::default();
        for repo in repos {
            self.open[repo].add_stats(&terms, &mut chunk_stats, &mut file_stats)?;
        }
        let mut all: Vec<(usize, u64, f32)> = Vec::new();
        for (i, repo) in repos.iter().enumerate() {
            let files = self.open[repo].lexical_files(&terms, limit, &file_stats, text::Weights::Body)?;
            all.extend(files.into_iter().map(|(file, s)| (i, file, s)));
        }
        all.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| (a.0, a.1).cmp(&(b.0, b.1))));
        let mut out = Vec::with_capacity(limit);
        for (i, file, score) in all.into_iter().take(limit) {
            if let Some(stored) = self.open[&repos[i]].chunk(file)? {
                out.push((repos[i].clone(), stored.chunk.path, score));
            }
        }
        Ok(out)
    }
}

/// The semantic channel's coverage of one repo for a query embedded by `model`.
fn repo_coverage(repo_dir: &std::path::Path, repo: &str, g: &Generation, model: &str, worker_active: bool) -> Coverage {
    let mut covered =
        Coverage { repo: repo.to_string(), model_id: None, embedded: 0, chunks: g.meta.chunks, state: String::new() };
    let Some(set) = g.coverage() else {
        covered.state = "lexical-only".into();
        return covered;
    };
    covered.model_id = Some(set.model_id.clone());
    if set.model_id != model {
        covered.state = "other-model".into();
        return covered;
    }
    covered.embedded = set.embedded;
    covered.chunks = set.chunks;
    covered.state = backfill::status(repo_dir, g.name(), set, worker_active).state.as_str().into();
    covered
}

/// One line for the repos the semantic channel covered only in part (none when all is
/// covered).
fn coverage_warnings(coverage: &[Coverage], model: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let lexical: Vec<&str> = coverage.iter().filter(|c| c.state == "lexical-only").map(|c| c.repo.as_str()).collect();
    if !lexical.is_empty() {
        warnings.push(format!(
            "{} indexed without the model (lexical only there): run `patina repo update {}`",
            lexical.join(", "),
            lexical.join(" ")
        ));
    }
    let other: Vec<&Coverage> = coverage.iter().filter(|c| c.state == "other-model").collect();
    if !other.is_empty() {
        let names: Vec<String> =
            other.iter().map(|c| format!("{} ({})", c.repo, c.model_id.as_deref().unwrap_or(""))).collect();
        let ids: Vec<&str> = other.iter().map(|c| c.repo.as_str()).collect();
        warnings.push(format!(
            "{} embedded with another model than {model}: lexical only there until re-embedded (`patina repo update {}`)",
            names.join(", "),
            ids.join(" ")
        ));
    }
    let partial: Vec<String> = coverage
        .iter()
        .filter(|c| c.model_id.as_deref() == Some(model) && c.embedded < c.chunks)
        .map(|c| {
            let share = if c.chunks == 0 { 100.0 } else { 100.0 * c.embedded as f64 / c.chunks as f64 };
            let how = match c.state.as_str() {
                "embedding" => "embedding in the background".to_string(),
                "queued" => "queued for the background worker".to_string(),
                _ => format!("embedding stopped: run `patina repo embed {}`", c.repo),
            };
            format!("{} {share:.0}% ({} of {} chunks; {how})", c.repo, c.embedded, c.chunks)
        })
        .collect();
    if !partial.is_empty() {
        warnings.push(format!(
            "semantic search covers part of {}: {}; lexical search covers all",
            if partial.len() == 1 { "a repo" } else { "some repos" },
            partial.join(", ")
        ));
    }
    warnings
}

/// The chunks of one file, best first: `(chunk id, BM25, cosine)`, scored by
/// [`fuse::ALPHA`] · BM25 / `max_lexical` + (1 − α) · cosine / `max_cosine` (the best of
/// each channel over all results), the better cosine first on equal scores.
fn rank_chunks(
    lexical: &[(u64, f32)],
    cosines: &[(u64, f32)],
    max_lexical: f32,
    max_cosine: f32,
) -> Vec<(u64, Option<f32>, Option<f32>)> {
    let mut by_id: BTreeMap<u64, (Option<f32>, Option<f32>)> = BTreeMap::new();
    for &(id, s) in lexical {
        by_id.entry(id).or_default().0 = Some(s);
    }
    for &(id, c) in cosines {
        by_id.entry(id).or_default().1 = Some(c);
    }
    let score = |l: Option<f32>, c: Option<f32>| chunk_score(l, c, max_lexical, max_cosine);
    let mut out: Vec<(u64, Option<f32>, Option<f32>)> = by_id.into_iter().map(|(id, (l, c))| (id, l, c)).collect();
    out.sort_by(|a, b| {
        score(b.1, b.2)
            .total_cmp(&score(a.1, a.2))
            .then_with(|| b.2.unwrap_or(f32::MIN).total_cmp(&a.2.unwrap_or(f32::MIN)))
            .then_with(|| a.0.cmp(&b.0))
    });
    out
}

/// A chunk's fused score: [`fuse::ALPHA`] · BM25 / `max_lexical` + (1 − α) · cosine /
/// `max_cosine`, with α = 1 or 0 when only one channel has a scale.
fn chunk_score(lexical: Option<f32>, cosine: Option<f32>, max_lexical: f32, max_cosine: f32) -> f32 {
    let alpha = match (max_lexical > 0.0, max_cosine > 0.0) {
        (true, true) => fuse::ALPHA,
        (true, false) => 1.0,
        (false, _) => 0.0,
    };
    let rel = |v: Option<f32>, max: f32| v.filter(|_| max > 0.0).map_or(0.0, |v| (v / max).max(0.0));
    alpha * rel(lexical, max_lexical) + (1.0 - alpha) * rel(cosine, max_cosine)
}

fn hit(repo: &str, chunk_id: u64, stored: index::StoredChunk, f: &fuse::Fused<FileKey>, also: Vec<ChunkMatch>) -> Hit {
    let c = stored.chunk;
    Hit {
        kind: HitKind::Code,
        repo: repo.to_string(),
        path: c.path,
        start_line: c.start_line,
        end_line: c.end_line,
        language: c.language,
        symbol: c.symbol,
        summary: c.summary,
        fused_score: f.score,
        lexical: f.lexical,
        semantic: f.semantic,
        also,
        why: None,
        chunk_id,
        chunk_hash: stored.hash,
    }
}

/// One query over `request.repos`, loading the model if it is available.
pub fn search(home: &PatinaHome, request: &SearchRequest) -> Result<SearchResult, SearchError> {
    Searcher::new(home).search(request)
}

/// A `Searcher` moves between threads (the MCP server keeps one across tool calls).
#[allow(dead_code)]
fn searcher_is_send() {
    fn send<T: Send>() {}
    send::<Searcher>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_search_over_two_repos_with_a_fake_embedder() {
        let home = tempfile::tempdir().unwrap();
        let home = PatinaHome::at(home.path());
        let a = tempfile::tempdir().unwrap();
        std::fs::write(a.path().join("world.rs"), "/// Spawns an entity into the world.\npub fn spawn_entity() {}\n")
            .unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(
            b.path().join("vec.py"),
            "def cosine(a, b):\n    \"\"\"Cosine similarity.\"\"\"\n    return 1\n",
        )
        .unwrap();
        for (id, dir) in [("a", &a), ("b", &b)] {
            index::build(&home.repo_dir(id), id, dir.path(), Some(&mut embed::HashEmbedder), &mut |_, _, _| {})
                .unwrap();
        }
        let mut searcher = Searcher::with_embedder(&home, Some(Box::new(embed::HashEmbedder)));
        let request = SearchRequest { repos: vec!["a".into(), "b".into()], query: "spawn entity".into(), limit: 5 };
        let result = searcher.search(&request).unwrap();
        assert_eq!(result.channels, Channels::Fused);
        let top = &result.hits[0];
        assert_eq!((top.repo.as_str(), top.path.as_str(), top.start_line), ("a", "world.rs", 1));
        assert!(top.lexical.is_some() && top.semantic.is_some());
        assert!(result.hits.windows(2).all(|w| w[0].fused_score >= w[1].fused_score));

        let mut lexical_only = Searcher::with_embedder(&home, None);
        let result = lexical_only.search(&request).unwrap();
        assert_eq!(result.channels, Channels::LexicalOnly);
        assert_eq!(result.warnings.len(), 1);
        assert!(result.hits.iter().all(|h| h.semantic.is_none()));

        let missing = SearchRequest { repos: vec!["nope".into()], ..request.clone() };
        assert!(matches!(searcher.search(&missing), Err(SearchError::Index(IndexError::NotIndexed { .. }))));
        let empty = SearchRequest { query: "  ".into(), ..request };
        assert!(matches!(searcher.search(&empty), Err(SearchError::EmptyQuery)));
    }

    #[test]
    fn a_partly_embedded_repo_is_searched_by_meaning_where_embedded_and_says_how_much() {
        let home = tempfile::tempdir().unwrap();
        let home = PatinaHome::at(home.path());
        let src = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..12 {
            text.push_str(&format!("/// Spawns entity kind {i} into the world.\npub fn spawn_kind_{i}() {{}}\n\n"));
        }
        std::fs::write(src.path().join("world.rs"), text).unwrap();
        let dir = home.repo_dir("a");
        let built = index::build_lexical(&dir, "a", src.path(), Some("hash-bag-of-words"), &mut |_, _, _| {}).unwrap();
        let chunks = built.chunks;
        assert!(chunks > 4, "{chunks} chunks");
        let config = backfill::Config { step: 4, publish_every: std::time::Duration::ZERO, wait_for_lock: false };
        let steps = std::cell::Cell::new(0);
        let stop = || {
            steps.set(steps.get() + 1);
            steps.get() > 1
        };
        backfill::run(&dir, &mut embed::HashEmbedder, &config, &mut |_| {}, &stop).unwrap();

        let mut searcher = Searcher::with_embedder(&home, Some(Box::new(embed::HashEmbedder)));
        let request = SearchRequest { repos: vec!["a".into()], query: "spawns entity world".into(), limit: 20 };
        let result = searcher.search(&request).unwrap();
        let expected = Coverage {
            repo: "a".into(),
            model_id: Some("hash-bag-of-words".into()),
            embedded: 4,
            chunks,
            state: "stalled".into(),
        };
        assert_eq!(result.coverage, vec![expected]);
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.contains(&format!("(4 of {chunks} chunks")) && w.contains("patina repo embed a")),
            "{:?}",
            result.warnings
        );
        let by_meaning: Vec<u64> = result.hits.iter().filter(|h| h.semantic.is_some()).map(|h| h.chunk_id).collect();
        assert!(!by_meaning.is_empty() && by_meaning.iter().all(|id| *id < 4), "{by_meaning:?}");

        // After the rest is embedded, a long-lived searcher sees the new vectors.
        backfill::run(&dir, &mut embed::HashEmbedder, &config, &mut |_| {}, &|| false).unwrap();
        searcher.refresh();
        let result = searcher.search(&request).unwrap();
        assert_eq!((result.coverage[0].embedded, result.coverage[0].state.as_str()), (chunks, "done"));
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);

        // A query embedded by another model never meets these vectors.
        struct Other;
        impl Embedder for Other {
            fn model_id(&self) -> &str {
                "other-model"
            }
            fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, embed::EmbedError> {
                embed::HashEmbedder.embed(texts)
            }
        }
        let mut other = Searcher::with_embedder(&home, Some(Box::new(Other)));
        let result = other.search(&request).unwrap();
        assert_eq!(result.coverage[0].state, "other-model");
        assert!(result.hits.iter().all(|h| h.semantic.is_none()));
        assert!(result.warnings.iter().any(|w| w.contains("another model")), "{:?}", result.warnings);
    }
}
