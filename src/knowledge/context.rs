//! `context build`: the neighbourhood of a belief or observation, breadth first.
//!
//! Invariant: each item appears once, at its shallowest depth (so cycles are safe and the
//! walk ends); the depth is clamped to 1..=[`MAX_DEPTH`]; relations are followed in both
//! directions, each entry saying which relation reached it, in which direction, and its
//! note. The order is deterministic: by depth, then by the order relations were recorded.

use std::collections::VecDeque;

use serde::Serialize;

use super::Knowledge;

/// The default depth.
pub const DEFAULT_DEPTH: usize = 2;
/// The deepest walk.
pub const MAX_DEPTH: usize = 5;

/// One item of a context (borrowed from the [`Knowledge`] it was built from).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextEntry<'a> {
    pub id: &'a str,
    pub depth: usize,
    /// The item this one was reached from (`None` for the root).
    pub via: Option<&'a str>,
    /// The relation type that reached it.
    pub relation: Option<&'a str>,
    /// `out` (via → id) or `in` (id → via).
    pub direction: Option<&'static str>,
    pub note: Option<&'a str>,
    /// `belief`, `pattern`, an observation's kind, or `unresolved` (a position with no
    /// item of its own).
    pub kind: &'a str,
    pub status: Option<&'a str>,
    pub summary: &'a str,
}

/// The context of `root`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Context<'a> {
    pub root: &'a str,
    pub depth: usize,
    pub entries: Vec<ContextEntry<'a>>,
}

/// Why a context could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    #[error("no belief or observation '{id}' (see `patina belief list`)")]
    Unknown { id: String },
}

/// Walks breadth first from `root` up to `depth` relations away.
pub fn build<'a>(knowledge: &'a Knowledge, root: &str, depth: usize) -> Result<Context<'a>, ContextError> {
    let depth = depth.clamp(1, MAX_DEPTH);
    let Some((root, entry)) = knowledge.items.get_key_value(root) else {
        return Err(ContextError::Unknown { id: root.to_string() });
    };
    let root: &'a str = root.as_str();
    let mut entries = vec![ContextEntry {
        id: root,
        depth: 0,
        via: None,
        relation: None,
        direction: None,
        note: None,
        kind: entry.item.kind(),
        status: status_of(knowledge, root),
        summary: entry.item.summary(),
    }];
    // Over node numbers (`Knowledge::adjacent`: each node's relations in log order, both
    // directions), so the walk hashes no string.
    let Some(root_node) = knowledge.node(root) else { return Ok(Context { root, depth, entries }) };
    let items = knowledge.items_by_node();
    let item = |node: u32, id: &str| match &items {
        Some(items) => items.get(node as usize).copied(),
        None => knowledge.get(id),
    };
    let mut seen = vec![false; knowledge.node_count()];
    seen[root_node as usize] = true;
    let mut queue: VecDeque<(u32, &'a str, usize)> = VecDeque::from([(root_node, root, 0)]);
    while let Some((node, id, d)) = queue.pop_front() {
        if d >= depth {
            continue;
        }
        for &(link, other_node, out) in knowledge.adjacent(node) {
            if std::mem::replace(&mut seen[other_node as usize], true) {
                continue;
            }
            let link = &knowledge.links[link as usize];
            let (other, direction) =
                if out { (link.relation.to.as_str(), "out") } else { (link.relation.from.as_str(), "in") };
            let found = item(other_node, other);
            let (kind, summary, status) = match found {
                Some(e) => (e.item.kind(), e.item.summary(), status_of_item(&e.item)),
                None => ("unresolved", "", None),
            };
            entries.push(ContextEntry {
                id: other,
                depth: d + 1,
                via: Some(id),
                relation: Some(link.relation.rel_type.as_str()),
                direction: Some(direction),
                note: link.relation.note.as_deref(),
                kind,
                status,
                summary,
            });
            // Unresolved positions are leaves; items are walked on.
            if found.is_some() {
                queue.push_back((other_node, other, d + 1));
            }
        }
    }
    Ok(Context { root, depth, entries })
}

fn status_of<'a>(knowledge: &'a Knowledge, id: &str) -> Option<&'a str> {
    status_of_item(&knowledge.get(id)?.item)
}

fn status_of_item(item: &super::Item) -> Option<&str> {
    match item {
        super::Item::Belief(b) => Some(b.status.as_str()),
        super::Item::Observation(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Belief, Relation, Source};
    use crate::knowledge::{Entry, Item, Link};

    fn belief(id: &str) -> Entry {
        Entry {
            item: Item::Belief(Belief {
                project: "p".into(),
                id: id.into(),
                kind: "belief".into(),
                persona: None,
                facets: vec![],
                confidence: None,
                entrenchment: None,
                status: "active".into(),
                summary: format!("{id} summary"),
                statement: String::new(),
                evidence: vec![],
                implications: vec![],
                applied_in: vec![],
                extracted: None,
                revised: None,
            }),
            seq: 0,
            source: Source::Cli,
        }
    }

    fn link(seq: u64, from: &str, rel: &str, to: &str) -> Link {
        Link {
            relation: Relation {
                project: "p".into(),
                from: from.into(),
                to: to.into(),
                rel_type: rel.into(),
                note: None,
            },
            seq,
            source: Source::Cli,
        }
    }

    #[test]
    fn breadth_first_both_ways_each_once_cycles_safe() {
        let mut k = Knowledge::default();
        for id in ["a", "b", "c", "d", "e"] {
            k.items.insert(id.into(), belief(id));
        }
        k.links = vec![
            link(1, "b", "supports", "a"),
            link(2, "a", "attacks", "ghost"),
            link(3, "b", "supports", "c"),
            link(4, "c", "supports", "a"),
            link(5, "d", "relates_to", "c"),
            link(6, "e", "relates_to", "d"),
        ];
        k.index();
        let ctx = build(&k, "a", 2).unwrap();
        let got: Vec<(&str, usize, Option<&str>)> = ctx.entries.iter().map(|e| (e.id, e.depth, e.direction)).collect();
        assert_eq!(
            got,
            [
                ("a", 0, None),
                ("b", 1, Some("in")),
                ("ghost", 1, Some("out")),
                ("c", 1, Some("in")),
                ("d", 2, Some("in"))
            ]
        );
        assert_eq!(ctx.entries[2].kind, "unresolved");
        // Depth is clamped; e is three away.
        assert_eq!(build(&k, "a", 99).unwrap().depth, MAX_DEPTH);
        assert!(build(&k, "a", 99).unwrap().entries.iter().any(|e| e.id == "e" && e.depth == 3));
        assert_eq!(build(&k, "a", 0).unwrap().depth, 1);
        assert_eq!(build(&k, "nope", 2), Err(ContextError::Unknown { id: "nope".into() }));
    }

    /// The walk as first written (string ids, hash sets, relations sorted per node): the
    /// reference the node-numbered walk must equal.
    fn reference(
        k: &Knowledge,
        root: &str,
        depth: usize,
    ) -> Vec<(String, usize, Option<String>, Option<&'static str>)> {
        let mut out = vec![(root.to_string(), 0, None, None)];
        let mut seen = std::collections::HashSet::from([root.to_string()]);
        let mut queue = VecDeque::from([(root.to_string(), 0)]);
        while let Some((id, d)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            let mut next: Vec<(&Link, String, &'static str)> =
                k.outgoing(&id).map(|l| (l, l.relation.to.clone(), "out")).collect();
            next.extend(k.incoming(&id).map(|l| (l, l.relation.from.clone(), "in")));
            next.sort_by_key(|(l, _, _)| l.seq);
            for (_, other, direction) in next {
                if !seen.insert(other.clone()) {
                    continue;
                }
                out.push((other.clone(), d + 1, Some(id.clone()), Some(direction)));
                if k.get(&other).is_some() {
                    queue.push_back((other, d + 1));
                }
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn the_walk_equals_the_reference(
            links in proptest::collection::vec((0..9u8, 0..9u8), 0..30),
            root in 0..6u8,
            depth in 1..6usize,
        ) {
            let mut k = Knowledge::default();
            // Ids 0..6 are items; 6..9 are only named by relations (unresolved).
            for id in 0..6 {
                k.items.insert(format!("b{id}"), belief(&format!("b{id}")));
            }
            // Relations recorded out of seq order: the walk follows seq order anyway.
            k.links = links.iter().enumerate().rev().map(|(i, (a, b))| link(i as u64, &format!("b{a}"), "supports", &format!("b{b}"))).collect();
            k.index();
            let root = format!("b{root}");
            let got: Vec<_> = build(&k, &root, depth)
                .unwrap()
                .entries
                .iter()
                .map(|e| (e.id.to_string(), e.depth, e.via.map(str::to_string), e.direction))
                .collect();
            proptest::prop_assert_eq!(got, reference(&k, &root, depth));
        }
    }
}
