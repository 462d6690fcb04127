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
    },
    /// Counts of events by kind, the store's size and the graph's figures
    Stats,
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
    /// Re-derive the graph from the event log now
    Derive {
        /// Also derive from scratch and verify it equals the stored graph (exit 2 if not)
        #[arg(long)]
        check: bool,
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
}
