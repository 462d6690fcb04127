//! `patina bench retrieval`: the three-way table (graph / all / oracle) and per-query rows.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::bench::retrieval::{self, Routing, Row, Summary};
use crate::cli::BenchCommand;
use crate::event::log::{EventLog, NewEvent};
use crate::event::{BenchRun, Event, Source};
use crate::search::Searcher;

pub fn run(ctx: &mut Invocation, command: BenchCommand) -> anyhow::Result<u8> {
    let BenchCommand::Retrieval { queryset, routing, k, lexical_only, no_record } = command;
    let set = retrieval::load(&queryset)?;
    let mut routings: Vec<Routing> = Vec::new();
    for r in &routing {
        routings.push(
            Routing::parse(r)
                .ok_or_else(|| anyhow::anyhow!("unknown routing '{r}' (valid: graph, all, oracle, bm25-all)"))?,
        );
    }
    if routings.is_empty() {
        routings = vec![Routing::Graph, Routing::All, Routing::Oracle, Routing::Bm25All];
    }
    let mut ks: Vec<usize> = k.into_iter().filter(|k| *k > 0).collect();
    ks.sort_unstable();
    ks.dedup();
    if ks.is_empty() {
        anyhow::bail!("--k needs at least one cut-off above 0");
    }

    let store = ctx.open_store()?;
    // A write path (it records a bench-run event): bring the stored graph up to date first.
    super::graph::current_graph(&store, &ctx.params()?)?;
    let world = crate::scry::World::load(&store, &ctx.home, set.queries.iter().map(|q| q.source_project.as_str()))?;
    drop(store);
    if world.indexed.is_empty() {
        anyhow::bail!("no repo is indexed yet (run `patina repo add PATH`)");
    }
    let indexed = &world.indexed;
    let mut searcher = if lexical_only { Searcher::lexical_only(&ctx.home) } else { Searcher::new(&ctx.home) };
    if !lexical_only && !searcher.has_model() {
        eprintln!("patina: the embedding model is missing (`patina models fetch`); the benchmark runs lexical only");
    }
    // Warm up (first model and index loads are not query latency).
    let _ = retrieval::run(
        &ctx.home,
        &mut searcher,
        &world,
        &retrieval::QuerySet { name: set.name.clone(), queries: set.queries[..1].to_vec() },
        Routing::All,
        &ks,
        lexical_only,
    );
    let mut rows: Vec<Row> = Vec::new();
    for &routing in &routings {
        rows.extend(retrieval::run(&ctx.home, &mut searcher, &world, &set, routing, &ks, lexical_only));
    }
    let summaries: Vec<Summary> = routings.iter().map(|r| retrieval::summarize(*r, &rows, &ks)).collect();

    if !no_record {
        let store = ctx.open_store()?;
        let project = set.queries[0].source_project.clone();
        let when = jiff::Timestamp::now().to_string();
        let command: Vec<String> = std::env::args().collect();
        let suite =
            format!("retrieval {} ({})", set.name, routings.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", "));
        // The benchmark exercises the project's own retrieval: repo = project, which the
        // rules never turn into an edge.
        let event = Event::BenchRun(BenchRun {
            project: project.clone(),
            repo: project,
            suite,
            command: Some(command.join(" ")),
            when,
        });
        EventLog::new(&store).append([NewEvent::new(Source::Cli, event)]).context("recording the bench run")?;
    }

    if ctx.json {
        ctx.out.json(&serde_json::json!({ "queryset": set.name, "k": ks, "summary": summaries, "queries": rows }))?;
        return Ok(exit::OK);
    }
    let out = &mut ctx.out;
    writeln!(out, "queryset {}: {} queries, {} indexed repos, K = {ks:?}", set.name, set.queries.len(), indexed.len())?;
    let mut header = String::from("| routing |");
    let mut rule = String::from("|---|");
    for k in &ks {
        header.push_str(&format!(" repo R@{k} |"));
        rule.push_str("---:|");
    }
    for k in &ks {
        header.push_str(&format!(" doc R@{k} |"));
        rule.push_str("---:|");
    }
    header.push_str(" MRR | doc MRR | routing recall | waste (repos) | p50 ms | p95 ms |");
    rule.push_str("---:|---:|---:|---:|---:|---:|");
    writeln!(out, "{header}\n{rule}")?;
    let na = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "n/a".into());
    for s in &summaries {
        let mut line = format!("| {} |", s.routing.as_str());
        for k in &ks {
            line.push_str(&format!(" {:.3} |", s.repo_recall[k]));
        }
        for k in &ks {
            line.push_str(&format!(" {} |", na(s.doc_recall[k])));
        }
        line.push_str(&format!(
            " {:.3} | {} | {} | {:.2} | {:.0} | {:.0} |",
            s.mrr,
            na(s.doc_mrr),
            na(s.routing_recall),
            s.waste,
            s.latency_p50_ms,
            s.latency_p95_ms
        ));
        writeln!(out, "{line}")?;
    }
    writeln!(out, "\nper query (repo R@{} / MRR / waste):", ks[0])?;
    for q in &set.queries {
        let mut line = format!("  {:<8}", q.id);
        for routing in &routings {
            if let Some(r) = rows.iter().find(|r| r.id == q.id && r.routing == *routing) {
                line.push_str(&format!(
                    "  {} {:.2}/{:.2}/{}",
                    routing.as_str(),
                    r.metrics.repo_recall[&ks[0]],
                    r.metrics.mrr,
                    r.waste
                ));
            }
        }
        if let Some(r) = rows.iter().find(|r| r.id == q.id && r.routing == Routing::Graph) {
            line.push_str(&format!("  graph searched [{}]", r.searched.join(", ")));
            if !r.expected_not_indexed.is_empty() {
                line.push_str(&format!("  (expected but not indexed: {})", r.expected_not_indexed.join(", ")));
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(exit::OK)
}
