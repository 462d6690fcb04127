//! The append-only event log, stored in the mother store.
//!
//! Tables (all in the one redb file):
//! - `events`: seq → record (see [`super::codec`]). The ground truth.
//! - `live_hashes`: content hash → seq of the live event with that hash.
//! - `identity_latest`: identity (node id, link triple) → seq of its latest state event.
//! - `by_kind`, `by_node`, `by_source`: multimaps to seqs.
//!
//! Everything but `events` is an index: [`EventLog::rebuild_indexes`] recomputes it from
//! `events` alone, and must give what incremental appends gave.
//!
//! Architecture Invariant: an append batch is one write transaction. A process killed
//! mid-batch loses that batch and nothing committed before it.
//!
//! Liveness: a fact event is live from its append until a `Retracted` names it; a state
//! event is live until a newer event with the same identity supersedes it. Appending an
//! event whose content hash is live is a no-op, so `link a USES b` twice leaves one
//! event, while `link`, `unlink`, `link` leaves three.

use std::collections::BTreeMap;
use std::ops::RangeBounds;

use redb::{
    MultimapTableDefinition, ReadTransaction, ReadableMultimapTable, ReadableTable, ReadableTableMetadata,
    TableDefinition, WriteTransaction,
};

use super::{ContentHash, Event, EventKind, NodeRegistered, Source, StoredEvent, codec, node_identity};
use crate::error::{Error, StoreError};
use crate::store::Store;

const EVENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("events");
const LIVE: TableDefinition<&[u8], u64> = TableDefinition::new("live_hashes");
const IDENTITY: TableDefinition<&str, u64> = TableDefinition::new("identity_latest");
const BY_KIND: MultimapTableDefinition<u8, u64> = MultimapTableDefinition::new("by_kind");
const BY_NODE: MultimapTableDefinition<&str, u64> = MultimapTableDefinition::new("by_node");
const BY_SOURCE: MultimapTableDefinition<&str, u64> = MultimapTableDefinition::new("by_source");

/// Events per write transaction in [`EventLog::append_all`].
pub const DEFAULT_BATCH: usize = 5_000;

/// An event to append, with where it came from.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub source: Source,
    pub event: Event,
}

impl NewEvent {
    pub fn new(source: Source, event: Event) -> NewEvent {
        NewEvent { source, event }
    }
}

/// What an append did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AppendReport {
    /// Sequence numbers of the appended events, in order.
    pub appended: Vec<u64>,
    /// Events that were not appended because an identical event is live (or, for a
    /// retraction, because its target is no longer live).
    pub unchanged: usize,
    /// Appended events by kind.
    pub by_kind: BTreeMap<EventKind, usize>,
}

impl AppendReport {
    fn merge(&mut self, other: AppendReport) {
        self.appended.extend(other.appended);
        self.unchanged += other.unchanged;
        for (kind, n) in other.by_kind {
            *self.by_kind.entry(kind).or_default() += n;
        }
    }
}

/// Counts over the whole log.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LogStats {
    pub events: u64,
    pub live_events: u64,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub first_ts_ms: Option<i64>,
    pub last_ts_ms: Option<i64>,
    pub by_kind: BTreeMap<String, u64>,
    pub nodes: u64,
    pub store_bytes: u64,
}

/// The event log of a store.
pub struct EventLog<'s> {
    store: &'s Store,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn decode_at(seq: u64, bytes: &[u8]) -> Result<StoredEvent, Error> {
    codec::decode(bytes).map_err(|error| Error::Store(StoreError::CorruptEvent { seq, error }))
}

impl<'s> EventLog<'s> {
    pub fn new(store: &'s Store) -> EventLog<'s> {
        EventLog { store }
    }

    pub fn store(&self) -> &'s Store {
        self.store
    }

    /// Appends events in one write transaction.
    pub fn append(&self, events: impl IntoIterator<Item = NewEvent>) -> Result<AppendReport, Error> {
        let txn = self.store.begin_write()?;
        let report = append_in(&txn, events)?;
        txn.commit()?;
        Ok(report)
    }

    /// Appends events and runs `also` in the same write transaction (e.g. to record which
    /// input files the events came from), so both commit or neither does.
    pub fn append_with(
        &self,
        events: impl IntoIterator<Item = NewEvent>,
        also: impl FnOnce(&WriteTransaction) -> Result<(), Error>,
    ) -> Result<AppendReport, Error> {
        let txn = self.store.begin_write()?;
        let report = append_in(&txn, events)?;
        also(&txn)?;
        txn.commit()?;
        Ok(report)
    }

    /// Appends events in batches of `batch` per write transaction; `progress` is called
    /// after each commit with the number of events consumed so far.
    pub fn append_all(
        &self,
        events: impl IntoIterator<Item = NewEvent>,
        batch: usize,
        mut progress: impl FnMut(usize),
    ) -> Result<AppendReport, Error> {
        let mut report = AppendReport::default();
        let mut pending = Vec::with_capacity(batch.min(DEFAULT_BATCH));
        let mut consumed = 0;
        for event in events {
            pending.push(event);
            if pending.len() >= batch.max(1) {
                consumed += pending.len();
                report.merge(self.append(pending.drain(..))?);
                progress(consumed);
            }
        }
        if !pending.is_empty() {
            consumed += pending.len();
            report.merge(self.append(pending)?);
            progress(consumed);
        }
        Ok(report)
    }

    fn read(&self) -> Result<ReadTransaction, Error> {
        self.store.begin_read()
    }

    /// One event by sequence number.
    pub fn get(&self, seq: u64) -> Result<Option<StoredEvent>, Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(None) };
        match events.get(seq)? {
            Some(bytes) => Ok(Some(decode_at(seq, bytes.value())?)),
            None => Ok(None),
        }
    }

    /// Calls `visit` for each event with a seq in `range`, in seq order.
    pub fn visit(
        &self,
        range: impl RangeBounds<u64>,
        mut visit: impl FnMut(StoredEvent) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(()) };
        for entry in events.range(range)? {
            let (seq, bytes) = entry?;
            visit(decode_at(seq.value(), bytes.value())?)?;
        }
        Ok(())
    }

    /// Events with a seq in `range`, in seq order.
    pub fn range(&self, range: impl RangeBounds<u64>) -> Result<Vec<StoredEvent>, Error> {
        let mut out = Vec::new();
        self.visit(range, |e| {
            out.push(e);
            Ok(())
        })?;
        Ok(out)
    }

    /// The events with these seqs (missing ones skipped), in the given order.
    pub fn events_at(&self, seqs: Vec<u64>) -> Result<Vec<StoredEvent>, Error> {
        self.by_index(seqs)
    }

    /// The live events among these seqs, in the given order.
    pub fn live_events_at(&self, seqs: Vec<u64>) -> Result<Vec<StoredEvent>, Error> {
        self.live_of(seqs)
    }

    /// The events of one kind among these seqs, in the given order: records of other
    /// kinds are skipped by their kind tag, never decoded.
    pub fn events_of_kind_at(&self, seqs: Vec<u64>, kind: EventKind) -> Result<Vec<StoredEvent>, Error> {
        self.decode_where(seqs, |tag| tag == kind.tag())
    }

    fn by_index(&self, seqs: Vec<u64>) -> Result<Vec<StoredEvent>, Error> {
        self.decode_where(seqs, |_| true)
    }

    /// The events among these seqs whose kind tag passes `keep`, decoded.
    fn decode_where(&self, seqs: Vec<u64>, keep: impl Fn(u8) -> bool) -> Result<Vec<StoredEvent>, Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(Vec::new()) };
        let mut out = Vec::with_capacity(seqs.len());
        for seq in seqs {
            if let Some(bytes) = events.get(seq)? {
                let bytes = bytes.value();
                if bytes.get(1).is_some_and(|tag| keep(*tag)) || bytes.len() < 2 {
                    out.push(decode_at(seq, bytes)?);
                }
            }
        }
        Ok(out)
    }

    fn seqs<'k, K: redb::Key + 'static>(
        &self,
        table: MultimapTableDefinition<K, u64>,
        key: impl std::borrow::Borrow<K::SelfType<'k>>,
    ) -> Result<Vec<u64>, Error> {
        let txn = self.read()?;
        let table = match txn.open_multimap_table(table) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(err) => return Err(err.into()),
        };
        let mut out = Vec::new();
        for seq in table.get(key)? {
            out.push(seq?.value());
        }
        Ok(out)
    }

    /// Events of one kind, in seq order.
    pub fn by_kind(&self, kind: EventKind) -> Result<Vec<StoredEvent>, Error> {
        self.by_index(self.seqs(BY_KIND, kind.tag())?)
    }

    /// Events about one node (as project, repo, link end or registration), in seq order.
    pub fn by_node(&self, id: &str) -> Result<Vec<StoredEvent>, Error> {
        self.by_index(self.seqs(BY_NODE, id)?)
    }

    /// Events read from one source file, in seq order.
    pub fn by_source(&self, path: &str) -> Result<Vec<StoredEvent>, Error> {
        self.by_index(self.seqs(BY_SOURCE, path)?)
    }

    /// The live events read from one source file, in seq order.
    pub fn live_by_source(&self, path: &str) -> Result<Vec<StoredEvent>, Error> {
        self.live_of(self.seqs(BY_SOURCE, path)?)
    }

    /// The live events about one node, in seq order.
    pub fn live_by_node(&self, id: &str) -> Result<Vec<StoredEvent>, Error> {
        self.live_of(self.seqs(BY_NODE, id)?)
    }

    fn live_of(&self, seqs: Vec<u64>) -> Result<Vec<StoredEvent>, Error> {
        let txn = self.read()?;
        let (Some(events), Some(live)) = (open_read(&txn, EVENTS)?, open_read(&txn, LIVE)?) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for seq in seqs {
            let Some(bytes) = events.get(seq)? else { continue };
            let event = decode_at(seq, bytes.value())?;
            if live.get(event.hash.0.as_slice())?.map(|s| s.value()) == Some(seq) {
                out.push(event);
            }
        }
        Ok(out)
    }

    /// Every source path that starts with `prefix` (events were read from it at some point).
    pub fn sources_under(&self, prefix: &str) -> Result<Vec<String>, Error> {
        let txn = self.read()?;
        let table = match txn.open_multimap_table(BY_SOURCE) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(err) => return Err(err.into()),
        };
        let mut out = Vec::new();
        for entry in table.range(prefix..)? {
            let (key, _) = entry?;
            let key = key.value();
            if !key.starts_with(prefix) {
                break;
            }
            out.push(key.to_string());
        }
        Ok(out)
    }

    /// Whether `event` is live: not superseded and not retracted.
    pub fn is_live(&self, event: &StoredEvent) -> Result<bool, Error> {
        let txn = self.read()?;
        let Some(live) = open_read(&txn, LIVE)? else { return Ok(false) };
        Ok(live.get(event.hash.0.as_slice())?.map(|s| s.value()) == Some(event.seq))
    }

    /// The live events of the given kinds, in seq order.
    pub fn live(&self, kinds: &[EventKind]) -> Result<Vec<StoredEvent>, Error> {
        let mut out = Vec::new();
        self.visit_live_records(kinds, |seq, bytes| {
            out.push(decode_at(seq, bytes)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `visit(seq, record)` with the raw record of every live event of the given
    /// kinds, in seq order: for decoders that borrow from the record
    /// ([`super::codec::decode_evidence`]).
    pub fn visit_live_records(
        &self,
        kinds: &[EventKind],
        mut visit: impl FnMut(u64, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let txn = self.read()?;
        let (Some(events), Some(live)) = (open_read(&txn, EVENTS)?, open_read(&txn, LIVE)?) else {
            return Ok(());
        };
        // One pass over the live set, then one sequential pass over the log that hands on
        // only live events of the wanted kinds (the kind tag is the record's second byte).
        let mut live_seqs: Vec<u64> = Vec::with_capacity(live.len()? as usize);
        for entry in live.iter()? {
            live_seqs.push(entry?.1.value());
        }
        live_seqs.sort_unstable();
        let tags: Vec<u8> = kinds.iter().map(|k| k.tag()).collect();
        let (Some(&first), Some(&last)) = (live_seqs.first(), live_seqs.last()) else { return Ok(()) };
        let mut next_live = live_seqs.iter().peekable();
        for entry in events.range(first..=last)? {
            let (seq, bytes) = entry?;
            let seq = seq.value();
            while next_live.peek().is_some_and(|s| **s < seq) {
                next_live.next();
            }
            if next_live.peek() != Some(&&seq) {
                continue;
            }
            let bytes = bytes.value();
            if bytes.get(1).is_none_or(|tag| !tags.contains(tag)) {
                continue;
            }
            visit(seq, bytes)?;
        }
        Ok(())
    }

    /// The latest state event for an identity (see [`Event::identity`]).
    pub fn latest_for_identity(&self, identity: &str) -> Result<Option<StoredEvent>, Error> {
        let txn = self.read()?;
        let Some(table) = open_read(&txn, IDENTITY)? else { return Ok(None) };
        let Some(seq) = table.get(identity)?.map(|s| s.value()) else { return Ok(None) };
        drop(table);
        drop(txn);
        self.get(seq)
    }

    /// The registered nodes, by id (nodes whose latest event is a removal are absent).
    pub fn nodes(&self) -> Result<BTreeMap<String, NodeRegistered>, Error> {
        Ok(self
            .node_events()?
            .into_iter()
            .filter_map(|e| match e.event {
                Event::NodeRegistered(node) => Some((node.id.clone(), node)),
                _ => None,
            })
            .collect())
    }

    /// The live registrations of the registered nodes, in id order.
    pub fn node_events(&self) -> Result<Vec<StoredEvent>, Error> {
        let txn = self.read()?;
        let (Some(identity), Some(events)) = (open_read(&txn, IDENTITY)?, open_read(&txn, EVENTS)?) else {
            return Ok(Vec::new());
        };
        let prefix = node_identity("");
        let mut out = Vec::new();
        for entry in identity.range(prefix.as_str()..)? {
            let (key, seq) = entry?;
            if !key.value().starts_with(&prefix) {
                break;
            }
            let seq = seq.value();
            let Some(bytes) = events.get(seq)? else { continue };
            let event = decode_at(seq, bytes.value())?;
            if matches!(event.event, Event::NodeRegistered(_)) {
                out.push(event);
            }
        }
        Ok(out)
    }

    /// The highest sequence number, if any event exists.
    pub fn last_seq(&self) -> Result<Option<u64>, Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(None) };
        Ok(events.last()?.map(|(k, _)| k.value()))
    }

    pub fn stats(&self) -> Result<LogStats, Error> {
        let mut stats = LogStats { store_bytes: self.store.file_size(), ..LogStats::default() };
        let txn = self.read()?;
        if let Some(events) = open_read(&txn, EVENTS)? {
            stats.events = events.len()?;
            if let Some((seq, bytes)) = events.first()? {
                stats.first_seq = Some(seq.value());
                stats.first_ts_ms = codec::decode(bytes.value()).ok().map(|e| e.ts_ms);
            }
            if let Some((seq, bytes)) = events.last()? {
                stats.last_seq = Some(seq.value());
                stats.last_ts_ms = codec::decode(bytes.value()).ok().map(|e| e.ts_ms);
            }
        }
        if let Some(live) = open_read(&txn, LIVE)? {
            stats.live_events = live.len()?;
        }
        if let Ok(by_kind) = txn.open_multimap_table(BY_KIND) {
            for kind in EventKind::ALL {
                let n = by_kind.get(kind.tag())?.len();
                if n > 0 {
                    stats.by_kind.insert(kind.as_str().to_string(), n);
                }
            }
        }
        drop(txn);
        stats.nodes = self.nodes()?.len() as u64;
        Ok(stats)
    }

    /// Calls `visit(seq, record)` for each raw record from `from` on, in seq order, undecoded
    /// (for `damage::repair`, which decides what to keep).
    pub(crate) fn visit_records(&self, from: u64, mut visit: impl FnMut(u64, &[u8])) -> Result<(), Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(()) };
        for entry in events.range(from..)? {
            let (seq, bytes) = entry?;
            visit(seq.value(), bytes.value());
        }
        Ok(())
    }

    /// One raw record, undecoded.
    pub(crate) fn record(&self, seq: u64) -> Result<Option<Vec<u8>>, Error> {
        let txn = self.read()?;
        let Some(events) = open_read(&txn, EVENTS)? else { return Ok(None) };
        Ok(events.get(seq)?.map(|bytes| bytes.value().to_vec()))
    }

    /// Writes events under their own seqs into this (empty) log in one transaction, then
    /// rebuilds the indexes from them (for `damage::repair`).
    pub(crate) fn restore(&self, events: &[StoredEvent]) -> Result<(), Error> {
        let txn = self.store.begin_write()?;
        {
            let mut table = txn.open_table(EVENTS)?;
            for event in events {
                table.insert(event.seq, codec::encode(event).as_slice())?;
            }
        }
        txn.commit()?;
        self.rebuild_indexes()
    }

    /// Drops every index table and rebuilds it from `events` alone.
    pub fn rebuild_indexes(&self) -> Result<(), Error> {
        let txn = self.store.begin_write()?;
        txn.delete_table(LIVE)?;
        txn.delete_table(IDENTITY)?;
        txn.delete_multimap_table(BY_KIND)?;
        txn.delete_multimap_table(BY_NODE)?;
        txn.delete_multimap_table(BY_SOURCE)?;
        {
            let events = txn.open_table(EVENTS)?;
            let mut indexes = Indexes::open(&txn)?;
            for entry in events.iter()? {
                let (seq, bytes) = entry?;
                let stored = decode_at(seq.value(), bytes.value())?;
                indexes.apply(&events, &stored)?;
            }
        }
        txn.commit()?;
        Ok(())
    }

    /// A canonical dump of every index, for tests that compare incremental and rebuilt state.
    #[doc(hidden)]
    pub fn index_snapshot(&self) -> Result<Vec<String>, Error> {
        let txn = self.read()?;
        let mut out = Vec::new();
        if let Some(t) = open_read(&txn, LIVE)? {
            for e in t.iter()? {
                let (k, v) = e?;
                out.push(format!(
                    "live {} {}",
                    ContentHash(k.value().try_into().unwrap_or([0; 32])).to_hex(),
                    v.value()
                ));
            }
        }
        if let Some(t) = open_read(&txn, IDENTITY)? {
            for e in t.iter()? {
                let (k, v) = e?;
                out.push(format!("identity {:?} {}", k.value(), v.value()));
            }
        }
        macro_rules! dump_multimap {
            ($def:expr, $name:literal) => {
                if let Ok(t) = txn.open_multimap_table($def) {
                    for e in t.iter()? {
                        let (k, values) = e?;
                        for v in values {
                            out.push(format!("{} {:?} {}", $name, k.value(), v?.value()));
                        }
                    }
                }
            };
        }
        dump_multimap!(BY_KIND, "kind");
        dump_multimap!(BY_NODE, "node");
        dump_multimap!(BY_SOURCE, "source");
        Ok(out)
    }
}

fn open_read<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &ReadTransaction,
    def: TableDefinition<K, V>,
) -> Result<Option<redb::ReadOnlyTable<K, V>>, Error> {
    match txn.open_table(def) {
        Ok(table) => Ok(Some(table)),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

/// The index tables, open in one write transaction.
struct Indexes<'t> {
    live: redb::Table<'t, &'static [u8], u64>,
    identity: redb::Table<'t, &'static str, u64>,
    by_kind: redb::MultimapTable<'t, u8, u64>,
    by_node: redb::MultimapTable<'t, &'static str, u64>,
    by_source: redb::MultimapTable<'t, &'static str, u64>,
}

impl<'t> Indexes<'t> {
    fn open(txn: &'t WriteTransaction) -> Result<Indexes<'t>, Error> {
        Ok(Indexes {
            live: txn.open_table(LIVE)?,
            identity: txn.open_table(IDENTITY)?,
            by_kind: txn.open_multimap_table(BY_KIND)?,
            by_node: txn.open_multimap_table(BY_NODE)?,
            by_source: txn.open_multimap_table(BY_SOURCE)?,
        })
    }

    fn is_live_hash(&self, hash: &ContentHash) -> Result<bool, Error> {
        Ok(self.live.get(hash.0.as_slice())?.is_some())
    }

    /// Whether appending `event` would change anything.
    fn would_apply(
        &self,
        events: &impl ReadableTable<u64, &'static [u8]>,
        event: &Event,
        hash: &ContentHash,
    ) -> Result<bool, Error> {
        if self.is_live_hash(hash)? {
            return Ok(false);
        }
        if let Event::Retracted(r) = event {
            // Only a live fact can be retracted.
            let Some(bytes) = events.get(r.target_seq)? else { return Ok(false) };
            let target = decode_at(r.target_seq, bytes.value())?;
            if !target.event.kind().is_fact() {
                return Ok(false);
            }
            return Ok(self.live.get(target.hash.0.as_slice())?.map(|s| s.value()) == Some(target.seq));
        }
        Ok(true)
    }

    /// Updates every index for a newly appended (or replayed) event.
    // live(h, seq) :- appended(seq, h), !superseded(seq), !retracted(seq).
    fn apply(&mut self, events: &impl ReadableTable<u64, &'static [u8]>, stored: &StoredEvent) -> Result<(), Error> {
        let seq = stored.seq;
        self.live.insert(stored.hash.0.as_slice(), seq)?;
        if let Some(identity) = stored.event.identity()
            && let Some(previous) = self.identity.insert(identity.as_str(), seq)?.map(|s| s.value())
            && let Some(bytes) = events.get(previous)?
        {
            let old = decode_at(previous, bytes.value())?;
            if self.live.get(old.hash.0.as_slice())?.map(|s| s.value()) == Some(previous) {
                self.live.remove(old.hash.0.as_slice())?;
            }
        }
        if let Event::Retracted(r) = &stored.event
            && let Some(bytes) = events.get(r.target_seq)?
        {
            let target = decode_at(r.target_seq, bytes.value())?;
            if self.live.get(target.hash.0.as_slice())?.map(|s| s.value()) == Some(target.seq) {
                self.live.remove(target.hash.0.as_slice())?;
            }
        }
        self.by_kind.insert(stored.event.kind().tag(), seq)?;
        for node in stored.event.nodes() {
            self.by_node.insert(node, seq)?;
        }
        if let Some(path) = stored.source.path() {
            self.by_source.insert(path, seq)?;
        }
        Ok(())
    }
}

fn append_in(txn: &WriteTransaction, events: impl IntoIterator<Item = NewEvent>) -> Result<AppendReport, Error> {
    let mut report = AppendReport::default();
    let mut table = txn.open_table(EVENTS)?;
    let mut indexes = Indexes::open(txn)?;
    let mut next_seq = table.last()?.map(|(k, _)| k.value() + 1).unwrap_or(1);
    let ts_ms = now_ms();
    for NewEvent { source, event } in events {
        let hash = event.content_hash(&source);
        if !indexes.would_apply(&table, &event, &hash)? {
            report.unchanged += 1;
            continue;
        }
        let stored = StoredEvent { seq: next_seq, ts_ms, source, hash, event };
        table.insert(next_seq, codec::encode(&stored).as_slice())?;
        indexes.apply(&table, &stored)?;
        report.appended.push(next_seq);
        *report.by_kind.entry(stored.event.kind()).or_default() += 1;
        next_seq += 1;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::event::*;
    use crate::store::OpenOptions;

    fn open() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
        (dir, store)
    }

    fn link(from: &str, to: &str) -> NewEvent {
        NewEvent::new(
            Source::Cli,
            Event::LinkAdded(LinkAdded {
                from: from.into(),
                edge_type: EdgeType::Uses,
                to: to.into(),
                evidence: None,
                weight: None,
            }),
        )
    }

    fn unlink(from: &str, to: &str) -> NewEvent {
        NewEvent::new(
            Source::Cli,
            Event::LinkRemoved(LinkRemoved {
                from: from.into(),
                edge_type: EdgeType::Uses,
                to: to.into(),
                reason: None,
            }),
        )
    }

    fn import(file: &str, repo: &str) -> NewEvent {
        NewEvent::new(
            Source::file(file, 1, 1),
            Event::Import(Import {
                project: "p".into(),
                repo: repo.into(),
                manifest: file.into(),
                dependency: repo.into(),
            }),
        )
    }

    #[test]
    fn duplicate_link_is_a_no_op_but_relink_after_unlink_appends() {
        let (_dir, store) = open();
        let log = EventLog::new(&store);
        assert_eq!(log.append([link("a", "b")]).unwrap().appended, vec![1]);
        let again = log.append([link("a", "b")]).unwrap();
        assert!(again.appended.is_empty());
        assert_eq!(again.unchanged, 1);
        assert_eq!(log.append([unlink("a", "b")]).unwrap().appended, vec![2]);
        assert!(log.append([unlink("a", "b")]).unwrap().appended.is_empty());
        assert_eq!(log.append([link("a", "b")]).unwrap().appended, vec![3]);
        let live = log.live(&[EventKind::LinkAdded, EventKind::LinkRemoved]).unwrap();
        assert_eq!(live.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![3]);
        assert_eq!(log.by_node("a").unwrap().len(), 3);
    }

    #[test]
    fn retracted_fact_can_be_asserted_again() {
        let (_dir, store) = open();
        let log = EventLog::new(&store);
        log.append([import("/x/Cargo.toml", "r")]).unwrap();
        let retract = NewEvent::new(Source::Cli, Event::Retracted(Retracted { target_seq: 1, reason: "gone".into() }));
        assert_eq!(log.append([retract.clone()]).unwrap().appended, vec![2]);
        assert!(log.live(&[EventKind::Import]).unwrap().is_empty());
        // Retracting what is no longer live changes nothing.
        let again = NewEvent::new(Source::Cli, Event::Retracted(Retracted { target_seq: 1, reason: "again".into() }));
        assert!(log.append([again]).unwrap().appended.is_empty());
        assert_eq!(log.append([import("/x/Cargo.toml", "r")]).unwrap().appended, vec![3]);
        assert_eq!(log.live(&[EventKind::Import]).unwrap()[0].seq, 3);
        assert_eq!(log.by_source("/x/Cargo.toml").unwrap().len(), 2);
    }

    #[test]
    fn node_changed_and_changed_back_is_appended_each_time() {
        let (_dir, store) = open();
        let log = EventLog::new(&store);
        let node = |summary: &str| {
            NewEvent::new(
                Source::file("reg.yaml", 1, 3),
                Event::NodeRegistered(NodeRegistered {
                    id: "n".into(),
                    kind: NodeKind::Reference,
                    path: None,
                    domains: vec![],
                    summary: Some(summary.into()),
                    aliases: vec![],
                    packages: vec![],
                }),
            )
        };
        assert_eq!(log.append([node("a")]).unwrap().appended.len(), 1);
        assert_eq!(log.append([node("a")]).unwrap().appended.len(), 0);
        assert_eq!(log.append([node("b")]).unwrap().appended.len(), 1);
        assert_eq!(log.append([node("a")]).unwrap().appended.len(), 1);
        assert_eq!(log.nodes().unwrap()["n"].summary.as_deref(), Some("a"));
        let removed = NewEvent::new(Source::Cli, Event::NodeRemoved(NodeRemoved { id: "n".into(), reason: None }));
        log.append([removed]).unwrap();
        assert!(log.nodes().unwrap().is_empty());
    }

    #[test]
    fn append_all_commits_in_batches() {
        let (_dir, store) = open();
        let log = EventLog::new(&store);
        let mut commits = Vec::new();
        let events = (0..25).map(|i| import("/m", &format!("r{i}")));
        let report = log.append_all(events, 10, |n| commits.push(n)).unwrap();
        assert_eq!(commits, vec![10, 20, 25]);
        assert_eq!(report.appended.len(), 25);
        assert_eq!(log.last_seq().unwrap(), Some(25));
    }

    #[test]
    fn aborted_transaction_loses_nothing_committed() {
        let (_dir, store) = open();
        let log = EventLog::new(&store);
        log.append([link("a", "b"), link("a", "c")]).unwrap();
        {
            // A batch that is written but never committed, as when the process dies.
            let txn = store.begin_write().unwrap();
            append_in(&txn, (0..100).map(|i| import("/m", &format!("r{i}")))).unwrap();
            txn.abort().unwrap();
        }
        assert_eq!(log.range(..).unwrap().len(), 2);
        assert_eq!(log.append([link("a", "d")]).unwrap().appended, vec![3]);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Link(u8, u8),
        Unlink(u8, u8),
        Import(u8, u8),
        Retract(u8),
        Rebuild,
        Reopen,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..3, 0u8..3).prop_map(|(a, b)| Op::Link(a, b)),
            (0u8..3, 0u8..3).prop_map(|(a, b)| Op::Unlink(a, b)),
            (0u8..2, 0u8..3).prop_map(|(f, r)| Op::Import(f, r)),
            (1u8..12).prop_map(Op::Retract),
            Just(Op::Rebuild),
            Just(Op::Reopen),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Model-based: the live set after any sequence of appends, rebuilds and reopens
        /// matches a naive in-memory model, and rebuilt indexes equal incremental ones.
        #[test]
        fn log_matches_model(ops in prop::collection::vec(op(), 1..30)) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("store.redb");
            let mut store = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap();
            // The model: appended (seq, event), live seqs.
            let mut model: Vec<(Source, Event)> = Vec::new();
            let mut live: Vec<bool> = Vec::new();
            for op in ops {
                let new = match op {
                    Op::Link(a, b) => link(&format!("n{a}"), &format!("n{b}")),
                    Op::Unlink(a, b) => unlink(&format!("n{a}"), &format!("n{b}")),
                    Op::Import(f, r) => import(&format!("/f{f}"), &format!("r{r}")),
                    Op::Retract(seq) => NewEvent::new(Source::Cli, Event::Retracted(Retracted { target_seq: seq as u64, reason: "x".into() })),
                    Op::Rebuild => { EventLog::new(&store).rebuild_indexes().unwrap(); continue }
                    Op::Reopen => { drop(store); store = Store::open(&path, &OpenOptions::default(), |_| {}).unwrap(); continue }
                };
                // Naive model of liveness.
                let hash = new.event.content_hash(&new.source);
                let is_live_hash = (0..model.len()).any(|i| live[i] && model[i].1.content_hash(&model[i].0) == hash);
                let applies = !is_live_hash && match &new.event {
                    Event::Retracted(r) => r.target_seq >= 1 && (r.target_seq as usize) <= model.len()
                        && live[r.target_seq as usize - 1] && model[r.target_seq as usize - 1].1.kind().is_fact(),
                    _ => true,
                };
                let report = EventLog::new(&store).append([new.clone()]).unwrap();
                prop_assert_eq!(report.appended.len(), applies as usize);
                if applies {
                    if let Some(id) = new.event.identity() {
                        for i in 0..model.len() {
                            if model[i].1.identity().as_deref() == Some(id.as_str()) { live[i] = false; }
                        }
                    }
                    if let Event::Retracted(r) = &new.event { live[r.target_seq as usize - 1] = false; }
                    model.push((new.source, new.event));
                    live.push(true);
                }
            }
            let log = EventLog::new(&store);
            let all = log.range(..).unwrap();
            prop_assert_eq!(all.len(), model.len());
            let mut live_seqs: Vec<u64> = Vec::new();
            for e in &all { if log.is_live(e).unwrap() { live_seqs.push(e.seq); } }
            let expected: Vec<u64> = (0..model.len()).filter(|&i| live[i]).map(|i| i as u64 + 1).collect();
            prop_assert_eq!(live_seqs, expected);
            let incremental = log.index_snapshot().unwrap();
            log.rebuild_indexes().unwrap();
            prop_assert_eq!(incremental, log.index_snapshot().unwrap());
        }
    }
}
