//! Keeping the stored graph current without deriving the whole log again.
//!
//! Every rule of the program reads the evidence of one (from, to) pair only: its groups,
//! its links and unlinks, its route feedback and the domains the two nodes share. So new
//! events change the edges of the pairs they name, and nothing else, with one exception:
//! an edge's recency is measured from its from-node's newest evidence, so a newer session
//! re-weights the other edges of its project (from their stored units, no events read).
//!
//! The stored graph keeps a *pair index* for this (derived state like the edges):
//! `graph_pair_seqs` ("from\0to" → the seqs of the pair's live evidence events) and
//! `graph_pair_newest` ("from\0to" → the date of the pair's newest dated unit).
//!
//! An update: read the events appended since the stamp; the pairs they name (a
//! retraction names its target's pair) are *dirty*; each dirty pair's live events are
//! read back by seq and derived alone (the same [`facts::from_events`] and
//! [`derive::derive_from_facts`] as a full derivation, over the registered nodes and
//! that pair's events); its stored edges are replaced; edges of nodes whose newest date
//! moved are re-weighted ([`derive::reweight`]). All in one write transaction with the
//! new stamp. (Node importance depends on every edge of a node; it is summed when the
//! graph is read whole, so nothing here keeps it.)
//!
//! A full derivation is the reference and still runs when the rules or parameters
//! changed (the fingerprint moved), a node was registered or removed (domains, kinds and
//! which mentions count all change), the pair index is missing, or the batch is large.
//!
//! Architecture Invariant: after [`update`] the stored graph is exactly what a full
//! derivation of the log gives (`mother derive --check`, and the proptest in
//! `tests/incremental.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use redb::{ReadableTable, Table, WriteTransaction};

use super::derive::{self, Edge, GraphDiff};
use super::facts::{self, Facts};
use super::params::Params;
use super::program;
use super::store::{self as graph_store, Stamp};
use crate::error::Error;
use crate::event::log::EventLog;
use crate::event::{EdgeType, Event, StoredEvent};
use crate::store::Store;

/// Batches with more new events than this are derived in full (cheaper than reading
/// back many pairs one by one).
pub const MAX_INCREMENTAL_EVENTS: usize = 50_000;

/// A (from, to) pair of node ids.
pub type Pair = (String, String);

/// The pair index of a graph: which live events each pair's edges come from, and each
/// pair's newest dated evidence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairIndex {
    /// Invariant: each list sorted, without duplicates, not empty.
    pub seqs: BTreeMap<Pair, Vec<u64>>,
    pub newest: BTreeMap<Pair, jiff::civil::Date>,
}

/// The pair index of loaded facts.
pub fn pair_index(facts: &Facts) -> PairIndex {
    let mut index = PairIndex::default();
    let name = |n: u32| facts.nodes[n as usize].id.clone();
    let mut by_pair: BTreeMap<(u32, u32), Vec<u64>> = BTreeMap::new();
    let mut newest: BTreeMap<(u32, u32), jiff::civil::Date> = BTreeMap::new();
    for group in &facts.groups {
        if group.kind == program::G_REGISTRATION {
            continue;
        }
        by_pair.entry((group.from, group.to)).or_default().extend(group.seqs());
        // A drop's date is not evidence of work (as in `facts`: recency ignores it).
        if group.kind == program::G_DROPPED_IMPORT {
            continue;
        }
        if let Some(date) = group.units.iter().filter_map(|u| u.date).max() {
            let entry = newest.entry((group.from, group.to)).or_insert(date);
            *entry = (*entry).max(date);
        }
    }
    for (&(a, _, b), &seq) in &facts.unlinks {
        by_pair.entry((a, b)).or_default().push(seq);
    }
    for (&pair, feedback) in &facts.feedback {
        by_pair.entry(pair).or_default().extend(&feedback.seqs);
    }
    for ((a, b), mut seqs) in by_pair {
        seqs.sort_unstable();
        seqs.dedup();
        index.seqs.insert((name(a), name(b)), seqs);
    }
    for ((a, b), date) in newest {
        index.newest.insert((name(a), name(b)), date);
    }
    index
}

/// The pair an evidence event is about, if it is evidence for the graph.
fn pair_of(event: &Event) -> Option<Pair> {
    match event {
        Event::Mention(m) => Some((m.project.clone(), m.repo.clone())),
        Event::Import(i) => Some((i.project.clone(), i.repo.clone())),
        Event::BenchRun(b) => Some((b.project.clone(), b.repo.clone())),
        Event::LinkAdded(l) => Some((l.from.clone(), l.to.clone())),
        Event::LinkRemoved(l) => Some((l.from.clone(), l.to.clone())),
        Event::RouteFeedback(f) => f.project.as_ref().map(|p| (p.clone(), f.repo.clone())),
        Event::NodeRegistered(_)
        | Event::NodeRemoved(_)
        | Event::Retracted(_)
        | Event::Belief(_)
        | Event::Observation(_)
        | Event::Relation(_) => None,
    }
}

/// What an incremental update did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    pub through_seq: u64,
    /// Pairs whose evidence changed (derived again).
    pub pairs: usize,
    /// Edges re-weighted because their from-node's newest evidence moved.
    pub reweighted_edges: usize,
    pub diff: GraphDiff,
}

/// Why an update fell back to a full derivation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NeedsFull {
    NoGraph,
    ParamsChanged,
    NodesChanged,
    LargeBatch,
}

/// Brings the stored graph from its stamp to the end of the log by deriving only what
/// the new events touch. `Err(NeedsFull)` (inside `Ok`) when only a full derivation can.
pub fn update(store: &Store, params: &Params) -> Result<Result<Update, NeedsFull>, Error> {
    let log = EventLog::new(store);
    let Some((stamped, fingerprint)) = graph_store::stamp(store)? else { return Ok(Err(NeedsFull::NoGraph)) };
    if fingerprint != params.fingerprint {
        return Ok(Err(NeedsFull::ParamsChanged));
    }
    let last = log.last_seq()?.unwrap_or(0);
    if last < stamped {
        return Ok(Err(NeedsFull::NoGraph));
    }
    if last - stamped > MAX_INCREMENTAL_EVENTS as u64 {
        return Ok(Err(NeedsFull::LargeBatch));
    }

    // 1. The pairs the new events touch, and their new events.
    let mut new_seqs: BTreeMap<Pair, Vec<u64>> = BTreeMap::new();
    let mut retracted = Vec::new();
    let mut nodes_changed = false;
    log.visit(stamped + 1..=last, |e| {
        match &e.event {
            Event::NodeRegistered(_) | Event::NodeRemoved(_) => nodes_changed = true,
            Event::Retracted(r) => retracted.push((e.seq, r.target_seq)),
            event => {
                if let Some(pair) = pair_of(event) {
                    new_seqs.entry(pair).or_default().push(e.seq);
                }
            }
        }
        Ok(())
    })?;
    if nodes_changed {
        return Ok(Err(NeedsFull::NodesChanged));
    }
    let mut dirty: BTreeSet<Pair> = new_seqs.keys().cloned().collect();
    let retractions = retracted;
    let targets = log.events_at(retractions.iter().map(|r| r.1).collect())?;
    let target_of: std::collections::HashMap<u64, &StoredEvent> = targets.iter().map(|e| (e.seq, e)).collect();
    for &(retraction, target) in &retractions {
        let Some(target) = target_of.get(&target) else { continue };
        match &target.event {
            // A node's registration or a retraction's retraction: let the full derivation decide.
            Event::NodeRegistered(_) | Event::NodeRemoved(_) | Event::Retracted(_) => {
                return Ok(Err(NeedsFull::NodesChanged));
            }
            // A dropped import is evidence of its pair (the edge it made ends).
            Event::Import(_) => {
                if let Some(pair) = pair_of(&target.event) {
                    new_seqs.entry(pair.clone()).or_default().push(retraction);
                    dirty.insert(pair);
                }
            }
            event => dirty.extend(pair_of(event)),
        }
    }

    let txn = store.begin_write()?;
    let mut tables = Tables::open(&txn)?;
    if tables.stamp()? != Some((stamped, fingerprint)) {
        // Another writer moved the graph meanwhile; let the caller derive in full.
        return Ok(Err(NeedsFull::NoGraph));
    }

    // 2. Each dirty pair's live events, derived alone.
    let mut wanted: Vec<u64> = Vec::new();
    for pair in &dirty {
        wanted.extend(tables.pair_seqs(pair)?);
        wanted.extend(new_seqs.get(pair).into_iter().flatten());
    }
    wanted.sort_unstable();
    wanted.dedup();
    let mut events: Vec<StoredEvent> = log.node_events()?;
    events.extend(log.live_events_at(wanted)?);
    // The events the pairs' retractions name (their imports count as dropped).
    let named: Vec<u64> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Retracted(r) => Some(r.target_seq),
            _ => None,
        })
        .collect();
    let dropped = log.events_of_kind_at(named, crate::event::EventKind::Import)?;
    let facts = facts::from_events(&events, &dropped, params, last);
    let index = pair_index(&facts);

    // 3. New pair index entries; the newest date of every from-node of a dirty pair.
    let mut newest_before: BTreeMap<String, Option<jiff::civil::Date>> = BTreeMap::new();
    for (from, _) in &dirty {
        if !newest_before.contains_key(from) {
            newest_before.insert(from.clone(), tables.node_newest(from)?);
        }
    }
    for pair in &dirty {
        tables.set_pair(pair, index.seqs.get(pair).map(Vec::as_slice), index.newest.get(pair).copied())?;
    }
    let mut newest_after: HashMap<String, Option<jiff::civil::Date>> = HashMap::new();
    for from in newest_before.keys() {
        newest_after.insert(from.clone(), tables.node_newest(from)?);
    }
    let mut facts = facts;
    facts.newest = facts
        .node_index
        .iter()
        .filter_map(|(id, &n)| newest_after.get(id).copied().flatten().map(|d| (n, d)))
        .collect();
    let graph = derive::derive_from_facts(&facts, params);

    // 4. Replace the dirty pairs' edges.
    let in_dirty = |e: &Edge| dirty.contains(&(e.from.clone(), e.to.clone()));
    let mut old_current = Vec::new();
    let mut new_current = Vec::new();
    for (a, b) in &dirty {
        let (current, _ended) = tables.remove_pair(a, b)?;
        old_current.extend(current);
    }
    for e in graph.edges.iter().filter(|e| in_dirty(e)) {
        tables.put_edge(e)?;
        new_current.push(e.clone());
    }
    for e in graph.ended.iter().filter(|e| in_dirty(e)) {
        tables.put_ended(e)?;
    }

    // 5. Re-weight the other edges of nodes whose newest evidence moved.
    let mut reweighted_edges = 0;
    for (from, before) in &newest_before {
        let after = newest_after.get(from).copied().flatten();
        if *before == after {
            continue;
        }
        for (edge, ended) in tables.edges_from(from)? {
            if in_dirty(&edge) {
                continue;
            }
            let fresh = derive::reweight(&edge, params, after);
            if fresh == edge {
                continue;
            }
            reweighted_edges += 1;
            if ended {
                tables.put_ended(&fresh)?;
            } else {
                tables.put_edge(&fresh)?;
                old_current.push(edge);
                new_current.push(fresh);
            }
        }
    }

    // 6. The stamp (node importance is summed when the graph is read: `store::read`).
    tables.set_stamp((last, params.fingerprint))?;
    drop(tables);
    txn.commit()?;

    let diff = derive::diff(&old_current, &new_current, graph_store::REWEIGHT_THRESHOLD);
    Ok(Ok(Update { through_seq: last, pairs: dirty.len(), reweighted_edges, diff }))
}

/// The graph tables, open in one write transaction.
struct Tables<'t> {
    edges: Table<'t, &'static str, &'static [u8]>,
    inbound: Table<'t, &'static str, u8>,
    weights: Table<'t, &'static str, f64>,
    weights_in: Table<'t, &'static str, f64>,
    ended: Table<'t, &'static str, &'static [u8]>,
    meta: Table<'t, &'static str, &'static [u8]>,
    pair_seqs: Table<'t, &'static str, &'static [u8]>,
    pair_newest: Table<'t, &'static str, &'static str>,
}

fn pair_key(a: &str, b: &str) -> String {
    format!("{a}\u{0}{b}")
}

impl<'t> Tables<'t> {
    fn open(txn: &'t WriteTransaction) -> Result<Tables<'t>, Error> {
        Ok(Tables {
            edges: txn.open_table(graph_store::EDGES)?,
            inbound: txn.open_table(graph_store::IN)?,
            weights: txn.open_table(graph_store::WEIGHTS)?,
            weights_in: txn.open_table(graph_store::WEIGHTS_IN)?,
            ended: txn.open_table(graph_store::ENDED)?,
            meta: txn.open_table(graph_store::META)?,
            pair_seqs: txn.open_table(graph_store::PAIR_SEQS)?,
            pair_newest: txn.open_table(graph_store::PAIR_NEWEST)?,
        })
    }

    fn stamp(&self) -> Result<Option<Stamp>, Error> {
        if self.meta.get("format")?.is_none_or(|f| f.value() != graph_store::FORMAT) {
            return Ok(None);
        }
        match self.meta.get("stamp")? {
            Some(v) => Ok(Some(graph_store::decode("stamp", v.value())?)),
            None => Ok(None),
        }
    }

    fn set_stamp(&mut self, stamp: Stamp) -> Result<(), Error> {
        self.meta.insert("stamp", graph_store::encode(&stamp).as_slice())?;
        Ok(())
    }

    fn pair_seqs(&self, (a, b): &Pair) -> Result<Vec<u64>, Error> {
        Ok(self
            .pair_seqs
            .get(pair_key(a, b).as_str())?
            .map(|v| graph_store::unpack_seqs(v.value()))
            .unwrap_or_default())
    }

    fn set_pair(
        &mut self,
        (a, b): &Pair,
        seqs: Option<&[u64]>,
        newest: Option<jiff::civil::Date>,
    ) -> Result<(), Error> {
        let key = pair_key(a, b);
        match seqs {
            Some(seqs) => {
                self.pair_seqs.insert(key.as_str(), graph_store::pack_seqs(seqs).as_slice())?;
            }
            None => {
                self.pair_seqs.remove(key.as_str())?;
            }
        }
        match newest {
            Some(date) => {
                self.pair_newest.insert(key.as_str(), date.to_string().as_str())?;
            }
            None => {
                self.pair_newest.remove(key.as_str())?;
            }
        }
        Ok(())
    }

    /// The newest dated evidence of the pairs from `id`.
    fn node_newest(&self, id: &str) -> Result<Option<jiff::civil::Date>, Error> {
        let p = graph_store::prefix(id);
        let mut newest: Option<String> = None;
        for entry in self.pair_newest.range(p.as_str()..)? {
            let (k, v) = entry?;
            if !k.value().starts_with(&p) {
                break;
            }
            let date = v.value();
            if newest.as_deref().is_none_or(|n| date > n) {
                newest = Some(date.to_string());
            }
        }
        Ok(newest.as_deref().and_then(facts::parse_date))
    }

    /// Removes every edge (current and ended) of the pair; returns them.
    fn remove_pair(&mut self, a: &str, b: &str) -> Result<(Vec<Edge>, Vec<Edge>), Error> {
        let mut current = Vec::new();
        let mut ended = Vec::new();
        for t in EdgeType::ALL {
            let key = graph_store::out_key(a, t, b);
            let key_in = graph_store::out_key(b, t, a);
            if let Some(v) = self.edges.remove(key.as_str())? {
                current.push(graph_store::decode::<Edge>("edge", v.value())?);
            }
            self.weights.remove(key.as_str())?;
            self.inbound.remove(key_in.as_str())?;
            self.weights_in.remove(key_in.as_str())?;
            if let Some(v) = self.ended.remove(key.as_str())? {
                ended.push(graph_store::decode::<Edge>("ended edge", v.value())?);
            }
        }
        Ok((current, ended))
    }

    fn put_edge(&mut self, e: &Edge) -> Result<(), Error> {
        let key = graph_store::out_key(&e.from, e.edge_type, &e.to);
        let key_in = graph_store::out_key(&e.to, e.edge_type, &e.from);
        self.edges.insert(key.as_str(), graph_store::encode(e).as_slice())?;
        self.weights.insert(key.as_str(), e.weight)?;
        self.inbound.insert(key_in.as_str(), 0)?;
        self.weights_in.insert(key_in.as_str(), e.weight)?;
        Ok(())
    }

    fn put_ended(&mut self, e: &Edge) -> Result<(), Error> {
        let key = graph_store::out_key(&e.from, e.edge_type, &e.to);
        self.ended.insert(key.as_str(), graph_store::encode(e).as_slice())?;
        Ok(())
    }

    /// Every stored edge out of `id`: (edge, whether it ended).
    fn edges_from(&self, id: &str) -> Result<Vec<(Edge, bool)>, Error> {
        let p = graph_store::prefix(id);
        let mut out = Vec::new();
        for (table, ended) in [(&self.edges, false), (&self.ended, true)] {
            for entry in table.range(p.as_str()..)? {
                let (k, v) = entry?;
                if !k.value().starts_with(&p) {
                    break;
                }
                out.push((graph_store::decode::<Edge>("edge", v.value())?, ended));
            }
        }
        Ok(out)
    }
}
