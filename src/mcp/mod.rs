//! `patina mcp`: the graph (and, with search, routed retrieval) for any LLM agent, over
//! MCP on stdio, with the rmcp SDK.
//!
//! API Boundary: this module and `app` are the only ones that know MCP. Each tool call
//! opens the store for its own duration (on a blocking thread), so the server works beside
//! `mother watch` and every other command. A failing call is an MCP tool error (`isError`)
//! with a clear message; a malformed request is a JSON-RPC error; neither stops the server.
//! stdout carries protocol messages only; logs go to stderr.

pub mod briefing;
pub mod framing;

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::event::{EdgeType, Source};
use crate::graph::query::{self, Direction};
use crate::graph::{Params, store as graph_store};
use crate::home::PatinaHome;
use crate::mother::{self, LinkRequest};
use crate::scry;
use crate::search::Searcher;
use crate::store::{OpenOptions, Store};

/// What the agent is told when it connects.
pub const INSTRUCTIONS: &str = "Patina Mother knows which other projects matter for the one you are working in, and why. \
Call `context` at the start of a session for a briefing. Search before assuming: before answering about prior work, \
conventions, or another repo, use `scry` (snippets; then `scry_detail` for a full chunk) when it is available. \
Explain before trusting: `explain_edge` shows the rules, sessions and lines behind an edge. \
Use `graph_neighbors`, `graph_path` and `graph_stats` to look around; `link`/`unlink` to record what you learn; \
`feedback` to say whether a result was useful.";

/// The MCP server.
#[derive(Clone)]
pub struct PatinaServer {
    home: PatinaHome,
    cwd: PathBuf,
    /// The searcher (and its loaded model) lives across calls; indexes are reopened each
    /// call so `repo update` in another process is seen.
    searcher: Arc<Mutex<Option<Searcher>>>,
    /// Neighbours and paths answer from memory; loaded again when the graph moves.
    graph: Arc<crate::graph::memory::GraphCache>,
    tool_router: ToolRouter<Self>,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn failure(s: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(s.into())])
}

fn json(value: &impl serde::Serialize) -> CallToolResult {
    match serde_json::to_string_pretty(value) {
        Ok(s) => text(s),
        Err(e) => failure(format!("encoding the result: {e}")),
    }
}

/// Runs blocking store work off the async runtime; any error becomes a tool error.
/// Runs a tool's store work on a blocking thread; a redb panic on a damaged store is the
/// tool's error (`damage::contain`), not a dead server.
async fn blocking<F>(store_path: PathBuf, work: F) -> Result<CallToolResult, ErrorData>
where
    F: FnOnce() -> anyhow::Result<CallToolResult> + Send + 'static,
{
    match tokio::task::spawn_blocking(move || crate::damage::contain(&store_path, work)).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(err)) => Ok(failure(clip(format!("{err:#}"), MAX_ECHO))),
        Err(join) => Ok(failure(format!("internal error: {join}"))),
    }
}

impl PatinaServer {
    fn open(&self) -> anyhow::Result<Store> {
        let path = self.home.store_path();
        Ok(Store::open(&path, &OpenOptions::default(), |notice| eprintln!("patina mcp: {notice}"))?)
    }

    /// Brings the stored graph up to date with the home's graph parameters, read each call
    /// (so an edited cue file is seen); returns them.
    fn current(&self, store: &Store) -> anyhow::Result<Params> {
        let params = Params::for_home(&self.home)?;
        graph_store::refresh(store, &params)?;
        Ok(params)
    }

    fn open_read_only(&self) -> anyhow::Result<Store> {
        let path = self.home.store_path();
        Ok(Store::open_read_only(&path, &OpenOptions::default(), |notice| eprintln!("patina mcp: {notice}"))?)
    }
}

fn edge_types(given: &Option<Vec<String>>) -> anyhow::Result<Vec<EdgeType>> {
    Ok(given.iter().flatten().map(|t| EdgeType::parse(t)).collect::<Result<_, _>>()?)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContextArgs {
    /// What the session is about (free text); nodes matching it are listed.
    pub topic: Option<String>,
    /// The project id or alias [default: the registered project whose path contains the server's working directory].
    pub project: Option<String>,
    /// How many edges to list (default 8).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NeighborsArgs {
    /// A node id or alias.
    pub id: String,
    /// "out" (what it routes to), "in", or "both" (default).
    pub direction: Option<String>,
    /// Only these edge types: USES, LEARNS_FROM, TESTS_WITH, SIBLING, DOMAIN.
    pub types: Option<Vec<String>>,
    /// At most this many neighbours, strongest first (default 20).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathArgs {
    pub from: String,
    pub to: String,
    /// Longest path to consider (default 4).
    pub max_hops: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExplainArgs {
    pub from: String,
    /// USES, LEARNS_FROM, TESTS_WITH, SIBLING or DOMAIN.
    #[serde(rename = "type")]
    pub edge_type: String,
    pub to: String,
    /// Cite at most this many events (default 12).
    pub max_events: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinkArgs {
    pub from: String,
    /// USES, LEARNS_FROM, TESTS_WITH, SIBLING or DOMAIN.
    #[serde(rename = "type")]
    pub edge_type: String,
    pub to: String,
    /// Why the link exists (for link) or is removed (for unlink).
    pub evidence: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ObserveArgs {
    /// What you observed: a decision, a lesson, a pattern, in one or two sentences.
    pub text: String,
    /// decision, lesson, pattern, … (default lesson).
    pub kind: Option<String>,
    /// Facets (topics), e.g. ["errors", "storage"].
    pub facets: Option<Vec<String>>,
    /// The project it is about [default: the registered project containing the server's working directory].
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelateArgs {
    /// A belief or observation id.
    pub from: String,
    /// A belief or observation id.
    pub to: String,
    /// supports, attacks, attacked_by, relates_to, follows, supersedes, … (default relates_to).
    #[serde(rename = "type")]
    pub rel_type: Option<String>,
    /// Why they are related.
    pub note: Option<String>,
    /// Also add to → from.
    pub bidirectional: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UnrelateArgs {
    pub from: String,
    pub to: String,
    /// Only this relation type [default: every type].
    #[serde(rename = "type")]
    pub rel_type: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BuildContextArgs {
    /// A belief or observation id.
    pub id: String,
    /// How many relations away, 1 to 5 (default 2).
    pub depth: Option<usize>,
    /// Keep the answer within about this many tokens (default 1200).
    pub max_tokens: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetObservationArgs {
    /// A belief or observation id.
    pub id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScryArgs {
    /// What to look for: words, identifiers (spawn_entity), or a description.
    pub query: String,
    /// The project the question comes from [default: the registered repo containing the server's working directory]; results are routed from it through the graph.
    pub project: Option<String>,
    /// Search exactly these repos instead of routing.
    pub repos: Option<Vec<String>>,
    /// At most this many results (default 8).
    pub limit: Option<usize>,
    /// Keep the answer within about this many tokens (default 1200); the rest is summarised as a count.
    pub max_tokens: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DetailArgs {
    /// A query id returned by `scry` (e.g. q12).
    pub query_id: String,
    /// The result's rank in that query (1 = first).
    pub rank: usize,
    /// One of the result's other matching chunks (listed under it as RANK.N): N.
    pub part: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FeedbackArgs {
    pub query_id: String,
    pub rank: usize,
    /// Whether the result helped; useful results strengthen the edge that routed there.
    pub useful: bool,
}

/// Tokens are estimated as characters / 4.
fn approx_tokens(s: &str) -> usize {
    s.chars().count().div_ceil(4)
}

/// The `scry` answer: snippets, best first, cut to the token budget.
pub fn snippets(result: &scry::Scry, max_tokens: usize) -> String {
    let mut out = format!(
        "query {} \"{}\" searched {} ({}). Use scry_detail(query_id, rank[, part]) for a result in full.\n",
        result.query_id,
        result.query,
        result.repos.join(", "),
        match result.result.channels {
            crate::search::Channels::Fused => "semantic + lexical",
            crate::search::Channels::LexicalOnly => "lexical only",
            crate::search::Channels::SemanticOnly => "semantic only",
        }
    );
    let mut shown = 0;
    for (i, hit) in result.result.hits.iter().enumerate() {
        let mut entry = format!(
            "{}. {} {}:{}-{} score {:.4}\n   {}\n   route: {}\n",
            i + 1,
            result.provenance.get(i).map(|p| p.split(']').next().unwrap_or("").to_string() + "]").unwrap_or_default(),
            hit.path,
            hit.start_line,
            hit.end_line,
            hit.fused_score,
            hit.summary,
            result.route.reason(&hit.repo).unwrap_or("")
        );
        if !hit.also.is_empty() {
            let parts: Vec<String> = hit
                .also
                .iter()
                .enumerate()
                .map(|(n, c)| {
                    format!("part {} lines {}-{}{}", n + 1, c.start_line, c.end_line, symbol_suffix(&c.symbol))
                })
                .collect();
            entry.push_str(&format!("   also in this file: {}\n", parts.join("; ")));
        }
        if approx_tokens(&out) + approx_tokens(&entry) > max_tokens && shown > 0 {
            break;
        }
        out.push_str(&entry);
        shown += 1;
    }
    let rest = result.result.hits.len() - shown;
    if rest > 0 {
        out.push_str(&format!(
            "… {rest} more results omitted to stay within {max_tokens} tokens (raise max_tokens).\n"
        ));
    }
    if result.result.hits.is_empty() {
        out.push_str("No results.\n");
    }
    for w in &result.result.warnings {
        out.push_str(&format!("note: {w}\n"));
    }
    out
}

/// A belief or observation in full, for `scry_detail`.
fn knowledge_text(knowledge: &crate::knowledge::Knowledge, id: &str) -> String {
    use crate::knowledge::Item;
    let Some(entry) = knowledge.get(id) else { return format!("'{id}' is no longer live") };
    let mut out = match &entry.item {
        Item::Belief(b) => {
            let mut out = format!(
                "{} ({}, {}) — {}\n{}\nstatement: {}\n",
                b.id, b.kind, b.status, entry.source, b.summary, b.statement
            );
            for e in &b.evidence {
                out.push_str(&format!("evidence: {}\n", e.cited()));
            }
            for a in &b.applied_in {
                out.push_str(&format!("applied in: {a}\n"));
            }
            out
        }
        Item::Observation(o) => format!("{} ({}) — {}\n{}\n", o.id, o.kind, entry.source, o.text),
    };
    for l in knowledge.outgoing(id) {
        let note = l.relation.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        out.push_str(&format!("{} {} {}{note}\n", id, l.relation.rel_type, l.relation.to));
    }
    for l in knowledge.incoming(id) {
        out.push_str(&format!("{} {} {}\n", l.relation.from, l.relation.rel_type, id));
    }
    out
}

fn symbol_suffix(symbol: &str) -> String {
    if symbol.is_empty() { String::new() } else { format!(" ({symbol})") }
}

/// The longest string argument a tool accepts (an id, a query, evidence), in bytes. Checked
/// before any work, so a 5 MB id is refused at once instead of being fuzzy-matched against
/// every node and echoed back whole.
const MAX_ARG: usize = 4096;

/// The longest error message a tool returns, in bytes: messages quote what the agent sent.
const MAX_ECHO: usize = 2048;

fn check_len(name: &str, value: &str) -> anyhow::Result<()> {
    if value.len() > MAX_ARG {
        anyhow::bail!("argument `{name}` is {} bytes; the limit is {MAX_ARG}", value.len());
    }
    Ok(())
}

fn check_all(name: &str, values: &Option<Vec<String>>) -> anyhow::Result<()> {
    values.iter().flatten().try_for_each(|v| check_len(name, v))
}

/// `message` cut to at most `max` bytes (on a character boundary), saying how much was cut.
fn clip(message: String, max: usize) -> String {
    if message.len() <= max {
        return message;
    }
    let mut end = max;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes not shown)", &message[..end], message.len() - end)
}

#[tool_router(router = tool_router)]
impl PatinaServer {
    pub fn new(home: PatinaHome, cwd: PathBuf) -> Self {
        Self {
            home,
            cwd,
            searcher: Arc::new(Mutex::new(None)),
            graph: Default::default(),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "context",
        description = "A session briefing: the project's node, its strongest edges with a one-line why each, the nodes relevant to an optional topic, and a recall directive. Call it first."
    )]
    async fn context(&self, Parameters(args): Parameters<ContextArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            if let Some(t) = &args.topic {
                check_len("topic", t)?;
            }
            if let Some(p) = &args.project {
                check_len("project", p)?;
            }
            let store = server.open()?;
            server.current(&store)?;
            Ok(text(briefing::briefing(
                &store,
                &server.cwd,
                args.project.as_deref(),
                args.topic.as_deref(),
                args.limit.unwrap_or(8),
            )?))
        })
        .await
    }

    #[tool(
        name = "graph_neighbors",
        description = "The neighbours of a node in the derived graph, strongest first, with edge type, direction, weight and the rules that derived each edge."
    )]
    async fn graph_neighbors(&self, Parameters(args): Parameters<NeighborsArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("id", &args.id)?;
            check_all("types", &args.types)?;
            let direction = match args.direction.as_deref() {
                None => Direction::Both,
                Some(d) => Direction::parse(d)
                    .ok_or_else(|| anyhow::anyhow!("direction must be in, out or both, not '{d}'"))?,
            };
            let types = edge_types(&args.types)?;
            let store = server.open()?;
            let id = resolve_node(&EventLog::new(&store).nodes()?, &args.id)?;
            server.current(&store)?;
            let mut found = server.graph.get(&store)?.neighbors(&id, direction, &types);
            found.truncate(args.limit.unwrap_or(20));
            Ok(json(&serde_json::json!({ "id": id, "neighbors": found })))
        })
        .await
    }

    #[tool(
        name = "graph_path",
        description = "The strongest directed path between two nodes (an edge of weight w costs 1/w), within max_hops."
    )]
    async fn graph_path(&self, Parameters(args): Parameters<PathArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("from", &args.from)?;
            check_len("to", &args.to)?;
            let store = server.open()?;
            let nodes = EventLog::new(&store).nodes()?;
            let (from, to) = (resolve_node(&nodes, &args.from)?, resolve_node(&nodes, &args.to)?);
            server.current(&store)?;
            let max_hops = args.max_hops.unwrap_or(4).min(16);
            let found = server.graph.get(&store)?.path(&from, &to, max_hops)?;
            Ok(json(&match found {
                Some(hops) => serde_json::json!({
                    "from": from, "to": to, "found": true,
                    "hops": hops.iter().map(|(a, t, b, w)| serde_json::json!({"from": a, "type": t, "to": b, "weight": w})).collect::<Vec<_>>(),
                }),
                None => serde_json::json!({ "from": from, "to": to, "found": false, "max_hops": max_hops }),
            }))
        })
        .await
    }

    #[tool(
        name = "graph_stats",
        description = "Figures of the derived graph: nodes, edges by type, density, connected components."
    )]
    async fn graph_stats(&self, Parameters(_): Parameters<NoArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            let store = server.open()?;
            let params = server.current(&store)?;
            let graph = graph_store::read(&store)?
                .ok_or_else(|| anyhow::anyhow!("the graph is empty: nothing was synced or ingested yet"))?;
            Ok(json(&query::stats(&graph, params.max_domain_members)))
        })
        .await
    }

    #[tool(
        name = "explain_edge",
        description = "Why an edge exists: each rule that derived it, the events behind it (file:line, session, sentence) and the weight's terms; for a missing edge, the rules that came closest and what evidence is missing."
    )]
    async fn explain_edge(&self, Parameters(args): Parameters<ExplainArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("from", &args.from)?;
            check_len("type", &args.edge_type)?;
            check_len("to", &args.to)?;
            let edge_type = EdgeType::parse(&args.edge_type)?;
            let store = server.open()?;
            let nodes = EventLog::new(&store).nodes()?;
            let (from, to) = (resolve_node(&nodes, &args.from)?, resolve_node(&nodes, &args.to)?);
            let params = server.current(&store)?;
            let max = args.max_events.unwrap_or(12).min(200);
            Ok(json(&crate::graph::explain::explain(&store, &params, &from, edge_type, &to, max)?))
        })
        .await
    }

    #[tool(
        name = "scry",
        description = "Search the local project and the few repos the graph routes the question to (not all repos). Returns snippets: query_id, rank, [repo:channels], path:lines, score, the route that led there, a one-line summary; bounded by max_tokens. Follow up with scry_detail."
    )]
    async fn scry(&self, Parameters(args): Parameters<ScryArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("query", &args.query)?;
            if let Some(p) = &args.project {
                check_len("project", p)?;
            }
            check_all("repos", &args.repos)?;
            let limit = args.limit.unwrap_or(8).clamp(1, 50);
            let max_tokens = args.max_tokens.unwrap_or(1200).clamp(100, 20_000);
            // Through the mother daemon when one is configured and answers (same results).
            if let Some(client) = crate::daemon::client::MotherClient::configured() {
                let body = serde_json::json!({
                    "query": args.query, "project": args.project, "repos": args.repos.clone().unwrap_or_default(),
                    "cwd": server.cwd.display().to_string(), "limit": limit,
                });
                match client.post("/scry", &body) {
                    Ok(value) => {
                        let result: scry::Scry = serde_json::from_value(value)?;
                        return Ok(text(snippets(&result, max_tokens)));
                    }
                    Err(crate::daemon::client::ClientError::Unreachable { url, why }) => {
                        eprintln!(
                            "patina mcp: the mother daemon at {url} is unreachable ({why}); searching in-process"
                        );
                    }
                    Err(refused) => return Err(refused.into()),
                }
            }
            let mut guard = server
                .searcher
                .lock()
                .map_err(|_| anyhow::anyhow!("the searcher is unavailable after an earlier failure"))?;
            let searcher = guard.get_or_insert_with(|| Searcher::new(&server.home));
            // Indexes stay open across calls; one rebuilt by `repo update` is reopened.
            searcher.refresh();
            let store = server.open_read_only()?;
            let choice = scry::RouteChoice { project: args.project, repos: args.repos.unwrap_or_default(), all: false };
            let (world, choice) = scry::World::for_query(&store, &server.home, choice, &server.cwd)?;
            drop(store);
            let result = scry::run(&server.home, searcher, &world, &scry::Query::new(&args.query, choice, limit))?;
            Ok(text(snippets(&result, max_tokens)))
        })
        .await
    }

    #[tool(
        name = "scry_detail",
        description = "One result of an earlier scry in full: the chunk's text with a few lines of context, served from the index."
    )]
    async fn scry_detail(&self, Parameters(args): Parameters<DetailArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("query_id", &args.query_id)?;
            let d = match scry::detail(&server.home, &args.query_id, args.rank, args.part) {
                Err(scry::ScryError::NotCode { item, .. }) => {
                    // A belief or observation: its statement, evidence and relations.
                    let store = server.open()?;
                    let knowledge = crate::knowledge::Knowledge::load(&EventLog::new(&store))?;
                    return Ok(text(knowledge_text(&knowledge, &item)));
                }
                other => other?,
            };
            let mut out = format!(
                "{} #{} {} {}:{}-{} ({})\n",
                d.query_id, d.rank, d.hit.repo, d.hit.path, d.hit.start_line, d.hit.end_line, d.hit.language
            );
            if let Some(before) = &d.before {
                out.push_str(&format!(
                    "--- context before (lines {}-{})\n{}\n",
                    before.start_line, before.end_line, before.text
                ));
            }
            out.push_str(&format!("--- result\n{}\n", d.text));
            if let Some(after) = &d.after {
                out.push_str(&format!(
                    "--- context after (lines {}-{})\n{}\n",
                    after.start_line, after.end_line, after.text
                ));
            }
            Ok(text(out))
        })
        .await
    }

    #[tool(
        name = "feedback",
        description = "Say whether result `rank` of query `query_id` was useful; the graph edge that routed there gains (or loses) weight, within bounds."
    )]
    async fn feedback(&self, Parameters(args): Parameters<FeedbackArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("query_id", &args.query_id)?;
            let store = server.open()?;
            let (stored, hit, seq) =
                scry::feedback(&store, &server.home, &args.query_id, args.rank, args.useful, Source::Mcp)?;
            server.current(&store)?;
            Ok(json(&serde_json::json!({
                "query_id": args.query_id, "rank": args.rank, "repo": hit.repo, "project": stored.project,
                "useful": args.useful, "recorded": seq.is_some(),
            })))
        })
        .await
    }

    #[tool(
        name = "observe",
        description = "Record an observation of the project (a decision, lesson or pattern you noticed) as an event. Returns its id (the same text twice is one observation)."
    )]
    async fn observe(&self, Parameters(args): Parameters<ObserveArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("text", &args.text)?;
            check_all("facets", &args.facets)?;
            let store = server.open()?;
            let log = EventLog::new(&store);
            let nodes = log.nodes()?;
            let project = match &args.project {
                Some(p) => {
                    check_len("project", p)?;
                    resolve_node(&nodes, p)?
                }
                None => crate::repo::containing(&nodes, &server.cwd).map(|n| n.id).ok_or_else(|| {
                    anyhow::anyhow!("the server's directory is not inside a registered project; pass project")
                })?,
            };
            let kind = args.kind.unwrap_or_else(|| "lesson".into());
            check_len("kind", &kind)?;
            let observed = crate::knowledge::write::observe(
                &log,
                &project,
                &args.text,
                &kind,
                &args.facets.unwrap_or_default(),
                Source::Mcp,
            )?;
            Ok(json(&serde_json::json!({ "id": observed.id, "project": project, "recorded": observed.seq.is_some() })))
        })
        .await
    }

    #[tool(
        name = "relate",
        description = "Relate two beliefs or observations: from TYPE to (supports, attacks, relates_to, …). Both must exist; no self-relations; a duplicate is an error."
    )]
    async fn relate(&self, Parameters(args): Parameters<RelateArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("from", &args.from)?;
            check_len("to", &args.to)?;
            let rel_type = args.rel_type.unwrap_or_else(|| crate::knowledge::write::DEFAULT_RELATION.into());
            check_len("type", &rel_type)?;
            if let Some(n) = &args.note {
                check_len("note", n)?;
            }
            let store = server.open()?;
            let seqs = crate::knowledge::write::relate(
                &EventLog::new(&store),
                &args.from,
                &args.to,
                &rel_type,
                args.note.as_deref(),
                args.bidirectional.unwrap_or(false),
                Source::Mcp,
            )?;
            Ok(json(&serde_json::json!({ "from": args.from, "to": args.to, "type": rel_type, "added": seqs.len() })))
        })
        .await
    }

    #[tool(
        name = "unrelate",
        description = "Remove the relations from one belief or observation to another (of one type, or all)."
    )]
    async fn unrelate(&self, Parameters(args): Parameters<UnrelateArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("from", &args.from)?;
            check_len("to", &args.to)?;
            if let Some(t) = &args.rel_type {
                check_len("type", t)?;
            }
            let store = server.open()?;
            let n = crate::knowledge::write::unrelate(
                &EventLog::new(&store),
                &args.from,
                &args.to,
                args.rel_type.as_deref(),
                Source::Mcp,
            )?;
            Ok(json(&serde_json::json!({ "from": args.from, "to": args.to, "removed": n })))
        })
        .await
    }

    #[tool(
        name = "build_context",
        description = "The neighbourhood of a belief or observation: breadth first through its relations in both directions (depth 1-5, default 2), each item once, with relation type, direction and note. Bounded by max_tokens."
    )]
    async fn build_context(&self, Parameters(args): Parameters<BuildContextArgs>) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("id", &args.id)?;
            let max_tokens = args.max_tokens.unwrap_or(1200).clamp(100, 20_000);
            let store = server.open()?;
            let knowledge = crate::knowledge::Knowledge::load(&EventLog::new(&store))?;
            let built = crate::knowledge::context::build(
                &knowledge,
                args.id.trim(),
                args.depth.unwrap_or(crate::knowledge::context::DEFAULT_DEPTH),
            )?;
            let mut out = format!("context of {} (depth {})\n", built.root, built.depth);
            for (shown, e) in built.entries.iter().enumerate() {
                let how = match (&e.relation, e.direction, &e.via) {
                    (Some(rel), Some("out"), Some(via)) => format!("{via} {rel} → "),
                    (Some(rel), Some(_), Some(via)) => format!("← {rel} of {via}: "),
                    _ => String::new(),
                };
                let note = e.note.map(|n| format!(" ({n})")).unwrap_or_default();
                let line = format!("{}{how}{} [{}]{note} {}\n", "  ".repeat(e.depth), e.id, e.kind, e.summary);
                if approx_tokens(&out) + approx_tokens(&line) > max_tokens && shown > 0 {
                    out.push_str(&format!("… {} more items omitted (raise max_tokens)\n", built.entries.len() - shown));
                    break;
                }
                out.push_str(&line);
            }
            Ok(text(out))
        })
        .await
    }

    #[tool(
        name = "get_observation",
        description = "One belief or observation in full, with its direct relations in both directions."
    )]
    async fn get_observation(
        &self,
        Parameters(args): Parameters<GetObservationArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("id", &args.id)?;
            let store = server.open()?;
            let knowledge = crate::knowledge::Knowledge::load(&EventLog::new(&store))?;
            if knowledge.get(args.id.trim()).is_none() {
                anyhow::bail!("no belief or observation '{}'", args.id.trim());
            }
            Ok(text(knowledge_text(&knowledge, args.id.trim())))
        })
        .await
    }

    #[tool(
        name = "link",
        description = "Record a relation you learned: FROM TYPE TO with evidence. Appends the same event as `patina mother link`; a manual link always makes its edge."
    )]
    async fn link(&self, Parameters(args): Parameters<LinkArgs>) -> Result<CallToolResult, ErrorData> {
        self.link_or_unlink(args, true).await
    }

    #[tool(
        name = "unlink",
        description = "Remove a relation: retracts a manual link and blocks re-deriving that exact edge until it is linked again. Appends the same event as `patina mother unlink`."
    )]
    async fn unlink(&self, Parameters(args): Parameters<LinkArgs>) -> Result<CallToolResult, ErrorData> {
        self.link_or_unlink(args, false).await
    }
}

impl PatinaServer {
    fn link_or_unlink(
        &self,
        args: LinkArgs,
        add: bool,
    ) -> impl Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static {
        let server = self.clone();
        blocking(self.home.store_path(), move || {
            check_len("from", &args.from)?;
            check_len("type", &args.edge_type)?;
            check_len("to", &args.to)?;
            if let Some(e) = &args.evidence {
                check_len("evidence", e)?;
            }
            let edge_type = EdgeType::parse(&args.edge_type)?;
            let store = server.open()?;
            let log = EventLog::new(&store);
            let request = LinkRequest {
                from: args.from,
                edge_type,
                to: args.to,
                evidence: args.evidence,
                weight: None,
                source: Source::Mcp,
            };
            let outcome = if add { mother::link(&log, request)? } else { mother::unlink(&log, request)? };
            server.current(&store)?;
            Ok(json(&outcome))
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for PatinaServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("patina", env!("CARGO_PKG_VERSION"))
                    .with_title("Patina Mother")
                    .with_description("Which other projects matter for the one you are working in, and why"),
            )
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serves MCP on stdin/stdout until the client disconnects.
pub fn serve(home: PatinaHome) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        use rmcp::ServiceExt;
        // Lines that are not JSON get a -32700 reply here; rmcp would drop them silently.
        let (transport, writer) = framing::guard(tokio::io::stdin(), tokio::io::stdout());
        let service = PatinaServer::new(home, cwd).serve(transport).await?;
        service.waiting().await?;
        let _ = writer.await;
        anyhow::Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> (tempfile::TempDir, PatinaServer) {
        let dir = tempfile::tempdir().unwrap();
        let home = PatinaHome::resolve(Some(dir.path()));
        let server = PatinaServer::new(home, dir.path().to_path_buf());
        (dir, server)
    }

    fn shown(result: &CallToolResult) -> String {
        serde_json::to_string(result).unwrap()
    }

    /// Issue 17, item 7: a 5 MB id took 23 s and was echoed back whole.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn huge_strings_are_refused_at_once_and_not_echoed() {
        let (_dir, server) = server();
        let huge = "x".repeat(5 << 20);
        let started = std::time::Instant::now();
        let calls = [
            server
                .explain_edge(Parameters(ExplainArgs {
                    from: huge.clone(),
                    edge_type: "USES".into(),
                    to: "b".into(),
                    max_events: None,
                }))
                .await
                .unwrap(),
            server
                .explain_edge(Parameters(ExplainArgs {
                    from: "a".into(),
                    edge_type: huge.clone(),
                    to: "b".into(),
                    max_events: None,
                }))
                .await
                .unwrap(),
            server
                .link(Parameters(LinkArgs {
                    from: "a".into(),
                    edge_type: "USES".into(),
                    to: huge.clone(),
                    evidence: None,
                }))
                .await
                .unwrap(),
            server
                .graph_neighbors(Parameters(NeighborsArgs {
                    id: "a".into(),
                    direction: None,
                    types: Some(vec![huge.clone()]),
                    limit: None,
                }))
                .await
                .unwrap(),
        ];
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        for result in &calls {
            let text = shown(result);
            assert_eq!(result.is_error, Some(true), "{text}");
            assert!(text.len() < 1000 && text.contains("the limit is 4096"), "{}", &text[..text.len().min(300)]);
        }
        // Nothing was appended by the refused link.
        assert!(
            !server.home.store_path().exists() || {
                let store = server.open().unwrap();
                EventLog::new(&store).last_seq().unwrap().is_none()
            }
        );
    }

    #[test]
    fn error_messages_are_clipped_on_a_character_boundary() {
        assert_eq!(clip("short".into(), 10), "short");
        let clipped = clip("é".repeat(100), 11);
        assert!(clipped.starts_with(&"é".repeat(5)) && clipped.contains("190 more bytes"), "{clipped}");
    }
}
