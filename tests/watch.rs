//! `patina mother watch` against real files and a second process.

mod util;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use util::{Home, example_registry, shared_data};

struct Watcher {
    child: Child,
    /// What the watcher printed so far (read by threads as it comes).
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

/// Collects a child's output as it comes.
fn collect(pipe: impl Read + Send + 'static, into: Arc<Mutex<String>>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            let mut text = into.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    })
}

impl Watcher {
    fn start(home: &Home, args: &[&str]) -> Watcher {
        let mut all = vec!["mother", "watch", "--debounce-ms", "100"];
        all.extend_from_slice(args);
        let mut child = home.cmd(&all).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let (stdout, stderr) = (Arc::new(Mutex::new(String::new())), Arc::new(Mutex::new(String::new())));
        let readers = vec![
            collect(child.stdout.take().unwrap(), stdout.clone()),
            collect(child.stderr.take().unwrap(), stderr.clone()),
        ];
        // Let it register its watches and catch up.
        std::thread::sleep(Duration::from_millis(800));
        Watcher { child, stdout, stderr, readers }
    }

    fn stdout_has(&self, what: &str) -> bool {
        self.stdout.lock().unwrap().contains(what)
    }

    fn stderr_has(&self, what: &str) -> bool {
        self.stderr.lock().unwrap().contains(what)
    }

    /// Sends `signal` and returns (exit code, stdout, stderr).
    fn stop(mut self, signal: &str) -> (Option<i32>, String, String) {
        let pid = self.child.id().to_string();
        std::process::Command::new("kill").args([signal, &pid]).status().unwrap();
        let status = self.child.wait().unwrap();
        for reader in self.readers {
            reader.join().unwrap();
        }
        let take = |text: &Arc<Mutex<String>>| std::mem::take(&mut *text.lock().unwrap());
        (status.code(), take(&self.stdout), take(&self.stderr))
    }
}

fn has_edge(home: &Home, from: &str, t: &str, to: &str) -> bool {
    home.json(&["mother", "graph"])
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["from"] == from && e["type"] == t && e["to"] == to)
}

/// Polls `cond` until it holds. The limit is generous: it only ever fails a broken watcher,
/// while a slow or loaded machine merely waits longer.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if cond() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

fn world(home: &Home) -> PathBuf {
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let dir = home.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn appending_makes_an_edge_and_deleting_removes_it() {
    let home = Home::new();
    let dir = world(&home);
    let log = dir.join("20260201-100000.md");
    write(&log, "# Session: a\n**ID**: 20260201-100000\n- Scraped the quickparse repo.\n");
    let watcher = Watcher::start(&home, &[dir.to_str().unwrap(), "--project", "atlas"]);
    assert!(!has_edge(&home, "atlas", "TESTS_WITH", "quickparse"), "a weak cue alone is not enough");
    // A second session appears and is appended to while watch runs.
    let second = dir.join("20260202-100000.md");
    write(&second, "# Session: b\n**ID**: 20260202-100000\n");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&second)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"- Tested on quickparse again, all green.\n"))
        .unwrap();
    wait_for("the edge to appear", || has_edge(&home, "atlas", "TESTS_WITH", "quickparse"));
    // Other commands work while watch runs.
    home.ok(&["mother", "link", "atlas", "USES", "vectorlite"]);
    home.ok(&["mother", "explain", "atlas", "TESTS_WITH", "quickparse"]);
    home.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "atlas"]);
    // Deleting the log retracts its facts and the edge that depended on them.
    std::fs::remove_file(&second).unwrap();
    wait_for("the edge to disappear", || !has_edge(&home, "atlas", "TESTS_WITH", "quickparse"));
    // The store holds the change before the watcher prints it.
    wait_for("the removal to be printed", || watcher.stdout_has("- atlas TESTS_WITH quickparse"));
    let (code, stdout, stderr) = watcher.stop("-INT");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stdout.contains("+ atlas TESTS_WITH quickparse") && stdout.contains("session 20260202-100000"), "{stdout}");
    assert!(stdout.contains("- atlas TESTS_WITH quickparse"), "{stdout}");
    // Another process stored the link's edge (and may have derived the session's edge
    // before the watcher did): the stream still reports each change once.
    assert!(stdout.contains("+ atlas USES vectorlite"), "{stdout}");
    assert_eq!(stdout.matches("+ atlas TESTS_WITH quickparse").count(), 1, "{stdout}");
    assert!(stderr.contains("everything processed is committed"), "{stderr}");
    assert!(has_edge(&home, "atlas", "USES", "vectorlite"));
}

#[test]
fn a_thousand_files_at_once_end_in_the_graph_of_a_fresh_ingest() {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", shared_data().join("patina-registry.yaml").to_str().unwrap()]);
    let dir = home.path().join("checkout");
    std::fs::create_dir_all(&dir).unwrap();
    let watcher = Watcher::start(&home, &[dir.to_str().unwrap(), "--project", "patina", "--json"]);
    // Like a `git checkout` of another branch: many files appear at once.
    let real: Vec<PathBuf> = std::fs::read_dir(shared_data().join("patina-sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    let mut n = 0;
    for k in 0..4 {
        let sub = dir.join(format!("b{k}"));
        std::fs::create_dir_all(&sub).unwrap();
        for path in real.iter().take(250) {
            std::fs::copy(path, sub.join(path.file_name().unwrap())).unwrap();
            n += 1;
        }
    }
    assert_eq!(n, 1000);
    let fresh = Home::new();
    fresh.ok(&["mother", "sync", "--registry", shared_data().join("patina-registry.yaml").to_str().unwrap()]);
    fresh.ok(&["mother", "ingest", dir.to_str().unwrap(), "--project", "patina"]);
    let expected = fresh.json(&["mother", "graph"]);
    let expected_mentions = fresh.json(&["mother", "stats"])["by_kind"]["mention"].clone();
    wait_for("the watcher to ingest every file", || {
        home.json(&["mother", "stats"])["by_kind"]["mention"] == expected_mentions
    });
    wait_for("the same graph", || home.json(&["mother", "graph"]) == expected);
    let (code, stdout, _) = watcher.stop("-TERM");
    assert!(code == Some(130) || code == Some(0));
    for line in stdout.lines() {
        let change: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(change["change"].is_string() && change["latency_ms"].is_number(), "{line}");
    }
}

#[test]
fn once_catches_up_and_a_vanished_folder_is_watched_again() {
    let home = Home::new();
    let dir = world(&home);
    write(&dir.join("1.md"), "**ID**: 20260301-1\n- Studied ecsdemo's scheduler.\n");
    write(&dir.join("2.md"), "**ID**: 20260302-1\n- Learned from ecsdemo's archetypes.\n");
    let out = home.ok(&["mother", "watch", dir.to_str().unwrap(), "--project", "atlas", "--once"]);
    assert!(out.contains("+ atlas LEARNS_FROM ecsdemo"), "{out}");
    assert!(out.contains("caught up: 2 files read"), "{out}");
    let again = home.ok(&["mother", "watch", dir.to_str().unwrap(), "--project", "atlas", "--once"]);
    assert!(again.contains("caught up: 0 files read, 2 unchanged"), "{again}");

    let watcher = Watcher::start(&home, &[dir.to_str().unwrap(), "--project", "atlas"]);
    let moved = home.path().join("elsewhere");
    std::fs::rename(&dir, &moved).unwrap();
    wait_for("the watcher to see the folder go", || watcher.stderr_has("disappeared"));
    std::fs::rename(&moved, &dir).unwrap();
    write(&dir.join("3.md"), "**ID**: 20260303-1\n- Stress tested quickparse.\n");
    write(&dir.join("4.md"), "**ID**: 20260304-1\n- Tested on quickparse.\n");
    wait_for("the edge from the folder that came back", || has_edge(&home, "atlas", "TESTS_WITH", "quickparse"));
    let (_, _, stderr) = watcher.stop("-INT");
    assert!(stderr.contains("is back"), "{stderr}");
}

/// Issue 17, item 3: `mother watch d` blocked in open() on a FIFO created in the watched
/// directory, held the store and ignored SIGINT/SIGTERM.
#[test]
fn a_fifo_created_in_a_watched_dir_blocks_nothing() {
    let home = Home::new();
    let dir = world(&home);
    let watcher = Watcher::start(&home, &[dir.to_str().unwrap(), "--project", "atlas"]);
    assert!(std::process::Command::new("mkfifo").arg(dir.join("p.md")).status().unwrap().success());
    std::thread::sleep(Duration::from_millis(500));
    // Later files are still processed, and other commands still get the store.
    write(&dir.join("1.md"), "**ID**: 20260301-1\n- Studied ecsdemo's scheduler.\n");
    write(&dir.join("2.md"), "**ID**: 20260302-1\n- Learned from ecsdemo's archetypes.\n");
    wait_for("the edge from files written after the FIFO", || has_edge(&home, "atlas", "LEARNS_FROM", "ecsdemo"));
    home.ok(&["mother", "link", "atlas", "USES", "vectorlite"]);
    wait_for("the FIFO to be reported", || watcher.stderr_has("FIFO"));
    let started = Instant::now();
    let (code, _, stderr) = watcher.stop("-INT");
    assert!(started.elapsed() < Duration::from_secs(5), "stopped promptly");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("p.md") && stderr.contains("FIFO"), "the FIFO is reported as skipped: {stderr}");
}

#[test]
fn watch_without_paths_needs_registered_paths() {
    let home = Home::new();
    let err = home.fails(&["mother", "watch", "--once"]);
    assert!(err.contains("mother sync"), "{err}");
    home.ok(&["mother", "sync", "--registry", shared_data().join("patina-registry.yaml").to_str().unwrap()]);
    let out = home.cmd(&["mother", "watch", "--once"]).env("HOME", home.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(util::stderr(&out).contains("nothing to watch"), "{}", util::stderr(&out));
    let err = home.fails(&["mother", "watch", "/no/such/dir", "--once"]);
    assert!(err.contains("/no/such/dir"), "{err}");
}
