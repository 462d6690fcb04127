//! Latency from a session-log write to the changed edge being queryable, through the real
//! watcher (notify + debounce + ingest + derive), for several debounce intervals.
//!
//! `cargo bench --bench watch`; under `cargo test` a smoke size.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use patina::event::EdgeType;
use patina::graph::store as graph_store;
use patina::ingest::IngestOptions;
use patina::ingest::cues::Cues;
use patina::store::{OpenOptions, Store};
use patina::watch::{self, WatchOptions};

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

fn edge_exists(store_path: &Path, to: &str) -> bool {
    let store = Store::open(store_path, &OpenOptions::default(), |_| {}).unwrap();
    graph_store::edge(&store, "atlas", EdgeType::TestsWith, to).unwrap().is_some()
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rounds = if full { 20 } else { 2 };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("| debounce (ms) | rounds | write → edge p50 (ms) | p95 (ms) | max (ms) |");
    println!("|---:|---:|---:|---:|---:|");
    for debounce_ms in [50u64, 100, 200] {
        let home = tempfile::tempdir().unwrap();
        let store_path = home.path().join("store.redb");
        let registry = patina::registry::load(&root.join("examples/world/registry.yaml")).unwrap();
        // Many reference nodes, so each round has an edge of its own to make.
        let mut nodes = registry.clone();
        for i in 0..rounds {
            let mut extra = nodes.nodes[3].clone();
            extra.node.id = format!("fixture{i}");
            extra.node.aliases.clear();
            extra.node.packages.clear();
            nodes.nodes.push(extra);
        }
        {
            let store = Store::open(&store_path, &OpenOptions::default(), |_| {}).unwrap();
            patina::mother::sync(&patina::event::log::EventLog::new(&store), &nodes, false, |_| {}).unwrap();
        }
        let sessions = home.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let options = WatchOptions {
            roots: watch::roots_for(std::slice::from_ref(&sessions)).unwrap(),
            debounce: Duration::from_millis(debounce_ms),
            ingest: IngestOptions { project: Some("atlas".into()), ..IngestOptions::default() },
            cues: Cues::load(&[]).unwrap(),
            params_home: None,
            open: OpenOptions::default(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, path, opts) = (Arc::clone(&stop), store_path.clone(), options.clone());
        let watcher = std::thread::spawn(move || watch::run(&path, &opts, &flag, |_| {}).unwrap());
        std::thread::sleep(Duration::from_millis(500));
        let mut latencies = Vec::new();
        for i in 0..rounds {
            let to = format!("fixture{i}");
            // Two sessions with a testing command each: enough for TESTS_WITH.
            let started = Instant::now();
            std::fs::write(
                sessions.join(format!("{i}.md")),
                format!("**ID**: 2026010{i}-1\n- Ran `atlas bench --repo {to}` as a stress test.\n"),
            )
            .unwrap();
            while !edge_exists(&store_path, &to) {
                assert!(started.elapsed() < Duration::from_secs(20), "edge never appeared");
                std::thread::sleep(Duration::from_millis(2));
            }
            latencies.push(started.elapsed().as_secs_f64() * 1e3);
        }
        stop.store(true, Ordering::SeqCst);
        watcher.join().unwrap();
        println!(
            "| {debounce_ms} | {rounds} | {:.0} | {:.0} | {:.0} |",
            percentile(latencies.clone(), 0.5),
            percentile(latencies.clone(), 0.95),
            latencies.iter().cloned().fold(0.0, f64::max)
        );
    }
}
