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
        3 * report["summary"][0]["queries"].as_u64().unwrap() as usize
    );
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
    let home = Home::new();
    // The real registry, with small stand-in trees for patina, dojo and SDL.
    let trees = home.path().join("trees");
    for (id, file, text) in [
        ("patina", "src/graph.rs", "/// Derives the graph from events.\npub fn derive() {}\n"),
        (
            "dojo",
            "crates/dojo-core/src/world.cairo",
            "// The world contract stores every model (ECS component) by entity id.\nfn set_entity() {}\n",
        ),
        ("SDL", "src/video/SDL_video.c", "/* Create a window. */\nint SDL_CreateWindow(void) { return 0; }\n"),
    ] {
        let path = trees.join(id).join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let registry = std::fs::read_to_string(shared_data().join("patina-registry.yaml")).unwrap();
    let registry = registry
        .replace("path: ~/projects/patina", &format!("path: {}", trees.join("patina").display()))
        .replace(
            "  - id: dojo\n    kind: reference\n",
            &format!("  - id: dojo\n    kind: reference\n    path: {}\n", trees.join("dojo").display()),
        )
        .replace(
            "  - id: SDL\n    kind: reference\n",
            &format!("  - id: SDL\n    kind: reference\n    path: {}\n", trees.join("SDL").display()),
        );
    let registry_path = home.path().join("registry.yaml");
    std::fs::write(&registry_path, registry).unwrap();
    home.ok(&["mother", "sync"]);
    home.ok(&["mother", "ingest", shared_data().join("patina-sessions").to_str().unwrap(), "--project", "patina"]);
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
