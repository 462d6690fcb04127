//! `patina mother …`: sync, link, unlink, log, stats.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::MotherCommand;
use crate::event::log::EventLog;
use crate::event::{EdgeType, EventKind, Source};
use crate::mother::{self, LinkOutcome, LinkRequest};
use crate::output::{event_json, event_line};

pub fn run(ctx: &mut Invocation, command: MotherCommand) -> anyhow::Result<u8> {
    match command {
        MotherCommand::Sync { registry, prune } => sync(ctx, registry, prune),
        MotherCommand::Ingest { paths, project, max_file_size, cues, force } => {
            let options = crate::ingest::IngestOptions { project, max_file_bytes: max_file_size, force };
            super::ingest::run(ctx, &paths, &options, cues)
        }
        MotherCommand::Link { from, edge_type, to, evidence, weight } => {
            let edge_type = EdgeType::parse(&edge_type)?;
            let store = ctx.open_store()?;
            let log = EventLog::new(&store);
            let request = LinkRequest { from, edge_type, to, evidence, weight, source: Source::Cli };
            let outcome = mother::link(&log, request)?;
            super::graph::refresh_after_write(&store, &ctx.params()?)?;
            print_link(ctx, "linked", &outcome)
        }
        MotherCommand::Unlink { from, edge_type, to, reason } => {
            let edge_type = EdgeType::parse(&edge_type)?;
            let store = ctx.open_store()?;
            let log = EventLog::new(&store);
            let request = LinkRequest { from, edge_type, to, evidence: reason, weight: None, source: Source::Cli };
            let outcome = mother::unlink(&log, request)?;
            super::graph::refresh_after_write(&store, &ctx.params()?)?;
            print_link(ctx, "unlinked", &outcome)
        }
        MotherCommand::Log { since, kind, node, limit, follow: false } => log(ctx, since, kind, node, limit),
        MotherCommand::Log { since, kind, node, follow: true, .. } => follow(ctx, since, kind, node),
        MotherCommand::Stats => stats(ctx),
        MotherCommand::Repair => repair(ctx),
        MotherCommand::Watch { paths, once, debounce_ms, project, max_file_size } => {
            let options = crate::ingest::IngestOptions { project, max_file_bytes: max_file_size, force: false };
            super::watch::run(ctx, &paths, once, std::time::Duration::from_millis(debounce_ms), options)
        }
        MotherCommand::Graph { nodes, edges: _, edge_types, format, all, as_of } => {
            super::graph::graph(ctx, nodes, &edge_types, format, all, as_of.as_deref())
        }
        MotherCommand::Explain { from, edge_type, to, max_events } => {
            super::graph::explain(ctx, &from, &edge_type, &to, max_events)
        }
        MotherCommand::Rules => super::graph::rules(ctx),
        MotherCommand::Candidates { min_sessions, samples } => candidates(ctx, min_sessions, samples),
        MotherCommand::Neighbors { id, direction, edge_types } => {
            super::graph::neighbors(ctx, &id, &direction, &edge_types)
        }
        MotherCommand::Path { from, to, max_hops } => super::graph::path(ctx, &from, &to, max_hops),
        MotherCommand::Derive { check, full } => super::graph::derive(ctx, check, full),
    }
}

fn sync(ctx: &mut Invocation, registry: Option<std::path::PathBuf>, prune: bool) -> anyhow::Result<u8> {
    let path = registry.unwrap_or_else(|| ctx.home.registry_path());
    if !path.exists() {
        anyhow::bail!("{}: no registry file here (pass --registry FILE; format in the README)", path.display());
    }
    let path = std::path::absolute(&path).unwrap_or(path);
    let registry = crate::registry::load(&path)?;
    for warning in &registry.warnings {
        eprintln!("patina: warning: {warning}");
    }
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    let report = mother::sync(&log, &registry, prune, |_| {}).context("syncing the registry")?;
    super::graph::refresh_after_write(&store, &ctx.params()?)?;
    if ctx.json {
        ctx.out.json(&report)?;
    } else {
        writeln!(
            ctx.out,
            "synced {}: {} nodes, {} added, {} changed, {} unchanged",
            report.registry,
            report.nodes_in_registry,
            report.added.len(),
            report.changed.len(),
            report.unchanged
        )?;
        for id in &report.added {
            writeln!(ctx.out, "  + {id}")?;
        }
        for id in &report.changed {
            writeln!(ctx.out, "  ~ {id}")?;
        }
        for id in &report.removed {
            writeln!(ctx.out, "  - {id}")?;
        }
        if !report.not_in_registry.is_empty() {
            writeln!(
                ctx.out,
                "  kept {} registered nodes not in this registry (use --prune to remove): {}",
                report.not_in_registry.len(),
                report.not_in_registry.join(", ")
            )?;
        }
    }
    Ok(exit::OK)
}

fn print_link(ctx: &mut Invocation, verb: &str, outcome: &LinkOutcome) -> anyhow::Result<u8> {
    if ctx.json {
        ctx.out.json(outcome)?;
    } else {
        match outcome.seq {
            Some(seq) => {
                writeln!(ctx.out, "{verb} {} {} {} (event #{seq})", outcome.from, outcome.edge_type, outcome.to)?
            }
            None => writeln!(
                ctx.out,
                "already {verb}: {} {} {} (nothing appended)",
                outcome.from, outcome.edge_type, outcome.to
            )?,
        }
    }
    Ok(exit::OK)
}

fn log(
    ctx: &mut Invocation,
    since: Option<u64>,
    kind: Option<String>,
    node: Option<String>,
    limit: Option<usize>,
) -> anyhow::Result<u8> {
    let kind = kind.as_deref().map(EventKind::parse).transpose()?;
    let store = ctx.open_store_read_only()?;
    let log = EventLog::new(&store);
    let mut events = match (&kind, &node) {
        (Some(kind), _) => log.by_kind(*kind)?,
        (None, Some(node)) => log.by_node(node)?,
        (None, None) => log.range(since.map_or(0, |s| s + 1)..)?,
    };
    events.retain(|e| {
        since.is_none_or(|s| e.seq > s)
            && kind.is_none_or(|k| e.event.kind() == k)
            && node.as_deref().is_none_or(|n| e.event.nodes().contains(&n))
    });
    if let Some(limit) = limit {
        let skip = events.len().saturating_sub(limit);
        events.drain(..skip);
    }
    if ctx.json {
        write!(ctx.out, "[")?;
        for (i, event) in events.iter().enumerate() {
            let value = event_json(event, log.is_live(event)?);
            write!(ctx.out, "{}\n  {}", if i == 0 { "" } else { "," }, serde_json::to_string(&value)?)?;
        }
        writeln!(ctx.out, "{}]", if events.is_empty() { "" } else { "\n" })?;
    } else {
        for event in &events {
            writeln!(ctx.out, "{}", event_line(event, log.is_live(event)?))?;
        }
    }
    Ok(exit::OK)
}

/// `mother log --follow`: every event after `since` (matching the filters), then each new
/// one as it is appended, polling the store read-only (a stat per poll; the store is
/// opened only when its file moved). JSON lines with `--json`, so a log shipper (Kafka,
/// Redpanda) can carry them; resumable with `--since` the last seq printed.
fn follow(ctx: &mut Invocation, since: Option<u64>, kind: Option<String>, node: Option<String>) -> anyhow::Result<u8> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let kind = kind.as_deref().map(EventKind::parse).transpose()?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).context("installing the signal handler")?;
    let path = ctx.home.store_path();
    let stamp = || std::fs::metadata(&path).ok().map(|m| (m.len(), m.modified().ok()));
    let mut last = since.unwrap_or(0);
    let mut seen = None;
    while !stop.load(Ordering::SeqCst) {
        let now = stamp();
        if now != seen || seen.is_none() {
            seen = now;
            let store = ctx.open_store_read_only()?;
            let log = EventLog::new(&store);
            for event in log.range(last + 1..)? {
                last = event.seq;
                let keep = kind.is_none_or(|k| event.event.kind() == k)
                    && node.as_deref().is_none_or(|n| event.event.nodes().contains(&n));
                if !keep {
                    continue;
                }
                let live = log.is_live(&event)?;
                if ctx.json {
                    writeln!(ctx.out, "{}", serde_json::to_string(&event_json(&event, live))?)?;
                } else {
                    writeln!(ctx.out, "{}", event_line(&event, live))?;
                }
            }
            ctx.out.flush()?;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    Ok(exit::OK)
}

fn candidates(ctx: &mut Invocation, min_sessions: usize, samples: usize) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let (found, skipped) = crate::ingest::candidates(&store, crate::ingest::DEFAULT_MAX_FILE_BYTES)?;
    let mut rows: Vec<serde_json::Value> = Vec::new();
    for refs in found.by_name.values() {
        let files: std::collections::BTreeSet<&str> = refs.iter().map(|(f, _)| f.as_str()).collect();
        if files.len() < min_sessions {
            continue;
        }
        let mut forms: Vec<&str> = refs.iter().map(|(_, r)| r.form).collect();
        forms.sort_unstable();
        forms.dedup();
        rows.push(serde_json::json!({
            "name": refs[0].1.name,
            "references": refs.len(),
            "sessions": files.len(),
            "forms": forms,
            "samples": refs.iter().take(samples).map(|(f, r)| serde_json::json!({
                "source": format!("{f}:{}", r.line), "form": r.form, "text": r.text,
            })).collect::<Vec<_>>(),
        }));
    }
    rows.sort_by(|a, b| {
        (b["sessions"].as_u64(), b["references"].as_u64(), a["name"].as_str()).cmp(&(
            a["sessions"].as_u64(),
            a["references"].as_u64(),
            b["name"].as_str(),
        ))
    });
    for s in &skipped {
        eprintln!("patina: skipped {}: {}", crate::output::printable(&s.path), s.reason);
    }
    if ctx.json {
        ctx.out.json(&rows)?;
        return Ok(exit::OK);
    }
    if rows.is_empty() {
        writeln!(ctx.out, "no unregistered repos referenced in the ingested session logs")?;
        return Ok(exit::OK);
    }
    let mut text = String::new();
    for row in &rows {
        text.push_str(&format!(
            "{}  {} reference(s) in {} session(s) [{}]\n",
            row["name"].as_str().unwrap_or(""),
            row["references"],
            row["sessions"],
            row["forms"]
                .as_array()
                .map(|f| f.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(", "))
                .unwrap_or_default()
        ));
        for sample in row["samples"].as_array().into_iter().flatten() {
            text.push_str(&format!(
                "    {}  {}\n",
                sample["source"].as_str().unwrap_or(""),
                sample["text"].as_str().unwrap_or("")
            ));
        }
    }
    text.push_str("register one in the registry file and run `patina mother sync` to make it a node\n");
    write!(ctx.out, "{}", crate::output::printable(&text))?;
    Ok(exit::OK)
}

fn repair(ctx: &mut Invocation) -> anyhow::Result<u8> {
    let path = ctx.home.store_path();
    if !path.exists() {
        anyhow::bail!("{}: no store to repair", path.display());
    }
    let report = crate::damage::repair(&path).context("repairing the mother store")?;
    if ctx.json {
        ctx.out.json(&report)?;
        return Ok(exit::OK);
    }
    writeln!(ctx.out, "kept       {} events (through #{})", report.kept, report.last_seq)?;
    writeln!(
        ctx.out,
        "lost       {} below #{} ({} records read but not decodable)",
        report.lost, report.last_seq, report.undecodable
    )?;
    if let Some(problem) = &report.first_problem {
        writeln!(ctx.out, "problem    {problem}")?;
    }
    writeln!(ctx.out, "backup     {}", report.backup.display())?;
    writeln!(ctx.out, "store      {} (indexes rebuilt; the graph is re-derived on the next write)", path.display())?;
    Ok(exit::OK)
}

fn stats(ctx: &mut Invocation) -> anyhow::Result<u8> {
    let store = ctx.open_store_read_only()?;
    let stats = EventLog::new(&store).stats()?;
    let params = ctx.params()?;
    let graph = super::graph::current_graph(&store, &params)?;
    let figures = crate::graph::query::stats(&graph, params.max_domain_members);
    if ctx.json {
        let mut value = serde_json::to_value(&stats)?;
        value["graph"] = serde_json::to_value(&figures)?;
        ctx.out.json(&value)?;
        return Ok(exit::OK);
    }
    writeln!(ctx.out, "store      {}", store.path().display())?;
    writeln!(ctx.out, "size       {} bytes", stats.store_bytes)?;
    writeln!(ctx.out, "events     {} ({} live)", stats.events, stats.live_events)?;
    if let (Some(first), Some(last)) = (stats.first_seq, stats.last_seq) {
        writeln!(ctx.out, "seq        {first}..={last}")?;
    }
    writeln!(ctx.out, "nodes      {}", stats.nodes)?;
    for (kind, n) in &stats.by_kind {
        writeln!(ctx.out, "  {kind:<16} {n}")?;
    }
    writeln!(
        ctx.out,
        "graph      {} nodes, {} edges, density {:.4}, {} components (largest {}, {} isolated nodes), derived through #{}",
        figures.nodes,
        figures.edges,
        figures.density,
        figures.components,
        figures.largest_component,
        figures.isolated_nodes,
        figures.through_seq
    )?;
    for (t, n) in &figures.edges_by_type {
        writeln!(ctx.out, "  {t:<16} {n}")?;
    }
    if !figures.broad_domains.is_empty() {
        let listed: Vec<String> = figures.broad_domains.iter().map(|(d, n)| format!("{d} ({n} nodes)")).collect();
        writeln!(
            ctx.out,
            "broad      {} (no DOMAIN or SIBLING edges: on too many nodes to tell them apart)",
            listed.join(", ")
        )?;
    }
    Ok(exit::OK)
}
