//! `patina repo add|update|embed|list|rm`.
//!
//! `add` and `update` make the lexical index live, then leave the chunks without a vector
//! to a detached background worker (`crate::worker`), or with `--wait` embed them here
//! with a progress bar. `embed --worker` is that worker's entry point.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::RepoCommand;
use crate::event::NodeKind;
use crate::event::log::EventLog;
use crate::models;
use crate::repo::{self, AddRequest};
use crate::search::backfill::{self, Outcome};
use crate::search::embed::{Embedder, OnnxEmbedder};
use crate::search::index::{BuildReport, Phase};
use crate::worker;

/// Where the chunks without a vector get embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Embedding {
    /// Lexical only (asked for, or no model).
    Off,
    /// By the background worker.
    Background,
    /// Here, before the command returns.
    Wait,
}

pub fn run(ctx: &mut Invocation, command: RepoCommand) -> anyhow::Result<u8> {
    match command {
        RepoCommand::Add { path, id, domains, kind, lexical_only, wait } => {
            add(ctx, path, id, domains, kind, plan(ctx, lexical_only, wait))
        }
        RepoCommand::Update { ids, all, lexical_only, wait } => update(ctx, ids, all, plan(ctx, lexical_only, wait)),
        RepoCommand::Embed { worker: true, .. } => run_worker(ctx),
        RepoCommand::Embed { ids, all, wait, worker: false } => embed(ctx, ids, all, wait),
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

/// The model's files, or `None` with one clear warning on stderr (lexical only then).
fn model_paths(ctx: &Invocation) -> Option<models::ModelPaths> {
    let dir = models::models_dir(&ctx.home);
    let paths = models::locate(&dir);
    if paths.is_none() {
        eprintln!(
            "patina: the embedding model is not in {} (run `patina models fetch`); indexing for lexical search only",
            dir.display()
        );
    }
    paths
}

fn plan(ctx: &Invocation, lexical_only: bool, wait: bool) -> Embedding {
    if lexical_only || model_paths(ctx).is_none() {
        Embedding::Off
    } else if wait {
        Embedding::Wait
    } else {
        Embedding::Background
    }
}

fn add(
    ctx: &mut Invocation,
    path: String,
    id: Option<String>,
    domains: Option<Vec<String>>,
    kind: Option<String>,
    embedding: Embedding,
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
                return add_dir(ctx, store, AddRequest { path: root, id: Some(node.id), kind, domains }, embedding);
            }
            _ => anyhow::bail!("{path}: not a directory, nor a registered node with a path"),
        }
    };
    add_dir(ctx, store, AddRequest { path: dir, id, kind, domains }, embedding)
}

fn add_dir(
    ctx: &mut Invocation,
    store: crate::store::Store,
    request: AddRequest,
    embedding: Embedding,
) -> anyhow::Result<u8> {
    let registered = repo::register(&EventLog::new(&store), &request).context("registering the repo")?;
    // Nothing below needs the store: let the worker and other commands have it.
    drop(store);
    let mut reports = index_all(ctx, std::slice::from_ref(&registered.node), embedding)?;
    let report = reports.remove(0);
    if ctx.json {
        ctx.out.json(&serde_json::json!({ "node": registered.node, "seq": registered.seq, "index": report }))?;
    } else {
        let verb = if registered.seq.is_some() { "registered" } else { "already registered" };
        writeln!(ctx.out, "{verb} {} ({})", registered.node.id, registered.node.path.as_deref().unwrap_or(""))?;
        print_report(ctx, &report)?;
    }
    Ok(exit::OK)
}

fn update(ctx: &mut Invocation, ids: Vec<String>, all: bool, embedding: Embedding) -> anyhow::Result<u8> {
    let store = ctx.open_store()?;
    let nodes = EventLog::new(&store).nodes()?;
    drop(store);
    let targets: Vec<_> = if all {
        nodes.values().filter(|n| n.path.is_some()).cloned().collect()
    } else {
        ids.iter().map(|id| repo::resolve(&nodes, id)).collect::<Result<_, _>>()?
    };
    let reports = index_all(ctx, &targets, embedding)?;
    if ctx.json {
        ctx.out.json(&reports)?;
    } else {
        for report in &reports {
            print_report(ctx, report)?;
        }
    }
    Ok(exit::OK)
}

/// Indexes `nodes` (lexical part first, live at once), then embeds what is pending: here
/// with `Wait`, else one background worker for all of them.
fn index_all(
    ctx: &Invocation,
    nodes: &[crate::event::NodeRegistered],
    embedding: Embedding,
) -> anyhow::Result<Vec<BuildReport>> {
    let model_id = (embedding != Embedding::Off).then_some(models::MODEL_ID);
    let mut reports = Vec::with_capacity(nodes.len());
    let mut embedder: Option<OnnxEmbedder> = None;
    for node in nodes {
        let mut report = index_one(ctx, node, model_id)?;
        if report.chunks_pending > 0 && embedding == Embedding::Wait {
            let embedder = match &mut embedder {
                Some(loaded) => loaded,
                None => embedder.insert(load_model(ctx)?),
            };
            let done = embed_here(ctx, &node.id, embedder)?;
            report.chunks_embedded = done.embedded_now;
            report.chunks_pending = done.pending;
            report.embed_ms = done.elapsed_ms;
            report.elapsed_ms += done.elapsed_ms;
            report.embedding = if done.pending == 0 { "complete" } else { "pending" };
        }
        reports.push(report);
    }
    if reports.iter().any(|r| r.embedding == "pending") && embedding == Embedding::Background {
        match start_worker(ctx) {
            Ok(()) => reports.iter_mut().filter(|r| r.embedding == "pending").for_each(|r| r.embedding = "background"),
            Err(e) => eprintln!("patina: could not start the embedding worker ({e:#}); run `patina repo embed --wait`"),
        }
    }
    Ok(reports)
}

/// The real model, loaded for embedding here; a failure leaves lexical search live.
fn load_model(ctx: &Invocation) -> anyhow::Result<OnnxEmbedder> {
    let dir = models::models_dir(&ctx.home);
    let paths = models::locate(&dir).ok_or_else(|| {
        anyhow::anyhow!("the embedding model is not in {} (run `patina models fetch`)", dir.display())
    })?;
    OnnxEmbedder::load(&paths).context("loading the embedding model (lexical search is live meanwhile)")
}

/// Starts the detached worker (or finds one waiting to run).
fn start_worker(ctx: &Invocation) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("finding the patina executable")?;
    worker::spawn(&ctx.home, &exe).context("starting the embedding worker")?;
    Ok(())
}

fn progress_bar(prefix: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>10} {msg:<10} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    bar
}

/// Builds the lexical part of one repo's index (with the cached vectors of `model_id`).
fn index_one(
    ctx: &Invocation,
    node: &crate::event::NodeRegistered,
    model_id: Option<&str>,
) -> anyhow::Result<BuildReport> {
    let bar = progress_bar(&node.id);
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
    let report = repo::index(&ctx.home, node, model_id, &mut progress).with_context(|| format!("indexing {}", node.id));
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

/// Embeds a repo's pending chunks here, with a progress bar. When another process embeds
/// it (the background worker), follows that one's progress until it lets go, then
/// finishes whatever is left.
fn embed_here(ctx: &Invocation, id: &str, embedder: &mut OnnxEmbedder) -> anyhow::Result<backfill::Report> {
    let bar = progress_bar(id);
    bar.set_message("embedding");
    let mut shown = |p: &backfill::Progress| {
        bar.set_length(p.total);
        bar.set_position(p.done);
    };
    let repo_dir = ctx.home.repo_dir(id);
    let report = loop {
        let report = repo::embed(&ctx.home, id, embedder, &mut shown).with_context(|| format!("embedding {id}"));
        match report {
            Ok(r) if matches!(r.outcome, Outcome::Busy { .. }) => {
                bar.set_message("worker");
                while backfill::embedder_of(&repo_dir).is_held() {
                    if let Some(p) = backfill::Progress::read(&repo_dir) {
                        shown(&p);
                    }
                    std::thread::sleep(Duration::from_millis(300));
                }
                bar.set_message("embedding");
            }
            other => break other,
        }
    };
    bar.finish_and_clear();
    let report = report?;
    match report.outcome {
        Outcome::Gone => anyhow::bail!("{id}: the index was removed while embedding"),
        Outcome::LexicalOnly => {
            anyhow::bail!(
                "{id} is indexed for lexical search only; `patina repo update {id}` indexes it for semantic search too"
            )
        }
        _ => Ok(report),
    }
}

/// `repo embed [IDS | --all] [--wait]`: resume or start embedding.
fn embed(ctx: &mut Invocation, ids: Vec<String>, all: bool, wait: bool) -> anyhow::Result<u8> {
    let store = ctx.open_store_read_only()?;
    let statuses = repo::list(&EventLog::new(&store), &ctx.home)?;
    let nodes = EventLog::new(&store).nodes()?;
    drop(store);
    let targets: Vec<String> = if all {
        statuses.iter().filter(|s| s.embedding.is_some()).map(|s| s.id.clone()).collect()
    } else {
        ids.iter().map(|id| repo::resolve(&nodes, id).map(|n| n.id)).collect::<Result<_, _>>()?
    };
    let mut todo = Vec::new();
    for id in &targets {
        let status = statuses.iter().find(|s| s.id == *id).ok_or_else(|| anyhow::anyhow!("unknown repo '{id}'"))?;
        match (&status.embedding, status.state) {
            (_, "not-indexed") => anyhow::bail!("{id} has no index yet (run `patina repo update {id}`)"),
            (_, "unreadable") => anyhow::bail!("{id}: {}", status.error.as_deref().unwrap_or("unreadable index")),
            (None, _) => anyhow::bail!(
                "{id} is indexed for lexical search only; `patina repo update {id}` indexes it for semantic search too"
            ),
            (Some(e), _) if e.embedded >= e.chunks && e.model_id == models::MODEL_ID => {}
            (Some(_), _) => todo.push(id.clone()),
        }
    }
    let dir = models::models_dir(&ctx.home);
    if !todo.is_empty() && models::locate(&dir).is_none() {
        anyhow::bail!("the embedding model is not in {} (run `patina models fetch`)", dir.display());
    }
    let mut reports = Vec::new();
    if wait {
        let mut embedder = None;
        for id in &todo {
            let embedder = match &mut embedder {
                Some(loaded) => loaded,
                None => embedder.insert(load_model(ctx)?),
            };
            reports.push(embed_here(ctx, id, embedder)?);
        }
    } else if !todo.is_empty() {
        start_worker(ctx)?;
    }
    if ctx.json {
        let value = serde_json::json!({ "repos": targets, "embedding": todo, "background": !wait && !todo.is_empty(), "reports": reports });
        ctx.out.json(&value)?;
    } else if targets.is_empty() {
        writeln!(ctx.out, "nothing to embed: no repo is indexed for semantic search")?;
    } else if todo.is_empty() {
        writeln!(ctx.out, "nothing to embed: {} fully embedded", targets.join(", "))?;
    } else if wait {
        for r in &reports {
            writeln!(ctx.out, "embedded {}: {}/{} chunks", r.repo, r.chunks - r.pending, r.chunks)?;
        }
    } else {
        writeln!(ctx.out, "embedding {} in the background (`patina repo list` shows progress)", todo.join(", "))?;
    }
    Ok(exit::OK)
}

/// `repo embed --worker`: the detached background worker. Runs at low priority, logs to
/// its stderr (the worker log), exits when no repo has chunks pending.
fn run_worker(ctx: &mut Invocation) -> anyhow::Result<u8> {
    // SAFETY: setpriority on this process only; a failure just leaves the priority as is.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 10) };
    let dir = models::models_dir(&ctx.home);
    let mut load = || -> Result<Box<dyn Embedder>, String> {
        let paths = models::locate(&dir)
            .ok_or_else(|| format!("the embedding model is not in {} (run `patina models fetch`)", dir.display()))?;
        OnnxEmbedder::load(&paths).map(|e| Box::new(e) as Box<dyn Embedder>).map_err(|e| e.to_string())
    };
    let pid = std::process::id();
    let mut log = |line: String| {
        eprintln!("{} worker {pid}: {line}", jiff::Timestamp::now().round(jiff::Unit::Second).unwrap_or_default())
    };
    log("started".into());
    let report = worker::run(&ctx.home, models::MODEL_ID, &mut load, &mut log).context("embedding worker")?;
    log(if report.queued_elsewhere {
        "another worker is queued; exiting".into()
    } else {
        "nothing left to embed; exiting".into()
    });
    Ok(exit::OK)
}

fn print_report(ctx: &mut Invocation, r: &BuildReport) -> anyhow::Result<()> {
    let semantic = match (&r.model_id, r.embedding) {
        (None, _) => "lexical only".to_string(),
        (Some(m), "background") => {
            format!(
                "semantic: {m}, {} chunks left to embed in the background (`patina repo list` shows progress)",
                r.chunks_pending
            )
        }
        (Some(m), "pending") => {
            format!("semantic: {m}, {} chunks not embedded yet (`patina repo embed {}`)", r.chunks_pending, r.repo)
        }
        (Some(m), _) => format!("semantic: {m}"),
    };
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
        semantic,
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

/// `12/401 embedded (3%, embedding, 16.2 chunks/s, ~24 s left)`.
fn embedding_text(e: &repo::Embedding, id: &str) -> String {
    use backfill::State;
    let shown = e.done.unwrap_or(e.embedded).max(e.embedded);
    let share = if e.chunks == 0 { 100.0 } else { 100.0 * shown as f64 / e.chunks as f64 };
    let how = match e.state {
        State::Done => return format!("{}, {}/{} embedded", e.model_id, e.embedded, e.chunks),
        State::Embedding => {
            let mut how = "embedding".to_string();
            if let Some(rate) = e.chunks_per_s {
                how.push_str(&format!(", {rate:.1} chunks/s"));
            }
            if let Some(eta) = e.eta_s {
                how.push_str(&format!(", ~{} left", human_secs(eta)));
            }
            how
        }
        State::Queued => "queued for the background worker".to_string(),
        State::Stalled => format!("stalled: `patina repo embed {id}` resumes"),
        State::Failed => format!("failed: {}", e.error.as_deref().unwrap_or("see `patina repo list --json`")),
    };
    format!("{}, {shown}/{} embedded ({share:.0}%, {how})", e.model_id, e.chunks)
}

fn human_secs(secs: u64) -> String {
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
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
                r.embedding.as_ref().map_or("lexical only".to_string(), |e| embedding_text(e, &r.id))
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
