//! Helpers for integration tests: a temporary `PATINA_HOME` and a way to run `patina`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary Patina home; every command run through it uses `--home`.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home { dir: tempfile::tempdir().expect("temp dir") }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn store_path(&self) -> PathBuf {
        self.path().join("mother").join("store.redb")
    }

    /// A `patina` command with `--home` set and a short lock wait.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_patina"));
        // No mother daemon unless a test starts one (inside a container the default would
        // be host.docker.internal).
        cmd.args(args)
            .arg("--home")
            .arg(self.path())
            .env("PATINA_LOCK_WAIT", "2")
            .env("PATINA_MOTHER_URL", "off")
            .env_remove("PATINA_HOME");
        cmd
    }

    /// Runs `patina ARGS`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("run patina");
        assert!(out.status.success(), "patina {args:?} failed ({}):\n{}", out.status, stderr(&out));
        String::from_utf8(out.stdout).expect("stdout is UTF-8")
    }

    /// Runs `patina ARGS`, asserts failure with exit code 2, returns stderr.
    pub fn fails(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("run patina");
        assert_eq!(out.status.code(), Some(2), "patina {args:?} should fail with 2:\n{}", stdout(&out));
        assert!(out.stdout.is_empty(), "errors go to stderr, not stdout: {}", stdout(&out));
        stderr(&out)
    }

    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let text = self.ok(&all);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("patina {args:?} --json is not JSON ({e}):\n{text}"))
    }
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the real session logs, registry and queryset live: `$PATINA_SHARED_DATA`, else
/// `../shared/data` beside the repository (`.ci/run` sets the variable for a clone made
/// elsewhere).
pub fn shared_data() -> PathBuf {
    match std::env::var_os("PATINA_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("..").join("shared").join("data"),
    }
}

/// A fresh home with the real registry (`patina-registry.yaml` of the shared data) synced.
pub fn real_registry_home() -> Home {
    let home = Home::new();
    let registry = shared_data().join("patina-registry.yaml");
    home.ok(&["mother", "sync", "--registry", registry.to_str().unwrap()]);
    home
}

pub fn example_registry() -> String {
    root().join("examples/world/registry.yaml").display().to_string()
}

/// A home with the example world synced, its session logs and bench log ingested for
/// `atlas`, and its four repos indexed (lexically, to keep tests fast).
pub fn example_world() -> Home {
    let home = Home::new();
    home.ok(&["mother", "sync", "--registry", &example_registry()]);
    let world = root().join("examples/world");
    home.ok(&[
        "mother",
        "ingest",
        world.join("sessions").to_str().unwrap(),
        world.join("bench-runs.jsonl").to_str().unwrap(),
        "--project",
        "atlas",
    ]);
    for repo in ["atlas", "ecsdemo", "vectorlite", "quickparse"] {
        home.ok(&["repo", "add", repo, "--lexical-only"]);
    }
    home
}

/// Starts `patina serve --bind 127.0.0.1:0 ARGS` for `home` and waits for the address it
/// listens on: (the daemon, its base URL). Its stderr keeps draining in the background.
pub fn start_daemon(home: &Home, args: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut all = vec!["serve", "--bind", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let mut child = home
        .cmd(&all)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run patina serve");
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on ").nth(1) {
                let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    });
    let url = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the daemon says where it listens");
    (child, url)
}

/// The real embedding model's directory (`$PATINA_MODELS`, else `target/patina-models`)
/// when its files are there (`.ci/run` fetches them before the tests). Under CI a missing
/// model is an error; elsewhere the caller skips what needs it, saying so.
pub fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PATINA_MODELS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target").join("patina-models"));
    if ["model.onnx", "tokenizer.json", "libonnxruntime.so.1.31.1"].iter().all(|f| dir.join(f).is_file()) {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("CI needs the real model in {} (`patina models fetch`)", dir.display());
    }
    eprintln!("SKIPPING what needs the model: none in {}", dir.display());
    None
}
