//! Fuzzing at scale with proptest (issue 17): every parser of user data, fed mutated real
//! files and arbitrary bytes, returns a value or an error and never panics.
//!
//! Seeds are real inputs (session logs, belief files, the registry, the example world's
//! manifests and bench log); mutations insert, delete, duplicate and overwrite bytes,
//! cut the file, and splice in hostile fragments (deep brackets, NULs, escapes, huge
//! lines). `PATINA_FUZZ_CASES` sets the cases per target (default 1,000: a few seconds, bounded for CI).
//! A failing case is shrunk and kept by proptest in `tests/fuzz.proptest-regressions`,
//! which is re-run first on every later run: each crash found stays a regression test.

mod util;

use std::path::Path;

use patina::ingest::cues::Cues;
use patina::ingest::manifest::{self, ManifestKind};
use patina::ingest::mention::{self, NodeMatcher};
use patina::ingest::{belief, bench_log, candidates, session};
use proptest::prelude::*;
use util::{root, shared_data};

fn cases() -> u32 {
    std::env::var("PATINA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

/// Real files to start from.
fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let sessions = shared_data().join("patina-sessions");
    let mut logs: Vec<_> = std::fs::read_dir(&sessions).unwrap().filter_map(Result::ok).map(|e| e.path()).collect();
    logs.sort();
    for path in logs.iter().step_by(40) {
        out.push(std::fs::read(path).unwrap());
    }
    let beliefs = shared_data().join("patina-beliefs").join("beliefs");
    if let Some(first) = std::fs::read_dir(&beliefs).ok().and_then(|mut d| d.next()).and_then(Result::ok) {
        out.push(std::fs::read(first.path()).unwrap());
    }
    out.push(std::fs::read(shared_data().join("patina-registry.yaml")).unwrap());
    out.push(std::fs::read(root().join("examples/world/bench-runs.jsonl")).unwrap());
    out.push(std::fs::read(root().join("Cargo.toml")).unwrap());
    out.push(br#"{"name": "x", "dependencies": {"a": "1", "b": "^2"}, "devDependencies": {"c": "3"}}"#.to_vec());
    out.push(b"requests==2.0\n-e git+https://x/y\nnumpy>=1 ; python_version<'3'\n".to_vec());
    out.push(b"module example.com/x\n\nrequire (\n\tgithub.com/urfave/cli/v2 v2.3.0\n)\n".to_vec());
    out.push(b"[project]\ndependencies = [\"duckdb>=1\", \"dagger-io\"]\n".to_vec());
    out
}

const FRAGMENTS: &[&[u8]] = &[
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{",
    b"\x00\x00\xff\xfe",
    b"\x1b]0;pwned\x07\x1b[2J",
    b"\n---\ntype: belief\nid: \n---\n",
    b"- Tested on dojo, SDL, dust repo\n| SDL | 1 |\n**Testing:**\n- duckdb\n",
    b"Removed the dagger dependency; replaced duckdb with SQLite. ",
    b"--repo --repo --repo=",
    b"[[a/b]] https://github.com/x/y git clone a/b ",
    b"\r\n\r\n\t\t",
    "é😀\u{202e}".as_bytes(),
];

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Overwrite(usize, u8),
    Duplicate(usize, usize),
    Splice(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Edit::Insert(at, b)),
        (any::<usize>(), 1usize..200).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Overwrite(at, b)),
        (any::<usize>(), 1usize..400).prop_map(|(at, n)| Edit::Duplicate(at, n)),
        (any::<usize>(), 0..FRAGMENTS.len()).prop_map(|(at, f)| Edit::Splice(at, f)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Insert(i, b) => {
                let i = at(*i, bytes.len());
                bytes.splice(i..i, b.iter().copied());
            }
            Edit::Delete(i, n) => {
                let i = at(*i, bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Overwrite(i, b) => {
                if !bytes.is_empty() {
                    let i = i % bytes.len();
                    bytes[i] = *b;
                }
            }
            Edit::Duplicate(i, n) => {
                let i = at(*i, bytes.len());
                let end = (i + n).min(bytes.len());
                let copy = bytes[i..end].to_vec();
                bytes.splice(i..i, copy.into_iter().cycle().take((end - i) * 20));
            }
            Edit::Splice(i, f) => {
                let i = at(*i, bytes.len());
                bytes.splice(i..i, FRAGMENTS[*f].iter().copied());
            }
            Edit::Truncate(i) => {
                let i = at(*i, bytes.len());
                bytes.truncate(i);
            }
        }
    }
    bytes
}

/// A mutated real input, or arbitrary bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let seeds = seeds();
    prop_oneof![
        4 => (0..seeds.len(), prop::collection::vec(edit(), 0..8)).prop_map(move |(s, edits)| apply(seeds[s].clone(), &edits)),
        1 => prop::collection::vec(any::<u8>(), 0..2048),
    ]
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn matcher() -> (NodeMatcher, Cues) {
    let registry = patina::registry::load(&shared_data().join("patina-registry.yaml")).unwrap();
    let cues = Cues::load(&[]).unwrap();
    let nodes: Vec<_> = registry.nodes.iter().map(|n| n.node.clone()).collect();
    (NodeMatcher::new(&nodes, &cues), cues)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn the_registry_parser_never_panics(bytes in input()) {
        let _ = patina::registry::parse(Path::new("fuzz/registry.yaml"), &text(&bytes));
    }

    #[test]
    fn manifest_parsers_never_panic(bytes in input()) {
        let t = text(&bytes);
        for kind in [ManifestKind::Cargo, ManifestKind::Npm, ManifestKind::Pyproject, ManifestKind::Requirements, ManifestKind::GoMod] {
            if let Ok(deps) = manifest::dependencies(kind, &t) {
                let lines = t.lines().count() as u32 + 1;
                prop_assert!(deps.iter().all(|d| d.line <= lines), "{kind:?}: a line past the end");
            }
        }
    }

    #[test]
    fn session_bench_belief_and_candidate_parsers_never_panic(bytes in input()) {
        let t = text(&bytes);
        let _ = session::meta(Path::new("fuzz/20260101-000000.md"), &t);
        let (lines, _warnings) = bench_log::parse(&t);
        prop_assert!(lines.iter().all(|(line, _)| *line >= 1));
        for kind in [belief::FileKind::Belief, belief::FileKind::Pattern] {
            let doc = belief::parse("fuzz", "fuzz/b.md", "b", kind, &t);
            prop_assert!(doc.relations.iter().all(|(_, line)| *line >= 1 && *line <= doc.lines.max(1)));
        }
        let _ = candidates::find(&t, |_| false);
    }

    #[test]
    fn mention_extraction_never_panics_and_points_into_the_text(bytes in input()) {
        let (matcher, cues) = matcher();
        let t = text(&bytes);
        let lines = t.split('\n').count() as u32;
        for m in mention::extract(&t, &matcher, &cues, Some("patina")) {
            prop_assert!(m.line >= 1 && m.line <= lines, "line {} of {lines}", m.line);
            prop_assert!(t.to_lowercase().contains(&m.matched.to_lowercase()));
        }
    }
}
