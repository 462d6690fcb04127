//! ecsdemo: a small entity-component-system with archetype storage.
//!
//! See `World` for the entry point, `Archetype` for storage and `Schedule` for systems.

pub mod archetype;
pub mod query;
pub mod system;
pub mod world;

pub use archetype::{Archetype, ComponentSet};
pub use system::{Schedule, System};
pub use world::{Entity, World};
