//! `patina repo add|update|list|rm`.

use std::io::{IsTerminal, Write};

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::RepoCommand;
use crate::event::NodeKind;
use crate::event::log::EventLog;
use crate::models;
use crate::repo::{self, AddRequest};
use crate::search::embed::{Embedder, OnnxEmbedder};
use crate::search::index::{BuildReport, Phase};

pub fn run(ctx: &mut Invocation, command: RepoCommand) -> anyhow::Result<u8> {
    match command {
        RepoCommand::Add { path, id, domains, kind, lexical_only } => add(ctx, path, id, domains, kind, lexical_only),
        RepoCommand::Update { ids, all, lexical_only } => update(ctx, ids, all, lexical_only),
        RepoCommand::List => list(ctx),
        RepoCommand::Rm { id } => {
            let store = ctx.open_store()?;
            let id = repo::remove(&EventLog::new(&store), &ctx.home, &id)?;
            if ctx.json {
                ctx.out.json(&serde_json::json!({ "removed": id }))?;
            } else {
                writeln!(ctx.out, "removed {id} (node-removed event appended, index deleted)")?;
            }
            Ok(exit::OK)
        }
    }
}

/// The real model, or `None` with one clear warning on stderr.
pub fn load_embedder(ctx: &Invocation, lexical_only: bool) -> Option<OnnxEmbedder> {
    if lexical_only {
        return None;
    }
    let dir = models::models_dir(&ctx.home);
    let Some(paths) = models::locate(&dir) else {
        eprintln!(
            "patina: the embedding model is not in {} (run `patina models fetch`); indexing for lexical search only",
            dir.display()
        );
        return None;
    };
    match OnnxEmbedder::load(&paths) {
        Ok(embedder) => Some(embedder),
        Err(e) => {
            eprintln!("patina: {e}; indexing for lexical search only");
            None
        }
    }
}

fn add(
    ctx: &mut Invocation,
    path: String,
    id: Option<String>,
    domains: Option<Vec<String>>,
    kind: Option<String>,
    lexical_only: bool,
) -> anyhow::Result<u8> {
    let kind = kind
        .map(|k| NodeKind::parse(&k).ok_or_else(|| anyhow::anyhow!("unknown kind '{k}' (valid: project, reference)")))
        .transpose()?;
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    // PATH may name a registered node (e.g. synced from a registry) instead of a directory.
    let as_dir = std::path::Path::new(&path);
    let dir = if as_dir.is_dir() {
        as_dir.to_path_buf()
    } else {
        let nodes = log.nodes()?;
        match repo::resolve(&nodes, &path) {
            Ok(node) if id.is_none() || id.as_deref() == Some(node.id.as_str()) => {
                let root = repo::node_root(&node)?;
                return add_dir(ctx, &log, AddRequest { path: root, id: Some(node.id), kind, domains }, lexical_only);
            }
            _ => anyhow::bail!("{path}: not a directory, nor a registered node with a path"),
        }
    };
    add_dir(ctx, &log, AddRequest { path: dir, id, kind, domains }, lexical_only)
}

fn add_dir(ctx: &mut Invocation, log: &EventLog<'_>, request: AddRequest, lexical_only: bool) -> anyhow::Result<u8> {
    let registered = repo::register(log, &request).context("registering the repo")?;
    let mut embedder = load_embedder(ctx, lexical_only);
    let report = index_one(ctx, &registered.node, embedder.as_mut().map(|e| e as &mut dyn Embedder))?;
    if ctx.json {
        ctx.out.json(&serde_json::json!({ "node": registered.node, "seq": registered.seq, "index": report }))?;
    } else {
        let verb = if registered.seq.is_some() { "registered" } else { "already registered" };
        writeln!(ctx.out, "{verb} {} ({})", registered.node.id, registered.node.path.as_deref().unwrap_or(""))?;
        print_report(ctx, &report)?;
    }
    Ok(exit::OK)
}

fn update(ctx: &mut Invocation, ids: Vec<String>, all: bool, lexical_only: bool) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let nodes = EventLog::new(&store).nodes()?;
    drop(store);
    let targets: Vec<_> = if all {
        nodes.values().filter(|n| n.path.is_some()).cloned().collect()
    } else {
        ids.iter().map(|id| repo::resolve(&nodes, id)).collect::<Result<_, _>>()?
    };
    let mut embedder = load_embedder(ctx, lexical_only);
    let mut reports = Vec::new();
    for node in &targets {
        let report = index_one(ctx, node, embedder.as_mut().map(|e| e as &mut dyn Embedder))?;
        if !ctx.json {
            print_report(ctx, &report)?;
        }
        reports.push(report);
    }
    if ctx.json {
        ctx.out.json(&reports)?;
    }
    Ok(exit::OK)
}

fn index_one(
    ctx: &Invocation,
    node: &crate::event::NodeRegistered,
    embedder: Option<&mut dyn Embedder>,
) -> anyhow::Result<BuildReport> {
    let show = std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if !show {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>10} {msg:<10} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(node.id.clone());
    let mut last_phase = None;
    let mut progress = |phase: Phase, done: u64, total: u64| {
        if last_phase != Some(phase) {
            last_phase = Some(phase);
            bar.reset();
            bar.set_message(match phase {
                Phase::Scan => "reading",
                Phase::Embed => "embedding",
                Phase::Write => "writing",
            });
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let report = repo::index(&ctx.home, node, embedder, &mut progress).with_context(|| format!("indexing {}", node.id));
    bar.finish_and_clear();
    let report = report?;
    for skipped in report.skipped.iter().take(5) {
        eprintln!("patina: {}: skipped {}: {}", node.id, skipped.path, skipped.reason);
    }
    if report.skipped.len() > 5 {
        eprintln!("patina: {}: … {} more files skipped (see --json)", node.id, report.skipped.len() - 5);
    }
    Ok(report)
}

fn print_report(ctx: &mut Invocation, r: &BuildReport) -> anyhow::Result<()> {
    writeln!(
        ctx.out,
        "{} {}: {} files ({} changed, {} unchanged, {} removed, {} skipped), {} chunks, {} embedded now, {} from cache, {} ({}), {:.1}s",
        if r.up_to_date { "up to date" } else { "indexed" },
        r.repo,
        r.files,
        r.files_changed,
        r.files_unchanged,
        r.files_removed,
        r.skipped.len(),
        r.chunks,
        r.chunks_embedded,
        r.chunks_cached,
        human_bytes(r.index_bytes),
        r.model_id.as_deref().map_or("lexical only".to_string(), |m| format!("semantic: {m}")),
        r.elapsed_ms as f64 / 1000.0
    )?;
    Ok(())
}

pub fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

fn list(ctx: &mut Invocation) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let repos = repo::list(&EventLog::new(&store), &ctx.home)?;
    if ctx.json {
        ctx.out.json(&repos)?;
        return Ok(exit::OK);
    }
    for r in &repos {
        let index = match r.state {
            "indexed" => format!(
                "{} files, {} chunks, {}, {}",
                r.files.unwrap_or(0),
                r.chunks.unwrap_or(0),
                human_bytes(r.index_bytes.unwrap_or(0)),
                r.model_id.as_deref().unwrap_or("lexical only")
            ),
            "unreadable" => format!("unreadable: {}", r.error.as_deref().unwrap_or("")),
            _ => "not indexed".to_string(),
        };
        writeln!(
            ctx.out,
            "{:<16} {:<9} {}  [{}]  {}",
            r.id,
            r.kind.as_str(),
            r.path.as_deref().unwrap_or("(no path)"),
            r.domains.join(","),
            index
        )?;
    }
    Ok(exit::OK)
}
