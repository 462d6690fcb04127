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
/// Bidirectional Dijkstra first (from `from` along out-edges and from `to` along
/// in-edges, meeting in the middle: on a dense graph it settles a small fraction of the
/// nodes plain Dijkstra does); its path is optimal under the hop limit whenever it
/// respects it. Otherwise a search over (node, hops) states finds the cheapest path
/// within the limit.
pub fn path(store: &Store, from: &str, to: &str, max_hops: usize) -> Result<Option<Vec<Hop>>, Error> {
    cheapest_path(&store::Adjacency::open(store)?, from, to, max_hops)
}

/// What a path search reads: a node's out-edges and in-edges as (type, other end, weight).
pub(crate) trait Adjacent {
    fn out(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error>;
    fn into(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error>;
}

impl Adjacent for store::Adjacency {
    fn out(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        store::Adjacency::out(self, id)
    }
    fn into(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
        store::Adjacency::into(self, id)
    }
}

pub(crate) fn cheapest_path(
    adjacency: &impl Adjacent,
    from: &str,
    to: &str,
    max_hops: usize,
) -> Result<Option<Vec<Hop>>, Error> {
    if from == to {
        return Ok(Some(Vec::new()));
    }
    match bidirectional(adjacency, from, to)? {
        Some(found) if found.len() <= max_hops => Ok(Some(found)),
        Some(_) => search(adjacency, from, to, Some(max_hops)),
        None => Ok(None),
    }
}

/// A queue entry of the bidirectional search: cheapest first, then by node id (so equal
/// costs resolve the same way every time).
#[derive(Debug, Clone, PartialEq)]
struct Frontier {
    cost: f64,
    node: String,
}

impl Eq for Frontier {}
impl Ord for Frontier {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.partial_cmp(&self.cost).unwrap_or(Ordering::Equal).then_with(|| other.node.cmp(&self.node))
    }
}
impl PartialOrd for Frontier {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One direction of the bidirectional search.
struct Side {
    dist: HashMap<String, f64>,
    /// Forward: node → (previous node, type, weight) of the edge previous → node.
    /// Backward: node → (next node, type, weight) of the edge node → next.
    via: HashMap<String, (String, EdgeType, f64)>,
    settled: std::collections::HashSet<String>,
    queue: BinaryHeap<Frontier>,
}

impl Side {
    fn new(start: &str) -> Side {
        Side {
            dist: HashMap::from([(start.to_string(), 0.0)]),
            via: HashMap::new(),
            settled: Default::default(),
            queue: BinaryHeap::from([Frontier { cost: 0.0, node: start.to_string() }]),
        }
    }

    fn top(&self) -> f64 {
        self.queue.peek().map_or(f64::INFINITY, |f| f.cost)
    }
}

fn bidirectional(adjacency: &impl Adjacent, from: &str, to: &str) -> Result<Option<Vec<Hop>>, Error> {
    let mut sides = [Side::new(from), Side::new(to)];
    // The cheapest complete path seen so far: (cost, meeting node).
    let mut best: Option<(f64, String)> = None;
    loop {
        let (f, b) = (sides[0].top(), sides[1].top());
        // No path through an unsettled node can beat `best` once the two frontiers sum
        // to at least its cost; an empty side makes the sum infinite.
        if f + b >= best.as_ref().map_or(f64::INFINITY, |(c, _)| *c) {
            break;
        }
        let forward = f <= b;
        let (this, other) = if forward { (0, 1) } else { (1, 0) };
        let Some(Frontier { cost, node }) = sides[this].queue.pop() else { break };
        if !sides[this].settled.insert(node.clone()) {
            continue;
        }
        let edges = if forward { adjacency.out(&node)? } else { adjacency.into(&node)? };
        for (t, next, weight) in edges {
            if weight <= 0.0 || sides[this].settled.contains(&next) {
                continue;
            }
            let next_cost = cost + 1.0 / weight;
            if sides[this].dist.get(&next).is_none_or(|d| next_cost < *d) {
                sides[this].dist.insert(next.clone(), next_cost);
                sides[this].via.insert(next.clone(), (node.clone(), t, weight));
                sides[this].queue.push(Frontier { cost: next_cost, node: next.clone() });
            }
            if let Some(rest) = sides[other].dist.get(&next) {
                let total = sides[this].dist[&next] + rest;
                if best.as_ref().is_none_or(|(c, m)| total < *c || (total == *c && next < *m)) {
                    best = Some((total, next));
                }
            }
        }
        // The start of the other side may be reached directly.
        if let Some(rest) = sides[other].dist.get(&node) {
            let total = cost + rest;
            if best.as_ref().is_none_or(|(c, m)| total < *c || (total == *c && node < *m)) {
                best = Some((total, node));
            }
        }
    }
    let Some((_, meet)) = best else { return Ok(None) };
    let mut hops = Vec::new();
    let mut at = meet.clone();
    while let Some((prev, t, w)) = sides[0].via.get(&at) {
        hops.push((prev.clone(), *t, at.clone(), *w));
        at = prev.clone();
    }
    hops.reverse();
    let mut at = meet;
    while let Some((next, t, w)) = sides[1].via.get(&at) {
        hops.push((at.clone(), *t, next.clone(), *w));
        at = next.clone();
    }
    Ok(Some(hops))
}

/// Dijkstra over (node, hops) states when `max_hops` is given, else over nodes: the
/// reference the bidirectional search is tested against, and the hop-limited fallback.
fn search(adjacency: &impl Adjacent, from: &str, to: &str, max_hops: Option<usize>) -> Result<Option<Vec<Hop>>, Error> {
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
    /// Domains on more nodes than the domain rules count (broad: no DOMAIN or SIBLING
    /// edges come from them) → their node count.
    pub broad_domains: BTreeMap<String, usize>,
}

/// `max_domain_members`: the parameter above which a domain is broad.
pub fn stats(graph: &Graph, max_domain_members: usize) -> GraphStats {
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
    let mut domain_members: BTreeMap<&str, usize> = BTreeMap::new();
    for node in &graph.nodes {
        let distinct: std::collections::BTreeSet<&str> = node.domains.iter().map(String::as_str).collect();
        for d in distinct {
            *domain_members.entry(d).or_default() += 1;
        }
    }
    let broad_domains = domain_members
        .into_iter()
        .filter(|(_, members)| *members > max_domain_members)
        .map(|(d, members)| (d.to_string(), members))
        .collect();
    GraphStats {
        nodes: n,
        edges: graph.edges.len(),
        edges_by_type: by_type,
        density: if n > 1 { graph.edges.len() as f64 / (n * (n - 1)) as f64 } else { 0.0 },
        components: sizes.len(),
        largest_component: sizes.values().copied().max().unwrap_or(0),
        isolated_nodes: degree.iter().filter(|d| **d == 0).count(),
        through_seq: graph.through_seq,
        broad_domains,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An in-memory adjacency: (from, type, to, weight).
    struct Edges(Vec<(String, EdgeType, String, f64)>);

    impl Adjacent for Edges {
        fn out(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
            Ok(self.0.iter().filter(|e| e.0 == id).map(|e| (e.1, e.2.clone(), e.3)).collect())
        }
        fn into(&self, id: &str) -> Result<Vec<(EdgeType, String, f64)>, Error> {
            Ok(self.0.iter().filter(|e| e.2 == id).map(|e| (e.1, e.0.clone(), e.3)).collect())
        }
    }

    fn cost(hops: &[Hop]) -> f64 {
        hops.iter().map(|h| 1.0 / h.3).sum()
    }

    fn check_walk(edges: &Edges, hops: &[Hop], from: &str, to: &str) {
        assert_eq!(hops.first().map(|h| h.0.as_str()), Some(from));
        assert_eq!(hops.last().map(|h| h.2.as_str()), Some(to));
        for pair in hops.windows(2) {
            assert_eq!(pair[0].2, pair[1].0, "{hops:?}");
        }
        for h in hops {
            assert!(edges.0.iter().any(|e| e.0 == h.0 && e.1 == h.1 && e.2 == h.2 && e.3 == h.3), "{h:?}");
        }
    }

    #[test]
    fn strong_detour_beats_weak_shortcut() {
        let e = |a: &str, b: &str, w: f64| (a.to_string(), EdgeType::Uses, b.to_string(), w);
        let edges = Edges(vec![e("a", "d", 0.2), e("a", "b", 1.0), e("b", "c", 1.0), e("c", "d", 1.0)]);
        let found = cheapest_path(&edges, "a", "d", 4).unwrap().unwrap();
        assert_eq!(found.iter().map(|h| h.2.as_str()).collect::<Vec<_>>(), ["b", "c", "d"]);
        // Within 2 hops only the weak shortcut is left.
        let limited = cheapest_path(&edges, "a", "d", 2).unwrap().unwrap();
        assert_eq!(limited.len(), 1);
        assert!(cheapest_path(&edges, "d", "a", 4).unwrap().is_none(), "direction matters");
        assert_eq!(cheapest_path(&edges, "a", "a", 4).unwrap(), Some(vec![]));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The bidirectional search finds a path exactly when plain Dijkstra does, at the
        /// same cost, and with a hop limit agrees with the layered search.
        #[test]
        fn bidirectional_matches_dijkstra(
            raw in prop::collection::vec((0u8..12, 0u8..12, 1u8..=10), 0..60),
            from in 0u8..12,
            to in 0u8..12,
            max_hops in 1usize..5,
        ) {
            let edges = Edges(
                raw.iter()
                    .filter(|(a, b, _)| a != b)
                    .map(|(a, b, w)| (format!("n{a}"), EdgeType::Uses, format!("n{b}"), f64::from(*w) / 10.0))
                    .collect(),
            );
            let (from, to) = (format!("n{from}"), format!("n{to}"));
            prop_assume!(from != to);
            let fast = bidirectional(&edges, &from, &to).unwrap();
            let reference = search(&edges, &from, &to, None).unwrap();
            prop_assert_eq!(fast.is_some(), reference.is_some());
            if let (Some(fast), Some(reference)) = (&fast, &reference) {
                check_walk(&edges, fast, &from, &to);
                prop_assert!((cost(fast) - cost(reference)).abs() < 1e-9, "{:?} vs {:?}", fast, reference);
            }
            let limited = cheapest_path(&edges, &from, &to, max_hops).unwrap();
            let layered = search(&edges, &from, &to, Some(max_hops)).unwrap();
            prop_assert_eq!(limited.is_some(), layered.is_some());
            if let (Some(limited), Some(layered)) = (&limited, &layered) {
                check_walk(&edges, limited, &from, &to);
                prop_assert!(limited.len() <= max_hops);
                prop_assert!((cost(limited) - cost(layered)).abs() < 1e-9);
            }
        }
    }
}
