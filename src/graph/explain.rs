//! "Why does this edge exist?" and, for a missing edge, "what would it take?".

use serde::Serialize;

use super::derive::{Edge, FeedbackTerm, UnitRef};
use super::facts::{self, Facts, edge_code};
use super::params::Params;
use super::program::{self, RULES};
use super::store;
use crate::error::Error;
use crate::event::log::EventLog;
use crate::event::{EdgeType, Event, NodeKind, Source};
use crate::store::Store;

/// One event cited as evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Cited {
    pub seq: u64,
    pub kind: &'static str,
    /// `file:line`, `cli` or `mcp`.
    pub source: String,
    pub session: Option<String>,
    pub date: Option<String>,
    /// The sentence of a mention, or the event's one-line summary.
    pub text: String,
    /// What classified a mention: its cue phrase, testing command, lead-in or exemplar
    /// (with its similarity); empty for a plain mention and for other events.
    pub cue: String,
    pub live: bool,
}

/// One unit (session, manifest, run) of a rule's evidence and its weight contribution.
#[derive(Debug, Clone, Serialize)]
pub struct CitedUnit {
    pub key: String,
    pub date: Option<String>,
    pub value: f64,
    pub events: Vec<Cited>,
}

/// A rule that derived the edge.
#[derive(Debug, Clone, Serialize)]
pub struct RuleExplanation {
    pub rule: String,
    pub description: String,
    pub term: f64,
    pub detail: String,
    pub units: Vec<CitedUnit>,
}

/// A rule that could derive the edge but did not.
#[derive(Debug, Clone, Serialize)]
pub struct NearMiss {
    pub rule: String,
    pub description: String,
    pub needs: String,
    pub found: String,
    /// How much of the requirement is met, in [0, 1).
    pub closeness: f64,
}

/// The answer of `explain`.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    pub exists: bool,
    pub weight: Option<f64>,
    /// How the weight combines the rule terms.
    pub weight_formula: Option<String>,
    pub rules: Vec<RuleExplanation>,
    pub feedback: Option<FeedbackTerm>,
    /// For a missing edge: the rules that came closest, closest first.
    pub near_misses: Vec<NearMiss>,
    /// A live unlink that blocks this exact edge.
    pub blocked_by_unlink: Option<u64>,
    /// Other edges between the two nodes, either direction.
    pub other_edges: Vec<String>,
    /// Evidence between the two nodes that supports no rule (e.g. plain mentions).
    pub unused_evidence: Vec<String>,
    /// The first evidence of the edge's current period (or of its last, if it ended).
    pub valid_from: Option<String>,
    /// For an edge that ended: when (its rules and weight above are those it had).
    pub ended: Option<String>,
    /// Removals and contradictions of the repo in the logs, oldest first: the newest
    /// ended the edge, unless newer evidence started it again.
    pub endings: Vec<CitedUnit>,
}

fn cite(log: &EventLog<'_>, seq: u64) -> Result<Option<Cited>, Error> {
    let Some(event) = log.get(seq)? else { return Ok(None) };
    let live = log.is_live(&event)?;
    let source = match &event.source {
        Source::File { path, start_line, .. } if *start_line > 0 => format!("{path}:{start_line}"),
        other => other.to_string(),
    };
    let (session, date, text, cue) = match &event.event {
        Event::Mention(m) => (Some(m.session_id.clone()), m.session_date.clone(), m.sentence.clone(), m.cue.clone()),
        Event::BenchRun(b) => (None, Some(b.when.clone()), event.event.summary(), String::new()),
        other => (None, None, other.summary(), String::new()),
    };
    Ok(Some(Cited { seq, kind: event.event.kind().as_str(), source, session, date, text, cue, live }))
}

/// Explains `from TYPE to`: the rules and events behind it, or why it is missing.
pub fn explain(
    store: &Store,
    params: &Params,
    from: &str,
    edge_type: EdgeType,
    to: &str,
    max_events: usize,
) -> Result<Explanation, Error> {
    let log = EventLog::new(store);
    let current = store::edge(store, from, edge_type, to)?;
    let exists = current.is_some();
    let edge = match current {
        Some(edge) => Some(edge),
        None => store::ended_edge(store, from, edge_type, to)?,
    };
    let facts = facts::load(&log, params)?;
    let mut out = Explanation {
        from: from.to_string(),
        edge_type,
        to: to.to_string(),
        exists,
        weight: edge.as_ref().map(|e| e.weight),
        weight_formula: None,
        rules: Vec::new(),
        feedback: edge.as_ref().and_then(|e| e.feedback.clone()),
        near_misses: Vec::new(),
        blocked_by_unlink: None,
        other_edges: Vec::new(),
        unused_evidence: Vec::new(),
        valid_from: edge.as_ref().and_then(|e| e.valid_from.clone()),
        ended: edge.as_ref().and_then(|e| e.valid_until.clone()),
        endings: Vec::new(),
    };
    if let Some(edge) = &edge {
        explain_existing(&log, edge, max_events, &mut out)?;
    }
    let (Some(&a), Some(&b)) = (facts.node_index.get(from), facts.node_index.get(to)) else { return Ok(out) };
    out.blocked_by_unlink = facts.unlinks.get(&(a, edge_code(edge_type), b)).copied();
    for (x, y) in [(from, to), (to, from)] {
        for e in store::out_edges(store, x)? {
            if e.to == y && !(x == from && e.edge_type == edge_type) {
                out.other_edges.push(format!("{} {} {} ({:.2})", e.from, e.edge_type, e.to, e.weight));
            }
        }
    }
    // An edge that ended is explained by its ending, not by rules that came close: its
    // rules fired.
    if !exists && out.ended.is_none() {
        out.near_misses = near_misses(&facts, params, a, b, edge_type);
    }
    // An edge that ended: later strong cues that only name the removed part look back at
    // it, and start nothing again (`Params::names_a_part`). Its end is the first ending of
    // that day (endings are in (date, session) order).
    let end = out.ended.as_deref().and_then(|until| {
        let ending = edge.as_ref()?.endings.iter().find(|u| u.date.as_deref() == Some(until))?;
        Some((until, ending.key.as_str()))
    });
    for &g in facts.groups_by_pair.get(&(a, b)).into_iter().flatten() {
        let group = &facts.groups[g as usize];
        if let Some(end) = end
            && super::derive::restarts(edge_code(edge_type), group.kind)
        {
            let after_end = |u: &facts::Unit| u.date.is_some_and(|d| (d.to_string().as_str(), u.key.as_str()) > end);
            let later: Vec<&str> =
                group.units.iter().filter(|u| u.strong && !u.act && after_end(u)).map(|u| u.key.as_str()).collect();
            if !later.is_empty() {
                out.unused_evidence.push(format!(
                    "{} later session(s) name it only as a part (\"the X crate\", a crate column, a \
                     Dependencies lead-in): a look back, which starts no ended edge again ({})",
                    later.len(),
                    later.join(", ")
                ));
            }
        }
        if group.kind == program::G_PLAIN {
            out.unused_evidence.push(format!(
                "{} plain mention(s) in {} session(s): a mention without a cue never makes an edge",
                group.seqs().count(),
                group.units.len()
            ));
        }
    }
    Ok(out)
}

fn explain_existing(log: &EventLog<'_>, edge: &Edge, max_events: usize, out: &mut Explanation) -> Result<(), Error> {
    let manual = edge.firings.iter().any(|f| f.rule == "manual-link");
    out.weight_formula = Some(if manual {
        "manual link: its weight overrides the derived terms".to_string()
    } else {
        let terms: Vec<String> = edge.firings.iter().map(|f| format!("{:.3}", f.term)).collect();
        format!(
            "1 − Π(1 − term) over rules [{}]{}",
            terms.join(", "),
            match &edge.feedback {
                Some(f) => format!(" × feedback {:.2}", f.factor),
                None => String::new(),
            }
        )
    });
    let mut budget = max_events;
    for unit in &edge.endings {
        out.endings.push(CitedUnit { value: 0.0, ..cite_unit(log, unit, &mut budget)? });
    }
    for firing in &edge.firings {
        let description = RULES.iter().find(|r| r.name == firing.rule).map(|r| r.description).unwrap_or("").to_string();
        let mut units = Vec::new();
        for unit in &firing.units {
            units.push(cite_unit(log, unit, &mut budget)?);
        }
        out.rules.push(RuleExplanation {
            rule: firing.rule.clone(),
            description,
            term: firing.term,
            detail: firing.detail.clone(),
            units,
        });
    }
    Ok(())
}

/// A unit of evidence with its events cited, at most `budget` of them (decremented).
fn cite_unit(log: &EventLog<'_>, unit: &UnitRef, budget: &mut usize) -> Result<CitedUnit, Error> {
    let mut events = Vec::new();
    for &seq in &unit.seqs {
        if *budget == 0 {
            break;
        }
        if let Some(c) = cite(log, seq)? {
            events.push(c);
            *budget -= 1;
        }
    }
    Ok(CitedUnit { key: unit.key.clone(), date: unit.date.clone(), value: unit.value, events })
}

fn units_of(facts: &Facts, a: u32, b: u32, kind: u8) -> Vec<String> {
    facts
        .groups_by_pair
        .get(&(a, b))
        .into_iter()
        .flatten()
        .map(|&g| &facts.groups[g as usize])
        .filter(|g| g.kind == kind)
        .flat_map(|g| g.units.iter().map(|u| if u.strong { u.key.clone() } else { format!("{} (weak cue)", u.key) }))
        .collect()
}

fn listed(units: &[String]) -> String {
    match units.len() {
        0 => "none".to_string(),
        n if n <= 6 => format!("{n}: {}", units.join(", ")),
        n => format!("{n}: {}, …", units[..6].join(", ")),
    }
}

fn near_misses(facts: &Facts, params: &Params, a: u32, b: u32, edge_type: EdgeType) -> Vec<NearMiss> {
    let t = edge_code(edge_type);
    let need = program::MIN_CUE_SESSIONS as usize;
    let mut out = Vec::new();
    for rule in RULES.iter().filter(|r| r.edge_type == Some(t)) {
        let (needs, found, closeness) = match rule.code {
            program::R_MANIFEST_IMPORT => {
                let u = units_of(facts, a, b, program::G_IMPORT);
                (
                    "a manifest of the project that depends on the repo".to_string(),
                    format!("manifests: {}", listed(&u)),
                    0.0,
                )
            }
            program::R_BENCH_RUN => {
                let u = units_of(facts, a, b, program::G_BENCH);
                ("a recorded bench run against the repo".to_string(), format!("runs: {}", listed(&u)), 0.0)
            }
            program::R_TESTING_COMMAND => {
                let u = units_of(facts, a, b, program::G_COMMAND);
                (
                    "a testing command naming the repo (`scrape --repo X`) in a session".to_string(),
                    format!("sessions: {}", listed(&u)),
                    0.0,
                )
            }
            program::R_TESTING_CUES | program::R_USING_CUES => {
                let kind = if rule.code == program::R_TESTING_CUES { program::G_TESTING } else { program::G_USING };
                let u = units_of(facts, a, b, kind);
                let class = if kind == program::G_TESTING { "testing" } else { "using" };
                (
                    if kind == program::G_TESTING {
                        "a session with a strong testing cue".to_string()
                    } else {
                        format!("using cues in ≥ {need} different sessions, or one session with a strong using cue")
                    },
                    format!("sessions with {class} cues: {}", listed(&u)),
                    u.len() as f64 / need as f64,
                )
            }
            program::R_LEARNING_CUES => {
                let l = units_of(facts, a, b, program::G_LEARNING);
                let t = units_of(facts, a, b, program::G_TESTING);
                (
                    "a session with a strong learning cue, and learning cues in no fewer sessions than testing cues"
                        .to_string(),
                    format!("sessions with learning cues: {}; with testing cues: {}", listed(&l), t.len()),
                    if l.len() >= need {
                        l.len() as f64 / (t.len().max(1) as f64 + 1.0)
                    } else {
                        l.len() as f64 / need as f64
                    },
                )
            }
            program::R_SIBLING_DOMAIN | program::R_SHARED_DOMAIN => {
                let (common, specific, _) = facts.shared.get(&(a, b)).cloned().unwrap_or_default();
                let broad = super::derive::broad_note(&facts.broad_shared(a, b), params);
                let kinds = format!(
                    "{} is a {}, {} a {}",
                    facts.nodes[a as usize].id,
                    facts.nodes[a as usize].kind,
                    facts.nodes[b as usize].id,
                    facts.nodes[b as usize].kind
                );
                if rule.code == program::R_SIBLING_DOMAIN {
                    let ok_kinds = facts.nodes[a as usize].kind == NodeKind::Project
                        && facts.nodes[b as usize].kind == NodeKind::Reference;
                    (
                        "a project and a reference sharing a specific (non-language) domain".to_string(),
                        format!("{kinds}; shared domains [{}], {specific} specific{broad}", common.join(", ")),
                        if ok_kinds && !common.is_empty() { 0.5 } else { 0.0 },
                    )
                } else {
                    (
                        "a project sharing any domain with the node".to_string(),
                        format!("{kinds}; shared domains [{}]{broad}", common.join(", ")),
                        0.0,
                    )
                }
            }
            _ => continue,
        };
        out.push(NearMiss {
            rule: rule.name.to_string(),
            description: rule.description.to_string(),
            needs,
            found,
            closeness: closeness.min(0.99),
        });
    }
    out.push(NearMiss {
        rule: "manual-link".into(),
        description: RULES[program::R_MANUAL_LINK as usize].description.into(),
        needs: format!(
            "`patina mother link {} {} {}`",
            facts.nodes[a as usize].id, edge_type, facts.nodes[b as usize].id
        ),
        found: "no live link".into(),
        closeness: 0.0,
    });
    out.sort_by(|x, y| y.closeness.partial_cmp(&x.closeness).unwrap_or(std::cmp::Ordering::Equal));
    out
}
