//! Beliefs, observations and relations on the real belief files of the project whose
//! session logs we ingest (`../shared/data/patina-beliefs`).

mod util;

use serde_json::Value;
use util::{Home, shared_data};

fn beliefs_dir() -> std::path::PathBuf {
    shared_data().join("patina-beliefs")
}

/// A home with the real registry and the real belief and pattern files ingested.
fn believing_home() -> Home {
    let home = Home::new();
    let registry = shared_data().join("patina-registry.yaml");
    home.ok(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
    home.ok(&["mother", "ingest", beliefs_dir().to_str().unwrap(), "--project", "patina"]);
    home
}

fn list(home: &Home) -> Vec<Value> {
    home.json(&["belief", "list"]).as_array().unwrap().clone()
}

#[test]
fn the_real_belief_files_give_59_beliefs_7_patterns_and_their_relations() {
    let home = believing_home();
    let items = list(&home);
    let beliefs = items.iter().filter(|b| b["kind"] == "belief").count();
    let patterns = items.iter().filter(|b| b["kind"] == "pattern").count();
    assert_eq!((beliefs, patterns), (59, 7));
    let relations = home.json(&["mother", "log", "--kind", "relation", "--limit", "100000"]);
    let from_beliefs = relations
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"]["path"].as_str().unwrap_or("").contains("/beliefs/"))
        .count();
    assert_eq!(from_beliefs, 135, "every Supports / Attacks / Attacked-By link of the 59 files");

    // A belief in full: statement, evidence with weights, relations both ways.
    let shown = home.json(&["belief", "show", "eventlog-is-truth"]);
    assert_eq!(shown["item"]["confidence"].as_f64().map(|c| (c * 100.0).round()), Some(92.0));
    assert_eq!(shown["item"]["evidence"].as_array().unwrap().len(), 4);
    let out: Vec<(&str, &str)> = shown["relations_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["relation"]["rel_type"].as_str().unwrap(), l["relation"]["to"].as_str().unwrap()))
        .collect();
    assert!(out.contains(&("attacks", "mutable-state-simpler")), "{out:?}");
    let text = home.ok(&["belief", "show", "eventlog-is-truth"]);
    assert!(
        text.contains("mutable-state-simpler (no file of its own) (status: defeated, reason: loses history)"),
        "{text}"
    );

    // Evidence written as a plain list item (no wiki link) keeps its session and note:
    // 35 of the real files' 116 evidence items are written so.
    let shown = home.json(&["belief", "show", "frontmatter-id-is-identity"]);
    let evidence = &shown["item"]["evidence"][0];
    assert_eq!(evidence["target"], "session-20260129-084757", "{shown}");
    assert!(evidence["note"].as_str().unwrap().starts_with("Bug discovery — pruning used file stems"), "{shown}");
    assert_eq!(evidence["weight"].as_f64().map(|w| (w * 100.0).round()), Some(95.0));
    let text = home.ok(&["belief", "show", "frontmatter-id-is-identity"]);
    assert!(text.contains("[[session-20260129-084757]] Bug discovery"), "{text}");

    // Re-ingesting changes nothing.
    let again = home.json(&["mother", "ingest", beliefs_dir().to_str().unwrap(), "--project", "patina"]);
    assert_eq!(again["added"], serde_json::json!({}), "{again}");
}

#[test]
fn context_build_walks_the_neighbourhood_breadth_first() {
    let home = believing_home();
    let ctx = home.json(&["context", "build", "eventlog-is-truth", "--depth", "2"]);
    let entries = ctx["entries"].as_array().unwrap();
    let supporters: Vec<&str> = entries
        .iter()
        .filter(|e| e["depth"] == 1 && e["direction"] == "in" && e["relation"] == "supports")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    for id in [
        "link-all-artifact-references",
        "session-git-integration",
        "commit-early-commit-often",
        "project-config-in-git",
    ] {
        assert!(supporters.contains(&id), "{id} supports eventlog-is-truth: {supporters:?}");
    }
    // Their own links come at depth 2, and every item once.
    assert!(entries.iter().any(|e| e["depth"] == 2), "{ctx}");
    let mut ids: Vec<&str> = entries.iter().map(|e| e["id"].as_str().unwrap()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "each item once");
    let text = home.ok(&["context", "build", "eventlog-is-truth"]);
    assert!(text.starts_with("# context of eventlog-is-truth (depth 2)"), "{text}");
    let err = home.fails(&["context", "build", "no-such-belief"]);
    assert!(err.contains("no belief or observation 'no-such-belief'"), "{err}");
}

#[test]
fn relation_rules_and_deleting_an_observation_cascades() {
    let home = believing_home();
    let observed = home.json(&[
        "observe",
        "Rebuild tables from the log instead of migrating them",
        "--kind",
        "decision",
        "--facets",
        "persistence",
        "--project",
        "patina",
    ]);
    let obs = observed["id"].as_str().unwrap().to_string();
    assert!(obs.starts_with("obs-"));
    // The same observation twice is one.
    let again = home.json(&[
        "observe",
        "Rebuild tables from the log instead of migrating them",
        "--kind",
        "decision",
        "--facets",
        "persistence",
        "--project",
        "patina",
    ]);
    assert_eq!((again["id"].as_str(), again["seq"].is_null()), (Some(obs.as_str()), true));

    // Rules: no self relation, both ends live, no duplicate.
    assert!(home.fails(&["relate", &obs, &obs]).contains("cannot relate to itself"));
    assert!(home.fails(&["relate", &obs, "no-such-belief"]).contains("no live belief or observation 'no-such-belief'"));
    home.ok(&["relate", &obs, "eventlog-is-truth", "--type", "supports", "--note", "same idea"]);
    assert!(
        home.fails(&["relate", &obs, "eventlog-is-truth", "--type", "supports"]).contains("already supports"),
        "a duplicate is an error"
    );
    // Bidirectional adds both directions at once.
    let both = home.json(&["relate", &obs, "commit-early-commit-often", "--bidirectional"]);
    assert_eq!(both["seqs"].as_array().unwrap().len(), 2);
    let shown = home.json(&["belief", "show", &obs]);
    assert_eq!(shown["relations_out"].as_array().unwrap().len(), 2);
    assert_eq!(shown["relations_in"].as_array().unwrap().len(), 1);

    // unrelate, then relate again.
    let removed = home.json(&["unrelate", &obs, "commit-early-commit-often"]);
    assert_eq!(removed["retracted"], 1);
    assert!(home.fails(&["unrelate", &obs, "commit-early-commit-often"]).contains("no live relation"));
    home.ok(&["relate", &obs, "commit-early-commit-often"]);

    // Deleting the observation retracts it and every relation naming it, in one go.
    let deleted = home.json(&["observe", "--delete", &obs]);
    assert_eq!(deleted["relations_retracted"], 3);
    assert!(home.fails(&["belief", "show", &obs]).contains(&format!("no belief or observation '{obs}'")));
    let shown = home.json(&["belief", "show", "eventlog-is-truth"]);
    assert!(shown["relations_in"].as_array().unwrap().iter().all(|l| l["relation"]["from"] != obs.as_str()));
    assert!(home.fails(&["observe", "--delete", "eventlog-is-truth"]).contains("is a belief"));
}

#[test]
fn an_edited_or_deleted_belief_file_updates_or_retracts_exactly_what_changed() {
    let home = Home::new();
    let registry = shared_data().join("patina-registry.yaml");
    home.ok(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
    let dir = home.path().join("beliefs");
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(beliefs_dir().join("beliefs/eventlog-is-truth.md")).unwrap();
    let file = dir.join("eventlog-is-truth.md");
    std::fs::write(&file, &original).unwrap();
    std::fs::write(dir.join("other.md"), "---\ntype: belief\nid: other\nstatus: active\n---\n# other\n\nAnother.\n")
        .unwrap();
    let dir_arg = dir.to_str().unwrap();
    home.ok(&["mother", "ingest", dir_arg, "--project", "patina"]);
    let relations_before =
        home.json(&["belief", "show", "eventlog-is-truth"])["relations_out"].as_array().unwrap().len();
    assert_eq!(relations_before, 4);

    // Edit: a new statement and one Supports link fewer.
    let edited = original
        .replace("The append-only eventlog is the canonical source of truth.", "The log is the truth.")
        .replace("- [[deterministic-first]]\n", "");
    std::fs::write(&file, edited).unwrap();
    let report = home.json(&["mother", "ingest", dir_arg, "--project", "patina"]);
    assert_eq!(report["added"]["belief"], 1, "{report}");
    assert_eq!(report["retracted"], 2, "the old belief and the dropped link: {report}");
    let shown = home.json(&["belief", "show", "eventlog-is-truth"]);
    assert!(shown["item"]["statement"].as_str().unwrap().starts_with("The log is the truth."));
    assert_eq!(shown["relations_out"].as_array().unwrap().len(), 3);

    // Malformed front matter: one warning naming file and line; the sections still count.
    let broken =
        std::fs::read_to_string(&file).unwrap().replace("facets: [data-architecture, persistence]", "facets: [oops");
    std::fs::write(&file, broken).unwrap();
    let report = home.json(&["mother", "ingest", dir_arg, "--project", "patina"]);
    let warnings: Vec<&str> = report["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("eventlog-is-truth.md:") && warnings[0].contains("front matter"), "{warnings:?}");
    assert_eq!(home.json(&["belief", "show", "eventlog-is-truth"])["relations_out"].as_array().unwrap().len(), 3);

    // Delete: everything the file said is retracted; the other file is untouched.
    std::fs::remove_file(&file).unwrap();
    home.ok(&["mother", "ingest", dir_arg, "--project", "patina"]);
    let ids: Vec<String> = list(&home).iter().map(|b| b["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["other"]);
}

#[test]
fn knowledge_replays_from_the_log() {
    use patina::event::log::{EventLog, NewEvent};
    use patina::knowledge::Knowledge;
    use patina::store::{OpenOptions, Store};

    let home = believing_home();
    home.ok(&["observe", "Derived views replay", "--project", "patina"]);
    let store = Store::open(&home.store_path(), &OpenOptions::default(), |_| {}).unwrap();
    let log = EventLog::new(&store);
    let original = Knowledge::load(&log).unwrap();
    // Replay every event, in order, into a fresh store.
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = Store::open(&fresh_dir.path().join("store.redb"), &OpenOptions::default(), |_| {}).unwrap();
    let events: Vec<NewEvent> = log.range(..).unwrap().into_iter().map(|e| NewEvent::new(e.source, e.event)).collect();
    EventLog::new(&fresh).append(events).unwrap();
    let replayed = Knowledge::load(&EventLog::new(&fresh)).unwrap();
    assert_eq!(replayed.items, original.items);
    assert_eq!(replayed.links, original.links);
    assert!(original.items.len() > 66);
}

#[test]
fn beliefs_are_a_search_channel_of_every_scry() {
    let home = believing_home();
    // The project's code: a small tree registered as patina.
    let tree = home.path().join("patina-src");
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(
        tree.join("src/log.rs"),
        "/// The append-only event log: every input is an event.\npub fn append(event: Event) -> u64 {\n    0\n}\n",
    )
    .unwrap();
    home.ok(&["repo", "add", tree.to_str().unwrap(), "--id", "patina", "--lexical-only"]);
    let result =
        home.json(&["scry", "should tables be rebuilt from the event log", "--project", "patina", "--lexical-only"]);
    let hits = result["hits"].as_array().unwrap();
    let at = hits.iter().position(|h| h["kind"] == "belief" && h["symbol"] == "eventlog-is-truth");
    assert!(at.is_some_and(|i| i < 3), "eventlog-is-truth among the first results: {result:#}");
    let i = at.unwrap();
    assert!(result["provenance"][i].as_str().unwrap().starts_with("[belief] "), "{result:#}");
    assert!(hits.iter().any(|h| h["kind"] == "code"), "code still answers: {result:#}");
    // --detail of a belief shows it from the log.
    let qid = result["query_id"].as_str().unwrap();
    let detail = home.ok(&["scry", "--detail", qid, &(i + 1).to_string()]);
    assert!(detail.contains("statement:") && detail.contains("canonical source of truth"), "{detail}");
    // A query about nothing the beliefs say brings none.
    let out = home
        .cmd(&[
            "scry",
            "append an event, greedy descent through the HNSW layers",
            "--project",
            "patina",
            "--lexical-only",
            "--json",
        ])
        .output()
        .unwrap();
    let unrelated: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = unrelated["hits"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["code"], "{unrelated:#}");
}

#[test]
fn the_context_briefing_carries_the_relevant_beliefs_and_a_recall_directive() {
    use patina::store::{OpenOptions, Store};
    let home = believing_home();
    let store = Store::open(&home.store_path(), &OpenOptions::default(), |_| {}).unwrap();
    let text = patina::mcp::briefing::briefing(
        &store,
        std::path::Path::new("/"),
        Some("patina"),
        Some("should tables be rebuilt from the event log"),
        5,
    )
    .unwrap();
    let section = text.split("## Beliefs of patina").nth(1).expect("a beliefs section");
    let first = section.lines().find(|l| l.starts_with("- ")).unwrap();
    assert!(first.starts_with("- eventlog-is-truth:"), "the most relevant belief first: {text}");
    assert!(text.contains("look for the project's beliefs"), "{text}");
}

#[test]
fn watch_keeps_beliefs_current() {
    let home = Home::new();
    let registry = shared_data().join("patina-registry.yaml");
    home.ok(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
    let dir = home.path().join("beliefs");
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read_to_string(beliefs_dir().join("beliefs/eventlog-is-truth.md")).unwrap();
    std::fs::write(dir.join("eventlog-is-truth.md"), &original).unwrap();
    let dir_arg = dir.to_str().unwrap();
    home.ok(&["mother", "watch", dir_arg, "--once", "--project", "patina"]);
    assert_eq!(list(&home).len(), 1);
    std::fs::write(dir.join("eventlog-is-truth.md"), original.replace("- [[deterministic-first]]\n", "")).unwrap();
    home.ok(&["mother", "watch", dir_arg, "--once", "--project", "patina"]);
    assert_eq!(home.json(&["belief", "show", "eventlog-is-truth"])["relations_out"].as_array().unwrap().len(), 3);
}

/// With the model, the knowledge channel also matches by meaning: a situation that shares
/// no telling word with the belief still finds it (questions of the blind A/B set's fit
/// half, kq_001 and kq_010). Without the model it does not, and says nothing of it.
#[test]
fn beliefs_are_found_by_meaning_when_the_model_is_there() {
    let models = std::env::var_os("PATINA_MODELS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| util::root().join("target/patina-models"));
    if !models.join("model.onnx").exists() {
        assert!(std::env::var("CI").is_err(), "CI needs the model in {}", models.display());
        eprintln!("SKIPPING: no model in {} (`patina models fetch`)", models.display());
        return;
    }
    let home = believing_home();
    let tree = home.path().join("patina-src");
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(tree.join("src/scrape.rs"), "/// Reads the files of a repo one by one.\npub fn scrape() {}\n")
        .unwrap();
    home.ok(&["repo", "add", tree.to_str().unwrap(), "--id", "patina", "--lexical-only"]);
    let query =
        "I want the scraper to read files in parallel — is it fine to bring in tokio and make these functions async?";
    let out =
        home.cmd(&["scry", query, "--project", "patina", "--json"]).env("PATINA_MODELS", &models).output().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let beliefs = |result: &Value| -> Vec<String> {
        let hits = result["hits"].as_array().unwrap().iter();
        hits.filter(|h| h["kind"] == "belief").filter_map(|h| h["symbol"].as_str().map(str::to_string)).collect()
    };
    let found = beliefs(&result);
    assert!(found.iter().any(|b| b == "sync-first"), "sync-first by meaning: {found:?}");
    // The question asks for advice ("is it fine"): the best belief comes before the code,
    // and says why it is there.
    assert_eq!(result["hits"][0]["symbol"], "sync-first", "{result}");
    let why = result["provenance"][0].as_str().unwrap_or_default();
    assert!(why.contains("asks for advice") && why.contains("[belief]"), "{why}");
    // A question about how the code works places beliefs by their score only.
    let lookup = home
        .cmd(&["scry", "how does scrape read the files of a repo", "--project", "patina", "--json"])
        .env("PATINA_MODELS", &models)
        .output()
        .unwrap();
    let lookup: Value = serde_json::from_slice(&lookup.stdout).unwrap();
    let reasons: Vec<&str> = lookup["provenance"].as_array().unwrap().iter().filter_map(|p| p.as_str()).collect();
    assert!(!reasons.is_empty() && reasons.iter().all(|p| !p.contains("advice")), "{reasons:?}");
    // The item vectors are cached: a second query embeds only the query.
    assert!(home.path().join("cache/knowledge-vectors.bin").exists());
    // A situation whose words do not meet the belief's (kq_010, fit half): found by
    // meaning (its evidence note says what happened to SPEC.md), not by words.
    let paraphrase = "The cleanup step removed an indexed spec because its file is just called SPEC.md. What should it be matching on?";
    let by_meaning = home
        .cmd(&["scry", paraphrase, "--project", "patina", "--json"])
        .env("PATINA_MODELS", &models)
        .output()
        .unwrap();
    let by_meaning = beliefs(&serde_json::from_slice(&by_meaning.stdout).unwrap());
    assert!(by_meaning.iter().any(|b| b == "frontmatter-id-is-identity"), "found by meaning: {by_meaning:?}");
    let lexical = beliefs(&home.json(&["scry", paraphrase, "--project", "patina", "--lexical-only"]));
    assert!(!lexical.iter().any(|b| b == "frontmatter-id-is-identity"), "lexically the words do not meet: {lexical:?}");
}
