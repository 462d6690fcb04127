//! A damaged store: flipped bytes make commands fail with a clear error (exit 2), never
//! crash them (exit 101), read-only commands leave the file as they found it, and
//! `mother repair` saves the events that can still be read.

mod util;

use std::process::Output;

use util::{Home, example_registry, root, stderr};

/// A small real store: the example world's registry, sessions and bench log.
fn healthy_store() -> Vec<u8> {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let world = root().join("examples/world");
    let sessions = world.join("sessions");
    let bench = world.join("bench-runs.jsonl");
    home.ok(&["mother", "ingest", sessions.to_str().unwrap(), bench.to_str().unwrap(), "--project", "atlas"]);
    home.ok(&["mother", "link", "atlas", "USES", "quickparse"]);
    std::fs::read(home.store_path()).unwrap()
}

fn home_with(store: &[u8]) -> Home {
    let home = Home::new();
    std::fs::create_dir_all(home.store_path().parent().unwrap()).unwrap();
    std::fs::write(home.store_path(), store).unwrap();
    home
}

/// A deterministic generator (splitmix64), so every run damages the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `store` with 1 to 4 bytes changed inside one of its non-empty 4 KiB pages.
fn damaged(store: &[u8], seed: u64) -> (Vec<u8>, Vec<usize>) {
    let pages: Vec<usize> = (0..store.len().div_ceil(4096))
        .filter(|p| store[p * 4096..((p + 1) * 4096).min(store.len())].iter().any(|&b| b != 0))
        .collect();
    let mut rng = Rng(seed);
    let page = pages[(rng.next() % pages.len() as u64) as usize];
    let mut bytes = store.to_vec();
    let mut offsets = Vec::new();
    for _ in 0..=(rng.next() % 4) {
        let offset = (page * 4096 + (rng.next() % 4096) as usize).min(store.len() - 1);
        bytes[offset] ^= (rng.next() % 255 + 1) as u8;
        offsets.push(offset);
    }
    (bytes, offsets)
}

fn run(home: &Home, args: &[&str]) -> Output {
    home.cmd(args).output().unwrap()
}

#[test]
fn flipped_bytes_never_crash_log_stats_derive_link_or_ingest() {
    let store = healthy_store();
    let variants = std::env::var("PATINA_DAMAGE_VARIANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(300u64);
    let mut failed = 0;
    for seed in 0..variants {
        let (bytes, offsets) = damaged(&store, seed);
        let home = home_with(&bytes);
        for args in [&["mother", "log"][..], &["mother", "stats"], &["mother", "log", "--kind", "mention"]] {
            let out = run(&home, args);
            assert_ne!(
                out.status.code(),
                Some(101),
                "seed {seed} (bytes {offsets:?}): patina {args:?} panicked:\n{}",
                stderr(&out)
            );
            assert!(out.status.code().is_some(), "seed {seed}: patina {args:?} was killed: {}", out.status);
            assert!(!stderr(&out).contains("panicked at"), "seed {seed}: {}", stderr(&out));
            assert!(
                std::fs::read(home.store_path()).unwrap() == bytes,
                "seed {seed}: read-only {args:?} wrote to the store"
            );
            if out.status.code() == Some(2) {
                failed += 1;
            }
        }
        // The commands that may write too (`graph` re-derives a stale graph).
        let sessions = root().join("examples/world/sessions");
        let writes: [&[&str]; 4] = [
            &["mother", "graph"],
            &["mother", "derive"],
            &["mother", "link", "atlas", "TESTS_WITH", "vectorlite"],
            &["mother", "ingest", sessions.to_str().unwrap(), "--project", "atlas", "--force"],
        ];
        for args in writes {
            let out = run(&home, args);
            assert_ne!(
                out.status.code(),
                Some(101),
                "seed {seed} (bytes {offsets:?}): {args:?} panicked:\n{}",
                stderr(&out)
            );
            assert!(!stderr(&out).contains("panicked at"), "seed {seed}: {}", stderr(&out));
        }
    }
    println!("{variants} damaged stores: {failed} read commands failed cleanly (exit 2), none crashed");
}

#[test]
fn a_redb_panic_is_reported_as_damage_with_the_repair_hint() {
    let store = healthy_store();
    // Find a seed whose damage makes `mother log` fail, and check what it says.
    let mut seen = 0;
    for seed in 0..400 {
        let (bytes, _) = damaged(&store, seed);
        let home = home_with(&bytes);
        let out = run(&home, &["mother", "log"]);
        if out.status.code() == Some(2) && stderr(&out).contains("store damaged at") {
            let err = stderr(&out);
            assert!(err.contains("store.redb") && err.contains("patina mother repair"), "{err}");
            assert_eq!(err.lines().count(), 1, "one line, no panic message: {err}");
            seen += 1;
        }
    }
    assert!(seen > 0, "no damage variant made redb panic");
}

#[test]
fn repair_keeps_every_readable_event_and_the_damaged_file() {
    let store = healthy_store();
    let healthy = home_with(&store);
    let total = healthy.json(&["mother", "stats"])["events"].as_u64().unwrap();
    let mut repaired = 0;
    for seed in 0..400 {
        let (bytes, _) = damaged(&store, seed);
        let home = home_with(&bytes);
        if run(&home, &["mother", "log"]).status.code() == Some(0) {
            continue;
        }
        let report = home.json(&["mother", "repair"]);
        let (kept, lost) = (report["kept"].as_u64().unwrap(), report["lost"].as_u64().unwrap());
        assert!(kept + lost <= total && kept <= total, "{report}");
        let backup = home.store_path().with_file_name("store.redb.damaged");
        assert_eq!(std::fs::read(&backup).unwrap(), bytes, "the damaged file is kept as it was");
        // The repaired store reads, derives and takes new events.
        let log = home.json(&["mother", "log"]);
        assert_eq!(log.as_array().unwrap().len() as u64, kept);
        home.ok(&["mother", "derive"]);
        // A link between two nodes that survived (which ones depends on where the damage is).
        let nodes = home.json(&["mother", "graph", "--nodes"]);
        let ids: Vec<&str> = nodes.as_array().unwrap().iter().filter_map(|n| n["id"].as_str()).collect();
        if let [a, b, ..] = ids[..] {
            home.ok(&["mother", "link", a, "USES", b]);
        }
        repaired += 1;
        if repaired == 5 {
            break;
        }
    }
    assert!(repaired > 0, "no damage variant broke `mother log`");
    // Repairing a healthy store keeps everything.
    let report = healthy.json(&["mother", "repair"]);
    assert_eq!((report["kept"].as_u64(), report["lost"].as_u64()), (Some(total), Some(0)), "{report}");
    assert_eq!(healthy.json(&["mother", "stats"])["events"].as_u64(), Some(total));
}
