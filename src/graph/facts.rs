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

use rustc_hash::FxHashMap;

use super::params::Params;
use super::program::{self, Group, Linked, NodeIs, RuleInput, SharedDomains, Unlinked};
use crate::error::{Error, StoreError};
use crate::event::log::EventLog;
use crate::event::{CueClass, EdgeType, Event, EventKind, EvidenceRef, NodeKind, NodeRegistered, StoredEvent, codec};

/// One unit of evidence in a group: a session, a manifest, a bench run, an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub key: String,
    /// Whether any event of the unit carries a strong cue (always true outside mentions).
    pub strong: bool,
    /// Whether any event of the unit carries a strong cue that says something was done
    /// with the repo, not only a part's name ([`Params::names_a_part`]): what may start an
    /// ended edge again (always true outside mentions).
    pub act: bool,
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

/// Loads the facts from the live events of the log.
pub fn load(log: &EventLog<'_>, params: &Params) -> Result<Facts, Error> {
    load_as_of(log, params, None)
}

/// The evidence kinds the facts read (retractions for the imports they name).
const EVIDENCE_KINDS: [EventKind; 7] = [
    EventKind::Mention,
    EventKind::Import,
    EventKind::BenchRun,
    EventKind::LinkAdded,
    EventKind::LinkRemoved,
    EventKind::RouteFeedback,
    EventKind::Retracted,
];

/// The UTC day an event was appended.
fn appended_day(ts_ms: i64) -> Option<jiff::civil::Date> {
    jiff::Timestamp::from_millisecond(ts_ms).map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date()).ok()
}

/// Loads the facts from the live events whose evidence is dated up to `as_of` (all when
/// `None`): mentions by their session's date, bench runs by their `when`, every other
/// event by the day it was appended (UTC). Undated mentions count.
///
/// Records are decoded in place ([`codec::decode_evidence`]: no string is copied) and
/// grouped as they stream by; only the registered nodes are decoded whole.
pub fn load_as_of(log: &EventLog<'_>, params: &Params, as_of: Option<jiff::civil::Date>) -> Result<Facts, Error> {
    let through_seq = log.last_seq()?.unwrap_or(0);
    let nodes = log.node_events()?;
    let mut builder = Builder::new(nodes.iter().filter_map(|e| match &e.event {
        Event::NodeRegistered(n) => Some((n, e.seq)),
        _ => None,
    }));
    let appended_by =
        |ts_ms: i64| jiff::Timestamp::from_millisecond(ts_ms).map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date()).ok();
    log.visit_live_records(&EVIDENCE_KINDS, |seq, bytes| {
        let decoded = codec::decode_evidence(bytes).map_err(|error| StoreError::CorruptEvent { seq, error })?;
        let Some((ts_ms, evidence)) = decoded else { return Ok(()) };
        if let Some(as_of) = as_of {
            let dated = match evidence {
                EvidenceRef::Mention { session_date, .. } => session_date.and_then(parse_date),
                EvidenceRef::BenchRun { when, .. } => parse_date(when),
                // A later retraction of an import: it was in force then (`resolve_drops`).
                EvidenceRef::Retracted { .. } => None,
                _ => appended_by(ts_ms),
            };
            if dated.is_some_and(|d| d > as_of) {
                return Ok(());
            }
        }
        builder.add(seq, ts_ms, evidence, params);
        Ok(())
    })?;
    // The imports that retractions name (other retracted events are no evidence).
    let targets = log.events_of_kind_at(builder.retractions.iter().map(|r| r.1).collect(), EventKind::Import)?;
    builder.resolve_drops(&targets, as_of, params);
    Ok(builder.finish(params, through_seq))
}

/// Builds the facts from live events (in seq order) and the events their retractions
/// name (`retracted`: the imports among them count as dropped).
pub fn from_events(events: &[StoredEvent], retracted: &[StoredEvent], params: &Params, through_seq: u64) -> Facts {
    let mut builder = Builder::new(events.iter().filter_map(|e| match &e.event {
        Event::NodeRegistered(n) => Some((n, e.seq)),
        _ => None,
    }));
    for e in events {
        if let Some(evidence) = EvidenceRef::of(&e.event) {
            builder.add(e.seq, e.ts_ms, evidence, params);
        }
    }
    builder.resolve_drops(retracted, None, params);
    builder.finish(params, through_seq)
}

/// One piece of evidence while loading: an event's contribution to the unit
/// (kind, from, to, unit key id). Records are sorted into units at the end: no hashing
/// per event, and every unit's records end up side by side.
#[derive(Clone, Copy)]
struct Record {
    kind: u8,
    from: u32,
    to: u32,
    key: u32,
    seq: u64,
    strong: bool,
    act: bool,
    date: Option<jiff::civil::Date>,
}

/// Groups evidence as it streams by, with every string interned: node ids by the node
/// table, unit keys (sessions, manifests, runs) and session dates once each.
struct Builder {
    nodes: Vec<NodeRegistered>,
    node_seqs: Vec<u64>,
    node_index: HashMap<String, u32>,
    /// `node_index` with a fast hasher (looked up twice per event).
    node_ids: FxHashMap<String, u32>,
    /// Unit key → id, and back.
    key_ids: FxHashMap<String, u32>,
    keys: Vec<String>,
    dates: FxHashMap<String, Option<jiff::civil::Date>>,
    records: Vec<Record>,
    links: Vec<(u32, u8, u32, u64, Option<f32>)>,
    unlinks: BTreeMap<(u32, u8, u32), u64>,
    feedback: BTreeMap<(u32, u32), Feedback>,
    /// (retraction seq, target seq, the day it was appended).
    retractions: Vec<(u64, u64, Option<jiff::civil::Date>)>,
}

impl Builder {
    /// Nodes are interned in id order (a later registration of an id wins).
    fn new<'e>(registrations: impl Iterator<Item = (&'e NodeRegistered, u64)>) -> Builder {
        let mut registered: BTreeMap<&str, (&NodeRegistered, u64)> = BTreeMap::new();
        for (n, seq) in registrations {
            registered.insert(n.id.as_str(), (n, seq));
        }
        let nodes: Vec<NodeRegistered> = registered.values().map(|(n, _)| (*n).clone()).collect();
        let node_seqs: Vec<u64> = registered.values().map(|(_, s)| *s).collect();
        let node_index: HashMap<String, u32> =
            nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i as u32)).collect();
        let node_ids = node_index.iter().map(|(k, v)| (k.clone(), *v)).collect();
        Builder {
            nodes,
            node_seqs,
            node_index,
            node_ids,
            key_ids: FxHashMap::default(),
            keys: Vec::new(),
            dates: FxHashMap::default(),
            records: Vec::new(),
            links: Vec::new(),
            unlinks: BTreeMap::new(),
            feedback: BTreeMap::new(),
            retractions: Vec::new(),
        }
    }

    /// The imports among the events retractions name: dropped dependencies
    /// (`G_DROPPED_IMPORT`, dated by the retraction), or, for a view `as_of` a day before
    /// the retraction, imports still in force.
    fn resolve_drops(&mut self, targets: &[StoredEvent], as_of: Option<jiff::civil::Date>, params: &Params) {
        let by_seq: HashMap<u64, &StoredEvent> = targets.iter().map(|e| (e.seq, e)).collect();
        for (retraction, target, day) in std::mem::take(&mut self.retractions) {
            let Some(Event::Import(import)) = by_seq.get(&target).map(|e| &e.event) else { continue };
            if as_of.is_some_and(|as_of| day.is_some_and(|d| d > as_of)) {
                // Dropped after the day looked at: then it was in force.
                self.add(target, 0, EvidenceRef::of(&Event::Import(import.clone())).expect("an import"), params);
                continue;
            }
            let (Some(p), Some(r)) = (self.id(&import.project), self.id(&import.repo)) else { continue };
            if p == r {
                continue;
            }
            let key = self.key(&import.manifest);
            self.unit(program::G_DROPPED_IMPORT, p, r, key, day, true, target);
            self.unit(program::G_DROPPED_IMPORT, p, r, key, day, true, retraction);
        }
    }

    fn id(&self, node: &str) -> Option<u32> {
        self.node_ids.get(node).copied()
    }

    fn key(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.key_ids.get(key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.to_string());
        self.key_ids.insert(key.to_string(), id);
        id
    }

    fn date(&mut self, date: Option<&str>) -> Option<jiff::civil::Date> {
        let date = date?;
        if let Some(&parsed) = self.dates.get(date) {
            return parsed;
        }
        let parsed = parse_date(date);
        self.dates.insert(date.to_string(), parsed);
        parsed
    }

    #[allow(clippy::too_many_arguments)]
    fn unit(
        &mut self,
        kind: u8,
        from: u32,
        to: u32,
        key: u32,
        date: Option<jiff::civil::Date>,
        strong: bool,
        seq: u64,
    ) {
        self.records.push(Record { kind, from, to, key, seq, strong, act: strong, date });
    }

    fn add(&mut self, seq: u64, ts_ms: i64, evidence: EvidenceRef<'_>, params: &Params) {
        match evidence {
            EvidenceRef::Retracted { target_seq } => self.retractions.push((seq, target_seq, appended_day(ts_ms))),
            EvidenceRef::Mention { project, repo, session_id, session_date, cue_class, cue, strong_cue } => {
                let (Some(p), Some(r)) = (self.id(project), self.id(repo)) else { return };
                if p == r {
                    return;
                }
                let date = self.date(session_date);
                let kind = match cue_class {
                    CueClass::Testing if is_command_cue(cue) => program::G_COMMAND,
                    CueClass::Testing => program::G_TESTING,
                    CueClass::Learning => program::G_LEARNING,
                    CueClass::Using => program::G_USING,
                    CueClass::Plain => program::G_PLAIN,
                    CueClass::Ending if params.is_contradiction(cue) => program::G_CONTRADICTION,
                    CueClass::Ending => program::G_ENDING,
                };
                let strong = strong_cue || kind == program::G_COMMAND;
                let key = self.key(session_id);
                self.unit(kind, p, r, key, date, strong, seq);
                if strong && params.names_a_part(cue) {
                    self.records.last_mut().expect("just pushed").act = false;
                }
                if kind == program::G_LEARNING && strong_cue && params.is_borrowing(cue) {
                    self.unit(program::G_BORROWING, p, r, key, date, true, seq);
                }
                if kind == program::G_COMMAND {
                    // A testing command is (strong) testing evidence too.
                    self.unit(program::G_TESTING, p, r, key, date, true, seq);
                }
            }
            EvidenceRef::Import { project, repo, manifest } => {
                let (Some(p), Some(r)) = (self.id(project), self.id(repo)) else { return };
                if p != r {
                    let key = self.key(manifest);
                    self.unit(program::G_IMPORT, p, r, key, None, true, seq);
                }
            }
            EvidenceRef::BenchRun { project, repo, suite, when } => {
                let (Some(p), Some(r)) = (self.id(project), self.id(repo)) else { return };
                if p != r {
                    let date = parse_date(when);
                    let key = self.key(&format!("{suite} @ {when}"));
                    self.unit(program::G_BENCH, p, r, key, date, true, seq);
                }
            }
            EvidenceRef::LinkAdded { from, edge_type, to, weight } => {
                let (Some(a), Some(b)) = (self.id(from), self.id(to)) else { return };
                self.links.push((a, edge_code(edge_type), b, seq, weight));
            }
            EvidenceRef::LinkRemoved { from, edge_type, to } => {
                let (Some(a), Some(b)) = (self.id(from), self.id(to)) else { return };
                self.unlinks.insert((a, edge_code(edge_type), b), seq);
            }
            EvidenceRef::RouteFeedback { project, repo, useful } => {
                let (Some(p), Some(r)) = (project.and_then(|p| self.id(p)), self.id(repo)) else { return };
                let entry = self.feedback.entry((p, r)).or_default();
                if useful {
                    entry.useful += 1;
                } else {
                    entry.not_useful += 1;
                }
                entry.seqs.push(seq);
            }
        }
    }

    fn finish(self, params: &Params, through_seq: u64) -> Facts {
        let Builder { nodes, node_seqs, node_index, keys, mut records, links, unlinks, feedback, .. } = self;
        // Units in (kind, from, to, key text) order, each unit's events in seq order: rank
        // the distinct keys by their text once, then sort the records by integers.
        let mut by_text: Vec<u32> = (0..keys.len() as u32).collect();
        by_text.sort_unstable_by(|a, b| keys[*a as usize].cmp(&keys[*b as usize]));
        let mut rank = vec![0u32; keys.len()];
        for (r, &k) in by_text.iter().enumerate() {
            rank[k as usize] = r as u32;
        }
        for record in &mut records {
            record.key = rank[record.key as usize];
        }
        records.sort_unstable_by_key(|r| (r.kind, r.from, r.to, r.key, r.seq));
        let mut text_of = vec![0u32; keys.len()];
        for (r, &k) in by_text.iter().enumerate() {
            text_of[r] = k;
        }

        let mut input = RuleInput::default();
        for (i, node) in nodes.iter().enumerate() {
            let kind = match node.kind {
                NodeKind::Project => program::PROJECT,
                NodeKind::Reference => program::REFERENCE,
            };
            input.nodes.push(NodeIs(i as u32, kind));
        }
        let mut groups: Vec<GroupInfo> = Vec::new();
        let mut groups_by_pair: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
        let mut newest: HashMap<u32, jiff::civil::Date> = HashMap::new();
        for same in records.chunk_by(|a, b| (a.kind, a.from, a.to, a.key) == (b.kind, b.from, b.to, b.key)) {
            let first = same[0];
            let unit = Unit {
                key: keys[text_of[first.key as usize] as usize].clone(),
                strong: same.iter().any(|r| r.strong),
                act: same.iter().any(|r| r.act),
                date: same.iter().filter_map(|r| r.date).max(),
                seqs: same.iter().map(|r| r.seq).collect(),
            };
            match groups.last_mut() {
                Some(g) if (g.kind, g.from, g.to) == (first.kind, first.from, first.to) => g.units.push(unit),
                _ => {
                    groups_by_pair.entry((first.from, first.to)).or_default().push(groups.len() as u32);
                    groups.push(GroupInfo {
                        kind: first.kind,
                        from: first.from,
                        to: first.to,
                        units: vec![unit],
                        link_weight: None,
                        link_type: None,
                    });
                }
            }
        }
        for (g, group) in groups.iter().enumerate() {
            // A drop's date is when the manifest lost the dependency, not evidence of work.
            let dated = group.kind != program::G_DROPPED_IMPORT;
            if let Some(date) = group.units.iter().filter_map(|u| u.date).max().filter(|_| dated) {
                let entry = newest.entry(group.from).or_insert(date);
                *entry = (*entry).max(date);
            }
            let strong = group.units.iter().filter(|u| u.strong).count() as u32;
            input.groups.push(Group(g as u32, group.from, group.to, group.kind, group.units.len() as u32, strong));
        }
        for (a, t, b, seq, weight) in links {
            let g = groups.len() as u32;
            input.linked.push(Linked(g, a, t, b));
            groups_by_pair.entry((a, b)).or_default().push(g);
            groups.push(GroupInfo {
                kind: program::G_LINK,
                from: a,
                to: b,
                units: vec![Unit { key: format!("link #{seq}"), strong: true, act: true, date: None, seqs: vec![seq] }],
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
                    Unit {
                        key: nodes[a as usize].id.clone(),
                        strong: true,
                        act: true,
                        date: None,
                        seqs: vec![node_seqs[a as usize]],
                    },
                    Unit {
                        key: nodes[b as usize].id.clone(),
                        strong: true,
                        act: true,
                        date: None,
                        seqs: vec![node_seqs[b as usize]],
                    },
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
        from_events(&events, &[], &Params::builtin(), through)
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
