//! Incremental derivation is exact: after every batch of random events (mentions of every
//! cue class, imports, bench runs, links, unlinks, feedback, retractions, node
//! registrations, parameter changes) the stored graph that `refresh` keeps current is
//! the graph a full derivation of the log gives, byte for byte.
//!
//! `PATINA_INCREMENTAL_CASES` sets the number of cases (default 64).

use patina::event::log::{EventLog, NewEvent};
use patina::event::*;
use patina::graph::{Params, derive, store as graph_store};
use patina::store::{OpenOptions, Store};
use proptest::prelude::*;

const PROJECTS: [&str; 2] = ["alpha", "beta"];
/// `ghost` is never registered until a `Register` op names it.
const REPOS: [&str; 5] = ["bevy", "dojo", "redb", "tantivy", "ghost"];

fn node(id: &str, kind: NodeKind, domains: &[&str]) -> NewEvent {
    NewEvent::new(
        Source::Cli,
        Event::NodeRegistered(NodeRegistered {
            id: id.to_string(),
            kind,
            path: None,
            domains: domains.iter().map(|d| d.to_string()).collect(),
            summary: None,
            aliases: vec![],
            packages: vec![],
        }),
    )
}

#[derive(Debug, Clone)]
enum Op {
    Mention {
        p: usize,
        r: usize,
        class: u8,
        strong: bool,
        session: u8,
        day: Option<u8>,
    },
    Import {
        p: usize,
        r: usize,
        manifest: u8,
    },
    Bench {
        p: usize,
        r: usize,
        suite: u8,
        day: u8,
    },
    Link {
        a: usize,
        b: usize,
        t: usize,
        weight: Option<u8>,
    },
    Unlink {
        a: usize,
        b: usize,
        t: usize,
    },
    Feedback {
        p: usize,
        r: usize,
        useful: bool,
    },
    /// Retracts the n-th (mod count) fact event appended so far.
    Retract {
        n: usize,
    },
    /// Registers (or re-registers with other domains) a repo.
    Register {
        r: usize,
        domains: u8,
    },
}

/// Any node: projects first, then repos.
fn any_node(i: usize) -> &'static str {
    let all: Vec<&str> = PROJECTS.iter().chain(REPOS.iter()).copied().collect();
    all[i % all.len()]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..2usize, 0..5usize, 0..7u8, any::<bool>(), 0..6u8, proptest::option::weighted(0.9, 0..60u8))
            .prop_map(|(p, r, class, strong, session, day)| Op::Mention { p, r, class, strong, session, day }),
        1 => (0..2usize, 0..5usize, 0..2u8).prop_map(|(p, r, manifest)| Op::Import { p, r, manifest }),
        1 => (0..2usize, 0..5usize, 0..2u8, 0..60u8).prop_map(|(p, r, suite, day)| Op::Bench { p, r, suite, day }),
        1 => (0..7usize, 0..7usize, 0..5usize, proptest::option::of(0..10u8))
            .prop_map(|(a, b, t, weight)| Op::Link { a, b, t, weight }),
        1 => (0..7usize, 0..7usize, 0..5usize).prop_map(|(a, b, t)| Op::Unlink { a, b, t }),
        1 => (0..2usize, 0..5usize, any::<bool>()).prop_map(|(p, r, useful)| Op::Feedback { p, r, useful }),
        2 => (0..1000usize).prop_map(|n| Op::Retract { n }),
        1 => (0..5usize, 0..4u8).prop_map(|(r, domains)| Op::Register { r, domains }),
    ]
}

fn date(day: u8) -> String {
    let d = jiff::civil::date(2025, 9, 1) + jiff::Span::new().days(day as i64);
    d.to_string()
}

fn event_of(op: &Op, params: &Params, facts_so_far: &[u64]) -> Option<Event> {
    Some(match *op {
        Op::Mention { p, r, class, strong, session, day } => {
            let (cue_class, cue) = match class {
                0 => (CueClass::Testing, "tested on".to_string()),
                1 => (CueClass::Testing, "scrape --repo".to_string()),
                2 => (CueClass::Learning, "studied".to_string()),
                3 => (CueClass::Learning, params.borrowing_cues.first().cloned().unwrap_or_default()),
                4 => (CueClass::Using, "depends on".to_string()),
                5 => (CueClass::Ending, "removed".to_string()),
                _ => (CueClass::Ending, params.contradiction_cues.first().cloned().unwrap_or_default()),
            };
            Event::Mention(Mention {
                project: PROJECTS[p].to_string(),
                repo: REPOS[r].to_string(),
                session_id: format!("s{session}"),
                session_date: day.map(date),
                cue_class,
                cue,
                strong_cue: strong,
                matched: REPOS[r].to_string(),
                sentence: format!("{op:?}"),
                co_mentions: 1,
            })
        }
        Op::Import { p, r, manifest } => Event::Import(Import {
            project: PROJECTS[p].to_string(),
            repo: REPOS[r].to_string(),
            manifest: format!("/{}/m{manifest}/Cargo.toml", PROJECTS[p]),
            dependency: REPOS[r].to_string(),
        }),
        Op::Bench { p, r, suite, day } => Event::BenchRun(BenchRun {
            project: PROJECTS[p].to_string(),
            repo: REPOS[r].to_string(),
            suite: format!("suite{suite}"),
            command: None,
            when: date(day),
        }),
        Op::Link { a, b, t, weight } => Event::LinkAdded(LinkAdded {
            from: any_node(a).to_string(),
            edge_type: EdgeType::ALL[t],
            to: any_node(b).to_string(),
            evidence: None,
            weight: weight.map(|w| w as f32 / 10.0),
        }),
        Op::Unlink { a, b, t } => Event::LinkRemoved(LinkRemoved {
            from: any_node(a).to_string(),
            edge_type: EdgeType::ALL[t],
            to: any_node(b).to_string(),
            reason: None,
        }),
        Op::Feedback { p, r, useful } => Event::RouteFeedback(RouteFeedback {
            query_id: "q".into(),
            project: Some(PROJECTS[p].to_string()),
            repo: REPOS[r].to_string(),
            rank: 1,
            useful,
        }),
        Op::Retract { n } => {
            if facts_so_far.is_empty() {
                return None;
            }
            Event::Retracted(Retracted { target_seq: facts_so_far[n % facts_so_far.len()], reason: "gone".into() })
        }
        Op::Register { r, domains } => {
            let sets: [&[&str]; 4] = [&["rust"], &["rust", "search"], &["gamedev"], &["search", "db"]];
            let NewEvent { event, .. } = node(REPOS[r], NodeKind::Reference, sets[domains as usize]);
            event
        }
    })
}

/// The builtin parameters, or a variant with another fingerprint (a parameter change).
fn params(variant: bool) -> Params {
    let mut params = Params::builtin();
    if variant {
        params.weights.recency_half_life_days = 30.0;
        params.fingerprint[0] ^= 1;
    }
    params
}

fn check(batches: Vec<(bool, Vec<Op>)>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let log = EventLog::new(&store);
    log.append([
        node("alpha", NodeKind::Project, &["rust", "search"]),
        node("beta", NodeKind::Project, &["gamedev"]),
        node("bevy", NodeKind::Reference, &["rust", "gamedev"]),
        node("dojo", NodeKind::Reference, &["gamedev"]),
        node("redb", NodeKind::Reference, &["rust", "db"]),
        node("tantivy", NodeKind::Reference, &["rust", "search"]),
    ])
    .unwrap();
    graph_store::refresh(&store, &Params::builtin()).unwrap();
    let mut facts: Vec<u64> = Vec::new();
    let mut previous_variant = false;
    for (variant, ops) in batches {
        let params = params(variant);
        let mut nodes_changed = false;
        for op in &ops {
            let Some(event) = event_of(op, &params, &facts) else { continue };
            let is_fact = matches!(event, Event::Mention(_) | Event::Import(_) | Event::BenchRun(_));
            nodes_changed |= matches!(event, Event::NodeRegistered(_));
            let report = log.append([NewEvent::new(Source::Cli, event)]).unwrap();
            if is_fact {
                facts.extend(report.appended);
            }
        }
        let refresh = graph_store::refresh(&store, &params).unwrap();
        if refresh.derived && !nodes_changed && variant == previous_variant {
            prop_assert!(refresh.incremental, "a batch of evidence events is derived incrementally: {ops:?}");
        }
        previous_variant = variant;
        let stored = graph_store::read(&store).unwrap().unwrap();
        let scratch = derive::derive(&log, &params).unwrap();
        prop_assert_eq!(&stored, &scratch, "after {:?}", ops);
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PATINA_INCREMENTAL_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn incremental_refresh_equals_full_derivation(
        batches in proptest::collection::vec(
            (proptest::bool::weighted(0.1), proptest::collection::vec(op(), 1..8)),
            1..10,
        )
    ) {
        check(batches)?;
    }
}

/// A newer session of one project re-weights that project's other edges (recency is
/// measured from the project's newest evidence) and leaves the other project's alone.
#[test]
fn a_newer_session_reweights_its_project_only() {
    let ops = |day: u8| {
        vec![
            Op::Mention { p: 0, r: 0, class: 4, strong: true, session: 0, day: Some(0) },
            Op::Mention { p: 1, r: 1, class: 4, strong: true, session: 1, day: Some(0) },
            Op::Mention { p: 0, r: 2, class: 4, strong: true, session: 2, day: Some(day) },
        ]
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let log = EventLog::new(&store);
    log.append([
        node("alpha", NodeKind::Project, &[]),
        node("beta", NodeKind::Project, &[]),
        node("bevy", NodeKind::Reference, &[]),
        node("dojo", NodeKind::Reference, &[]),
        node("redb", NodeKind::Reference, &[]),
    ])
    .unwrap();
    let params = Params::builtin();
    for op in ops(0) {
        log.append([NewEvent::new(Source::Cli, event_of(&op, &params, &[]).unwrap())]).unwrap();
    }
    graph_store::refresh(&store, &params).unwrap();
    let weight = |from: &str, to: &str| {
        graph_store::edge(&store, from, EdgeType::Uses, to).unwrap().map(|e| e.weight).unwrap_or_default()
    };
    let (bevy, dojo) = (weight("alpha", "bevy"), weight("beta", "dojo"));
    assert_eq!(bevy, dojo, "same evidence, same weight");
    // alpha works on redb two months later: its bevy edge ages, beta's dojo edge does not.
    let later = Op::Mention { p: 0, r: 2, class: 4, strong: true, session: 3, day: Some(59) };
    log.append([NewEvent::new(Source::Cli, event_of(&later, &params, &[]).unwrap())]).unwrap();
    let refresh = graph_store::refresh(&store, &params).unwrap();
    assert!(refresh.incremental && refresh.pairs == 1, "{refresh:?}");
    assert!(weight("alpha", "bevy") < bevy, "alpha's older edge is re-weighted");
    assert_eq!(weight("beta", "dojo"), dojo, "beta's timeline did not move");
    assert_eq!(graph_store::read(&store).unwrap().unwrap(), derive::derive(&log, &params).unwrap());
}

/// The real session logs, ingested in two halves (by date) and then with one log edited
/// and one deleted: every step is an incremental update, and each equals a full
/// derivation of the log.
#[test]
fn real_logs_in_steps_stay_equal_to_a_full_derivation() {
    let data = shared_data();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let registry = patina::registry::load(&data.join("patina-registry.yaml")).unwrap();
    patina::mother::sync(&EventLog::new(&store), &registry, false, |_| {}).unwrap();
    let params = Params::builtin();
    graph_store::refresh(&store, &params).unwrap();

    let mut logs: Vec<std::path::PathBuf> = std::fs::read_dir(data.join("patina-sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    logs.sort();
    assert!(logs.len() > 300, "the shared session logs are there");
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let options = patina::ingest::IngestOptions { project: Some("patina".into()), ..Default::default() };
    let ingest = |what: &str| {
        let cues = patina::ingest::cues::Cues::load(&[]).unwrap();
        patina::ingest::ingest(&store, std::slice::from_ref(&sessions), &options, cues, |_| {}).unwrap();
        let refresh = graph_store::refresh(&store, &params).unwrap();
        let scratch = derive::derive(&EventLog::new(&store), &params).unwrap();
        assert_eq!(graph_store::read(&store).unwrap().unwrap(), scratch, "{what}");
        (refresh, scratch.edges.len())
    };
    let (first, second) = logs.split_at(logs.len() / 2);
    for log in first {
        std::fs::copy(log, sessions.join(log.file_name().unwrap())).unwrap();
    }
    let (_, edges_first) = ingest("the first half");
    for log in second {
        std::fs::copy(log, sessions.join(log.file_name().unwrap())).unwrap();
    }
    let (refresh, edges_all) = ingest("both halves");
    assert!(refresh.incremental && refresh.pairs > 10, "{refresh:?}");
    assert!(edges_all > edges_first, "the later logs add edges: {edges_first} → {edges_all}");

    // Edit the log with the most facts (keep its first quarter), delete the next one.
    let log = EventLog::new(&store);
    let mut by_facts: Vec<(usize, std::path::PathBuf)> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| std::fs::canonicalize(e.unwrap().path()).unwrap())
        .map(|p| (log.live_by_source(p.to_str().unwrap()).unwrap().len(), p))
        .collect();
    by_facts.sort();
    let (facts, edited) = by_facts.pop().unwrap();
    assert!(facts > 5, "{facts} facts in {}", edited.display());
    let text = std::fs::read_to_string(&edited).unwrap();
    let cut = (0..=text.len() / 4).rev().find(|i| text.is_char_boundary(*i)).unwrap();
    std::fs::write(&edited, &text[..cut]).unwrap();
    std::fs::remove_file(&by_facts.pop().unwrap().1).unwrap();
    let (refresh, _) = ingest("an edited and a deleted log");
    assert!(refresh.incremental && refresh.pairs > 0, "{refresh:?}");
}

fn shared_data() -> std::path::PathBuf {
    match std::env::var_os("PATINA_SHARED_DATA") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join("data"),
    }
}
