//! Routing: which repos a query from a project should search, and why.
//!
//! Graph routing reads the derived graph: the repos the project USES, LEARNS_FROM,
//! TESTS_WITH or is a SIBLING of (direction matters) are admitted, and the query chooses
//! among them by relevance, the mean of: its registry entry (by words, [`topical`], or
//! with the model by meaning, the query's cosine to [`registry_text`]), its content
//! (the selection pre-score, `search::select`: with the model and every repo embedded,
//! by the query's nearest chunk vectors; else CORI, by words) and the evidence behind the edge
//! ([`evidence_relevance`]). A repo the query names (id or alias) is searched even
//! without an edge, and one whose registry entry the query describes well, by words or
//! meaning, may be; so may one two hops away whose content agrees strongly, and the one
//! repo outside the graph whose content holds the query best, when it holds it about as
//! well as the best candidate (see [`CONTENT_LED_RATIO`], [`CONTENT_LED_PRIOR`]). The
//! local project is always searched first. With no edges and no named repo, only the
//! local project is searched: never brute force.
//!
//! Architecture Invariant: routing is read-only and deterministic for a given graph,
//! registry and query; every searched and every skipped repo carries its reason.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::event::{EdgeType, NodeKind, NodeRegistered};
use crate::graph::Edge;

/// Edge types a query may be routed along.
pub const ROUTE_TYPES: [EdgeType; 4] = [EdgeType::Uses, EdgeType::LearnsFrom, EdgeType::TestsWith, EdgeType::Sibling];

/// The prior of a repo the query names (see [`Routed::prior`]); every other searched
/// repo has 1. With reciprocal-rank fused scores (1 / (60 + rank) per channel), 1.15 lets
/// the named repo's tenth file pass another repo's first.
pub const NAMED_PRIOR: f64 = 1.15;
/// Two registry entries this alike by meaning (the cosine of their [`registry_text`]
/// vectors) describe repos of one kind ("terminal AI coding agent" and "terminal AI
/// agent"): they link like a shared specific domain (see [`two_hops`]). Chosen on the fit
/// querysets with the model: fit2 routing recall 0.963 → 0.975 (f2_013 reaches openclaw
/// through gemini-cli, cosine 0.63) at waste 1.00 → 1.10, shared and eval/world recall
/// unchanged; flat for 0.45–0.6, and 0.65 loses openclaw.
pub const ALIKE_COSINE: f64 = 0.55;
/// How much a connected repo's routing score follows its edge weight (0: not at all).
const EDGE_SHARE: f64 = 0.5;
/// A repo two hops away (project → A → B, or A and B sharing a specific domain or alike
/// in meaning) scores this share of a direct neighbour's score ...
const HOP_DECAY: f64 = 0.5;
/// ... and is admitted only when the query's content agrees strongly: its content
/// pre-score is at least this share of the best candidate's.
const HOP_MIN_CONTENT: f64 = 0.75;
/// A shared specific domain links two references like an edge of this weight.
const DOMAIN_HOP_WEIGHT: f64 = 0.5;
/// When the query names a repo, a repo the graph reaches (an edge or two hops) whose
/// content holds the query this many times better than every named repo's (and best of
/// all candidates) is searched beside it: the query names a tool, the answer is in the
/// repo built around it ("queue prompts for Claude Code" → cuti) or beside it ("mock the
/// caller in dojo tests" → dojo's sibling starknet-foundry, which holds the cheatcodes).
const COMPANION_CONTENT_RATIO: f64 = 2.0;

/// A repo without an edge, admitted because the query describes its registry entry,
/// scores this share of its relevance (a connected repo scores between half and all of
/// it, by its edge weight: `EDGE_SHARE`). Chosen on the shared and eval/world querysets:
/// 0.5 → 0.75 (stable for 0.65–1.0) lets xp_004 reach opencode ("CLI tool architecture
/// for AI coding assistant", no edge, described in other words), shared routing recall
/// 0.944 → 0.972 at waste 1.83 → 1.75 with the model, 0.861 → 0.889 at 1.92 → 1.83
/// lexical only; eval/world unchanged (0.938, waste 1.88).
const UNCONNECTED_SHARE: f64 = 0.75;

/// The repo the graph does not reach (no edge, no hop, no described entry) whose content
/// holds the query best is searched when its content pre-score is at least this share
/// of the best candidate's. At 1 (stops 30–33) it had to beat every candidate, so when
/// a connected repo held the query best nothing was added and the answer in a repo no
/// edge reaches was lost. Chosen on the fit sets with [`crate::search::select::SIZE_DISCOUNT`]
/// in place: fit3 routing recall 0.912 → 0.938 (urfave-cli's man-page generator) at
/// waste 1.35 → 1.38, the others unchanged; flat for 0.5–0.7, no gain at 0.8–1.
pub const CONTENT_LED_RATIO: f64 = 0.6;

/// The files of a repo admitted only because its content holds the query best of the
/// repos the graph does not reach (no edge, not named, not described) are weighed by
/// this prior: they yield to equally scored files of the repos the graph admits. Chosen with that rule on the fit querysets
/// (shared, eval/world and eval/world/fit2, with the model): the rule lifts fit2's routing
/// recall 0.738 → 0.887 at waste 2.20 → 2.08 and leaves the other two as they were; this
/// prior keeps the shared set's MRR at 0.697 (at 1.0 a big documentation repo admitted
/// beside livestore outranks it, 0.623) and takes fit2's MRR 0.746 → 0.850 (0.826 at 1.0,
/// 0.858 at 0.9, 0.832 at 0.75).
pub const CONTENT_LED_PRIOR: f64 = 0.8;

/// A query's cosine to a registry entry below this says nothing about the repo ...
const REGISTRY_COSINE_FLOOR: f64 = 0.25;
/// ... and at this it describes the repo fully ("CLI tool architecture for AI coding
/// assistant" to opencode's "terminal AI coding agent": 0.60). Chosen on the shared and
/// eval/world querysets with the model (stable for floors 0.2–0.35 and full 0.6–0.7):
/// shared routing recall 0.861 → 0.944 (xp_011 reaches daydreams), MRR 0.753 → 0.697
/// (xp_004 now also searches openclaw, whose docs lead), waste 1.92 → 1.83; eval/world
/// unchanged at 0.938, waste 1.88; held-out (run once, after) unchanged at 0.750 / 2.55.
const REGISTRY_COSINE_FULL: f64 = 0.6;

/// How to choose repos.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Through the graph (the default).
    Graph,
    /// Every indexed repo, through the same path (for comparison).
    All,
    /// Exactly these repos (`--repo`, or the benchmark's oracle).
    Forced(Vec<String>),
}

/// Routing parameters.
#[derive(Debug, Clone)]
pub struct RouteOptions {
    /// At most this many repos besides the local project.
    pub max_repos: usize,
    /// A connected repo needs at least this query relevance (0..1) to be searched.
    pub min_relevance: f64,
    /// A repo without an edge is searched when its registry entry matches this much of
    /// the query (0..1); above 1 disables it.
    pub unconnected_relevance: f64,
    /// When the query names repos, another repo is searched besides them only with at
    /// least this relevance; above 1 disables it.
    pub named_companion_relevance: f64,
}

impl Default for RouteOptions {
    /// Four repos besides the project: chosen on the shared and eval/world querysets
    /// (`patina bench retrieval`, lexical): 3 → 4 raised routing recall 0.778 → 0.861 and
    /// 0.875 → 0.875 at waste 1.42 → 1.92 and 1.31 → 1.88; 5 gained one more partial query
    /// on the shared set at waste 2.42 / 2.25, too near the ceiling of 3 for the
    /// held-out set, whose waste ran about 0.5 above the others.
    fn default() -> Self {
        RouteOptions { max_repos: 4, min_relevance: 0.12, unconnected_relevance: 0.5, named_companion_relevance: 0.5 }
    }
}

/// A repo the query is routed to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Routed {
    pub repo: String,
    /// Multiplies the fused scores of the repo's files (which compare across repos):
    /// [`NAMED_PRIOR`] for a repo the query names, [`CONTENT_LED_PRIOR`] for one admitted
    /// by its content alone, 1 otherwise. The local project earns
    /// its place by score; on equal scores it comes first.
    pub prior: f64,
    /// The routing score that chose it (infinite for the local project, `null` in JSON).
    #[serde(deserialize_with = "null_is_infinite")]
    pub score: f64,
    /// `via patina TESTS_WITH dojo, weight 0.98`, `named in the query`, `local project`.
    pub reason: String,
}

/// A repo the query is not routed to, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Skipped {
    pub repo: String,
    pub reason: String,
}

/// The route of one query.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Route {
    pub project: Option<String>,
    /// Invariant: the local project (when indexed) first, then by score.
    pub searched: Vec<Routed>,
    pub skipped: Vec<Skipped>,
}

/// JSON has no infinity: serde_json writes it as `null`, read back here.
fn null_is_infinite<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl Route {
    pub fn repos(&self) -> Vec<String> {
        self.searched.iter().map(|r| r.repo.clone()).collect()
    }

    pub fn prior(&self, repo: &str) -> f64 {
        self.searched.iter().find(|r| r.repo == repo).map(|r| r.prior).unwrap_or(1.0)
    }

    pub fn reason(&self, repo: &str) -> Option<&str> {
        self.searched.iter().find(|r| r.repo == repo).map(|r| r.reason.as_str())
    }
}

/// Question and filler words that say nothing about where an answer is; analysed like
/// every other word, then dropped (the analyser itself drops English stop words).
const QUESTION_WORDS: &str = "how does do what which when where why who handle handles use uses using \
    implementation implement implemented work works our its";

/// The content terms of a text for routing: the index's own analyser (identifier
/// splitting, lower-casing, English stop words, stemming), minus [`QUESTION_WORDS`].
pub fn words(text: &str) -> Vec<String> {
    static SKIP: std::sync::LazyLock<BTreeSet<String>> =
        std::sync::LazyLock::new(|| crate::search::text::query_terms(QUESTION_WORDS).into_iter().collect());
    crate::search::text::query_terms(text).into_iter().filter(|w| !SKIP.contains(w)).collect()
}

fn contains_phrase(query_lower: &str, phrase: &str) -> bool {
    let phrase = phrase.to_lowercase();
    if phrase.len() < 2 {
        return false;
    }
    let bytes = query_lower.as_bytes();
    let mut from = 0;
    while let Some(at) = query_lower[from..].find(&phrase) {
        let start = from + at;
        let end = start + phrase.len();
        let before = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let after = end >= bytes.len() || !bytes[end].is_ascii_alphanumeric();
        if before && after {
            return true;
        }
        from = start + 1;
    }
    false
}

/// Whether the query names the node (id, alias, `owner/name`, the id's spaced form, or
/// one of `other_names`: its distinctive name parts, see [`crate::registry::name_parts`]).
pub fn names<'a>(query: &str, node: &NodeRegistered, other_names: impl IntoIterator<Item = &'a str>) -> bool {
    let q = query.to_lowercase();
    let mut terms: Vec<String> = vec![node.id.clone(), node.id.replace(['-', '_'], " ")];
    terms.extend(other_names.into_iter().map(str::to_string));
    terms.extend(node.aliases.iter().cloned());
    terms.iter().any(|t| contains_phrase(&q, t))
}

/// How much of the query the node's registry entry (domains, summary, aliases) covers, 0..1.
pub fn topical(query_words: &[String], node: &NodeRegistered) -> f64 {
    if query_words.is_empty() {
        return 0.0;
    }
    let mut hay: BTreeSet<String> = node.domains.iter().flat_map(|d| words(d)).collect();
    hay.extend(words(node.summary.as_deref().unwrap_or("")));
    for alias in &node.aliases {
        hay.extend(words(alias));
    }
    hay.extend(words(&node.id));
    let hits = query_words.iter().filter(|w| hay.contains(*w)).count();
    hits as f64 / query_words.len() as f64
}

/// What routing reads: the registered nodes, the repos that have an index, the
/// project's out-edges and the evidence behind them.
#[derive(Debug, Clone, Copy)]
pub struct RouteWorld<'a> {
    pub nodes: &'a BTreeMap<String, NodeRegistered>,
    pub indexed: &'a BTreeSet<String>,
    pub edges: &'a [Edge],
    /// Per repo: what the project's events say it did with it (mention sentences,
    /// dependencies, suites; see `scry::edge_evidence`).
    pub evidence: &'a BTreeMap<String, Vec<String>>,
    /// The out-edges of the project's neighbours (the second hop).
    pub second_hop: &'a [Edge],
    /// Domains that name a language: sharing one links nothing (`rules/graph.toml`).
    pub languages: &'a [String],
    /// With the model: per repo, the cosine of the query to its registry entry
    /// ([`registry_text`]); empty without one.
    pub described: &'a BTreeMap<String, f64>,
    /// With the model: per repo, the repos whose registry entries are alike by meaning
    /// (cosine ≥ [`ALIKE_COSINE`]), with the cosine; empty without one. A neighbour's
    /// like is two hops away, as if they shared a specific domain.
    pub alike: &'a BTreeMap<String, Vec<(String, f64)>>,
    /// Per node: the names it also goes by in a query, its distinctive name parts that
    /// cannot be ordinary words ([`other_names`]).
    pub other_names: &'a BTreeMap<String, Vec<String>>,
    /// The content pre-scores were judged by meaning (nearest chunk vectors), not by
    /// words (`scry::Selection`): the reasons say which.
    pub content_by_meaning: bool,
}

/// The names each node also goes by in a query: the distinctive name parts of its
/// `owner/name` ids and aliases ([`crate::registry::name_parts`]), except those that may
/// be ordinary words ("tools" names no repo in a question).
pub fn other_names(nodes: &BTreeMap<String, NodeRegistered>) -> BTreeMap<String, Vec<String>> {
    let all: Vec<&NodeRegistered> = nodes.values().collect();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for part in crate::registry::name_parts(&all).into_iter().filter(|p| !p.word_like) {
        out.entry(part.node.to_string()).or_default().push(part.name);
    }
    out
}

/// What a repo's registry entry says, as embedded for routing by meaning: its id, its
/// summary and its domains.
pub fn registry_text(node: &NodeRegistered) -> String {
    let mut text = format!("{}: {}", node.id, node.summary.as_deref().unwrap_or(""));
    if !node.domains.is_empty() {
        text.push_str(&format!(" ({})", node.domains.join(", ")));
    }
    text
}

/// How much of the query the registry entry answers, by words ([`topical`]) or by meaning
/// (its cosine mapped from [`REGISTRY_COSINE_FLOOR`]..[`REGISTRY_COSINE_FULL`] to 0..1),
/// whichever is more, and whether meaning decided.
fn registry_relevance(
    query_words: &[String],
    node: &NodeRegistered,
    described: &BTreeMap<String, f64>,
) -> (f64, Option<f64>) {
    let words = topical(query_words, node);
    match described.get(&node.id) {
        Some(&cos) => {
            let meaning =
                ((cos - REGISTRY_COSINE_FLOOR) / (REGISTRY_COSINE_FULL - REGISTRY_COSINE_FLOOR)).clamp(0.0, 1.0);
            if meaning > words { (meaning, Some(cos)) } else { (words, None) }
        }
        None => (words, None),
    }
}

/// The repos two hops from `project`, each with its strongest path: (strength, path).
/// A hop goes along a stored routable edge of a neighbour, or to a reference that shares
/// a specific (non-language) domain with a neighbour ("dojo's sibling starknet-foundry"),
/// or, with the model, whose registry entry is alike a neighbour's ([`RouteWorld::alike`]).
fn two_hops<'a>(
    project: &str,
    direct: &BTreeMap<&'a str, &'a Edge>,
    world: &RouteWorld<'a>,
) -> BTreeMap<&'a str, (f64, String)> {
    let mut out: BTreeMap<&'a str, (f64, String)> = BTreeMap::new();
    let mut offer = |to: &'a str, strength: f64, path: String| {
        if to == project || direct.contains_key(to) {
            return;
        }
        let entry = out.entry(to).or_insert((0.0, String::new()));
        if strength > entry.0 {
            *entry = (strength, path);
        }
    };
    for e2 in world.second_hop.iter().filter(|e| ROUTE_TYPES.contains(&e.edge_type)) {
        if let Some(e1) = direct.get(e2.from.as_str()) {
            let path = format!(
                "{} {} {} ({:.2}) → {} {} {} ({:.2})",
                e1.from, e1.edge_type, e1.to, e1.weight, e2.from, e2.edge_type, e2.to, e2.weight
            );
            offer(e2.to.as_str(), e1.weight * e2.weight, path);
        }
    }
    let specific = |n: &NodeRegistered| -> BTreeSet<String> {
        n.domains.iter().map(|d| d.to_lowercase()).filter(|d| !world.languages.iter().any(|l| l == d)).collect()
    };
    for (a, e1) in direct {
        let domains_a = world.nodes.get(*a).map(specific).unwrap_or_default();
        if !domains_a.is_empty() {
            for (b, node_b) in world.nodes.range::<str, _>(..).filter(|(_, n)| n.kind == NodeKind::Reference) {
                let shared: Vec<String> = specific(node_b).intersection(&domains_a).cloned().collect();
                if !shared.is_empty() && b != a {
                    let path = format!(
                        "{} {} {} ({:.2}) → {} and {} share domain {}",
                        e1.from,
                        e1.edge_type,
                        e1.to,
                        e1.weight,
                        a,
                        b,
                        shared.join(", ")
                    );
                    offer(b.as_str(), e1.weight * DOMAIN_HOP_WEIGHT, path);
                }
            }
        }
        // Offered after the shared domains: at equal strength, the named domain is the
        // plainer reason.
        for (b, cos) in world.alike.get(*a).into_iter().flatten() {
            if world.nodes.get(b).is_some_and(|n| n.kind == NodeKind::Reference) {
                let path = format!(
                    "{} {} {} ({:.2}) → {} and {} are alike (registry entries, cosine {cos:.2})",
                    e1.from, e1.edge_type, e1.to, e1.weight, a, b
                );
                offer(b.as_str(), e1.weight * DOMAIN_HOP_WEIGHT, path);
            }
        }
    }
    out
}

/// How well the query matches what the project did with each repo (its edge evidence):
/// per repo, the best-matching evidence text and its score, 0..1. A text scores the
/// share of the query's words it holds, each word weighted by how few repos' evidence
/// holds it (`ln(1 + N / df)` over the N repos with evidence), so words in every repo's
/// evidence (the project's own name, "session") count for little. Texts are scored one
/// by one, not pooled: a repo mentioned in hundreds of sentences does not match every
/// query. Repos without evidence are absent.
pub fn evidence_relevance(
    query_words: &[String],
    evidence: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, (f64, String)> {
    // Analysing every sentence is the cost here (hundreds per repo): a text is analysed
    // only if it holds the leading letters of some query term (a stem differs from its
    // words only in the last letter or two: `happi` ← "happy", `replay` ← "replaying").
    let probes: Vec<String> = query_words
        .iter()
        .map(|w| {
            let keep = match w.chars().count() {
                0..=3 => w.chars().count(),
                4 => 3,
                n => n - 2,
            };
            w.chars().take(keep).collect()
        })
        .collect();
    let stems = |text: &str| -> BTreeSet<String> {
        let lower = text.to_lowercase();
        if probes.iter().any(|p| lower.contains(p.as_str())) {
            words(text).into_iter().collect()
        } else {
            BTreeSet::new()
        }
    };
    let texts: BTreeMap<&String, Vec<(BTreeSet<String>, &String)>> =
        evidence.iter().map(|(repo, texts)| (repo, texts.iter().map(|t| (stems(t), t)).collect())).collect();
    let n = texts.len() as f64;
    let query_terms: BTreeSet<String> = query_words.iter().cloned().collect();
    let idf: Vec<(String, f64)> = query_terms
        .into_iter()
        .map(|w| {
            let df = texts.values().filter(|ts| ts.iter().any(|(v, _)| v.contains(&w))).count() as f64;
            let idf = (1.0 + n / df.max(1.0)).ln();
            (w, idf)
        })
        .collect();
    let total: f64 = idf.iter().map(|(_, i)| i).sum();
    let mut out = BTreeMap::new();
    for (repo, ts) in texts {
        let mut best = (0.0, String::new());
        for (v, text) in ts {
            let hit = idf.iter().filter(|(w, _)| v.contains(w)).fold(0.0, |sum, (_, i)| sum + i);
            let score = if total > 0.0 { hit / total } else { 0.0 };
            if score > best.0 {
                best = (score, text.clone());
            }
        }
        out.insert(repo.clone(), best);
    }
    out
}

/// Chooses the repos to search. `prescore` is a cheap content pre-score of the query in a
/// repo (0..1, comparable across repos: `scry::selection`), if available.
pub fn route(
    project: Option<&str>,
    query: &str,
    mode: &Mode,
    world: RouteWorld<'_>,
    options: &RouteOptions,
    mut prescore: impl FnMut(&str) -> Option<f64>,
) -> Route {
    let RouteWorld { nodes, indexed, edges, evidence, .. } = world;
    let mut searched = Vec::new();
    let mut skipped = Vec::new();
    if let Some(p) = project {
        if indexed.contains(p) {
            searched.push(Routed {
                repo: p.to_string(),
                prior: 1.0,
                score: f64::INFINITY,
                reason: "local project".into(),
            });
        } else {
            skipped
                .push(Skipped { repo: p.to_string(), reason: "local project, not indexed (patina repo add)".into() });
        }
    }
    let others: Vec<&String> = indexed.iter().filter(|r| Some(r.as_str()) != project).collect();
    match mode {
        Mode::All => {
            for r in others {
                searched.push(Routed {
                    repo: r.clone(),
                    prior: 1.0,
                    score: 0.0,
                    reason: "all repos (--all-repos)".into(),
                });
            }
            return Route { project: project.map(str::to_string), searched, skipped };
        }
        Mode::Forced(repos) => {
            searched.retain(|s| repos.contains(&s.repo));
            for r in repos {
                if searched.iter().any(|s| &s.repo == r) {
                    continue;
                }
                // Chosen explicitly: searched even without a usable index, so the search
                // itself says what is wrong with it (not indexed, unreadable).
                searched.push(Routed { repo: r.clone(), prior: 1.0, score: 0.0, reason: "chosen (--repo)".into() });
            }
            return Route { project: project.map(str::to_string), searched, skipped };
        }
        Mode::Graph => {}
    }

    // The project's routable edges, strongest per repo.
    let mut best_edge: BTreeMap<&str, &Edge> = BTreeMap::new();
    for e in edges.iter().filter(|e| ROUTE_TYPES.contains(&e.edge_type) && Some(e.from.as_str()) == project) {
        let entry = best_edge.entry(e.to.as_str()).or_insert(e);
        if e.weight > entry.weight {
            *entry = e;
        }
    }
    let query_words = words(query);
    // Each repo's registry relevance, once: the candidates, the scores and the two-hop
    // test all read it.
    let registry: BTreeMap<&str, (f64, Option<f64>)> = others
        .iter()
        .filter_map(|r| Some((r.as_str(), registry_relevance(&query_words, nodes.get(*r)?, world.described))))
        .collect();
    let registry_of = |r: &str| registry.get(r).copied().unwrap_or((0.0, None));
    // A repo is named by its distinctive name parts too (an old name, the name of an
    // `owner/name` id; `RouteWorld::other_names`).
    let named: Vec<&String> = others
        .iter()
        .copied()
        .filter(|r| {
            nodes.get(*r).is_some_and(|n| {
                names(query, n, world.other_names.get(r.as_str()).into_iter().flatten().map(String::as_str))
            })
        })
        .collect();
    for r in &named {
        let reason = match best_edge.get(r.as_str()) {
            Some(e) => format!("named in the query; via {} {} {}, weight {:.2}", e.from, e.edge_type, e.to, e.weight),
            None => "named in the query (no edge from the project)".to_string(),
        };
        // The user asked about it by name: its files lead unless others score clearly higher.
        searched.push(Routed { repo: (*r).clone(), prior: NAMED_PRIOR, score: 1.0, reason });
    }

    // Two hops away: admitted below only when the content agrees strongly.
    let hops = match project {
        Some(p) if !best_edge.is_empty() => two_hops(p, &best_edge, &world),
        _ => BTreeMap::new(),
    };
    // Relevance: registry topicality and the selection pre-score (normalised over the
    // candidates, so the best-matching candidate has 1).
    let candidates: Vec<&String> = others
        .iter()
        .copied()
        .filter(|r| !named.contains(r))
        .filter(|r| {
            best_edge.contains_key(r.as_str())
                || hops.contains_key(r.as_str())
                || (!best_edge.is_empty() && registry_of(r).0 >= options.unconnected_relevance)
        })
        .collect();
    let mut raw: Vec<(String, f64)> = candidates.iter().map(|r| ((*r).clone(), prescore(r).unwrap_or(0.0))).collect();
    let max_raw = raw.iter().map(|(_, s)| *s).fold(0.0f64, f64::max);
    // The repo whose content holds the query best of those nothing above admits (no
    // edge, not two hops away, an entry the query does not describe), when the query
    // names no repo and that content is at least [`CONTENT_LED_RATIO`] of the best
    // candidate's: the graph chooses among the repos it knows, but it must not be blind
    // to where the words are. It scores like any repo without an edge and, when the
    // slots are full, takes the last one; its files weigh [`CONTENT_LED_PRIOR`].
    let content_led: Option<(String, f64)> = if best_edge.is_empty() || !named.is_empty() {
        None
    } else {
        others
            .iter()
            .filter(|r| !named.contains(r) && !candidates.contains(r))
            .filter_map(|r| Some(((*r).clone(), prescore(r)?)))
            .filter(|(_, s)| *s > 0.0 && *s >= CONTENT_LED_RATIO * max_raw)
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    };
    if let Some(led) = &content_led {
        raw.push(led.clone());
    }
    let named_content = named.iter().map(|r| prescore(r).unwrap_or(0.0)).fold(0.0f64, f64::max);
    let from_evidence = evidence_relevance(&query_words, evidence);
    // (score, repo, reason, relevance, holds the query far better than the named repos)
    let mut scored: Vec<(f64, String, String, f64, bool)> = Vec::new();
    for (r, raw_score) in raw {
        let (topic, by_meaning) = registry_of(&r);
        let lexical = if max_raw > 0.0 { (raw_score / max_raw).min(1.0) } else { f64::from(raw_score > 0.0) };
        let (history, because) = from_evidence.get(&r).map(|(s, t)| (*s, t.as_str())).unwrap_or((0.0, ""));
        let relevance = (topic + lexical + history) / 3.0;
        let registry = match by_meaning {
            Some(cos) => format!("{topic:.2} (by meaning, cosine {cos:.2})"),
            None => format!("{topic:.2}"),
        };
        let by = if world.content_by_meaning { " (by meaning)" } else { "" };
        let mut terms = format!(
            "relevance {relevance:.2} = mean of registry {registry}, content {lexical:.2}{by}, evidence {history:.2}"
        );
        if history > 0.0 {
            terms.push_str(&format!(" (\"{}\")", excerpt(because, 80)));
        }
        // Beside a named repo, a repo the graph reaches (an edge or two hops) whose
        // content holds the query best of all, far better than the named one's: the query
        // names a tool, the answer is in the repo built around it or beside it.
        let dominant = !named.is_empty()
            && raw_score > 0.0
            && raw_score >= max_raw
            && raw_score >= COMPANION_CONTENT_RATIO * named_content;
        match best_edge.get(r.as_str()) {
            Some(e) => {
                if relevance < options.min_relevance {
                    skipped.push(Skipped {
                        repo: r.clone(),
                        reason: format!(
                            "connected ({} {:.2}) but not relevant to the query ({terms} < {:.2})",
                            e.edge_type, e.weight, options.min_relevance
                        ),
                    });
                    continue;
                }
                // The edge admits the repo and is a prior; the query decides among the
                // admitted ones.
                let score = relevance * (1.0 - EDGE_SHARE + EDGE_SHARE * e.weight);
                let reason = format!("via {} {} {}, weight {:.2}; {terms}", e.from, e.edge_type, e.to, e.weight);
                scored.push((score, r, reason, relevance, dominant));
            }
            None => match hops.get(r.as_str()) {
                Some((strength, path)) if lexical >= HOP_MIN_CONTENT && relevance >= options.min_relevance => {
                    let score = HOP_DECAY * relevance * (1.0 - EDGE_SHARE + EDGE_SHARE * strength);
                    let reason = format!("2 hops: {path}; {terms}");
                    scored.push((score, r, reason, relevance, dominant));
                }
                Some((_, path)) if registry_of(&r).0 < options.unconnected_relevance => {
                    skipped.push(Skipped {
                        repo: r.clone(),
                        reason: format!(
                            "2 hops ({path}) but the content does not agree strongly ({terms}; content needs ≥ {HOP_MIN_CONTENT:.2})"
                        ),
                    });
                }
                _ if content_led.as_ref().is_some_and(|(led, _)| *led == r) => {
                    let score = UNCONNECTED_SHARE * relevance;
                    let reason = format!(
                        "its content holds the query best of the repos the graph does not reach (pre-score {raw_score:.3}; the best the graph admits: {max_raw:.3}; no edge from the project); {terms}"
                    );
                    scored.push((score, r, reason, relevance, false));
                }
                _ => {
                    let score = UNCONNECTED_SHARE * relevance;
                    let reason = format!("query matches its registry entry ({terms}; no edge from the project)");
                    scored.push((score, r, reason, relevance, false));
                }
            },
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // A named repo takes a slot; besides it, only a connected repo that is itself very
    // relevant (the query names a tool, the answer is in the repo built around it).
    let slots = options.max_repos.saturating_sub(named.len());
    let mut taken = 0;
    // The content-led repo (never beside a named one) keeps a slot until its turn comes.
    let mut led_pending = content_led.is_some();
    for (score, r, reason, relevance, dominant) in scored {
        let is_led = content_led.as_ref().is_some_and(|(led, _)| *led == r);
        if is_led {
            led_pending = false;
        }
        // The kept slot holds back the repos the graph reaches, not one the query
        // describes (whose entry, not only its content, speaks for it).
        let described_only = !best_edge.contains_key(r.as_str()) && !hops.contains_key(r.as_str()) && !is_led;
        let free = slots.saturating_sub(taken + usize::from(led_pending && !described_only));
        if !named.is_empty() && relevance < options.named_companion_relevance && !dominant {
            skipped.push(Skipped {
                repo: r,
                reason: format!(
                    "the query names other repos (relevance {relevance:.2} < {:.2})",
                    options.named_companion_relevance
                ),
            });
        } else if free > 0 {
            let reason = if dominant {
                format!(
                    "{reason}; beside the named repo: its content holds the query ≥ {COMPANION_CONTENT_RATIO:.0}× better"
                )
            } else {
                reason
            };
            let prior = if is_led { CONTENT_LED_PRIOR } else { 1.0 };
            searched.push(Routed { repo: r, prior, score, reason });
            taken += 1;
        } else {
            let kept = match &content_led {
                Some((led, _)) if led_pending && taken < slots => {
                    format!("; the last slot is kept for {led}, whose content holds the query best")
                }
                _ => String::new(),
            };
            skipped.push(Skipped {
                repo: r,
                reason: format!("ranked below the top {} (score {score:.2}){kept}", options.max_repos),
            });
        }
    }
    for r in others {
        if !searched.iter().any(|s| &s.repo == r) && !skipped.iter().any(|s| &s.repo == r) {
            skipped.push(Skipped {
                repo: r.clone(),
                reason: match project {
                    Some(p) => format!("no edge from {p} and the query does not name or describe it"),
                    None => "no project to route from".into(),
                },
            });
        }
    }
    Route { project: project.map(str::to_string), searched, skipped }
}

/// `text` cut to at most `max` characters (on a char boundary), `…` marking a cut.
fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::NodeKind;
    use crate::graph::derive::{Edge, Firing};

    fn node(id: &str, domains: &[&str], summary: &str, aliases: &[&str]) -> NodeRegistered {
        NodeRegistered {
            id: id.into(),
            kind: NodeKind::Reference,
            path: None,
            domains: domains.iter().map(|s| s.to_string()).collect(),
            summary: Some(summary.into()),
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            packages: vec![],
        }
    }

    fn edge(to: &str, t: EdgeType, w: f64) -> Edge {
        Edge {
            from: "patina".into(),
            edge_type: t,
            to: to.into(),
            weight: w,
            firings: vec![Firing { rule: "x".into(), term: w, detail: String::new(), units: vec![] }],
            feedback: None,
            valid_from: None,
            valid_until: None,
            endings: vec![],
        }
    }

    fn world() -> (BTreeMap<String, NodeRegistered>, BTreeSet<String>, Vec<Edge>) {
        let nodes: BTreeMap<String, NodeRegistered> = [
            node("patina", &["rust"], "Context orchestration", &[]),
            node(
                "dojo",
                &["cairo", "rust", "starknet"],
                "Provable game engine / ECS framework for Starknet",
                &["dojoengine/dojo"],
            ),
            node("SDL", &["c"], "Simple DirectMedia Layer: windowing, input, audio", &["libsdl-org/SDL"]),
            node("livestore", &["typescript"], "Event-sourced local-first state management with reactive SQLite", &[]),
            node("opencode", &["typescript"], "Open-source terminal AI coding agent", &["sst/opencode"]),
            node("scryer-prolog", &["rust", "prolog"], "ISO Prolog system written in Rust", &[]),
        ]
        .into_iter()
        .map(|n| (n.id.clone(), n))
        .collect();
        let indexed = nodes.keys().cloned().collect();
        let edges = vec![
            edge("dojo", EdgeType::TestsWith, 0.98),
            edge("SDL", EdgeType::TestsWith, 0.99),
            edge("livestore", EdgeType::LearnsFrom, 0.87),
            edge("scryer-prolog", EdgeType::Uses, 0.72),
            Edge { edge_type: EdgeType::Domain, ..edge("opencode", EdgeType::Domain, 0.3) },
        ];
        (nodes, indexed, edges)
    }

    static NO_COSINES: BTreeMap<String, f64> = BTreeMap::new();
    static NO_LIKES: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    static NO_OTHER_NAMES: BTreeMap<String, Vec<String>> = BTreeMap::new();

    /// A world with no second hop (beyond shared domains), no model and no other names.
    fn plain_world<'a>(
        nodes: &'a BTreeMap<String, NodeRegistered>,
        indexed: &'a BTreeSet<String>,
        edges: &'a [Edge],
        evidence: &'a BTreeMap<String, Vec<String>>,
        languages: &'a [String],
    ) -> RouteWorld<'a> {
        RouteWorld {
            nodes,
            indexed,
            edges,
            evidence,
            second_hop: &[],
            languages,
            described: &NO_COSINES,
            alike: &NO_LIKES,
            other_names: &NO_OTHER_NAMES,
            content_by_meaning: false,
        }
    }

    /// [`world`] plus memista: indexed, no edge, no domain, an entry of its own words.
    fn world_with_memista() -> (BTreeMap<String, NodeRegistered>, BTreeSet<String>, Vec<Edge>) {
        let (mut nodes, mut indexed, edges) = world();
        let memista = node("memista", &[], "USearch and SQLite memory service", &[]);
        nodes.insert(memista.id.clone(), memista);
        indexed.insert("memista".to_string());
        (nodes, indexed, edges)
    }

    fn route_of(query: &str) -> Route {
        route_described(query, &BTreeMap::new())
    }

    /// [`route_of`], with the model's cosines of the query to the registry entries.
    fn route_described(query: &str, described: &BTreeMap<String, f64>) -> Route {
        route_scored(query, described, |_| None)
    }

    /// [`route_described`], with content pre-scores.
    fn route_scored(query: &str, described: &BTreeMap<String, f64>, content: impl FnMut(&str) -> Option<f64>) -> Route {
        let (nodes, indexed, edges) = world();
        let evidence = BTreeMap::new();
        let world = RouteWorld {
            nodes: &nodes,
            indexed: &indexed,
            edges: &edges,
            evidence: &evidence,
            second_hop: &[],
            languages: &[],
            described,
            alike: &BTreeMap::new(),
            other_names: &BTreeMap::new(),
            content_by_meaning: false,
        };
        route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content)
    }

    #[test]
    fn a_query_names_a_repo_by_its_old_name_but_not_by_a_word() {
        let nodes: BTreeMap<String, NodeRegistered> = [
            node("openclaw", &[], "Personal AI assistant", &["clawdbot/clawdbot", "moltbot/moltbot"]),
            node("acme-tools", &[], "Tools", &["acme/tools"]),
        ]
        .into_iter()
        .map(|n| (n.id.clone(), n))
        .collect();
        let other = other_names(&nodes);
        assert_eq!(other["openclaw"], ["clawdbot", "moltbot"]);
        assert!(!other.contains_key("acme-tools"), "\"tools\" may be an ordinary word");
        let named =
            |query: &str, id: &str| names(query, &nodes[id], other.get(id).into_iter().flatten().map(String::as_str));
        assert!(named("how does clawdbot route chat channels", "openclaw"));
        assert!(!named("how are the tools registered", "acme-tools"));
    }

    #[test]
    fn a_named_repo_is_searched_with_the_local_project_only() {
        let r = route_of("how does dojo handle ECS world storage");
        assert_eq!(r.repos(), vec!["patina", "dojo"]);
        assert!(r.reason("dojo").unwrap().contains("via patina TESTS_WITH dojo"));
        assert_eq!(r.skipped.len(), 4, "every other repo is skipped with its reason: {r:?}");
    }

    #[test]
    fn connected_repos_are_narrowed_by_relevance() {
        let r = route_of("Prolog interpreter in Rust");
        assert_eq!(r.repos()[1], "scryer-prolog");
        let r = route_of("TypeScript SQLite state management");
        assert_eq!(r.repos(), vec!["patina", "livestore"], "{r:?}");
        assert!(r.skipped.iter().any(|s| s.repo == "SDL" && s.reason.contains("not relevant")));
    }

    #[test]
    fn domain_edges_do_not_route_but_a_strong_registry_match_may() {
        let r = route_of("open-source terminal AI coding agent");
        let opencode = r.searched.iter().find(|s| s.repo == "opencode").expect("strong registry match");
        assert!(opencode.reason.contains("no edge"));
        let r = route_of("vector database");
        assert_eq!(r.repos(), vec!["patina"]);
    }

    #[test]
    fn a_repo_the_query_describes_competes_with_connected_ones() {
        // Four connected repos whose content holds the query and whose entries say
        // nothing of it; opencode has no edge, but the query describes it fully.
        let described: BTreeMap<String, f64> = [("opencode".to_string(), 0.6)].into();
        let content = |r: &str| Some(if r == "opencode" { 0.5 } else { 1.0 });
        let r = route_scored("assistant that writes programs", &described, content);
        // Connected: relevance (0 + 1 + 0) / 3 = 0.33, times at most 1 for the edge;
        // opencode: (1 + 0.5 + 0) / 3 = 0.5, times UNCONNECTED_SHARE.
        assert_eq!(r.repos().len(), 5, "{r:?}");
        assert_eq!(r.repos()[1], "opencode", "{r:?}");
        assert!(r.reason("opencode").unwrap().contains("no edge from the project"));
    }

    #[test]
    fn a_registry_entry_described_in_other_words_is_found_by_meaning() {
        // No word of the query is in opencode's entry ("open-source terminal AI coding
        // agent"); with the model, its cosine says the query describes it.
        let query = "assistant that writes programs from a shell";
        let routed = |described: &BTreeMap<String, f64>| route_described(query, described);
        assert_eq!(routed(&BTreeMap::new()).repos(), vec!["patina"], "no words in common, no model");
        let far: BTreeMap<String, f64> = [("opencode".to_string(), 0.3), ("dojo".to_string(), 0.1)].into();
        assert_eq!(routed(&far).repos(), vec!["patina"], "a loose cosine describes nothing");
        let close: BTreeMap<String, f64> = [("opencode".to_string(), 0.58), ("dojo".to_string(), 0.1)].into();
        let r = routed(&close);
        assert_eq!(r.repos(), vec!["patina", "opencode"]);
        let reason = r.reason("opencode").unwrap();
        assert!(reason.contains("by meaning, cosine 0.58") && reason.contains("no edge"), "{reason}");
    }

    #[test]
    fn no_edges_means_local_only() {
        let (nodes, indexed, _) = world();
        let evidence = BTreeMap::new();
        let world = RouteWorld {
            nodes: &nodes,
            indexed: &indexed,
            edges: &[],
            evidence: &evidence,
            second_hop: &[],
            languages: &[],
            described: &BTreeMap::new(),
            alike: &BTreeMap::new(),
            other_names: &BTreeMap::new(),
            content_by_meaning: false,
        };
        let r =
            route(Some("patina"), "ECS world storage", &Mode::Graph, world, &RouteOptions::default(), |_| Some(1.0));
        assert_eq!(r.repos(), vec!["patina"]);
        // Not even a repo whose registry entry is the query, word for word.
        let r = route(
            Some("patina"),
            "open-source terminal AI coding agent",
            &Mode::Graph,
            world,
            &RouteOptions::default(),
            |_| Some(1.0),
        );
        assert_eq!(r.repos(), vec!["patina"]);
    }

    #[test]
    fn a_named_repo_takes_a_very_relevant_companion_only() {
        let (nodes, indexed, edges) = world();
        let evidence: BTreeMap<String, Vec<String>> =
            [("scryer-prolog".to_string(), vec!["Embedded the Prolog interpreter for rule queries".to_string()])]
                .into_iter()
                .collect();
        let world = plain_world(&nodes, &indexed, &edges, &evidence, &[]);
        let content = |r: &str| Some(if r == "scryer-prolog" { 1.0 } else { 0.1 });
        let r = route(
            Some("patina"),
            "dojo rules through a Prolog interpreter in Rust",
            &Mode::Graph,
            world,
            &RouteOptions::default(),
            content,
        );
        assert_eq!(r.repos(), vec!["patina", "dojo", "scryer-prolog"], "{r:?}");
        // The named repo holds the query's words best itself: nothing beside it.
        let in_dojo = |r: &str| Some(if r == "dojo" { 1.0 } else { 0.3 });
        let r = route(Some("patina"), "dojo world storage", &Mode::Graph, world, &RouteOptions::default(), in_dojo);
        assert_eq!(r.repos(), vec!["patina", "dojo"], "{r:?}");
        assert!(r.skipped.iter().any(|s| s.repo == "scryer-prolog" && s.reason.contains("names other repos")));
        // A connected repo holding the query's words far better than the named one (the
        // query names a tool, the answer is in the repo built around it) comes beside it,
        // and says why; one better than the named repo, but not twice as good, does not.
        let with_content = |scores: &[(&str, f64)]| {
            let content = |repo: &str| Some(scores.iter().find(|(r, _)| *r == repo).map_or(0.2, |(_, s)| *s));
            route(Some("patina"), "dojo world storage", &Mode::Graph, world, &RouteOptions::default(), content)
        };
        let r = with_content(&[("scryer-prolog", 0.5), ("SDL", 0.3)]);
        assert_eq!(r.repos(), vec!["patina", "dojo", "scryer-prolog"], "{r:?}");
        assert!(r.searched[2].reason.contains("beside the named repo"), "{r:?}");
        let r = with_content(&[("dojo", 0.3), ("SDL", 0.5)]);
        assert_eq!(r.repos(), vec!["patina", "dojo"], "{r:?}");
    }

    #[test]
    fn the_edge_evidence_decides_between_connected_repos() {
        let (nodes, indexed, edges) = world();
        let evidence: BTreeMap<String, Vec<String>> = [
            ("SDL", "Stress-tested the C parser on SDL: 84k symbols extracted"),
            ("dojo", "Cairo extraction tested on the dojo repository"),
            ("livestore", "Studied LiveStore's event log and materializers"),
        ]
        .into_iter()
        .map(|(r, t)| (r.to_string(), vec![t.to_string()]))
        .collect();
        let world = plain_world(&nodes, &indexed, &edges, &evidence, &[]);
        // Equal content scores everywhere: only the evidence tells SDL apart.
        let r = route(Some("patina"), "parser symbols stress", &Mode::Graph, world, &RouteOptions::default(), |_| {
            Some(0.5)
        });
        assert_eq!(r.repos()[1], "SDL", "{r:?}");
        assert!(r.reason("SDL").unwrap().contains("evidence 1.00"), "{r:?}");

        let relevance = evidence_relevance(&words("C parser extraction"), &evidence);
        // `extraction` is in two repos' evidence, `parser` in one: SDL has both.
        assert!(relevance["SDL"].0 > relevance["dojo"].0 && relevance["dojo"].0 > 0.0, "{relevance:?}");
        assert_eq!(relevance["livestore"].0, 0.0);
        assert!(relevance["SDL"].1.starts_with("Stress-tested the C parser"));

        // Texts are scored one by one: words scattered over many sentences do not add up.
        let scattered: BTreeMap<String, Vec<String>> = [
            ("wide", vec!["the extraction side", "a parser here", "symbols there"]),
            ("focused", vec!["the parser extraction found 84k symbols"]),
        ]
        .into_iter()
        .map(|(r, ts)| (r.to_string(), ts.into_iter().map(String::from).collect()))
        .collect();
        let relevance = evidence_relevance(&words("parser symbols extraction"), &scattered);
        assert!((relevance["focused"].0 - 1.0).abs() < 1e-9, "{relevance:?}");
        assert!(relevance["wide"].0 < 0.5, "{relevance:?}");
    }

    #[test]
    fn a_repo_two_hops_away_needs_strong_content_agreement() {
        let (mut nodes, mut indexed, edges) = world();
        let foundry = node("starknet-foundry", &["rust", "cairo", "starknet"], "Starknet testing toolchain", &[]);
        nodes.insert(foundry.id.clone(), foundry);
        indexed.insert("starknet-foundry".to_string());
        let evidence = BTreeMap::new();
        let languages = vec!["rust".to_string(), "cairo".to_string(), "c".to_string()];
        let world = plain_world(&nodes, &indexed, &edges, &evidence, &languages);
        // The content pre-score says the answer is in starknet-foundry.
        let strong = |r: &str| Some(if r == "starknet-foundry" { 1.0 } else { 0.2 });
        let r = route(
            Some("patina"),
            "cheatcode for block timestamp",
            &Mode::Graph,
            world,
            &RouteOptions::default(),
            strong,
        );
        assert!(r.repos().contains(&"starknet-foundry".to_string()), "{r:?}");
        let reason = r.reason("starknet-foundry").unwrap();
        assert!(
            reason
                .starts_with("2 hops: patina TESTS_WITH dojo (0.98) → dojo and starknet-foundry share domain starknet"),
            "{reason}"
        );
        // Weak agreement: left out, and the route says why.
        let weak = |r: &str| Some(if r == "starknet-foundry" { 0.3 } else { 1.0 });
        let r =
            route(Some("patina"), "cheatcode for block timestamp", &Mode::Graph, world, &RouteOptions::default(), weak);
        assert!(!r.repos().contains(&"starknet-foundry".to_string()), "{r:?}");
        assert!(r.skipped.iter().any(|s| s.repo == "starknet-foundry" && s.reason.contains("does not agree strongly")));
        // The query names dojo, and the answer sits beside it: two hops away, holding the
        // query far better than dojo (and best of all), it is searched beside the named
        // repo; holding it only somewhat better, it is not.
        let beside = |dojo: f64| {
            let content = move |r: &str| {
                Some(match r {
                    "starknet-foundry" => 1.0,
                    "dojo" => dojo,
                    _ => 0.1,
                })
            };
            route(
                Some("patina"),
                "mock the caller in dojo tests",
                &Mode::Graph,
                world,
                &RouteOptions::default(),
                content,
            )
        };
        let r = beside(0.3);
        assert_eq!(r.repos(), vec!["patina", "dojo", "starknet-foundry"], "{r:?}");
        let reason = r.reason("starknet-foundry").unwrap();
        assert!(reason.starts_with("2 hops: ") && reason.contains("beside the named repo"), "{reason}");
        let r = beside(0.6);
        assert_eq!(r.repos(), vec!["patina", "dojo"], "{r:?}");
        assert!(r.skipped.iter().any(|s| s.repo == "starknet-foundry" && s.reason.contains("names other repos")));
        // A shared language is no path: SDL (c) reaches nothing new through `c`.
        let hops = two_hops("patina", &[("SDL", &edges[1])].into_iter().collect(), &world);
        assert!(hops.is_empty(), "{hops:?}");
    }

    #[test]
    fn a_repo_alike_a_neighbour_by_meaning_is_two_hops_away() {
        // opencode has no edge and no specific domain; its registry entry is alike
        // livestore's (as the model would say) and livestore is a neighbour.
        let (nodes, indexed, edges) = world();
        let evidence = BTreeMap::new();
        let languages: Vec<String> = ["typescript", "rust", "cairo", "c"].map(String::from).to_vec();
        let alike: BTreeMap<String, Vec<(String, f64)>> = [
            ("livestore".to_string(), vec![("opencode".to_string(), 0.79)]),
            ("opencode".to_string(), vec![("livestore".to_string(), 0.79)]),
        ]
        .into_iter()
        .collect();
        let world = RouteWorld { alike: &alike, ..plain_world(&nodes, &indexed, &edges, &evidence, &languages) };
        let content = |best: f64| move |r: &str| Some(if r == "opencode" { best } else { 0.2 });
        let query = "compacting older conversation turns";
        let r = route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content(1.0));
        assert!(r.repos().contains(&"opencode".to_string()), "{r:?}");
        let reason = r.reason("opencode").unwrap();
        assert!(
            reason.starts_with(
                "2 hops: patina LEARNS_FROM livestore (0.87) → livestore and opencode are alike (registry entries, cosine 0.79)"
            ),
            "{reason}"
        );
        // Weak content agreement: the likeness alone admits nothing.
        let r = route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content(0.1));
        assert!(!r.repos().contains(&"opencode".to_string()), "{r:?}");
        assert!(r.skipped.iter().any(|s| s.repo == "opencode" && s.reason.contains("are alike")), "{r:?}");
        // Without likenesses (no model), opencode is no hop at all.
        let hops = two_hops(
            "patina",
            &[("livestore", &edges[2])].into_iter().collect(),
            &plain_world(&nodes, &indexed, &edges, &evidence, &languages),
        );
        assert!(!hops.contains_key("opencode"), "{hops:?}");
    }

    #[test]
    fn the_repo_whose_content_holds_the_query_best_is_searched_without_an_edge() {
        // memista has no edge, shares no domain and its entry shares no word with the
        // query; only its content says the answer is there.
        let (nodes, indexed, edges) = world_with_memista();
        let evidence = BTreeMap::new();
        let world = plain_world(&nodes, &indexed, &edges, &evidence, &[]);
        let run = |query: &str, best: f64| {
            let content = move |r: &str| {
                Some(match r {
                    "memista" => best,
                    "SDL" => 0.4,
                    "livestore" => 0.39,
                    "dojo" => 0.38,
                    "scryer-prolog" => 0.37,
                    _ => 0.0,
                })
            };
            route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content)
        };
        let query = "embeddings joined to chunk rows by id";
        let r = run(query, 0.9);
        assert_eq!(r.repos(), vec!["patina", "SDL", "dojo", "livestore", "memista"], "the last slot: {r:?}");
        let led = &r.searched[4];
        assert_eq!(led.prior, CONTENT_LED_PRIOR);
        assert!(
            led.reason.starts_with("its content holds the query best of the repos the graph does not reach"),
            "{led:?}"
        );
        assert!(
            r.skipped
                .iter()
                .any(|s| s.repo == "scryer-prolog" && s.reason.contains("the last slot is kept for memista")),
            "the connected repo it displaced says why: {r:?}"
        );
        // Not the best by content, yet near the best candidate's (SDL's 0.4): still the
        // last slot.
        let r = run(query, 0.3);
        assert_eq!(r.repos(), vec!["patina", "SDL", "dojo", "livestore", "memista"], "{r:?}");
        // Far below the best candidate's (< 0.6 × 0.4): the graph's repos only.
        let r = run(query, 0.2);
        assert_eq!(r.repos(), vec!["patina", "SDL", "dojo", "livestore", "scryer-prolog"], "{r:?}");
        // A query that names a repo looks there, not at the best content elsewhere.
        let r = run("embeddings joined to chunk rows by id in dojo", 0.9);
        assert!(!r.repos().contains(&"memista".to_string()), "{r:?}");
    }

    proptest::proptest! {
        /// Whatever the content scores: the local project first, at most four others,
        /// every indexed repo either searched or skipped with a reason, at most one repo
        /// admitted by its content alone (with at least [`CONTENT_LED_RATIO`] of the best
        /// content), and the same route twice.
        #[test]
        fn route_invariants_hold_for_any_content_scores(
            scores in proptest::collection::vec(0.0f64..1.0, 7),
            query in proptest::sample::select(vec![
                "embeddings joined to chunk rows by id",
                "Prolog interpreter in Rust",
                "how does dojo handle ECS world storage",
                "audio resampling",
            ]),
        ) {
            let (nodes, indexed, edges) = world_with_memista();
            let evidence = BTreeMap::new();
            let world = plain_world(&nodes, &indexed, &edges, &evidence, &[]);
            let repos: Vec<String> = indexed.iter().cloned().collect();
            let content = |r: &str| repos.iter().position(|x| x == r).map(|i| scores[i]);
            let r = route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content);
            proptest::prop_assert_eq!(r.searched[0].repo.as_str(), "patina");
            proptest::prop_assert!(r.searched.len() <= 5, "{:?}", r);
            for repo in &indexed {
                let seen = r.searched.iter().filter(|s| &s.repo == repo).count()
                    + r.skipped.iter().filter(|s| &s.repo == repo).count();
                proptest::prop_assert_eq!(seen, 1, "{} in {:?}", repo, r);
            }
            let led: Vec<&Routed> =
                r.searched.iter().filter(|s| s.reason.starts_with("its content holds the query best")).collect();
            proptest::prop_assert!(led.len() <= 1, "{:?}", r);
            if let Some(led) = led.first() {
                proptest::prop_assert_eq!(led.prior, CONTENT_LED_PRIOR);
                let best = repos.iter().filter(|x| x.as_str() != "patina").map(|x| content(x).unwrap()).fold(0.0, f64::max);
                proptest::prop_assert!(content(&led.repo).unwrap() >= CONTENT_LED_RATIO * best, "{:?}", r);
            }
            let again = route(Some("patina"), query, &Mode::Graph, world, &RouteOptions::default(), content);
            proptest::prop_assert_eq!(r, again);
        }
    }

    #[test]
    fn routing_words_are_the_index_terms() {
        assert_eq!(words("How does the parser handle games?"), crate::search::text::query_terms("parser games"));
        assert_eq!(words("parsing"), words("parses"));
        assert_ne!(words("rust"), words("runtime"));
        assert_eq!(words("spawnEntity"), crate::search::text::query_terms("spawnEntity"));
    }
}
