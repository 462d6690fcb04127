//! The knowledge layer at size: `context build` (depth 5) over 10k observations and 50k
//! relations, and the knowledge channel of a scry over the same items.
//!
//! `cargo bench --bench knowledge` runs the full size; under `cargo test` a smoke size.

use std::time::Instant;

use patina::event::log::{EventLog, NewEvent};
use patina::event::{Event, Observation, Relation, Source};
use patina::knowledge::{Knowledge, context, search};
use patina::store::{OpenOptions, Store};

const WORDS: [&str; 16] = [
    "event", "log", "table", "rebuild", "cache", "index", "graph", "session", "commit", "test", "error", "retry",
    "vector", "search", "schema", "config",
];

fn percentile(xs: &mut [f64], p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (items, relations) = if full { (10_000usize, 50_000usize) } else { (500, 2_500) };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let log = EventLog::new(&store);
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut events = Vec::with_capacity(items + relations);
    for i in 0..items {
        let text: Vec<&str> = (0..12).map(|_| WORDS[(next() % 16) as usize]).collect();
        events.push(NewEvent::new(
            Source::Cli,
            Event::Observation(Observation {
                project: "p".into(),
                id: format!("obs-{i}"),
                text: format!("{} number {i}", text.join(" ")),
                kind: "lesson".into(),
                facets: vec![],
            }),
        ));
    }
    for r in 0..relations {
        let (a, b) = (next() % items as u64, next() % items as u64);
        events.push(NewEvent::new(
            Source::Cli,
            Event::Relation(Relation {
                project: "p".into(),
                from: format!("obs-{a}"),
                to: format!("obs-{b}"),
                rel_type: if r % 2 == 0 { "supports".into() } else { "relates_to".into() },
                note: None,
            }),
        ));
    }
    log.append_all(events, 50_000, |_| {}).unwrap();
    let started = Instant::now();
    let knowledge = Knowledge::load(&log).unwrap();
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    assert_eq!(knowledge.items.len(), items, "checksum: every observation is live");

    let mut build = Vec::new();
    let mut reached = 0;
    for i in 0..50 {
        let root = format!("obs-{}", (i * 7919) % items);
        let t = Instant::now();
        let ctx = context::build(&knowledge, &root, context::MAX_DEPTH).unwrap();
        build.push(t.elapsed().as_secs_f64() * 1e3);
        reached += ctx.entries.len();
    }
    let mut channel = Vec::new();
    let projects = vec!["p".to_string()];
    // The first query indexes the items (once per process: daemons and MCP keep it).
    let t = Instant::now();
    let _ = search::search(&knowledge, &projects, "event log rebuild", 3);
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    for i in 0..20 {
        let query = format!("{} {} {}", WORDS[i % 16], WORDS[(i * 5) % 16], WORDS[(i * 11) % 16]);
        let t = Instant::now();
        let _ = search::search(&knowledge, &projects, &query, 3);
        channel.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "| items | relations | load (ms) | context depth 5 p50 (ms) | p95 (ms) | mean reached | channel, first query (ms) | channel warm p50 (ms) | p95 (ms) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {items} | {relations} | {load_ms:.1} | {:.2} | {:.2} | {} | {first_ms:.1} | {:.2} | {:.2} |",
        percentile(&mut build, 0.5),
        percentile(&mut build, 0.95),
        reached / 50,
        percentile(&mut channel, 0.5),
        percentile(&mut channel, 0.95)
    );
}
