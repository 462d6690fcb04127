//! `scry --persona`: local first, the mother when local is weak, tags and adoptability;
//! the same answer through the daemon's `/persona/query`.

mod util;

use serde_json::Value;
use util::{Home, example_world};

const PROJECT_BELIEF: &str = "---\ntype: belief\nid: columnar-index\nfacets: [storage, index]\n---\n# Columnar index\n\n\
The note index stores one column per field.\n\n## Statement\n\nStore the note index as columns, one column per field, rebuilt from the notes.\n";
const NEGATING: &str = "---\ntype: belief\nid: row-index\nfacets: [storage]\n---\n# Row index\n\n\
Do not store the note index as columns.\n\n## Statement\n\nDo not store the note index as columns, one column per field; rebuild from the notes.\n";
const AGREEING: &str = "---\ntype: belief\nid: columns-win\nfacets: [storage]\n---\n# Columns win\n\n\
Store the note index as columns.\n\n## Statement\n\nStore the note index as columns, one column per field, rebuilt from the notes each time.\n";
const UNRELATED: &str = "---\ntype: belief\nid: field-tabs\nfacets: [style]\n---\n# Tabs\n\n\
Indent note index columns per field with tabs.\n\n## Statement\n\nIndent the note index field columns with tabs.\n";

fn persona_world() -> Home {
    let home = example_world();
    let beliefs = home.path().join("beliefs");
    std::fs::create_dir_all(&beliefs).unwrap();
    std::fs::write(beliefs.join("columnar-index.md"), PROJECT_BELIEF).unwrap();
    home.ok(&["mother", "ingest", beliefs.to_str().unwrap(), "--project", "atlas"]);
    let persona = home.path().join("persona");
    std::fs::create_dir_all(&persona).unwrap();
    for (name, text) in [("row-index.md", NEGATING), ("columns-win.md", AGREEING), ("field-tabs.md", UNRELATED)] {
        std::fs::write(persona.join(name), text).unwrap();
    }
    home
}

fn rows(result: &Value) -> Vec<(String, String, String)> {
    let hits = result["hits"].as_array().unwrap();
    hits.iter()
        .enumerate()
        .map(|(i, h)| {
            let id = if h["kind"] == "code" {
                format!("{}:{}", h["repo"].as_str().unwrap(), h["path"].as_str().unwrap())
            } else {
                h["symbol"].as_str().unwrap().to_string()
            };
            let verdict = result["adoptability"][i]["verdict"].as_str().unwrap_or("-").to_string();
            (id, result["tags"][i].as_str().unwrap().to_string(), verdict)
        })
        .collect()
}

#[test]
fn strong_local_results_stay_local() {
    let home = persona_world();
    let r = home.json(&["scry", "note index columns per field", "--project", "atlas", "--persona", "--lexical-only"]);
    assert!(r["persona"].as_str().unwrap().starts_with("local only"), "{}", r["persona"]);
    let rows = rows(&r);
    assert_eq!(rows[0], ("columnar-index".into(), "PROJECT".into(), "-".into()), "{rows:?}");
    assert!(rows.iter().all(|r| r.1 == "PROJECT"), "{rows:?}");
    assert_eq!(r["repos"], serde_json::json!(["atlas"]));
}

#[test]
fn weak_local_results_ask_the_mother_with_tags_and_adoptability() {
    let home = persona_world();
    // Nothing in atlas speaks of archetypes' component columns this well: a high threshold
    // makes the local result weak.
    let r = home.json(&[
        "scry",
        "note index columns per field",
        "--project",
        "atlas",
        "--persona",
        "--persona-threshold",
        "1.5",
        "--lexical-only",
        "--limit",
        "20",
    ]);
    assert!(r["persona"].as_str().unwrap().contains("below 1.50"), "{}", r["persona"]);
    let rows = rows(&r);
    let find = |id: &str| rows.iter().find(|r| r.0 == id).unwrap_or_else(|| panic!("{id} in {rows:?}")).clone();
    assert_eq!(find("columnar-index").1, "PROJECT");
    assert_eq!(find("row-index"), ("row-index".into(), "PERSONA".into(), "reference".into()), "negates the project's");
    assert_eq!(find("columns-win").2, "adoptable", "agrees");
    let i = rows.iter().position(|r| r.0 == "row-index").unwrap();
    assert_eq!(r["adoptability"][i]["conflicts_with"], "columnar-index");
    // ecsdemo shares the `rust` domain with atlas; its files are tagged so.
    let ecs = rows.iter().find(|r| r.0.starts_with("ecsdemo:")).expect("a routed repo's file");
    assert_eq!(ecs.1, "PERSONA-RUST");
    // Non-local scores are × 0.9: nothing from elsewhere outranks an equal local score.
    let scores: Vec<f64> = r["hits"].as_array().unwrap().iter().map(|h| h["fused_score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Human output names the tags and, with --show-adoptability, why.
    let text = home.ok(&[
        "scry",
        "note index columns per field",
        "--project",
        "atlas",
        "--persona-only",
        "--lexical-only",
        "--show-adoptability",
    ]);
    assert!(text.contains("[PERSONA] [REFERENCE] may conflict with columnar-index"), "{text}");
    assert!(text.contains("adoptability: same claim on facet storage"), "{text}");
    assert!(!text.contains("[PROJECT]"), "--persona-only skips local: {text}");
    // --detail opens a persona result like any other.
    let id = r["query_id"].as_str().unwrap();
    let rank = r["hits"].as_array().unwrap().iter().position(|h| h["kind"] == "code").unwrap() + 1;
    home.ok(&["scry", "--detail", id, &rank.to_string()]);
}

/// The daemon's `/persona/query` answers what the command answers in-process.
#[test]
fn the_daemon_answers_persona_queries_the_same() {
    let home = persona_world();
    let (mut child, url) = util::start_daemon(&home, &["--no-socket"]);
    let args =
        ["scry", "note index columns per field", "--project", "atlas", "--persona-only", "--lexical-only", "--json"];
    let local = home.json(&args[..args.len() - 1]);
    let out = home.cmd(&args).env("PATINA_MOTHER_URL", &url).output().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let remote: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows(&local), rows(&remote));
    assert_eq!(local["persona"], remote["persona"]);
}

/// With the model, persona knowledge answers by meaning too, as the project's own channel
/// does: a belief that shares one word with the query is found by what it says.
#[test]
fn persona_knowledge_is_found_by_meaning_with_the_model() {
    let Some(model) = util::model_dir() else { return };
    let home = persona_world();
    let offline = "---\ntype: belief\nid: offline-tests\nfacets: [testing]\n---\n# Offline tests\n\n\
Tests run offline.\n\n## Statement\n\nTest suites never touch the network; fixtures replace remote services.\n";
    std::fs::write(home.path().join("persona").join("offline-tests.md"), offline).unwrap();
    let query = "can unit tests download files from the internet";
    let ask = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["scry", query, "--project", "atlas", "--persona", "--persona-only", "--json"];
        args.extend_from_slice(extra);
        let out = home.cmd(&args).env("PATINA_MODELS", &model).output().unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        r["hits"].as_array().unwrap().iter().filter_map(|h| h["symbol"].as_str().map(str::to_string)).collect()
    };
    assert!(!ask(&["--lexical-only"]).contains(&"offline-tests".to_string()), "one shared word is not enough by words");
    let hits = ask(&[]);
    assert!(hits.contains(&"offline-tests".to_string()), "found by meaning: {hits:?}");
}
