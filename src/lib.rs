//! Patina Mother: a local-first, event-sourced knowledge store that tells an AI coding
//! assistant which other projects matter for the one it is working in.
//!
//! See `ARCHITECTURE.md` for the bird's-eye view. In short: inputs become [`event`]s in
//! an append-only log ([`event::log`]) inside the mother [`store`]; everything else is
//! derived from that log, including the per-repo [`search`] indexes that [`scry`] queries.

pub mod app;
pub mod bench;
pub mod cli;
pub mod daemon;
pub mod damage;
pub mod error;
pub mod event;
pub mod graph;
pub mod home;
pub mod ingest;
pub mod knowledge;
pub mod mcp;
pub mod models;
pub mod mother;
pub mod output;
pub mod registry;
pub mod repo;
pub mod safe_read;
pub mod scry;
pub mod search;
pub mod store;
#[cfg(test)]
mod testing;
pub mod watch;
pub mod worker;

pub use error::{Error, Result};
