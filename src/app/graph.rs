//! `patina mother graph|explain|rules|neighbors|path|derive`, and keeping the stored graph
//! current after every write.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::PictureFormat;
use crate::event::EdgeType;
use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::graph::query::{self, Direction};
use crate::graph::{self, Graph, Params, store as graph_store};
use crate::store::Store;

/// Re-derives the graph after a write and tells what changed (on stderr).
pub fn refresh_after_write(store: &Store, params: &Params) -> anyhow::Result<()> {
    let refresh = graph_store::refresh(store, params).context("deriving the graph")?;
    let diff = &refresh.diff;
    if refresh.derived && !diff.is_empty() {
        eprintln!(
            "patina: graph now {} edges (+{} new, -{} gone, {} reweighted)",
            refresh.edges,
            diff.added.len(),
            diff.removed.len(),
            diff.reweighted.len()
        );
    }
    Ok(())
}

/// The current graph: the stored one, re-derived first if the log moved (in memory only,
/// on a read-only store).
pub fn current_graph(store: &Store, params: &Params) -> anyhow::Result<Graph> {
    if store.is_read_only() {
        return graph_store::current(store, params).context("deriving the graph");
    }
    graph_store::refresh(store, params).context("deriving the graph")?;
    Ok(graph_store::read(store)?.unwrap_or(Graph {
        through_seq: 0,
        fingerprint: [0; 32],
        nodes: Vec::new(),
        edges: Vec::new(),
        ended: Vec::new(),
    }))
}

fn parse_types(given: &[String]) -> anyhow::Result<Vec<EdgeType>> {
    Ok(given.iter().map(|t| EdgeType::parse(t)).collect::<Result<_, _>>()?)
}

fn resolve(store: &Store, given: &str) -> anyhow::Result<String> {
    Ok(resolve_node(&EventLog::new(store).nodes()?, given)?)
}

pub fn graph(
    ctx: &mut Invocation,
    nodes: bool,
    types: &[String],
    format: Option<PictureFormat>,
    all: bool,
    as_of: Option<&str>,
) -> anyhow::Result<u8> {
    let types = parse_types(types)?;
    let (store, params) = ctx.open_store_for_graph()?;
    let mut graph = match as_of {
        Some(date) => {
            let date: jiff::civil::Date =
                date.parse().map_err(|e| anyhow::anyhow!("--as-of {date:?}: not a date YYYY-MM-DD ({e})"))?;
            let facts = graph::facts::load_as_of(&EventLog::new(&store), &params, Some(date))?;
            graph::derive::derive_from_facts(&facts, &params)
        }
        None => current_graph(&store, &params)?,
    };
    if !types.is_empty() {
        graph.edges.retain(|e| types.contains(&e.edge_type));
        graph.ended.retain(|e| types.contains(&e.edge_type));
    }
    if all && !nodes && format.is_none() {
        graph.edges.extend(std::mem::take(&mut graph.ended));
        graph.edges.sort_by(|x, y| (&x.from, x.edge_type, &x.to).cmp(&(&y.from, y.edge_type, &y.to)));
    }
    match format {
        Some(PictureFormat::Dot) => write!(ctx.out, "{}", crate::output::picture::dot(&graph))?,
        Some(PictureFormat::Mermaid) => write!(ctx.out, "{}", crate::output::picture::mermaid(&graph))?,
        None if nodes => {
            if ctx.json {
                ctx.out.json(&graph.nodes)?;
            } else {
                for n in &graph.nodes {
                    writeln!(ctx.out, "{:<28} {:<9} {:>6.2}  [{}]", n.id, n.kind, n.importance, n.domains.join(", "))?;
                }
            }
        }
        None => {
            if ctx.json {
                let edges: Vec<serde_json::Value> = graph
                    .edges
                    .iter()
                    .map(|e| {
                        let mut v = serde_json::json!({
                            "from": e.from, "type": e.edge_type, "to": e.to, "weight": e.weight,
                            "rules": e.firings.iter().map(|f| &f.rule).collect::<Vec<_>>(),
                            "valid_from": e.valid_from,
                        });
                        if all {
                            v["valid_until"] = serde_json::json!(e.valid_until);
                            v["endings"] = serde_json::json!(e.endings.iter().map(|u| &u.key).collect::<Vec<_>>());
                        }
                        v
                    })
                    .collect();
                ctx.out.json(&edges)?;
            } else {
                for e in &graph.edges {
                    let rules: Vec<&str> = e.firings.iter().map(|f| f.rule.as_str()).collect();
                    let period = match (&e.valid_until, all) {
                        (Some(until), _) => {
                            format!("  ended {until} (from {})", e.valid_from.as_deref().unwrap_or("undated"))
                        }
                        (None, true) => format!("  since {}", e.valid_from.as_deref().unwrap_or("undated")),
                        (None, false) => String::new(),
                    };
                    writeln!(
                        ctx.out,
                        "{:<20} {:<12} {:<28} {:.2}  [{}]{period}",
                        e.from,
                        e.edge_type,
                        e.to,
                        e.weight,
                        rules.join(", ")
                    )?;
                }
            }
        }
    }
    Ok(exit::OK)
}

pub fn explain(ctx: &mut Invocation, from: &str, edge_type: &str, to: &str, max_events: usize) -> anyhow::Result<u8> {
    let edge_type = EdgeType::parse(edge_type)?;
    let (store, params) = ctx.open_store_for_graph()?;
    let (from, to) = (resolve(&store, from)?, resolve(&store, to)?);
    let explanation = graph::explain::explain(&store, &params, &from, edge_type, &to, max_events)?;
    let code = if explanation.exists { exit::OK } else { exit::NOT_FOUND };
    if ctx.json {
        ctx.out.json(&explanation)?;
        return Ok(code);
    }
    // Written to a buffer first: the explanation quotes session sentences, which are
    // passed through `printable` before they reach the terminal.
    let mut text: Vec<u8> = Vec::new();
    let out = &mut text;
    let e = &explanation;
    match (e.weight, &e.ended) {
        (Some(w), Some(until)) => writeln!(
            out,
            "{} {} {}: ended {until} (held from {}, weight {w:.3} then)",
            e.from,
            e.edge_type,
            e.to,
            e.valid_from.as_deref().unwrap_or("undated")
        )?,
        (Some(w), None) => writeln!(
            out,
            "{} {} {}: weight {w:.3}{}",
            e.from,
            e.edge_type,
            e.to,
            e.valid_from.as_deref().map(|d| format!(", since {d}")).unwrap_or_default()
        )?,
        (None, _) => writeln!(out, "{} {} {}: no such edge", e.from, e.edge_type, e.to)?,
    }
    if !e.endings.is_empty() {
        let what = if e.ended.is_some() { "ended by" } else { "ended earlier, then started again; endings" };
        writeln!(out, "  {what}:")?;
        for unit in &e.endings {
            writeln!(out, "    • {}{}", unit.key, unit.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())?;
            for ev in &unit.events {
                writeln!(out, "        #{} {}  {}", ev.seq, ev.source, ev.text)?;
                if !ev.cue.is_empty() {
                    writeln!(out, "          cue: {}", ev.cue)?;
                }
            }
        }
    }
    if let Some(formula) = &e.weight_formula {
        writeln!(out, "  weight = {formula}")?;
    }
    for rule in &e.rules {
        writeln!(out, "\n  rule {} (term {:.3}): {}", rule.rule, rule.term, rule.description)?;
        writeln!(out, "    {}", rule.detail)?;
        for unit in &rule.units {
            writeln!(
                out,
                "    • {}{}  +{:.3}",
                unit.key,
                unit.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default(),
                unit.value
            )?;
            for ev in &unit.events {
                writeln!(out, "        #{} {}  {}", ev.seq, ev.source, ev.text)?;
                if !ev.cue.is_empty() {
                    writeln!(out, "          cue: {}", ev.cue)?;
                }
            }
        }
    }
    if let Some(f) = &e.feedback {
        writeln!(out, "\n  route feedback: {} useful, {} not useful → × {:.2}", f.useful, f.not_useful, f.factor)?;
    }
    if let Some(seq) = e.blocked_by_unlink {
        writeln!(out, "\n  blocked: unlinked by event #{seq}; `patina mother link` it again to restore")?;
    }
    if !e.near_misses.is_empty() {
        writeln!(out, "\n  closest rules:")?;
        for m in &e.near_misses {
            writeln!(out, "    {}: needs {}; found {}", m.rule, m.needs, m.found)?;
        }
    }
    for u in &e.unused_evidence {
        writeln!(out, "  note: {u}")?;
    }
    if !e.other_edges.is_empty() {
        writeln!(out, "  other edges between them: {}", e.other_edges.join("; "))?;
    }
    ctx.out.write_all(crate::output::printable(&String::from_utf8_lossy(&text)).as_bytes())?;
    Ok(code)
}

pub fn rules(ctx: &mut Invocation) -> anyhow::Result<u8> {
    let (store, params) = ctx.open_store_for_graph()?;
    let graph = current_graph(&store, &params)?;
    let rows: Vec<serde_json::Value> = graph::program::RULES
        .iter()
        .map(|r| {
            let edges = graph.edges.iter().filter(|e| e.firings.iter().any(|f| f.rule == r.name)).count();
            serde_json::json!({
                "name": r.name,
                "derives": r.edge_type.map(|t| graph::facts::edge_type(t).to_string()).unwrap_or_else(|| "any".into()),
                "description": r.description,
                "edges": edges,
            })
        })
        .collect();
    if ctx.json {
        ctx.out.json(&rows)?;
    } else {
        for r in &rows {
            writeln!(
                ctx.out,
                "{:<16} {:<12} {:>5} edges  {}",
                r["name"].as_str().unwrap_or(""),
                r["derives"].as_str().unwrap_or(""),
                r["edges"],
                r["description"].as_str().unwrap_or("")
            )?;
        }
    }
    Ok(exit::OK)
}

pub fn neighbors(ctx: &mut Invocation, id: &str, direction: &str, types: &[String]) -> anyhow::Result<u8> {
    let direction = Direction::parse(direction)
        .ok_or_else(|| anyhow::anyhow!("unknown direction '{direction}' (valid: in, out, both)"))?;
    let types = parse_types(types)?;
    let (store, _) = ctx.open_store_for_graph()?;
    let id = resolve(&store, id)?;
    let found = query::neighbors(&store, &id, direction, &types)?;
    if ctx.json {
        ctx.out.json(&found)?;
    } else {
        for n in &found {
            let (from, to) =
                if n.direction == "out" { (id.as_str(), n.id.as_str()) } else { (n.id.as_str(), id.as_str()) };
            writeln!(
                ctx.out,
                "{:<3} {from:<20} {:<12} {to:<28} {:.2}  [{}]",
                n.direction,
                n.edge_type,
                n.weight,
                n.rules.join(", ")
            )?;
        }
    }
    Ok(exit::OK)
}

pub fn path(ctx: &mut Invocation, from: &str, to: &str, max_hops: usize) -> anyhow::Result<u8> {
    let (store, _) = ctx.open_store_for_graph()?;
    let (from, to) = (resolve(&store, from)?, resolve(&store, to)?);
    let found = query::path(&store, &from, &to, max_hops)?;
    if ctx.json {
        let value = match &found {
            Some(edges) => serde_json::json!({
                "from": from, "to": to, "found": true,
                "hops": edges.iter().map(|(a, t, b, w)| serde_json::json!({"from": a, "type": t, "to": b, "weight": w})).collect::<Vec<_>>(),
                "cost": edges.iter().map(|h| 1.0 / h.3).sum::<f64>(),
            }),
            None => serde_json::json!({ "from": from, "to": to, "found": false, "hops": [] }),
        };
        ctx.out.json(&value)?;
    } else {
        match &found {
            Some(edges) if edges.is_empty() => writeln!(ctx.out, "{from} is {to}")?,
            Some(edges) => {
                for (a, t, b, w) in edges {
                    writeln!(ctx.out, "{a} {t} {b} ({w:.2})")?;
                }
            }
            None => writeln!(ctx.out, "no path from {from} to {to} within {max_hops} hops")?,
        }
    }
    Ok(if found.is_some() { exit::OK } else { exit::NOT_FOUND })
}

pub fn derive(ctx: &mut Invocation, check: bool, full: bool) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let params = ctx.params()?;
    let started = std::time::Instant::now();
    let refresh =
        if full { graph_store::refresh_full(&store, &params)? } else { graph_store::refresh(&store, &params)? };
    let mut report = serde_json::json!({
        "derived": refresh.derived, "incremental": refresh.incremental, "pairs": refresh.pairs,
        "through_seq": refresh.through_seq, "edges": refresh.edges,
        "added": refresh.diff.added.len(), "removed": refresh.diff.removed.len(),
        "reweighted": refresh.diff.reweighted.len(), "seconds": started.elapsed().as_secs_f64(),
    });
    let mut code = exit::OK;
    if check {
        let fresh = graph::derive::derive(&EventLog::new(&store), &params)?;
        let stored = graph_store::read(&store)?;
        let same = stored.as_ref() == Some(&fresh);
        report["check"] = serde_json::json!(if same { "identical" } else { "DIFFERENT" });
        if !same {
            code = exit::ERROR;
        }
    }
    if ctx.json {
        ctx.out.json(&report)?;
    } else {
        writeln!(
            ctx.out,
            "graph {} through #{}: {} edges (+{} -{} ~{}) in {:.3} s{}",
            match (refresh.derived, refresh.incremental) {
                (false, _) => "already current".to_string(),
                (true, false) => "derived from the whole log".to_string(),
                (true, true) => format!("updated incrementally ({} pair(s) touched)", refresh.pairs),
            },
            refresh.through_seq,
            refresh.edges,
            refresh.diff.added.len(),
            refresh.diff.removed.len(),
            refresh.diff.reweighted.len(),
            started.elapsed().as_secs_f64(),
            match report.get("check") {
                Some(c) => format!("; re-derived from scratch: {}", c.as_str().unwrap_or("")),
                None => String::new(),
            }
        )?;
    }
    Ok(code)
}
