//! The stored graph's adjacency in memory, for processes that answer many graph queries
//! (the MCP server, the daemon, benches): neighbours and paths without a store read.
//!
//! [`MemoryGraph::load`] copies the current edges once (ids interned to `u32`; per edge
//! its type, weight and the rules that fired); [`GraphCache`] keeps one per process and
//! loads it again when the stored graph's stamp moves.
//!
//! Architecture Invariant: a `MemoryGraph` answers exactly what [`super::query`] answers
//! on the store it was loaded from at its stamp (same neighbours in the same order, same
//! paths); a test checks both on random graphs.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use redb::ReadableTable;

use super::derive::Edge;
use super::program::RULES;
use super::query::{self, Direction, Hop, Neighbor};
use super::store::{self as graph_store, Stamp};
use crate::error::Error;
use crate::event::EdgeType;
use crate::store::Store;

/// One edge as seen from one of its ends.
#[derive(Debug, Clone, Copy)]
struct Link {
    other: u32,
    edge_type: EdgeType,
    weight: f64,
    /// Bit `r` set: rule `r` of [`RULES`] fired.
    rules: u16,
}

/// The current edges of a stored graph, as adjacency lists.
#[derive(Debug, Default)]
pub struct MemoryGraph {
    stamp: Option<Stamp>,
    ids: Vec<String>,
    index: HashMap<String, u32>,
    /// Invariant: each list sorted by (type name, other id), the store's key order.
    out: Vec<Vec<Link>>,
    into: Vec<Vec<Link>>,
}

impl MemoryGraph {
    /// Loads the current edges of the stored graph (none when there is no graph).
    pub fn load(store: &Store) -> Result<MemoryGraph, Error> {
        let stamp = graph_store::stamp(store)?;
        let mut graph = MemoryGraph { stamp, ..MemoryGraph::default() };
        if stamp.is_none() {
            return Ok(graph);
        }
        let txn = store.begin_read()?;
        let table = match txn.open_table(graph_store::EDGES) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(graph),
            Err(e) => return Err(e.into()),
        };
        for entry in table.iter()? {
            let (_, v) = entry?;
            let edge: Edge = graph_store::decode("edge", v.value())?;
            let rules = edge
                .firings
                .iter()
                .filter_map(|f| RULES.iter().position(|r| r.name == f.rule))
                .fold(0u16, |bits, r| bits | (1 << r));
            let (from, to) = (graph.intern(&edge.from), graph.intern(&edge.to));
            let link = |other| Link { other, edge_type: edge.edge_type, weight: edge.weight, rules };
            graph.out[from as usize].push(link(to));
            graph.into[to as usize].push(link(from));
        }
        let ids = &graph.ids;
        let order = |a: &Link, b: &Link| {
            (a.edge_type.to_string(), &ids[a.other as usize]).cmp(&(b.edge_type.to_string(), &ids[b.other as usize]))
        };
        for list in graph.out.iter_mut().chain(graph.into.iter_mut()) {
            list.sort_by(order);
        }
        Ok(graph)
    }

    fn intern(&mut self, id: &str) -> u32 {
        if let Some(&n) = self.index.get(id) {
            return n;
        }
        let n = self.ids.len() as u32;
        self.ids.push(id.to_string());
        self.index.insert(id.to_string(), n);
        self.out.push(Vec::new());
        self.into.push(Vec::new());
        n
    }

    /// The stamp of the stored graph this was loaded from.
    pub fn stamp(&self) -> Option<Stamp> {
        self.stamp
    }

    pub fn edge_count(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    /// The neighbours of `id`, strongest first (ties by id): as [`query::neighbors`].
    pub fn neighbors(&self, id: &str, direction: Direction, types: &[EdgeType]) -> Vec<Neighbor> {
        let Some(&n) = self.index.get(id) else { return Vec::new() };
        let keep = |l: &&Link| types.is_empty() || types.contains(&l.edge_type);
        let neighbor = |l: &Link, direction: &'static str| Neighbor {
            id: self.ids[l.other as usize].clone(),
            direction,
            edge_type: l.edge_type,
            weight: l.weight,
            rules: RULES
                .iter()
                .enumerate()
                .filter(|(r, _)| l.rules & (1 << r) != 0)
                .map(|(_, r)| r.name.to_string())
                .collect(),
        };
        let mut out = Vec::new();
        if direction != Direction::In {
            out.extend(self.out[n as usize].iter().filter(keep).map(|l| neighbor(l, "out")));
        }
        if direction != Direction::Out {
            out.extend(self.into[n as usize].iter().filter(keep).map(|l| neighbor(l, "in")));
        }
        out.sort_by(|a, b| b.weight.partial_cmp(&a.weight).unwrap_or(Ordering::Equal).then(a.id.cmp(&b.id)));
        out
    }

    /// The cheapest directed path of at most `max_hops` edges: as [`query::path`].
    pub fn path(&self, from: &str, to: &str, max_hops: usize) -> Result<Option<Vec<Hop>>, Error> {
        query::cheapest_path(self, from, to, max_hops)
    }

    fn list(&self, lists: &[Vec<Link>], id: &str) -> Vec<(EdgeType, String, f64)> {
        let Some(&n) = self.index.get(id) else { return Vec::new() };
        lists[n as usize].iter().map(|l| (l.edge_type, self.ids[l.other as usize].clone(), l.weight)).collect()
    }
}

impl query::Adjacent for MemoryGraph {
    fn out(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        Ok(self.list(&self.out, id))
    }
    fn into(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        Ok(self.list(&self.into, id))
    }
}

/// One [`MemoryGraph`] per process, loaded again when the stored stamp moves.
#[derive(Debug, Default)]
pub struct GraphCache {
    current: Mutex<Option<Arc<MemoryGraph>>>,
}

impl GraphCache {
    /// The in-memory graph of `store` at its current stamp.
    pub fn get(&self, store: &Store) -> Result<Arc<MemoryGraph>, Error> {
        let stamp = graph_store::stamp(store)?;
        let mut current = self.current.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(graph) = current.as_ref().filter(|g| g.stamp == stamp) {
            return Ok(graph.clone());
        }
        let graph = Arc::new(MemoryGraph::load(store)?);
        *current = Some(graph.clone());
        Ok(graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::log::{EventLog, NewEvent};
    use crate::event::{Event, LinkAdded, NodeKind, NodeRegistered, Source};
    use crate::graph::Params;
    use crate::store::OpenOptions;
    use proptest::prelude::*;

    fn store_with(links: &[(u8, u8, u8, u8)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
        let mut events: Vec<NewEvent> = (0..12)
            .map(|i| {
                NewEvent::new(
                    Source::Cli,
                    Event::NodeRegistered(NodeRegistered {
                        id: format!("n{i}"),
                        kind: if i < 3 { NodeKind::Project } else { NodeKind::Reference },
                        path: None,
                        domains: vec![["rust", "search", "db"][i % 3].to_string()],
                        summary: None,
                        aliases: vec![],
                        packages: vec![],
                    }),
                )
            })
            .collect();
        for &(a, b, t, w) in links {
            events.push(NewEvent::new(
                Source::Cli,
                Event::LinkAdded(LinkAdded {
                    from: format!("n{}", a % 12),
                    edge_type: EdgeType::ALL[t as usize % 5],
                    to: format!("n{}", b % 12),
                    evidence: None,
                    weight: Some(0.05 + (w % 10) as f32 / 10.0),
                }),
            ));
        }
        EventLog::new(&store).append(events).unwrap();
        graph_store::refresh(&store, &Params::builtin()).unwrap();
        (dir, store)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn answers_what_the_store_answers(links in proptest::collection::vec((0..12u8, 0..12u8, 0..5u8, 0..10u8), 0..60)) {
            let (_dir, store) = store_with(&links);
            let memory = MemoryGraph::load(&store).unwrap();
            prop_assert_eq!(memory.edge_count(), graph_store::edge_count(&store).unwrap());
            for i in 0..13 {
                let id = format!("n{i}");
                for direction in [Direction::Out, Direction::In, Direction::Both] {
                    for types in [vec![], vec![EdgeType::Uses, EdgeType::Domain]] {
                        let a = serde_json::to_value(memory.neighbors(&id, direction, &types)).unwrap();
                        let b = serde_json::to_value(query::neighbors(&store, &id, direction, &types).unwrap()).unwrap();
                        prop_assert_eq!(a, b);
                    }
                }
                for j in [0, 5, 11] {
                    let to = format!("n{j}");
                    for hops in [1, 2, 4] {
                        prop_assert_eq!(memory.path(&id, &to, hops).unwrap(), query::path(&store, &id, &to, hops).unwrap());
                    }
                }
            }
        }
    }

    #[test]
    fn the_cache_loads_again_when_the_stamp_moves() {
        let (_dir, store) = store_with(&[(0, 3, 0, 5)]);
        let cache = GraphCache::default();
        let first = cache.get(&store).unwrap();
        assert!(Arc::ptr_eq(&first, &cache.get(&store).unwrap()), "same stamp, same graph");
        assert_eq!(first.neighbors("n0", Direction::Out, &[EdgeType::Uses]).len(), 1);
        let link =
            LinkAdded { from: "n0".into(), edge_type: EdgeType::Uses, to: "n4".into(), evidence: None, weight: None };
        EventLog::new(&store).append([NewEvent::new(Source::Cli, Event::LinkAdded(link))]).unwrap();
        graph_store::refresh(&store, &Params::builtin()).unwrap();
        let second = cache.get(&store).unwrap();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.neighbors("n0", Direction::Out, &[EdgeType::Uses]).len(), 2);
    }
}
