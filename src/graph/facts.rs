//! From live events to the rule program's input relations.
//!
//! Interns node ids to `u32`, groups evidence events by (kind, from, to), counts each
//! group's distinct units (sessions, manifests, runs) and the domains nodes share: the
//! aggregation Datalog cannot do.
//!
//! Architecture Invariant: the facts are a pure function of the live events and the
//! parameters; every collection here is built in a deterministic order (by node index,
//! then seq).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::params::Params;
use super::program::{self, Group, Linked, NodeIs, RuleInput, SharedDomains, Unlinked};
use crate::error::Error;
use crate::event::log::EventLog;
use crate::event::{CueClass, EdgeType, Event, EventKind, NodeKind, NodeRegistered, StoredEvent};

/// One unit of evidence in a group: a session, a manifest, a bench run, an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub key: String,
    /// Whether any event of the unit carries a strong cue (always true outside mentions).
    pub strong: bool,
    pub date: Option<jiff::civil::Date>,
    /// The events of this unit, by seq.
    pub seqs: Vec<u64>,
}

/// A group of evidence: every live event of one kind from one node to another.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupInfo {
    pub kind: u8,
    pub from: u32,
    pub to: u32,
    /// Invariant: sorted by key.
    pub units: Vec<Unit>,
    /// For link groups: the link's explicit weight.
    pub link_weight: Option<f32>,
    /// For link groups: the link's type.
    pub link_type: Option<EdgeType>,
}

impl GroupInfo {
    pub fn seqs(&self) -> impl Iterator<Item = u64> + '_ {
        self.units.iter().flat_map(|u| u.seqs.iter().copied())
    }
}

/// Route feedback for a (project, repo) pair.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feedback {
    pub useful: u32,
    pub not_useful: u32,
    pub seqs: Vec<u64>,
}

/// Everything the rules and the weights need, with the tables to explain them.
#[derive(Debug, Clone)]
pub struct Facts {
    pub input: RuleInput,
    /// Registered nodes; the index is the node's `u32` id.
    pub nodes: Vec<NodeRegistered>,
    pub node_seqs: Vec<u64>,
    pub node_index: HashMap<String, u32>,
    /// The index is the group's `u32` id.
    pub groups: Vec<GroupInfo>,
    /// (from, to) → groups between them.
    pub groups_by_pair: BTreeMap<(u32, u32), Vec<u32>>,
    pub feedback: BTreeMap<(u32, u32), Feedback>,
    /// Live unlinks: (from, type, to) → seq.
    pub unlinks: BTreeMap<(u32, u8, u32), u64>,
    /// Shared domains by pair: (all shared, specific shared, union size).
    /// Broad domains are left out of all three (see [`shared_domains`]).
    pub shared: BTreeMap<(u32, u32), (Vec<String>, usize, usize)>,
    /// Broad domains (on more than `max_domain_members` nodes) → their node count.
    pub broad_domains: BTreeMap<String, usize>,
    /// Per node: the newest dated evidence unit of the groups from it. An edge's recency
    /// is measured from its from-node's newest evidence (a project ages on its own
    /// timeline, and a new session of one project re-weights that project's edges only).
    pub newest: HashMap<u32, jiff::civil::Date>,
    /// The last event seq the facts saw.
    pub through_seq: u64,
}

impl Facts {
    /// The broad domains `a` and `b` share, with their node counts: shared, but ignored.
    pub fn broad_shared(&self, a: u32, b: u32) -> Vec<(String, usize)> {
        let of = |n: u32| self.nodes.get(n as usize).map(|n| n.domains.as_slice()).unwrap_or_default();
        let mut out: Vec<(String, usize)> = of(a)
            .iter()
            .filter(|d| of(b).contains(d))
            .filter_map(|d| self.broad_domains.get(d).map(|n| (d.clone(), *n)))
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

pub fn edge_code(t: EdgeType) -> u8 {
    EdgeType::ALL.iter().position(|x| *x == t).unwrap_or(0) as u8
}

pub fn edge_type(code: u8) -> EdgeType {
    EdgeType::ALL[code as usize % EdgeType::ALL.len()]
}

/// `YYYY-MM-DD…` → a date.
pub fn parse_date(s: &str) -> Option<jiff::civil::Date> {
    s.get(..10)?.parse().ok()
}

/// Is this mention's cue a testing command naming the repo (`scrape --repo X`)?
fn is_command_cue(cue: &str) -> bool {
    cue.contains("--repo")
}

/// Builder of groups keyed by (kind, from, to). Groups are found by hash while loading
/// (hundreds of thousands on a big log) and sorted once at the end.
#[derive(Default)]
struct Grouper {
    groups: HashMap<GroupKey, BTreeMap<String, Unit>>,
}

/// (kind, from, to).
type GroupKey = (u8, u32, u32);

impl Grouper {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        kind: u8,
        from: u32,
        to: u32,
        unit: &str,
        date: Option<jiff::civil::Date>,
        strong: bool,
        seq: u64,
    ) {
        let units = self.groups.entry((kind, from, to)).or_default();
        let entry = match units.get_mut(unit) {
            Some(entry) => entry,
            None => units.entry(unit.to_string()).or_insert(Unit {
                key: unit.to_string(),
                strong: false,
                date,
                seqs: Vec::new(),
            }),
        };
        entry.seqs.push(seq);
        entry.strong |= strong;
        if date > entry.date {
            entry.date = date;
        }
    }

    /// The groups in key order.
    fn into_sorted(self) -> Vec<(GroupKey, BTreeMap<String, Unit>)> {
        let mut groups: Vec<_> = self.groups.into_iter().collect();
        groups.sort_unstable_by_key(|(key, _)| *key);
        groups
    }
}

/// Loads the facts from the live events of the log.
pub fn load(log: &EventLog<'_>, params: &Params) -> Result<Facts, Error> {
    load_as_of(log, params, None)
}

/// Loads the facts from the live events whose evidence is dated up to `as_of` (all when
/// `None`): mentions by their session's date, bench runs by their `when`, every other
/// event by the day it was appended (UTC). Undated mentions count.
pub fn load_as_of(log: &EventLog<'_>, params: &Params, as_of: Option<jiff::civil::Date>) -> Result<Facts, Error> {
    let through_seq = log.last_seq()?.unwrap_or(0);
    let events = log.live(&[
        EventKind::NodeRegistered,
        EventKind::Mention,
        EventKind::Import,
        EventKind::BenchRun,
        EventKind::LinkAdded,
        EventKind::LinkRemoved,
        EventKind::RouteFeedback,
    ])?;
    let Some(as_of) = as_of else { return Ok(from_events(&events, params, through_seq)) };
    let appended_by = |ts_ms: i64| {
        jiff::Timestamp::from_millisecond(ts_ms).map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date() <= as_of)
    };
    let events: Vec<StoredEvent> = events
        .into_iter()
        .filter(|e| match &e.event {
            Event::Mention(m) => m.session_date.as_deref().and_then(parse_date).is_none_or(|d| d <= as_of),
            Event::BenchRun(b) => parse_date(&b.when).is_none_or(|d| d <= as_of),
            Event::NodeRegistered(_) => true,
            _ => appended_by(e.ts_ms).unwrap_or(true),
        })
        .collect();
    Ok(from_events(&events, params, through_seq))
}

/// Builds the facts from live events (in seq order).
pub fn from_events(events: &[StoredEvent], params: &Params, through_seq: u64) -> Facts {
    // Nodes first, sorted by id so interning is deterministic.
    let mut registered: BTreeMap<&str, (&NodeRegistered, u64)> = BTreeMap::new();
    for e in events {
        if let Event::NodeRegistered(n) = &e.event {
            registered.insert(n.id.as_str(), (n, e.seq));
        }
    }
    let nodes: Vec<NodeRegistered> = registered.values().map(|(n, _)| (*n).clone()).collect();
    let node_seqs: Vec<u64> = registered.values().map(|(_, s)| *s).collect();
    let node_index: HashMap<String, u32> = nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as u32)).collect();
    let id = |s: &str| node_index.get(s).copied();

    let mut grouper = Grouper::default();
    let mut links: Vec<(u32, u8, u32, u64, Option<f32>)> = Vec::new();
    let mut unlinks = BTreeMap::new();
    let mut feedback: BTreeMap<(u32, u32), Feedback> = BTreeMap::new();
    // Session dates repeat across a session's mentions: parse each distinct one once.
    let mut dates: HashMap<&str, Option<jiff::civil::Date>> = HashMap::new();
    for e in events {
        match &e.event {
            Event::Mention(m) => {
                let (Some(p), Some(r)) = (id(&m.project), id(&m.repo)) else { continue };
                if p == r {
                    continue;
                }
                let date = m.session_date.as_deref().and_then(|d| *dates.entry(d).or_insert_with(|| parse_date(d)));
                let kind = match m.cue_class {
                    CueClass::Testing if is_command_cue(&m.cue) => program::G_COMMAND,
                    CueClass::Testing => program::G_TESTING,
                    CueClass::Learning => program::G_LEARNING,
                    CueClass::Using => program::G_USING,
                    CueClass::Plain => program::G_PLAIN,
                    CueClass::Ending if params.contradiction_cues.contains(&m.cue.to_lowercase()) => {
                        program::G_CONTRADICTION
                    }
                    CueClass::Ending => program::G_ENDING,
                };
                let strong = m.strong_cue || kind == program::G_COMMAND;
                grouper.add(kind, p, r, &m.session_id, date, strong, e.seq);
                if kind == program::G_LEARNING && m.strong_cue && params.borrowing_cues.contains(&m.cue.to_lowercase())
                {
                    grouper.add(program::G_BORROWING, p, r, &m.session_id, date, true, e.seq);
                }
                if kind == program::G_COMMAND {
                    // A testing command is (strong) testing evidence too.
                    grouper.add(program::G_TESTING, p, r, &m.session_id, date, true, e.seq);
                }
            }
            Event::Import(i) => {
                let (Some(p), Some(r)) = (id(&i.project), id(&i.repo)) else { continue };
                if p != r {
                    grouper.add(program::G_IMPORT, p, r, &i.manifest, None, true, e.seq);
                }
            }
            Event::BenchRun(b) => {
                let (Some(p), Some(r)) = (id(&b.project), id(&b.repo)) else { continue };
                let date = parse_date(&b.when);
                if p != r {
                    grouper.add(program::G_BENCH, p, r, &format!("{} @ {}", b.suite, b.when), date, true, e.seq);
                }
            }
            Event::LinkAdded(l) => {
                let (Some(a), Some(b)) = (id(&l.from), id(&l.to)) else { continue };
                links.push((a, edge_code(l.edge_type), b, e.seq, l.weight));
            }
            Event::LinkRemoved(l) => {
                let (Some(a), Some(b)) = (id(&l.from), id(&l.to)) else { continue };
                unlinks.insert((a, edge_code(l.edge_type), b), e.seq);
            }
            Event::RouteFeedback(f) => {
                let (Some(p), Some(r)) = (f.project.as_deref().and_then(id), id(&f.repo)) else { continue };
                let entry = feedback.entry((p, r)).or_default();
                if f.useful {
                    entry.useful += 1;
                } else {
                    entry.not_useful += 1;
                }
                entry.seqs.push(e.seq);
            }
            // Knowledge events say what a project believes, not which repos matter.
            Event::NodeRegistered(_)
            | Event::NodeRemoved(_)
            | Event::Retracted(_)
            | Event::Belief(_)
            | Event::Observation(_)
            | Event::Relation(_) => {}
        }
    }

    let mut input = RuleInput::default();
    let mut groups = Vec::new();
    let mut groups_by_pair: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let kind = match node.kind {
            NodeKind::Project => program::PROJECT,
            NodeKind::Reference => program::REFERENCE,
        };
        input.nodes.push(NodeIs(i as u32, kind));
    }
    let mut newest: HashMap<u32, jiff::civil::Date> = HashMap::new();
    for ((kind, from, to), units) in grouper.into_sorted() {
        if let Some(date) = units.values().filter_map(|u| u.date).max() {
            let entry = newest.entry(from).or_insert(date);
            *entry = (*entry).max(date);
        }
        let g = groups.len() as u32;
        let strong = units.values().filter(|u| u.strong).count() as u32;
        input.groups.push(Group(g, from, to, kind, units.len() as u32, strong));
        groups_by_pair.entry((from, to)).or_default().push(g);
        groups.push(GroupInfo {
            kind,
            from,
            to,
            units: units.into_values().collect(),
            link_weight: None,
            link_type: None,
        });
    }
    for (a, t, b, seq, weight) in links {
        let g = groups.len() as u32;
        input.linked.push(Linked(g, a, t, b));
        groups_by_pair.entry((a, b)).or_default().push(g);
        groups.push(GroupInfo {
            kind: program::G_LINK,
            from: a,
            to: b,
            units: vec![Unit { key: format!("link #{seq}"), strong: true, date: None, seqs: vec![seq] }],
            link_weight: weight,
            link_type: Some(edge_type(t)),
        });
    }
    for &(a, t, b) in unlinks.keys() {
        input.unlinked.push(Unlinked(a, t, b));
    }

    let domains = shared_domains(&nodes, params);
    for ((a, b), shared) in &domains.pairs {
        let (a, b) = (*a, *b);
        let g = groups.len() as u32;
        input.shared_domains.push(SharedDomains(a, b, shared.0.len() as u32, shared.1 as u32, g));
        groups.push(GroupInfo {
            kind: program::G_REGISTRATION,
            from: a,
            to: b,
            units: vec![
                Unit { key: nodes[a as usize].id.clone(), strong: true, date: None, seqs: vec![node_seqs[a as usize]] },
                Unit { key: nodes[b as usize].id.clone(), strong: true, date: None, seqs: vec![node_seqs[b as usize]] },
            ],
            link_weight: None,
            link_type: None,
        });
    }

    Facts {
        input,
        nodes,
        node_seqs,
        node_index,
        groups,
        groups_by_pair,
        feedback,
        unlinks,
        shared: domains.pairs,
        broad_domains: domains.broad,
        newest,
        through_seq,
    }
}

/// The domains pairs of nodes share, and the broad domains.
struct DomainFacts {
    /// (project, other node) → (shared domains, how many are specific, union size).
    pairs: BTreeMap<(u32, u32), (Vec<String>, usize, usize)>,
    broad: BTreeMap<String, usize>,
}

/// Shared domains, for every ordered pair with a project first (the only pairs the
/// domain rules read), in node order.
///
/// Invariant: the work and the output are bounded by `max_domain_members` × the number of
/// (node, domain) registrations, never by nodes²: a domain on more nodes than
/// `max_domain_members` is *broad* and is ignored (it makes no pair and counts in no
/// pair's shared set or union), and every pair comes from a narrow domain the two share,
/// accumulated while walking that domain's members.
fn shared_domains(nodes: &[NodeRegistered], params: &Params) -> DomainFacts {
    let languages: BTreeSet<&str> = params.languages.iter().map(String::as_str).collect();
    // Invariant: members are distinct and in node order.
    let mut by_domain: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let distinct: BTreeSet<&str> = node.domains.iter().map(String::as_str).collect();
        for d in distinct {
            by_domain.entry(d).or_default().push(i as u32);
        }
    }
    let mut broad = BTreeMap::new();
    let mut narrow_count = vec![0usize; nodes.len()];
    let mut common: BTreeMap<(u32, u32), Vec<&str>> = BTreeMap::new();
    for (domain, members) in &by_domain {
        if members.len() > params.max_domain_members {
            broad.insert(domain.to_string(), members.len());
            continue;
        }
        for &a in members {
            narrow_count[a as usize] += 1;
            if nodes[a as usize].kind != NodeKind::Project {
                continue;
            }
            for &b in members {
                if a != b {
                    // Domains are visited in order, so each pair's list is sorted.
                    common.entry((a, b)).or_default().push(domain);
                }
            }
        }
    }
    let pairs = common
        .into_iter()
        .map(|((a, b), shared)| {
            let specific = shared.iter().filter(|d| !languages.contains(*d)).count();
            let union = narrow_count[a as usize] + narrow_count[b as usize] - shared.len();
            ((a, b), (shared.into_iter().map(str::to_string).collect(), specific, union))
        })
        .collect();
    DomainFacts { pairs, broad }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{ContentHash, Source};

    fn node(id: String, kind: NodeKind, domains: &[&str]) -> NodeRegistered {
        NodeRegistered {
            id,
            kind,
            path: None,
            domains: domains.iter().map(|d| d.to_string()).collect(),
            summary: None,
            aliases: vec![],
            packages: vec![],
        }
    }

    fn facts_of(nodes: Vec<NodeRegistered>) -> Facts {
        let events: Vec<StoredEvent> = nodes
            .into_iter()
            .enumerate()
            .map(|(i, n)| StoredEvent {
                seq: i as u64 + 1,
                ts_ms: 0,
                source: Source::Cli,
                hash: ContentHash([0; 32]),
                event: Event::NodeRegistered(n),
            })
            .collect();
        let through = events.len() as u64;
        from_events(&events, &Params::builtin(), through)
    }

    /// 3,000 projects all in `rust` and each in one of 150 narrow domains of 20 members:
    /// all pairs would be 9M; the pairs made are exactly the narrow domains' 3,000 × 19.
    #[test]
    fn a_broad_domain_makes_no_pairs_and_pairs_are_bounded_by_narrow_domains() {
        let params = Params::builtin();
        let nodes: Vec<NodeRegistered> = (0..3_000)
            .map(|i| node(format!("p{i:05}"), NodeKind::Project, &["rust", &format!("d{:03}", i / 20)]))
            .collect();
        let facts = facts_of(nodes);
        assert_eq!(facts.broad_domains, BTreeMap::from([("rust".to_string(), 3_000)]));
        assert!(params.max_domain_members < 3_000 && params.max_domain_members >= 20);
        assert_eq!(facts.input.shared_domains.len(), 3_000 * 19);
        assert_eq!(facts.shared.len(), 3_000 * 19);
        // `rust` counts in no pair: not shared, not in the union.
        let (common, specific, union) = &facts.shared[&(0, 1)];
        assert_eq!((common.as_slice(), *specific, *union), (["d000".to_string()].as_slice(), 1, 1));
        assert_eq!(facts.broad_shared(0, 1), vec![("rust".to_string(), 3_000)]);
        assert!(!facts.shared.contains_key(&(0, 20)), "only the broad domain in common");
    }

    #[test]
    fn narrow_domains_keep_their_pairs_and_jaccard() {
        let nodes = vec![
            node("a".into(), NodeKind::Project, &["rust", "search", "rust"]),
            node("b".into(), NodeKind::Reference, &["rust", "search", "db"]),
            node("c".into(), NodeKind::Reference, &["python"]),
        ];
        let facts = facts_of(nodes);
        assert!(facts.broad_domains.is_empty());
        let (common, specific, union) = &facts.shared[&(0, 1)];
        assert_eq!(common, &["rust".to_string(), "search".to_string()]);
        assert_eq!((*specific, *union), (1, 3));
        // Only pairs with a project first.
        assert_eq!(facts.shared.len(), 1);
    }
}
