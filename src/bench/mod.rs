//! Benchmarks that are product features (`patina bench …`), as opposed to the developer
//! benchmarks under `benches/`.

pub mod retrieval;
