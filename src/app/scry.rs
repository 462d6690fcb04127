//! `patina scry QUERY` (snippets under a query id) and `patina scry --detail QUERY_ID RANK`.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::ScryArgs;
use crate::daemon::client::{ClientError, MotherClient};
use crate::knowledge::persona::Adoptability;
use crate::scry::route;
use crate::scry::{self, Detail};
use crate::search::fuse::ChannelScore;
use crate::search::{Channels, Hit, Searcher};

/// The configured mother daemon, if it answers; `None` (after one notice) if it does not.
fn daemon_answer(path: &str, body: serde_json::Value) -> anyhow::Result<Option<serde_json::Value>> {
    let Some(client) = MotherClient::configured() else { return Ok(None) };
    match client.post(path, &body) {
        Ok(value) => Ok(Some(value)),
        Err(ClientError::Unreachable { url, why }) => {
            eprintln!("patina: the mother daemon at {url} is unreachable ({why}); working in-process");
            Ok(None)
        }
        Err(refused) => Err(refused.into()),
    }
}

pub fn run(ctx: &mut Invocation, args: ScryArgs) -> anyhow::Result<u8> {
    if let Some(detail) = &args.detail {
        let (query_id, rank, part) = query_and_rank(detail, "--detail")?;
        let body = serde_json::json!({ "query_id": query_id, "rank": rank, "part": part });
        if let Some(value) = daemon_answer("/scry/detail", body)? {
            let detail: Detail = serde_json::from_value(value).context("reading the daemon's answer")?;
            print_detail(ctx, &detail)?;
            return Ok(exit::OK);
        }
        // A belief or observation in the results is shown from the log.
        if let Ok(stored) = scry::stored_query(&ctx.home, query_id)
            && let Some(hit) = rank.checked_sub(1).and_then(|i| stored.hits.get(i))
            && hit.kind != crate::search::HitKind::Code
        {
            return super::knowledge::show(ctx, &hit.symbol);
        }
        let detail = scry::detail(&ctx.home, query_id, rank, part)?;
        print_detail(ctx, &detail)?;
        return Ok(exit::OK);
    }
    if let Some(given) = args.useful.as_ref().or(args.not_useful.as_ref()) {
        let flag = if args.useful.is_some() { "--useful" } else { "--not-useful" };
        let (query_id, rank, part) = query_and_rank(given, flag)?;
        if part.is_some() {
            anyhow::bail!("{flag} takes QUERY_ID RANK: feedback is about the result's repo, not one of its chunks");
        }
        return feedback(ctx, query_id, rank, args.useful.is_some());
    }
    let query = args.query.clone().unwrap_or_default();
    if args.limit == 0 {
        anyhow::bail!("--limit must be at least 1");
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let persona = args.persona || args.persona_only;
    let body = serde_json::json!({
        "query": query, "project": args.project, "cwd": cwd.display().to_string(), "repos": args.repos,
        "all": args.all, "limit": args.limit, "lexical_only": args.lexical_only, "no_beliefs": args.no_beliefs,
    });
    let (path, body) = if persona {
        let body = serde_json::json!({
            "query": query, "project": args.project, "cwd": cwd.display().to_string(), "limit": args.limit,
            "lexical_only": args.lexical_only, "persona_only": args.persona_only, "threshold": args.persona_threshold,
        });
        ("/persona/query", body)
    } else {
        ("/scry", body)
    };
    let result: scry::Scry = match daemon_answer(path, body)? {
        Some(value) => serde_json::from_value(value).context("reading the daemon's answer")?,
        None => search_in_process(ctx, &args, &query, &cwd)?,
    };
    for warning in &result.result.warnings {
        eprintln!("patina: {warning}");
    }
    if ctx.json {
        ctx.out.json(&result)?;
    } else {
        let channels = match result.result.channels {
            Channels::Fused => "semantic + lexical",
            Channels::LexicalOnly => "lexical only",
            Channels::SemanticOnly => "semantic only",
        };
        writeln!(
            ctx.out,
            "{}  {:?} in {}  ({channels}; `patina scry --detail {} RANK` for one in full)",
            result.query_id,
            result.query,
            result.repos.join(", "),
            result.query_id
        )?;
        if args.explain_route {
            print_route(ctx, &result.route)?;
        }
        if let Some(persona) = &result.persona {
            writeln!(ctx.out, "persona: {persona}")?;
        }
        for (i, hit) in result.result.hits.iter().enumerate() {
            if let Some(tag) = result.tags.get(i) {
                let verdict = match result.adoptability.get(i).and_then(Option::as_ref) {
                    Some(a @ Adoptability::Adoptable { .. }) => format!(" [{}]", a.tag()),
                    Some(a @ Adoptability::Reference { conflicts_with, .. }) => {
                        format!(" [{}] may conflict with {conflicts_with}", a.tag())
                    }
                    None => String::new(),
                };
                writeln!(ctx.out, "     [{tag}]{verdict}")?;
                if args.show_adoptability
                    && let Some(Some(Adoptability::Adoptable { why } | Adoptability::Reference { why, .. })) =
                        result.adoptability.get(i)
                {
                    writeln!(ctx.out, "     adoptability: {}", crate::output::printable(why))?;
                }
            }
            let provenance = result.provenance.get(i).map(String::as_str).unwrap_or("");
            print_hit(ctx, i + 1, hit, result.route.reason(&hit.repo).unwrap_or(""), provenance)?;
        }
        if result.result.hits.is_empty() {
            writeln!(ctx.out, "no results")?;
        }
    }
    Ok(if result.result.hits.is_empty() { exit::NOT_FOUND } else { exit::OK })
}

/// The search in this process: the same `scry::run` the daemon calls.
fn search_in_process(
    ctx: &mut Invocation,
    args: &ScryArgs,
    query: &str,
    cwd: &std::path::Path,
) -> anyhow::Result<scry::Scry> {
    let mut searcher = if args.lexical_only { Searcher::lexical_only(&ctx.home) } else { Searcher::new(&ctx.home) };
    let choice = scry::RouteChoice { project: args.project.clone(), repos: args.repos.clone(), all: args.all };
    // The query path only reads the mother store.
    let store = ctx.open_store_read_only()?;
    let (world, choice) = scry::World::for_query(&store, &ctx.home, choice, cwd)?;
    drop(store);
    let mut request = scry::Query::new(query, choice, args.limit);
    request.knowledge = !args.no_beliefs;
    let result = if args.persona || args.persona_only {
        let options =
            scry::persona::PersonaOptions { threshold: args.persona_threshold, persona_only: args.persona_only };
        scry::persona::run(&ctx.home, &mut searcher, &world, &request, &options)
    } else {
        scry::run(&ctx.home, &mut searcher, &world, &request)
    };
    result.map_err(|e| match e {
        scry::ScryError::Route(why) if why.starts_with("not inside") => {
            anyhow::anyhow!("{} is {why}", cwd.display())
        }
        e => anyhow::Error::new(e).context("searching"),
    })
}

/// `QUERY_ID RANK` or `QUERY_ID RANK.N` (the N-th other chunk of result RANK).
fn query_and_rank<'a>(given: &'a [String], flag: &str) -> anyhow::Result<(&'a str, usize, Option<usize>)> {
    let [query_id, rank] = given else { anyhow::bail!("{flag} takes QUERY_ID RANK") };
    let bad = || anyhow::anyhow!("rank '{rank}' is not a number or RANK.N (ranks start at 1)");
    let (rank, part) = match rank.split_once('.') {
        Some((r, p)) => (r.parse().map_err(|_| bad())?, Some(p.parse().map_err(|_| bad())?)),
        None => (rank.parse().map_err(|_| bad())?, None),
    };
    Ok((query_id, rank, part))
}

fn feedback(ctx: &mut Invocation, query_id: &str, rank: usize, useful: bool) -> anyhow::Result<u8> {
    let body = serde_json::json!({ "query_id": query_id, "rank": rank, "useful": useful });
    if let Some(value) = daemon_answer("/scry/feedback", body)? {
        if ctx.json {
            ctx.out.json(&value)?;
        } else {
            writeln!(ctx.out, "recorded through the mother daemon: result {rank} of {query_id} ({})", value["repo"])?;
        }
        return Ok(exit::OK);
    }
    let store = ctx.open_store()?;
    let (stored, hit, seq) = scry::feedback(&store, &ctx.home, query_id, rank, useful, crate::event::Source::Cli)?;
    super::graph::refresh_after_write(&store, &ctx.params()?)?;
    let value = serde_json::json!({
        "query_id": query_id, "rank": rank, "repo": hit.repo, "project": stored.project, "useful": useful, "seq": seq,
    });
    if ctx.json {
        ctx.out.json(&value)?;
    } else {
        match seq {
            Some(seq) => writeln!(
                ctx.out,
                "recorded: result {rank} of {query_id} ({}) was {}useful (event #{seq})",
                hit.repo,
                if useful { "" } else { "not " }
            )?,
            None => writeln!(ctx.out, "already recorded (nothing appended)")?,
        }
    }
    Ok(exit::OK)
}

fn print_route(ctx: &mut Invocation, route: &route::Route) -> anyhow::Result<()> {
    writeln!(ctx.out, "route from {}:", route.project.as_deref().unwrap_or("(no project)"))?;
    for r in &route.searched {
        writeln!(ctx.out, "  searched  {:<28} ×{:.2}  {}", r.repo, r.prior, r.reason)?;
    }
    for s in &route.skipped {
        writeln!(ctx.out, "  skipped   {:<28}        {}", s.repo, s.reason)?;
    }
    Ok(())
}

fn channel(name: &str, score: Option<ChannelScore>) -> Option<String> {
    score.map(|c| format!("{name} {:.2} #{}", c.score, c.rank))
}

fn channels_text(lexical: Option<ChannelScore>, semantic: Option<ChannelScore>) -> String {
    [channel("semantic", semantic), channel("lexical", lexical)].into_iter().flatten().collect::<Vec<_>>().join(" + ")
}

fn print_hit(ctx: &mut Invocation, rank: usize, hit: &Hit, route: &str, provenance: &str) -> anyhow::Result<()> {
    if hit.kind != crate::search::HitKind::Code {
        // `[belief] …` or `[belief:dojo] …`: the tag, then why.
        let (tag, why) = provenance.split_once(' ').unwrap_or((provenance, ""));
        writeln!(ctx.out, "{rank:>3}  {tag}  {}  {:.4}  ({})", hit.symbol, hit.fused_score, hit.language)?;
        writeln!(ctx.out, "     {}", crate::output::printable(&hit.summary))?;
        if !why.is_empty() {
            writeln!(ctx.out, "     ↳ {why}")?;
        }
        return Ok(());
    }
    let origin = match (hit.semantic.is_some(), hit.lexical.is_some()) {
        (true, true) => "semantic+lexical",
        (true, false) => "semantic",
        _ => "lexical",
    };
    writeln!(
        ctx.out,
        "{rank:>3}  [{}:{origin}]  {}:{}-{}  {:.4}  {}",
        hit.repo,
        hit.path,
        hit.start_line,
        hit.end_line,
        hit.fused_score,
        channels_text(hit.lexical, hit.semantic)
    )?;
    writeln!(ctx.out, "     {}", hit.summary)?;
    if !hit.also.is_empty() {
        let parts: Vec<String> = hit
            .also
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let symbol = if c.symbol.is_empty() { String::new() } else { format!(" {}", c.symbol) };
                format!("{rank}.{} {}-{}{symbol}", n + 1, c.start_line, c.end_line)
            })
            .collect();
        writeln!(ctx.out, "     also: {}", parts.join(", "))?;
    }
    if route != "local project" && !route.is_empty() {
        writeln!(ctx.out, "     ↳ {route}")?;
    }
    Ok(())
}

fn print_detail(ctx: &mut Invocation, d: &Detail) -> anyhow::Result<()> {
    let h = &d.hit;
    if ctx.json {
        ctx.out.json(&serde_json::json!({
            "query_id": d.query_id,
            "query": d.query,
            "rank": d.rank,
            "part": d.part,
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
        "{} #{}{}  {}  {}:{}-{}  ({}{})  {}",
        d.query_id,
        d.rank,
        d.part.map(|p| format!(".{p}")).unwrap_or_default(),
        h.repo,
        h.path,
        h.start_line,
        h.end_line,
        h.language,
        if h.symbol.is_empty() { String::new() } else { format!(", {}", h.symbol) },
        if d.part.is_some() {
            format!("another matching chunk of result {}", d.rank)
        } else {
            channels_text(h.lexical, h.semantic)
        }
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
