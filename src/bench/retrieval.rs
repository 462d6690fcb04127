//! `patina bench retrieval`: does graph routing find the right repos and documents, and
//! at what cost, compared with searching everything (`all`), the ceiling (`oracle`) and
//! the bar every mode must clear (`bm25-all`: plain file-level BM25 over every indexed
//! repo, no graph, no fusion, no priors)?
//!
//! The routed modes go through the one query path, `scry::run`, exactly as the CLI and
//! MCP do (without recording query ids); `bm25-all` is deliberately another engine.
//!
//! Metrics per query, for each K:
//! - repo recall@K: the share of expected repos among the repos of the top K results;
//! - doc recall@K: the share of expected documents (path prefixes) among the top K;
//! - MRR: 1 / rank of the first result from an expected repo (doc MRR: expected doc);
//! - routing recall: the share of the expected repos that have an index which routing
//!   searched at all (whatever their results' ranks): the ceiling routing leaves to ranking;
//! - routing waste: repos searched that are neither expected nor the source project;
//! - latency: routing plus search, in milliseconds.
//!
//! Architecture Invariant: the metric functions are pure and unit-tested on hand-made
//! cases; the runner only gathers (repo, path) lists and times.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::home::PatinaHome;
use crate::scry::{self, RouteChoice, World};
use crate::search::Searcher;

/// A queryset (the format of `cross-project-queryset.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct QuerySet {
    #[serde(default)]
    pub name: String,
    pub queries: Vec<LabelledQuery>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LabelledQuery {
    pub id: String,
    pub query: String,
    pub source_project: String,
    pub expected_repos: Vec<String>,
    #[serde(default)]
    pub expected_docs: Vec<String>,
}

pub fn load(path: &Path) -> anyhow::Result<QuerySet> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut set: QuerySet =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not a queryset: {e}", path.display()))?;
    if set.name.is_empty() {
        set.name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    }
    if set.queries.is_empty() {
        anyhow::bail!("{}: the queryset has no queries", path.display());
    }
    Ok(set)
}

/// Which repos a run searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    Graph,
    All,
    Oracle,
    /// Plain file-level BM25 over every indexed repo (the baseline).
    Bm25All,
}

impl Routing {
    pub fn parse(given: &str) -> Option<Routing> {
        match given.to_ascii_lowercase().as_str() {
            "graph" => Some(Routing::Graph),
            "all" => Some(Routing::All),
            "oracle" => Some(Routing::Oracle),
            "bm25-all" | "bm25_all" | "bm25" => Some(Routing::Bm25All),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Routing::Graph => "graph",
            Routing::All => "all",
            Routing::Oracle => "oracle",
            Routing::Bm25All => "bm25-all",
        }
    }
}

/// The metrics of one ranked list against one labelled query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    /// K → repo recall@K.
    pub repo_recall: BTreeMap<usize, f64>,
    /// K → doc recall@K (`None` when the query lists no expected docs).
    pub doc_recall: BTreeMap<usize, Option<f64>>,
    pub mrr: f64,
    pub doc_mrr: Option<f64>,
}

fn doc_matches(path: &str, expected: &str) -> bool {
    let path = path.trim_start_matches("./");
    let expected = expected.trim_start_matches("./");
    path == expected
        || path.starts_with(expected.trim_end_matches('/'))
            && (expected.ends_with('/')
                || path.len() == expected.len()
                || path.as_bytes().get(expected.len()) == Some(&b'/'))
}

/// Metrics of `hits` ((repo, path), best first) for the expected repos and docs.
pub fn metrics(
    hits: &[(String, String)],
    expected_repos: &[String],
    expected_docs: &[String],
    ks: &[usize],
) -> Metrics {
    let mut repo_recall = BTreeMap::new();
    let mut doc_recall = BTreeMap::new();
    for &k in ks {
        let top = &hits[..hits.len().min(k)];
        let found: BTreeSet<&str> = top.iter().map(|(r, _)| r.as_str()).collect();
        let recall = if expected_repos.is_empty() {
            1.0
        } else {
            expected_repos.iter().filter(|r| found.contains(r.as_str())).count() as f64 / expected_repos.len() as f64
        };
        repo_recall.insert(k, recall);
        let docs = (!expected_docs.is_empty()).then(|| {
            expected_docs.iter().filter(|d| top.iter().any(|(_, p)| doc_matches(p, d))).count() as f64
                / expected_docs.len() as f64
        });
        doc_recall.insert(k, docs);
    }
    let mrr = hits.iter().position(|(r, _)| expected_repos.contains(r)).map(|i| 1.0 / (i + 1) as f64).unwrap_or(0.0);
    let doc_mrr = (!expected_docs.is_empty()).then(|| {
        hits.iter()
            .position(|(_, p)| expected_docs.iter().any(|d| doc_matches(p, d)))
            .map(|i| 1.0 / (i + 1) as f64)
            .unwrap_or(0.0)
    });
    Metrics { repo_recall, doc_recall, mrr, doc_mrr }
}

/// The share of the indexed expected repos that were searched; `None` when no expected
/// repo has an index (no routing can reach it).
pub fn routing_recall(searched: &[String], expected: &[String], indexed: &BTreeSet<String>) -> Option<f64> {
    let reachable: Vec<&String> = expected.iter().filter(|r| indexed.contains(*r)).collect();
    (!reachable.is_empty())
        .then(|| reachable.iter().filter(|r| searched.contains(r)).count() as f64 / reachable.len() as f64)
}

/// Repos searched that are neither expected nor the source project.
pub fn waste(searched: &[String], expected: &[String], source: &str) -> usize {
    searched.iter().filter(|r| r.as_str() != source && !expected.contains(r)).count()
}

/// One ranked result, with what an outside scorer needs to recompute any metric.
#[derive(Debug, Clone, Serialize)]
pub struct RankedResult {
    pub rank: usize,
    pub repo: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub fused: f32,
    /// File-level BM25 (combined statistics), if the lexical channel found the file.
    pub lexical: Option<f32>,
    /// Best chunk cosine, if the semantic channel found the file.
    pub semantic: Option<f32>,
}

/// One query under one routing.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub id: String,
    pub routing: Routing,
    pub query: String,
    pub searched: Vec<String>,
    /// Expected repos that have no index (no routing can find them).
    pub expected_not_indexed: Vec<String>,
    /// The repos of the top results, best first.
    pub top_repos: Vec<String>,
    /// The ranked results.
    pub results: Vec<RankedResult>,
    #[serde(flatten)]
    pub metrics: Metrics,
    pub waste: usize,
    /// See [`routing_recall`].
    pub routing_recall: Option<f64>,
    pub latency_ms: f64,
    pub error: Option<String>,
}

/// Averages of one routing.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub routing: Routing,
    pub queries: usize,
    pub repo_recall: BTreeMap<usize, f64>,
    /// Over the queries that list expected docs.
    pub doc_recall: BTreeMap<usize, Option<f64>>,
    pub mrr: f64,
    pub doc_mrr: Option<f64>,
    /// Over the queries with an indexed expected repo.
    pub routing_recall: Option<f64>,
    pub waste: f64,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = values.collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

pub fn summarize(routing: Routing, rows: &[Row], ks: &[usize]) -> Summary {
    let rows: Vec<&Row> = rows.iter().filter(|r| r.routing == routing).collect();
    let mut repo_recall = BTreeMap::new();
    let mut doc_recall = BTreeMap::new();
    for &k in ks {
        repo_recall.insert(k, mean(rows.iter().map(|r| r.metrics.repo_recall[&k])).unwrap_or(0.0));
        doc_recall.insert(k, mean(rows.iter().filter_map(|r| r.metrics.doc_recall[&k])));
    }
    Summary {
        routing,
        queries: rows.len(),
        repo_recall,
        doc_recall,
        mrr: mean(rows.iter().map(|r| r.metrics.mrr)).unwrap_or(0.0),
        doc_mrr: mean(rows.iter().filter_map(|r| r.metrics.doc_mrr)),
        routing_recall: mean(rows.iter().filter_map(|r| r.routing_recall)),
        waste: mean(rows.iter().map(|r| r.waste as f64)).unwrap_or(0.0),
        latency_p50_ms: percentile(rows.iter().map(|r| r.latency_ms).collect(), 0.5),
        latency_p95_ms: percentile(rows.iter().map(|r| r.latency_ms).collect(), 0.95),
    }
}

/// Runs every query under `routing`; errors of one query are recorded in its row. The
/// `world` holds the edges of every source project of `set` (see [`scry::World::load`]).
pub fn run(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    set: &QuerySet,
    routing: Routing,
    ks: &[usize],
    lexical_only: bool,
) -> Vec<Row> {
    let limit = ks.iter().copied().max().unwrap_or(10);
    let all: Vec<String> = world.indexed.iter().cloned().collect();
    let mut rows = Vec::new();
    for q in &set.queries {
        let started = Instant::now();
        let project = world.nodes.contains_key(&q.source_project).then(|| q.source_project.clone());
        let outcome = match routing {
            Routing::Bm25All => searcher.bm25_files(&all, &q.query, limit).map_err(|e| e.to_string()).map(|hits| {
                let results = hits
                    .into_iter()
                    .enumerate()
                    .map(|(i, (repo, path, score))| RankedResult {
                        rank: i + 1,
                        repo,
                        path,
                        start_line: 0,
                        end_line: 0,
                        fused: score,
                        lexical: Some(score),
                        semantic: None,
                    })
                    .collect();
                (all.clone(), results)
            }),
            _ => {
                let choice = match routing {
                    Routing::All => RouteChoice { project, repos: Vec::new(), all: true },
                    Routing::Oracle => RouteChoice {
                        project,
                        repos: q.expected_repos.iter().filter(|r| world.indexed.contains(*r)).cloned().collect(),
                        all: false,
                    },
                    _ => RouteChoice { project, repos: Vec::new(), all: false },
                };
                let mut query = scry::Query::new(&q.query, choice, limit);
                query.record = false;
                query.semantic = !lexical_only;
                // Code retrieval is measured here; the knowledge channel has its own set.
                query.knowledge = false;
                if routing == Routing::Oracle && query.choice.repos.is_empty() {
                    Err("no expected repo is indexed".to_string())
                } else {
                    scry::run(home, searcher, world, &query).map_err(|e| e.to_string()).map(|found| {
                        let results = found
                            .result
                            .hits
                            .into_iter()
                            .enumerate()
                            .map(|(i, h)| RankedResult {
                                rank: i + 1,
                                repo: h.repo,
                                path: h.path,
                                start_line: h.start_line,
                                end_line: h.end_line,
                                fused: h.fused_score,
                                lexical: h.lexical.map(|c| c.score),
                                semantic: h.semantic.map(|c| c.score),
                            })
                            .collect();
                        (found.repos, results)
                    })
                }
            }
        };
        let latency_ms = started.elapsed().as_secs_f64() * 1e3;
        let (searched, results, error) = match outcome {
            Ok((searched, results)) => (searched, results, None),
            Err(e) => (Vec::new(), Vec::new(), Some(e)),
        };
        let hits: Vec<(String, String)> = results.iter().map(|r| (r.repo.clone(), r.path.clone())).collect();
        rows.push(Row {
            id: q.id.clone(),
            routing,
            query: q.query.clone(),
            waste: waste(&searched, &q.expected_repos, &q.source_project),
            routing_recall: routing_recall(&searched, &q.expected_repos, &world.indexed),
            searched,
            expected_not_indexed: q.expected_repos.iter().filter(|r| !world.indexed.contains(*r)).cloned().collect(),
            top_repos: hits.iter().map(|(r, _)| r.clone()).collect(),
            results,
            metrics: metrics(&hits, &q.expected_repos, &q.expected_docs, ks),
            latency_ms,
            error,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(r, p)| (r.to_string(), p.to_string())).collect()
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn metrics_on_a_hand_made_case() {
        let ranked = hits(&[
            ("patina", "src/a.rs"),
            ("SDL", "src/video/x.c"),
            ("patina", "src/b.rs"),
            ("dojo", "crates/dojo-core/src/world.cairo"),
            ("dojo", "README.md"),
            ("USearch", "include/usearch/index.hpp"),
        ]);
        let m =
            metrics(&ranked, &s(&["dojo", "USearch"]), &s(&["crates/dojo-core/src/world.cairo", "docs/"]), &[3, 5, 10]);
        assert_eq!(m.repo_recall[&3], 0.0);
        assert_eq!(m.repo_recall[&5], 0.5);
        assert_eq!(m.repo_recall[&10], 1.0);
        assert_eq!(m.doc_recall[&3], Some(0.0));
        assert_eq!(m.doc_recall[&5], Some(0.5));
        assert_eq!(m.mrr, 0.25);
        assert_eq!(m.doc_mrr, Some(0.25));
        let none = metrics(&ranked, &s(&["opencode"]), &[], &[5]);
        assert_eq!((none.repo_recall[&5], none.mrr, none.doc_recall[&5]), (0.0, 0.0, None));
        let first = metrics(&ranked, &s(&["patina"]), &[], &[1]);
        assert_eq!((first.repo_recall[&1], first.mrr), (1.0, 1.0));
    }

    #[test]
    fn doc_prefixes_match_paths_not_substrings() {
        assert!(doc_matches("crates/dojo-core/src/world.cairo", "crates/dojo-core/src/world.cairo"));
        assert!(doc_matches("crates/dojo-core/src/world.cairo", "crates/dojo-core/"));
        assert!(doc_matches("crates/dojo-core/src/world.cairo", "crates/dojo-core"));
        assert!(!doc_matches("crates/dojo-core-extra/x", "crates/dojo-core"));
        assert!(!doc_matches("src/world.cairo", "crates/dojo-core/src/world.cairo"));
    }

    #[test]
    fn waste_and_summary() {
        assert_eq!(waste(&s(&["patina", "dojo", "SDL", "codex"]), &s(&["dojo"]), "patina"), 2);
        let row = |routing, recall: f64, ms| Row {
            id: "q".into(),
            routing,
            query: String::new(),
            searched: vec![],
            expected_not_indexed: vec![],
            top_repos: vec![],
            results: vec![],
            metrics: Metrics {
                repo_recall: BTreeMap::from([(5, recall)]),
                doc_recall: BTreeMap::from([(5, None)]),
                mrr: recall / 2.0,
                doc_mrr: None,
            },
            waste: 1,
            routing_recall: Some(recall),
            latency_ms: ms,
            error: None,
        };
        let rows = vec![row(Routing::Graph, 1.0, 10.0), row(Routing::Graph, 0.5, 30.0), row(Routing::All, 0.0, 99.0)];
        let g = summarize(Routing::Graph, &rows, &[5]);
        assert_eq!((g.queries, g.repo_recall[&5], g.mrr, g.waste), (2, 0.75, 0.375, 1.0));
        assert_eq!(g.routing_recall, Some(0.75));
        let indexed: BTreeSet<String> = ["patina", "dojo", "SDL"].iter().map(|s| s.to_string()).collect();
        let searched = s(&["patina", "dojo"]);
        assert_eq!(routing_recall(&searched, &s(&["dojo", "SDL", "unindexed"]), &indexed), Some(0.5));
        assert_eq!(routing_recall(&searched, &s(&["unindexed"]), &indexed), None);
        assert_eq!(g.doc_recall[&5], None);
        assert_eq!((g.latency_p50_ms, g.latency_p95_ms), (30.0, 30.0));
    }
}
