//! The derived graph: typed, weighted edges between nodes, each traceable to the rules
//! and events that made it.
//!
//! `facts` turns live events into rule inputs, `program` (the crepe program in `rules/`)
//! derives edges and provenance, `derive` adds weights, `store` materialises the result in
//! the mother store, `query` and `explain` read it.
//!
//! Architecture Invariant: the graph is a pure function of the event log and the
//! parameters in `rules/`. Deleting every `graph_*` table and running `refresh` gives the
//! same graph back.

pub mod derive;
pub mod explain;
pub mod facts;
pub mod incremental;
pub mod memory;
pub mod params;
#[path = "../../rules/program.rs"]
pub mod program;
pub mod query;
pub mod store;

pub use derive::{Edge, Graph, GraphDiff};
pub use params::Params;
