//! Beliefs and observations as a search channel: which of them speak to a query?
//!
//! The live items of the chosen projects are indexed in memory with the code index's own
//! analyser (identifiers split, stop words, stemming) over their id, facets, summary and
//! statement, and scored by BM25. A hit's score is its BM25 over the query's *ideal*
//! score (an item holding every query term once, [`CorpusStats::ideal_body_score`]),
//! capped at 1: how much of the query the item answers, on the same 0..1 scale as the
//! fused code scores, so one list can hold both.
//!
//! Invariant: read-only and deterministic for a given log and query; an item below
//! [`MIN_SCORE`] (it shares a word or two with the query, no more) is not a hit.

use serde::Serialize;

use super::{Item, Knowledge};
use crate::search::text::{CorpusStats, TextIndex, Weights, query_terms};

/// The least share of the query an item must answer to be a hit.
pub const MIN_SCORE: f32 = 0.3;

/// A belief or observation that answers a query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnowledgeHit {
    pub id: String,
    pub project: String,
    /// `belief`, `pattern`, or the observation's kind.
    pub kind: String,
    /// `true` for an observation.
    pub observation: bool,
    pub summary: String,
    pub status: Option<String>,
    /// BM25 over the ideal score, 0..1.
    pub score: f32,
    pub bm25: f32,
    /// The file and lines it was read from (`cli` for one typed by hand).
    pub source: String,
}

/// The items of `projects` that answer `query`, best first, at most `limit`.
pub fn search(knowledge: &Knowledge, projects: &[String], query: &str, limit: usize) -> Vec<KnowledgeHit> {
    let terms = query_terms(query);
    let entries: Vec<&super::Entry> =
        knowledge.items.values().filter(|e| projects.iter().any(|p| p == e.item.project())).collect();
    if terms.is_empty() || entries.is_empty() || limit == 0 {
        return Vec::new();
    }
    let texts: Vec<(String, String)> = entries
        .iter()
        .map(|e| {
            let body = match &e.item {
                Item::Belief(b) => format!("{}\n{}\n{}\n{}", b.id, b.facets.join(" "), b.summary, b.statement),
                Item::Observation(o) => format!("{}\n{}", o.facets.join(" "), o.text),
            };
            (e.item.id().to_string(), body)
        })
        .collect();
    let docs = texts.iter().enumerate().map(|(i, (id, body))| (i as u64, id.as_str(), "", body.as_str()));
    let Ok(index) = TextIndex::in_ram(docs) else { return Vec::new() };
    let mut stats = CorpusStats::default();
    if index.add_stats(&terms, &mut stats).is_err() {
        return Vec::new();
    }
    let ideal = stats.ideal_body_score(&terms);
    let Ok(found) = index.search_with_stats(&terms, limit.max(8), &stats, Weights::Body) else { return Vec::new() };
    found
        .into_iter()
        .filter_map(|(i, bm25)| {
            let entry = entries.get(i as usize)?;
            let score = if ideal > 0.0 { (bm25 / ideal).min(1.0) } else { 0.0 };
            (score >= MIN_SCORE).then(|| KnowledgeHit {
                id: entry.item.id().to_string(),
                project: entry.item.project().to_string(),
                kind: entry.item.kind().to_string(),
                observation: matches!(entry.item, Item::Observation(_)),
                summary: entry.item.summary().to_string(),
                status: match &entry.item {
                    Item::Belief(b) => Some(b.status.clone()),
                    Item::Observation(_) => None,
                },
                score,
                bm25,
                source: entry.source.to_string(),
            })
        })
        .take(limit)
        .collect()
}
