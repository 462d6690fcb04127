//! The mother's write operations as library calls: sync a registry, link and unlink.
//!
//! The CLI and the MCP server both call these, so an MCP `link` appends exactly what
//! `patina mother link` appends.

use crate::error::{Error, InvalidInput};
use crate::event::log::{AppendReport, DEFAULT_BATCH, EventLog, NewEvent};
use crate::event::nodes::resolve_node;
use crate::event::{EdgeType, Event, LinkAdded, LinkRemoved, NodeRemoved, Source, link_identity};
use crate::registry::Registry;

/// What a sync did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SyncReport {
    pub registry: String,
    pub nodes_in_registry: usize,
    /// Ids newly registered.
    pub added: Vec<String>,
    /// Ids whose description changed.
    pub changed: Vec<String>,
    pub unchanged: usize,
    /// Registered nodes absent from the registry (kept unless `prune`).
    pub not_in_registry: Vec<String>,
    /// Ids removed because `prune` was set.
    pub removed: Vec<String>,
    pub warnings: Vec<String>,
}

/// Appends a `NodeRegistered` event for every new or changed node of `registry`.
pub fn sync(
    log: &EventLog<'_>,
    registry: &Registry,
    prune: bool,
    progress: impl FnMut(usize),
) -> Result<SyncReport, Error> {
    let before = log.nodes()?;
    let mut report = SyncReport {
        registry: registry.path.display().to_string(),
        nodes_in_registry: registry.nodes.len(),
        warnings: registry.warnings.clone(),
        ..SyncReport::default()
    };
    let path = registry.path.display().to_string();
    let mut events = Vec::with_capacity(registry.nodes.len());
    for entry in &registry.nodes {
        match before.get(&entry.node.id) {
            None => report.added.push(entry.node.id.clone()),
            Some(old) if *old != entry.node => report.changed.push(entry.node.id.clone()),
            Some(_) => {}
        }
        events.push(NewEvent::new(
            Source::file(path.clone(), entry.start_line, entry.end_line),
            Event::NodeRegistered(entry.node.clone()),
        ));
    }
    let in_registry: std::collections::HashSet<&str> = registry.nodes.iter().map(|n| n.node.id.as_str()).collect();
    for id in before.keys().filter(|id| !in_registry.contains(id.as_str())) {
        if prune {
            report.removed.push(id.clone());
            events.push(NewEvent::new(
                Source::file(path.clone(), 0, 0),
                Event::NodeRemoved(NodeRemoved {
                    id: id.clone(),
                    reason: Some("not in registry (sync --prune)".into()),
                }),
            ));
        } else {
            report.not_in_registry.push(id.clone());
        }
    }
    let appended = log.append_all(events, DEFAULT_BATCH, progress)?;
    report.unchanged = appended.unchanged;
    Ok(report)
}

/// A link or unlink request, as typed by a user or sent by an agent.
#[derive(Debug, Clone)]
pub struct LinkRequest {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    pub evidence: Option<String>,
    pub weight: Option<f32>,
    pub source: Source,
}

/// What a link or unlink did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LinkOutcome {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    /// The new event's seq, or `None` when the log already said this.
    pub seq: Option<u64>,
}

fn resolve_pair(log: &EventLog<'_>, from: &str, to: &str) -> Result<(String, String), Error> {
    let nodes = log.nodes()?;
    let from = resolve_node(&nodes, from)?;
    let to = resolve_node(&nodes, to)?;
    if from == to {
        return Err(InvalidInput::Other(format!("cannot link '{from}' to itself")).into());
    }
    Ok((from, to))
}

/// Appends a `LinkAdded` (a no-op if the same link is already in force).
pub fn link(log: &EventLog<'_>, request: LinkRequest) -> Result<LinkOutcome, Error> {
    if let Some(w) = request.weight
        && !(w.is_finite() && w > 0.0 && w <= 1.0)
    {
        return Err(InvalidInput::Other(format!("weight {w} is out of range (0, 1]")).into());
    }
    let (from, to) = resolve_pair(log, &request.from, &request.to)?;
    let evidence = request.evidence.map(|e| e.trim().to_string()).filter(|e| !e.is_empty());
    let event = Event::LinkAdded(LinkAdded {
        from: from.clone(),
        edge_type: request.edge_type,
        to: to.clone(),
        evidence,
        weight: request.weight,
    });
    let report = log.append([NewEvent::new(request.source, event)])?;
    Ok(outcome(from, request.edge_type, to, report))
}

/// Appends a `LinkRemoved`, which retracts a manual link and blocks re-derivation of the
/// same edge until it is linked again. A no-op if the edge is already unlinked.
pub fn unlink(log: &EventLog<'_>, request: LinkRequest) -> Result<LinkOutcome, Error> {
    let (from, to) = resolve_pair(log, &request.from, &request.to)?;
    if let Some(latest) = log.latest_for_identity(&link_identity(&from, request.edge_type, &to))?
        && matches!(latest.event, Event::LinkRemoved(_))
    {
        return Ok(LinkOutcome { from, edge_type: request.edge_type, to, seq: None });
    }
    let reason = request.evidence.map(|e| e.trim().to_string()).filter(|e| !e.is_empty());
    let event =
        Event::LinkRemoved(LinkRemoved { from: from.clone(), edge_type: request.edge_type, to: to.clone(), reason });
    let report = log.append([NewEvent::new(request.source, event)])?;
    Ok(outcome(from, request.edge_type, to, report))
}

fn outcome(from: String, edge_type: EdgeType, to: String, report: AppendReport) -> LinkOutcome {
    LinkOutcome { from, edge_type, to, seq: report.appended.first().copied() }
}
