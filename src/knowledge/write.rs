//! Writing knowledge by hand: `observe`, `relate`, `unrelate`, and deleting an
//! observation. Each is a set of events appended in one transaction.
//!
//! Relation rules (from the Engram design): no relation from an item to itself; both ends
//! must exist and be live; a live relation with the same (from, to, type) is an error, not
//! a silent no-op; `bidirectional` adds both directions together. Deleting an observation
//! retracts it and every live relation that names it, in the same transaction.

use crate::error::{Error, InvalidInput};
use crate::event::log::{EventLog, NewEvent};
use crate::event::{Event, Observation, Relation, Retracted, Source};

use super::{Item, Knowledge};

/// The relation type when none is given.
pub const DEFAULT_RELATION: &str = "relates_to";

/// A relation type: lower-case letters, digits and `_` (`supports`, `attacked_by`); `-`
/// and spaces become `_`.
pub fn relation_type(given: &str) -> Result<String, InvalidInput> {
    let t: String = given.trim().to_lowercase().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c }).collect();
    if t.is_empty() || t.len() > 40 || !t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err(InvalidInput::Other(format!(
            "relation type '{given}' is not a word of lower-case letters, digits and _ (e.g. supports, attacks, relates_to)"
        )));
    }
    Ok(t)
}

/// What `observe` recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Observed {
    pub id: String,
    /// `None` when the same observation was already live.
    pub seq: Option<u64>,
}

/// Records an observation of `project`; its id is `obs-` and the first 10 hex digits of
/// the hash of its project and text, so observing the same thing twice is one observation.
pub fn observe(
    log: &EventLog<'_>,
    project: &str,
    text: &str,
    kind: &str,
    facets: &[String],
    source: Source,
) -> Result<Observed, Error> {
    let text = text.trim();
    if text.is_empty() {
        return Err(InvalidInput::Other("an observation needs some text".into()).into());
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(project.as_bytes());
    hasher.update(&[0]);
    hasher.update(text.as_bytes());
    let id = format!("obs-{}", &hasher.finalize().to_hex()[..10]);
    let observation = Observation {
        project: project.to_string(),
        id: id.clone(),
        text: text.to_string(),
        kind: kind.trim().to_lowercase(),
        facets: facets.iter().map(|f| f.trim().to_lowercase()).filter(|f| !f.is_empty()).collect(),
    };
    let report = log.append([NewEvent::new(source, Event::Observation(observation))])?;
    Ok(Observed { id, seq: report.appended.first().copied() })
}

/// Adds `from —type→ to` (and `to —type→ from` when `bidirectional`). Returns the new
/// events' seqs.
pub fn relate(
    log: &EventLog<'_>,
    from: &str,
    to: &str,
    rel_type: &str,
    note: Option<&str>,
    bidirectional: bool,
    source: Source,
) -> Result<Vec<u64>, Error> {
    let knowledge = Knowledge::load(log)?;
    let rel_type = relation_type(rel_type)?;
    let (from, to) = (from.trim(), to.trim());
    if from == to {
        return Err(InvalidInput::Other(format!("'{from}' cannot relate to itself")).into());
    }
    let mut pairs = vec![(from, to)];
    if bidirectional {
        pairs.push((to, from));
    }
    let mut events = Vec::new();
    for (a, b) in pairs {
        for end in [a, b] {
            if knowledge.get(end).is_none() {
                return Err(InvalidInput::Other(format!(
                    "no live belief or observation '{end}' (see `patina belief list`; relations need both ends)"
                ))
                .into());
            }
        }
        if knowledge.outgoing(a).any(|l| l.relation.to == b && l.relation.rel_type == rel_type) {
            return Err(InvalidInput::Other(format!("'{a}' already {rel_type} '{b}' (one relation per type)")).into());
        }
        let project = knowledge.get(a).map(|e| e.item.project().to_string()).unwrap_or_default();
        events.push(NewEvent::new(
            source.clone(),
            Event::Relation(Relation {
                project,
                from: a.to_string(),
                to: b.to_string(),
                rel_type: rel_type.clone(),
                note: note.map(str::trim).filter(|n| !n.is_empty()).map(String::from),
            }),
        ));
    }
    Ok(log.append(events)?.appended)
}

/// Retracts the live relations `from → to` (of `rel_type`, or of every type). Returns how
/// many; none is an error.
pub fn unrelate(
    log: &EventLog<'_>,
    from: &str,
    to: &str,
    rel_type: Option<&str>,
    source: Source,
) -> Result<usize, Error> {
    let knowledge = Knowledge::load(log)?;
    let rel_type = rel_type.map(relation_type).transpose()?;
    let (from, to) = (from.trim(), to.trim());
    let events: Vec<NewEvent> = knowledge
        .outgoing(from)
        .filter(|l| l.relation.to == to && rel_type.as_ref().is_none_or(|t| *t == l.relation.rel_type))
        .map(|l| {
            NewEvent::new(
                source.clone(),
                Event::Retracted(Retracted { target_seq: l.seq, reason: format!("unrelate {from} {to}") }),
            )
        })
        .collect();
    if events.is_empty() {
        return Err(InvalidInput::Other(format!(
            "no live relation from '{from}' to '{to}'{}",
            rel_type.map(|t| format!(" of type {t}")).unwrap_or_default()
        ))
        .into());
    }
    let n = events.len();
    log.append(events)?;
    Ok(n)
}

/// Deletes an observation: retracts it and every live relation that names it, in one
/// transaction. Returns the number of relations retracted with it. Beliefs come from
/// their files and are retracted by editing or deleting the file.
pub fn forget(log: &EventLog<'_>, id: &str, source: Source) -> Result<usize, Error> {
    let knowledge = Knowledge::load(log)?;
    let id = id.trim();
    let entry = match knowledge.get(id) {
        Some(e) if matches!(e.item, Item::Observation(_)) => e,
        Some(_) => {
            return Err(InvalidInput::Other(format!(
                "'{id}' is a belief: edit or delete its file and ingest again (beliefs come from files)"
            ))
            .into());
        }
        None => return Err(InvalidInput::Other(format!("no live observation '{id}'")).into()),
    };
    let retract = |seq: u64| {
        NewEvent::new(source.clone(), Event::Retracted(Retracted { target_seq: seq, reason: format!("forget {id}") }))
    };
    let mut events = vec![retract(entry.seq)];
    let relations: Vec<u64> =
        knowledge.links.iter().filter(|l| l.relation.from == id || l.relation.to == id).map(|l| l.seq).collect();
    events.extend(relations.iter().map(|&seq| retract(seq)));
    log.append(events)?;
    Ok(relations.len())
}
