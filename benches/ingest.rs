//! Ingest throughput on the real session logs (`../shared/data/patina-sessions`) and on a
//! synthetic corpus 100× larger (`eval/synth_sessions.rs`), against `rg` scanning the same
//! files for the same node names.
//!
//! `cargo bench --bench ingest` runs the full sizes; under `cargo test` a smoke size.

#[path = "../eval/synth_sessions.rs"]
mod synth_sessions;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use patina::event::log::EventLog;
use patina::ingest::cues::Cues;
use patina::ingest::mention::{NodeMatcher, extract};
use patina::ingest::{IngestOptions, ingest};
use patina::store::{OpenOptions, Store};

/// `$PATINA_SHARED_DATA`, else `../shared/data` beside the repository (as the tests).
fn shared() -> PathBuf {
    std::env::var_os("PATINA_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p)
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p)
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let real = shared().join("patina-sessions");
    let registry = patina::registry::load(&shared().join("patina-registry.yaml")).expect("registry");
    let work = tempfile::tempdir().unwrap();
    let synth = work.path().join("synth");
    let copies = if full { 100 } else { 2 };
    synth_sessions::generate(&real, &synth, copies).unwrap();

    println!(
        "| corpus | files | MiB | scan only (MB/s) | ingest cold (MB/s) | events | events/s | re-ingest unchanged (s) | rg -c -i -w (s) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, dir) in [("real 313 logs", real.clone()), (&*format!("synthetic {copies}x"), synth.clone())] {
        let files = files_under(&dir);
        let bytes: u64 = files.iter().map(|f| std::fs::metadata(f).unwrap().len()).sum();
        let mb = bytes as f64 / 1e6;

        // Scan only: read + extract, no store.
        let cues = Cues::load(&[]).unwrap();
        let nodes: Vec<_> = registry.nodes.iter().map(|n| n.node.clone()).collect();
        let matcher = NodeMatcher::new(&nodes, &cues);
        let started = Instant::now();
        let mut found = 0usize;
        for f in &files {
            let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
            found += extract(&text, &matcher, &cues, Some("patina")).len();
        }
        let scan = started.elapsed().as_secs_f64();

        // Full ingest into a fresh store.
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(&home.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
        patina::mother::sync(&EventLog::new(&store), &registry, false, |_| {}).unwrap();
        let options = IngestOptions { project: Some("patina".into()), ..IngestOptions::default() };
        let started = Instant::now();
        let report = ingest(&store, std::slice::from_ref(&dir), &options, Cues::load(&[]).unwrap(), |_| {}).unwrap();
        let cold = started.elapsed().as_secs_f64();
        let events: usize = report.added.values().sum();
        assert_eq!(report.files_read, files.len(), "checksum: every file read");
        assert!(events > 0 && events <= found, "checksum: {events} events from {found} found mentions");

        let started = Instant::now();
        let again = ingest(&store, std::slice::from_ref(&dir), &options, Cues::load(&[]).unwrap(), |_| {}).unwrap();
        let warm = started.elapsed().as_secs_f64();
        assert_eq!(again.files_unchanged, files.len(), "checksum: re-ingest skips every file");

        let rg = rg_seconds(&dir, &nodes);
        println!(
            "| {name} | {} | {:.1} | {:.1} | {:.1} | {events} | {:.0} | {warm:.2} | {} |",
            files.len(),
            bytes as f64 / (1 << 20) as f64,
            mb / scan,
            mb / cold,
            events as f64 / cold,
            rg.map(|s| format!("{s:.2}")).unwrap_or_else(|| "n/a".into()),
        );
    }
}

/// Time for `rg -c -i -w -e ID -e ALIAS …` over the corpus, if rg is installed.
fn rg_seconds(dir: &Path, nodes: &[patina::event::NodeRegistered]) -> Option<f64> {
    let mut cmd = Command::new("rg");
    cmd.args(["-c", "-i", "-w"]);
    for node in nodes {
        cmd.arg("-e").arg(regex_escape(&node.id));
        for alias in &node.aliases {
            cmd.arg("-e").arg(regex_escape(alias));
        }
    }
    cmd.arg(dir).stdout(std::process::Stdio::null());
    let started = Instant::now();
    let status = cmd.status().ok()?;
    status.code().filter(|c| *c <= 1)?;
    Some(started.elapsed().as_secs_f64())
}

fn regex_escape(s: &str) -> String {
    s.chars().map(|c| if ".+*?()|[]{}^$\\".contains(c) { format!("\\{c}") } else { c.to_string() }).collect()
}
