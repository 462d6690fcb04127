//! Reading the materialised graph: neighbours, weighted paths, whole-graph figures.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use serde::Serialize;

use super::derive::{Edge, Graph};
use super::store;
use crate::error::Error;
use crate::event::EdgeType;
use crate::store::Store;

/// Which edges of a node to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Out,
    In,
    Both,
}

impl Direction {
    pub fn parse(given: &str) -> Option<Direction> {
        match given.to_ascii_lowercase().as_str() {
            "out" => Some(Direction::Out),
            "in" => Some(Direction::In),
            "both" => Some(Direction::Both),
            _ => None,
        }
    }
}

/// A neighbour of a node and the edge that joins them.
#[derive(Debug, Clone, Serialize)]
pub struct Neighbor {
    pub id: String,
    /// "out" (node → neighbour) or "in" (neighbour → node).
    pub direction: &'static str,
    pub edge_type: EdgeType,
    pub weight: f64,
    pub rules: Vec<String>,
}

/// The neighbours of `id`, strongest first (ties by id).
pub fn neighbors(store: &Store, id: &str, direction: Direction, types: &[EdgeType]) -> Result<Vec<Neighbor>, Error> {
    let keep = |e: &Edge| types.is_empty() || types.contains(&e.edge_type);
    let mut out = Vec::new();
    if direction != Direction::In {
        for e in store::out_edges(store, id)?.into_iter().filter(keep) {
            out.push(Neighbor {
                id: e.to.clone(),
                direction: "out",
                edge_type: e.edge_type,
                weight: e.weight,
                rules: e.firings.iter().map(|f| f.rule.clone()).collect(),
            });
        }
    }
    if direction != Direction::Out {
        for e in store::in_edges(store, id)?.into_iter().filter(keep) {
            out.push(Neighbor {
                id: e.from.clone(),
                direction: "in",
                edge_type: e.edge_type,
                weight: e.weight,
                rules: e.firings.iter().map(|f| f.rule.clone()).collect(),
            });
        }
    }
    out.sort_by(|a, b| b.weight.partial_cmp(&a.weight).unwrap_or(Ordering::Equal).then(a.id.cmp(&b.id)));
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct State {
    cost: f64,
    hops: usize,
    node: usize,
}

impl Eq for State {}
impl Ord for State {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.partial_cmp(&self.cost).unwrap_or(Ordering::Equal).then(other.hops.cmp(&self.hops))
    }
}
impl PartialOrd for State {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A hop of a path: (from, type, to, weight).
pub type Hop = (String, EdgeType, String, f64);

/// The cheapest directed path from `from` to `to` of at most `max_hops` edges, where an
/// edge of weight w costs 1/w (strong edges are cheap). `None` if there is none.
///
/// Plain Dijkstra first; its path is optimal under the hop limit whenever it respects it.
/// Otherwise a search over (node, hops) states finds the cheapest path within the limit.
pub fn path(store: &Store, from: &str, to: &str, max_hops: usize) -> Result<Option<Vec<Hop>>, Error> {
    if from == to {
        return Ok(Some(Vec::new()));
    }
    let adjacency = store::Adjacency::open(store)?;
    if let Some(found) = search(&adjacency, from, to, None)? {
        if found.len() <= max_hops {
            return Ok(Some(found));
        }
        return search(&adjacency, from, to, Some(max_hops));
    }
    Ok(None)
}

fn search(
    adjacency: &store::Adjacency,
    from: &str,
    to: &str,
    max_hops: Option<usize>,
) -> Result<Option<Vec<Hop>>, Error> {
    let mut ids: Vec<String> = vec![from.to_string()];
    let mut index: HashMap<String, usize> = HashMap::from([(from.to_string(), 0)]);
    // With a hop limit, states are (node, hops); without, (node, 0).
    let layer = |hops: usize| if max_hops.is_some() { hops } else { 0 };
    let mut best: HashMap<(usize, usize), f64> = HashMap::from([((0, 0), 0.0)]);
    let mut came: HashMap<(usize, usize), (usize, usize, EdgeType, f64)> = HashMap::new();
    let mut expanded: HashMap<usize, Vec<(EdgeType, String, f64)>> = HashMap::new();
    let mut heap = BinaryHeap::from([State { cost: 0.0, hops: 0, node: 0 }]);
    while let Some(State { cost, hops, node }) = heap.pop() {
        let state = (node, layer(hops));
        if best.get(&state).is_some_and(|b| *b < cost) {
            continue;
        }
        if ids[node] == to {
            let mut hops_out = Vec::new();
            let mut at = state;
            while let Some(&(prev, prev_layer, t, w)) = came.get(&at) {
                hops_out.push((ids[prev].clone(), t, ids[at.0].clone(), w));
                at = (prev, prev_layer);
            }
            hops_out.reverse();
            return Ok(Some(hops_out));
        }
        if max_hops.is_some_and(|m| hops >= m) {
            continue;
        }
        let out = match expanded.entry(node) {
            std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(adjacency.out(&ids[node])?).clone(),
        };
        for (t, target, weight) in out {
            if weight <= 0.0 {
                continue;
            }
            let next = match index.get(&target) {
                Some(&i) => i,
                None => {
                    ids.push(target.clone());
                    index.insert(target, ids.len() - 1);
                    ids.len() - 1
                }
            };
            let next_cost = cost + 1.0 / weight;
            let next_state = (next, layer(hops + 1));
            if best.get(&next_state).is_none_or(|b| next_cost < *b) {
                best.insert(next_state, next_cost);
                came.insert(next_state, (node, layer(hops), t, weight));
                heap.push(State { cost: next_cost, hops: hops + 1, node: next });
            }
        }
    }
    Ok(None)
}

/// Whole-graph figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GraphStats {
    pub nodes: usize,
    pub edges: usize,
    pub edges_by_type: BTreeMap<String, usize>,
    /// edges / (nodes · (nodes − 1)).
    pub density: f64,
    /// Weakly connected components, isolated nodes included.
    pub components: usize,
    pub largest_component: usize,
    pub isolated_nodes: usize,
    pub through_seq: u64,
}

pub fn stats(graph: &Graph) -> GraphStats {
    let n = graph.nodes.len();
    let index: HashMap<&str, usize> = graph.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut degree = vec![0usize; n];
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    for e in &graph.edges {
        *by_type.entry(e.edge_type.to_string()).or_default() += 1;
        if let (Some(&a), Some(&b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            degree[a] += 1;
            degree[b] += 1;
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra] = rb;
            }
        }
    }
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    for i in 0..n {
        let root = find(&mut parent, i);
        *sizes.entry(root).or_default() += 1;
    }
    GraphStats {
        nodes: n,
        edges: graph.edges.len(),
        edges_by_type: by_type,
        density: if n > 1 { graph.edges.len() as f64 / (n * (n - 1)) as f64 } else { 0.0 },
        components: sizes.len(),
        largest_component: sizes.values().copied().max().unwrap_or(0),
        isolated_nodes: degree.iter().filter(|d| **d == 0).count(),
        through_seq: graph.through_seq,
    }
}
