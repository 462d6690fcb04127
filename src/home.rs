//! Where Patina keeps its data: `$PATINA_HOME` (default `~/.patina`).
//!
//! ```text
//! $PATINA_HOME/
//!   registry.yaml         default registry for `patina mother sync`
//!   mother/store.redb     the event log and everything derived from it
//! ```

use std::path::{Path, PathBuf};

/// The data directory of one Patina installation.
#[derive(Debug, Clone)]
pub struct PatinaHome {
    root: PathBuf,
}

impl PatinaHome {
    /// `explicit` (the `--home` flag), else `$PATINA_HOME`, else `~/.patina`.
    pub fn resolve(explicit: Option<&Path>) -> PatinaHome {
        let root = explicit
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("PATINA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from))
            .unwrap_or_else(|| crate::registry::expand_home("~/.patina"));
        PatinaHome { root }
    }

    pub fn at(root: impl Into<PathBuf>) -> PatinaHome {
        PatinaHome { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn mother_dir(&self) -> PathBuf {
        self.root.join("mother")
    }

    pub fn store_path(&self) -> PathBuf {
        self.mother_dir().join("store.redb")
    }

    pub fn registry_path(&self) -> PathBuf {
        self.root.join("registry.yaml")
    }
}
