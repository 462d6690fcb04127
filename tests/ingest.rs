//! `patina mother ingest` on the real session logs of `../shared/data` and on each kind of
//! input and bad input.

mod util;

use std::path::Path;

use serde_json::Value;
use util::{Home, shared_data};

fn sync_real_registry(home: &Home) {
    let registry = shared_data().join("patina-registry.yaml");
    home.ok(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
}

fn sessions_dir() -> String {
    let dir = shared_data().join("patina-sessions");
    assert!(dir.is_dir(), "the shared data set is missing: {}", dir.display());
    dir.display().to_string()
}

fn mentions(home: &Home) -> Vec<Value> {
    home.json(&["mother", "log", "--kind", "mention"]).as_array().unwrap().clone()
}

fn live_mentions(home: &Home) -> Vec<Value> {
    mentions(home).into_iter().filter(|m| m["live"] == true).collect()
}

fn file_name(event: &Value) -> String {
    Path::new(event["source"]["path"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn real_session_logs_yield_cued_mentions_and_reingest_adds_nothing() {
    let home = Home::new();
    sync_real_registry(&home);
    let sessions = sessions_dir();
    let report = home.json(&["mother", "ingest", &sessions, "--project", "patina"]);
    assert_eq!(report["files_seen"], 313);
    assert_eq!(report["files_read"], 313);
    assert!(report["skipped"].as_array().unwrap().is_empty(), "{}", report["skipped"]);
    let added = report["added"]["mention"].as_u64().unwrap();
    assert!(added > 800, "only {added} mentions");
    assert!(report["mentions_by_node"]["SDL"]["testing"].as_u64().unwrap() >= 20);
    assert!(report["mentions_by_node"]["dojo"]["testing"].as_u64().unwrap() >= 10);
    assert!(report["mentions_by_node"].get("patina").is_none(), "self-mentions are not recorded");

    let all = mentions(&home);
    // `patina scrape --force --repo dust` is a testing cue for dust.
    let scrape = all
        .iter()
        .find(|m| file_name(m) == "20250824-065913.md" && m["payload"]["repo"] == "dust")
        .expect("the scrape --repo dust mention");
    assert_eq!(scrape["payload"]["cue_class"], "testing");
    assert_eq!(scrape["payload"]["cue"], "patina scrape --force --repo dust");
    assert_eq!(scrape["source"]["start_line"], 33);
    assert_eq!(scrape["payload"]["session_id"], "20250824-065913");
    assert_eq!(scrape["payload"]["session_date"], "2025-08-24");
    assert_eq!(scrape["payload"]["project"], "patina");
    // The SDL stress test of 2025-09-01 is testing evidence with its sentence.
    let sdl = all
        .iter()
        .find(|m| file_name(m) == "20250901-164140.md" && m["source"]["start_line"] == 38)
        .expect("SDL parse mention");
    assert_eq!(sdl["payload"]["repo"], "SDL");
    assert_eq!(sdl["payload"]["cue_class"], "testing");
    assert_eq!(sdl["payload"]["sentence"], "Successfully parsed SDL: 84,843 symbols extracted without crashes");
    // Learning from cuti's credential pattern.
    assert!(all.iter().any(|m| m["payload"]["repo"] == "cuti"
        && m["payload"]["cue_class"] == "learning"
        && m["payload"]["sentence"].as_str().unwrap().contains("inspired by cuti")));
    // Patina's own archive folder (`dust/`, `layer/dust/`) is not the dust repo.
    assert!(!all.iter().any(|m| m["payload"]["repo"] == "dust"
        && m["payload"]["sentence"].as_str().unwrap().starts_with("Archived old generic docs to dust/")));
    assert!(!all.iter().any(|m| m["payload"]["repo"] == "dust"
        && m["payload"]["sentence"].as_str().unwrap().contains("Layer system for pattern evolution")));
    // "OpenAI Codex/Claude Code GitHub Actions" is about the product, not the codex repo.
    assert!(!all.iter().any(|m| m["payload"]["repo"] == "codex" && file_name(m) == "20251009-064522.md"));
    // game-engine only by its id or its package name (litecanvas), never the generic phrase.
    let game_engine: Vec<&str> = all
        .iter()
        .filter(|m| m["payload"]["repo"] == "game-engine")
        .map(|m| m["payload"]["matched"].as_str().unwrap())
        .collect();
    assert!(game_engine.iter().all(|m| !m.contains(' ')), "{game_engine:?}");
    assert!(game_engine.iter().any(|m| m.eq_ignore_ascii_case("litecanvas")), "{game_engine:?}");

    let again = home.json(&["mother", "ingest", &sessions, "--project", "patina"]);
    assert_eq!(again["files_unchanged"], 313);
    assert_eq!(again["added"], serde_json::json!({}));
    let forced = home.json(&["mother", "ingest", &sessions, "--project", "patina", "--force"]);
    assert_eq!(forced["files_read"], 313);
    assert_eq!(forced["added"], serde_json::json!({}), "the log dedupes what the cache did not skip");
    assert_eq!(forced["retracted"], 0);
}

/// Copies some real sessions into a project directory registered with a path.
fn project_world(home: &Home) -> std::path::PathBuf {
    sync_real_registry(home);
    let project = home.path().join("work").join("patina");
    let sessions = project.join("layer").join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for name in ["20250824-065913.md", "20250901-164140.md", "20251003-064906.md"] {
        std::fs::copy(shared_data().join("patina-sessions").join(name), sessions.join(name)).unwrap();
    }
    let registry = home.path().join("registry.yaml");
    let real = std::fs::read_to_string(shared_data().join("patina-registry.yaml")).unwrap();
    let real = real.replace("path: ~/projects/patina", &format!("path: {}", project.display()));
    std::fs::write(&registry, real).unwrap();
    home.ok(&["mother", "sync"]);
    project
}

#[test]
fn edited_file_adds_only_its_new_facts_and_retracts_what_vanished() {
    let home = Home::new();
    let project = project_world(&home);
    let dir = project.join("layer").join("sessions");
    let dir_s = dir.to_str().unwrap();
    // No --project: the registry node whose path contains the files.
    let first = home.json(&["mother", "ingest", dir_s]);
    assert_eq!(first["files_read"], 3);
    let before = live_mentions(&home).len();

    let edited = dir.join("20250901-164140.md");
    let text = std::fs::read_to_string(&edited).unwrap();
    let removed_line = "- Successfully parsed SDL: 84,843 symbols extracted without crashes";
    assert!(text.contains(removed_line));
    let text = text.replace(removed_line, "- (line removed)") + "\n- Stress tested the loro repo parser today.\n";
    std::fs::write(&edited, text).unwrap();

    let second = home.json(&["mother", "ingest", dir_s]);
    assert_eq!(second["files_unchanged"], 2);
    assert_eq!(second["files_read"], 1);
    assert_eq!(second["added"], serde_json::json!({ "mention": 1 }));
    assert_eq!(second["retracted"], 1);
    assert_eq!(second["mentions_by_node"]["loro"]["testing"], 1);
    let live = live_mentions(&home);
    assert_eq!(live.len(), before);
    assert!(live.iter().any(|m| m["payload"]["repo"] == "loro" && m["payload"]["cue"] == "Stress tested"));
    assert!(!live.iter().any(|m| m["payload"]["sentence"].as_str().unwrap().contains("84,843 symbols extracted")));
    let retraction = home.json(&["mother", "log", "--kind", "retracted"]);
    assert!(retraction[0]["payload"]["reason"].as_str().unwrap().contains("no longer says this"));

    // Deleting a file retracts everything that came only from it.
    let from_deleted = live.iter().filter(|m| file_name(m) == "20251003-064906.md").count() as u64;
    assert!(from_deleted > 0);
    std::fs::remove_file(dir.join("20251003-064906.md")).unwrap();
    let third = home.json(&["mother", "ingest", dir_s]);
    assert_eq!(third["files_gone"], 1);
    assert_eq!(third["retracted"].as_u64().unwrap(), from_deleted);
    assert!(!live_mentions(&home).iter().any(|m| file_name(m) == "20251003-064906.md"));

    // Restoring it re-asserts its facts.
    std::fs::copy(shared_data().join("patina-sessions/20251003-064906.md"), dir.join("20251003-064906.md")).unwrap();
    let fourth = home.json(&["mother", "ingest", dir_s]);
    assert_eq!(fourth["added"]["mention"].as_u64().unwrap(), from_deleted);
}

#[test]
fn a_file_outside_every_project_needs_project() {
    let home = Home::new();
    sync_real_registry(&home);
    let stray = home.path().join("stray.md");
    std::fs::write(&stray, "Tested on dojo repo today.\n").unwrap();
    // The summary of what did work still goes to stdout; the error to stderr, exit 2.
    let out = home.cmd(&["mother", "ingest", stray.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = util::stderr(&out);
    assert!(err.contains("stray.md") && err.contains("--project"), "{err}");
    let ok = home.json(&["mother", "ingest", stray.to_str().unwrap(), "--project", "patina"]);
    assert_eq!(ok["added"]["mention"], 1);
    let err = home.fails(&["mother", "ingest", stray.to_str().unwrap(), "--project", "nobody"]);
    assert!(err.contains("unknown node 'nobody'"), "{err}");
}

#[test]
fn ingest_before_sync_is_a_clear_error() {
    let home = Home::new();
    let err = home.fails(&["mother", "ingest", &sessions_dir(), "--project", "patina"]);
    assert!(err.contains("mother sync"), "{err}");
}

#[test]
fn manifests_yield_imports_of_registered_nodes() {
    let home = Home::new();
    let project = project_world(&home);
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"patina\"\n\n[dependencies]\nserde = \"1\"\nusearch = \"2\"\nloro = { version = \"1\" }\n",
    )
    .unwrap();
    let web = project.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("package.json"), r#"{"dependencies": {"@livestore/livestore": "^0.3", "react": "18"}}"#)
        .unwrap();
    std::fs::write(project.join("requirements.txt"), "# tools\nduckdb==1.1\nnumpy\n").unwrap();
    std::fs::write(project.join("go.mod"), "module x\n\nrequire (\n\tdagger.io/dagger v0.9.0\n)\n").unwrap();
    std::fs::write(project.join("pyproject.toml"), "[project]\nname = \"x\"\ndependencies = [\"turso>=0.1\"]\n")
        .unwrap();
    let report = home.json(&["mother", "ingest", project.to_str().unwrap()]);
    assert_eq!(report["added"]["import"], 6, "{report}");
    let imports = home.json(&["mother", "log", "--kind", "import"]);
    let mut got: Vec<(String, String, u64)> = imports
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["payload"]["repo"].as_str().unwrap().to_string(),
                e["payload"]["dependency"].as_str().unwrap().to_string(),
                e["source"]["start_line"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("USearch".into(), "usearch".into(), 6),
            ("dagger".into(), "dagger.io/dagger".into(), 4),
            ("duckdb".into(), "duckdb".into(), 2),
            ("livestore".into(), "@livestore/livestore".into(), 1),
            ("loro".into(), "loro".into(), 7),
            ("turso".into(), "turso".into(), 3),
        ]
    );
    assert!(imports.as_array().unwrap().iter().all(|e| e["payload"]["project"] == "patina"));
    // Dropping a dependency retracts its import.
    std::fs::write(project.join("requirements.txt"), "numpy\n").unwrap();
    let again = home.json(&["mother", "ingest", project.to_str().unwrap()]);
    assert_eq!(again["retracted"], 1);
    assert_eq!(again["files_unchanged"].as_u64().unwrap(), 7);
}

#[test]
fn bench_logs_yield_bench_runs_and_name_bad_lines() {
    let home = Home::new();
    sync_real_registry(&home);
    let log = home.path().join("runs.jsonl");
    std::fs::write(
        &log,
        concat!(
            "{\"repo\": \"dojo\", \"suite\": \"cairo-parser\", \"when\": \"2025-09-05T15:19:08Z\", \"command\": \"patina scrape --repo dojo\"}\n",
            "{\"repo\": \"libsdl-org/SDL\", \"suite\": \"c-parser\", \"when\": \"2025-09-06\"}\n",
            "{\"repo\": \"nowhere\", \"suite\": \"x\", \"when\": \"2025-09-06\"}\n",
            "this is not json\n",
            "{\"repo\": \"dojo\", \"suite\": \"late\", \"when\": \"not a date\"}\n",
        ),
    )
    .unwrap();
    let out = home.cmd(&["mother", "ingest", log.to_str().unwrap(), "--project", "patina", "--json"]).output().unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["added"]["bench-run"], 2);
    let warnings = report["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("line 3: unknown repo 'nowhere'")));
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("line 4:")));
    assert!(util::stderr(&out).contains("runs.jsonl: line 4"));
    // Issue 17, item 7: a `when` that is not a date was accepted.
    let stderr = util::stderr(&out);
    assert!(stderr.contains("runs.jsonl: line 5: `when` is not a date or time: \"not a date\""), "{stderr}");
    let runs = home.json(&["mother", "log", "--kind", "bench-run"]);
    assert_eq!(runs[1]["payload"]["repo"], "SDL");
    assert_eq!(runs[0]["payload"]["command"], "patina scrape --repo dojo");
    assert_eq!(runs[0]["source"]["start_line"], 1);
}

#[test]
fn bad_inputs_are_reported_and_never_lose_what_was_ingested() {
    let home = Home::new();
    sync_real_registry(&home);
    let dir = home.path().join("inbox");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("good.md"), "Stress tested the SDL repo.\n").unwrap();
    std::fs::write(dir.join("binary.md"), b"\x89PNG\r\n\x1a\n\0\0\0IHDR dojo").unwrap();
    std::fs::write(dir.join("latin1.md"), b"Tested on dojo repo \xe9t\xe9 2025.\n").unwrap();
    std::fs::write(dir.join("huge.md"), "Tested on dojo repo.\n".repeat(10_000)).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("loop")).unwrap();
    std::os::unix::fs::symlink(dir.join("missing.md"), dir.join("dangling.md")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[dependencies\nbroken").unwrap();
    let out = home
        .cmd(&["mother", "ingest", dir.to_str().unwrap(), "--project", "patina", "--max-file-size", "100000", "--json"])
        .output()
        .unwrap();
    let stderr = util::stderr(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<String> =
        report["skipped"].as_array().unwrap().iter().map(|s| format!("{} {}", s["path"], s["reason"])).collect();
    let skipped = skipped.join("\n");
    assert!(skipped.contains("binary.md") && skipped.contains("binary file"), "{skipped}");
    assert!(skipped.contains("huge.md") && skipped.contains("size cap"), "{skipped}");
    assert!(skipped.contains("loop"), "{skipped}");
    assert!(skipped.contains("dangling.md"), "{skipped}");
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("latin1.md") && warnings.contains("invalid UTF-8 at byte 20"), "{warnings}");
    assert!(warnings.contains("Cargo.toml") && warnings.contains("not a valid manifest"), "{warnings}");
    // good.md and latin1.md were ingested.
    assert_eq!(report["added"]["mention"], 2, "{report}");
    let latin = live_mentions(&home).into_iter().find(|m| file_name(m) == "latin1.md").unwrap();
    assert_eq!(latin["payload"]["repo"], "dojo");
    assert_eq!(latin["payload"]["cue_class"], "testing");
    // Raising the cap ingests the huge file; nothing before is lost.
    let report = home.json(&["mother", "ingest", dir.to_str().unwrap(), "--project", "patina"]);
    assert_eq!(report["added"]["mention"], 1);
    assert_eq!(live_mentions(&home).len(), 3);
}

fn mkfifo(path: &std::path::Path) {
    assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Runs `patina ARGS` and fails the test if it has not finished within 30 s.
fn finishes(home: &Home, args: &[&str]) -> std::process::Output {
    let mut child =
        home.cmd(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(30) {
            let _ = child.kill();
            panic!("patina {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Issue 17, item 3: `mkfifo d/p.md; patina mother ingest d/p.md` blocked forever (a FIFO
/// named Cargo.toml too). FIFOs and sockets are listed as skipped; the rest is ingested.
#[test]
fn fifos_and_sockets_are_skipped_and_never_block() {
    let home = Home::new();
    sync_real_registry(&home);
    let dir = home.path().join("inbox");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("good.md"), "Stress tested the SDL repo.\n").unwrap();
    mkfifo(&dir.join("p.md"));
    mkfifo(&dir.join("Cargo.toml"));
    let _socket = std::os::unix::net::UnixListener::bind(dir.join("s.md")).unwrap();
    for target in [dir.clone(), dir.join("p.md"), dir.join("Cargo.toml")] {
        let out = finishes(&home, &["mother", "ingest", target.to_str().unwrap(), "--project", "patina", "--json"]);
        assert!(out.status.success(), "{}", util::stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let skipped: Vec<String> =
            report["skipped"].as_array().unwrap().iter().map(|s| format!("{} {}", s["path"], s["reason"])).collect();
        let expect: &[(&str, &str)] = if target == dir {
            &[("p.md", "FIFO"), ("Cargo.toml", "FIFO"), ("s.md", "socket")]
        } else if target.ends_with("p.md") {
            &[("p.md", "FIFO")]
        } else {
            &[("Cargo.toml", "FIFO")]
        };
        assert_eq!(skipped.len(), expect.len(), "{skipped:?}");
        for (name, what) in expect {
            assert!(
                skipped
                    .iter()
                    .any(|s| s.contains(&format!("/{name}\"")) && s.contains(what) && s.contains("not a regular file")),
                "{name}: {skipped:?}"
            );
        }
    }
    assert_eq!(live_mentions(&home).len(), 1, "good.md was ingested");
}

#[test]
fn user_cue_file_extends_the_vocabulary() {
    let home = Home::new();
    sync_real_registry(&home);
    let note = home.path().join("note.md");
    std::fs::write(&note, "We cribbed the pipeline layout off dojo.\n").unwrap();
    let note = note.to_str().unwrap();
    let plain = home.json(&["mother", "ingest", note, "--project", "patina"]);
    assert_eq!(plain["mentions_by_node"]["dojo"]["plain"], 1);
    std::fs::create_dir_all(home.path().join("rules")).unwrap();
    std::fs::write(home.path().join("rules/cues.toml"), "[learning]\nphrases = [\"cribbed\"]\n").unwrap();
    // The vocabulary changed, so the unchanged file is read again; the plain mention is
    // retracted and a learning one appended.
    let cued = home.json(&["mother", "ingest", note, "--project", "patina"]);
    assert_eq!(cued["mentions_by_node"]["dojo"]["learning"], 1);
    assert_eq!(cued["retracted"], 1);
    let bad = home.path().join("bad.toml");
    std::fs::write(&bad, "[learning\n").unwrap();
    let err = home.fails(&["mother", "ingest", note, "--project", "patina", "--cues", bad.to_str().unwrap()]);
    assert!(err.contains("bad.toml"), "{err}");
}

#[test]
fn killed_ingest_loses_nothing_and_a_rerun_completes_it() {
    let home = Home::new();
    sync_real_registry(&home);
    // Enough files for many write transactions.
    let dir = home.path().join("many");
    let real = shared_data().join("patina-sessions");
    for k in 0..12 {
        let sub = dir.join(format!("{k:02}"));
        std::fs::create_dir_all(&sub).unwrap();
        for entry in std::fs::read_dir(&real).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                std::fs::copy(&path, sub.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    let dir = dir.to_str().unwrap();
    let mut child = home.cmd(&["mother", "ingest", dir, "--project", "patina"]).spawn().unwrap();
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        let out = home.cmd(&["mother", "stats", "--json"]).output().unwrap();
        if out.status.success()
            && serde_json::from_slice::<Value>(&out.stdout).unwrap()["by_kind"]["mention"].as_u64().unwrap_or(0) > 0
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    child.wait().unwrap();
    // The log is readable; a rerun completes it; the result equals one uninterrupted ingest.
    let partial = home.json(&["mother", "stats"])["by_kind"]["mention"].as_u64().unwrap_or(0);
    home.ok(&["mother", "ingest", dir, "--project", "patina"]);
    let total = home.json(&["mother", "stats"])["by_kind"]["mention"].as_u64().unwrap();
    assert!(partial <= total);
    let fresh = Home::new();
    sync_real_registry(&fresh);
    fresh.ok(&["mother", "ingest", dir, "--project", "patina"]);
    assert_eq!(fresh.json(&["mother", "stats"])["by_kind"]["mention"].as_u64().unwrap(), total);
    assert_eq!(home.json(&["mother", "graph"]), fresh.json(&["mother", "graph"]));
}

/// Runs `patina ARGS` in `home`, asserting success within `limit`; returns the time.
fn timed_ok(home: &Home, args: &[&str], limit: std::time::Duration) -> std::time::Duration {
    let started = std::time::Instant::now();
    home.ok(args);
    let took = started.elapsed();
    println!("patina {}: {took:?}", args.join(" ").chars().take(80).collect::<String>());
    assert!(took < limit, "{args:?} took {took:?}");
    took
}

/// The reproducers of issue 17 at full size (each took from 6 s to well over a minute):
/// a line of 100,000 mentions (with a counted result too), a 5 MB line, and 6–7.6 MB
/// manifests.
#[test]
#[ignore = "full-size reproducer; run with --release -- --ignored"]
fn huge_lines_and_manifests_ingest_in_seconds() {
    let home = Home::new();
    sync_real_registry(&home);
    let names = ["dojo", "SDL", "USearch", "opencode", "livestore", "scryer-prolog", "duckdb", "dagger"];
    let dir = home.path().join("inputs");
    let line = |n: usize| (0..n).map(|i| names[i % names.len()]).collect::<Vec<_>>().join(" ");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path.parent().unwrap().to_str().unwrap().to_string()
    };
    let limit = std::time::Duration::from_secs(10);
    let mentions = write("a/2025-01-01-session.md", format!("# Session\n\n- Tested {}\n", line(100_000)));
    timed_ok(&home, &["mother", "ingest", &mentions, "--project", "patina"], limit);
    let words: Vec<&str> = (0..700_000).map(|i| if i % 2 == 0 { names[i / 2 % names.len()] } else { "word" }).collect();
    let long = write("b/2025-01-02-session.md", format!("# Session\n\n- Tested {}\n", words.join(" ")));
    timed_ok(&home, &["mother", "ingest", &long, "--project", "patina"], limit);
    // A weak testing word and a counted result in that sentence: read once, not per mention.
    let counted = write("f/2025-01-03-session.md", format!("# Session\n\n- Indexed {} in 27s\n", line(100_000)));
    timed_ok(&home, &["mother", "ingest", &counted, "--project", "patina"], limit);
    let deps: String = (0..300_000).map(|i| format!("dep{i:06} = \"1.0.0\"\n")).collect();
    let cargo = write("c/Cargo.toml", format!("[package]\nname = \"x\"\n\n[dependencies]\n{deps}"));
    timed_ok(&home, &["mother", "ingest", &cargo, "--project", "patina"], limit);
    let deps: Vec<String> = (0..290_000).map(|i| format!("    \"dep{i:06}\": \"^1.0.0\"")).collect();
    let npm = write("d/package.json", format!("{{\n  \"dependencies\": {{\n{}\n  }}\n}}\n", deps.join(",\n")));
    timed_ok(&home, &["mother", "ingest", &npm, "--project", "patina"], limit);
    let requirements = write("e/requirements.txt", (0..360_000).map(|i| format!("dep{i:06}==1.0.0\n")).collect());
    timed_ok(&home, &["mother", "ingest", &requirements, "--project", "patina"], limit);
    // A registry of 1 MB of nested brackets is refused at once, naming file and line.
    let nested = dir.join("nested.yaml");
    std::fs::write(&nested, format!("nodes: {}{}\n", "[".repeat(500_000), "]".repeat(500_000))).unwrap();
    let started = std::time::Instant::now();
    let err = home.fails(&["mother", "sync", "--registry", nested.to_str().unwrap()]);
    assert!(err.contains("nested.yaml:1: ") && err.contains("deeper than 64"), "{err}");
    assert!(started.elapsed() < limit);
}
