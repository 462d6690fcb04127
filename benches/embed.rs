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
//!
//! `PATINA_EMBED_BENCH_WORKER_DIR=TREE` measures the background worker at scale instead:
//! a lexical build of TREE (timed: what `repo add` waits for), then the cache filled with
//! stand-in vectors (the fake embedder's, under the real model's id) for every chunk but
//! the last `PATINA_EMBED_BENCH_CHUNKS`, then one `backfill` run with the real model in a
//! fresh process: it loads every cached vector into its in-memory index, embeds the rest
//! and publishes, which is the worker's peak memory on a repo of that size. Then one file
//! of the copy the bench made of TREE is edited and the index rebuilt (`repo update`: the
//! published vectors are relabelled to the new chunk ids, not re-added).

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
    let o = |max_tokens, batch, cpu_arena, memory_pattern| EmbedOptions {
        max_tokens,
        batch,
        cpu_arena,
        memory_pattern,
        ..EmbedOptions::default()
    };
    vec![
        ("256 tokens, batch 32, arena, pattern (before)", o(256, 32, true, true)),
        ("256 tokens, batch 32, arena, no pattern", o(256, 32, true, false)),
        ("256 tokens, batch 32, no arena, pattern", o(256, 32, false, true)),
        ("256 tokens, batch 16, arena, no pattern", o(256, 16, true, false)),
        ("256 tokens, batch 8, arena, no pattern", o(256, 8, true, false)),
        ("256 tokens, batch 8, arena, pattern", o(256, 8, true, true)),
        ("128 tokens, batch 32, arena, pattern", o(128, 32, true, true)),
        ("128 tokens, batch 32, arena, no pattern", o(128, 32, true, false)),
        ("128 tokens, batch 8, arena, no pattern", o(128, 8, true, false)),
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

/// The worker at scale (see the module docs).
fn worker_at_scale(tree: &std::path::Path) {
    use patina::search::{cache, embed::HashEmbedder, index};
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("big");
    let copy = home.path().join("tree");
    let copied = Command::new("cp").arg("-r").arg(tree).arg(&copy).status().unwrap();
    assert!(copied.success(), "copying {}", tree.display());
    let tree = copy.as_path();
    let pending: u64 = std::env::var("PATINA_EMBED_BENCH_CHUNKS").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    let started = Instant::now();
    let built = index::build_lexical(&dir, "big", tree, Some(models::MODEL_ID), &mut |_, _, _| {}).unwrap();
    println!(
        "lexical build (what `repo add` waits for): {} files, {} chunks, {:.1} s",
        built.files,
        built.chunks,
        started.elapsed().as_secs_f64()
    );
    let generation = index::open(&dir, "big").unwrap();
    let hashes = generation.chunk_hashes().unwrap();
    drop(generation);
    let store = cache::VectorCache::open(&dir).unwrap();
    let cut = hashes.len().saturating_sub(pending as usize);
    let started = Instant::now();
    for part in hashes[..cut].chunks(4096) {
        let texts: Vec<String> = part.iter().map(|(id, _)| format!("stand-in {id}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = HashEmbedder.embed(&refs).unwrap();
        let entries: Vec<([u8; 32], &[f32])> =
            part.iter().zip(&vectors).map(|((_, h), v)| (cache::key(models::MODEL_ID, h), v.as_slice())).collect();
        store.insert(&entries).unwrap();
    }
    drop(store);
    println!("cache filled with {cut} stand-in vectors in {:.1} s", started.elapsed().as_secs_f64());
    let run = Command::new(std::env::current_exe().unwrap()).env("PATINA_EMBED_BENCH_BACKFILL", &dir).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    print!("{}", String::from_utf8_lossy(&run.stdout));

    // `repo update` after one edit: a new function at the end of the first source file.
    let first = ignore::Walk::new(tree)
        .flatten()
        .map(|e| e.into_path())
        .find(|p| p.extension().is_some_and(|x| x == "rs"))
        .expect("a .rs file");
    let mut text = std::fs::read_to_string(&first).unwrap();
    text.push_str("\n/// Added by the bench.\npub fn added_by_the_bench() -> u32 {\n    1\n}\n");
    std::fs::write(&first, text).unwrap();
    let started = Instant::now();
    let update = index::build_lexical(&dir, "big", tree, Some(models::MODEL_ID), &mut |_, _, _| {}).unwrap();
    println!(
        "update after one edit: {:.1} s, {} files changed, {} vectors published at once, {} pending",
        started.elapsed().as_secs_f64(),
        update.files_changed,
        update.chunks_cached,
        update.chunks_pending
    );
    assert!(update.chunks_pending <= 2, "checksum: the vectors were carried over");
}

/// The child of [`worker_at_scale`]: one backfill run with the real model.
fn backfill_child(dir: &std::path::Path) {
    use patina::search::backfill;
    let paths = models_paths().expect("model");
    let mut embedder = OnnxEmbedder::load(&paths).unwrap();
    let started = Instant::now();
    let mut first_step: Option<(f64, u64)> = None;
    let mut on_step = |p: &backfill::Progress| {
        if first_step.is_none() {
            first_step = Some((started.elapsed().as_secs_f64(), p.done));
        }
    };
    let report = backfill::run(dir, &mut embedder, &backfill::Config::default(), &mut on_step, &|| false).unwrap();
    let secs = started.elapsed().as_secs_f64();
    let (loaded_at, loaded) = first_step.unwrap_or_default();
    assert_eq!((report.outcome, report.pending), (backfill::Outcome::Complete, 0), "checksum: all published");
    println!(
        "worker: {loaded} cached vectors into its index in {loaded_at:.1} s, then {} chunks embedded and all {} published; {secs:.1} s in all, {:.1} chunks/s after loading; peak RSS {:.0} MiB",
        report.embedded_now,
        report.chunks,
        report.embedded_now as f64 / (secs - loaded_at).max(1e-9),
        peak_rss_mib()
    );
}

fn main() {
    if let (Ok(index), Ok(out)) = (std::env::var("PATINA_EMBED_BENCH_CHILD"), std::env::var("PATINA_EMBED_BENCH_OUT")) {
        child(index.parse().unwrap(), &out);
        return;
    }
    if let Some(dir) = std::env::var_os("PATINA_EMBED_BENCH_BACKFILL") {
        backfill_child(std::path::Path::new(&dir));
        return;
    }
    if let Some(tree) = std::env::var_os("PATINA_EMBED_BENCH_WORKER_DIR") {
        worker_at_scale(std::path::Path::new(&tree));
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
    // `PATINA_EMBED_BENCH_ONLY=0,4,0,4`: these configurations, in this order (repeats
    // interleave A/B runs on a noisy machine).
    let order: Vec<usize> = match std::env::var("PATINA_EMBED_BENCH_ONLY") {
        Ok(v) => v.split(',').filter_map(|s| s.trim().parse().ok()).filter(|i| *i < configs().len()).collect(),
        Err(_) => (0..configs().len()).collect(),
    };
    let work = tempfile::tempdir().unwrap();
    println!(
        "{} chunks, steps of {STEP}, {} cores\n",
        texts.len(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| # | setting | chunks/s | peak RSS (MiB) | mean cosine to the first row |");
    println!("|---:|---|---:|---:|---:|");
    let mut first: Option<Vec<Vec<f32>>> = None;
    for i in order {
        let name = configs()[i].0;
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
