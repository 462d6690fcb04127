//! Bench logs: JSON Lines, one benchmark or test-suite run per line.
//!
//! ```json
//! {"repo": "dojo", "suite": "cairo-parser", "when": "2025-09-05T15:19:08Z",
//!  "project": "patina", "command": "patina scrape code --repo dojo"}
//! ```
//! `repo`, `suite` and `when` are required; `project` defaults to the ingest's project;
//! `command` is optional; other fields are ignored. `when` must be a date (`2025-09-05`),
//! a civil date-time (`2025-09-05T15:19:08`) or an RFC 3339 timestamp. Blank lines are
//! skipped. A bad line is a diagnostic naming its line; the other lines still count.

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
            Ok(run) if !is_date_or_time(&run.when) => diagnostics.push(format!(
                "line {line_no}: `when` is not a date or time: {:?} (expected e.g. 2025-09-05 or 2025-09-05T15:19:08Z); line skipped",
                clip(&run.when, 40)
            )),
            Ok(run) => runs.push((line_no, run)),
            Err(err) => diagnostics.push(format!("line {line_no}: {err}")),
        }
    }
    (runs, diagnostics)
}

/// A date, civil date-time or timestamp, starting with its `YYYY-MM-DD` date (which is what
/// the graph reads, `graph::facts::parse_date`).
fn is_date_or_time(when: &str) -> bool {
    let date_first = when.get(..10).is_some_and(|d| d.parse::<jiff::civil::Date>().is_ok());
    date_first
        && (when.parse::<jiff::Timestamp>().is_ok()
            || when.parse::<jiff::civil::DateTime>().is_ok()
            || when.parse::<jiff::civil::Date>().is_ok())
}

/// At most `max` characters of `text`, for quoting user input in a message.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
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

    #[test]
    fn when_must_be_a_date_or_a_time() {
        let line = |when: &str| format!("{{\"repo\":\"dojo\",\"suite\":\"s\",\"when\":{when:?}}}\n");
        for good in ["2025-09-05", "2025-09-05T15:19:08Z", "2025-09-05T15:19:08+02:00", "2025-09-05T15:19:08"] {
            let (runs, diags) = parse(&line(good));
            assert_eq!((runs.len(), diags.len()), (1, 0), "{good}: {diags:?}");
        }
        let long = "x".repeat(10_000);
        for bad in ["not a date", "", "2025-13-45", "yesterday 2025-09-05", long.as_str()] {
            let (runs, diags) = parse(&format!("\n{}", line(bad)));
            assert!(runs.is_empty(), "{bad:?} was accepted");
            assert_eq!(diags.len(), 1, "{diags:?}");
            assert!(diags[0].starts_with("line 2: `when` is not a date or time"), "{diags:?}");
            assert!(diags[0].len() < 200, "the value is clipped: {}", diags[0]);
        }
    }
}
