//! Where Patina keeps its data: `$PATINA_HOME` (default `~/.patina`).
//!
//! ```text
//! $PATINA_HOME/
//!   registry.yaml         default registry for `patina mother sync`
//!   mother/store.redb     the event log and everything derived from it
//!   repos/<id>/           one search index per repository (derived, rebuildable)
//!   models/               the embedding model and ONNX Runtime (unless $PATINA_MODELS)
//!   scry.redb             query ids → results, for `scry --detail` (not in the event log)
//!   embed/                the background embedding worker's locks and log (`worker`)
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
            .unwrap_or_else(|| expand_home("~/.patina"));
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

    pub fn repos_dir(&self) -> PathBuf {
        self.root.join("repos")
    }

    /// The index directory of a repo. Ids may hold any non-space character, so unsafe
    /// ones are spelled safely (with a hash to keep them distinct): never `..` or `/`.
    pub fn repo_dir(&self, id: &str) -> PathBuf {
        let safe: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
            .collect();
        let name = if safe == id && !id.starts_with('.') && !id.is_empty() {
            safe
        } else {
            format!("{}-{}", safe.trim_start_matches('.'), &blake3::hash(id.as_bytes()).to_hex()[..12])
        };
        self.repos_dir().join(name)
    }

    pub fn models_dir(&self) -> PathBuf {
        self.root.join("models")
    }

    /// The background embedding worker's locks and log (apart from `repos/`, whose
    /// listing the daemon watches).
    pub fn embed_dir(&self) -> PathBuf {
        self.root.join("embed")
    }

    pub fn scry_path(&self) -> PathBuf {
        self.root.join("scry.redb")
    }
}

/// Expands a leading `~` to `$HOME`.
pub fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest.trim_start_matches('/')),
            None => PathBuf::from(path),
        },
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_dirs_stay_inside_repos_dir() {
        let home = PatinaHome::at("/h");
        assert_eq!(home.repo_dir("atlas"), Path::new("/h/repos/atlas"));
        for id in ["..", "../x", "a/b", ".hidden", "/abs"] {
            let dir = home.repo_dir(id);
            assert_eq!(dir.parent(), Some(Path::new("/h/repos")), "{id}");
            assert!(!dir.file_name().unwrap().to_string_lossy().starts_with('.'), "{id}");
        }
        assert_ne!(home.repo_dir("a/b"), home.repo_dir("a_b"));
    }
}
