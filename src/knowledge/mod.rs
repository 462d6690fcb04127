//! What a project believes: beliefs, observations and the typed relations between them,
//! as a view over the log.
//!
//! ```text
//! belief files ─ ingest ─┐                      ┌─ belief list / show
//! patina observe ────────┼─ Belief, Observation,┼─ context build (BFS)
//! patina relate ─────────┘  Relation events     └─ (search channel, MCP)
//! ```
//!
//! Architecture Invariant: the view is a pure function of the live log: [`Knowledge::load`]
//! reads the live `belief`, `observation` and `relation` events and nothing else, so
//! replaying the log gives the same beliefs and relations. A retracted event (its file
//! changed or vanished, `unrelate`, a deleted observation) is simply not live.
//! Architecture Invariant: a relation may name a position that has no belief or
//! observation of its own (a counter-position under Attacks): it is kept and shown as an
//! *unresolved* position with the relation's note (status, reason), never dropped.

pub mod context;
pub mod intent;
pub mod persona;
pub mod search;
pub mod write;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Error;
use crate::event::log::EventLog;
use crate::event::{Belief, Event, EventKind, Observation, Relation, Source};

/// A belief or an observation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Item {
    Belief(Belief),
    Observation(Observation),
}

impl Item {
    pub fn id(&self) -> &str {
        match self {
            Item::Belief(b) => &b.id,
            Item::Observation(o) => &o.id,
        }
    }

    pub fn project(&self) -> &str {
        match self {
            Item::Belief(b) => &b.project,
            Item::Observation(o) => &o.project,
        }
    }

    /// The one line that says what it is.
    pub fn summary(&self) -> &str {
        match self {
            Item::Belief(b) if !b.summary.is_empty() => &b.summary,
            Item::Belief(b) => &b.statement,
            Item::Observation(o) => &o.text,
        }
    }

    pub fn facets(&self) -> &[String] {
        match self {
            Item::Belief(b) => &b.facets,
            Item::Observation(o) => &o.facets,
        }
    }

    /// `belief`, `pattern`, or the observation's kind.
    pub fn kind(&self) -> &str {
        match self {
            Item::Belief(b) => &b.kind,
            Item::Observation(o) => &o.kind,
        }
    }
}

/// A live item with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub item: Item,
    pub seq: u64,
    pub source: Source,
}

/// A live relation with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    pub relation: Relation,
    pub seq: u64,
    pub source: Source,
}

/// The live knowledge of the store.
#[derive(Debug, Clone, Default)]
pub struct Knowledge {
    /// By id. Two live items with one id (the same belief ingested from two files): the
    /// later one.
    pub items: BTreeMap<String, Entry>,
    /// In log order.
    pub links: Vec<Link>,
    /// Every id an item or a relation names → its node number (built by [`Knowledge::index`]).
    node_of: std::collections::HashMap<String, u32>,
    /// By node: the relations touching it as (index in `links`, the other end's node,
    /// whether it goes out of this node), in log order. Walks never hash a string.
    adjacent: Vec<Vec<(u32, u32, bool)>>,
    /// `items.len()` when the index was built (a different count: items changed since).
    indexed_items: usize,
    /// The search channel's lexical indexes, by project set, built on first use
    /// (`search::search_with`) and dropped by [`Knowledge::index`].
    pub(crate) text_indexes: search::TextIndexCache,
}

impl Knowledge {
    /// Reads the live knowledge events.
    pub fn load(log: &EventLog<'_>) -> Result<Knowledge, Error> {
        let mut knowledge = Knowledge::default();
        for stored in log.live(&[EventKind::Belief, EventKind::Observation, EventKind::Relation])? {
            let (seq, source) = (stored.seq, stored.source);
            match stored.event {
                Event::Belief(b) => {
                    knowledge.items.insert(b.id.clone(), Entry { item: Item::Belief(b), seq, source });
                }
                Event::Observation(o) => {
                    knowledge.items.insert(o.id.clone(), Entry { item: Item::Observation(o), seq, source });
                }
                Event::Relation(relation) => knowledge.links.push(Link { relation, seq, source }),
                _ => {}
            }
        }
        knowledge.links.sort_by_key(|l| l.seq);
        knowledge.index();
        Ok(knowledge)
    }

    /// Rebuilds the adjacency of `links` and drops the cached text indexes (after
    /// changing `items` or `links`).
    pub fn index(&mut self) {
        self.node_of.clear();
        self.adjacent.clear();
        self.text_indexes = Default::default();
        self.indexed_items = self.items.len();
        let ids = self.items.keys().chain(self.links.iter().flat_map(|l| [&l.relation.from, &l.relation.to]));
        for id in ids {
            if !self.node_of.contains_key(id) {
                self.node_of.insert(id.clone(), self.adjacent.len() as u32);
                self.adjacent.push(Vec::new());
            }
        }
        // In log order whatever order `links` is in.
        let mut order: Vec<usize> = (0..self.links.len()).collect();
        order.sort_by_key(|&i| self.links[i].seq);
        for i in order {
            let l = &self.links[i];
            let (from, to) = (self.node_of[&l.relation.from], self.node_of[&l.relation.to]);
            self.adjacent[from as usize].push((i as u32, to, true));
            self.adjacent[to as usize].push((i as u32, from, false));
        }
    }

    /// The node number of an id an item or relation names.
    /// The items by node number, when the index is current: nodes `0..items.len()` are
    /// the items in id order (`index` numbers them first).
    pub(crate) fn items_by_node(&self) -> Option<Vec<&Entry>> {
        (self.indexed_items == self.items.len() && self.items.keys().next().is_none_or(|k| self.node(k) == Some(0)))
            .then(|| self.items.values().collect())
    }

    pub(crate) fn node(&self, id: &str) -> Option<u32> {
        self.node_of.get(id).copied()
    }

    /// The relations touching a node: (link, other node, outgoing), in log order.
    pub(crate) fn adjacent(&self, node: u32) -> &[(u32, u32, bool)] {
        self.adjacent.get(node as usize).map_or(&[], Vec::as_slice)
    }

    /// The number of nodes (ids named by items or relations).
    pub(crate) fn node_count(&self) -> usize {
        self.adjacent.len()
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.items.get(id)
    }

    /// Relations from `id`, in log order.
    pub fn outgoing<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Link> + 'a {
        self.touching(id, true)
    }

    /// Relations to `id`, in log order.
    pub fn incoming<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Link> + 'a {
        self.touching(id, false)
    }

    fn touching<'a>(&'a self, id: &str, outgoing: bool) -> impl Iterator<Item = &'a Link> + 'a {
        self.node(id)
            .into_iter()
            .flat_map(move |n| self.adjacent(n).iter())
            .filter(move |(_, _, out)| *out == outgoing)
            .map(move |&(i, _, _)| &self.links[i as usize])
    }

    /// Beliefs (not observations), optionally of one project, by id.
    pub fn beliefs<'a>(&'a self, project: Option<&'a str>) -> impl Iterator<Item = (&'a Entry, &'a Belief)> + 'a {
        self.items.values().filter_map(move |e| match &e.item {
            Item::Belief(b) if project.is_none_or(|p| b.project == p) => Some((e, b)),
            _ => None,
        })
    }

    /// Targets of relations that have no item of their own: id → the notes that name them.
    pub fn unresolved(&self) -> BTreeMap<&str, Vec<&Link>> {
        let mut out: BTreeMap<&str, Vec<&Link>> = BTreeMap::new();
        for link in &self.links {
            if !self.items.contains_key(&link.relation.to) {
                out.entry(link.relation.to.as_str()).or_default().push(link);
            }
        }
        out
    }
}
