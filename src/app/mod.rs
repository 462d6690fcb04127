//! Runs a parsed command line: validates arguments, calls the library, prints results.
//!
//! API Boundary: this module, `cli` and `output` are the only ones that know about
//! terminals, exit codes and JSON on stdout.

mod bench;
mod graph;
mod ingest;
mod knowledge;
mod models;
mod mother;
mod repo;
mod scry;
mod serve;
mod watch;

use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{Cli, Command};
use crate::home::PatinaHome;
use crate::output::Out;
use crate::store::{OpenOptions, Store};

/// Exit codes (documented in the README).
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// The command ran but found nothing where that matters (e.g. `explain` of a missing edge).
    pub const NOT_FOUND: u8 = 1;
    /// An error: bad arguments, bad input, an unreadable or locked store.
    pub const ERROR: u8 = 2;
}

/// Shared state of one invocation.
pub struct Invocation {
    pub home: PatinaHome,
    pub json: bool,
    pub out: Out,
}

impl Invocation {
    /// Opens the mother store, telling the user on stderr if we wait for a lock or replace
    /// the leftover of an interrupted creation.
    pub fn open_store(&self) -> anyhow::Result<Store> {
        let path = self.home.store_path();
        Store::open(&path, &OpenOptions::default(), |notice| eprintln!("patina: {notice}"))
            .context("opening the mother store")
    }

    /// Opens the store for a command that reads the derived graph: read-only when the
    /// stored graph is current (nothing to write), else for writing, with the graph
    /// re-derived and stored first; with the graph parameters it was checked against.
    pub fn open_store_for_graph(&self) -> anyhow::Result<(Store, crate::graph::Params)> {
        let params = self.params()?;
        let store = self.open_store_read_only()?;
        if crate::graph::store::is_current(&store, &params)? {
            return Ok((store, params));
        }
        drop(store);
        let store = self.open_store()?;
        crate::graph::store::refresh(&store, &params).context("deriving the graph")?;
        Ok((store, params))
    }

    /// The graph parameters of this home: the built-in ones with the claims of the home's
    /// cue file (`Params::for_home`). Every derivation of this home's graph uses them.
    pub fn params(&self) -> anyhow::Result<crate::graph::Params> {
        Ok(crate::graph::Params::for_home(&self.home)?)
    }

    /// The cue vocabulary for ingest and watch: the built-in one extended by `cue_file`
    /// (else `$PATINA_HOME/rules/cues.toml`), with the home's exemplars and the embedding
    /// model attached when the model is present; says once on stderr when it is not.
    pub fn cues(&self, cue_file: Option<&std::path::Path>) -> anyhow::Result<crate::ingest::cues::Cues> {
        let default = self.home.root().join("rules").join("cues.toml");
        let cues = crate::ingest::cues::Cues::load_with_user_file(Some(cue_file.unwrap_or(&default)))
            .map_err(anyhow::Error::msg)
            .context("loading the cue vocabulary")?;
        let (cues, notice) = crate::ingest::exemplars::attach(cues, &self.home)
            .map_err(anyhow::Error::msg)
            .context("loading the cue exemplars")?;
        if let Some(notice) = notice {
            eprintln!("patina: note: {notice}");
        }
        Ok(cues)
    }

    /// Opens the mother store read-only, for commands that only read: they never write to
    /// the file (a damaged store stays as it was found, for `mother repair`).
    pub fn open_store_read_only(&self) -> anyhow::Result<Store> {
        let path = self.home.store_path();
        Store::open_read_only(&path, &OpenOptions::default(), |notice| eprintln!("patina: {notice}"))
            .context("opening the mother store")
    }
}

/// Runs a command. A panic of redb reading a damaged store is an error (exit code 2)
/// naming the store and `patina mother repair`, never a crash (see `damage`).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let home = PatinaHome::resolve(cli.home.as_deref());
    let store_path = home.store_path();
    crate::damage::contain(&store_path, || run_command(cli, home))
}

fn run_command(cli: Cli, home: PatinaHome) -> anyhow::Result<ExitCode> {
    let mut ctx = Invocation { home, json: cli.json, out: Out::default() };
    let code = match cli.command {
        Command::Mother(args) => mother::run(&mut ctx, args.command)?,
        Command::Bench(args) => bench::run(&mut ctx, args.command)?,
        Command::Mcp => {
            crate::mcp::serve(ctx.home.clone()).context("serving MCP")?;
            exit::OK
        }
        Command::Serve(args) => serve::run(&mut ctx, args)?,
        Command::Repo(args) => repo::run(&mut ctx, args.command)?,
        Command::Scry(args) => scry::run(&mut ctx, args)?,
        Command::Models(args) => models::run(&mut ctx, args.command)?,
        Command::Belief(args) => knowledge::belief(&mut ctx, args.command)?,
        Command::Context(args) => knowledge::context(&mut ctx, args.command)?,
        Command::Observe(args) => knowledge::observe(&mut ctx, args)?,
        Command::Relate(args) => knowledge::relate(&mut ctx, args)?,
        Command::Unrelate(args) => knowledge::unrelate(&mut ctx, args)?,
    };
    std::io::Write::flush(&mut ctx.out)?;
    Ok(ExitCode::from(code))
}
