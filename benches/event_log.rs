//! Event-log throughput: batched appends, full scans, point lookups, dedupe.
//!
//! `cargo bench --bench event_log` runs the full sizes and prints a markdown table;
//! under `cargo test` (no `--bench` argument) it runs a tiny smoke size so it keeps working.

use std::time::Instant;

use patina::event::log::{EventLog, NewEvent};
use patina::event::{CueClass, Event, Mention, Source};
use patina::store::{OpenOptions, Store};

fn mention(i: u64) -> NewEvent {
    NewEvent::new(
        Source::file(format!("/sessions/2025{:04}.md", i % 997), (i % 400) as u32 + 1, (i % 400) as u32 + 1),
        Event::Mention(Mention {
            project: "patina".into(),
            repo: format!("repo{}", i % 32),
            session_id: format!("2025{:04}", i % 997),
            session_date: Some("2025-09-05".into()),
            cue_class: if i.is_multiple_of(3) { CueClass::Testing } else { CueClass::Plain },
            cue: if i.is_multiple_of(3) { "stress test".into() } else { String::new() },
            matched: format!("repo{}", i % 32),
            sentence: format!("Ran the parser stress test on repo{} and counted {i} symbols.", i % 32),
            co_mentions: 1,
            strong_cue: i.is_multiple_of(3),
        }),
    )
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[u64] = if full { &[100_000, 1_000_000] } else { &[2_000] };
    let batch = 5_000;
    println!(
        "| events | batch | append (events/s) | append (s) | scan all (s) | point lookup (µs) | re-append dupes (events/s) | store (MiB) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
        let log = EventLog::new(&store);

        let started = Instant::now();
        let report = log.append_all((0..n).map(mention), batch, |_| {}).unwrap();
        let append = started.elapsed().as_secs_f64();
        assert_eq!(report.appended.len() as u64, n, "checksum: every event appended");

        let started = Instant::now();
        let mut scanned = 0u64;
        log.visit(.., |e| {
            scanned += e.seq;
            Ok(())
        })
        .unwrap();
        let scan = started.elapsed().as_secs_f64();
        assert_eq!(scanned, n * (n + 1) / 2, "checksum: every seq seen once");

        let lookups = 10_000u64.min(n);
        let started = Instant::now();
        for i in 0..lookups {
            let seq = 1 + (i * 7_919) % n;
            assert_eq!(log.get(seq).unwrap().unwrap().seq, seq);
        }
        let lookup_us = started.elapsed().as_secs_f64() * 1e6 / lookups as f64;

        let dupes = n.min(100_000);
        let started = Instant::now();
        let again = log.append_all((0..dupes).map(mention), batch, |_| {}).unwrap();
        let dedupe = dupes as f64 / started.elapsed().as_secs_f64();
        assert_eq!(again.unchanged as u64, dupes, "checksum: re-append is a no-op");

        println!(
            "| {n} | {batch} | {:.0} | {append:.2} | {scan:.2} | {lookup_us:.1} | {dedupe:.0} | {:.1} |",
            n as f64 / append,
            store.file_size() as f64 / (1 << 20) as f64
        );
    }
}
