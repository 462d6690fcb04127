//! End-to-end tests of the `patina` binary against a temporary home.

mod util;

use std::io::Write;

use util::{Home, example_registry, shared_data};

fn seqs(log: &serde_json::Value) -> Vec<u64> {
    log.as_array().unwrap().iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

#[test]
fn sync_example_registry_then_resync_adds_nothing() {
    let home = Home::new();
    let first = home.json(&["mother", "sync", "--registry", &example_registry()]);
    assert_eq!(first["added"].as_array().unwrap().len(), 4);
    let again = home.json(&["mother", "sync", "--registry", &example_registry()]);
    assert!(again["added"].as_array().unwrap().is_empty());
    assert!(again["changed"].as_array().unwrap().is_empty());
    assert_eq!(again["unchanged"], 4);
    let log = home.json(&["mother", "log"]);
    assert_eq!(seqs(&log), vec![1, 2, 3, 4]);
    let first = &log[0];
    assert_eq!(first["kind"], "node-registered");
    assert_eq!(first["payload"]["id"], "atlas");
    assert_eq!(first["payload"]["kind"], "project");
    assert_eq!(first["source"]["type"], "file");
    assert!(first["source"]["path"].as_str().unwrap().ends_with("registry.yaml"));
    assert_eq!(first["source"]["start_line"], 7);
    assert!(first["payload"]["path"].as_str().unwrap().ends_with("examples/world/repos/atlas"));
}

#[test]
fn real_registry_syncs_as_it_is() {
    let home = Home::new();
    let registry = shared_data().join("patina-registry.yaml");
    assert!(registry.exists(), "the shared data set is missing: {}", registry.display());
    let report = home.json(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
    assert_eq!(report["added"].as_array().unwrap().len(), 32);
    assert!(report["warnings"].as_array().unwrap().is_empty());
    let stats = home.json(&["mother", "stats"]);
    assert_eq!(stats["nodes"], 32);
    assert_eq!(stats["by_kind"]["node-registered"], 32);
    let dojo = home.json(&["mother", "log", "--node", "dojo"]);
    assert_eq!(dojo[0]["payload"]["aliases"][0], "dojoengine/dojo");
    assert_eq!(dojo[0]["payload"]["domains"], serde_json::json!(["cairo", "rust", "starknet"]));
}

#[test]
fn changed_node_is_appended_unchanged_ones_are_not() {
    let home = Home::new();
    let reg = home.path().join("registry.yaml");
    std::fs::write(&reg, "nodes:\n  - id: a\n    kind: project\n  - id: b\n    kind: reference\n").unwrap();
    home.ok(&["mother", "sync"]); // default registry: $PATINA_HOME/registry.yaml
    std::fs::write(&reg, "# a comment shifts every line\nnodes:\n  - id: a\n    kind: project\n  - id: b\n    kind: reference\n    summary: now described\n").unwrap();
    let report = home.json(&["mother", "sync"]);
    assert_eq!(report["changed"], serde_json::json!(["b"]));
    assert_eq!(report["unchanged"], 1);
    assert_eq!(seqs(&home.json(&["mother", "log"])), vec![1, 2, 3]);
}

#[test]
fn link_twice_leaves_one_event_and_unlink_relink_append() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    home.ok(&["mother", "link", "atlas", "USES", "vectorlite"]);
    let second = home.ok(&["mother", "link", "atlas", "uses", "vectorlite"]);
    assert!(second.contains("already linked"), "{second}");
    let links = home.json(&["mother", "log", "--kind", "link-added"]);
    assert_eq!(links.as_array().unwrap().len(), 1);
    let link = &links[0];
    assert_eq!(link["source"]["type"], "cli");
    assert_eq!(link["payload"]["edge_type"], "USES");
    assert_eq!(link["payload"]["from"], "atlas");
    assert_eq!(link["payload"]["to"], "vectorlite");
    assert_eq!(link["live"], true);

    home.ok(&["mother", "unlink", "atlas", "USES", "vectorlite", "--reason", "not any more"]);
    assert!(home.ok(&["mother", "unlink", "atlas", "USES", "vectorlite"]).contains("already unlinked"));
    home.ok(&["mother", "link", "atlas", "USES", "vectorlite"]);
    let history = home.json(&["mother", "log", "--node", "vectorlite", "--since", "4"]);
    let kinds: Vec<&str> = history.as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, vec!["link-added", "link-removed", "link-added"]);
    let live: Vec<bool> = history.as_array().unwrap().iter().map(|e| e["live"].as_bool().unwrap()).collect();
    assert_eq!(live, vec![false, false, true]);
}

#[test]
fn aliases_and_case_resolve_to_registered_ids() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let out = home.json(&["mother", "link", "ATLAS", "learns-from", "example/ecsdemo", "--evidence", "why not"]);
    assert_eq!(out["from"], "atlas");
    assert_eq!(out["to"], "ecsdemo");
    assert_eq!(out["edge_type"], "LEARNS_FROM");
}

#[test]
fn bad_link_arguments_are_clear_errors() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let err = home.fails(&["mother", "link", "atlas", "LIKES", "ecsdemo"]);
    assert!(err.contains("'LIKES'") && err.contains("LEARNS_FROM, TESTS_WITH"), "{err}");
    let err = home.fails(&["mother", "link", "atlas", "USES", "ecsdem"]);
    assert!(err.contains("unknown node 'ecsdem'") && err.contains("ecsdemo"), "{err}");
    let err = home.fails(&["mother", "link", "atlas", "USES", "atlas"]);
    assert!(err.contains("itself"), "{err}");
    let err = home.fails(&["mother", "link", "atlas", "USES", "ecsdemo", "--weight", "7"]);
    assert!(err.contains("out of range"), "{err}");
    let err = home.fails(&["mother", "log", "--kind", "nonsense"]);
    assert!(err.contains("nonsense") && err.contains("link-added"), "{err}");
    // Nothing was appended by the failures.
    assert_eq!(home.json(&["mother", "stats"])["events"], 4);
}

#[test]
fn registry_errors_name_the_file_and_line_and_append_nothing() {
    let home = Home::new();
    let reg = home.path().join("bad.yaml");
    std::fs::write(&reg, "nodes:\n  - id: a\n    kind: project\n  - id: a\n    kind: reference\n").unwrap();
    let err = home.fails(&["mother", "sync", "--registry", reg.to_str().unwrap()]);
    assert!(err.contains("bad.yaml:4") && err.contains("duplicate id 'a'"), "{err}");
    std::fs::write(&reg, "nodes:\n  - id: a\n    kind: [project\n").unwrap();
    let err = home.fails(&["mother", "sync", "--registry", reg.to_str().unwrap()]);
    assert!(err.contains("bad.yaml") && err.lines().count() == 1, "{err}");
    std::fs::write(&reg, b"nodes:\n  - id: \xff\xfe\n    kind: project\n").unwrap();
    let err = home.fails(&["mother", "sync", "--registry", reg.to_str().unwrap()]);
    assert!(err.contains("UTF-8"), "{err}");
    let err = home.fails(&["mother", "sync", "--registry", "/nonexistent/registry.yaml"]);
    assert!(err.contains("/nonexistent/registry.yaml"), "{err}");
    let err = home.fails(&["mother", "sync"]);
    assert!(err.contains("registry.yaml") && err.contains("--registry"), "{err}");
    assert_eq!(home.json(&["mother", "stats"])["events"], 0);
}

#[test]
fn corrupt_store_is_reported_and_left_untouched() {
    let home = Home::new();
    std::fs::create_dir_all(home.store_path().parent().unwrap()).unwrap();
    let garbage = b"this is not a redb file, it is a shopping list: eggs, milk\n".repeat(100);
    std::fs::write(home.store_path(), &garbage).unwrap();
    let err = home.fails(&["mother", "stats"]);
    assert!(err.contains("store.redb") && err.contains("not a readable patina store"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one clear line: {err}");
    let err = home.fails(&["mother", "link", "a", "USES", "b"]);
    assert!(err.contains("not a readable patina store"), "{err}");
    assert_eq!(std::fs::read(home.store_path()).unwrap(), garbage);
}

#[test]
fn truncated_store_is_reported_not_panicked() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let bytes = std::fs::read(home.store_path()).unwrap();
    std::fs::write(home.store_path(), &bytes[..bytes.len() / 3]).unwrap();
    let out = home.cmd(&["mother", "log"]).output().unwrap();
    let err = util::stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(2));
        assert!(err.contains("store.redb"), "{err}");
    }
}

#[test]
fn log_json_is_one_valid_document_even_when_empty() {
    let home = Home::new();
    assert_eq!(home.json(&["mother", "log"]), serde_json::json!([]));
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let log = home.json(&["mother", "log", "--since", "2", "--limit", "1"]);
    assert_eq!(seqs(&log), vec![4]);
    for key in ["seq", "ts", "kind", "source", "hash", "live", "payload"] {
        assert!(log[0].get(key).is_some(), "missing {key}");
    }
}

#[test]
fn broken_pipe_exits_cleanly() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", shared_data().join("patina-registry.yaml").to_str().unwrap()]);
    let mut child = home.cmd(&["mother", "log"]).stdout(std::process::Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert!(status.success() || status.code() == Some(0), "{status}");
}

#[test]
fn killed_sync_loses_no_committed_event() {
    // A registry large enough that sync spans many write transactions.
    let home = Home::new();
    let reg = home.path().join("big.yaml");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&reg).unwrap());
    writeln!(file, "nodes:").unwrap();
    let total = 60_000;
    for i in 0..total {
        writeln!(file, "  - id: node{i}\n    kind: reference\n    summary: \"node number {i}\"").unwrap();
    }
    drop(file);
    let reg = reg.to_str().unwrap();
    let mut child = home.cmd(&["mother", "sync", "--registry", reg]).spawn().unwrap();
    // Wait until at least one batch has been committed, then kill it.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let stats = home.cmd(&["mother", "stats", "--json"]).output().unwrap();
        if stats.status.success()
            && serde_json::from_slice::<serde_json::Value>(&stats.stdout).unwrap()["events"].as_u64().unwrap() > 0
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let events = home.json(&["mother", "stats"])["events"].as_u64().unwrap();
    assert!(events > 0);
    assert!(events.is_multiple_of(5_000) || events == total, "only whole batches are committed: {events}");
    let log = home.json(&["mother", "log", "--limit", "1"]);
    assert_eq!(seqs(&log), vec![events]);
    // Syncing again completes the job without duplicating anything.
    let report = home.json(&["mother", "sync", "--registry", reg]);
    assert_eq!(report["added"].as_array().unwrap().len() as u64 + events, total);
    assert_eq!(home.json(&["mother", "stats"])["events"], total);
}

/// Issue 17, item 1: `kill -9` during a first command used to leave a 1 MiB store whose
/// redb header had no magic number, and every later command failed until the user deleted
/// it. Kills are swept over the first 10 ms, where the store is being created.
#[test]
fn a_first_command_killed_while_creating_the_store_never_bricks_the_home() {
    for i in 0..40u64 {
        let home = Home::new();
        let mut child = home
            .cmd(&["mother", "stats"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(250 * i));
        let _ = child.kill();
        child.wait().unwrap();
        let out = home.cmd(&["mother", "stats", "--json"]).output().unwrap();
        assert!(out.status.success(), "home bricked by a kill after {} µs: {}", 250 * i, util::stderr(&out));
        let names: Vec<String> = std::fs::read_dir(home.store_path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["store.redb".to_string()], "no creation debris is left behind");
    }
}

/// Issue 17, item 7 (and the leftovers older versions left): an empty store file, or a
/// redb file whose creation never finished, is replaced with one notice, not silently.
#[test]
fn leftover_store_files_are_replaced_and_the_user_is_told() {
    let mut half_created = vec![0u8; 1_056_768];
    half_created[9..32].copy_from_slice(&[0, 4, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 1, 1, 0]);
    half_created[64] = 3;
    half_created[192] = 3;
    for leftover in [Vec::new(), half_created] {
        let home = Home::new();
        std::fs::create_dir_all(home.store_path().parent().unwrap()).unwrap();
        std::fs::write(home.store_path(), &leftover).unwrap();
        let out = home.cmd(&["mother", "sync", "--registry", &example_registry()]).output().unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
        let err = util::stderr(&out);
        let notices: Vec<&str> = err.lines().filter(|l| l.contains("replaced it with a fresh store")).collect();
        assert_eq!(notices.len(), 1, "{err}");
        assert!(notices[0].contains("store.redb") && notices[0].contains("holding no events"), "{err}");
        assert_eq!(home.json(&["mother", "stats"])["events"], 4);
        let out = home.cmd(&["mother", "stats"]).output().unwrap();
        assert!(!util::stderr(&out).contains("replaced"), "told once: {}", util::stderr(&out));
    }
}

#[test]
fn home_can_come_from_the_environment() {
    let home = Home::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_patina"))
        .args(["mother", "sync", "--registry", &example_registry()])
        .env("PATINA_HOME", home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    assert!(home.store_path().exists());
}

#[test]
fn a_store_locked_by_another_process_is_waited_for_then_reported() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    // Another program holds the file with redb's exclusive (whole-file) lock.
    let holder = redb::Database::create(home.store_path()).unwrap();
    let out = home.cmd(&["mother", "stats"]).env("PATINA_LOCK_WAIT", "1").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = util::stderr(&out);
    assert!(err.contains("waiting"), "tells the user it waits: {err}");
    assert!(err.contains("locked") && err.contains("store.redb") && err.contains("PATINA_LOCK_WAIT"), "{err}");
    // Released while a command waits: the command goes on and nothing was lost.
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(800));
        drop(holder);
    });
    let out = home.cmd(&["mother", "stats", "--json"]).env("PATINA_LOCK_WAIT", "20").output().unwrap();
    release.join().unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["events"], 4);
}

/// Issue 15, item 5: `mother log --follow --json` streams events as they are appended, one
/// JSON object per line, and resumes from `--since`.
#[test]
fn log_follow_streams_new_events_and_resumes_by_seq() {
    use std::io::{BufRead, BufReader};
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let mut child = home
        .cmd(&["mother", "log", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = || -> serde_json::Value {
        let line = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"))
    };
    // The registrations already in the log come first.
    let first = next();
    assert_eq!(first["kind"], "node-registered");
    for _ in 1..4 {
        next();
    }
    home.ok(&["mother", "link", "atlas", "USES", "quickparse"]);
    let link = next();
    assert_eq!(link["kind"], "link-added", "{link}");
    let seq = link["seq"].as_u64().unwrap();
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(child.wait().unwrap().success(), "SIGTERM stops it cleanly");
    // Resuming after the last seq printed gives only what came later.
    home.ok(&["mother", "unlink", "atlas", "USES", "quickparse"]);
    let mut again = home
        .cmd(&["mother", "log", "--follow", "--json", "--since", &seq.to_string()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let line = BufReader::new(again.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    let _ = again.kill();
    let _ = again.wait();
    let event: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(event["seq"].as_u64(), Some(seq + 1));
    assert_eq!(event["kind"], "link-removed");
}
