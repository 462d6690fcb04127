//! A damaged store: containing redb's panics.
//!
//! redb trusts its file: bytes flipped inside a page can make it panic (an index out of
//! bounds in a B-tree page, an `unwrap` of a key that is not UTF-8) instead of returning
//! `StorageError::Corrupted`. [`contain`] runs store work so that such a panic becomes
//! [`StoreError::Damaged`] (exit code 2 and "run `patina mother repair`"), with the
//! default panic message suppressed for it.
//!
//! Architecture Invariant: reading a store never panics the process. Only panics raised
//! in redb's own source while [`contain`] runs are turned into errors; any other panic
//! (a bug of ours) is reported and propagated as before.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

use crate::error::{Error, StoreError};

thread_local! {
    /// How many [`contain`] calls are running on this thread.
    static CONTAINING: Cell<usize> = const { Cell::new(0) };
    /// The last redb panic seen on this thread while containing: message and location.
    static REDB_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether a panic location is in redb's source (`…/redb-4.5.0/src/…`).
fn in_redb(file: &str) -> bool {
    file.contains("/redb-") || file.contains("\\redb-") || file.starts_with("redb-")
}

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let location = info.location();
            let from_redb = location.is_some_and(|l| in_redb(l.file()));
            if from_redb && CONTAINING.with(Cell::get) > 0 {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_string());
                let at = location.map(|l| {
                    let file = l.file();
                    let short = file.rfind("/src/").map_or(file, |i| &file[i + 5..]);
                    format!(" (redb {short}:{})", l.line())
                });
                REDB_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{}", at.unwrap_or_default())));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `work`; a panic inside redb becomes [`StoreError::Damaged`] naming `path`. Other
/// panics are propagated.
pub fn contain<T, E: From<Error>>(path: &Path, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    install_hook();
    CONTAINING.with(|c| c.set(c.get() + 1));
    REDB_PANIC.with(|p| p.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    CONTAINING.with(|c| c.set(c.get() - 1));
    match result {
        Ok(result) => result,
        Err(payload) => match REDB_PANIC.with(|p| p.borrow_mut().take()) {
            Some(detail) => Err(Error::from(StoreError::Damaged { path: path.to_path_buf(), detail }).into()),
            None => panic::resume_unwind(payload),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_redb_panics_are_contained() {
        assert!(in_redb("/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/redb-4.5.0/src/types.rs"));
        assert!(!in_redb("src/store.rs"));
        let path = Path::new("/h/store.redb");
        let ours = panic::catch_unwind(|| contain::<(), Error>(path, || panic!("a bug of ours")));
        assert!(ours.is_err(), "propagated");
        let fine: Result<u8, Error> = contain(path, || Ok(7));
        assert_eq!(fine.unwrap(), 7);
    }
}
