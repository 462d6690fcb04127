//! Routed `scry` and `patina bench retrieval` on the example world and on the real
//! registry and session logs.

mod util;

use serde_json::Value;
use util::{Home, example_world, root, shared_data};

fn models_env(cmd: &mut std::process::Command) {
    cmd.env("PATINA_MODELS", root().join("target/patina-models"));
}

fn searched(result: &Value) -> Vec<String> {
    result["route"]["searched"].as_array().unwrap().iter().map(|r| r["repo"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_query_naming_a_repo_searches_the_project_and_that_repo_only() {
    let home = example_world();
    let result = home.json(&["scry", "how does ecsdemo store components", "--project", "atlas", "--lexical-only"]);
    assert_eq!(searched(&result), vec!["atlas", "ecsdemo"]);
    let skipped = result["route"]["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["repo"] == "vectorlite" && s["reason"].as_str().unwrap().contains("names other repos"))
    );
    // Every result says where it came from and why.
    for (hit, prov) in result["hits"].as_array().unwrap().iter().zip(result["provenance"].as_array().unwrap()) {
        let prov = prov.as_str().unwrap();
        assert!(prov.starts_with(&format!("[{}:", hit["repo"].as_str().unwrap())), "{prov}");
        if hit["repo"] == "ecsdemo" {
            assert!(prov.contains("via atlas LEARNS_FROM ecsdemo"), "{prov}");
        }
    }
    let text = home.ok(&[
        "scry",
        "how does ecsdemo store components",
        "--project",
        "atlas",
        "--lexical-only",
        "--explain-route",
    ]);
    assert!(text.contains("searched  ecsdemo") && text.contains("skipped   quickparse"), "{text}");
    assert!(
        text.contains("[ecsdemo:lexical]") && text.contains("↳ named in the query; via atlas LEARNS_FROM ecsdemo"),
        "{text}"
    );
}

#[test]
fn graph_routing_narrows_connected_repos_by_relevance_and_all_repos_does_not() {
    let home = example_world();
    let routed = home.json(&["scry", "parser combinator for identifiers", "--project", "atlas", "--lexical-only"]);
    assert_eq!(searched(&routed), vec!["atlas", "quickparse"]);
    assert_eq!(routed["hits"][0]["repo"], "quickparse");
    let all = home.json(&[
        "scry",
        "parser combinator for identifiers",
        "--project",
        "atlas",
        "--lexical-only",
        "--all-repos",
    ]);
    assert_eq!(searched(&all).len(), 4);
    // No project and no --repo: a clear error, not brute force.
    let err = home.fails(&["scry", "parser", "--lexical-only"]);
    assert!(err.contains("--project"), "{err}");
}

#[test]
fn feedback_moves_the_route_weight_and_explain_shows_it() {
    let home = example_world();
    let before = home.json(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"])["weight"].as_f64().unwrap();
    let result = home.json(&["scry", "parser combinator for identifiers", "--project", "atlas", "--lexical-only"]);
    let qid = result["query_id"].as_str().unwrap();
    let rank = result["hits"].as_array().unwrap().iter().position(|h| h["repo"] == "quickparse").unwrap() + 1;
    let recorded = home.json(&["scry", "--not-useful", qid, &rank.to_string()]);
    assert_eq!(recorded["repo"], "quickparse");
    assert_eq!(recorded["project"], "atlas");
    let after = home.json(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]);
    assert!(after["weight"].as_f64().unwrap() < before, "{before} → {}", after["weight"]);
    assert_eq!(after["feedback"]["not_useful"], 1);
    let events = home.json(&["mother", "log", "--kind", "route-feedback"]);
    assert_eq!(events[0]["payload"]["query_id"], qid);
    let err = home.fails(&["scry", "--useful", qid, "99"]);
    assert!(err.contains("rank 99"), "{err}");
    let err = home.fails(&["scry", "--useful", "q999", "1"]);
    assert!(err.contains("unknown query id 'q999'"), "{err}");
}

#[test]
fn bench_retrieval_compares_graph_all_and_oracle() {
    let home = example_world();
    let queries = root().join("tests/data/example-routing-queries.json");
    let mut cmd = home.cmd(&["bench", "retrieval", "-q", queries.to_str().unwrap(), "--lexical-only", "--json"]);
    models_env(&mut cmd);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary =
        |routing: &str| report["summary"].as_array().unwrap().iter().find(|s| s["routing"] == routing).unwrap().clone();
    let (graph, all, oracle) = (summary("graph"), summary("all"), summary("oracle"));
    assert_eq!(oracle["repo_recall"]["5"], 1.0);
    assert_eq!(oracle["waste"], 0.0);
    assert!(graph["waste"].as_f64().unwrap() < all["waste"].as_f64().unwrap());
    assert!(graph["repo_recall"]["5"].as_f64().unwrap() >= 0.9, "{graph}");
    assert_eq!(
        report["queries"].as_array().unwrap().len(),
        4 * report["summary"][0]["queries"].as_u64().unwrap() as usize,
        "graph, all, oracle and the bm25-all baseline"
    );
    let bm25 = summary("bm25-all");
    assert_eq!(bm25["waste"], all["waste"], "the baseline searches every repo");
    // Every row carries its ranked results, so an outside script can recompute the metrics.
    for row in report["queries"].as_array().unwrap() {
        let results = row["results"].as_array().unwrap();
        let top: Vec<&str> = results.iter().map(|r| r["repo"].as_str().unwrap()).collect();
        let listed: Vec<&str> = row["top_repos"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert_eq!(top, listed, "{row}");
        assert!(results.iter().enumerate().all(|(i, r)| r["rank"] == i + 1 && r["path"].is_string()), "{row}");
        if row["routing"] != "bm25-all" && !results.is_empty() {
            assert!(results[0]["start_line"].as_u64().unwrap() >= 1, "{row}");
        }
    }
    // The run is recorded, and it makes no edge.
    let runs = home.json(&["mother", "log", "--kind", "bench-run"]);
    let last = runs.as_array().unwrap().last().unwrap();
    assert!(last["payload"]["suite"].as_str().unwrap().starts_with("retrieval example-routing"), "{last}");
    assert_eq!(last["payload"]["repo"], "atlas");
    let edges = home.json(&["mother", "graph"]);
    assert!(!edges.as_array().unwrap().iter().any(|e| e["from"] == "atlas" && e["to"] == "atlas"));
}

#[test]
fn real_world_dojo_query_routes_to_patina_and_dojo_only() {
    // The real registry and session logs, with small stand-in trees for patina, dojo and SDL.
    let home = real_world_with_trees(&[
        ("patina", "src/graph.rs", "/// Derives the graph from events.\npub fn derive() {}\n"),
        (
            "dojo",
            "crates/dojo-core/src/world.cairo",
            "// The world contract stores every model (ECS component) by entity id.\nfn set_entity() {}\n",
        ),
        ("SDL", "src/video/SDL_video.c", "/* Create a window. */\nint SDL_CreateWindow(void) { return 0; }\n"),
    ]);
    for id in ["patina", "dojo", "SDL"] {
        home.ok(&["repo", "add", id, "--lexical-only"]);
    }
    let text = home.ok(&[
        "scry",
        "how does dojo handle ECS world storage",
        "--project",
        "patina",
        "--lexical-only",
        "--explain-route",
    ]);
    assert!(text.contains("in patina, dojo "), "{text}");
    assert!(text.contains("searched  dojo") && text.contains("via patina TESTS_WITH dojo"), "{text}");
    let sdl = text.lines().find(|l| l.contains("skipped   SDL")).unwrap_or_else(|| panic!("{text}"));
    assert!(sdl.contains("not relevant to the query (relevance"), "SDL is skipped with its reason: {text}");
    assert!(text.contains("[dojo:lexical]  crates/dojo-core/src/world.cairo"), "{text}");
    // Without naming a repo, the C question routes to SDL through its TESTS_WITH edge.
    let c = home.json(&[
        "scry",
        "C parser symbol extraction large codebase window",
        "--project",
        "patina",
        "--lexical-only",
    ]);
    assert!(searched(&c).contains(&"SDL".to_string()), "{c}");
}

/// A home with the real registry and session logs ingested, each repo of `files`
/// (`(repo, path, text)`) registered at a small stand-in tree holding those files.
fn real_world_with_trees(files: &[(&str, &str, &str)]) -> Home {
    let home = Home::new();
    let trees = home.path().join("trees");
    for (id, file, text) in files {
        let path = trees.join(id).join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut registry = std::fs::read_to_string(shared_data().join("patina-registry.yaml")).unwrap();
    let ids: std::collections::BTreeSet<&str> = files.iter().map(|(id, _, _)| *id).collect();
    for id in ids {
        let path = trees.join(id).display().to_string();
        if id == "patina" {
            registry = registry.replace("path: ~/projects/patina", &format!("path: {path}"));
            continue;
        }
        let entry = format!("  - id: {id}\n    kind: reference\n");
        assert!(registry.contains(&entry), "the registry's {id} entry");
        registry = registry.replace(&entry, &format!("{entry}    path: {path}\n"));
    }
    std::fs::write(home.path().join("registry.yaml"), registry).unwrap();
    home.ok(&["mother", "sync"]);
    home.ok(&["mother", "ingest", shared_data().join("patina-sessions").to_str().unwrap(), "--project", "patina"]);
    home
}

/// Runs `patina ARGS --json` with the real model (when fetched) and returns the answer.
fn json_with_model(home: &Home, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let mut cmd = home.cmd(&all);
    models_env(&mut cmd);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn hit_files(result: &Value) -> Vec<(String, String)> {
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["repo"].as_str().unwrap().to_string(), h["path"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn scores_compare_across_repos_so_a_weak_best_hit_does_not_tie_a_strong_one() {
    // gamma's best file for the query is a weak match; beta's is the answer. Ranked per
    // repo and interleaved, gamma's rank 1 would sit beside beta's; scored together it
    // falls below it, and below beta's other relevant file too.
    let home = Home::new();
    let trees = home.path().join("trees");
    let files: &[(&str, &str, &str)] = &[
        (
            "beta",
            "src/hnsw.rs",
            "//! HNSW: approximate nearest-neighbour search over embedding vectors.\n\n/// Finds the k closest embeddings to a query point: greedy descent through the\n/// layers, then a best-first search of the bottom layer by cosine distance.\npub fn search_nearest(index: &Hnsw, query: &[f32], k: usize) -> Vec<(usize, f32)> {\n    let entry = index.greedy_descent(query);\n    index.best_first(entry, query, k)\n}\n",
        ),
        (
            "beta",
            "src/distance.rs",
            "/// Cosine distance between two embedding vectors.\npub fn cosine(a: &[f32], b: &[f32]) -> f32 {\n    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();\n    1.0 - dot\n}\n",
        ),
        (
            "beta",
            "src/io.rs",
            "/// Saves the graph to disk.\npub fn save(path: &str) -> std::io::Result<()> {\n    Ok(())\n}\n",
        ),
        (
            "gamma",
            "src/machine.rs",
            "/// The abstract machine: runs a goal until the first solution; a choice point\n/// is the closest backtracking frame.\npub fn run(goal: &Goal) -> Option<Answer> {\n    let mut frames = Vec::new();\n    frames.push(goal.clone());\n    None\n}\n",
        ),
        (
            "gamma",
            "src/parser.rs",
            "/// Parses clauses and terms.\npub fn parse(text: &str) -> Vec<Clause> {\n    Vec::new()\n}\n",
        ),
    ];
    for (repo, path, text) in files {
        let path = trees.join(repo).join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    for repo in ["gamma", "beta"] {
        let mut cmd = home.cmd(&["repo", "add", trees.join(repo).to_str().unwrap(), "--wait"]);
        models_env(&mut cmd);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
    }
    let result = json_with_model(
        &home,
        &["scry", "find the closest embeddings to a query point", "--repo", "gamma", "--repo", "beta"],
    );
    let files = hit_files(&result);
    assert_eq!(files[0], ("beta".to_string(), "src/hnsw.rs".to_string()), "{files:?}");
    let gamma = files.iter().position(|(r, _)| r == "gamma");
    let distance = files.iter().position(|f| f.1 == "src/distance.rs");
    if let Some(g) = gamma {
        assert!(distance.is_some_and(|d| d < g), "beta's other relevant file ranks above gamma's best: {files:?}");
    }
    // One result per file.
    let mut unique = files.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), files.len(), "{files:?}");
    if std::env::var("CI").is_ok() {
        assert_eq!(result["channels"], "fused", "CI has the model: {result}");
    }
}

#[test]
fn a_named_repo_leads_unless_the_local_project_scores_clearly_higher() {
    let home = example_world();
    // The query names ecsdemo: its files come first.
    let named = home.json(&["scry", "how does ecsdemo store components", "--project", "atlas", "--lexical-only"]);
    assert_eq!(named["hits"][0]["repo"], "ecsdemo", "{named}");
    let priors: Vec<(String, f64)> = named["route"]["searched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["repo"].as_str().unwrap().to_string(), r["prior"].as_f64().unwrap()))
        .collect();
    assert!(
        priors.iter().any(|(r, p)| r == "ecsdemo" && *p > 1.0) && priors.iter().any(|(r, p)| r == "atlas" && *p == 1.0)
    );
    // It names quickparse, but asks about atlas's own inverted index: atlas's file wins on score.
    let local = home.json(&[
        "scry",
        "quickparse words inverted index postings scored with TF-IDF",
        "--project",
        "atlas",
        "--lexical-only",
    ]);
    assert_eq!(searched(&local)[..2], ["atlas", "quickparse"]);
    assert_eq!(
        (local["hits"][0]["repo"].as_str(), local["hits"][0]["path"].as_str()),
        (Some("atlas"), Some("src/index.rs")),
        "{local}"
    );
}

#[test]
fn the_query_path_routes_on_the_stored_graph_and_never_derives() {
    use patina::event::log::{EventLog, NewEvent};
    use patina::event::{EdgeType, Event, LinkAdded, Source};
    use patina::store::{OpenOptions, Store};

    let home = example_world();
    let store = Store::open(&home.store_path(), &OpenOptions::default(), |_| {}).unwrap();
    // The log moves past the stored graph (as when a writer was killed before deriving).
    let link = Event::LinkAdded(LinkAdded {
        from: "atlas".into(),
        edge_type: EdgeType::Uses,
        to: "vectorlite".into(),
        evidence: Some("by hand".into()),
        weight: None,
    });
    EventLog::new(&store).append([NewEvent::new(Source::Cli, link)]).unwrap();
    let stamp = patina::graph::store::stamp(&store).unwrap();
    let last = EventLog::new(&store).last_seq().unwrap();
    assert!(stamp.unwrap().0 < last.unwrap(), "the graph is behind the log");

    let patina_home = patina::home::PatinaHome::at(home.path());
    let mut searcher = patina::search::Searcher::lexical_only(&patina_home);
    let choice = patina::scry::RouteChoice { project: Some("atlas".into()), ..Default::default() };
    let (world, choice) =
        patina::scry::World::for_query(&store, &patina_home, choice, std::path::Path::new("/")).unwrap();
    let mut query = patina::scry::Query::new("cosine similarity of two vectors", choice, 5);
    query.record = false;
    let found = patina::scry::run(&patina_home, &mut searcher, &world, &query).unwrap();
    assert!(!found.result.hits.is_empty());
    assert_eq!(patina::graph::store::stamp(&store).unwrap(), stamp, "the query derived nothing");
    assert_eq!(EventLog::new(&store).last_seq().unwrap(), last, "and appended nothing");
}

#[test]
fn a_damaged_index_is_left_out_of_a_search_over_several_repos_with_a_warning() {
    let home = example_world();
    let repo_dir = home.path().join("repos").join("ecsdemo");
    let generation = std::fs::read_to_string(repo_dir.join("current")).unwrap();
    std::fs::write(repo_dir.join(generation.trim()).join("chunks.redb"), b"damaged").unwrap();
    let out = home.cmd(&["scry", "parser combinator", "--all-repos", "--lexical-only", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let err = util::stderr(&out);
    assert!(err.contains("ecsdemo left out") && err.contains("repo update ecsdemo"), "{err}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["hits"][0]["repo"], "quickparse", "{result}");
    // Alone, its damage is the answer.
    let err = home.fails(&["scry", "parser combinator", "--repo", "ecsdemo", "--lexical-only"]);
    assert!(err.contains("unreadable") && err.contains("repo update ecsdemo"), "{err}");
}

/// Runs `patina ARGS` with the real model and returns its stdout.
fn ok_with_model(home: &Home, args: &[&str]) -> String {
    let mut cmd = home.cmd(args);
    models_env(&mut cmd);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", util::stderr(&out));
    util::stdout(&out)
}

/// With the model: [`real_world_with_trees`] with the repos `embed` indexed and embedded
/// (`repo add --wait`). `None` without the model.
fn embedded_real_world(files: &[(&str, &str, &str)], embed: &[&str]) -> Option<Home> {
    util::model_dir()?;
    let home = real_world_with_trees(files);
    for id in embed {
        ok_with_model(&home, &["repo", "add", id, "--wait"]);
    }
    Some(home)
}

/// Why the route searched or skipped `repo`.
fn reason_of<'a>(result: &'a Value, repo: &str) -> &'a str {
    let route = &result["route"];
    ["searched", "skipped"]
        .iter()
        .flat_map(|k| route[*k].as_array().unwrap())
        .find(|r| r["repo"] == repo)
        .and_then(|r| r["reason"].as_str())
        .unwrap_or_else(|| panic!("{repo} not in the route: {route}"))
}

/// A routed repo's content score in the route's reasons, and whether it was judged by
/// meaning ("content 0.83 (by meaning)").
fn content_of(result: &Value, repo: &str) -> (f64, bool) {
    let reason = reason_of(result, repo);
    let at = reason.find("content ").unwrap_or_else(|| panic!("no content score for {repo}: {reason}"));
    let rest = &reason[at + "content ".len()..];
    let number: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (number.parse().unwrap(), rest[number.len()..].starts_with(" (by meaning)"))
}

/// With the model and every repo embedded, routing judges a query's content in each repo
/// by meaning (its nearest chunk vectors), so the repo that says it in other words leads
/// and the one that shares only its words does not. While one repo has no vectors,
/// content is judged by words for all: no repo is outranked for want of vectors.
#[test]
fn routing_judges_content_by_meaning_when_every_repo_is_embedded() {
    let Some(home) = embedded_real_world(
        &[
            ("patina", "src/graph.rs", "/// Derives the graph from events.\npub fn derive() {}\n"),
            (
                "livestore",
                "docs/syncing.md",
                "# Syncing\n\nEvery client keeps working while disconnected and records each change it makes as an \
             event. On reconnecting it pushes its pending events to the sync backend and pulls the ones it \
             missed; when two clients changed the same document concurrently, the local events are rebased on \
             top of the remote ones, so every client converges on the same state.\n",
            ),
            (
                "livestore",
                "docs/offline.md",
                "# Offline support\n\nThe app stays usable without a network: every write is queued locally and \
             merged with the writes of other devices once the connection returns.\n",
            ),
            (
                "duckdb",
                "docs/server.md",
                "# Query server\n\nThe server answers the SQL of each client; it keeps a history of the queries \
             each client edited and ran on the server.\n",
            ),
            (
                "duckdb",
                "src/aggregate.cpp",
                "// Hash aggregate: groups rows by key and sums each column vector.\nvoid HashAggregate(DataChunk &chunk) {}\n",
            ),
            ("SDL", "src/video/SDL_video.c", "/* Create a window. */\nint SDL_CreateWindow(void) { return 0; }\n"),
            (
                "dojo",
                "crates/dojo-core/src/world.cairo",
                "// The world contract stores every model.\nfn set_entity() {}\n",
            ),
        ],
        &["patina", "livestore", "duckdb", "SDL"],
    ) else {
        return;
    };
    let query = "how do clients that were offline reconcile their edits with the server?";
    let args = ["scry", query, "--project", "patina"];

    let routed = json_with_model(&home, &args);
    let (livestore, meaning) = content_of(&routed, "livestore");
    assert!(meaning, "every repo is embedded: content by meaning: {routed}");
    assert_eq!(livestore, 1.0, "livestore says it in other words and leads by meaning: {routed}");
    let (duckdb, _) = content_of(&routed, "duckdb");
    assert!(duckdb < livestore, "duckdb shares the words only: {routed}");
    assert!(searched(&routed).contains(&"livestore".to_string()), "{routed}");

    // One repo without vectors: content by words for every repo.
    ok_with_model(&home, &["repo", "add", "dojo", "--lexical-only"]);
    let routed = json_with_model(&home, &args);
    for repo in ["livestore", "duckdb"] {
        let (_, meaning) = content_of(&routed, repo);
        assert!(!meaning, "dojo has no vectors: {repo}'s content is judged by words: {routed}");
    }
}

/// With the model, a repo whose registry entry is alike a neighbour's is two hops away:
/// the real registry's openclaw ("personal AI assistant … agent … skills") is alike
/// gemini-cli ("terminal AI agent … skills"), which the real logs test with, and the query's
/// answer is in openclaw alone. Its content admits it; the route says by which path.
#[test]
fn a_repo_alike_a_neighbour_is_searched_when_its_content_agrees() {
    let Some(home) = embedded_real_world(
        &[
            ("patina", "src/graph.rs", "/// Derives the graph from events.\npub fn derive() {}\n"),
            (
                "gemini-cli",
                "docs/hooks.md",
                "# Hooks\n\nA BeforeTool hook runs before each tool call and may block it or rewrite its arguments.\n",
            ),
            (
                "openclaw",
                "docs/concepts/compaction.md",
                "# Compaction\n\nWhen a conversation nears the model's context window, older turns are summarised into \
             one compact entry and the recent messages are kept as they were.\n",
            ),
        ],
        &["patina", "gemini-cli", "openclaw"],
    ) else {
        return;
    };
    let query = "summarizing older conversation turns once the chat approaches the context window limit";
    let routed = json_with_model(&home, &["scry", query, "--project", "patina"]);
    assert!(searched(&routed).contains(&"openclaw".to_string()), "{routed}");
    let reason = reason_of(&routed, "openclaw");
    assert!(
        reason.starts_with("2 hops: patina TESTS_WITH gemini-cli")
            && reason.contains("gemini-cli and openclaw are alike"),
        "{reason}"
    );
    // Lexical only, there is no likeness: openclaw has no edge, no shared domain, and
    // the query does not describe its entry.
    let mut cmd = home.cmd(&["scry", query, "--project", "patina", "--lexical-only", "--json"]);
    models_env(&mut cmd);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let routed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reason = reason_of(&routed, "openclaw");
    assert!(!reason.contains("are alike"), "{reason}");
}
