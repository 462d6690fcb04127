//! Beliefs and observations as a search channel: which of them speak to a query?
//!
//! The live items of the chosen projects are indexed in memory with the code index's own
//! analyser (identifiers split, stop words, stemming) over their id, facets, summary,
//! statement, evidence notes and applications, and scored by BM25. A hit's score is its
//! BM25 over the query's *ideal* score (an item holding every query term once,
//! [`CorpusStats::ideal_body_score`]),
//! capped at 1: how much of the query the item answers, on the same 0..1 scale as the
//! fused code scores, so one list can hold both.
//!
//! With the model ([`search_with`]), an item also answers by meaning: the best cosine to
//! the query of its [`texts`] (its claim, its statement, its evidence, its applications; item
//! vectors cached by the caller, `scry::knowledge_vectors`), counted only as far as it
//! stands out from the query's cosines to all the items searched (`Standing`). A hit says which text
//! answered ([`KnowledgeHit::part`]) and its cosine, so its provenance can say why it is
//! there.
//!
//! Invariant: read-only and deterministic for a given log, query and model; an item below
//! [`MIN_SCORE`] (it shares a word or two with the query, no more) is not a hit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
    /// 0..1: the larger of [`KnowledgeHit::lexical`] and its meaning (the best cosine of
    /// its texts mapped from [`COSINE_FLOOR`]..[`COSINE_FULL`] to 0..1).
    pub score: f32,
    /// BM25 over the ideal score, 0..1: the share of the query it answers by words.
    pub lexical: f32,
    pub bm25: f32,
    /// The file and lines it was read from (`cli` for one typed by hand).
    pub source: String,
    /// With the model: the best cosine of the item's texts to the query, and which text.
    pub cosine: Option<f32>,
    pub part: Option<Part>,
    /// `true` when the score is the item's meaning (its mapped cosine), not its words.
    pub by_meaning: bool,
}

/// Which text of an item is embedded (see [`texts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// A belief's id in words and its one-line summary.
    Claim,
    /// A belief's summary and statement.
    Statement,
    /// A belief's summary and the notes of its evidence links (what the sessions said).
    Evidence,
    /// A belief's summary and where it has been applied (its `## Applied-In` list).
    Applications,
    /// An observation's text.
    Text,
}

impl Part {
    /// How a provenance line names it: "by meaning (its evidence)".
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Claim => "claim",
            Part::Statement => "statement",
            Part::Evidence => "evidence",
            Part::Applications => "applications",
            Part::Text => "text",
        }
    }
}

/// The non-empty notes of a belief's evidence, in order.
fn evidence_notes(b: &crate::event::Belief) -> Vec<&str> {
    b.evidence.iter().map(|e| e.note.trim()).filter(|n| !n.is_empty()).collect()
}

/// The texts of an item that are embedded: a belief's claim in brief (its id in words and
/// its summary), in full (summary and statement), its evidence (summary and the notes of
/// its evidence links) and its applications (summary and where it has been applied). The
/// last two tell the situations the belief came from and governs: a question that
/// describes a situation is closer to them than to the principle. An observation's text.
/// An item answers a query by the closest of them. (Chosen on the fit half of the blind
/// A/B set, `eval/knowledge-queries.json` kq_001–020: evidence and applications lifted
/// the channel's recall@2 there from 0.625 to 0.775; each text on its own rather than
/// one text of everything, which the model truncates and blurs.)
pub fn texts(item: &Item) -> Vec<(Part, String)> {
    match item {
        Item::Belief(b) => {
            let mut out = vec![
                (Part::Claim, format!("{}. {}", b.id.replace(['-', '_'], " "), b.summary)),
                (Part::Statement, format!("{}. {}", b.summary, b.statement)),
            ];
            let notes = evidence_notes(b);
            if !notes.is_empty() {
                out.push((Part::Evidence, format!("{}. {}", b.summary, notes.join(". "))));
            }
            if !b.applied_in.is_empty() {
                out.push((Part::Applications, format!("{}. {}", b.summary, b.applied_in.join(". "))));
            }
            out
        }
        Item::Observation(o) => vec![(Part::Text, o.text.clone())],
    }
}

/// The semantic side of the channel: the query's embedding and the items' (by id).
pub struct Semantic<'a> {
    pub query: &'a [f32],
    /// Item id → the embeddings of its [`texts`]; an item's cosine is the best of them.
    pub items: &'a std::collections::HashMap<String, Vec<(Part, Vec<f32>)>>,
}

/// Items rank by the larger of their lexical share and meaning, plus this much of the
/// smaller: either side alone can make a hit, and an item both sides find goes first
/// (two items that answer every query word no longer tie at 1). Chosen on the fit half
/// of the blind A/B set (belief MRR there 0.78 → 0.81 in the channel alone; 0.1 and 0.3
/// alike, a plain sum lost recall).
const AGREEMENT: f32 = 0.1;

/// Cosine below this says nothing (unrelated sentences of this model sit around 0–0.2).
const COSINE_FLOOR: f32 = 0.2;
/// Cosine at which an item answers the query fully (close paraphrases sit at 0.5 and up).
/// 0.5 → 0.55 with the plain evidence notes (stop 24), chosen on the fit half: recall
/// the same, belief MRR 0.875 → 0.900, and belief hits on the task questions 1.9 → 1.3
/// per question (the channel stays quieter on code questions).
const COSINE_FULL: f32 = 0.55;

/// A cosine stands out from the query's cosines to all the items searched by this many
/// standard deviations above their mean and it says nothing ...
const STANDOUT_FLOOR: f32 = 1.0;
/// ... and by this many it answers fully. An item's meaning is the smaller of its
/// absolute cosine ([`COSINE_FLOOR`]..[`COSINE_FULL`]) and how far it stands out: a
/// query phrased in the project's own words is close to every belief (cosines 0.35–0.45
/// across the board), and only what stands out from that answers it. Chosen on the fit
/// half of the blind A/B set (kq_001–020): channel recall@2 0.850 → 0.900, MRR 0.900 →
/// 0.950 (kq_008's belief, found by its words, is no longer pushed out by beliefs that
/// are only as close as all the others), belief hits on the fit task questions 1.3 →
/// 0.7 per question; stable for floors 1–1.5 and full 4–5.
const STANDOUT_FULL: f32 = 5.0;
/// Fewer items than this say too little about the query's spread: meaning is the
/// absolute cosine alone.
const STANDOUT_MIN_ITEMS: usize = 10;

/// The query's cosines to all the items searched: their mean and spread.
struct Standing {
    spread: Option<(f32, f32)>,
}

impl Standing {
    fn of(cosines: impl Iterator<Item = f32>) -> Standing {
        let all: Vec<f32> = cosines.collect();
        if all.len() < STANDOUT_MIN_ITEMS {
            return Standing { spread: None };
        }
        let n = all.len() as f32;
        let mean = all.iter().sum::<f32>() / n;
        let sd = (all.iter().map(|c| (c - mean).powi(2)).sum::<f32>() / n).sqrt();
        Standing { spread: (sd > f32::EPSILON).then_some((mean, sd)) }
    }

    /// 0..1: how fully a text at cosine `cos` answers the query by meaning.
    fn meaning(&self, cos: f32) -> f32 {
        let absolute = ((cos - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)).clamp(0.0, 1.0);
        match self.spread {
            Some((mean, sd)) => {
                let z = (cos - mean) / sd;
                absolute.min(((z - STANDOUT_FLOOR) / (STANDOUT_FULL - STANDOUT_FLOOR)).clamp(0.0, 1.0))
            }
            None => absolute,
        }
    }
}

/// The lexical index of one project set's items, with the items' ids by document number.
struct ProjectIndex {
    ids: Vec<String>,
    index: TextIndex,
}

/// The channel's lexical indexes by project set, built once per [`Knowledge`] (a daemon
/// or MCP server keeps its knowledge warm, so a query does not index again).
#[derive(Clone, Default)]
pub(crate) struct TextIndexCache(Arc<Mutex<HashMap<Vec<String>, Arc<ProjectIndex>>>>);

impl std::fmt::Debug for TextIndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextIndexCache")
    }
}

/// The lexical index of the items of `projects` (cached on the knowledge).
fn project_index(knowledge: &Knowledge, projects: &[String]) -> Option<Arc<ProjectIndex>> {
    let mut key: Vec<String> = projects.to_vec();
    key.sort();
    key.dedup();
    let mut cache = knowledge.text_indexes.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = cache.get(&key) {
        return Some(found.clone());
    }
    let entries = knowledge.items.values().filter(|e| key.iter().any(|p| p == e.item.project()));
    let texts: Vec<(String, String)> = entries
        .map(|e| {
            let body = match &e.item {
                Item::Belief(b) => {
                    let notes = evidence_notes(b);
                    format!(
                        "{}\n{}\n{}\n{}\n{}\n{}",
                        b.id,
                        b.facets.join(" "),
                        b.summary,
                        b.statement,
                        notes.join("\n"),
                        b.applied_in.join("\n")
                    )
                }
                Item::Observation(o) => format!("{}\n{}", o.facets.join(" "), o.text),
            };
            (e.item.id().to_string(), body)
        })
        .collect();
    let docs = texts.iter().enumerate().map(|(i, (id, body))| (i as u64, id.as_str(), "", body.as_str()));
    let index = TextIndex::in_ram(docs).ok()?;
    let built = Arc::new(ProjectIndex { ids: texts.into_iter().map(|(id, _)| id).collect(), index });
    cache.insert(key, built.clone());
    Some(built)
}

/// The items of `projects` that answer `query`, best first, at most `limit`.
pub fn search(knowledge: &Knowledge, projects: &[String], query: &str, limit: usize) -> Vec<KnowledgeHit> {
    search_with(knowledge, projects, query, limit, None)
}

/// [`search`], fused with the items' cosine to the query when `semantic` is given: an
/// item's score is the larger of its lexical share and its cosine mapped to 0..1
/// ([`COSINE_FLOOR`] → 0, [`COSINE_FULL`] → 1), so a paraphrase with no word in common
/// answers by meaning. (Chosen on the fit half of the blind A/B set over the mean of the
/// two, which left most paraphrases under [`MIN_SCORE`].)
pub fn search_with(
    knowledge: &Knowledge,
    projects: &[String],
    query: &str,
    limit: usize,
    semantic: Option<&Semantic<'_>>,
) -> Vec<KnowledgeHit> {
    let terms = query_terms(query);
    if terms.is_empty() || limit == 0 {
        return Vec::new();
    }
    let Some(cached) = project_index(knowledge, projects) else { return Vec::new() };
    let entries: Vec<&super::Entry> = cached.ids.iter().filter_map(|id| knowledge.items.get(id)).collect();
    if entries.is_empty() || entries.len() != cached.ids.len() {
        return Vec::new();
    }
    let index = &cached.index;
    let mut stats = CorpusStats::default();
    if index.add_stats(&terms, &mut stats).is_err() {
        return Vec::new();
    }
    let ideal = stats.ideal_body_score(&terms);
    let wanted = if semantic.is_some() { entries.len() } else { limit.max(8) };
    let Ok(found) = index.search_with_stats(&terms, wanted, &stats, Weights::Body) else { return Vec::new() };
    let mut bm25_of: Vec<f32> = vec![0.0; entries.len()];
    for (i, bm25) in found {
        if let Some(slot) = bm25_of.get_mut(i as usize) {
            *slot = bm25;
        }
    }
    // The closest text of each item by meaning, then how far each stands out from the
    // query's cosines to all of them.
    let closest: Vec<Option<(Part, f32)>> = entries
        .iter()
        .map(|entry| {
            let s = semantic?;
            let vectors = s.items.get(entry.item.id())?;
            vectors
                .iter()
                .map(|(part, v)| (*part, crate::search::embed::cosine(s.query, v)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
        })
        .collect();
    let standing = Standing::of(closest.iter().filter_map(|c| c.map(|(_, cos)| cos)));
    let mut scored: Vec<Scored> = bm25_of
        .iter()
        .zip(closest)
        .enumerate()
        .map(|(i, (&bm25, closest))| {
            let lexical = if ideal > 0.0 { (bm25 / ideal).min(1.0) } else { 0.0 };
            let meaning = closest.map(|(_, cos)| standing.meaning(cos)).unwrap_or(0.0);
            let order = lexical.max(meaning) + AGREEMENT * lexical.min(meaning);
            Scored { i, score: lexical.max(meaning), order, lexical, bm25, closest, by_meaning: meaning > lexical }
        })
        .filter(|s| s.score >= MIN_SCORE)
        .collect();
    scored.sort_by(|a, b| b.order.total_cmp(&a.order).then(b.bm25.total_cmp(&a.bm25)).then(a.i.cmp(&b.i)));
    scored
        .into_iter()
        .filter_map(|Scored { i, score, lexical, bm25, closest, by_meaning, .. }| {
            let entry = entries.get(i)?;
            Some(KnowledgeHit {
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
                lexical,
                bm25,
                source: entry.source.to_string(),
                cosine: closest.map(|(_, cos)| cos),
                part: closest.map(|(part, _)| part),
                by_meaning,
            })
        })
        .take(limit)
        .collect()
}

/// An item's scores for one query (`i`: its document number).
struct Scored {
    i: usize,
    score: f32,
    /// The channel's order: `score` plus [`AGREEMENT`] × the other side.
    order: f32,
    lexical: f32,
    bm25: f32,
    /// The text closest in meaning and its cosine (with the model).
    closest: Option<(Part, f32)>,
    by_meaning: bool,
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::event::{Belief, EvidenceLink, Source};
    use crate::knowledge::Entry;

    fn belief(id: &str, summary: &str, notes: &[&str], applied_in: &[&str]) -> Belief {
        Belief {
            project: "p".into(),
            id: id.into(),
            kind: "belief".into(),
            persona: None,
            facets: vec![],
            confidence: None,
            entrenchment: None,
            status: "active".into(),
            summary: summary.into(),
            statement: format!("{summary} Always."),
            evidence: notes
                .iter()
                .map(|n| EvidenceLink { target: "session-1".into(), note: n.to_string(), weight: None })
                .collect(),
            implications: vec![],
            extracted: None,
            revised: None,
            applied_in: applied_in.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn knowledge(beliefs: Vec<Belief>) -> Knowledge {
        let mut k = Knowledge::default();
        for (seq, b) in beliefs.into_iter().enumerate() {
            k.items.insert(b.id.clone(), Entry { item: Item::Belief(b), seq: seq as u64 + 1, source: Source::Cli });
        }
        k.index();
        k
    }

    #[test]
    fn a_belief_is_embedded_as_claim_statement_evidence_and_applications() {
        let b =
            belief("sync-first", "Prefer blocking code.", &["", "the workload is synchronous"], &["reqwest blocking"]);
        let parts: Vec<(Part, String)> = texts(&Item::Belief(b));
        assert_eq!(
            parts,
            [
                (Part::Claim, "sync first. Prefer blocking code.".to_string()),
                (Part::Statement, "Prefer blocking code.. Prefer blocking code. Always.".to_string()),
                (Part::Evidence, "Prefer blocking code.. the workload is synchronous".to_string()),
                (Part::Applications, "Prefer blocking code.. reqwest blocking".to_string()),
            ]
        );
        // No evidence notes, no applications: two texts.
        assert_eq!(texts(&Item::Belief(belief("a", "A.", &[""], &[]))).len(), 2);
    }

    /// Meaning is the smaller of the absolute cosine and how far it stands out from the
    /// query's cosines to every item: among many items all about as close, none answers
    /// by meaning; one that stands out does, up to what its absolute cosine allows. Too
    /// few items to tell a spread: the absolute cosine alone.
    #[test]
    fn meaning_is_what_stands_out_from_the_crowd() {
        let crowd: Vec<f32> = (0..30).map(|i| 0.40 + 0.002 * (i % 5) as f32).collect();
        let flat = Standing::of(crowd.iter().copied());
        assert_eq!(flat.meaning(0.404), 0.0, "as close as everything else");
        let with_one = Standing::of(crowd.iter().copied().chain([0.55]));
        assert!((with_one.meaning(0.55) - 1.0).abs() < 1e-6, "stands far out and is a close paraphrase");
        assert_eq!(with_one.meaning(0.404), 0.0);
        let spread = Standing::of((0..30).map(|i| 0.1 + 0.01 * i as f32));
        let z = spread.meaning(0.39);
        let absolute = (0.39 - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR);
        assert!(z > 0.0 && z < absolute, "the top of a wide spread: {z} under its absolute {absolute}");
        let few = Standing::of([0.45, 0.2, 0.1].into_iter());
        assert!((few.meaning(0.45) - (0.45 - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)).abs() < 1e-6);
    }

    /// A hit found by meaning says which of its texts answered, and its cosine; one found
    /// by words says so. Items both sides find rank first.
    #[test]
    fn hits_say_which_text_answered() {
        let k = knowledge(vec![
            belief("by-words", "Tables rebuild from the log.", &[], &[]),
            belief("by-meaning", "Unrelated words here.", &["x"], &["y"]),
        ]);
        let q = vec![1.0, 0.0];
        let mut items = HashMap::new();
        items.insert("by-words".to_string(), vec![(Part::Claim, vec![0.0, 1.0])]);
        items.insert(
            "by-meaning".to_string(),
            vec![
                (Part::Claim, vec![0.0, 1.0]),
                (Part::Applications, vec![0.8, 0.6]),
                (Part::Evidence, vec![0.3, 0.95]),
            ],
        );
        let semantic = Semantic { query: &q, items: &items };
        let hits = search_with(&k, &["p".to_string()], "rebuild tables from the log", 5, Some(&semantic));
        let by_id: HashMap<&str, &KnowledgeHit> = hits.iter().map(|h| (h.id.as_str(), h)).collect();
        let words = by_id["by-words"];
        assert!(!words.by_meaning && words.lexical >= MIN_SCORE && words.score == words.lexical);
        let meaning = by_id["by-meaning"];
        assert!(meaning.by_meaning);
        assert_eq!(meaning.part, Some(Part::Applications));
        assert!((meaning.cosine.unwrap() - 0.8).abs() < 1e-6);
        assert_eq!(meaning.score, 1.0);
    }
}
