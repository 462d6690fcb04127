//! `patina mother ingest`: progress bar, summary, exit code.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use super::{Invocation, exit};
use crate::ingest::{IngestOptions, IngestReport, Progress};

pub fn run(
    ctx: &mut Invocation,
    paths: &[PathBuf],
    options: &IngestOptions,
    cues: Option<PathBuf>,
) -> anyhow::Result<u8> {
    if let Some(path) = cues.as_deref().filter(|p| !p.exists()) {
        anyhow::bail!("{}: no such cue file", path.display());
    }
    let cues = ctx.cues(cues.as_deref())?;
    let store = ctx.open_store()?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{spinner} ingest {bar:30} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let started = Instant::now();
    let report = crate::ingest::ingest(&store, paths, options, cues, |p| {
        if let Some(bar) = &bar {
            match p {
                Progress::Found { files } => bar.set_length(files as u64),
                Progress::File { done } => bar.set_position(done as u64),
            }
        }
    })
    .context("ingesting")?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    super::graph::refresh_after_write(&store, &ctx.params()?)?;
    let seconds = started.elapsed().as_secs_f64();
    for warning in &report.warnings {
        eprintln!("patina: warning: {warning}");
    }
    for skipped in &report.skipped {
        eprintln!("patina: skipped {}: {}", skipped.path, skipped.reason);
    }
    for error in &report.errors {
        eprintln!("patina: {error}");
    }
    if ctx.json {
        let mut value = serde_json::to_value(&report)?;
        value["seconds"] = serde_json::json!(seconds);
        ctx.out.json(&value)?;
    } else {
        print_summary(&mut ctx.out, &report, seconds, paths)?;
    }
    Ok(if report.errors.is_empty() { exit::OK } else { exit::ERROR })
}

fn print_summary(out: &mut impl Write, report: &IngestReport, seconds: f64, paths: &[PathBuf]) -> std::io::Result<()> {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    writeln!(
        out,
        "ingested {}: {} files seen, {} read ({:.1} MiB), {} unchanged, {} skipped, {} gone, in {seconds:.2} s",
        shown.join(" "),
        report.files_seen,
        report.files_read,
        report.bytes_read as f64 / (1 << 20) as f64,
        report.files_unchanged,
        report.skipped.len(),
        report.files_gone,
    )?;
    let added: Vec<String> = report.added.iter().map(|(k, n)| format!("{n} {k}")).collect();
    writeln!(
        out,
        "events added: {}; facts retracted: {}",
        if added.is_empty() { "none".to_string() } else { added.join(", ") },
        report.retracted
    )?;
    if let Some(model) = report.exemplar_model.as_ref().filter(|_| report.exemplar_cues > 0) {
        writeln!(out, "cues by exemplars ({model}): {} mention(s) no strong phrase classified", report.exemplar_cues)?;
    }
    if !report.mentions_by_node.is_empty() {
        let mut rows: Vec<(&String, usize, &std::collections::BTreeMap<String, usize>)> =
            report.mentions_by_node.iter().map(|(node, by)| (node, by.values().sum(), by)).collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        writeln!(out, "new mentions by node (testing / learning / using / plain):")?;
        for (node, total, by) in rows {
            let n = |class: &str| by.get(class).copied().unwrap_or(0);
            writeln!(
                out,
                "  {node:<28} {total:>5}   {:>4} / {:>4} / {:>4} / {:>4}",
                n("testing"),
                n("learning"),
                n("using"),
                n("plain")
            )?;
        }
    }
    Ok(())
}
