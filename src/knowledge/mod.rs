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
    /// Indexes into `links` by `from` and by `to` (built by [`Knowledge::index`]).
    by_from: std::collections::HashMap<String, Vec<usize>>,
    by_to: std::collections::HashMap<String, Vec<usize>>,
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

    /// Rebuilds the by-`from` and by-`to` indexes of `links` (after changing `links`).
    pub fn index(&mut self) {
        self.by_from.clear();
        self.by_to.clear();
        for (i, l) in self.links.iter().enumerate() {
            self.by_from.entry(l.relation.from.clone()).or_default().push(i);
            self.by_to.entry(l.relation.to.clone()).or_default().push(i);
        }
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.items.get(id)
    }

    /// Relations from `id`, in log order.
    pub fn outgoing<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Link> + 'a {
        self.by_from.get(id).into_iter().flatten().map(|&i| &self.links[i])
    }

    /// Relations to `id`, in log order.
    pub fn incoming<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Link> + 'a {
        self.by_to.get(id).into_iter().flatten().map(|&i| &self.links[i])
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
