//! `patina mother watch`: one line per graph change, on stdout (JSON lines with --json).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

use anyhow::Context;

use super::{Invocation, exit};
use crate::event::log::EventLog;
use crate::graph::{Edge, GraphDiff};
use crate::ingest::IngestOptions;
use crate::store::OpenOptions;
use crate::watch::{self, BatchReport, Notice, WatchOptions};

/// Why the watcher stopped: 0 not stopped, 2 SIGINT, 15 SIGTERM (ctrlc does not say
/// which, so both report as an interrupt).
static STOPPED: AtomicU8 = AtomicU8::new(0);

pub fn run(
    ctx: &mut Invocation,
    paths: &[PathBuf],
    once: bool,
    debounce: Duration,
    ingest: IngestOptions,
) -> anyhow::Result<u8> {
    let cues = ctx.cues(None)?;
    let store_path = ctx.home.store_path();
    // Opened here first so that creating the store (or replacing a leftover) is told on
    // stderr; each batch below opens it again for its duration only.
    let store = ctx.open_store()?;
    let roots = if paths.is_empty() {
        let nodes = EventLog::new(&store).nodes()?;
        if nodes.is_empty() {
            anyhow::bail!("no nodes are registered: run `patina mother sync --registry FILE` first");
        }
        watch::default_roots(&nodes)
    } else {
        watch::roots_for(paths)?
    };
    drop(store);
    if roots.is_empty() {
        anyhow::bail!("nothing to watch: no registered node has a path that exists here (pass PATH...)");
    }
    let options = WatchOptions {
        roots,
        debounce,
        ingest,
        cues,
        params_home: Some(ctx.home.clone()),
        open: OpenOptions::default(),
    };
    if once {
        let report = watch::catch_up(&store_path, &options).context("catching up")?;
        print_batch(ctx, &report)?;
        return Ok(exit::OK);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        STOPPED.store(2, Ordering::SeqCst);
        flag.store(true, Ordering::SeqCst);
    })
    .context("installing the Ctrl-C handler")?;
    let json = ctx.json;
    let mut failure: Option<std::io::Error> = None;
    watch::run(&store_path, &options, &stop, |n| {
        if failure.is_some() {
            return;
        }
        let result = match n {
            Notice::Watching(roots) => {
                for r in &roots {
                    let what = match (&r.only, r.recursive) {
                        (Some(f), _) => format!("{}", f.display()),
                        (None, true) => format!("{}/ (session logs, manifests, bench logs)", r.path.display()),
                        (None, false) => format!("{}/ (manifests)", r.path.display()),
                    };
                    eprintln!("patina: watching {what}");
                }
                Ok(())
            }
            Notice::RootGone(p) => {
                eprintln!("patina: {} disappeared; watching for it to come back", p.display());
                Ok(())
            }
            Notice::RootBack(p) => {
                eprintln!("patina: {} is back; catching up", p.display());
                Ok(())
            }
            Notice::Retrying(why) => {
                eprintln!("patina: batch failed, will retry: {why}");
                Ok(())
            }
            Notice::Batch(report) => {
                report_skipped(&report);
                print_changes(&mut ctx.out, json, &report)
            }
        };
        if let Err(e) = result {
            // stdout closed (e.g. piped into `head`): stop cleanly.
            failure = Some(e);
            stop.store(true, Ordering::SeqCst);
        }
    })?;
    if let Some(err) = failure {
        return Err(err.into());
    }
    eprintln!("patina: watch stopped; everything processed is committed");
    Ok(if STOPPED.load(Ordering::SeqCst) == 2 { 130 } else { exit::OK })
}

/// Files a batch did not read (a FIFO, a file over the cap…), on stderr.
fn report_skipped(report: &BatchReport) {
    for skipped in &report.ingest.skipped {
        eprintln!("patina: skipped {}: {}", skipped.path, skipped.reason);
    }
}

fn print_batch(ctx: &mut Invocation, report: &BatchReport) -> anyhow::Result<()> {
    report_skipped(report);
    print_changes(&mut ctx.out, ctx.json, report)?;
    if !ctx.json {
        let added: usize = report.ingest.added.values().sum();
        writeln!(
            ctx.out,
            "caught up: {} files read, {} unchanged, {added} events added, {} retracted; graph has {} edges",
            report.ingest.files_read, report.ingest.files_unchanged, report.ingest.retracted, report.edges
        )?;
    }
    Ok(())
}

fn latest_session(edge: &Edge) -> Option<String> {
    edge.firings
        .iter()
        .flat_map(|f| f.units.iter())
        .filter(|u| u.date.is_some())
        .max_by(|a, b| a.date.cmp(&b.date))
        .map(|u| u.key.clone())
}

/// Prints the graph changes of a batch: `+`, `-`, `~` lines (or JSON lines).
fn print_changes(out: &mut impl Write, json: bool, report: &BatchReport) -> std::io::Result<()> {
    let GraphDiff { added, removed, reweighted } = &report.diff;
    for e in added {
        let rule = e.firings.first().map(|f| f.rule.as_str()).unwrap_or("");
        let session = latest_session(e);
        if json {
            let line = serde_json::json!({"change": "added", "from": e.from, "type": e.edge_type, "to": e.to,
                "weight": e.weight, "rule": rule, "session": session, "latency_ms": report.latency_ms});
            writeln!(out, "{line}")?;
        } else {
            let session = session.map(|s| format!(", session {s}")).unwrap_or_default();
            writeln!(out, "+ {} {} {} {:.2} (rule: {rule}{session})", e.from, e.edge_type, e.to, e.weight)?;
        }
    }
    for e in removed {
        if json {
            let line = serde_json::json!({"change": "removed", "from": e.from, "type": e.edge_type, "to": e.to,
                "weight": e.weight, "latency_ms": report.latency_ms});
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "- {} {} {} (evidence removed or unlinked)", e.from, e.edge_type, e.to)?;
        }
    }
    for (old, new) in reweighted {
        if json {
            let line = serde_json::json!({"change": "reweighted", "from": new.from, "type": new.edge_type, "to": new.to,
                "old_weight": old.weight, "weight": new.weight, "latency_ms": report.latency_ms});
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "~ {} {} {} {:.2} → {:.2}", new.from, new.edge_type, new.to, old.weight, new.weight)?;
        }
    }
    out.flush()
}
