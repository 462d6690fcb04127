//! The derived graph on the real session logs and on the example world: concrete edges,
//! non-edges, provenance, weights, manual links and unlinks, queries and pictures.

mod util;

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use util::{Home, example_registry, real_registry_home, root, shared_data};

fn real_world() -> Home {
    let home = real_registry_home();
    let sessions = shared_data().join("patina-sessions");
    home.ok(&["mother", "ingest", sessions.to_str().unwrap(), "--project", "patina"]);
    home
}

fn edges(home: &Home) -> Vec<(String, String, String, f64)> {
    home.json(&["mother", "graph"])
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap().to_string(),
                e["type"].as_str().unwrap().to_string(),
                e["to"].as_str().unwrap().to_string(),
                e["weight"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn has(edges: &[(String, String, String, f64)], from: &str, t: &str, to: &str) -> bool {
    edges.iter().any(|e| e.0 == from && e.1 == t && e.2 == to)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Labels {
    edge: Vec<Label>,
    non_edge: Vec<Label>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Label {
    #[serde(rename = "type")]
    edge_type: String,
    to: String,
    #[serde(default)]
    sessions: Vec<String>,
    #[allow(dead_code)]
    why: String,
}

fn read_labels(file: &str) -> Labels {
    toml::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap()
}

/// Precision and recall of the derived patina edges of the evaluated types against a
/// label file, printing the misses.
fn score(derived: &[(String, String, String, f64)], labels: &Labels, name: &str) -> (f64, f64) {
    let is_true = |e: &(String, String, String, f64)| {
        e.0 == "patina" && labels.edge.iter().any(|l| l.edge_type == e.1 && l.to == e.2)
    };
    let tp = derived.iter().filter(|e| is_true(e)).count();
    let precision = tp as f64 / derived.len().max(1) as f64;
    let recall = tp as f64 / labels.edge.len() as f64;
    println!("{name}: derived {} edges; labelled {} edges", derived.len(), labels.edge.len());
    println!("precision {precision:.3} ({tp}/{}), recall {recall:.3} ({tp}/{})", derived.len(), labels.edge.len());
    for e in derived.iter().filter(|e| !is_true(e)) {
        println!("  false positive: {} {} {} ({:.2})", e.0, e.1, e.2, e.3);
    }
    for l in labels.edge.iter().filter(|l| !has(derived, "patina", &l.edge_type, &l.to)) {
        println!("  missed: patina {} {} (sessions {:?})", l.edge_type, l.to, l.sessions);
    }
    (precision, recall)
}

const EVALUATED: [&str; 4] = ["USES", "LEARNS_FROM", "TESTS_WITH", "SIBLING"];

#[test]
fn labelled_graph_precision_and_recall() {
    let home = real_world();
    let labels = read_labels("eval/graph-labels.toml");
    let derived: Vec<_> = edges(&home).into_iter().filter(|e| EVALUATED.contains(&e.1.as_str())).collect();
    let (precision, recall) = score(&derived, &labels, "eval/graph-labels.toml (rules' author)");
    for l in &labels.non_edge {
        let hit = derived.iter().find(|e| e.0 == "patina" && e.2 == l.to && (l.edge_type == "*" || l.edge_type == e.1));
        assert!(hit.is_none(), "non-edge derived: {hit:?} ({})", l.why);
    }
    assert!(precision >= 0.9, "precision {precision}");
    assert!(recall >= 0.8, "recall {recall}");
}

/// The second labeller read the logs without seeing the rules or the first labels.
#[test]
fn second_labeller_precision_recall_and_agreement() {
    let home = real_world();
    let first = read_labels("eval/graph-labels.toml");
    let second = read_labels("eval/graph-labels-2.toml");
    let derived: Vec<_> = edges(&home).into_iter().filter(|e| EVALUATED.contains(&e.1.as_str())).collect();
    let (precision, recall) = score(&derived, &second, "eval/graph-labels-2.toml (independent)");
    assert!(precision >= 0.85, "precision {precision}");
    assert!(recall >= 0.75, "recall {recall}");

    // Agreement between the labellers over every (type, node) cell of the registry.
    let nodes: Vec<String> = home
        .json(&["mother", "graph", "--nodes"])
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .filter(|n| n != "patina")
        .collect();
    let says = |labels: &Labels, t: &str, n: &str| labels.edge.iter().any(|l| l.edge_type == t && l.to == n);
    let cells: Vec<(bool, bool)> = ["USES", "LEARNS_FROM", "TESTS_WITH"]
        .iter()
        .flat_map(|t| nodes.iter().map(move |n| (*t, n)))
        .map(|(t, n)| (says(&first, t, n), says(&second, t, n)))
        .collect();
    let n = cells.len() as f64;
    let observed = cells.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let (pa, pb) = (cells.iter().filter(|c| c.0).count() as f64 / n, cells.iter().filter(|c| c.1).count() as f64 / n);
    let chance = pa * pb + (1.0 - pa) * (1.0 - pb);
    let kappa = (observed - chance) / (1.0 - chance);
    println!("labellers agree on {observed:.3} of {n} cells, Cohen's kappa {kappa:.3}");
    assert!(kappa >= 0.7, "kappa {kappa}");
}

#[test]
fn explain_names_the_rule_sessions_lines_and_weight_terms() {
    let home = real_world();
    let e = home.json(&["mother", "explain", "patina", "TESTS_WITH", "dojo", "--max-events", "500"]);
    assert_eq!(e["exists"], true);
    let rules: Vec<&str> = e["rules"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, vec!["testing-command", "testing-cues"]);
    let cues = &e["rules"][1];
    let unit = cues["units"].as_array().unwrap().iter().find(|u| u["key"] == "20250830-203137").expect("session");
    assert_eq!(unit["date"], "2025-08-30");
    let event = &unit["events"][0];
    assert!(event["source"].as_str().unwrap().ends_with("patina-sessions/20250830-203137.md:36"), "{event}");
    assert_eq!(event["session"], "20250830-203137");
    assert!(event["text"].as_str().unwrap().starts_with("Tested successfully on Dojo repository"));
    assert_eq!(event["kind"], "mention");
    // The weight is the noisy-or of the rule terms, each the noisy-or of its units.
    let terms: Vec<f64> = e["rules"].as_array().unwrap().iter().map(|r| r["term"].as_f64().unwrap()).collect();
    let expected = 1.0 - terms.iter().fold(1.0, |acc, t| acc * (1.0 - t));
    assert!((e["weight"].as_f64().unwrap() - expected).abs() < 2e-3, "{} vs {expected}", e["weight"]);
    let units: Vec<f64> = cues["units"].as_array().unwrap().iter().map(|u| u["value"].as_f64().unwrap()).collect();
    let term = 1.0 - units.iter().fold(1.0, |acc, v| acc * (1.0 - v));
    assert!((cues["term"].as_f64().unwrap() - term).abs() < 2e-3);
    // Older sessions weigh less than recent ones (recency).
    let first = units.first().unwrap();
    let last = units.last().unwrap();
    assert!(first < last, "{units:?}");
    // Human output names the same.
    let text = home.ok(&["mother", "explain", "patina", "tests_with", "dojo"]);
    assert!(text.contains("rule testing-cues") && text.contains("20250830-203137.md:36"), "{text}");
}

/// Issue 17, item 7: raw terminal escapes in session text reached the terminal through
/// `mother log` and `mother explain`. Human output shows them as `\x1b`; JSON keeps the
/// text exact.
#[test]
fn escape_sequences_in_session_text_never_reach_the_terminal() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let dir = home.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let evil = "\x1b]0;pwned\x07\x1b[2J\u{9b}31m";
    for (name, id) in [("1.md", "20260301-1"), ("2.md", "20260302-1")] {
        let text = format!("**ID**: {id}\n- Stress tested the quickparse repo {evil} again.\n");
        std::fs::write(dir.join(name), text).unwrap();
    }
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    let is_raw_control = |c: char| c.is_control() && c != '\n' && c != '\t';
    let log = home.ok(&["mother", "log", "--kind", "mention"]);
    assert!(!log.contains(is_raw_control), "{log:?}");
    assert!(log.contains("quickparse") && log.contains("\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m"), "{log}");
    let explain = home.ok(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]);
    assert!(explain.contains("\\x1b[2J"), "the sentence is quoted, made visible: {explain}");
    assert!(!explain.contains(is_raw_control), "{explain:?}");
    let json = home.json(&["mother", "log", "--kind", "mention"]);
    assert!(json[0]["payload"]["sentence"].as_str().unwrap().contains(evil), "{json}");
}

#[test]
fn a_missing_edge_says_which_rule_came_closest() {
    let home = real_world();
    // SDL is analysed as a test subject (18 sessions with testing cues by phrases, more
    // with exemplars), never learned from.
    let out = home.cmd(&["mother", "explain", "patina", "LEARNS_FROM", "SDL", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a missing edge exits 1");
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["exists"], false);
    let first = &e["near_misses"][0];
    assert_eq!(first["rule"], "learning-cues");
    let found = first["found"].as_str().unwrap();
    let testing: usize = found.rsplit("with testing cues: ").next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(testing >= 18, "{first}");
    assert!(
        e["other_edges"].as_array().unwrap().iter().any(|x| x.as_str().unwrap().starts_with("patina TESTS_WITH SDL"))
    );
    let never = home.cmd(&["mother", "explain", "patina", "USES", "opencode", "--json"]).output().unwrap();
    let never: Value = serde_json::from_slice(&never.stdout).unwrap();
    assert!(never["near_misses"].as_array().unwrap().iter().any(|m| m["rule"] == "manifest-import"));
}

#[test]
fn cue_less_mentions_and_archive_noise_make_no_edges() {
    let home = real_world();
    let all = edges(&home);
    // daydreams is named only in passing and in a hypothetical scenario: no edge.
    assert!(!all.iter().any(|e| e.2 == "daydreams"), "{all:?}");
    // gemini-cli: "Validated extraction on gemini-cli repository" in two sessions.
    let gemini: Vec<_> = all.iter().filter(|e| e.2 == "gemini-cli").collect();
    assert_eq!(gemini.len(), 1, "{gemini:?}");
    assert_eq!((gemini[0].0.as_str(), gemini[0].1.as_str()), ("patina", "TESTS_WITH"));
    // dust: tested on (yes), learned from (no: the archive layer).
    assert!(has(&all, "patina", "TESTS_WITH", "dust"));
    assert!(!has(&all, "patina", "LEARNS_FROM", "dust"));
    // Direction matters: nothing routes from a reference back to the project.
    assert!(!all.iter().any(|e| e.2 == "patina" && e.1 != "DOMAIN"));
}

#[test]
fn rederiving_from_scratch_gives_the_stored_graph() {
    let home = real_world();
    let check = home.json(&["mother", "derive", "--check"]);
    assert_eq!(check["check"], "identical");
    // Delete the stored graph tables by deriving in a fresh home from the same log file.
    let copy = Home::new();
    std::fs::create_dir_all(copy.store_path().parent().unwrap()).unwrap();
    std::fs::copy(home.store_path(), copy.store_path()).unwrap();
    assert_eq!(home.json(&["mother", "graph"]), copy.json(&["mother", "graph"]));
}

#[test]
fn manual_link_wins_and_unlink_blocks_rederivation() {
    let home = real_world();
    // A manual link makes an edge no rule would, with its weight.
    home.ok(&[
        "mother",
        "link",
        "patina",
        "LEARNS_FROM",
        "opencode",
        "--weight",
        "0.7",
        "--evidence",
        "similar CLI agent",
    ]);
    let e = home.json(&["mother", "explain", "patina", "LEARNS_FROM", "opencode"]);
    assert_eq!(e["weight"], 0.7);
    assert_eq!(e["rules"][0]["rule"], "manual-link");
    assert!(e["rules"][0]["units"][0]["events"][0]["text"].as_str().unwrap().contains("similar CLI agent"));
    // Unlinking a derived edge removes it and blocks re-derivation.
    assert!(has(&edges(&home), "patina", "TESTS_WITH", "dojo"));
    home.ok(&["mother", "unlink", "patina", "TESTS_WITH", "dojo", "--reason", "not a test subject any more"]);
    assert!(!has(&edges(&home), "patina", "TESTS_WITH", "dojo"));
    let out = home.cmd(&["mother", "explain", "patina", "TESTS_WITH", "dojo", "--json"]).output().unwrap();
    let blocked: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(blocked["blocked_by_unlink"].as_u64().is_some());
    // Re-ingesting (same evidence) does not bring it back.
    let sessions = shared_data().join("patina-sessions");
    home.ok(&["mother", "ingest", sessions.to_str().unwrap(), "--project", "patina", "--force"]);
    assert!(!has(&edges(&home), "patina", "TESTS_WITH", "dojo"));
    // Linking again restores it, as manual and derived.
    home.ok(&["mother", "link", "patina", "TESTS_WITH", "dojo"]);
    let e = home.json(&["mother", "explain", "patina", "TESTS_WITH", "dojo"]);
    let rules: Vec<&str> = e["rules"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, vec!["manual-link", "testing-command", "testing-cues"]);
    assert_eq!(e["weight"], 1.0);
    // Unlinking a manual link retracts it.
    home.ok(&["mother", "unlink", "patina", "LEARNS_FROM", "opencode"]);
    assert!(!has(&edges(&home), "patina", "LEARNS_FROM", "opencode"));
    assert_eq!(home.json(&["mother", "derive", "--check"])["check"], "identical");
}

#[test]
fn example_world_queries_and_pictures() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    home.ok(&["mother", "link", "atlas", "LEARNS_FROM", "ecsdemo"]);
    home.ok(&["mother", "link", "ecsdemo", "USES", "quickparse", "--weight", "0.5"]);
    let all = edges(&home);
    // Shared specific domain `search` makes atlas a SIBLING of vectorlite; languages do not.
    assert!(has(&all, "atlas", "SIBLING", "vectorlite"));
    assert!(!has(&all, "atlas", "SIBLING", "quickparse"));
    assert!(has(&all, "atlas", "DOMAIN", "quickparse"));

    let out = home.json(&["mother", "neighbors", "atlas", "--direction", "out"]);
    let ids: Vec<&str> = out.as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], "ecsdemo", "strongest first: {out}");
    let inbound = home.json(&["mother", "neighbors", "quickparse", "--direction", "in", "--type", "uses"]);
    assert_eq!(inbound.as_array().unwrap().len(), 1);
    assert_eq!(inbound[0]["id"], "ecsdemo");

    let path = home.json(&["mother", "path", "atlas", "quickparse"]);
    assert_eq!(path["found"], true);
    // The direct DOMAIN edge is weak (Jaccard 0.25, cost 4); atlas → ecsdemo → quickparse costs 1 + 2.
    let hops: Vec<&str> = path["hops"].as_array().unwrap().iter().map(|h| h["to"].as_str().unwrap()).collect();
    assert_eq!(hops, vec!["ecsdemo", "quickparse"], "{path}");
    let none = home.cmd(&["mother", "path", "quickparse", "atlas"]).output().unwrap();
    assert_eq!(none.status.code(), Some(1));

    let stats = home.json(&["mother", "stats"]);
    assert_eq!(stats["graph"]["nodes"], 4);
    assert_eq!(stats["graph"]["components"], 1);
    assert_eq!(stats["graph"]["edges_by_type"]["LEARNS_FROM"], 1);

    let rules = home.json(&["mother", "rules"]);
    let manual = rules.as_array().unwrap().iter().find(|r| r["name"] == "manual-link").unwrap();
    assert_eq!(manual["edges"], 2);
    assert!(rules.as_array().unwrap().iter().all(|r| !r["description"].as_str().unwrap().is_empty()));

    let dot = home.ok(&["mother", "graph", "--format", "dot"]);
    assert!(dot.starts_with("digraph patina {") && dot.contains("\"atlas\" -> \"ecsdemo\""), "{dot}");
    assert!(dot.contains("style=dashed"), "LEARNS_FROM is dashed");
    let mermaid = home.ok(&["mother", "graph", "--format", "mermaid"]);
    assert!(
        mermaid.starts_with("flowchart LR") && mermaid.contains("n_atlas -.->|\"LEARNS_FROM 1.00\"| n_ecsdemo"),
        "{mermaid}"
    );
    let nodes = home.json(&["mother", "graph", "--nodes"]);
    assert_eq!(nodes.as_array().unwrap().len(), 4);
}

#[test]
fn example_sessions_derive_the_expected_edges() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let world = root().join("examples/world");
    let sessions = world.join("sessions");
    let bench = world.join("bench-runs.jsonl");
    home.ok(&["mother", "ingest", sessions.to_str().unwrap(), bench.to_str().unwrap(), "--project", "atlas"]);
    let all = edges(&home);
    assert!(has(&all, "atlas", "LEARNS_FROM", "ecsdemo"));
    assert!(has(&all, "atlas", "USES", "vectorlite"));
    assert!(!has(&all, "atlas", "TESTS_WITH", "ecsdemo"));
    assert!(!has(&all, "atlas", "USES", "ecsdemo"), "plain mentions in a stats table make no edge");
    let e = home.json(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]);
    let rules: Vec<&str> = e["rules"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, vec!["bench-run", "testing-command", "testing-cues"]);
    assert!(e["rules"][0]["units"][0]["events"][0]["source"].as_str().unwrap().ends_with("bench-runs.jsonl:1"));
}

/// A time-split label: an edge a blind labeller drew from one part of the logs only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SplitLabels {
    #[serde(default)]
    edge: Vec<SplitLabel>,
    #[serde(default)]
    non_edge: Vec<Label>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SplitLabel {
    #[serde(rename = "type")]
    edge_type: String,
    to: String,
    confidence: String,
    #[serde(default)]
    sessions: Vec<String>,
    #[serde(default)]
    lines: Vec<String>,
    #[allow(dead_code)]
    why: String,
    /// `file:line` of the evidence that ended the edge within the part, if it ended.
    #[serde(default)]
    ended: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    ended_why: Option<String>,
}

/// The parts of the time split: a name, the file-name prefixes of its logs, its labels.
/// Every vocabulary, threshold and rule change is chosen on the first part only. The test
/// part has two blind labellers: A (stop 31) and B (stop 36, who saw neither the rules,
/// the code nor A's labels).
///
/// From stop 36 the split is also read by month: October alone is fitted on (its misses
/// are printed), November alone is the test that no choice has seen. The two-month rows
/// stay for continuity; their October half is no longer unseen.
const PARTS: [(&str, &[&str], &str); 6] = [
    ("fit 2025-07..09", &["202507", "202508", "202509", "session_summary"], "eval/time-split/labels-2025-07-09.toml"),
    ("test 2025-10..11", &["202510", "202511"], "eval/time-split/labels-2025-10-11.toml"),
    ("test 2025-10..11, labeller B", &["202510", "202511"], "eval/time-split/labels-2025-10-11-b.toml"),
    ("fit 2025-10 alone", &["202510"], "eval/time-split/labels-2025-10-11.toml"),
    ("test 2025-11 alone", &["202511"], "eval/time-split/labels-2025-10-11.toml"),
    ("test 2025-11 alone, labeller B", &["202511"], "eval/time-split/labels-2025-10-11-b.toml"),
];

/// What a derived edge the part's labels do not hold is, by those labels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FalsePositive {
    /// A current relation of the label file's span whose cited evidence is all outside
    /// the part (a month of a two-month label file).
    EvidencedOutsideThePart,
    /// A relation the labeller saw end within the part.
    EndedInThePart,
    /// A relation that ended outside the part (a month read alone cannot see the ending).
    EndedOutsideThePart,
    /// A pair the labeller wrote down as no edge.
    LabelledNonEdge,
    /// A pair the labels do not name.
    Unlabelled,
}

/// One row of the time-split table.
struct SplitScore {
    precision: f64,
    recall: f64,
    recall_high: f64,
}

/// A home with the real registry and the real session logs whose file names `take`,
/// ingested for patina with the model (`Some`: exemplars on) or phrases alone (`None`).
/// Returns the home and how many logs it holds.
fn real_logs_home(take: impl Fn(&str) -> bool, model: Option<&Path>) -> (Home, usize) {
    logs_home(&shared_data().join("patina-sessions"), take, model)
}

/// [`real_logs_home`] with the logs of `source` (a directory of `.md` session logs).
fn logs_home(source: &Path, take: impl Fn(&str) -> bool, model: Option<&Path>) -> (Home, usize) {
    let home = real_registry_home();
    let part = home.path().join("logs");
    std::fs::create_dir_all(&part).unwrap();
    let mut files = 0;
    for entry in std::fs::read_dir(source).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && take(&name) {
            std::fs::copy(entry.path(), part.join(&name)).unwrap();
            files += 1;
        }
    }
    let mut ingest = home.cmd(&["mother", "ingest", part.to_str().unwrap(), "--project", "patina"]);
    match model {
        Some(dir) => ingest.env("PATINA_MODELS", dir).env_remove("PATINA_EXEMPLARS"),
        None => ingest.env("PATINA_EXEMPLARS", "off"),
    };
    let out = ingest.output().unwrap();
    assert!(out.status.success(), "ingest: {}", util::stderr(&out));
    (home, files)
}

/// The class and cue of the mention of `repo` at `file:line` (its path ends with it).
fn mention_cue_at(mentions: &Value, file_line: &str, repo: &str) -> (String, String) {
    let m = mentions
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            let source = format!("{}:{}", m["source"]["path"].as_str().unwrap_or(""), m["source"]["start_line"]);
            source.ends_with(file_line) && m["payload"]["repo"] == repo
        })
        .unwrap_or_else(|| panic!("no mention of {repo} at {file_line}"));
    (m["payload"]["cue_class"].as_str().unwrap().into(), m["payload"]["cue"].as_str().unwrap().into())
}

/// Derives the graph from one part of the real logs alone and scores its current patina
/// edges (USES, LEARNS_FROM, TESTS_WITH) against that part's labels. A labelled edge that
/// ended within the part must not be current.
/// `model`: the embedding model's directory, so that exemplars classify what phrases leave
/// open; `None`: phrases alone (`PATINA_EXEMPLARS=off`).
fn score_part(name: &str, prefixes: &[&str], label_file: &str, model: Option<&Path>) -> SplitScore {
    let labels: SplitLabels = toml::from_str(&std::fs::read_to_string(root().join(label_file)).unwrap())
        .unwrap_or_else(|e| panic!("{label_file}: {e}"));
    let (home, files) = real_logs_home(|name| prefixes.iter().any(|p| name.starts_with(p)), model);
    let derived: Vec<_> = edges(&home)
        .into_iter()
        .filter(|e| e.0 == "patina" && ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&e.1.as_str()))
        .collect();
    // The labels of a part cover a longer span when the part is one month of it: an edge
    // counts if some of its evidence is in the part, and it ended only if it ended there.
    let in_part = |file: &str| prefixes.iter().any(|p| file.starts_with(p));
    let evidenced = |l: &&SplitLabel| l.sessions.iter().chain(&l.lines).any(|f| in_part(f));
    let ended_in_part = |l: &SplitLabel| l.ended.as_deref().is_some_and(in_part);
    let current: Vec<&SplitLabel> = labels.edge.iter().filter(evidenced).filter(|l| !ended_in_part(l)).collect();
    let labelled = |e: &(String, String, String, f64)| current.iter().any(|l| l.edge_type == e.1 && l.to == e.2);
    let tp = derived.iter().filter(|e| labelled(e)).count();
    let found = |l: &SplitLabel| has(&derived, "patina", &l.edge_type, &l.to);
    let high: Vec<&SplitLabel> = current.iter().copied().filter(|l| l.confidence == "high").collect();
    let score = SplitScore {
        precision: tp as f64 / derived.len().max(1) as f64,
        recall: current.iter().filter(|l| found(l)).count() as f64 / current.len().max(1) as f64,
        recall_high: high.iter().filter(|l| found(l)).count() as f64 / high.len().max(1) as f64,
    };
    println!(
        "{name}: {files} logs, {} derived, {} labelled ({} high), precision {:.3} ({tp}/{}), recall {:.3} ({}/{}), \
         recall high-confidence {:.3}",
        derived.len(),
        current.len(),
        high.len(),
        score.precision,
        derived.len(),
        score.recall,
        current.iter().filter(|l| found(l)).count(),
        current.len(),
        score.recall_high,
    );
    // What kind each false positive is, counted for every part (a count names no edge and
    // no sentence). A month read alone can find a relation its label file holds for the
    // whole span from lines the labeller did not cite (their citations sit in the other
    // month): that edge is right about the world, wrong only about where the evidence is.
    let kind_of = |e: &(String, String, String, f64)| {
        let same = |l: &&SplitLabel| l.edge_type == e.1 && l.to == e.2;
        if let Some(l) = labels.edge.iter().find(same) {
            match l.ended.as_deref() {
                None => FalsePositive::EvidencedOutsideThePart,
                Some(at) if in_part(at) => FalsePositive::EndedInThePart,
                Some(_) => FalsePositive::EndedOutsideThePart,
            }
        } else if labels.non_edge.iter().any(|l| l.edge_type == e.1 && l.to == e.2) {
            FalsePositive::LabelledNonEdge
        } else {
            FalsePositive::Unlabelled
        }
    };
    let kinds: Vec<FalsePositive> = derived.iter().filter(|e| !labelled(e)).map(kind_of).collect();
    let count = |k: FalsePositive| kinds.iter().filter(|&&x| x == k).count();
    let outside = count(FalsePositive::EvidencedOutsideThePart);
    println!(
        "  false positives by kind: {outside} a relation of the labels' span evidenced outside the part, {} ended \
         in the part, {} ended outside it, {} a labelled non-edge, {} unlabelled; precision counting the first kind \
         right {:.3} ({}/{})",
        count(FalsePositive::EndedInThePart),
        count(FalsePositive::EndedOutsideThePart),
        count(FalsePositive::LabelledNonEdge),
        count(FalsePositive::Unlabelled),
        (tp + outside) as f64 / derived.len().max(1) as f64,
        tp + outside,
        derived.len(),
    );
    // The test part's rows are counted, not listed: choices are made on the fit part
    // only (PATINA_SPLIT_DETAILS=1 lists them too, for the note after the fact).
    if !name.starts_with("fit") && std::env::var_os("PATINA_SPLIT_DETAILS").is_none() {
        return score;
    }
    for e in derived.iter().filter(|e| !labelled(e)) {
        let ended = labels.edge.iter().any(|l| l.edge_type == e.1 && l.to == e.2 && ended_in_part(l));
        let non_edge = labels.non_edge.iter().any(|l| l.edge_type == e.1 && l.to == e.2);
        let tag = if ended {
            " (ended in the part)"
        } else if non_edge {
            " (a labelled non-edge)"
        } else {
            ""
        };
        println!("  false positive: patina {} {} ({:.2}){tag}", e.1, e.2, e.3);
    }
    for l in current.iter().filter(|l| !found(l)) {
        println!("  missed: patina {} {} [{}] {:?}", l.edge_type, l.to, l.confidence, l.lines);
    }
    // An edge the labeller saw end is history dated by the day of that ending, not by a
    // later recap of it (stop 43: "DuckDB→SQLite, Dagger removal" ten days on).
    let history = home.json(&["mother", "graph", "--all"]);
    for l in labels.edge.iter().filter(|l| ended_in_part(l)) {
        let at = l.ended.as_deref().unwrap_or("");
        let until = history
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["from"] == "patina" && e["type"] == l.edge_type.as_str() && e["to"] == l.to.as_str())
            .and_then(|e| e["valid_until"].as_str().map(str::to_string));
        println!("  ended: patina {} {} at {at} (valid until {until:?})", l.edge_type, l.to);
        if name.starts_with("fit") {
            let day = format!("{}-{}-{}", &at[..4], &at[4..6], &at[6..8]);
            assert_eq!(until.as_deref(), Some(day.as_str()), "{name}: patina {} {}", l.edge_type, l.to);
        }
    }
    score
}

/// One labelled mention of the fit part (`eval/time-split/mentions-2025-07-09.jsonl`,
/// written by a blind labeller from each mention's lines, without the rules or code).
#[derive(Deserialize)]
struct MentionLabel {
    file: String,
    line: u64,
    repo: String,
    nth: usize,
    class: String,
    strength: String,
}

/// The cues of every mention of the fit part's logs, by (file, line, repo, nth), ingested
/// with phrases alone or with exemplars too.
fn fit_mention_cues(
    model: Option<&Path>,
) -> std::collections::HashMap<(String, u64, String, usize), (String, bool, String, String)> {
    let (home, _) = real_logs_home(|name| PARTS[0].1.iter().any(|p| name.starts_with(p)), model);
    let mut seen: std::collections::HashMap<(String, u64, String), usize> = Default::default();
    let mut out = std::collections::HashMap::new();
    for m in home.json(&["mother", "log", "--kind", "mention"]).as_array().unwrap() {
        let file = m["source"]["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
        let line = m["source"]["start_line"].as_u64().unwrap();
        let repo = m["payload"]["repo"].as_str().unwrap().to_string();
        let nth = seen.entry((file.clone(), line, repo.clone())).or_default();
        *nth += 1;
        let cue = (
            m["payload"]["cue_class"].as_str().unwrap().to_string(),
            m["payload"]["strong_cue"].as_bool().unwrap(),
            m["payload"]["cue"].as_str().unwrap_or_default().to_string(),
            m["payload"]["sentence"].as_str().unwrap_or_default().to_string(),
        );
        out.insert((file, line, repo, *nth), cue);
    }
    out
}

/// Issue 13 item 2, mention by mention on the fit part: for each class, how many strong
/// cues are right (precision) and how many of the labeller's clear mentions of the class
/// get a strong cue of it (recall), phrases alone vs phrases + exemplars.
/// `cargo test --test graph fit_mention_cues -- --nocapture` prints the table; with
/// `PATINA_CUE_DETAILS=1` also the wrong strong cues and the clear mentions without a
/// strong cue of their class (`=all`: every cue with its label). Fit part only.
#[test]
fn fit_mention_cues_against_blind_labels() {
    let Some(model) = util::model_dir() else { return };
    let text = std::fs::read_to_string(root().join("eval/time-split/mentions-2025-07-09.jsonl")).unwrap();
    let labels: Vec<MentionLabel> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    println!(
        "| cues | class | strong cues right | cues right (weak or strong) | clear mentions with a strong cue |\n|---|---|---:|---:|---:|"
    );
    let mut figures = Vec::new();
    for (mode, name) in [(None, "phrases"), (Some(model.as_path()), "phrases + exemplars")] {
        let cues = fit_mention_cues(mode);
        // Every labelled mention is still found; mentions found since the labels were
        // written (a strong cue now accepts an ambiguous id) are few, and not scored.
        let missing = labels.iter().filter(|l| !cues.contains_key(&(l.file.clone(), l.line, l.repo.clone(), l.nth)));
        assert_eq!(missing.count(), 0, "the labelled mentions are found");
        let unlabelled = cues.len() - labels.len();
        println!("{name}: {unlabelled} mention(s) found that the labels do not cover (not scored)");
        assert!(unlabelled * 50 <= labels.len(), "{unlabelled} unlabelled mentions");
        for class in ["testing", "learning", "using"] {
            let mut strong = 0;
            let mut right = 0;
            let mut any = 0;
            let mut any_right = 0;
            let mut clear = 0;
            let mut found = 0;
            for l in &labels {
                let (c, s, cue, sentence) =
                    cues.get(&(l.file.clone(), l.line, l.repo.clone(), l.nth)).expect("labelled mention");
                if c == class && *s {
                    strong += 1;
                    right += usize::from(l.class == class);
                    // The fit part's wrong strong cues, to choose vocabulary and exemplars on.
                    if std::env::var_os("PATINA_CUE_DETAILS").is_some() && (l.class != class || class == "learning") {
                        println!(
                            "  wrong {class} (label {}): {}:{} {} cue {cue:?}: {}",
                            l.class, l.file, l.line, l.repo, sentence
                        );
                    }
                }
                if c == class {
                    any += 1;
                    any_right += usize::from(l.class == class);
                    if std::env::var("PATINA_CUE_DETAILS").as_deref() == Ok("all") {
                        println!("  cue {class} strong {s} label {}: {cue:?}", l.class);
                    }
                }
                if l.class == class && l.strength == "clear" {
                    clear += 1;
                    found += usize::from(c == class && *s);
                    if !(c == class && *s) && std::env::var_os("PATINA_CUE_DETAILS").is_some() {
                        println!(
                            "  missed clear {class} (got {c} strong {s} {cue:?}): {}:{} {}: {}",
                            l.file, l.line, l.repo, sentence
                        );
                    }
                }
            }
            println!("| {name} | {class} | {right}/{strong} | {any_right}/{any} | {found}/{clear} |");
            figures.push((name, class, right as f64 / strong.max(1) as f64, found));
        }
    }
    let of = |name: &str, class: &str| *figures.iter().find(|f| f.0 == name && f.1 == class).unwrap();
    // Exemplars find more of the testing mentions without losing precision.
    let (phrases, exemplars) = (of("phrases", "testing"), of("phrases + exemplars", "testing"));
    assert!(exemplars.3 > phrases.3 && exemplars.2 >= 0.95, "{phrases:?} → {exemplars:?}");
}

/// Issue 13: the time-split table. Rules and vocabulary were chosen on the first part;
/// the second part's labels come from a labeller who saw neither rules nor code.
/// `cargo test --test graph time_split -- --nocapture` prints it.
#[test]
fn time_split_precision_and_recall() {
    let model = util::model_dir();
    let mut rows = vec![
        "| part | cues | precision | recall | recall, high-confidence labels |".to_string(),
        "|---|---|---:|---:|---:|".to_string(),
    ];
    for (name, prefixes, labels) in PARTS {
        let modes: &[(Option<&Path>, &str)] = match &model {
            Some(dir) => &[(None, "phrases"), (Some(dir.as_path()), "phrases + exemplars")],
            None => &[(None, "phrases")],
        };
        for &(mode, cues) in modes {
            let score = score_part(&format!("{name} ({cues})"), prefixes, labels, mode);
            rows.push(format!(
                "| {name} | {cues} | {:.2} | {:.2} | {:.2} |",
                score.precision, score.recall, score.recall_high
            ));
        }
    }
    println!("{}", rows.join("\n"));
    // How far the test part's two labellers agree on its current edges.
    let current = |file: &str| -> std::collections::BTreeSet<(String, String)> {
        let labels: SplitLabels = toml::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap();
        labels.edge.into_iter().filter(|l| l.ended.is_none()).map(|l| (l.edge_type, l.to)).collect()
    };
    let (a, b) = (current(PARTS[1].2), current(PARTS[2].2));
    println!(
        "test part labellers: A {} current edges, B {}, both {} (Jaccard {:.2})",
        a.len(),
        b.len(),
        a.intersection(&b).count(),
        a.intersection(&b).count() as f64 / a.union(&b).count().max(1) as f64
    );
}

/// A home with the example registry and the given session logs (file name → text).
fn example_home_with_sessions(sessions: &[(&str, &str)]) -> Home {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let dir = home.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in sessions {
        std::fs::write(dir.join(name), text).unwrap();
    }
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    home
}

fn session(id: &str, body: &str) -> String {
    format!("# Session\n**ID**: {id}\n**Started**: {}-{}-{}T10:00:00Z\n\n{body}\n", &id[..4], &id[4..6], &id[6..8])
}

/// Issue 13: a list item under a testing lead-in, a results-table row, and a failure
/// sentence are each testing evidence; one session with a strong cue makes an edge
/// that says "1 session".
#[test]
fn lists_tables_failures_and_one_strong_session_make_edges() {
    let list =
        session("20260201-100000", "**Testing Results:**\n- quickparse: 1,204 symbols in 0.4 s\n- nothing else\n");
    let table = session(
        "20260202-100000",
        "## Benchmark results\n\n| repo | files | time |\n|---|---|---|\n| vectorlite | 12 | 0.2 s |\n",
    );
    let failure = session("20260203-100000", "- The symbol extractor crashed on ecsdemo because of a macro.\n");
    let home = example_home_with_sessions(&[("a.md", &list), ("b.md", &table), ("c.md", &failure)]);
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let cue_of = |repo: &str| -> (String, String) {
        let m = mentions.as_array().unwrap().iter().find(|m| m["payload"]["repo"] == repo).expect(repo);
        (m["payload"]["cue_class"].as_str().unwrap().to_string(), m["payload"]["cue"].as_str().unwrap().to_string())
    };
    let (class, cue) = cue_of("quickparse");
    assert_eq!(class, "testing");
    assert!(cue.contains("lead-in \"Testing Results:\", line 5"), "{cue}");
    let (class, cue) = cue_of("vectorlite");
    assert_eq!(class, "testing");
    assert!(cue.contains("Benchmark results"), "{cue}");
    assert_eq!(cue_of("ecsdemo"), ("testing".to_string(), "crashed on".to_string()));
    let all = edges(&home);
    for repo in ["quickparse", "vectorlite", "ecsdemo"] {
        assert!(has(&all, "atlas", "TESTS_WITH", repo), "{repo}: {all:?}");
    }
    let e = home.json(&["mother", "explain", "atlas", "TESTS_WITH", "ecsdemo"]);
    assert!(e["rules"][0]["detail"].as_str().unwrap().starts_with("1 session"), "{e}");
    // One session weighs less than two.
    let weight = e["weight"].as_f64().unwrap();
    assert!(weight > 0.0 && weight <= 0.3, "{weight}");
}

/// Issue 13 item 2: with the model, a sentence that no cue phrase covers is classified by
/// its nearest exemplars (`rules/exemplars.toml`); the mention records which exemplar and
/// how similar, `explain` shows it, and a passing mention stays plain. An exemplar's class
/// alone in its log is a weak cue (no testing edge from it); seconded by another sentence
/// of the same session with the same class, it is strong (one session makes the edge).
/// Without the model (or with `PATINA_EXEMPLARS=off`), phrases alone decide and ingest
/// says so once.
#[test]
fn exemplars_classify_what_no_phrase_covers() {
    let Some(model) = util::model_dir() else { return };
    // No phrase of rules/cues.toml in any of these sentences.
    let run = "- Ran the extractor over quickparse and got 2,300 definitions in 4 seconds.\n";
    let rerun = "- Ran the extractor over quickparse again after the fix: 2,310 definitions in 3 seconds.\n";
    let lunch = "- We chatted about vectorlite over lunch.\n";
    let ingest = |sessions: &[(&str, String)], exemplars: bool| {
        let home = Home::new();
        home.ok(&["mother", "sync", "--registry", &example_registry()]);
        let dir = home.path().join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in sessions {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let mut cmd = home.cmd(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
        cmd.env("PATINA_MODELS", &model);
        if !exemplars {
            cmd.env("PATINA_EXEMPLARS", "off");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
        (home, format!("{}{}", util::stderr(&out), util::stdout(&out)))
    };
    let cues_of = |home: &Home, repo: &str| -> Vec<(String, bool, String)> {
        let mentions = home.json(&["mother", "log", "--kind", "mention"]);
        let found: Vec<_> = mentions
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["payload"]["repo"] == repo)
            .map(|m| {
                let p = &m["payload"];
                (
                    p["cue_class"].as_str().unwrap().into(),
                    p["strong_cue"].as_bool().unwrap(),
                    p["cue"].as_str().unwrap().into(),
                )
            })
            .collect();
        assert!(!found.is_empty(), "{repo}");
        found
    };

    // One session, one such mention: testing, but weak; no edge from it alone.
    let (home, note) =
        ingest(&[("a.md", session("20260204-100000", run)), ("b.md", session("20260205-100000", lunch))], true);
    assert!(!note.contains("phrases alone"), "{note}");
    assert!(note.contains("cues by exemplars (all-MiniLM-L6-v2-int8): 1 mention(s)"), "{note}");
    let (class, strong, cue) = cues_of(&home, "quickparse").remove(0);
    assert_eq!((class.as_str(), strong), ("testing", false), "{cue}");
    assert!(cue.starts_with("exemplar \"") && cue.ends_with("alone in its log"), "{cue}");
    assert_eq!(cues_of(&home, "vectorlite")[0].0, "plain");
    assert!(!has(&edges(&home), "atlas", "TESTS_WITH", "quickparse"));
    let missing = home.cmd(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1), "a missing edge exits 1");
    let missing = util::stdout(&missing);
    assert!(missing.contains("(weak cue)"), "{missing}");
    // The vectors are cached: a second ingest of a changed home reads them back.
    assert!(home.path().join("cache").join("cue-vectors.bin").is_file());

    // Both lines in one session second each other: strong, one session is enough.
    let (home, _) = ingest(&[("a.md", session("20260204-100000", &format!("{run}{rerun}")))], true);
    for (class, strong, cue) in cues_of(&home, "quickparse") {
        assert_eq!((class.as_str(), strong), ("testing", true), "{cue}");
        assert!(cue.contains(", seconded by line "), "{cue}");
    }
    let explained = home.ok(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]);
    assert!(explained.contains("1 session") && explained.contains("seconded by line"), "{explained}");

    let (home, note) = ingest(&[("a.md", session("20260204-100000", &format!("{run}{rerun}")))], false);
    assert!(note.contains("phrases alone"), "{note}");
    assert!(cues_of(&home, "quickparse").iter().all(|(class, _, _)| class == "plain"));
    assert!(!has(&edges(&home), "atlas", "TESTS_WITH", "quickparse"));
}

/// Issue 13 item 2 on real logs: "Performance regression: Dagger scrape now times out
/// (was fast before)" (20250822-160916:51) has no cue phrase and is a test subject's
/// failure; the exemplars say testing. "Corrected misunderstanding about directory
/// ownership (Claude Code vs Claude Desktop)" (20250728-225012:48) stays plain.
#[test]
fn real_sentences_no_phrase_covers_are_classified_by_exemplars() {
    let Some(model) = util::model_dir() else { return };
    let (home, _) = real_logs_home(|name| ["20250822-160916.md", "20250728-225012.md"].contains(&name), Some(&model));
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let at = |file_line: &str, repo: &str| mention_cue_at(&mentions, file_line, repo);
    let (class, cue) = at("20250822-160916.md:51", "dagger");
    assert_eq!(class, "testing", "{cue}");
    assert!(cue.starts_with("exemplar \""), "{cue}");
    assert_eq!(at("20250728-225012.md:48", "claude-code").0, "plain");
}

/// A list that names many repos is a bulk list: its items inherit nothing, unless its
/// lead-in is about testing (a results table or the list of repos tested names many).
#[test]
fn a_bulk_list_inherits_only_a_testing_lead_in() {
    let mut registry = std::fs::read_to_string(example_registry()).unwrap();
    for extra in ["alpha", "beta", "gamma"] {
        registry.push_str(&format!("  - id: {extra}\n    kind: reference\n"));
    }
    let home = Home::new();
    let file = home.path().join("registry.yaml");
    std::fs::write(&file, registry.replace("path: repos/", "path: /nonexistent/")).unwrap();
    home.ok(&["mother", "sync", "--registry", file.to_str().unwrap()]);
    let dir = home.path().join("s");
    std::fs::create_dir_all(&dir).unwrap();
    let rows = ["ecsdemo", "vectorlite", "quickparse", "alpha", "beta", "gamma"];
    let table: String = rows.iter().map(|r| format!("| {r} | 0.9 |\n")).collect();
    let list: String = rows.iter().map(|r| format!("- {r}\n")).collect();
    let body = format!("## Benchmark results\n\n| repo | MRR |\n|---|---|\n{table}\nReference repos:\n{list}");
    std::fs::write(dir.join("a.md"), session("20260201-100000", &body)).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let mentions = mentions.as_array().unwrap();
    assert_eq!(mentions.len(), 12);
    let (rows, items) = mentions.split_at(6);
    assert!(rows.iter().all(|m| m["payload"]["cue_class"] == "testing"), "{rows:?}");
    assert!(items.iter().all(|m| m["payload"]["cue_class"] == "plain"), "{items:?}");
    assert!(has(&edges(&home), "atlas", "TESTS_WITH", "gamma"));
    assert!(!has(&edges(&home), "atlas", "LEARNS_FROM", "gamma"));
}

/// Issue 13: a removal sentence ends a USES edge (kept as history in `graph --all`,
/// explained with its file:line); a later session that uses it again starts it again.
#[test]
fn a_removal_ends_a_uses_edge_and_a_re_add_starts_it_again() {
    let uses =
        |id: &str| session(id, "- The index is built on vectorlite; it depends on vectorlite for cosine search.\n");
    let removal = session("20260210-100000", "- Removed the vectorlite dependency; cosine search is ours now.\n");
    let logs = [("a.md", uses("20260201-100000")), ("b.md", uses("20260202-100000")), ("c.md", removal)];
    let pairs: Vec<(&str, &str)> = logs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let home = example_home_with_sessions(&pairs);
    assert!(!has(&edges(&home), "atlas", "USES", "vectorlite"), "ended: not current");
    let history = home.json(&["mother", "graph", "--all"]);
    let ended = history.as_array().unwrap().iter().find(|e| e["type"] == "USES" && e["to"] == "vectorlite").unwrap();
    assert_eq!(ended["valid_from"], "2026-02-01");
    assert_eq!(ended["valid_until"], "2026-02-10");
    let text = home.ok(&["mother", "graph", "--all"]);
    assert!(text.contains("ended 2026-02-10"), "{text}");
    let out = home.cmd(&["mother", "explain", "atlas", "USES", "vectorlite"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ended 2026-02-10") && text.contains("c.md:5"), "{text}");
    assert!(text.contains("Removed the vectorlite dependency"), "{text}");
    // As of a date before the removal, the edge holds.
    let before = home.json(&["mother", "graph", "--as-of", "2026-02-05"]);
    assert!(before.as_array().unwrap().iter().any(|e| e["type"] == "USES" && e["to"] == "vectorlite"), "{before}");
    // A later session uses it again: the edge is current, its period starts there.
    let dir = home.path().join("sessions");
    std::fs::write(dir.join("d.md"), uses("20260220-100000")).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    let current = home.json(&["mother", "graph"]);
    let edge = current.as_array().unwrap().iter().find(|e| e["type"] == "USES" && e["to"] == "vectorlite").unwrap();
    assert_eq!(edge["valid_from"], "2026-02-20", "{edge}");
    let e = home.json(&["mother", "explain", "atlas", "USES", "vectorlite"]);
    assert_eq!(e["exists"], true);
    assert_eq!(e["endings"][0]["key"], "20260210-100000");
    assert_eq!(home.json(&["mother", "derive", "--check"])["check"], "identical");
}

/// Stop 38: after an ending, an edge starts again only on evidence that would derive it
/// by itself (a strong cue, or using cues in two sessions): one later look back at what
/// was removed ("the vectorlite backend" in a retro) keeps it ended, and a later recap of
/// the removal ("vectorlite removal", stop 43) leaves its end where it was. A denied claim of
/// where a design came from ("was not inspired by X") ends LEARNS_FROM, as a retraction
/// does, and `explain` cites it.
#[test]
fn a_look_back_after_an_ending_does_not_restart_it_and_a_denied_claim_ends_learning() {
    let uses =
        |id: &str| session(id, "- The index is built on vectorlite; it depends on vectorlite for cosine search.\n");
    let removal = session("20260210-100000", "- Removed the vectorlite dependency; cosine search is ours now.\n");
    let look_back = |id: &str| {
        session(id, "- Same reasoning as last week: the vectorlite backend cost us build minutes for one path.\n")
    };
    let claim = |id: &str| session(id, "- The event log is inspired by quickparse: append-only and replayable.\n");
    let denial = session("20260212-100000", "- Checked the history: the event log was not inspired by quickparse.\n");
    let logs = [
        ("a.md", uses("20260201-100000")),
        ("b.md", uses("20260202-100000")),
        ("c.md", removal),
        // A recap of the removal later on: the edge still ended on the day of the removal.
        ("cc.md", session("20260214-100000", "- Pivots this month: vectorlite removal, one binary.\n")),
        ("d.md", look_back("20260217-100000")),
        ("e.md", claim("20260203-100000")),
        ("f.md", claim("20260204-100000")),
        ("g.md", denial),
    ];
    let pairs: Vec<(&str, &str)> = logs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let home = example_home_with_sessions(&pairs);
    let current = edges(&home);
    assert!(!has(&current, "atlas", "USES", "vectorlite"), "one look back restarts nothing: {current:?}");
    assert!(!has(&current, "atlas", "LEARNS_FROM", "quickparse"), "denied: {current:?}");
    let history = home.json(&["mother", "graph", "--all"]);
    let ended = |t: &str, to: &str| {
        history.as_array().unwrap().iter().find(|e| e["type"] == t && e["to"] == to).map(|e| e["valid_until"].clone())
    };
    assert_eq!(ended("USES", "vectorlite"), Some("2026-02-10".into()), "{history}");
    assert_eq!(ended("LEARNS_FROM", "quickparse"), Some("2026-02-12".into()), "{history}");
    let out = home.cmd(&["mother", "explain", "atlas", "LEARNS_FROM", "quickparse"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("g.md:5") && text.contains("not inspired by"), "{text}");
    // Look-backs in as many sessions as there are recaps restart nothing (stop 44: two
    // weak sessions used to); a strong cue after the ending starts the edge again.
    let dir = home.path().join("sessions");
    std::fs::write(dir.join("h.md"), look_back("20260224-100000")).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    assert!(!has(&edges(&home), "atlas", "USES", "vectorlite"), "two look-backs restart nothing");
    // A strong cue that only names the removed part looks back at it too (stop 49): "the
    // vectorlite crate" and a later audit's crate table restart nothing.
    let part_named = session(
        "20260225-100000",
        "- Gone this month: the vectorlite crate is no longer in the tree.\n\n| crate | why |\n|---|---|\n| vectorlite | cosine search |\n",
    );
    std::fs::write(dir.join("hh.md"), part_named).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    let strong_part = home.json(&["mother", "log", "--kind", "mention"]);
    let strong_part = strong_part
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["payload"]["session_id"] == "20260225-100000" && m["payload"]["strong_cue"] == true);
    assert_eq!(strong_part.count(), 2, "the compound and the crate column are strong cues");
    assert!(!has(&edges(&home), "atlas", "USES", "vectorlite"), "a part named restarts nothing");
    let out = home.cmd(&["mother", "explain", "atlas", "USES", "vectorlite"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("name it only as a part") && text.contains("20260225-100000"), "{text}");
    assert!(!text.contains("closest rules"), "an ended edge's rules fired: {text}");
    let re_add = session("20260226-100000", "- Put vectorlite back: the index is built on vectorlite again.\n");
    std::fs::write(dir.join("i.md"), re_add).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    let edge = home.json(&["mother", "graph"]);
    let edge = edge.as_array().unwrap().iter().find(|e| e["type"] == "USES" && e["to"] == "vectorlite");
    assert_eq!(edge.expect("started again")["valid_from"], "2026-02-26");
}

/// Stop 35: a later session's retraction ("… was inspired by X. That was wrong") ends the
/// LEARNS_FROM edge the earlier claims made, with its file:line in `explain`; plans and
/// hypotheses ("X might be worth benchmarking", items under "Next steps:") and negated
/// cues ("we don't scrape X") make no edge.
#[test]
fn a_retraction_ends_a_learning_claim_and_plans_make_no_edge() {
    let claim = |id: &str| session(id, "- The event log is inspired by vectorlite: append-only and replayable.\n");
    let retraction = session(
        "20260210-100000",
        "- The old credits said the event log was inspired by vectorlite. That was wrong - it was our own design.\n",
    );
    let plans = session(
        "20260211-100000",
        "- quickparse might be worth benchmarking someday.\n- We don't scrape ecsdemo: it is one header.\n\n\
         **Next steps:**\n- Stress test on quickparse\n",
    );
    let logs = [("a.md", claim("20260201-100000")), ("b.md", retraction), ("c.md", plans)];
    let pairs: Vec<(&str, &str)> = logs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let home = example_home_with_sessions(&pairs);
    let all = edges(&home);
    assert!(!has(&all, "atlas", "LEARNS_FROM", "vectorlite"), "retracted: not current: {all:?}");
    assert!(!has(&all, "atlas", "TESTS_WITH", "quickparse") && !has(&all, "atlas", "TESTS_WITH", "ecsdemo"), "{all:?}");
    let history = home.json(&["mother", "graph", "--all"]);
    let ended = history.as_array().unwrap().iter().find(|e| e["type"] == "LEARNS_FROM" && e["to"] == "vectorlite");
    assert_eq!(ended.expect("kept as history")["valid_until"], "2026-02-10");
    let out = home.cmd(&["mother", "explain", "atlas", "LEARNS_FROM", "vectorlite"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("b.md:5") && text.contains("that was wrong"), "{text}");
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let hedged = mentions.as_array().unwrap().iter().filter(|m| {
        m["payload"]["cue_class"] == "plain" && m["payload"]["cue"].as_str().unwrap_or("").starts_with("hedged by")
    });
    assert_eq!(hedged.count(), 2, "{mentions}");
}

/// `replaced X with Y` ends X, never Y; a removal of something *of* X ends nothing.
#[test]
fn ending_cues_are_about_the_repo_itself() {
    let logs = [
        ("a.md", session("20260201-100000", "- Replaced quickparse with vectorlite in the index.\n")),
        ("b.md", session("20260202-100000", "- Removed all deprecated ecsdemo template files.\n")),
        ("c.md", session("20260203-100000", "- The old ecsdemo integration was never added, it turns out.\n")),
    ];
    let pairs: Vec<(&str, &str)> = logs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let home = example_home_with_sessions(&pairs);
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let classes: Vec<(String, String)> = mentions
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["payload"]["repo"].as_str().unwrap().into(), m["payload"]["cue_class"].as_str().unwrap().into()))
        .collect();
    assert!(classes.contains(&("quickparse".into(), "ending".into())), "{classes:?}");
    assert!(!classes.contains(&("vectorlite".into(), "ending".into())), "{classes:?}");
    let ecs: Vec<&(String, String)> = classes.iter().filter(|c| c.0 == "ecsdemo").collect();
    assert_eq!(ecs.iter().filter(|c| c.1 == "ending").count(), 1, "only the contradiction: {classes:?}");
}

/// Issue 13: `owner/name` references to repos the registry does not know are listed as
/// candidates with counts and sample lines; nothing is added to the registry.
#[test]
fn unregistered_repos_become_candidates_never_nodes() {
    let logs = [
        (
            "a.md",
            session(
                "20260201-100000",
                "- Studied [[steveyegge/beads]] for its issue graph.\n- See https://github.com/example/vectorlite too.\n",
            ),
        ),
        ("b.md", session("20260202-100000", "- Ran `git clone steveyegge/beads` and read src/lib.rs.\n")),
    ];
    let pairs: Vec<(&str, &str)> = logs.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let home = example_home_with_sessions(&pairs);
    let found = home.json(&["mother", "candidates"]);
    let rows = found.as_array().unwrap();
    assert_eq!(rows.len(), 1, "the registered example/vectorlite is not a candidate: {found}");
    assert_eq!(rows[0]["name"], "steveyegge/beads");
    assert_eq!(rows[0]["sessions"], 2);
    assert!(rows[0]["samples"][0]["source"].as_str().unwrap().ends_with("a.md:5"), "{found}");
    let nodes = home.json(&["mother", "graph", "--nodes"]);
    assert_eq!(nodes.as_array().unwrap().len(), 4, "candidates are never added");
    let text = home.ok(&["mother", "candidates"]);
    assert!(text.contains("steveyegge/beads  2 reference(s) in 2 session(s)"), "{text}");
}

/// Issue 13, "changing names and formats", on the real registry: the later logs write
/// YAML front matter, `[[owner/name]]` wiki links and a renamed repo's old names. The
/// registry's openclaw has the `owner/name` aliases of its two old names
/// (`clawdbot/clawdbot`, `moltbot/moltbot`), so "clawdbot" is openclaw; a wiki link to a
/// fork of duckdb is duckdb, never a candidate.
#[test]
fn old_names_and_owner_name_links_of_registered_repos_make_their_edges() {
    let home = real_registry_home();
    let dir = home.path().join("later");
    std::fs::create_dir_all(&dir).unwrap();
    let log = "---\nid: 20260126-093000\ndate: 2026-01-26\n---\n\n# Gateway study\n\n\
               - Studied clawdbot's gateway: one process routes every chat channel.\n\
               - Tested the scraper on [[someone/duckdb]]: 4,120 symbols in 3.1 s.\n";
    std::fs::write(dir.join("20260126-093000.md"), log).unwrap();
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "patina"]);
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let of = |repo: &str| -> Value {
        mentions.as_array().unwrap().iter().find(|m| m["payload"]["repo"] == repo).cloned().expect(repo)
    };
    assert_eq!(of("openclaw")["payload"]["matched"], "clawdbot");
    assert_eq!(of("openclaw")["payload"]["cue_class"], "learning");
    assert_eq!(of("duckdb")["payload"]["cue_class"], "testing");
    let all = edges(&home);
    assert!(has(&all, "patina", "LEARNS_FROM", "openclaw"), "{all:?}");
    assert!(has(&all, "patina", "TESTS_WITH", "duckdb"), "{all:?}");
    let found = home.json(&["mother", "candidates"]);
    assert_eq!(found.as_array().unwrap().len(), 0, "a fork of a registered repo is that repo: {found}");
}

/// Issue 13 on the real logs: the items under "**Testing Results:**" (20250907-150518,
/// lines 64–66) carry the lead-in's testing cue; "Discovered stack overflow when parsing
/// SDL repository" (20250901-164140:34) is a failure, i.e. testing; so is a fix made for a
/// repo and tested on it (20250904-171009:10), and an inline list inherits its colon's words
/// (20250910-055853:88); a testing verb with its object before the repo is a testing cue
/// (20250905-111908:34), a learning verb over five repos a sweep of test subjects
/// (20250909-142825:32), and a weak testing word over five a strong one (20250908-204348:129).
#[test]
fn real_list_items_inherit_their_lead_in_and_failures_are_tests() {
    let home = real_world();
    let mentions = home.json(&["mother", "log", "--kind", "mention"]);
    let at = |file_line: &str, repo: &str| mention_cue_at(&mentions, file_line, repo);
    for (line, repo) in [(64, "SDL"), (65, "dojo"), (66, "dagger")] {
        let (class, cue) = at(&format!("20250907-150518.md:{line}"), repo);
        assert_eq!(class, "testing", "{repo}");
        assert!(cue.contains("lead-in \"Testing Results:\", line 63"), "{cue}");
    }
    assert_eq!(at("20250901-164140.md:34", "SDL"), ("testing".into(), "stack overflow when parsing".into()));
    // An inline list inherits the words before its colon: "Validation metrics prove
    // implementation correctness (SDL: 330 fields, DuckDB: 1,944 inheritance)".
    let (class, cue) = at("20250910-055853.md:88", "duckdb");
    assert_eq!(class, "testing");
    assert!(cue.contains("(inline lead-in \"Validation metrics prove"), "{cue}");
    // A fix made for a repo, tested on it: "a critical fix for the C parser's stack
    // overflow issue … successfully testing it on SDL's 84k+ symbols" (the nearer cue, a
    // gapped phrase, decides).
    assert_eq!(at("20250904-171009.md:10", "SDL"), ("testing".into(), "testing it on".into()));
    // A testing verb, its object, then the repo: "Successfully tested ask command on SDL repo".
    assert_eq!(at("20250905-111908.md:34", "SDL"), ("testing".into(), "tested ask command on".into()));
    // A weak testing word with the run's counted result: "Successfully indexed dust
    // repository: 454 symbols from 235 files".
    let (class, cue) = at("20250824-084309.md:68", "dust");
    assert_eq!(class, "testing");
    assert!(cue.contains("with a counted result: \"454 symbols\""), "{cue}");
    // A learning verb over five repos is a sweep of test subjects: "Analyzed actual database
    // contents from SDL, DuckDB, Dagger, Dust, Dojo repos".
    for repo in ["SDL", "duckdb", "dagger", "dojo"] {
        let (class, cue) = at("20250909-142825.md:32", repo);
        assert_eq!(class, "testing", "{repo}");
        assert!(cue.contains("repos in one sentence: a sweep of test subjects"), "{cue}");
    }
    // A weak testing word over several repos names the run's subjects, and is strong:
    // "Successfully indexed 6 large repositories (Dagger, Dust, Dojo, SDL, HumanLayer,
    // DuckDB)" is the one testing evidence for HumanLayer in the logs of its time.
    let strong = |file_line: &str, repo: &str| {
        mentions.as_array().unwrap().iter().any(|m| {
            let source = format!("{}:{}", m["source"]["path"].as_str().unwrap_or(""), m["source"]["start_line"]);
            source.ends_with(file_line) && m["payload"]["repo"] == repo && m["payload"]["strong_cue"] == true
        })
    };
    let (class, cue) = at("20250908-204348.md:129", "humanlayer");
    assert_eq!(class, "testing");
    assert!(cue.starts_with("indexed (") && cue.contains("a sweep of test subjects"), "{cue}");
    assert!(strong("20250908-204348.md:129", "humanlayer"));
    assert!(has(&edges(&home), "patina", "TESTS_WITH", "humanlayer"));
}

/// A registry where `n` nodes (every third a project) share the domain `rust`, and the
/// first project and the first reference also share `search`.
fn one_domain_registry(dir: &std::path::Path, n: usize) -> String {
    let mut yaml = String::from("nodes:\n");
    for i in 0..n {
        let kind = if i % 3 == 0 { "project" } else { "reference" };
        let domains = if i < 2 { "[rust, search]" } else { "[rust]" };
        yaml.push_str(&format!("  - id: n{i:05}\n    kind: {kind}\n    domains: {domains}\n"));
    }
    let path = dir.join("registry.yaml");
    std::fs::write(&path, yaml).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_domain_on_too_many_nodes_makes_no_pairwise_edges_and_says_so() {
    let home = Home::new();
    let registry = one_domain_registry(home.path(), 200);
    home.ok(&["mother", "sync", "--registry", &registry]);
    let all = edges(&home);
    // Only the narrow domain `search` pairs nodes: n00000 → n00001, DOMAIN and SIBLING.
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(has(&all, "n00000", "DOMAIN", "n00001") && has(&all, "n00000", "SIBLING", "n00001"));
    let stats = home.json(&["mother", "stats"]);
    assert_eq!(stats["graph"]["broad_domains"]["rust"], 200, "{stats}");
    assert!(home.ok(&["mother", "stats"]).contains("rust (200 nodes)"));
    let e = home.json(&["mother", "explain", "n00000", "DOMAIN", "n00001"]);
    assert!(e["rules"][0]["detail"].as_str().unwrap().contains("too broad to count"), "{e}");
    let out = home.cmd(&["mother", "explain", "n00003", "DOMAIN", "n00004", "--json"]).output().unwrap();
    let missing: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shared = missing["near_misses"].as_array().unwrap().iter().find(|m| m["rule"] == "shared-domain").unwrap();
    assert!(shared["found"].as_str().unwrap().contains("rust (200 nodes)"), "{shared}");
}

/// The reproducer of issue 17: 20,000 nodes in one domain were OOM-killed at 24 GB after
/// the registry's events were committed. Now: seconds, no domain edges.
#[test]
#[ignore = "full-size reproducer; run with --release -- --ignored"]
fn twenty_thousand_nodes_in_one_domain_derive_in_seconds() {
    let home = Home::new();
    let registry = one_domain_registry(home.path(), 20_000);
    let started = std::time::Instant::now();
    home.ok(&["mother", "sync", "--registry", &registry]);
    let check = home.json(&["mother", "derive", "--check"]);
    let took = started.elapsed();
    println!("sync + derive --check of 20,000 nodes in one domain: {took:?}");
    assert_eq!(check["check"], "identical");
    assert_eq!(edges(&home).len(), 2);
    assert!(took.as_secs() < 30, "{took:?}");
}

/// Queries of a current graph open the store read-only: not a byte of it changes.
#[test]
fn graph_queries_of_a_current_graph_leave_the_store_as_it_was() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    home.ok(&["mother", "link", "atlas", "LEARNS_FROM", "ecsdemo"]);
    let before = std::fs::read(home.store_path()).unwrap();
    for args in [
        &["mother", "graph"][..],
        &["mother", "rules"],
        &["mother", "stats"],
        &["mother", "log"],
        &["mother", "neighbors", "atlas"],
        &["mother", "path", "atlas", "ecsdemo"],
        &["mother", "explain", "atlas", "LEARNS_FROM", "ecsdemo"],
    ] {
        home.ok(args);
        assert!(std::fs::read(home.store_path()).unwrap() == before, "{args:?} wrote to the store");
    }
}

/// Issue 13: a manifest whose newest version lost a dependency ends the USES edge the
/// manifest made (history in `graph --all`, the drop cited by `explain`; `--as-of` the
/// day before still has it); putting the dependency back starts it again.
#[test]
fn a_dependency_the_manifest_dropped_ends_its_edge() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let project = home.path().join("atlas");
    std::fs::create_dir_all(&project).unwrap();
    let manifest = project.join("Cargo.toml");
    let with = "[package]\nname = \"atlas\"\n\n[dependencies]\nvectorlite = \"1\"\nquickparse = \"2\"\n";
    std::fs::write(&manifest, with).unwrap();
    let ingest = || home.ok(&["mother", "ingest", manifest.to_str().unwrap(), "--project", "atlas"]);
    ingest();
    assert!(has(&edges(&home), "atlas", "USES", "vectorlite"));
    // The manifest drops vectorlite.
    std::fs::write(&manifest, "[package]\nname = \"atlas\"\n\n[dependencies]\nquickparse = \"2\"\n").unwrap();
    ingest();
    let current = edges(&home);
    assert!(!has(&current, "atlas", "USES", "vectorlite"), "dropped: not current: {current:?}");
    assert!(has(&current, "atlas", "USES", "quickparse"), "still in the manifest");
    let today = home.json(&["mother", "log", "--kind", "retracted"]).as_array().unwrap()[0]["ts"]
        .as_str()
        .map(|t| t[..10].to_string());
    let history = home.json(&["mother", "graph", "--all"]);
    let ended = history.as_array().unwrap().iter().find(|e| e["type"] == "USES" && e["to"] == "vectorlite").unwrap();
    assert!(ended["valid_until"].is_string(), "{ended}");
    if let Some(today) = today {
        assert_eq!(ended["valid_until"].as_str(), Some(today.as_str()), "ended the day the manifest dropped it");
    }
    let out = home.cmd(&["mother", "explain", "atlas", "USES", "vectorlite"]).output().unwrap();
    let explain = String::from_utf8_lossy(&out.stdout);
    assert!(explain.contains("ended") && explain.contains("Cargo.toml"), "{explain}");
    // As of yesterday the manifest still had it.
    let yesterday =
        (jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date() - jiff::Span::new().days(1)).to_string();
    let before = home.json(&["mother", "graph", "--as-of", &yesterday]);
    assert!(before.as_array().unwrap().iter().any(|e| e["type"] == "USES" && e["to"] == "vectorlite"), "{before}");
    // Put back: current again; and the incremental graph equals a derivation from scratch.
    std::fs::write(&manifest, with).unwrap();
    ingest();
    assert!(has(&edges(&home), "atlas", "USES", "vectorlite"));
    assert_eq!(home.json(&["mother", "derive", "--check"])["check"], "identical");
}

/// Cross-validation inside the fit part: each fit month's logs alone against the fit
/// labels whose sessions fall in that month. A month is a pseudo test part made of data
/// the choices may be made on, so its errors show the kinds the test part may hold without
/// looking at it. `cargo test --test graph fit_months -- --ignored --nocapture`.
#[test]
#[ignore = "an exploration tool, not an assertion"]
fn fit_months_cross_validation() {
    let model = util::model_dir();
    let labels: SplitLabels = toml::from_str(&std::fs::read_to_string(root().join(PARTS[0].2)).unwrap()).unwrap();
    for month in ["202507", "202508", "202509"] {
        let (home, files) = real_logs_home(|name| name.starts_with(month), model.as_deref());
        let derived: Vec<_> = edges(&home)
            .into_iter()
            .filter(|e| e.0 == "patina" && ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&e.1.as_str()))
            .collect();
        let current: Vec<&SplitLabel> = labels
            .edge
            .iter()
            .filter(|l| l.ended.is_none() && l.sessions.iter().any(|s| s.starts_with(month)))
            .collect();
        let labelled = |e: &(String, String, String, f64)| current.iter().any(|l| l.edge_type == e.1 && l.to == e.2);
        let tp = derived.iter().filter(|e| labelled(e)).count();
        let found = current.iter().filter(|l| has(&derived, "patina", &l.edge_type, &l.to)).count();
        println!("{month}: {files} logs, precision {tp}/{}, recall {found}/{}", derived.len(), current.len());
        for e in derived.iter().filter(|e| !labelled(e)) {
            println!("  false positive: patina {} {} ({:.2})", e.1, e.2, e.3);
        }
        for l in current.iter().filter(|l| !has(&derived, "patina", &l.edge_type, &l.to)) {
            println!("  missed: patina {} {} [{}]", l.edge_type, l.to, l.confidence);
        }
    }
}

/// A labelled relation (or its absence) in one log of `eval/precision-traps/`.
#[derive(Deserialize)]
struct TrapLabel {
    session: String,
    to: String,
    #[serde(default)]
    edge_type: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    line: usize,
}

#[derive(Deserialize)]
struct TrapLabels {
    edge: Vec<TrapLabel>,
    non_edge: Vec<TrapLabel>,
    /// The whole set's truth, read in date order (sets 6 on): the relations that hold
    /// after its last log, and those a later log ended (a restored one is in both).
    #[serde(default)]
    current: Vec<WholeSetLabel>,
    #[serde(default)]
    ended: Vec<WholeSetLabel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WholeSetLabel {
    to: String,
    edge_type: String,
    /// `current`: the first log that evidences it (or its re-add).
    #[serde(default)]
    since: Option<String>,
    /// `ended`: the log and line that end it.
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    line: Option<usize>,
}

/// The precision traps: sets of 16 logs written blind (each author saw neither the rules,
/// the code nor any label) to hold mentions that evidence nothing (negations, plans not
/// acted on, comparisons, other people's projects, examples, removals, retractions,
/// reported speech) beside real uses, studies and test runs. Each log is derived alone,
/// and its current patina edges are scored against its labels.
///
/// `eval/precision-traps` (stop 34) is a fit set: the fit part of the time split gives no
/// handle on precision (1.00), so choices are fitted on it, and its misses are printed.
/// `eval/precision-traps-2` (stop 35, another author) is held out: only its figures are
/// printed, so that no choice is fitted on its misses. `eval/precision-traps-3` (stop 36, a
/// third author, styles of later work: pasted output and listings, surveys, other people's
/// setups) is a fit set. `eval/precision-traps-4` (stop 37, a fourth author, in the real
/// logs' own later style: multi-topic summaries, repos both tested and studied, index data
/// read again, dependency churn) had its figures taken before any choice, then became a
/// fit set; `eval/precision-traps-5` (stop 37, a fifth author, the same brief) is held
/// out. `eval/precision-traps-6` (stop 38, the lifecycle of relations: added, removed,
/// restored, credits corrected later) had its figures taken before any choice, then
/// became a fit set; `eval/precision-traps-7` (stop 38, the same brief) is held out;
/// `eval/precision-traps-8` (stop 38, one repo in different roles) had its figures taken
/// before any choice, then became a fit set; `eval/precision-traps-9` (stop 39, evidence in
/// many shapes and names: results lists, failures, package names, dependency trees, wiki
/// links, front matter) likewise; `eval/precision-traps-10` (stop 39, the same brief) is
/// held out. `eval/precision-traps-11` (stop 40, precision: look-alikes written beside real
/// relations in the same shapes, a test subject's own dependencies, comparisons, plans,
/// listings, negations, other projects) had its figures taken before any choice, then
/// became a fit set; `eval/precision-traps-12` (stop 40, the same brief) is held out;
/// `eval/precision-traps-13` (stop 40, precision around test subjects, plans and roles)
/// had its figures taken before any choice, then became a fit set;
/// `eval/precision-traps-14` (stop 41, ordinary sessions with mentions in passing:
/// chores, tool output, suggestions, recaps, paths, commit messages) likewise;
/// `eval/precision-traps-15` (stop 41, the same brief) is held out;
/// `eval/precision-traps-16` (stop 41, sessions that touch many repos at once: dependency
/// audits, prior-art and related-projects lists, sweeps) had its figures taken before any
/// choice, then became a fit set. `eval/precision-traps-17` (stop 45, a month where the
/// developer changes their mind: trials removed, credits retracted, recaps of both) had
/// its figures taken before any choice (each log alone 0.70 / 0.86, whole 0.62 / 0.94),
/// then became a fit set; `eval/precision-traps-18` (stop 45, the same brief, another
/// author, written after the set-17 choices) is held out. `eval/precision-traps-19`
/// (stop 46, handoffs and recaps: sessions that open with a recap, relations recapped after
/// they ended, repos in two roles) had its figures taken before any choice (each log alone
/// 0.52 / 0.82, whole 0.84 / 0.96), then became a fit set; `eval/precision-traps-20` (stop
/// 46, the same brief, another author, written at the same time and never read) is held
/// out. Both authors label a recap of a relation still holding as no edge, where the real
/// logs' labellers count it as evidence: their each-log-alone figures count recaps as
/// false, their whole-set figures are the ones to read. `eval/precision-traps-21` (stop 46,
/// a month of maintenance: dependency audits, deletions, fixture pruning, corrected
/// credits, failures on repos; recaps labelled as the real logs' labellers do) had its
/// figures taken before any choice (each log alone 0.64 / 0.49, whole 0.59 / 0.81), then
/// became a fit set; `eval/precision-traps-22` (the same brief, another author) is held
/// out. `eval/precision-traps-23` (stop 48: the later logs' shapes, YAML front matter,
/// `owner/name` keys and wiki links, batch runs in lists and tables, failures on repos,
/// one deep study, a dependency added and removed, a credit corrected) is held out, its
/// figures taken before any choice (each log alone 0.89 / 0.80, whole 0.79 / 0.94);
/// `eval/precision-traps-24` (stop 48: the relation's type is the hard part, repos in
/// several roles) had its figures taken before any choice (each log alone 0.76 / 0.57,
/// whole 0.75 / 0.75), then became a fit set. `eval/precision-traps-25` (stop 51: an
/// ordinary month in the real logs' density, not a trap collection) had its figures taken
/// before any choice (each log alone 0.82 / 0.53, whole 0.86 / 0.67), then became a fit
/// set; `eval/precision-traps-26` (stop 51, the same brief, another author) is held out,
/// its figures taken after the stop-51 choices (each log alone 0.85 / 0.63, whole 0.88 /
/// 0.78; the stop-50 rules scored it the same). `eval/precision-traps-27` and `-28` (stop
/// 52: two more ordinary months, April and May 2028, by two more blind authors to the same
/// brief): set 27 had its figures read once before any choice (each log alone 0.76 / 0.74,
/// whole 0.86 / 0.86), then became a fit set; set 28 is held out, read once after the
/// stop-52 choices (each log alone 0.88 / 0.73, whole 1.00 / 0.89; the stop-51 rules gave
/// 0.88 / 0.70 and 1.00 / 0.89). `eval/precision-traps-29` and `-30` (stop 53: June and
/// July 2028, the same brief, half the logs opening with YAML front matter, relations
/// shown once in the middle of other work): set 29 was read once before any choice (each
/// log alone 0.83 / 0.79, whole 0.79 / 0.88), then became a fit set; set 30 is held out
/// (the stop-52 rules read it 0.87 / 0.94 and 0.87 / 0.95; the stop-53 rules 0.82 / 0.94
/// and 0.87 / 0.95). `eval/precision-traps-31` and `-32` (stop 54: August and September
/// 2028, the same brief, uses and studies given as much room as test runs): set 31 was read
/// once before any choice (each log alone 0.85 / 0.85, whole 0.92 / 0.92), then became a
/// fit set (stop 55); set 32 is held out (the stop-54 rules read it 0.69 / 0.85 and 0.87 /
/// 0.96). `eval/precision-traps-33` and `-34` (stop 55: October and November 2028, one
/// brief, an ordinary month with uses, test runs and studies in about equal room): set 33
/// was read once before any choice (each log alone 0.74 / 0.63, whole 0.82 / 0.82), then
/// became a fit set; set 34 is held out, read after the stop-55 choices (0.74 / 0.71,
/// whole 0.79 / 0.85). `eval/precision-traps-35` and `-36` (stop 56: December 2028 and
/// January 2029, the same brief, logs of varied length, evidence in pasted terminal
/// sessions, Cargo diffs, results tables and commit lists): set 35 was read once before any
/// choice (each log alone 0.80 / 0.88, whole 0.88 / 0.92) and is the next fit set; set 36
/// is held out (0.88 / 0.85, whole 0.91 / 0.84). `eval/precision-traps-37` and `-38`
/// (stop 57: February and March 2029, the same brief in a terse voice: bullet fragments,
/// checklists, commit lists, pasted output): set 37 was read once before any choice (each
/// log alone 0.82 / 0.89, whole 0.90 / 0.96), then became a fit set; set 38 is held out
/// (first read after the stop-57 rules from set 35: 0.86 / 0.54, whole 0.83 / 0.58). Set 39
/// (April 2029, a third author in the same voice, written after the stop-57 choices) was
/// read once with them (0.77 / 0.75, whole 0.79 / 0.81), then became a fit set (stop 58).
/// `eval/precision-traps-40` (stop 58: May 2029, the same brief in the real logs' own
/// voice, relations mostly shown, not announced) is held out: read once before the stop-58
/// choices and once after (0.76 / 0.83, whole 0.93 / 0.89, both times).
/// `eval/precision-traps-41` (stop 59: June 2029, the same brief, logs of every length
/// and care, from hurried fragments to pasted output) was read once with the stop-58
/// rules (0.74 / 0.71, whole 0.96 / 0.89), then became a fit set. Sets 6
/// on also carry whole-set labels (what holds after the last log, what a
/// later log ended). The whole-set table's last column counts the labelled removals and
/// retractions (a log and a repo) whose log holds an ending mention of the repo (stop 43).
/// `cargo test --test graph precision_traps -- --nocapture` prints the tables.
#[test]
fn precision_traps_table() {
    let model = util::model_dir();
    let cues = if model.is_some() { "phrases + exemplars" } else { "phrases" };
    println!("| precision traps, each log alone ({cues}) | precision | recall | false positives by kind |");
    println!("|---|---:|---:|---|");
    let sets = [
        ("eval/precision-traps", false),
        ("eval/precision-traps-2", true),
        ("eval/precision-traps-3", false),
        ("eval/precision-traps-4", false),
        ("eval/precision-traps-5", true),
        ("eval/precision-traps-6", false),
        ("eval/precision-traps-7", true),
        ("eval/precision-traps-8", false),
        ("eval/precision-traps-9", false),
        ("eval/precision-traps-10", true),
        ("eval/precision-traps-11", false),
        ("eval/precision-traps-12", true),
        ("eval/precision-traps-13", false),
        ("eval/precision-traps-14", false),
        ("eval/precision-traps-15", true),
        ("eval/precision-traps-16", false),
        ("eval/precision-traps-17", false),
        ("eval/precision-traps-18", true),
        ("eval/precision-traps-19", false),
        ("eval/precision-traps-20", true),
        ("eval/precision-traps-21", false),
        ("eval/precision-traps-22", true),
        ("eval/precision-traps-23", true),
        ("eval/precision-traps-24", false),
        ("eval/precision-traps-25", false),
        ("eval/precision-traps-26", true),
        ("eval/precision-traps-27", false),
        ("eval/precision-traps-28", true),
        ("eval/precision-traps-29", false),
        ("eval/precision-traps-30", true),
        ("eval/precision-traps-31", false),
        ("eval/precision-traps-32", true),
        ("eval/precision-traps-33", false),
        ("eval/precision-traps-34", true),
        ("eval/precision-traps-35", false),
        ("eval/precision-traps-36", true),
        ("eval/precision-traps-37", false),
        ("eval/precision-traps-38", true),
        ("eval/precision-traps-39", false),
        ("eval/precision-traps-40", true),
        ("eval/precision-traps-41", false),
    ];
    for (set, held_out) in sets {
        let (row, misses, sessions) = precision_trap_scores(&root().join(set), model.as_deref());
        println!("| {set}{} | {row}", if held_out { " (held out)" } else { " (fit)" });
        if !held_out {
            for m in &misses {
                println!("  {m}");
            }
        }
        assert_eq!(sessions, 16, "{set}");
    }
    // The same sets with all 16 logs of a set in one home, as a project's logs are: a use
    // in two sessions, a claim a later log retracts, a repo tested in one session and
    // studied in another. Scored as a set: the derived edges against every edge label.
    println!(
        "\n| precision traps, each set whole | precision | recall | shown ended | removals read as endings |\n|---|---:|---:|---:|---:|"
    );
    let (mut read, mut removals) = (0, 0);
    for (set, held_out) in sets {
        let (row, misses, endings) = precision_trap_set_scores(&root().join(set), model.as_deref());
        println!("| {set}{} | {row}", if held_out { " (held out)" } else { " (fit)" });
        if !held_out {
            for m in &misses {
                println!("  {m}");
            }
            read += endings.0;
            removals += endings.1;
        }
    }
    // Stop 43: 50 of the fit sets' 70 labelled removals and retractions (was 40).
    println!("fit sets: {read} of {removals} labelled removals and retractions read as endings");
    assert!(read * 3 >= removals * 2, "{read}/{removals}");
}

/// One precision-trap set derived whole: its table row (precision, recall, endings), its
/// misses, and how many of its labelled removals and retractions were read as endings. A set with whole-set labels (`[[current]]`, `[[ended]]`) is scored on them: the
/// current edges against the relations that still hold after its last log, and each
/// relation a later log ended (and nothing restored) must be shown ended by `graph --all`.
/// Older sets are scored against every per-log edge label, and have no endings column.
fn precision_trap_set_scores(dir: &Path, model: Option<&Path>) -> (String, Vec<String>, (usize, usize)) {
    use std::collections::BTreeSet;
    let labels: TrapLabels = toml::from_str(&std::fs::read_to_string(dir.join("labels.toml")).unwrap()).unwrap();
    let registry = std::fs::read_to_string(shared_data().join("patina-registry.yaml")).unwrap();
    for l in labels.current.iter().chain(&labels.ended) {
        let id = format!("id: {}", l.to);
        assert!(registry.lines().any(|line| line.trim().trim_start_matches("- ") == id), "not a registry id: {}", l.to);
        assert!(["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&l.edge_type.as_str()), "{}", l.edge_type);
        if let Some(since) = &l.since {
            assert!(dir.join(since).is_file(), "since: {since}");
        }
        if let (Some(session), Some(line)) = (&l.session, l.line) {
            let text = std::fs::read_to_string(dir.join(session)).unwrap_or_else(|e| panic!("{session}: {e}"));
            assert!(line >= 1 && line <= text.lines().count(), "{session}:{line}");
        }
    }
    let (home, files) = logs_home(dir, |_| true, model);
    assert_eq!(files, 16);
    let evidenced = |t: &str| ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&t);
    let derived: BTreeSet<(String, String)> =
        edges(&home).into_iter().filter(|e| e.0 == "patina" && evidenced(&e.1)).map(|e| (e.1, e.2)).collect();
    let whole = !labels.current.is_empty();
    let wanted: BTreeSet<(String, String)> = if whole {
        labels.current.iter().map(|l| (l.edge_type.clone(), l.to.clone())).collect()
    } else {
        labels.edge.iter().map(|l| (l.edge_type.clone().unwrap(), l.to.clone())).collect()
    };
    let right = derived.intersection(&wanted).count();
    let mut misses: Vec<String> =
        derived.difference(&wanted).map(|(t, to)| format!("false positive: patina {t} {to}")).collect();
    misses.extend(wanted.difference(&derived).map(|(t, to)| format!("missed: patina {t} {to}")));
    let mut endings = "– |".to_string();
    if whole {
        let shown_ended: BTreeSet<(String, String)> = home
            .json(&["mother", "graph", "--all"])
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["from"] == "patina" && !e["valid_until"].is_null())
            .map(|e| (e["type"].as_str().unwrap().to_string(), e["to"].as_str().unwrap().to_string()))
            .collect();
        let ended: BTreeSet<(String, String)> = labels
            .ended
            .iter()
            .map(|l| (l.edge_type.clone(), l.to.clone()))
            .filter(|pair| !wanted.contains(pair))
            .collect();
        let caught = ended.intersection(&shown_ended).count();
        misses.extend(ended.difference(&shown_ended).map(|(t, to)| format!("not shown ended: patina {t} {to}")));
        endings = format!("{caught}/{} |", ended.len());
    }
    // Each labelled removal or retraction (a log and a repo): whether that log holds an
    // ending mention of the repo, the evidence that ends an edge.
    let removals: BTreeSet<(String, String)> = labels
        .non_edge
        .iter()
        .filter(|l| matches!(l.kind.as_deref(), Some("removed" | "retracted")))
        .map(|l| (l.session.clone(), l.to.clone()))
        .chain(labels.ended.iter().filter_map(|l| Some((l.session.clone()?, l.to.clone()))))
        .collect();
    let ending_mentions: BTreeSet<(String, String)> = home
        .json(&["mother", "log", "--kind", "mention"])
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["payload"]["cue_class"] == "ending")
        .map(|m| {
            let path = Path::new(m["source"]["path"].as_str().unwrap());
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            (file, m["payload"]["repo"].as_str().unwrap().to_string())
        })
        .collect();
    let read = removals.intersection(&ending_mentions).count();
    let row = format!(
        "{:.2} ({right}/{}) | {:.2} ({right}/{}) | {endings} {read}/{} |",
        right as f64 / derived.len().max(1) as f64,
        derived.len(),
        right as f64 / wanted.len().max(1) as f64,
        wanted.len(),
        removals.len()
    );
    (row, misses, (read, removals.len()))
}

/// One precision-trap set's table row (precision, recall, false positives by kind), its
/// misses, and how many logs it holds. Checks that its labels are well-formed first.
fn precision_trap_scores(dir: &Path, model: Option<&Path>) -> (String, Vec<String>, usize) {
    let labels: TrapLabels = toml::from_str(&std::fs::read_to_string(dir.join("labels.toml")).unwrap()).unwrap();
    let registry = std::fs::read_to_string(shared_data().join("patina-registry.yaml")).unwrap();
    let mut sessions: Vec<&str> = labels.edge.iter().chain(&labels.non_edge).map(|l| l.session.as_str()).collect();
    sessions.sort();
    sessions.dedup();
    // The labels are data: each names a real log, a line inside it and a registry id,
    // and each edge a routable type, each non-edge a kind.
    for l in labels.edge.iter().chain(&labels.non_edge) {
        let text = std::fs::read_to_string(dir.join(&l.session)).unwrap_or_else(|e| panic!("{}: {e}", l.session));
        assert!(l.line >= 1 && l.line <= text.lines().count(), "{}:{}", l.session, l.line);
        let id = format!("id: {}", l.to);
        assert!(registry.lines().any(|line| line.trim().trim_start_matches("- ") == id), "not a registry id: {}", l.to);
        assert!(l.edge_type.is_some() != l.kind.is_some(), "{}:{} {}", l.session, l.line, l.to);
    }
    assert!(
        labels.edge.iter().all(|l| ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&l.edge_type.as_deref().unwrap()))
    );
    let (mut tp, mut fp, mut found) = (0, 0, 0);
    let mut by_kind: std::collections::BTreeMap<String, usize> = Default::default();
    let mut misses = Vec::new();
    for session in &sessions {
        let (home, files) = logs_home(dir, |name| name == *session, model);
        assert_eq!(files, 1, "{session}");
        let derived: Vec<_> = edges(&home)
            .into_iter()
            .filter(|e| e.0 == "patina" && ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&e.1.as_str()))
            .collect();
        let wanted: Vec<&TrapLabel> = labels.edge.iter().filter(|l| &l.session == session).collect();
        for e in &derived {
            if wanted.iter().any(|l| l.edge_type.as_deref() == Some(e.1.as_str()) && l.to == e.2) {
                tp += 1;
                continue;
            }
            fp += 1;
            let kind = labels
                .non_edge
                .iter()
                .find(|l| &l.session == session && l.to == e.2)
                .and_then(|l| l.kind.clone())
                .unwrap_or_else(|| if wanted.iter().any(|l| l.to == e.2) { "wrong type" } else { "unlabelled" }.into());
            misses.push(format!("false positive: {session} patina {} {} ({kind})", e.1, e.2));
            *by_kind.entry(kind).or_default() += 1;
        }
        for l in &wanted {
            if has(&derived, "patina", l.edge_type.as_deref().unwrap(), &l.to) {
                found += 1;
            } else {
                misses.push(format!(
                    "missed: {session}:{} patina {} {}",
                    l.line,
                    l.edge_type.as_deref().unwrap(),
                    l.to
                ));
            }
        }
    }
    let row = format!(
        "{:.2} ({tp}/{}) | {:.2} ({found}/{}) | {by_kind:?} |",
        tp as f64 / (tp + fp).max(1) as f64,
        tp + fp,
        found as f64 / labels.edge.len().max(1) as f64,
        labels.edge.len()
    );
    (row, misses, sessions.len())
}

/// Styles of later work, on the blind logs of `eval/precision-traps-3` (each derived
/// alone): a bench table pasted from the tool's output tests each repo on it, and a pasted
/// `repo list` or search listing tests none; the project's command given a repo path runs
/// on it; a changelog's "Removed" section, a question answered "no", someone else's setup
/// and "adopted X's approach" each say what they say.
#[test]
fn pasted_output_changelogs_and_other_parties_on_blind_logs() {
    let derived = |session: &str| trap_log_edges("eval/precision-traps-3", session);
    let bench = derived("20260202-091504.md");
    for repo in ["dojo", "SDL", "duckdb", "loro"] {
        assert!(has(&bench, "patina", "TESTS_WITH", repo), "{repo}: {bench:?}");
    }
    for repo in ["gastown", "humanlayer", "cuti"] {
        assert!(!bench.iter().any(|e| e.2 == repo), "{repo} is only in `repo list`: {bench:?}");
    }
    let hybrid = derived("20260206-192045.md");
    assert!(has(&hybrid, "patina", "LEARNS_FROM", "openclaw"), "{hybrid:?}");
    for repo in ["livestore", "humanlayer", "daydreams", "cortex", "memista"] {
        assert!(!hybrid.iter().any(|e| e.2 == repo), "{repo} is only a search hit: {hybrid:?}");
    }
    let release = derived("20260212-171000.md");
    assert!(has(&release, "patina", "USES", "USearch"), "{release:?}");
    assert!(!release.iter().any(|e| e.2 == "duckdb"), "a removed backend: {release:?}");
    let report = derived("20260213-094412.md");
    assert!(has(&report, "patina", "TESTS_WITH", "death-mountain"), "{report:?}");
    for repo in ["dojo", "livestore", "starknet-foundry"] {
        assert!(!report.iter().any(|e| e.2 == repo), "{repo} is the reporter's: {report:?}");
    }
    let wrap_up = derived("20260227-163050.md");
    assert!(has(&wrap_up, "patina", "TESTS_WITH", "codex"), "{wrap_up:?}");
    assert!(!wrap_up.iter().any(|e| e.2 == "turso"), "asked and answered no: {wrap_up:?}");
}

/// The real logs' own later style, on the blind logs of `eval/precision-traps-4` (each
/// derived alone): a pasted `Cargo.toml` line declares a dependency and "Removed
/// `x = "0.9"` from Cargo.toml" ends one; a results table's recall-at-k columns and
/// pass/fail marks are a run's results; reading a repo's index file (`opencode.db`) runs
/// nothing; an open task, a hypothetical entry and "no reason to re-run" are no runs.
#[test]
fn dependency_lines_index_files_and_open_tasks_on_blind_logs() {
    let derived = |session: &str| trap_log_edges("eval/precision-traps-4", session);
    let bump = derived("20260302-064118.md");
    assert!(has(&bump, "patina", "USES", "USearch"), "`usearch = \"2.17.0\"`: {bump:?}");
    for repo in ["loro", "opencode"] {
        assert!(has(&bump, "patina", "TESTS_WITH", repo), "a row under `Hybrid R@10`: {repo}: {bump:?}");
    }
    let swap = derived("20260311-083455.md");
    assert!(!swap.iter().any(|e| e.1 == "USES" && e.2 == "scryer-prolog"), "removed from Cargo.toml: {swap:?}");
    let sweep = derived("20260313-064402.md");
    assert!(has(&sweep, "patina", "TESTS_WITH", "daydreams"), "a row marked ❌: {sweep:?}");
    let stale = derived("20260306-191045.md");
    assert!(!stale.iter().any(|e| e.2 == "duckdb"), "only `duckdb.db` read again: {stale:?}");
    assert!(!stale.iter().any(|e| e.2 == "cortex"), "no reason to re-run it: {stale:?}");
    let reread = derived("20260323-070015.md");
    assert!(!reread.iter().any(|e| e.2 == "opencode"), "only `opencode.db` queried: {reread:?}");
    let adapter = derived("20260310-160733.md");
    assert!(has(&adapter, "patina", "LEARNS_FROM", "opencode"), "{adapter:?}");
    assert!(!adapter.iter().any(|e| e.1 == "USES"), "`- [ ] Prototype …` is not done: {adapter:?}");
    let names = derived("20260325-081133.md");
    assert!(!names.iter().any(|e| e.2 == "codex-autorunner"), "a hypothetical registry entry: {names:?}");
}

/// An ordinary month's shapes, on the blind logs of `eval/precision-traps-27` (each derived
/// alone, stop 52): a run's count straight after the name ("gemini-cli 1,904 files"), a
/// Rust path to a crate's type (`turso::Builder`), a Cargo.lock entry in a diff, a heading
/// that is only "Next" or "Later" over plans, and a run that skipped repos "because they
/// aren't cloned on this laptop".
#[test]
fn counts_rust_paths_lock_entries_and_plan_headings_on_blind_logs() {
    let derived = |session: &str| trap_log_edges("eval/precision-traps-27", session);
    let sanity = derived("20280408-055848.md");
    assert!(has(&sanity, "patina", "TESTS_WITH", "gemini-cli"), "{sanity:?}");
    let loader = derived("20280404-092747.md");
    assert!(has(&loader, "patina", "USES", "turso"), "`turso::Builder::new_local`: {loader:?}");
    let bump = derived("20280430-174905.md");
    assert!(has(&bump, "patina", "USES", "USearch"), "` name = \"usearch\"` in a lock diff: {bump:?}");
    let next = derived("20280402-141205.md");
    assert!(!next.iter().any(|e| e.2 == "loro"), "an item under `### 15:52 - Next`: {next:?}");
    let later = derived("20280424-211840.md");
    assert!(!later.iter().any(|e| e.2 == "humanlayer"), "an item under `### 23:15 - Later`: {later:?}");
    let skipped = derived("20280412-164410.md");
    for repo in ["dust", "kit"] {
        assert!(!skipped.iter().any(|e| e.2 == repo), "{repo} was skipped by the run: {skipped:?}");
    }
    assert!(has(&skipped, "patina", "TESTS_WITH", "codex"), "a results table's row: {skipped:?}");
}

/// An ordinary month's run output, on the blind logs of `eval/precision-traps-29` (each
/// derived alone, stop 53): a retrieval score right after the repo ("[1/1] SDL  queries ✓
/// q r@5 0.65", "livestore rerun after #228: r@10 0.73 → 0.87"), a Rust use list (`use
/// usearch::{Index, …}`), and "Analysed livestore misses", which read the project's run,
/// not livestore's design; and two studies of set 24's.
#[test]
fn retrieval_scores_use_lists_and_studied_misses_on_blind_logs() {
    let derived = |session: &str| trap_log_edges("eval/precision-traps-29", session);
    let quantized = derived("20280619-063300.md");
    assert!(has(&quantized, "patina", "TESTS_WITH", "SDL"), "`[1/1] SDL  queries ✓   q r@5 0.65`: {quantized:?}");
    let rerun = derived("20280624-082659.md");
    assert!(has(&rerun, "patina", "TESTS_WITH", "livestore"), "`livestore rerun … r@10 0.73 → 0.87`: {rerun:?}");
    let wiring = derived("20280601-071412.md");
    assert!(has(&wiring, "patina", "USES", "USearch"), "`use usearch::{{Index, …}};`: {wiring:?}");
    let misses = derived("20280612-070402.md");
    assert!(has(&misses, "patina", "TESTS_WITH", "livestore"), "{misses:?}");
    assert!(!has(&misses, "patina", "LEARNS_FROM", "livestore"), "\"Analysed livestore misses\": {misses:?}");
    // Set 24: "Went into unum-cloud/usearch itself: …", and a design's origin that a
    // rejection in the next clause ("and it has nothing to do with …") leaves standing.
    let went_into = trap_log_edges("eval/precision-traps-24", "20280104-201830.md");
    assert!(has(&went_into, "patina", "LEARNS_FROM", "USearch"), "{went_into:?}");
    let origin = trap_log_edges("eval/precision-traps-24", "20280127-183310.md");
    assert!(has(&origin, "patina", "LEARNS_FROM", "gemini-cli"), "{origin:?}");
}

/// Stop 54, three authors' blind logs: the project's command run in a repo's folder after
/// a `cd` into it (`$ cd fixtures/death-mountain && patina yolo up`; `$ cd
/// ~/src/death-mountain && git remote -v`, then `$ patina init .`) tests the repo; `cd`
/// and other tools (`devcontainer up`, set 11) add nothing to what the log says.
#[test]
fn the_projects_command_after_a_cd_into_a_repo_on_blind_logs() {
    for (set, session) in [
        ("eval/precision-traps-13", "20261207-081122.md"),
        ("eval/precision-traps-21", "20270827-063005.md"),
        ("eval/precision-traps-29", "20280620-110842.md"),
    ] {
        let derived = trap_log_edges(set, session);
        assert!(has(&derived, "patina", "TESTS_WITH", "death-mountain"), "{set}/{session}: {derived:?}");
        assert!(!has(&derived, "patina", "USES", "death-mountain"), "{set}/{session}: {derived:?}");
    }
}

/// Stop 55, on the blind logs of two ordinary months (sets 31 and 33, each log alone): a
/// repo flag given a checkout's path runs on the repo, cargo's build output and a crate's
/// name as Rust code writes it name dependencies, time spent in a repo's code studies it,
/// a run's score makes an ambiguous name a repo, and a note's items are not the bump
/// written in the sentence before its lead-in.
#[test]
fn checkout_paths_build_output_scores_and_studies_on_blind_logs() {
    let derived = |set: &str, session: &str| trap_log_edges(set, session);
    let gastown = derived("eval/precision-traps-31", "20280822-084455.md");
    assert!(has(&gastown, "patina", "TESTS_WITH", "gastown"), "{gastown:?}");
    let release = derived("eval/precision-traps-31", "20280828-101510.md");
    assert!(has(&release, "patina", "USES", "USearch"), "{release:?}");
    let rules = derived("eval/precision-traps-31", "20280825-162030.md");
    assert!(has(&rules, "patina", "USES", "scryer-prolog"), "{rules:?}");
    let storage = derived("eval/precision-traps-31", "20280801-081512.md");
    assert!(!has(&storage, "patina", "USES", "turso"), "a candidate in a note: {storage:?}");
    let baselines = derived("eval/precision-traps-33", "20281001-071204.md");
    for repo in ["dojo", "loro", "game-engine"] {
        assert!(has(&baselines, "patina", "TESTS_WITH", repo), "{repo}: {baselines:?}");
    }
    let study = derived("eval/precision-traps-33", "20281010-082455.md");
    assert!(has(&study, "patina", "LEARNS_FROM", "livestore"), "{study:?}");
    let adapter = derived("eval/precision-traps-33", "20281006-201145.md");
    assert!(!has(&adapter, "patina", "TESTS_WITH", "opencode"), "`opencode run` waits on stdin: {adapter:?}");
}

/// The patina USES / LEARNS_FROM / TESTS_WITH edges of one blind trap log derived alone
/// (with the model's exemplars when it is there).
fn trap_log_edges(set: &str, session: &str) -> Vec<(String, String, String, f64)> {
    let (home, files) = logs_home(&root().join(set), |name| name == session, util::model_dir().as_deref());
    assert_eq!(files, 1);
    let evidenced = |t: &str| ["USES", "LEARNS_FROM", "TESTS_WITH"].contains(&t);
    edges(&home).into_iter().filter(|e| e.0 == "patina" && evidenced(&e.1)).collect()
}
