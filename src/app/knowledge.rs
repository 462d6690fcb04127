//! `patina belief list|show` and `patina context build`.

use std::io::Write;

use super::{Invocation, exit};
use crate::cli::{BeliefCommand, ContextCommand, ObserveArgs, RelateArgs, UnrelateArgs};
use crate::event::Source;
use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::knowledge::write;
use crate::knowledge::{Item, Knowledge, context};
use crate::output::printable;

pub fn belief(ctx: &mut Invocation, command: BeliefCommand) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    let knowledge = Knowledge::load(&log)?;
    match command {
        BeliefCommand::List { project } => {
            let nodes = log.nodes()?;
            let project = project.map(|p| resolve_node(&nodes, &p)).transpose()?;
            let beliefs: Vec<_> = knowledge.beliefs(project.as_deref()).collect();
            if ctx.json {
                let rows: Vec<_> = beliefs
                    .iter()
                    .map(|(e, b)| {
                        serde_json::json!({
                            "id": b.id, "project": b.project, "kind": b.kind, "status": b.status,
                            "confidence": b.confidence, "entrenchment": b.entrenchment, "persona": b.persona,
                            "facets": b.facets, "summary": b.summary, "source": e.source.to_string(),
                        })
                    })
                    .collect();
                ctx.out.json(&rows)?;
            } else {
                for (_, b) in &beliefs {
                    let confidence = b.confidence.map(|c| format!("{c:.2}")).unwrap_or_else(|| "-".into());
                    writeln!(
                        ctx.out,
                        "{:<36} {:<8} {:<9} {confidence:>4}  {}",
                        printable(&b.id),
                        b.kind,
                        printable(&b.status),
                        printable(&b.summary)
                    )?;
                }
                let unresolved = knowledge.unresolved().len();
                writeln!(
                    ctx.out,
                    "{} beliefs, {} relations, {unresolved} positions named without a file of their own",
                    beliefs.len(),
                    knowledge.links.len()
                )?;
            }
            Ok(if beliefs.is_empty() { exit::NOT_FOUND } else { exit::OK })
        }
        BeliefCommand::Show { id } => show_item(ctx, &knowledge, &id),
    }
}

/// `patina belief show ID` (also what `scry --detail` shows for a belief result).
pub fn show(ctx: &mut Invocation, id: &str) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let knowledge = Knowledge::load(&EventLog::new(&store))?;
    show_item(ctx, &knowledge, id)
}

fn show_item(ctx: &mut Invocation, knowledge: &Knowledge, id: &str) -> anyhow::Result<u8> {
    {
        {
            let Some(entry) = knowledge.get(id.trim()) else {
                anyhow::bail!("no belief or observation '{id}' (see `patina belief list`)");
            };
            let out: Vec<_> = knowledge.outgoing(entry.item.id()).cloned().collect();
            let inc: Vec<_> = knowledge.incoming(entry.item.id()).cloned().collect();
            if ctx.json {
                ctx.out.json(&serde_json::json!({
                    "item": entry.item, "source": entry.source.to_string(), "seq": entry.seq,
                    "relations_out": out, "relations_in": inc,
                }))?;
                return Ok(exit::OK);
            }
            let w = &mut ctx.out;
            match &entry.item {
                Item::Belief(b) => {
                    writeln!(w, "{} ({}, {}) — {}", printable(&b.id), b.kind, printable(&b.status), entry.source)?;
                    writeln!(w, "  {}", printable(&b.summary))?;
                    let mut facts = Vec::new();
                    if let Some(p) = &b.persona {
                        facts.push(format!("persona {p}"));
                    }
                    if let Some(c) = b.confidence {
                        facts.push(format!("confidence {c:.2}"));
                    }
                    if let Some(e) = &b.entrenchment {
                        facts.push(format!("entrenchment {e}"));
                    }
                    if !b.facets.is_empty() {
                        facts.push(format!("facets {}", b.facets.join(", ")));
                    }
                    writeln!(w, "  {}", printable(&facts.join("; ")))?;
                    writeln!(w, "statement:\n  {}", printable(&b.statement))?;
                    if !b.evidence.is_empty() {
                        writeln!(w, "evidence:")?;
                        for e in &b.evidence {
                            let weight = e.weight.map(|x| format!(" (weight {x:.2})")).unwrap_or_default();
                            writeln!(w, "  {}{weight}", printable(&e.cited()))?;
                        }
                    }
                    if !b.applied_in.is_empty() {
                        writeln!(w, "applied in:")?;
                        for a in &b.applied_in {
                            writeln!(w, "  {}", printable(a))?;
                        }
                    }
                }
                Item::Observation(o) => {
                    writeln!(w, "{} ({}) — {}", printable(&o.id), printable(&o.kind), entry.source)?;
                    writeln!(w, "  {}", printable(&o.text))?;
                }
            }
            for (title, links, other) in [("relations out:", &out, true), ("relations in:", &inc, false)] {
                if links.is_empty() {
                    continue;
                }
                writeln!(w, "{title}")?;
                for l in links {
                    let r = &l.relation;
                    let target = if other { &r.to } else { &r.from };
                    let known = if knowledge.get(target).is_some() { "" } else { " (no file of its own)" };
                    let note = r.note.as_deref().map(|n| format!(" ({})", printable(n))).unwrap_or_default();
                    writeln!(w, "  {} {}{known}{note}  — {}", r.rel_type, printable(target), l.source)?;
                }
            }
            Ok(exit::OK)
        }
    }
}

pub fn context(ctx: &mut Invocation, command: ContextCommand) -> anyhow::Result<u8> {
    let ContextCommand::Build { id, depth } = command;
    let store = ctx.open_store()?;
    let knowledge = Knowledge::load(&EventLog::new(&store))?;
    let built = context::build(&knowledge, id.trim(), depth)?;
    if ctx.json {
        ctx.out.json(&built)?;
        return Ok(exit::OK);
    }
    writeln!(ctx.out, "# context of {} (depth {})\n", printable(built.root), built.depth)?;
    for e in &built.entries {
        let indent = "  ".repeat(e.depth);
        let status = e.status.map(|s| format!(" [{s}]")).unwrap_or_default();
        let item = format!("**{}** ({}{status})", printable(e.id), e.kind);
        let line = match (&e.relation, e.direction, &e.via) {
            (Some(rel), Some("out"), Some(via)) => format!("{} {rel} → {item}", printable(via)),
            (Some(rel), Some(_), Some(via)) => format!("{item} {rel} → {}", printable(via)),
            _ => item,
        };
        let note = e.note.map(|n| format!(" ({})", printable(n))).unwrap_or_default();
        let summary = if e.summary.is_empty() { String::new() } else { format!(": {}", printable(e.summary)) };
        writeln!(ctx.out, "{indent}- {line}{note}{summary}")?;
    }
    Ok(exit::OK)
}

pub fn observe(ctx: &mut Invocation, args: ObserveArgs) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    if let Some(id) = &args.delete {
        let relations = write::forget(&log, id, Source::Cli)?;
        if ctx.json {
            ctx.out.json(&serde_json::json!({ "deleted": id, "relations_retracted": relations }))?;
        } else {
            writeln!(ctx.out, "deleted {} and {relations} relation(s) naming it", printable(id))?;
        }
        return Ok(exit::OK);
    }
    let nodes = log.nodes()?;
    let project = match &args.project {
        Some(p) => resolve_node(&nodes, p)?,
        None => {
            let cwd = std::env::current_dir()?;
            crate::repo::containing(&nodes, &cwd).map(|n| n.id).ok_or_else(|| {
                anyhow::anyhow!("{} is not inside a registered repo; pass --project ID", cwd.display())
            })?
        }
    };
    let observed =
        write::observe(&log, &project, args.text.as_deref().unwrap_or(""), &args.kind, &args.facets, Source::Cli)?;
    if ctx.json {
        ctx.out.json(&observed)?;
    } else {
        match observed.seq {
            Some(seq) => writeln!(ctx.out, "observed {} (event #{seq})", observed.id)?,
            None => writeln!(ctx.out, "already observed as {} (nothing appended)", observed.id)?,
        }
    }
    Ok(exit::OK)
}

pub fn relate(ctx: &mut Invocation, args: RelateArgs) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    let seqs = write::relate(
        &log,
        &args.from,
        &args.to,
        &args.rel_type,
        args.note.as_deref(),
        args.bidirectional,
        Source::Cli,
    )?;
    if ctx.json {
        ctx.out.json(&serde_json::json!({ "from": args.from, "to": args.to, "type": args.rel_type, "seqs": seqs }))?;
    } else {
        let both = if args.bidirectional { " (both ways)" } else { "" };
        writeln!(ctx.out, "related {} {} {}{both}", printable(&args.from), args.rel_type, printable(&args.to))?;
    }
    Ok(exit::OK)
}

pub fn unrelate(ctx: &mut Invocation, args: UnrelateArgs) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let n = write::unrelate(&EventLog::new(&store), &args.from, &args.to, args.rel_type.as_deref(), Source::Cli)?;
    if ctx.json {
        ctx.out.json(&serde_json::json!({ "from": args.from, "to": args.to, "retracted": n }))?;
    } else {
        writeln!(ctx.out, "removed {n} relation(s) from {} to {}", printable(&args.from), printable(&args.to))?;
    }
    Ok(exit::OK)
}
