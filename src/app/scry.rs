//! `patina scry QUERY` (snippets under a query id) and `patina scry --detail QUERY_ID RANK`.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::ScryArgs;
use crate::event::log::EventLog;
use crate::repo;
use crate::scry::{self, Detail};
use crate::search::fuse::ChannelScore;
use crate::search::{Channels, Hit, SearchRequest, Searcher};

pub fn run(ctx: &mut Invocation, args: ScryArgs) -> anyhow::Result<u8> {
    if let Some(detail) = &args.detail {
        let [query_id, rank] = detail.as_slice() else { anyhow::bail!("--detail takes QUERY_ID RANK") };
        let rank: usize =
            rank.parse().map_err(|_| anyhow::anyhow!("rank '{rank}' is not a number (ranks start at 1)"))?;
        let detail = scry::detail(&ctx.home, query_id, rank)?;
        print_detail(ctx, &detail)?;
        return Ok(exit::OK);
    }
    let query = args.query.unwrap_or_default();
    if args.limit == 0 {
        anyhow::bail!("--limit must be at least 1");
    }
    let repos = target_repos(ctx, &args.repos, args.all)?;
    let mut searcher = if args.lexical_only { Searcher::lexical_only(&ctx.home) } else { Searcher::new(&ctx.home) };
    let request = SearchRequest { repos, query, limit: args.limit };
    let result = scry::scry(&ctx.home, &mut searcher, &request).context("searching")?;
    for warning in &result.result.warnings {
        eprintln!("patina: {warning}");
    }
    if ctx.json {
        ctx.out.json(&result)?;
    } else {
        let channels = match result.result.channels {
            Channels::Fused => "semantic + lexical",
            Channels::LexicalOnly => "lexical only",
        };
        writeln!(
            ctx.out,
            "{}  {:?} in {}  ({channels}; `patina scry --detail {} RANK` for one in full)",
            result.query_id,
            result.query,
            result.repos.join(", "),
            result.query_id
        )?;
        for (i, hit) in result.result.hits.iter().enumerate() {
            print_hit(ctx, i + 1, hit)?;
        }
        if result.result.hits.is_empty() {
            writeln!(ctx.out, "no results")?;
        }
    }
    Ok(if result.result.hits.is_empty() { exit::NOT_FOUND } else { exit::OK })
}

/// `--repo` ids, or every indexed repo with `--all`, or the repo containing the current directory.
fn target_repos(ctx: &Invocation, given: &[String], all: bool) -> anyhow::Result<Vec<String>> {
    let store = ctx.open_store()?;
    let log = EventLog::new(&store);
    let nodes = log.nodes()?;
    if all {
        let indexed: Vec<String> =
            repo::list(&log, &ctx.home)?.into_iter().filter(|r| r.state == "indexed").map(|r| r.id).collect();
        if indexed.is_empty() {
            anyhow::bail!("no repo is indexed yet (run `patina repo add PATH`)");
        }
        return Ok(indexed);
    }
    if !given.is_empty() {
        let mut ids = Vec::new();
        for id in given {
            let node = repo::resolve(&nodes, id)?;
            if !ids.contains(&node.id) {
                ids.push(node.id);
            }
        }
        return Ok(ids);
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    match repo::containing(&nodes, &cwd) {
        Some(node) => Ok(vec![node.id]),
        None => anyhow::bail!(
            "{} is not inside a registered repo; pass --repo ID (or --all) to choose what to search",
            cwd.display()
        ),
    }
}

fn channel(name: &str, score: Option<ChannelScore>) -> Option<String> {
    score.map(|c| format!("{name} {:.2} #{}", c.score, c.rank))
}

fn channels_text(lexical: Option<ChannelScore>, semantic: Option<ChannelScore>) -> String {
    [channel("semantic", semantic), channel("lexical", lexical)].into_iter().flatten().collect::<Vec<_>>().join(" + ")
}

fn print_hit(ctx: &mut Invocation, rank: usize, hit: &Hit) -> anyhow::Result<()> {
    writeln!(
        ctx.out,
        "{rank:>3}  {}  {}:{}-{}  {:.4}  {}",
        hit.repo,
        hit.path,
        hit.start_line,
        hit.end_line,
        hit.fused_score,
        channels_text(hit.lexical, hit.semantic)
    )?;
    writeln!(ctx.out, "     {}", hit.summary)?;
    Ok(())
}

fn print_detail(ctx: &mut Invocation, d: &Detail) -> anyhow::Result<()> {
    let h = &d.hit;
    if ctx.json {
        ctx.out.json(&serde_json::json!({
            "query_id": d.query_id,
            "query": d.query,
            "rank": d.rank,
            "repo": h.repo,
            "path": h.path,
            "start_line": h.start_line,
            "end_line": h.end_line,
            "language": h.language,
            "symbol": h.symbol,
            "summary": h.summary,
            "fused_score": h.fused_score,
            "lexical": h.lexical,
            "semantic": h.semantic,
            "text": d.text,
            "before": d.before,
            "after": d.after,
        }))?;
        return Ok(());
    }
    writeln!(
        ctx.out,
        "{} #{}  {}  {}:{}-{}  ({}{})  {}",
        d.query_id,
        d.rank,
        h.repo,
        h.path,
        h.start_line,
        h.end_line,
        h.language,
        if h.symbol.is_empty() { String::new() } else { format!(", {}", h.symbol) },
        channels_text(h.lexical, h.semantic)
    )?;
    if let Some(before) = &d.before {
        for (i, line) in before.text.lines().enumerate() {
            writeln!(ctx.out, "{:>6} : {line}", before.start_line as usize + i)?;
        }
    }
    for (i, line) in d.text.lines().enumerate() {
        writeln!(ctx.out, "{:>6} | {line}", h.start_line as usize + i)?;
    }
    if let Some(after) = &d.after {
        for (i, line) in after.text.lines().enumerate() {
            writeln!(ctx.out, "{:>6} : {line}", after.start_line as usize + i)?;
        }
    }
    Ok(())
}
