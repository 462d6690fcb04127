//! Graph derivation from scratch on synthetic logs of 10k, 100k and 1M events, with the
//! time split into loading facts, the crepe run and weights; then, on the same stores, a
//! new session log ingested and the graph brought current (the incremental path:
//! `graph::incremental`), and an edited one; then `neighbors` and `path` latency on a
//! graph of ~100k edges.
//!
//! `cargo bench --bench derive` runs the full sizes; under `cargo test` a smoke size.

use std::time::Instant;

use patina::event::log::{EventLog, NewEvent};
use patina::event::*;
use patina::graph::query::{self, Direction};
use patina::graph::{Params, derive, facts, program, store as graph_store};
use patina::store::{OpenOptions, Store};

/// A small deterministic PRNG (xorshift), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn node(id: String, kind: NodeKind, domains: Vec<String>) -> NewEvent {
    NewEvent::new(
        Source::Cli,
        Event::NodeRegistered(NodeRegistered {
            id,
            kind,
            path: None,
            domains,
            summary: None,
            aliases: vec![],
            packages: vec![],
        }),
    )
}

/// `n` events: nodes, then mentions (most), imports, bench runs and links.
fn synthetic(n: usize, rng: &mut Rng) -> Vec<NewEvent> {
    let projects = (n / 10_000).clamp(5, 100);
    let refs = (n / 1_000).clamp(20, 900);
    let domains = ["rust", "go", "search", "gamedev", "parsing", "vectors", "web", "db"];
    let mut out = Vec::with_capacity(n);
    for p in 0..projects {
        out.push(node(format!("p{p}"), NodeKind::Project, vec![domains[p % 8].into(), domains[(p + 3) % 8].into()]));
    }
    for r in 0..refs {
        out.push(node(format!("r{r}"), NodeKind::Reference, vec![domains[r % 8].into()]));
    }
    let classes = [CueClass::Plain, CueClass::Plain, CueClass::Testing, CueClass::Learning, CueClass::Using];
    while out.len() < n {
        let p = rng.below(projects as u64);
        // Skewed: a project talks mostly about a few repos.
        let r = (rng.below(refs as u64) * rng.below(refs as u64)) / refs as u64;
        let i = out.len();
        let event = match rng.below(100) {
            0..=94 => {
                let session = rng.below(20_000);
                let class = classes[rng.below(5) as usize];
                Event::Mention(Mention {
                    project: format!("p{p}"),
                    repo: format!("r{r}"),
                    session_id: format!("s{session}"),
                    session_date: Some(format!("2025-{:02}-{:02}", 1 + session % 12, 1 + session % 28)),
                    cue_class: class,
                    cue: if class == CueClass::Plain { String::new() } else { "tested on".into() },
                    strong_cue: class != CueClass::Plain && rng.below(2) == 0,
                    matched: format!("r{r}"),
                    sentence: format!("event {i}"),
                    co_mentions: 1,
                })
            }
            95..=97 => Event::Import(Import {
                project: format!("p{p}"),
                repo: format!("r{r}"),
                manifest: format!("/p{p}/m{}/Cargo.toml", rng.below(3)),
                dependency: format!("r{r}"),
            }),
            98 => Event::BenchRun(BenchRun {
                project: format!("p{p}"),
                repo: format!("r{r}"),
                suite: format!("suite{}", rng.below(5)),
                command: None,
                when: "2025-10-01".into(),
            }),
            _ => Event::LinkAdded(LinkAdded {
                from: format!("p{p}"),
                edge_type: EdgeType::ALL[rng.below(4) as usize],
                to: format!("r{r}"),
                evidence: None,
                weight: None,
            }),
        };
        out.push(NewEvent::new(Source::file(format!("/logs/{}.md", i % 5_000), 1, 1), event));
    }
    out
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

/// Latencies of new and edited session logs on one store.
struct SessionRounds {
    new_ms: Vec<f64>,
    /// Of `new_ms`, the graph update alone.
    derive_ms: Vec<f64>,
    edit_ms: Vec<f64>,
    /// Pairs touched in the last round.
    pairs: usize,
    /// Whether every round took the incremental path.
    incremental: bool,
}

/// A session log of project `p` dated after everything in the log, naming eight repos
/// with testing and using cues.
fn session_text(round: usize, refs: usize, edited: bool) -> String {
    let mut text = format!(
        "# Session: round {round}\n**ID**: 20260105-1{round:05}\n**Started**: 2026-01-05T10:00:00Z\n\n## Work\n"
    );
    for k in 0..8 {
        let r = (round * 37 + k * 101) % refs;
        text.push_str(&format!("- tested on r{r}: the scrape passed after a fix\n"));
        if k % 2 == 0 {
            text.push_str(&format!("- we integrated r{r} as a dependency of the parser\n"));
        }
    }
    if edited {
        text.push_str("- later: tested on r3 and r5 again, both fine\n");
    }
    text
}

/// Rounds of: write a new session log of one project, ingest it, refresh the graph; then
/// edit it (a line added) and do the same again.
fn new_session_rounds(store: &Store, dir: &std::path::Path, n: usize, rounds: usize) -> SessionRounds {
    let projects = (n / 10_000).clamp(5, 100);
    let refs = (n / 1_000).clamp(20, 900);
    let params = Params::builtin();
    let cues = || patina::ingest::cues::Cues::load(&[]).unwrap();
    let mut out =
        SessionRounds { new_ms: Vec::new(), derive_ms: Vec::new(), edit_ms: Vec::new(), pairs: 0, incremental: true };
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for round in 0..rounds {
        let p = round % projects;
        let options = patina::ingest::IngestOptions { project: Some(format!("p{p}")), ..Default::default() };
        let file = sessions.join(format!("20260105-1{round:05}.md"));
        for edited in [false, true] {
            std::fs::write(&file, session_text(round, refs, edited)).unwrap();
            let t = Instant::now();
            let report = patina::ingest::ingest(store, std::slice::from_ref(&file), &options, cues(), |_| {}).unwrap();
            let ingested = Instant::now();
            let refresh = graph_store::refresh(store, &params).unwrap();
            let elapsed = ms(t.elapsed());
            if !edited {
                out.derive_ms.push(ms(ingested.elapsed()));
            }
            assert!(report.added.values().sum::<usize>() > 0, "the session log names registered repos: {report:?}");
            out.incremental &= refresh.incremental;
            out.pairs = refresh.pairs;
            if edited { out.edit_ms.push(elapsed) } else { out.new_ms.push(elapsed) }
        }
    }
    out
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if full { &[10_000, 100_000, 1_000_000] } else { &[5_000] };
    let params = Params::builtin();
    let mut rows = Vec::new();
    println!(
        "| events | evidence units | groups | edges | live scan + decode (ms) | load facts (ms) | crepe run (ms) | weights (ms) | derive total (ms) | store graph (ms) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
        let log = EventLog::new(&store);
        let mut rng = Rng(0x9e3779b97f4a7c15 ^ n as u64);
        log.append_all(synthetic(n, &mut rng), 50_000, |_| {}).unwrap();

        // The live scan with in-place decoding alone (no grouping).
        let t = Instant::now();
        let mut decoded = 0usize;
        log.visit_live_records(&EventKind::ALL, |_, bytes| {
            decoded += patina::event::codec::decode_evidence(bytes).unwrap().is_some() as usize;
            Ok(())
        })
        .unwrap();
        let scan = t.elapsed();
        // Profiling aid: `PATINA_BENCH_LOAD_LOOP=N` loads the facts N more times.
        for _ in 0..std::env::var("PATINA_BENCH_LOAD_LOOP").ok().and_then(|v| v.parse().ok()).unwrap_or(0) {
            std::hint::black_box(facts::load(&log, &params).unwrap());
        }
        let t0 = Instant::now();
        let loaded = facts::load(&log, &params).unwrap();
        let load = t0.elapsed();
        // The run derivation does: without the groups no rule reads.
        let read = program::RuleInput {
            groups: loaded.input.groups.iter().copied().filter(|g| program::kind_is_read(g.3)).collect(),
            ..loaded.input.clone()
        };
        let t1 = Instant::now();
        let output = program::run(&read);
        let run = t1.elapsed();
        let t2 = Instant::now();
        let graph = derive::derive_from_facts(&loaded, &params);
        let weights = t2.elapsed().saturating_sub(run); // derive_from_facts runs the program again
        let total = load + t2.elapsed();
        assert_eq!(
            graph.edges.len(),
            output.edges.iter().map(|e| (e.0, e.1, e.2)).collect::<std::collections::BTreeSet<_>>().len(),
            "checksum"
        );
        let t3 = Instant::now();
        graph_store::write(&store, &graph, &patina::graph::incremental::pair_index(&loaded)).unwrap();
        let write = t3.elapsed();
        rows.push((n, new_session_rounds(&store, dir.path(), n, if full { 10 } else { 2 })));
        println!(
            "| {n} | {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
            loaded.input.groups.iter().map(|g| g.4 as usize).sum::<usize>(),
            loaded.groups.len(),
            graph.edges.len(),
            ms(scan),
            ms(load),
            ms(run),
            ms(weights),
            ms(total),
            ms(write)
        );
    }

    println!();
    println!(
        "| events | new session log: ingest + graph current p50 (ms) | max (ms) | of which graph update p50 (ms) | edited session log p50 (ms) | max (ms) | pairs touched | incremental |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, r) in &rows {
        println!(
            "| {n} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
            percentile(r.new_ms.clone(), 0.5),
            percentile(r.new_ms.clone(), 1.0),
            percentile(r.derive_ms.clone(), 0.5),
            percentile(r.edit_ms.clone(), 0.5),
            percentile(r.edit_ms.clone(), 1.0),
            r.pairs,
            r.incremental
        );
    }

    // Queries on a graph of ~100k edges: manual links between 2,000 nodes.
    let n_edges = if full { 100_000 } else { 2_000 };
    let n_nodes = if full { 2_000 } else { 200 };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let log = EventLog::new(&store);
    let mut rng = Rng(42);
    let mut events: Vec<NewEvent> = (0..n_nodes).map(|i| node(format!("n{i}"), NodeKind::Project, vec![])).collect();
    for _ in 0..n_edges {
        let (a, b) = (rng.below(n_nodes as u64), rng.below(n_nodes as u64));
        if a != b {
            events.push(NewEvent::new(
                Source::Cli,
                Event::LinkAdded(LinkAdded {
                    from: format!("n{a}"),
                    edge_type: EdgeType::ALL[rng.below(4) as usize],
                    to: format!("n{b}"),
                    evidence: None,
                    weight: Some(0.1 + (rng.below(90) as f32) / 100.0),
                }),
            ));
        }
    }
    log.append_all(events, 50_000, |_| {}).unwrap();
    let refresh = graph_store::refresh(&store, &params).unwrap();
    let t = Instant::now();
    let cache = patina::graph::memory::GraphCache::default();
    let memory = cache.get(&store).unwrap();
    let load_ms = ms(t.elapsed());
    println!();
    println!(
        "| graph edges | read from | neighbors p50 (ms) | neighbors p95 (ms) | path p50 (ms) | path p95 (ms) | paths found |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for in_memory in [false, true] {
        let mut rng = Rng(7);
        let mut neighbor_ms = Vec::new();
        let mut path_ms = Vec::new();
        let mut found = 0;
        for _ in 0..200 {
            let a = format!("n{}", rng.below(n_nodes as u64));
            let b = format!("n{}", rng.below(n_nodes as u64));
            let t = Instant::now();
            let ns = if in_memory {
                cache.get(&store).unwrap().neighbors(&a, Direction::Both, &[])
            } else {
                query::neighbors(&store, &a, Direction::Both, &[]).unwrap()
            };
            neighbor_ms.push(ms(t.elapsed()));
            assert!(!ns.is_empty() || n_edges < 1_000);
            let t = Instant::now();
            let path = if in_memory {
                cache.get(&store).unwrap().path(&a, &b, 4).unwrap()
            } else {
                query::path(&store, &a, &b, 4).unwrap()
            };
            found += path.is_some() as usize;
            path_ms.push(ms(t.elapsed()));
        }
        println!(
            "| {} | {} | {:.4} | {:.4} | {:.3} | {:.3} | {found}/200 |",
            refresh.edges,
            if in_memory { "memory (GraphCache, stamp checked per query)" } else { "store" },
            percentile(neighbor_ms.clone(), 0.5),
            percentile(neighbor_ms, 0.95),
            percentile(path_ms.clone(), 0.5),
            percentile(path_ms, 0.95)
        );
    }
    println!("(in-memory adjacency of {} edges loaded once in {load_ms:.0} ms)", memory.edge_count());
}
