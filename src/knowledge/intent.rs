//! What a query asks for: advice (a decision, a convention) or code.
//!
//! An advice query ("should I add a crate for this?", "can we drop the old path?") is
//! answered by the project's beliefs first; `scry` places the knowledge channel's best
//! hits ahead of the code for it. The vocabulary is data (`rules/intent.toml`).
//!
//! Invariant: a pure function of the query text; no model.

use std::sync::OnceLock;

const INTENT_TOML: &str = include_str!("../../rules/intent.toml");

#[derive(Debug, serde::Deserialize)]
struct File {
    advice: Advice,
}

#[derive(Debug, serde::Deserialize)]
struct Advice {
    words: Vec<String>,
    verbs: Vec<String>,
    subjects: Vec<String>,
    phrases: Vec<String>,
}

fn vocabulary() -> &'static Advice {
    static VOCABULARY: OnceLock<Advice> = OnceLock::new();
    VOCABULARY.get_or_init(|| {
        let file: File = toml::from_str(INTENT_TOML).expect("rules/intent.toml is valid (checked by a test)");
        file.advice
    })
}

/// The words of `query`, lower-cased (apostrophes kept: `shouldn't`).
fn words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('’', "'").to_lowercase())
        .collect()
}

/// The first word of `query` and of each of its sentences (after `.`, `?` or `!` and a
/// space: `self.is_empty()` is no sentence), lower-cased.
fn sentence_starts(query: &str) -> Vec<String> {
    let mut starts = vec![0];
    let mut chars = query.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if matches!(c, '.' | '?' | '!')
            && let Some(&(next, space)) = chars.peek()
            && space.is_whitespace()
        {
            starts.push(next);
        }
    }
    starts.iter().filter_map(|&at| words(&query[at..]).into_iter().next()).collect()
}

/// The cue that makes `query` ask for advice (`"should"`, `"can I"`, `"ok to"`), if any.
pub fn advice(query: &str) -> Option<String> {
    let v = vocabulary();
    let words = words(query);
    if let Some(w) = words.iter().find(|w| v.words.contains(w)) {
        return Some(w.clone());
    }
    // A yes/no question: a verb opening the query or one of its sentences ("… lives
    // inside the scrape command. Is importing it from there OK?").
    if let Some(first) = sentence_starts(query).into_iter().find(|w| v.verbs.contains(w)) {
        return Some(first);
    }
    for pair in words.windows(2) {
        if v.verbs.contains(&pair[0]) && v.subjects.contains(&pair[1]) {
            return Some(format!("{} {}", pair[0], pair[1]));
        }
    }
    let text = format!(" {} ", words.join(" "));
    v.phrases.iter().find(|p| text.contains(&format!(" {p} "))).cloned()
}

#[cfg(test)]
mod tests {
    use super::advice;

    #[test]
    fn decisions_ask_for_advice_lookups_do_not() {
        for q in [
            "Should I pull this into a shared module?",
            "Can I just delete the old Dockerfile?",
            "is it fine to make these functions async",
            "Do we need a setting for that?",
            "Is importing it from there OK?",
            "Which config files shouldn't be committed?",
            "The insert function lives inside the scrape command. Is importing it from there OK?",
            "Why do we keep the old table around?",
            "what is our convention for error types",
            "Not sure whether we split the crate",
            "the right way to version the index format",
        ] {
            assert!(advice(q).is_some(), "{q}");
        }
        for q in [
            "how does DuckDB replay the write-ahead log when a database is reopened",
            "where does USearch set the default graph degree",
            "what algorithm does SDL use to resample audio",
            "vector similarity search implementation",
            "the log is replayed on open. where does DuckDB replay the log",
            "version 1.2 of the index format",
            "where does the writer call self.is_empty() before a flush",
            "where does the planner decide whether to use an index",
            "when to compact: the trigger in the LSM tree",
        ] {
            assert_eq!(advice(q), None, "{q}");
        }
        assert_eq!(advice("So can I add a crate?").as_deref(), Some("can i"));
        assert_eq!(advice("Is importing it OK?").as_deref(), Some("is"));
    }
}
