//! `patina mcp` with a real MCP client (the official Python SDK) and with raw JSON-RPC
//! lines (malformed input must not kill the server).

mod util;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use util::{example_world, root};

/// A Python that has the official MCP SDK: `python3` if it does, else a virtual
/// environment under `target/` created once with pip from `tests/requirements.txt` (the
/// way the model is obtained: the ordinary client, no URLs), so `cargo test` needs no
/// setup step. `PATINA_TEST_VENV=1` always uses the venv.
fn python_with_mcp() -> std::path::PathBuf {
    let has_mcp = |python: &std::path::Path| {
        Command::new(python).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success())
    };
    let system = std::path::PathBuf::from("python3");
    if std::env::var_os("PATINA_TEST_VENV").is_none() && has_mcp(&system) {
        return system;
    }
    let venv = root().join("target").join("test-venv");
    let python = venv.join("bin").join("python");
    if has_mcp(&python) {
        return python;
    }
    let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).output().expect("python3 runs");
    assert!(made.status.success(), "creating {}: {}", venv.display(), util::stderr(&made));
    let pip = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(root().join("tests/requirements.txt"))
        .output()
        .expect("pip runs");
    assert!(pip.status.success(), "installing the MCP SDK into {}: {}", venv.display(), util::stderr(&pip));
    assert!(has_mcp(&python), "the MCP SDK is still missing in {}", venv.display());
    python
}

#[test]
fn official_python_client_uses_every_tool() {
    let python = python_with_mcp();
    let home = example_world();
    let out = Command::new(&python)
        .arg(root().join("tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_patina"))
        .arg(home.path())
        .env("PATINA_LOCK_WAIT", "10")
        .env("PATINA_MOTHER_URL", "off")
        .output()
        .unwrap();
    assert!(out.status.success(), "client failed:\n{}\n{}", util::stdout(&out), util::stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("{report}");
    let tools: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    for tool in [
        "context",
        "explain_edge",
        "feedback",
        "graph_neighbors",
        "graph_path",
        "graph_stats",
        "link",
        "scry",
        "scry_detail",
        "unlink",
        "observe",
        "relate",
        "unrelate",
        "build_context",
        "get_observation",
    ] {
        assert!(tools.contains(&tool), "{tool} missing from {tools:?}");
    }
    // The agent's link and unlink are in the log, from MCP.
    let links = home.json(&["mother", "log", "--kind", "link-added"]);
    assert_eq!(links[0]["source"]["type"], "mcp");
    // Snippets are a fraction of the full content they point to.
    assert!(report["scry_bytes"].as_u64().unwrap() < report["full_content_bytes"].as_u64().unwrap());
    let feedback = home.json(&["mother", "log", "--kind", "route-feedback"]);
    assert_eq!(feedback[0]["source"]["type"], "mcp");
    assert_eq!(feedback[0]["payload"]["repo"], "vectorlite");
    // The agent's observations are events from MCP.
    let observations = home.json(&["mother", "log", "--kind", "observation"]);
    assert_eq!(observations.as_array().unwrap().len(), 2);
    assert!(observations.as_array().unwrap().iter().all(|o| o["source"]["type"] == "mcp"));
}

#[test]
fn malformed_lines_do_not_kill_the_server() {
    let home = example_world();
    let mut child = Command::new(env!("CARGO_BIN_EXE_patina"))
        .args(["mcp", "--home"])
        .arg(home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    };
    call(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
    );
    let init: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "patina");
    call(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    call("{this is not json");
    call(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"graph_stats"}}"#);
    call(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"graph_stats","arguments":{}}}"#);
    let mut answered = false;
    let mut parse_error = false;
    for line in lines.by_ref().take(4) {
        let value: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if value["error"]["code"] == -32700 {
            // JSON-RPC 2.0 §5.1: a line that is not JSON gets a Parse error with id null.
            assert_eq!(value["id"], serde_json::Value::Null, "{value}");
            parse_error = true;
        }
        if value["id"] == 3 {
            assert_eq!(value["result"]["isError"], false, "{value}");
            assert!(value["result"]["content"][0]["text"].as_str().unwrap().contains("\"nodes\": 4"));
            answered = true;
            break;
        }
    }
    assert!(answered, "the server answered after malformed input");
    assert!(parse_error, "the malformed line got a -32700 reply");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "clean exit when the client goes away: {status}");
}
