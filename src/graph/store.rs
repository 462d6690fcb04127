//! The materialised graph in the mother store: derived edges and provenance, stamped
//! with the last event seq and the parameters they were derived from.
//!
//! Tables: `graph_edges` ("from\0TYPE\0to" → edge), `graph_in` ("to\0TYPE\0from" → ()),
//! `graph_nodes` (id → node; its `importance` is summed from the edges when read), `graph_weights` ("from\0TYPE\0to" → weight),
//! `graph_meta` ("stamp" → (seq, fingerprint)), `graph_ended` ("from\0TYPE\0to" → an edge
//! whose evidence ended it: history, read by `graph --all` and `explain` only).
//!
//! Architecture Invariant: the stored graph is derived state. A graph is written whole,
//! in one transaction, and never over a graph stamped with a later seq.

use redb::{ReadableTable, TableDefinition};

use super::derive::{self, Edge, Graph, GraphDiff, GraphNode};
use super::facts;
use super::incremental::{self, PairIndex};
use super::params::Params;
use crate::error::{Error, StoreError};
use crate::event::EdgeType;
use crate::event::log::EventLog;
use crate::store::Store;

pub(super) const EDGES: TableDefinition<&str, &[u8]> = TableDefinition::new("graph_edges");
pub(super) const IN: TableDefinition<&str, u8> = TableDefinition::new("graph_in");
pub(super) const NODES: TableDefinition<&str, &[u8]> = TableDefinition::new("graph_nodes");
pub(super) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("graph_meta");
/// "from\0TYPE\0to" → weight: the adjacency alone, for path searches that need no provenance.
pub(super) const WEIGHTS: TableDefinition<&str, f64> = TableDefinition::new("graph_weights");
/// "to\0TYPE\0from" → weight: the same adjacency read backwards (bidirectional path search).
pub(super) const WEIGHTS_IN: TableDefinition<&str, f64> = TableDefinition::new("graph_weights_in");
/// The layout of the graph tables. A store whose graph was written in another layout
/// has no usable graph (`stamp` is `None`), so the next refresh re-derives it.
pub(super) const FORMAT: &[u8] = b"graph-4";
/// "from\0TYPE\0to" → an edge that ended (history).
pub(super) const ENDED: TableDefinition<&str, &[u8]> = TableDefinition::new("graph_ended");

/// "from\0to" → the seqs of the pair's live evidence events, packed little-endian u64
/// (the pair index of `graph::incremental`).
pub(super) const PAIR_SEQS: TableDefinition<&str, &[u8]> = TableDefinition::new("graph_pair_seqs");
/// "from\0to" → the date (YYYY-MM-DD) of the pair's newest dated evidence unit.
pub(super) const PAIR_NEWEST: TableDefinition<&str, &str> = TableDefinition::new("graph_pair_newest");

pub(super) fn pack_seqs(seqs: &[u64]) -> Vec<u8> {
    seqs.iter().flat_map(|s| s.to_le_bytes()).collect()
}

pub(super) fn unpack_seqs(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ 64 * 1024 * 1024 }>()
}

pub(super) fn encode<T: serde::Serialize>(value: &T) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, config()).expect("encoding an in-memory graph value")
}

pub(super) fn decode<T: serde::de::DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T, Error> {
    bincode::serde::decode_from_slice(bytes, config()).map(|(v, _)| v).map_err(|e| {
        Error::Store(StoreError::Storage(format!("stored graph {what} is corrupted: {e} (run `patina mother derive`)")))
    })
}

pub(super) fn out_key(from: &str, t: EdgeType, to: &str) -> String {
    format!("{from}\u{0}{t}\u{0}{to}")
}

pub(super) fn prefix(id: &str) -> String {
    format!("{id}\u{0}")
}

/// The stamp of the stored graph: (through seq, parameters fingerprint).
pub type Stamp = (u64, [u8; 32]);

pub fn stamp(store: &Store) -> Result<Option<Stamp>, Error> {
    let txn = store.begin_read()?;
    let meta = match txn.open_table(META) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if meta.get("format")?.is_none_or(|f| f.value() != FORMAT) {
        return Ok(None);
    }
    match meta.get("stamp")? {
        Some(v) => Ok(Some(decode("stamp", v.value())?)),
        None => Ok(None),
    }
}

/// Writes `graph` whole with its pair index, unless the stored graph is stamped with a
/// later seq.
pub fn write(store: &Store, graph: &Graph, pairs: &PairIndex) -> Result<bool, Error> {
    let txn = store.begin_write()?;
    {
        let meta = txn.open_table(META)?;
        if let Some(v) = meta.get("stamp")? {
            let (seq, _): Stamp = decode("stamp", v.value())?;
            if seq > graph.through_seq {
                return Ok(false);
            }
        }
    }
    txn.delete_table(EDGES)?;
    txn.delete_table(IN)?;
    txn.delete_table(NODES)?;
    txn.delete_table(WEIGHTS)?;
    txn.delete_table(WEIGHTS_IN)?;
    txn.delete_table(ENDED)?;
    txn.delete_table(PAIR_SEQS)?;
    txn.delete_table(PAIR_NEWEST)?;
    {
        let mut pair_seqs = txn.open_table(PAIR_SEQS)?;
        for ((a, b), seqs) in &pairs.seqs {
            pair_seqs.insert(format!("{a}\u{0}{b}").as_str(), pack_seqs(seqs).as_slice())?;
        }
        let mut pair_newest = txn.open_table(PAIR_NEWEST)?;
        for ((a, b), date) in &pairs.newest {
            pair_newest.insert(format!("{a}\u{0}{b}").as_str(), date.to_string().as_str())?;
        }
        let mut ended = txn.open_table(ENDED)?;
        for e in &graph.ended {
            ended.insert(out_key(&e.from, e.edge_type, &e.to).as_str(), encode(e).as_slice())?;
        }
        let mut edges = txn.open_table(EDGES)?;
        let mut inbound = txn.open_table(IN)?;
        let mut weights = txn.open_table(WEIGHTS)?;
        let mut weights_in = txn.open_table(WEIGHTS_IN)?;
        for e in &graph.edges {
            let key = out_key(&e.from, e.edge_type, &e.to);
            edges.insert(key.as_str(), encode(e).as_slice())?;
            weights.insert(key.as_str(), e.weight)?;
            let key_in = out_key(&e.to, e.edge_type, &e.from);
            inbound.insert(key_in.as_str(), 0)?;
            weights_in.insert(key_in.as_str(), e.weight)?;
        }
        let mut nodes = txn.open_table(NODES)?;
        for n in &graph.nodes {
            nodes.insert(n.id.as_str(), encode(n).as_slice())?;
        }
        let mut meta = txn.open_table(META)?;
        let stamp: Stamp = (graph.through_seq, graph.fingerprint);
        meta.insert("stamp", encode(&stamp).as_slice())?;
        meta.insert("format", FORMAT)?;
    }
    txn.commit()?;
    Ok(true)
}

/// The stored graph, whole.
pub fn read(store: &Store) -> Result<Option<Graph>, Error> {
    let Some((through_seq, fingerprint)) = stamp(store)? else { return Ok(None) };
    let txn = store.begin_read()?;
    let mut graph = Graph { through_seq, fingerprint, nodes: Vec::new(), edges: Vec::new(), ended: Vec::new() };
    for entry in txn.open_table(NODES)?.iter()? {
        let (_, v) = entry?;
        graph.nodes.push(decode::<GraphNode>("node", v.value())?);
    }
    for entry in txn.open_table(EDGES)?.iter()? {
        let (_, v) = entry?;
        graph.edges.push(decode::<Edge>("edge", v.value())?);
    }
    graph.edges.sort_by(|x, y| (&x.from, x.edge_type, &x.to).cmp(&(&y.from, y.edge_type, &y.to)));
    match txn.open_table(ENDED) {
        Ok(table) => {
            for entry in table.iter()? {
                let (_, v) = entry?;
                graph.ended.push(decode::<Edge>("ended edge", v.value())?);
            }
        }
        Err(redb::TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(e.into()),
    }
    graph.ended.sort_by(|x, y| (&x.from, x.edge_type, &x.to).cmp(&(&y.from, y.edge_type, &y.to)));
    // Importance is summed here, not kept: an incremental update changes a few edges of
    // a node, and the sum must be the one a full derivation gives.
    derive::set_importance(&mut graph.nodes, &graph.edges);
    Ok(Some(graph))
}

/// One stored edge.
pub fn edge(store: &Store, from: &str, t: EdgeType, to: &str) -> Result<Option<Edge>, Error> {
    let txn = store.begin_read()?;
    let table = match txn.open_table(EDGES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match table.get(out_key(from, t, to).as_str())? {
        Some(v) => Ok(Some(decode("edge", v.value())?)),
        None => Ok(None),
    }
}

/// One stored edge that ended (history).
pub fn ended_edge(store: &Store, from: &str, t: EdgeType, to: &str) -> Result<Option<Edge>, Error> {
    let txn = store.begin_read()?;
    let table = match txn.open_table(ENDED) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match table.get(out_key(from, t, to).as_str())? {
        Some(v) => Ok(Some(decode("ended edge", v.value())?)),
        None => Ok(None),
    }
}

/// Edges out of `id` (routing direction), in key order.
pub fn out_edges(store: &Store, id: &str) -> Result<Vec<Edge>, Error> {
    let txn = store.begin_read()?;
    let table = match txn.open_table(EDGES) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let p = prefix(id);
    let mut out = Vec::new();
    for entry in table.range(p.as_str()..)? {
        let (k, v) = entry?;
        if !k.value().starts_with(&p) {
            break;
        }
        out.push(decode("edge", v.value())?);
    }
    Ok(out)
}

/// Edges into `id`, in key order.
pub fn in_edges(store: &Store, id: &str) -> Result<Vec<Edge>, Error> {
    let txn = store.begin_read()?;
    let (inbound, edges) = match (txn.open_table(IN), txn.open_table(EDGES)) {
        (Ok(i), Ok(e)) => (i, e),
        (Err(redb::TableError::TableDoesNotExist(_)), _) | (_, Err(redb::TableError::TableDoesNotExist(_))) => {
            return Ok(Vec::new());
        }
        (Err(e), _) | (_, Err(e)) => return Err(e.into()),
    };
    let p = prefix(id);
    let mut out = Vec::new();
    for entry in inbound.range(p.as_str()..)? {
        let (k, _) = entry?;
        let key = k.value();
        if !key.starts_with(&p) {
            break;
        }
        let mut parts = key.splitn(3, '\u{0}');
        let (Some(to), Some(t), Some(from)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let Ok(t) = EdgeType::parse(t) else { continue };
        if let Some(v) = edges.get(out_key(from, t, to).as_str())? {
            out.push(decode("edge", v.value())?);
        }
    }
    Ok(out)
}

/// A read snapshot of the adjacency (targets and weights, no provenance), for searches
/// that expand many nodes.
pub struct Adjacency {
    out: Option<redb::ReadOnlyTable<&'static str, f64>>,
    into: Option<redb::ReadOnlyTable<&'static str, f64>>,
}

impl Adjacency {
    pub fn open(store: &Store) -> Result<Adjacency, Error> {
        let txn = store.begin_read()?;
        let open = |table| match txn.open_table(table) {
            Ok(table) => Ok(Some(table)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(e),
        };
        Ok(Adjacency { out: open(WEIGHTS)?, into: open(WEIGHTS_IN)? })
    }

    /// (type, to, weight) of every edge out of `id`.
    pub fn out(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        scan(self.out.as_ref(), id)
    }

    /// (type, from, weight) of every edge into `id`.
    pub fn into(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        scan(self.into.as_ref(), id)
    }
}

fn scan(
    table: Option<&redb::ReadOnlyTable<&'static str, f64>>,
    id: &str,
) -> Result<Vec<(EdgeType, String, f64)>, Error> {
    let Some(table) = table else { return Ok(Vec::new()) };
    let p = prefix(id);
    let mut out = Vec::new();
    for entry in table.range(p.as_str()..)? {
        let (k, w) = entry?;
        let Some(rest) = k.value().strip_prefix(&p) else { break };
        let Some((t, other)) = rest.split_once('\u{0}') else { continue };
        let Ok(t) = EdgeType::parse(t) else { continue };
        out.push((t, other.to_string(), w.value()));
    }
    Ok(out)
}

/// What a refresh did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Refresh {
    /// Whether the graph was re-derived (false: it was current).
    pub derived: bool,
    /// Whether only the pairs the new events touch were derived (see `graph::incremental`).
    pub incremental: bool,
    /// Pairs derived again by an incremental refresh.
    pub pairs: usize,
    pub through_seq: u64,
    pub edges: usize,
    pub diff: GraphDiff,
}

/// Weight changes smaller than this are not reported as changes.
pub const REWEIGHT_THRESHOLD: f64 = 0.05;

/// Whether the stored graph was derived from the whole log with these parameters.
pub fn is_current(store: &Store, params: &Params) -> Result<bool, Error> {
    let last = EventLog::new(store).last_seq()?.unwrap_or(0);
    Ok(stamp(store)? == Some((last, params.fingerprint)))
}

/// Brings the stored graph up to the log: incrementally when only evidence events came
/// since its stamp (`graph::incremental`), else by deriving the whole log.
pub fn refresh(store: &Store, params: &Params) -> Result<Refresh, Error> {
    let log = EventLog::new(store);
    if is_current(store, params)? {
        let edges = edge_count(store)?;
        let through_seq = log.last_seq()?.unwrap_or(0);
        return Ok(Refresh { through_seq, edges, ..Refresh::default() });
    }
    // The stored graph is derived state: one that no longer decodes is derived again.
    if let Ok(Ok(update)) = incremental::update(store, params) {
        let edges = edge_count(store)?;
        return Ok(Refresh {
            derived: true,
            incremental: true,
            pairs: update.pairs,
            through_seq: update.through_seq,
            edges,
            diff: update.diff,
        });
    }
    refresh_full(store, params)
}

/// Derives the whole log and stores the graph.
pub fn refresh_full(store: &Store, params: &Params) -> Result<Refresh, Error> {
    let log = EventLog::new(store);
    let old = read(store).ok().flatten().map(|g| g.edges).unwrap_or_default();
    let facts = facts::load(&log, params)?;
    let graph = derive::derive_from_facts(&facts, params);
    let diff = derive::diff(&old, &graph.edges, REWEIGHT_THRESHOLD);
    write(store, &graph, &incremental::pair_index(&facts))?;
    Ok(Refresh { derived: true, through_seq: graph.through_seq, edges: graph.edges.len(), diff, ..Refresh::default() })
}

/// The graph as of the log without writing: the stored graph when it is current, else
/// derived in memory (for read-only stores).
pub fn current(store: &Store, params: &Params) -> Result<Graph, Error> {
    if is_current(store, params)?
        && let Ok(Some(graph)) = read(store)
    {
        return Ok(graph);
    }
    // Stale, or no longer decodes (derived state): derive it.
    derive::derive(&EventLog::new(store), params)
}

pub fn edge_count(store: &Store) -> Result<usize, Error> {
    let txn = store.begin_read()?;
    match txn.open_table(EDGES) {
        Ok(t) => Ok(redb::ReadableTableMetadata::len(&t)? as usize),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
        Err(e) => Err(e.into()),
    }
}
