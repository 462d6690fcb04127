//! The mother daemon (`patina serve`), started for real on a free loopback port and driven
//! with a real HTTP client: the same answers as in-process, the error statuses, the token,
//! one daemon per home, and a client that falls back when the daemon dies.

mod util;

use std::process::Child;
use std::time::{Duration, Instant};

use patina::daemon::client::{ClientError, MotherClient};
use serde_json::{Value, json};
use util::{Home, example_world};

struct Daemon {
    child: Child,
    url: String,
}

impl Daemon {
    /// Starts `patina serve --bind 127.0.0.1:0 --log ARGS` and waits for its address.
    fn start(home: &Home, args: &[&str]) -> Daemon {
        let mut all = vec!["--log"];
        all.extend_from_slice(args);
        let (child, url) = util::start_daemon(home, &all);
        Daemon { child, url }
    }

    fn client(&self) -> MotherClient {
        MotherClient::new(&self.url, None)
    }

    fn signal(mut self, signal: &str) -> Option<i32> {
        std::process::Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the daemon did not stop on {signal}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hits(result: &Value) -> Vec<(String, String, u64, String)> {
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["repo"].as_str().unwrap().to_string(),
                h["path"].as_str().unwrap().to_string(),
                h["start_line"].as_u64().unwrap(),
                format!("{:.5}", h["fused_score"].as_f64().unwrap()),
            )
        })
        .collect()
}

#[test]
fn scry_through_the_daemon_equals_scry_in_process() {
    let home = example_world();
    let daemon = Daemon::start(&home, &["--no-socket"]);
    let health = daemon.client().get("/health").unwrap();
    assert_eq!(health["status"], "ok");
    for query in ["how does ecsdemo store components", "cosine similarity search", "parser combinator"] {
        let local = home.json(&["scry", query, "--project", "atlas", "--lexical-only"]);
        let remote = daemon
            .client()
            .post("/scry", &json!({ "query": query, "project": "atlas", "lexical_only": true }))
            .unwrap();
        assert!(!hits(&local).is_empty(), "{query}: {local}");
        assert_eq!(hits(&local), hits(&remote), "{query}");
        assert_eq!(local["route"]["searched"], remote["route"]["searched"], "{query}");
        // The CLI with PATINA_MOTHER_URL goes through the daemon and prints the same.
        let out = home
            .cmd(&["scry", query, "--project", "atlas", "--lexical-only", "--json"])
            .env("PATINA_MOTHER_URL", &daemon.url)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
        let via: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(hits(&local), hits(&via), "{query}");
        // Its query id is the daemon's, and --detail through the daemon opens it.
        let id = via["query_id"].as_str().unwrap();
        let out = home.cmd(&["scry", "--detail", id, "1"]).env("PATINA_MOTHER_URL", &daemon.url).output().unwrap();
        assert!(out.status.success(), "{}", util::stderr(&out));
    }
    // Graph endpoints answer like the commands.
    let stats = daemon.client().get("/graph/stats").unwrap();
    assert_eq!(stats, home.json(&["mother", "stats"])["graph"]);
    let explain = daemon
        .client()
        .post("/graph/explain", &json!({"from": "atlas", "type": "LEARNS_FROM", "to": "ecsdemo"}))
        .unwrap();
    assert_eq!(explain["exists"], true);
    let neighbors = daemon.client().post("/graph/neighbors", &json!({"id": "atlas", "direction": "out"})).unwrap();
    assert!(!neighbors["neighbors"].as_array().unwrap().is_empty());
    assert_eq!(daemon.signal("-TERM"), Some(0), "SIGTERM is a clean shutdown");
}

#[test]
fn bad_requests_get_clear_statuses() {
    let home = example_world();
    let daemon = Daemon::start(&home, &[]);
    let raw = |path: &str, body: &str| -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let response =
            agent.post(&format!("{}{path}", daemon.url)).header("content-type", "application/json").send(body).unwrap();
        let status = response.status().as_u16();
        (status, response.into_body().read_to_string().unwrap())
    };
    let (status, text) = raw("/scry", "{\"query\": ");
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("error"), "{text}");
    let (status, text) = raw("/scry", "{\"quarry\": \"x\"}");
    assert_eq!(status, 400, "unknown field: {text}");
    let big = format!("{{\"query\": \"{}\"}}", "a".repeat(400 * 1024));
    let (status, _) = raw("/scry", &big);
    assert_eq!(status, 413);
    let (status, text) = raw("/no/such/route", "{}");
    assert_eq!(status, 404, "{text}");
    let err = daemon.client().post("/scry/detail", &json!({"query_id": "q999", "rank": 1})).unwrap_err();
    assert!(matches!(err, ClientError::Refused { status: 404, .. }), "{err}");
    // The socket under the home answers too.
    let socket = home.path().join("mother").join("serve.sock");
    assert!(socket.exists());
    // A second daemon on the same home says who holds it.
    let out = home.cmd(&["serve", "--bind", "127.0.0.1:0", "--no-socket"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(util::stderr(&out).contains("a daemon already serves"), "{}", util::stderr(&out));
    assert_eq!(daemon.signal("-INT"), Some(0));
    assert!(!socket.exists(), "the socket is removed on shutdown");
}

#[test]
fn remote_binds_need_a_token_and_tokens_are_checked() {
    let home = Home::new();
    let out = home.cmd(&["serve", "--bind", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(util::stderr(&out).contains("not a loopback address"), "{}", util::stderr(&out));
    let out = home
        .cmd(&["serve", "--bind", "0.0.0.0:0", "--allow-remote"])
        .env_remove("PATINA_MOTHER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--allow-remote without a token");
    let daemon = Daemon::start(&home, &["--token", "s3cret", "--no-socket"]);
    let err = daemon.client().get("/health").unwrap_err();
    assert!(matches!(err, ClientError::Refused { status: 401, .. }), "{err}");
    let ok = MotherClient::new(&daemon.url, Some("s3cret".into())).get("/health").unwrap();
    assert_eq!(ok["status"], "ok");
}

#[test]
fn a_killed_daemon_leaves_the_client_working_and_the_store_intact() {
    let home = example_world();
    let daemon = Daemon::start(&home, &["--no-socket"]);
    let url = daemon.url.clone();
    // Feedback through the daemon writes an event; then the daemon dies without warning.
    let result = daemon
        .client()
        .post("/scry", &json!({ "query": "archetype storage", "project": "atlas", "lexical_only": true }))
        .unwrap();
    let id = result["query_id"].as_str().unwrap().to_string();
    daemon.client().post("/scry/feedback", &json!({ "query_id": id, "rank": 1, "useful": true })).unwrap();
    assert_eq!(daemon.signal("-KILL"), None);
    let out = home
        .cmd(&["scry", "archetype storage", "--project", "atlas", "--lexical-only", "--json"])
        .env("PATINA_MOTHER_URL", &url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", util::stderr(&out));
    assert!(util::stderr(&out).contains("unreachable") && util::stderr(&out).contains("working in-process"));
    let local: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits(&local), hits(&result));
    assert_eq!(home.json(&["mother", "derive", "--check"])["check"], "identical");
    let feedback = home.json(&["mother", "log", "--kind", "route-feedback"]);
    assert_eq!(feedback.as_array().unwrap().len(), 1, "{feedback}");
    // A new daemon starts at once: the kernel released the dead one's lock.
    let again = Daemon::start(&home, &["--no-socket"]);
    assert_eq!(again.client().get("/health").unwrap()["status"], "ok");
}
