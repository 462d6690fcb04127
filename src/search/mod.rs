//! Search over indexed repositories: two channels (lexical BM25 via tantivy, semantic
//! via ONNX embeddings in usearch) fused by reciprocal rank.
//!
//! ```text
//! repo files ─ chunk ─┬─ text (tantivy, code tokenizer) ──┐
//!                     └─ embed (ort) ─ vector (usearch) ──┴─ fuse (RRF) ─▶ hits
//! ```
//!
//! [`search`] is the library entry point a router calls with a chosen set of repos; the
//! [`Searcher`] keeps indexes and the model open across queries (benchmarks, servers).
//!
//! Invariant: a hit only ever names a chunk that is in a repo's live index; its text is
//! served from the index's chunk store, never read from a path a caller supplied.
//! Invariant: when the model is unavailable the search still answers from the lexical
//! channel and says why in [`SearchResult::warnings`]; it never fails for that reason.

pub mod chunk;
pub mod embed;
pub mod fuse;
pub mod index;
pub mod select;
pub mod text;
pub mod vector;

use std::collections::BTreeMap;

use crate::home::PatinaHome;
use crate::models;
use embed::{Embedder, OnnxEmbedder};
use fuse::ChannelScore;
use index::{Generation, IndexError};

/// Per-channel candidates fetched for each repo (before fusion).
const MIN_CANDIDATES: usize = 50;

/// A search over some repos.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// Registered repo ids; each must have an index.
    pub repos: Vec<String>,
    pub query: String,
    pub limit: usize,
}

/// One result: a chunk with its fused and per-channel scores.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    pub repo: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: String,
    pub symbol: String,
    pub summary: String,
    pub fused_score: f32,
    /// Rank and BM25 score in the lexical channel, if it found this chunk.
    pub lexical: Option<ChannelScore>,
    /// Rank and cosine similarity in the semantic channel, if it found this chunk.
    pub semantic: Option<ChannelScore>,
    /// Where the chunk is: the generation and id at query time, and its content hash.
    #[serde(skip)]
    pub chunk_id: u64,
    #[serde(skip)]
    pub chunk_hash: [u8; 32],
}

/// Which channels answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Channels {
    Fused,
    LexicalOnly,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchResult {
    pub hits: Vec<Hit>,
    pub channels: Channels,
    /// Why a channel or a repo was left out (printed once on stderr by the CLI).
    pub warnings: Vec<String>,
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

/// Keeps repo indexes and the embedding model open across queries.
pub struct Searcher {
    home: PatinaHome,
    embedder: Option<Box<dyn Embedder>>,
    /// Why there is no embedder (reported with each result).
    no_model: Option<String>,
    open: BTreeMap<String, Generation>,
    /// The last query's embedding: a routed search asks each repo in turn.
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

    fn generation(&mut self, repo: &str) -> Result<&Generation, IndexError> {
        if !self.open.contains_key(repo) {
            let generation = index::open(&self.home.repo_dir(repo), repo)?;
            self.open.insert(repo.to_string(), generation);
        }
        Ok(&self.open[repo])
    }

    /// Forgets open indexes (after a rebuild).
    pub fn reload(&mut self) {
        self.open.clear();
    }

    /// CORI beliefs (see [`select`]) of `query` in each of `repos`, in order. A repo whose
    /// index cannot be opened is left out (the search itself reports it).
    pub fn select(&mut self, repos: &[String], query: &str) -> Vec<(String, f64)> {
        let terms = text::query_terms(query);
        let mut stats = Vec::new();
        for repo in repos {
            if let Ok(s) = self.generation(repo).and_then(|g| g.term_stats(&terms)) {
                stats.push((repo.as_str(), s));
            }
        }
        let refs: Vec<(&str, &text::TermStats)> = stats.iter().map(|(r, s)| (*r, s)).collect();
        select::cori(&refs).into_iter().map(|(r, b)| (r.to_string(), b)).collect()
    }

    /// Runs both channels over every requested repo and fuses them.
    pub fn search(&mut self, request: &SearchRequest) -> Result<SearchResult, SearchError> {
        self.search_channels(request, true, true)
    }

    /// Like [`Searcher::search`], with channels switched on or off (for benchmarks).
    pub fn search_channels(
        &mut self,
        request: &SearchRequest,
        use_lexical: bool,
        use_semantic: bool,
    ) -> Result<SearchResult, SearchError> {
        if request.repos.is_empty() {
            return Err(SearchError::NoRepos);
        }
        let terms = text::query_terms(&request.query);
        if request.query.trim().is_empty() {
            return Err(SearchError::EmptyQuery);
        }
        let mut warnings = Vec::new();
        let mut query_vector = None;
        if use_semantic {
            match (&mut self.embedder, &self.no_model) {
                (Some(_), _) if self.last_query.as_ref().is_some_and(|(q, _)| *q == request.query) => {
                    query_vector = self.last_query.as_ref().map(|(_, v)| v.clone());
                }
                (Some(embedder), _) => match embedder.embed(&[request.query.as_str()]) {
                    Ok(mut v) => {
                        query_vector = v.pop();
                        self.last_query = query_vector.clone().map(|v| (request.query.clone(), v));
                    }
                    Err(e) => warnings.push(format!("semantic search failed: {e}; results are lexical only")),
                },
                (None, Some(why)) => warnings.push(why.clone()),
                (None, None) => {}
            }
        }
        if terms.is_empty() && query_vector.is_none() {
            return Err(SearchError::EmptyQuery);
        }
        let candidates = (request.limit * 4).max(MIN_CANDIDATES);
        let mut lexical: Vec<((usize, u64), f32)> = Vec::new();
        let mut semantic: Vec<((usize, u64), f32)> = Vec::new();
        let mut no_vectors = Vec::new();
        for (repo_idx, repo) in request.repos.iter().enumerate() {
            let generation = self.generation(repo)?;
            if use_lexical {
                lexical.extend(generation.lexical(&terms, candidates)?.into_iter().map(|(id, s)| ((repo_idx, id), s)));
            }
            if let Some(vector) = &query_vector {
                match generation.semantic(vector, candidates)? {
                    Some(hits) => semantic.extend(hits.into_iter().map(|(id, s)| ((repo_idx, id), s))),
                    None => no_vectors.push(repo.clone()),
                }
            }
        }
        if !no_vectors.is_empty() {
            warnings.push(format!(
                "{} indexed without the model (lexical only there): run `patina repo update {}`",
                no_vectors.join(", "),
                no_vectors.join(" ")
            ));
        }
        // Across repos, BM25 scores and cosines are each on one scale: merge by score.
        lexical.sort_by(|a, b| b.1.total_cmp(&a.1));
        semantic.sort_by(|a, b| b.1.total_cmp(&a.1));
        let fused = fuse::rrf(&lexical, &semantic);
        let mut hits = Vec::with_capacity(request.limit);
        for f in fused.into_iter().take(request.limit) {
            let (repo_idx, chunk_id) = f.key;
            let repo = &request.repos[repo_idx];
            let generation = self.generation(repo)?;
            let Some(stored) = generation.chunk(chunk_id)? else { continue };
            let c = stored.chunk;
            hits.push(Hit {
                repo: repo.clone(),
                path: c.path,
                start_line: c.start_line,
                end_line: c.end_line,
                language: c.language,
                symbol: c.symbol,
                summary: c.summary,
                fused_score: f.score,
                lexical: f.lexical,
                semantic: f.semantic,
                chunk_id,
                chunk_hash: stored.hash,
            });
        }
        let channels = if query_vector.is_some() { Channels::Fused } else { Channels::LexicalOnly };
        Ok(SearchResult { hits, channels, warnings })
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
}
