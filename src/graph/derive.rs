//! Deriving the graph: facts → rule program → edges with weights and provenance.
//!
//! Architecture Invariant: `derive` is a pure function of the live events and the
//! parameters. Output order is sorted (by from, type, to; firings by rule order), so
//! deriving twice from the same log gives byte-identical graphs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::facts::{self, Facts, GroupInfo, edge_type};
use super::params::Params;
use super::program::{self, RULES};
use crate::error::Error;
use crate::event::log::EventLog;
use crate::event::{EdgeType, NodeKind};

/// One unit of evidence behind a rule firing, with its weight contribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitRef {
    /// A session id, a manifest path, a bench run, a node id.
    pub key: String,
    pub date: Option<String>,
    pub value: f64,
    pub seqs: Vec<u64>,
}

/// One rule that derived an edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Firing {
    pub rule: String,
    /// The rule's weight term in [0, 1].
    pub term: f64,
    /// How the term was computed, in words.
    pub detail: String,
    pub units: Vec<UnitRef>,
}

/// Route feedback's factor on an edge's weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedbackTerm {
    pub useful: u32,
    pub not_useful: u32,
    pub factor: f64,
    pub seqs: Vec<u64>,
}

/// A derived edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    pub weight: f64,
    /// Invariant: sorted by rule order in `RULES`, at least one.
    pub firings: Vec<Firing>,
    pub feedback: Option<FeedbackTerm>,
    /// The date of the first evidence of the edge's current period (after its last
    /// ending, if it ended and started again).
    pub valid_from: Option<String>,
    /// For an edge that ended: the date of the evidence that ended it.
    pub valid_until: Option<String>,
    /// Removals and contradictions of the repo in the project's logs (`ending` mentions)
    /// and dependencies the project's manifests dropped, oldest first. An edge ends when
    /// the newest of them is at least as new as its newest text evidence and no manifest
    /// (still naming it), bench run or manual link holds it.
    pub endings: Vec<UnitRef>,
}

impl Edge {
    pub fn key(&self) -> (String, EdgeType, String) {
        (self.from.clone(), self.edge_type, self.to.clone())
    }
}

/// A node of the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    pub id: String,
    pub kind: NodeKind,
    pub domains: Vec<String>,
    pub summary: Option<String>,
    /// Sum of the weights of the edges touching the node (for pictures and ranking).
    pub importance: f64,
}

/// The derived graph, stamped with what it was derived from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub through_seq: u64,
    pub fingerprint: [u8; 32],
    /// Invariant: sorted by id.
    pub nodes: Vec<GraphNode>,
    /// The current edges. Invariant: sorted by (from, type, to).
    pub edges: Vec<Edge>,
    /// Edges whose evidence ended them (`valid_until` set), kept as history: no route,
    /// neighbour or path reads them. Invariant: sorted by (from, type, to).
    pub ended: Vec<Edge>,
}

pub(crate) fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn noisy_or(values: impl IntoIterator<Item = f64>) -> f64 {
    1.0 - values.into_iter().fold(1.0, |acc, v| acc * (1.0 - v.clamp(0.0, 1.0)))
}

fn recency(params: &Params, newest: Option<jiff::civil::Date>, date: Option<jiff::civil::Date>) -> f64 {
    let w = &params.weights;
    let (Some(newest), Some(date)) = (newest, date) else { return 1.0 };
    let age_days = (newest - date).get_days().max(0) as f64;
    0.5f64.powf(age_days / w.recency_half_life_days).max(w.recency_floor)
}

/// Derives the graph from the log.
pub fn derive(log: &EventLog<'_>, params: &Params) -> Result<Graph, Error> {
    let facts = facts::load(log, params)?;
    Ok(derive_from_facts(&facts, params))
}

/// Derives the graph from loaded facts.
pub fn derive_from_facts(facts: &Facts, params: &Params) -> Graph {
    // Groups no rule reads change no edge and no `Why`: leave them out of the run.
    let input = program::RuleInput {
        nodes: facts.input.nodes.clone(),
        groups: facts.input.groups.iter().copied().filter(|g| program::kind_is_read(g.3)).collect(),
        linked: facts.input.linked.clone(),
        unlinked: facts.input.unlinked.clone(),
        shared_domains: facts.input.shared_domains.clone(),
    };
    let output = program::run(&input);
    // (from, type, to) → rule → groups.
    let mut firings: BTreeMap<(u32, u8, u32), BTreeMap<u8, Vec<u32>>> = BTreeMap::new();
    for &(a, t, b, rule) in &output.edges {
        firings.entry((a, t, b)).or_default().entry(rule).or_default();
    }
    for &(rule, a, t, b, g) in &output.why {
        firings.entry((a, t, b)).or_default().entry(rule).or_default().push(g);
    }
    let mut edges = Vec::with_capacity(firings.len());
    for ((a, t, b), rules) in firings {
        let fired: Vec<Firing> =
            rules.into_iter().map(|(rule, groups)| firing(facts, params, rule, a, b, &groups)).collect();
        let feedback = facts.feedback.get(&(a, b)).map(|f| {
            let w = &params.weights;
            let net = f.useful as f64 - f.not_useful as f64;
            let factor = (1.0 + w.feedback_step * net).clamp(w.feedback_min, w.feedback_max);
            FeedbackTerm { useful: f.useful, not_useful: f.not_useful, factor, seqs: f.seqs.clone() }
        });
        let weight = edge_weight(&fired, feedback.as_ref());
        let validity = validity(facts, params, a, t, b, &fired);
        edges.push(Edge {
            from: facts.nodes[a as usize].id.clone(),
            edge_type: edge_type(t),
            to: facts.nodes[b as usize].id.clone(),
            weight,
            firings: fired,
            feedback,
            valid_from: validity.from,
            valid_until: validity.until,
            endings: validity.endings,
        });
    }
    edges.sort_by(|x, y| (&x.from, x.edge_type, &x.to).cmp(&(&y.from, y.edge_type, &y.to)));
    let (ended, edges): (Vec<Edge>, Vec<Edge>) = edges.into_iter().partition(|e| e.valid_until.is_some());
    let mut nodes: Vec<GraphNode> = facts
        .nodes
        .iter()
        .map(|n| GraphNode {
            id: n.id.clone(),
            kind: n.kind,
            domains: n.domains.clone(),
            summary: n.summary.clone(),
            importance: 0.0,
        })
        .collect();
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    set_importance(&mut nodes, &edges);
    Graph { through_seq: facts.through_seq, fingerprint: params.fingerprint, nodes, edges, ended }
}

/// Sets each node's importance: the summed weight of the current edges touching it
/// (edges in (from, type, to) order, so the sum is the same wherever it is computed).
pub fn set_importance(nodes: &mut [GraphNode], edges: &[Edge]) {
    let mut importance: BTreeMap<&str, f64> = BTreeMap::new();
    for e in edges {
        *importance.entry(e.from.as_str()).or_default() += e.weight;
        *importance.entry(e.to.as_str()).or_default() += e.weight;
    }
    for node in nodes {
        node.importance = round(importance.get(node.id.as_str()).copied().unwrap_or(0.0));
    }
}

/// The time an edge holds, from its evidence.
struct Validity {
    from: Option<String>,
    until: Option<String>,
    endings: Vec<UnitRef>,
}

/// Rules whose evidence is what the logs say, and so can be ended by what they say later.
const TEXT_RULES: [&str; 4] = ["testing-command", "testing-cues", "learning-cues", "using-cues"];

/// Whether a strong unit of this evidence kind can start an edge of type `t` again after
/// its ending: the kinds its text rule reads.
pub(crate) fn restarts(t: u8, kind: u8) -> bool {
    match t {
        program::USES => kind == program::G_USING,
        program::LEARNS_FROM => matches!(kind, program::G_LEARNING | program::G_BORROWING),
        _ => false,
    }
}

/// When the edge of `a → b` with these firings holds. A unit's place in time is
/// (date, key): session keys are timestamps, so two sessions of one day keep their order.
fn validity(facts: &Facts, params: &Params, a: u32, t: u8, b: u32, fired: &[Firing]) -> Validity {
    let at = |u: &UnitRef| (u.date.clone(), u.key.clone());
    // A removal ends a dependency; a contradiction ends a dependency or a learning claim;
    // nothing in the logs ends a TESTS_WITH edge (a repo tested on stays tested on).
    let ends = |kind: u8| match t {
        program::USES => matches!(kind, program::G_ENDING | program::G_CONTRADICTION | program::G_DROPPED_IMPORT),
        program::LEARNS_FROM => kind == program::G_CONTRADICTION,
        _ => false,
    };
    let endings: Vec<UnitRef> = facts
        .groups_by_pair
        .get(&(a, b))
        .into_iter()
        .flatten()
        .map(|&g| &facts.groups[g as usize])
        .filter(|g| ends(g.kind))
        .flat_map(|g| per_unit(facts, params, g, 0.0))
        .collect();
    let mut endings = endings;
    endings.sort_by_key(at);
    let support: Vec<&UnitRef> =
        fired.iter().filter(|f| TEXT_RULES.contains(&f.rule.as_str())).flat_map(|f| &f.units).collect();
    // A manifest that still has the dependency, a bench run, a manual link or a registry
    // domain holds the edge whatever the logs say.
    let manifest = RULES[program::R_MANIFEST_IMPORT as usize].name;
    let in_a_manifest = facts
        .groups_by_pair
        .get(&(a, b))
        .into_iter()
        .flatten()
        .any(|&g| facts.groups[g as usize].kind == program::G_IMPORT);
    let held = fired.iter().any(|f| !TEXT_RULES.contains(&f.rule.as_str()) && (f.rule != manifest || in_a_manifest));
    // After an ending the edge starts again only on a strong cue that says an act
    // (`cargo add X`, a pasted dependency line, "built on X again"). Weak cues look back at what
    // was ended, in as many sessions as there are recaps ("the turso backend" in a retro's
    // table of removals, "the DuckDB integration cost us a week" a month on): an ending is
    // decided evidence, and only evidence that decides by itself undoes it. So do strong
    // cues that only name the removed part ("The gemini-cli adapter spike was dropped the
    // same day", "the `duckdb` crate is no longer in the tree", a crate table's row in a
    // later audit): `Unit::act` leaves them out.
    let strong_sessions: Vec<&str> = facts
        .groups_by_pair
        .get(&(a, b))
        .into_iter()
        .flatten()
        .map(|&g| &facts.groups[g as usize])
        .filter(|g| restarts(t, g.kind))
        .flat_map(|g| g.units.iter().filter(|u| u.act).map(|u| u.key.as_str()))
        .collect();
    // The evidence after an ending that starts the edge again.
    let restart_after = |end: &(Option<String>, String)| -> Vec<&UnitRef> {
        support.iter().copied().filter(|u| at(u) > *end && strong_sessions.contains(&u.key.as_str())).collect()
    };
    let newest_end = endings.last().map(at);
    let restart: Vec<&UnitRef> = newest_end.as_ref().map(restart_after).unwrap_or_default();
    let ended = !held && newest_end.is_some() && restart.is_empty();
    // It ended at the first ending after which nothing started it again: a later one looks
    // back at the removal ("Architectural pivots: …, Dagger removal" ten days on).
    let mut first_final = endings.len().saturating_sub(1);
    while ended && first_final > 0 && restart_after(&at(&endings[first_final - 1])).is_empty() {
        first_final -= 1;
    }
    let dates = |units: &mut dyn Iterator<Item = &UnitRef>| units.filter_map(|u| u.date.clone()).min();
    let from = match (&newest_end, ended) {
        // Started again after its last ending: the period starts at the first evidence
        // after it that counts for a restart.
        (Some(_), false) => dates(&mut restart.iter().copied()),
        _ => dates(&mut fired.iter().flat_map(|f| &f.units)),
    };
    let until =
        ended.then(|| endings.get(first_final).and_then(|u| u.date.clone()).unwrap_or_else(|| "undated".to_string()));
    Validity { from, until, endings }
}

fn per_unit(facts: &Facts, params: &Params, group: &GroupInfo, c: f64) -> Vec<UnitRef> {
    group
        .units
        .iter()
        .map(|u| UnitRef {
            key: u.key.clone(),
            date: u.date.map(|d| d.to_string()),
            value: round(c * recency(params, facts.newest.get(&group.from).copied(), u.date)),
            seqs: u.seqs.clone(),
        })
        .collect()
}

/// The per-unit coefficient `c` of a rule's units (`unit = c · recency`); 0 for rules
/// whose term does not come from their units (domains).
fn unit_coefficient(params: &Params, rule: u8) -> f64 {
    let w = &params.weights;
    match rule {
        program::R_MANUAL_LINK => 1.0,
        program::R_MANIFEST_IMPORT => w.import_per_manifest,
        program::R_BENCH_RUN => w.bench_per_run,
        program::R_TESTING_COMMAND => w.command_per_session,
        program::R_TESTING_CUES => w.testing_per_session,
        program::R_LEARNING_CUES => w.learning_per_session,
        program::R_USING_CUES => w.using_per_session,
        _ => 0.0,
    }
}

/// Whether a rule's term is the noisy-or of its unit values (all but manual links and
/// the domain rules).
fn term_is_noisy_or(rule: u8) -> bool {
    !matches!(rule, program::R_MANUAL_LINK | program::R_SIBLING_DOMAIN | program::R_SHARED_DOMAIN)
}

/// An edge's weight from its firings: a manual link's term overrides, else the noisy-or
/// of the terms; then route feedback's factor, capped at 1.
fn edge_weight(fired: &[Firing], feedback: Option<&FeedbackTerm>) -> f64 {
    let manual = fired.iter().find(|f| f.rule == RULES[program::R_MANUAL_LINK as usize].name).map(|f| f.term);
    let mut weight = manual.unwrap_or_else(|| noisy_or(fired.iter().map(|f| f.term)));
    if let Some(f) = feedback {
        weight = (weight * f.factor).min(1.0);
    }
    round(weight)
}

/// `edge` with its unit values, terms and weight measured from `newest`, its from-node's
/// newest evidence: exactly what deriving gives when nothing but that date moved (the
/// incremental path re-weights the untouched edges of a node whose newest date moved).
pub fn reweight(edge: &Edge, params: &Params, newest: Option<jiff::civil::Date>) -> Edge {
    let mut edge = edge.clone();
    for firing in &mut edge.firings {
        let Some(rule) = RULES.iter().find(|r| r.name == firing.rule).map(|r| r.code) else { continue };
        let c = unit_coefficient(params, rule);
        for unit in &mut firing.units {
            unit.value = round(c * recency(params, newest, unit.date.as_deref().and_then(facts::parse_date)));
        }
        if term_is_noisy_or(rule) {
            firing.term = round(noisy_or(firing.units.iter().map(|u| u.value)));
        }
    }
    edge.weight = edge_weight(&edge.firings, edge.feedback.as_ref());
    edge
}

fn firing(facts: &Facts, params: &Params, rule: u8, a: u32, b: u32, groups: &[u32]) -> Firing {
    let w = &params.weights;
    let name = RULES[rule as usize].name.to_string();
    let groups: Vec<&GroupInfo> = groups.iter().map(|&g| &facts.groups[g as usize]).collect();
    let c = unit_coefficient(params, rule);
    let units: Vec<UnitRef> = groups
        .iter()
        .flat_map(|g| {
            let mut units = per_unit(facts, params, g, c);
            if g.kind == program::G_DROPPED_IMPORT {
                // The import itself, undated like every import (its drop is an ending).
                for u in &mut units {
                    u.date = None;
                    u.value = round(c * recency(params, None, None));
                }
            }
            units
        })
        .collect();
    let (term, detail) = match rule {
        program::R_MANUAL_LINK => {
            let given = groups.iter().find_map(|g| g.link_weight);
            let term = given.map(f64::from).unwrap_or(1.0);
            let detail = match given {
                Some(wt) => format!("manual link with --weight {wt}: overrides derived terms"),
                None => "manual link: weight 1.0, overrides derived terms".to_string(),
            };
            (term, detail)
        }
        program::R_SIBLING_DOMAIN | program::R_SHARED_DOMAIN => {
            let (common, specific, union) = facts.shared.get(&(a, b)).cloned().unwrap_or_default();
            let broad = broad_note(&facts.broad_shared(a, b), params);
            if rule == program::R_SIBLING_DOMAIN {
                let term = (w.sibling_per_specific_domain * specific as f64).min(1.0);
                (
                    term,
                    format!(
                        "{specific} specific shared domain(s) of [{}] × {}{broad}",
                        common.join(", "),
                        w.sibling_per_specific_domain
                    ),
                )
            } else {
                let term = if union == 0 { 0.0 } else { common.len() as f64 / union as f64 };
                let detail =
                    format!("Jaccard: {} shared [{}] / {union} domains in all{broad}", common.len(), common.join(", "));
                (term, detail)
            }
        }
        program::R_TESTING_COMMAND | program::R_TESTING_CUES | program::R_LEARNING_CUES | program::R_USING_CUES => {
            let term = noisy_or(units.iter().map(|u| u.value));
            let sessions = match units.len() {
                1 => "1 session (a single session weighs less than two)".to_string(),
                n => format!("{n} sessions"),
            };
            (term, format!("{sessions}: noisy-or 1 − Π(1 − c·recency)"))
        }
        _ => {
            let term = noisy_or(units.iter().map(|u| u.value));
            (term, format!("noisy-or of {} unit(s): 1 − Π(1 − c·recency)", units.len()))
        }
    };
    Firing { rule: name, term: round(term), detail, units }
}

/// `; too broad to count: rust (2000 nodes > 32)`, or nothing.
pub fn broad_note(broad: &[(String, usize)], params: &Params) -> String {
    if broad.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = broad.iter().map(|(d, n)| format!("{d} ({n} nodes)")).collect();
    format!("; too broad to count (> {} nodes): {}", params.max_domain_members, listed.join(", "))
}

/// What changed between two graphs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GraphDiff {
    pub added: Vec<Edge>,
    pub removed: Vec<Edge>,
    /// (old, new) for edges whose weight moved by at least the threshold.
    pub reweighted: Vec<(Edge, Edge)>,
}

impl GraphDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.reweighted.is_empty()
    }
}

/// The difference from `old` to `new`; weight changes below `threshold` are ignored.
pub fn diff(old: &[Edge], new: &[Edge], threshold: f64) -> GraphDiff {
    let old_map: BTreeMap<_, &Edge> = old.iter().map(|e| (e.key(), e)).collect();
    let new_map: BTreeMap<_, &Edge> = new.iter().map(|e| (e.key(), e)).collect();
    let mut out = GraphDiff::default();
    for (key, e) in &new_map {
        match old_map.get(key) {
            None => out.added.push((*e).clone()),
            Some(o) if (o.weight - e.weight).abs() >= threshold => out.reweighted.push(((*o).clone(), (*e).clone())),
            Some(_) => {}
        }
    }
    for (key, e) in &old_map {
        if !new_map.contains_key(key) {
            out.removed.push((*e).clone());
        }
    }
    out
}
