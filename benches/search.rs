//! Search throughput and latency: indexing real trees, embedding, and query latency of
//! the lexical, semantic and fused channels at ~100k chunks.
//!
//! `cargo bench --bench search` runs the full sizes (needs the model: `patina models
//! fetch`, found through `$PATINA_MODELS` or `target/patina-models`) and prints markdown
//! tables. Under `cargo test` (no `--bench` argument) it runs a smoke size on one example
//! repo with the deterministic fake embedder, so it keeps compiling and working.
//!
//! What is measured, honestly:
//! - indexing: `search::index::build` on this project's tree and on `tantivy-0.27.0`
//!   from `~/.cargo/registry` (lexical-only builds for files/s and chunks/s; the real
//!   model for embedding throughput, on all of this project and a 1,000-chunk sample of
//!   tantivy);
//! - latency at ~100k chunks: a corpus of several registry crates copied 4 times (paths
//!   differ), lexical index real, vectors from the fake bag-of-words embedder (embedding
//!   100k chunks with the real model would take hours on 2 cores), queries embedded by
//!   the real model, so the semantic and fused latencies include real query embedding.

use std::path::{Path, PathBuf};
use std::time::Instant;

use patina::home::PatinaHome;
use patina::models;
use patina::search::embed::{Embedder, HashEmbedder, OnnxEmbedder};
use patina::search::index::{self, BuildReport};
use patina::search::{SearchRequest, Searcher, WeightedRequest};

const QUERIES: [&str; 12] = [
    "spawn_entity",
    "how are documents scored",
    "open a database file",
    "merge segments in the background",
    "parse a number from a string",
    "IndexWriter commit",
    "error when the file is corrupted",
    "tokenizer splits text into tokens",
    "async task scheduler wakes a future",
    "read_to_string",
    "compare two vectors",
    "btree page split",
];

fn quiet() -> impl FnMut(index::Phase, u64, u64) {
    |_, _, _| {}
}

fn registry_src() -> Option<PathBuf> {
    let base = std::env::var_os("CARGO_HOME")
        .map_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"), PathBuf::from)
        .join("registry/src");
    std::fs::read_dir(base).ok()?.flatten().map(|e| e.path()).find(|p| p.join("tantivy-0.27.0").is_dir())
}

fn models_paths() -> Option<models::ModelPaths> {
    let dir = std::env::var_os("PATINA_MODELS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/patina-models"));
    models::locate(&dir)
}

fn copy_tree(from: &Path, to: &Path) -> u64 {
    let mut n = 0;
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            n += copy_tree(&entry.path(), &target);
        } else if kind.is_file() && std::fs::copy(entry.path(), &target).is_ok() {
            n += 1;
        }
    }
    n
}

fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    if sorted_ms.is_empty() {
        return 0.0;
    }
    let i = ((sorted_ms.len() as f64 - 1.0) * p).round() as usize;
    sorted_ms[i]
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn index_row(name: &str, report: &BuildReport) {
    let secs = report.elapsed_ms as f64 / 1000.0;
    println!(
        "| {name} | {} | {} | {:.1} | {:.0} | {:.0} | {:.1} |",
        report.files,
        report.chunks,
        secs,
        report.files as f64 / secs,
        report.chunks as f64 / secs,
        mib(report.index_bytes)
    );
}

/// Embedding throughput of the real model on `n` chunks of a built index.
fn embed_row(name: &str, embedder: &mut OnnxEmbedder, home: &PatinaHome, repo: &str, n: u64) {
    let generation = index::open_chunks(&home.repo_dir(repo), repo).unwrap();
    let total = generation.meta.chunks;
    let step = (total / n.max(1)).max(1);
    let inputs: Vec<String> = (0..total)
        .step_by(step as usize)
        .take(n as usize)
        .map(|id| index::embed_input(&generation.chunk(id).unwrap().unwrap().chunk))
        .collect();
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let started = Instant::now();
    let vectors = embedder.embed(&refs).unwrap();
    let secs = started.elapsed().as_secs_f64();
    assert!(vectors.iter().all(|v| v.len() == 384), "checksum: every vector is 384-d");
    println!("| {name} | {} | {:.1} | {:.1} |", vectors.len(), secs, vectors.len() as f64 / secs);
}

fn latency(searcher: &mut Searcher, repo: &str, rounds: usize) {
    println!("| channel | queries | p50 (ms) | p95 (ms) | mean hits |");
    println!("|---|---:|---:|---:|---:|");
    for (name, lexical, semantic) in [("lexical", true, false), ("semantic", false, true), ("fused", true, true)] {
        let mut times = Vec::new();
        let mut hits = 0usize;
        for _ in 0..rounds {
            for query in QUERIES {
                let request = WeightedRequest {
                    repos: vec![(repo.to_string(), 1.0)],
                    query: query.to_string(),
                    limit: 10,
                    lexical,
                    semantic,
                };
                let started = Instant::now();
                let result = searcher.search_weighted(&request).unwrap();
                times.push(started.elapsed().as_secs_f64() * 1000.0);
                hits += result.hits.len();
            }
        }
        assert!(hits > 0, "checksum: {name} found something");
        times.sort_by(f64::total_cmp);
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.1} |",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            hits as f64 / times.len() as f64
        );
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let work = tempfile::tempdir().unwrap();
    let home = PatinaHome::at(work.path().join("home"));
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR"));

    if !full {
        // Smoke: one example repo, fake embedder, a few queries.
        let repo = project.join("examples/world/repos/ecsdemo");
        let report =
            index::build(&home.repo_dir("ecsdemo"), "ecsdemo", &repo, Some(&mut HashEmbedder), &mut quiet()).unwrap();
        println!("| tree | files | chunks | build (s) | files/s | chunks/s | index (MiB) |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        index_row("ecsdemo (fake embedder)", &report);
        assert!(report.chunks > 10, "checksum: chunks were made");
        let mut searcher = Searcher::with_embedder(&home, Some(Box::new(HashEmbedder)));
        latency(&mut searcher, "ecsdemo", 1);
        return;
    }

    let paths = models_paths().expect("the full bench needs the model: run `patina models fetch` first");
    let mut embedder = OnnxEmbedder::load(&paths).unwrap();
    let registry = registry_src().expect("~/.cargo/registry/src with tantivy-0.27.0");

    println!("## Indexing (lexical-only builds: read, chunk, tantivy)\n");
    println!("| tree | files | chunks | build (s) | files/s | chunks/s | index (MiB) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let own = index::build(&home.repo_dir("patina"), "patina", &project, None, &mut quiet()).unwrap();
    index_row("patina (this repo)", &own);
    let tantivy = registry.join("tantivy-0.27.0");
    let big = index::build(&home.repo_dir("tantivy"), "tantivy", &tantivy, None, &mut quiet()).unwrap();
    index_row("tantivy-0.27.0", &big);

    println!("\n## Embedding (real model: all-MiniLM-L6-v2 int8, ≤256 tokens, batch 32)\n");
    println!("| chunks of | chunks | time (s) | chunks/s |");
    println!("|---|---:|---:|---:|");
    embed_row("patina (all)", &mut embedder, &home, "patina", own.chunks);
    embed_row("tantivy-0.27.0 (sample)", &mut embedder, &home, "tantivy", 1_000);

    println!("\n## Full build with the real model (this repo)\n");
    let started = Instant::now();
    let mut real: Box<dyn Embedder> = Box::new(OnnxEmbedder::load(&paths).unwrap());
    let with_model =
        index::build(&home.repo_dir("patina-sem"), "patina-sem", &project, Some(real.as_mut()), &mut quiet()).unwrap();
    println!(
        "{} chunks, {:.1} s total ({:.1} s embedding, {:.1} chunks/s end to end), index {:.1} MiB",
        with_model.chunks,
        started.elapsed().as_secs_f64(),
        with_model.embed_ms as f64 / 1000.0,
        with_model.chunks as f64 / started.elapsed().as_secs_f64(),
        mib(with_model.index_bytes)
    );

    println!("\n## Query latency at ~100k chunks\n");
    let corpus = work.path().join("corpus");
    let crates = ["tantivy-0.27.0", "tokio-1.54.1", "redb-4.5.0", "tokenizers-0.22.2", "ort-2.0.0-rc.15"];
    let mut files = 0;
    for copy in 0..4 {
        for name in crates {
            let from = registry.join(name);
            if from.is_dir() {
                files += copy_tree(&from, &corpus.join(format!("copy{copy}")).join(name));
            }
        }
    }
    let started = Instant::now();
    let report =
        index::build(&home.repo_dir("corpus"), "corpus", &corpus, Some(&mut HashEmbedder), &mut quiet()).unwrap();
    println!(
        "corpus: {files} files copied ({} indexed), {} chunks, built in {:.1} s with fake vectors, index {:.1} MiB\n",
        report.files,
        report.chunks,
        started.elapsed().as_secs_f64(),
        mib(report.index_bytes)
    );
    let mut searcher = Searcher::with_embedder(&home, Some(Box::new(OnnxEmbedder::load(&paths).unwrap())));
    // First load (open indexes, warm the model) is excluded.
    let warm = SearchRequest { repos: vec!["corpus".into()], query: "warm up".into(), limit: 10 };
    let started = Instant::now();
    searcher.search(&warm).unwrap();
    println!("first query (opens the index, warms the model): {:.1} ms\n", started.elapsed().as_secs_f64() * 1000.0);
    latency(&mut searcher, "corpus", 5);
}
