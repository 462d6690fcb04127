//! Bench logs: JSON Lines, one benchmark or test-suite run per line.
//!
//! ```json
//! {"repo": "dojo", "suite": "cairo-parser", "when": "2025-09-05T15:19:08Z",
//!  "project": "patina", "command": "patina scrape code --repo dojo"}
//! ```
//! `repo`, `suite` and `when` are required; `project` defaults to the ingest's project;
//! `command` is optional; other fields are ignored. Blank lines are skipped. A bad line
//! is a diagnostic naming its line; the other lines still count.

use std::path::Path;

use serde::Deserialize;

/// Whether a file is a bench log, by extension.
pub fn is_bench_log(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("jsonl" | "ndjson"))
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BenchLine {
    pub repo: String,
    pub suite: String,
    pub when: String,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
}

/// Parsed runs with their 1-based line numbers, and diagnostics for bad lines.
pub fn parse(text: &str) -> (Vec<(u32, BenchLine)>, Vec<String>) {
    let mut runs = Vec::new();
    let mut diagnostics = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<BenchLine>(line) {
            Ok(run) if run.repo.trim().is_empty() || run.suite.trim().is_empty() => {
                diagnostics.push(format!("line {line_no}: `repo` and `suite` must not be empty"))
            }
            Ok(run) => runs.push((line_no, run)),
            Err(err) => diagnostics.push(format!("line {line_no}: {err}")),
        }
    }
    (runs, diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_and_bad_lines() {
        let text = "{\"repo\":\"dojo\",\"suite\":\"s\",\"when\":\"2025-09-05\"}\n\nnot json\n{\"repo\":\"x\"}\n";
        let (runs, diags) = parse(text);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].0, 1);
        assert_eq!(diags.len(), 2);
        assert!(diags[0].starts_with("line 3:") && diags[1].contains("suite"), "{diags:?}");
    }
}
