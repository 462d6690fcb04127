//! The `context` tool's session briefing, as markdown for an agent.

use std::fmt::Write;
use std::path::Path;

use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::event::{EdgeType, NodeKind, NodeRegistered};
use crate::graph::{Edge, store as graph_store};
use crate::home::expand_home;
use crate::store::Store;

/// The registered node whose path contains `cwd` (the deepest one; projects first).
pub fn project_for_dir<'a>(nodes: impl Iterator<Item = &'a NodeRegistered>, cwd: &Path) -> Option<String> {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    nodes
        .filter_map(|n| {
            let path = expand_home(n.path.as_deref()?);
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            cwd.starts_with(&path).then(|| (n.kind == NodeKind::Project, path.as_os_str().len(), n.id.clone()))
        })
        .max()
        .map(|(_, _, id)| id)
}

/// One line saying why an edge exists.
pub fn why_line(edge: &Edge) -> String {
    let mut parts = Vec::new();
    for f in &edge.firings {
        let latest = f.units.iter().filter_map(|u| u.date.as_deref().map(|d| (d, &u.key))).max();
        let units = f.units.len();
        let what = match f.rule.as_str() {
            "manual-link" => "linked by hand".to_string(),
            "sibling-domain" | "shared-domain" => f.detail.clone(),
            rule => match latest {
                Some((date, key)) => format!("{rule}: {units} unit(s), latest {key} ({date})"),
                None => format!("{rule}: {units} unit(s)"),
            },
        };
        parts.push(what);
    }
    parts.join("; ")
}

fn words(text: &str) -> Vec<String> {
    const STOP: &[&str] =
        &["the", "and", "for", "with", "how", "does", "what", "that", "this", "from", "into", "about"];
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .collect()
}

/// The briefing for `project` (or the project of `cwd`), optionally about `topic`.
pub fn briefing(
    store: &Store,
    cwd: &Path,
    project: Option<&str>,
    topic: Option<&str>,
    limit: usize,
) -> anyhow::Result<String> {
    let nodes = EventLog::new(store).nodes()?;
    if nodes.is_empty() {
        anyhow::bail!("no nodes are registered: run `patina mother sync --registry FILE` first");
    }
    let id = match project {
        Some(p) => resolve_node(&nodes, p)?,
        None => project_for_dir(nodes.values(), cwd).ok_or_else(|| {
            let projects: Vec<&str> =
                nodes.values().filter(|n| n.kind == NodeKind::Project).map(|n| n.id.as_str()).collect();
            anyhow::anyhow!(
                "no registered node's path contains {}; pass `project` (registered projects: {})",
                cwd.display(),
                projects.join(", ")
            )
        })?,
    };
    let node = &nodes[&id];
    let mut out = String::new();
    let _ = writeln!(out, "# Patina context: {id} ({})", node.kind);
    if let Some(summary) = &node.summary {
        let _ = writeln!(out, "{summary}");
    }
    if !node.domains.is_empty() {
        let _ = writeln!(out, "Domains: {}.", node.domains.join(", "));
    }
    let mut edges = graph_store::out_edges(store, &id)?;
    edges.sort_by(|a, b| {
        (a.edge_type == EdgeType::Domain, b.weight)
            .partial_cmp(&(b.edge_type == EdgeType::Domain, a.weight))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let _ = writeln!(out, "\n## Strongest edges (what {id} uses, learns from, tests with)");
    if edges.is_empty() {
        let _ = writeln!(out, "None yet: ingest session logs (`patina mother ingest`) or link by hand.");
    }
    for e in edges.iter().take(limit) {
        let _ = writeln!(out, "- {} {} ({:.2}): {}", e.edge_type, e.to, e.weight, why_line(e));
    }
    if edges.len() > limit {
        let _ = writeln!(out, "- … {} more (graph_neighbors lists them)", edges.len() - limit);
    }
    if let Some(topic) = topic.filter(|t| !t.trim().is_empty()) {
        let wanted = words(topic);
        let mut scored: Vec<(usize, &NodeRegistered)> = nodes
            .values()
            .filter(|n| n.id != id)
            .map(|n| {
                let mut hay = words(&n.id);
                hay.extend(n.aliases.iter().flat_map(|a| words(a)));
                hay.extend(n.domains.iter().cloned());
                hay.extend(n.summary.as_deref().map(words).unwrap_or_default());
                (wanted.iter().filter(|w| hay.contains(w)).count(), n)
            })
            .filter(|(score, _)| *score > 0)
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        let _ = writeln!(out, "\n## Relevant to \"{}\"", topic.trim());
        if scored.is_empty() {
            let _ = writeln!(out, "No registered node matches the topic's words.");
        }
        for (_, n) in scored.iter().take(5) {
            let relation = edges.iter().filter(|e| e.to == n.id).map(|e| e.edge_type.to_string()).collect::<Vec<_>>();
            let relation =
                if relation.is_empty() { "no edge from this project".to_string() } else { relation.join(", ") };
            let _ = writeln!(out, "- {} ({}; {relation}): {}", n.id, n.kind, n.summary.as_deref().unwrap_or(""));
        }
    }
    beliefs_section(&mut out, store, &id, &edges, topic, limit)?;
    let _ = writeln!(
        out,
        "\n## Recall\nBefore answering about prior work, conventions or another repo, search with `scry` (when available) \
         rather than assuming. Before assuming a default for a design choice, look for the project's beliefs: `scry` \
         searches them on every query (`[belief]` results), `build_context` walks their relations, `observe` records \
         a new decision or lesson. Before trusting an edge, call `explain_edge` to see the sessions and lines behind it."
    );
    Ok(out)
}

/// Entrenchment as an order (higher holds harder).
fn entrenchment_rank(e: Option<&str>) -> u8 {
    match e.unwrap_or("") {
        "very-high" => 4,
        "high" => 3,
        "medium" => 2,
        "low" => 1,
        _ => 0,
    }
}

/// The project's active beliefs, most relevant to the topic first (then entrenchment and
/// confidence), and the beliefs of the projects its edges reach.
fn beliefs_section(
    out: &mut String,
    store: &Store,
    id: &str,
    edges: &[Edge],
    topic: Option<&str>,
    limit: usize,
) -> anyhow::Result<()> {
    let knowledge = crate::knowledge::Knowledge::load(&EventLog::new(store))?;
    let relevance: std::collections::BTreeMap<String, f32> = match topic.filter(|t| !t.trim().is_empty()) {
        Some(t) => crate::knowledge::search::search(&knowledge, &[id.to_string()], t, 50)
            .into_iter()
            .map(|h| (h.id, h.score))
            .collect(),
        None => Default::default(),
    };
    let mut own: Vec<&crate::event::Belief> =
        knowledge.beliefs(Some(id)).map(|(_, b)| b).filter(|b| b.status == "active").collect();
    own.sort_by(|a, b| {
        let key = |x: &crate::event::Belief| {
            (
                relevance.get(&x.id).copied().unwrap_or(0.0),
                entrenchment_rank(x.entrenchment.as_deref()),
                x.confidence.unwrap_or(0.0),
            )
        };
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0).then(kb.1.cmp(&ka.1)).then(kb.2.total_cmp(&ka.2)).then(a.id.cmp(&b.id))
    });
    if !own.is_empty() {
        let _ = writeln!(out, "\n## Beliefs of {id} ({} active; most relevant first)", own.len());
        for b in own.iter().take(limit) {
            let _ = writeln!(out, "- {}: {}", b.id, b.summary);
        }
        if own.len() > limit {
            let _ = writeln!(out, "- … {} more (`scry` finds them by topic)", own.len() - limit);
        }
    }
    let reached: Vec<&str> = edges.iter().filter(|e| e.edge_type != EdgeType::Domain).map(|e| e.to.as_str()).collect();
    let mut others: Vec<&crate::event::Belief> = knowledge
        .beliefs(None)
        .map(|(_, b)| b)
        .filter(|b| b.status == "active" && b.project != id && reached.contains(&b.project.as_str()))
        .collect();
    others.sort_by(|a, b| a.project.cmp(&b.project).then(a.id.cmp(&b.id)));
    if !others.is_empty() {
        let _ = writeln!(out, "\n## Beliefs of the projects {id} works with (reference, not its own)");
        for b in others.iter().take(limit) {
            let _ = writeln!(out, "- [{}] {}: {}", b.project, b.id, b.summary);
        }
    }
    Ok(())
}
