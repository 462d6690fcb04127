//! The mother daemon: one long-running process per `PATINA_HOME` that keeps the model, the
//! indexes and the routing world warm, serving scry and the graph over HTTP/JSON
//! (`patina serve`), and the client side that makes `scry` use it when one is configured.
//!
//! - `server.rs`: the axum server: routes, limits, the bearer token, the pid lock, clean
//!   shutdown.
//! - `client.rs`: where the daemon is (`PATINA_MOTHER_URL`, or inside a container
//!   `http://host.docker.internal:50051`) and a small blocking client.
//! - `container.rs`: are we inside a container?
//!
//! API Boundary: only this module and `app` know HTTP. The daemon answers through the same
//! functions the CLI calls (`scry::run`, `scry::detail`, `graph::query`, `graph::explain`),
//! so results are the same either way.
//!
//! Architecture Invariant: the daemon never holds the mother store between requests (it
//! opens it per request, like `mcp` and `watch`), so every other command keeps working
//! while it runs; what it keeps warm is derived state (the routing world, keyed by the
//! store file's size and modification time, and the open indexes).

pub mod client;
pub mod container;
pub mod server;

/// The daemon's default TCP port.
pub const DEFAULT_PORT: u16 = 50051;
