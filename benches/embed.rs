//! Embedding throughput and peak memory of the real model, per session setting.
//!
//! `cargo bench --bench embed` (or `cargo bench --profile dev --bench embed`: the model
//! runs in ONNX Runtime's own optimised library either way) chunks a tree (default: this
//! project's `src/`; `PATINA_EMBED_BENCH_DIR` to choose, `PATINA_EMBED_BENCH_CHUNKS` for
//! how many chunks, default 400) and embeds the chunks in steps of 32 as the background
//! worker does, once per configuration, each in a fresh child process so that its peak
//! RSS (`VmHWM`) is its own. Prints a markdown table: chunks/s, peak RSS, and the mean
//! cosine of each configuration's vectors to the first one's (the checksum: a setting
//! that changes the numbers shows it). Needs the model (`patina models fetch`, found
//! through `$PATINA_MODELS` or `target/patina-models`); under `cargo test` it only checks
//! that it can chunk.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use patina::models;
use patina::search::chunk;
use patina::search::embed::{EmbedOptions, Embedder, OnnxEmbedder, cosine};

/// The worker's step.
const STEP: usize = 32;

/// `(name, options)`: what is compared.
fn configs() -> Vec<(&'static str, EmbedOptions)> {
    let base = EmbedOptions::default();
    let t256 = EmbedOptions { max_tokens: 256, ..base };
    let t128 = EmbedOptions { max_tokens: 128, ..base };
    vec![
        (
            "256 tokens, batch 32, arena, pattern",
            EmbedOptions { batch: 32, cpu_arena: true, memory_pattern: true, ..t256 },
        ),
        ("256 tokens, batch 32, no arena", EmbedOptions { batch: 32, cpu_arena: false, memory_pattern: true, ..t256 }),
        (
            "256 tokens, batch 32, no pattern",
            EmbedOptions { batch: 32, cpu_arena: true, memory_pattern: false, ..t256 },
        ),
        ("256 tokens, batch 32, neither", EmbedOptions { batch: 32, cpu_arena: false, memory_pattern: false, ..t256 }),
        (
            "256 tokens, batch 8, arena, pattern",
            EmbedOptions { batch: 8, cpu_arena: true, memory_pattern: true, ..t256 },
        ),
        ("256 tokens, batch 8, neither", EmbedOptions { batch: 8, cpu_arena: false, memory_pattern: false, ..t256 }),
        (
            "128 tokens, batch 32, arena, pattern",
            EmbedOptions { batch: 32, cpu_arena: true, memory_pattern: true, ..t128 },
        ),
        ("128 tokens, batch 32, neither", EmbedOptions { batch: 32, cpu_arena: false, memory_pattern: false, ..t128 }),
        ("128 tokens, batch 8, neither", EmbedOptions { batch: 8, cpu_arena: false, memory_pattern: false, ..t128 }),
    ]
}

fn inputs() -> Vec<String> {
    let dir = std::env::var_os("PATINA_EMBED_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src"));
    let limit: usize = std::env::var("PATINA_EMBED_BENCH_CHUNKS").ok().and_then(|v| v.parse().ok()).unwrap_or(400);
    let mut files: Vec<PathBuf> = ignore::Walk::new(&dir)
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(&dir).unwrap_or(&path).display().to_string();
        let Some(language) = chunk::language_of(&rel) else { continue };
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Ok(text) = chunk::classify(&bytes) else { continue };
        for c in chunk::chunk_file(&rel, language, text) {
            out.push(patina::search::index::embed_input(&c));
            if out.len() == limit {
                return out;
            }
        }
    }
    out
}

fn models_paths() -> Option<models::ModelPaths> {
    let dir = std::env::var_os("PATINA_MODELS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/patina-models"));
    models::locate(&dir)
}

/// Peak resident set of this process, in MiB.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The child: one configuration; prints `chunks_per_s rss_mib` and writes the vectors.
fn child(index: usize, out: &str) {
    let (_, options) = configs()[index];
    let texts = inputs();
    let paths = models_paths().expect("model");
    let mut embedder = OnnxEmbedder::load_with(&paths, &options).unwrap();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let started = Instant::now();
    let mut vectors = Vec::with_capacity(texts.len());
    for step in refs.chunks(STEP) {
        vectors.extend(embedder.embed(step).unwrap());
    }
    let secs = started.elapsed().as_secs_f64();
    let flat: Vec<u8> = vectors.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(out, flat).unwrap();
    println!("{} {}", texts.len() as f64 / secs, peak_rss_mib());
}

fn read_vectors(path: &std::path::Path) -> Vec<Vec<f32>> {
    let bytes = std::fs::read(path).unwrap();
    let floats: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    floats.chunks(patina::search::embed::DIMENSIONS).map(<[f32]>::to_vec).collect()
}

fn main() {
    if let (Ok(index), Ok(out)) = (std::env::var("PATINA_EMBED_BENCH_CHILD"), std::env::var("PATINA_EMBED_BENCH_OUT")) {
        child(index.parse().unwrap(), &out);
        return;
    }
    let texts = inputs();
    assert!(!texts.is_empty(), "checksum: chunks were made");
    if !std::env::args().any(|a| a == "--bench") {
        println!("embed bench smoke: {} chunks (run `cargo bench --bench embed` to measure)", texts.len());
        return;
    }
    if models_paths().is_none() {
        panic!("the embed bench needs the model: run `patina models fetch` first");
    }
    let only: Option<Vec<usize>> = std::env::var("PATINA_EMBED_BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect());
    let work = tempfile::tempdir().unwrap();
    println!(
        "{} chunks, steps of {STEP}, {} cores\n",
        texts.len(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| # | setting | chunks/s | peak RSS (MiB) | mean cosine to the first row |");
    println!("|---:|---|---:|---:|---:|");
    let mut first: Option<Vec<Vec<f32>>> = None;
    for (i, (name, _)) in configs().iter().enumerate() {
        if only.as_ref().is_some_and(|o| !o.contains(&i)) {
            continue;
        }
        let out = work.path().join(format!("v{i}"));
        let run = Command::new(std::env::current_exe().unwrap())
            .env("PATINA_EMBED_BENCH_CHILD", i.to_string())
            .env("PATINA_EMBED_BENCH_OUT", &out)
            .output()
            .unwrap();
        assert!(run.status.success(), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        let line = String::from_utf8_lossy(&run.stdout);
        let mut parts = line.split_whitespace().map(|v| v.parse::<f64>().unwrap_or(0.0));
        let (rate, rss) = (parts.next().unwrap_or(0.0), parts.next().unwrap_or(0.0));
        let vectors = read_vectors(&out);
        assert_eq!(vectors.len(), texts.len(), "checksum: one vector per chunk");
        let agreement = match &first {
            None => 1.0,
            Some(reference) => {
                reference.iter().zip(&vectors).map(|(a, b)| f64::from(cosine(a, b))).sum::<f64>() / vectors.len() as f64
            }
        };
        if first.is_none() {
            first = Some(vectors);
        }
        println!("| {i} | {name} | {rate:.1} | {rss:.0} | {agreement:.4} |");
    }
}
