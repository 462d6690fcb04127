//! A damaged store: containing redb's panics, and ([`repair`]) saving what can be read.
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

use crate::error::{Error, OpenError, StoreError};
use crate::event::log::EventLog;
use crate::event::{StoredEvent, codec};
use crate::store::{OpenOptions, Store};

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

/// What [`repair`] kept and lost.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RepairReport {
    /// Events copied into the fresh store (decoded, and their content hash checks out).
    pub kept: u64,
    /// Seqs below the highest kept one that could not be saved (events after the last
    /// readable one cannot be counted).
    pub lost: u64,
    /// Records that were read but did not decode, whose content hash no longer matches, or
    /// whose key (a damaged seq, which can be any number) does not match their record.
    pub undecodable: u64,
    /// The highest kept seq (0 for none).
    pub last_seq: u64,
    /// Whether the damaged file could be opened at all.
    pub opened: bool,
    /// Where the damaged file was kept.
    pub backup: std::path::PathBuf,
    /// The first problem met while reading, if any.
    pub first_problem: Option<String>,
}

/// At most this many seqs past the highest decoded one are probed after a failed scan.
const MAX_PROBES: u64 = 100_000;

fn highest_kept(found: &std::collections::BTreeMap<u64, Option<StoredEvent>>) -> u64 {
    found.iter().rev().find(|(_, e)| e.is_some()).map_or(0, |(seq, _)| *seq)
}

/// Copies every decodable committed event of the store at `path` into a fresh store
/// under the same name, keeping the damaged file beside it as `store.redb.damaged` (or
/// `.damaged.N`). Events keep their seqs; the indexes are rebuilt from them, and the
/// ingest cache and the graph (derived state) start empty.
///
/// The damaged file is only read (redb read-only mode) and then renamed, never written.
/// Other patina processes (a watcher, the MCP server) should be stopped first.
pub fn repair(path: &Path) -> Result<RepairReport, Error> {
    let mut report = RepairReport::default();
    let mut found: std::collections::BTreeMap<u64, Option<StoredEvent>> = std::collections::BTreeMap::new();
    let options = OpenOptions::default();
    let problem = |report: &mut RepairReport, err: Error| {
        report.first_problem.get_or_insert_with(|| err.to_string());
    };
    match contain(path, || Store::open_read_only(path, &options, |_| {})) {
        Ok(store) => {
            report.opened = true;
            let log = EventLog::new(&store);
            let keep = |seq: u64, bytes: &[u8], found: &mut std::collections::BTreeMap<u64, Option<StoredEvent>>| {
                let event =
                    codec::decode(bytes).ok().filter(|e| e.seq == seq && e.event.content_hash(&e.source) == e.hash);
                found.insert(seq, event);
            };
            let scanned = contain(path, || log.visit_records(1, |seq, bytes| keep(seq, bytes, &mut found)));
            if let Err(err) = scanned {
                problem(&mut report, err);
                // The scan stopped at a damaged page: look every other seq up on its own.
                // A damaged key can be any number, and the last one may be unreadable:
                // probe at most MAX_PROBES past the highest seq whose record decoded.
                let last = contain(path, || log.last_seq()).ok().flatten().unwrap_or(u64::MAX);
                let highest = last.min(highest_kept(&found).saturating_add(MAX_PROBES));
                for seq in 1..=highest {
                    if found.contains_key(&seq) {
                        continue;
                    }
                    match contain(path, || log.record(seq)) {
                        Ok(Some(bytes)) => keep(seq, &bytes, &mut found),
                        Ok(None) => {}
                        Err(err) => problem(&mut report, err),
                    }
                }
            }
        }
        Err(err) => problem(&mut report, err),
    }
    report.last_seq = highest_kept(&found);
    report.undecodable = found.values().filter(|e| e.is_none()).count() as u64;
    let kept: Vec<StoredEvent> = found.into_values().flatten().collect();
    report.kept = kept.len() as u64;
    report.lost = report.last_seq - report.kept;

    // The fresh store is made beside the damaged one, then the two swap names.
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("store.redb");
    let fresh_path = dir.join(format!(".{name}.repairing-{}", std::process::id()));
    let _ = std::fs::remove_file(&fresh_path);
    {
        let fresh = Store::open(&fresh_path, &options, |_| {})?;
        EventLog::new(&fresh).restore(&kept)?;
    }
    let mut backup = dir.join(format!("{name}.damaged"));
    let mut n = 1;
    while backup.exists() {
        backup = dir.join(format!("{name}.damaged.{n}"));
        n += 1;
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::from(OpenError::Io { path, source })
    };
    if path.exists() {
        std::fs::rename(path, &backup).map_err(io(path))?;
    }
    std::fs::rename(&fresh_path, path).map_err(io(path))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    report.backup = backup;
    Ok(report)
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
