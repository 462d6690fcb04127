//! Warm scry through the mother daemon, end to end over HTTP from this (client) process:
//! latency one request at a time, then N concurrent clients for a while (throughput,
//! errors, latency), and the daemon's memory.
//!
//! `cargo bench --bench daemon` on the bundled example world; with
//! `PATINA_BENCH_HOME=target/eval-world/home` on the evaluation world (its querysets'
//! queries, routed from patina, lexical). Under `cargo test` a smoke size.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use patina::daemon::client::MotherClient;
use serde_json::{Value, json};

fn percentile(xs: &mut [f64], p: f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

fn patina(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_patina"));
    cmd.arg("--home").arg(home).env("PATINA_MOTHER_URL", "off").env_remove("PATINA_HOME");
    cmd
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{:?}: {}", cmd, String::from_utf8_lossy(&out.stderr));
}

/// The example world in a fresh home: (home, project, queries).
fn example_world(dir: &Path) -> (PathBuf, String, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let home = dir.join("home");
    run_ok(patina(&home).args(["mother", "sync", "--registry"]).arg(root.join("examples/world/registry.yaml")));
    let world = root.join("examples/world");
    run_ok(patina(&home).args(["mother", "ingest"]).arg(world.join("sessions")).args(["--project", "atlas"]));
    for repo in ["atlas", "ecsdemo", "vectorlite", "quickparse"] {
        run_ok(patina(&home).args(["repo", "add", repo, "--lexical-only"]));
    }
    let queries: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("eval/example-queries.json")).unwrap()).unwrap();
    let queries =
        queries["queries"].as_array().unwrap().iter().map(|q| q["query"].as_str().unwrap().to_string()).collect();
    (home, "atlas".into(), queries)
}

/// An existing home (the evaluation world): its querysets' queries, from patina.
fn given_world(home: PathBuf) -> (PathBuf, String, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut queries = Vec::new();
    for file in ["eval/world/queries.json", "eval/world/heldout-queries.json"] {
        let set: Value = serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
        queries.extend(set["queries"].as_array().unwrap().iter().map(|q| q["query"].as_str().unwrap().to_string()));
    }
    (home, "patina".into(), queries)
}

struct Daemon {
    child: Child,
    url: String,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

fn start(home: &Path) -> Daemon {
    let mut child = patina(home)
        .args(["serve", "--bind", "127.0.0.1:0", "--no-socket"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("the daemon says where it listens").unwrap();
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines.by_ref() {});
    Daemon { child, url }
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (rounds, clients, seconds) = if full { (5, 32, 30) } else { (1, 4, 2) };
    let dir = tempfile::tempdir().unwrap();
    let (home, project, queries) = match std::env::var_os("PATINA_BENCH_HOME") {
        Some(home) => given_world(PathBuf::from(home)),
        None => example_world(dir.path()),
    };
    let started = Instant::now();
    let daemon = start(&home);
    println!("daemon up in {:.0} ms; {} queries from {project}", started.elapsed().as_secs_f64() * 1e3, queries.len());
    let body = |q: &str| json!({ "query": q, "project": project, "lexical_only": true, "limit": 10 });
    let client = MotherClient::new(&daemon.url, None);
    // Warm up: the first query of each loads the routing world and opens the indexes.
    let first = Instant::now();
    client.post("/scry", &body(&queries[0])).unwrap();
    let cold_ms = first.elapsed().as_secs_f64() * 1e3;
    for q in &queries {
        client.post("/scry", &body(q)).unwrap();
    }
    let mut sequential = Vec::new();
    for _ in 0..rounds {
        for q in &queries {
            let t = Instant::now();
            client.post("/scry", &body(q)).unwrap();
            sequential.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let n = sequential.len();
    println!("\n| requests | first (cold) ms | p50 ms | p95 ms | p99 ms |\n|---:|---:|---:|---:|---:|");
    println!(
        "| {n} | {cold_ms:.1} | {:.2} | {:.2} | {:.2} |",
        percentile(&mut sequential, 0.5),
        percentile(&mut sequential, 0.95),
        percentile(&mut sequential, 0.99)
    );

    let stop = Arc::new(AtomicBool::new(false));
    let errors = Arc::new(AtomicUsize::new(0));
    let queries = Arc::new(queries);
    let mut workers = Vec::new();
    for c in 0..clients {
        let (stop, errors, queries, url, project) =
            (stop.clone(), errors.clone(), queries.clone(), daemon.url.clone(), project.clone());
        workers.push(std::thread::spawn(move || {
            let client = MotherClient::new(&url, None);
            let mut latencies = Vec::new();
            let mut i = c;
            while !stop.load(Ordering::Relaxed) {
                let q = &queries[i % queries.len()];
                let t = Instant::now();
                let body = json!({ "query": q, "project": project, "lexical_only": true, "limit": 10 });
                match client.post("/scry", &body) {
                    Ok(_) => latencies.push(t.elapsed().as_secs_f64() * 1e3),
                    Err(_) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
                i += clients;
            }
            latencies
        }));
    }
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut all: Vec<f64> = workers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    let done = all.len();
    println!(
        "\n| clients | seconds | requests | errors | throughput (req/s) | p50 ms | p99 ms |\n|---:|---:|---:|---:|---:|---:|---:|"
    );
    println!(
        "| {clients} | {seconds} | {done} | {} | {:.1} | {:.1} | {:.1} |",
        errors.load(Ordering::Relaxed),
        done as f64 / seconds as f64,
        percentile(&mut all, 0.5),
        percentile(&mut all, 0.99)
    );
    let pid = daemon.child.id();
    println!(
        "\ndaemon RSS {:.0} MiB (peak {:.0} MiB)",
        rss_kib(pid, "VmRSS:") as f64 / 1024.0,
        rss_kib(pid, "VmHWM:") as f64 / 1024.0
    );
    assert_eq!(errors.load(Ordering::Relaxed), 0, "no request may fail");
}
