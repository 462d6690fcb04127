//! The weight parameters and language domains (`rules/graph.toml`, compiled in).

use serde::Deserialize;

pub const GRAPH_TOML: &str = include_str!("../../rules/graph.toml");

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub import_per_manifest: f64,
    pub bench_per_run: f64,
    pub command_per_session: f64,
    pub testing_per_session: f64,
    pub learning_per_session: f64,
    pub using_per_session: f64,
    pub sibling_per_specific_domain: f64,
    pub recency_half_life_days: f64,
    pub recency_floor: f64,
    pub feedback_step: f64,
    pub feedback_min: f64,
    pub feedback_max: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Domains {
    languages: Vec<String>,
    max_members: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Learning {
    borrowing_cues: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ending {
    contradiction_cues: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    weights: Weights,
    learning: Learning,
    ending: Ending,
    domains: Domains,
}

/// The parameters of one derivation.
#[derive(Debug, Clone)]
pub struct Params {
    pub weights: Weights,
    /// Lower-cased language and format domains.
    pub languages: Vec<String>,
    /// Lower-cased learning cues that say a pattern was taken from the repo.
    pub borrowing_cues: Vec<String>,
    /// Lower-cased ending cues that contradict a claim (they end LEARNS_FROM too).
    pub contradiction_cues: Vec<String>,
    /// Lower-cased claims of where something came from (`[ending] denied_claims` in
    /// rules/cues.toml, and the verbs of taking a repo's possessive follows): an
    /// ending cue that ends with one denies it ("not ported from", "never took").
    pub denied_claims: Vec<String>,
    /// A domain on more nodes than this is broad: the domain rules ignore it.
    pub max_domain_members: usize,
    /// A hash of the parameters and rule program version (part of the graph's stamp).
    pub fingerprint: [u8; 32],
}

/// Bump when the rule program changes meaning, so stored graphs are re-derived.
const PROGRAM_VERSION: &str = "rules-v6";

impl Params {
    /// The built-in parameters.
    pub fn builtin() -> Params {
        let file: File = toml::from_str(GRAPH_TOML).expect("rules/graph.toml is valid (checked by a test)");
        let mut hasher = blake3::Hasher::new();
        hasher.update(PROGRAM_VERSION.as_bytes());
        hasher.update(GRAPH_TOML.as_bytes());
        // A retraction withdraws the claim before it: a contradiction, listed once, in the
        // cue vocabulary.
        let retractions = crate::ingest::cues::builtin_retractions();
        let mut denied_claims = crate::ingest::cues::builtin_denied_claims();
        denied_claims.extend(crate::ingest::cues::builtin_possessive_claims());
        for r in retractions.iter().chain(&denied_claims) {
            hasher.update(r.as_bytes());
        }
        Params {
            weights: file.weights,
            languages: file.domains.languages.into_iter().map(|d| d.to_lowercase()).collect(),
            borrowing_cues: file.learning.borrowing_cues.into_iter().map(|d| d.trim().to_lowercase()).collect(),
            contradiction_cues: file
                .ending
                .contradiction_cues
                .into_iter()
                .map(|d| d.trim().to_lowercase())
                .chain(retractions)
                .collect(),
            denied_claims,
            max_domain_members: file.domains.max_members.max(2),
            fingerprint: *hasher.finalize().as_bytes(),
        }
    }

    /// Whether an ending cue contradicts a claim (and so ends LEARNS_FROM too): one of
    /// `contradiction_cues`, or a denied claim ("not ported from", "didn't come from", "never
    /// took" before the repo's possessive).
    pub fn is_contradiction(&self, cue: &str) -> bool {
        let cue = cue.trim().to_lowercase();
        self.contradiction_cues.contains(&cue)
            || self.denied_claims.iter().any(|claim| cue.strip_suffix(claim.as_str()).is_some_and(|n| n.ends_with(' ')))
    }

    /// Whether a strong learning cue says a pattern was taken from the repo: one of
    /// `borrowing_cues`, or a gapped phrase whose verb and preposition are one ("took the
    /// credential handling from" is "took from").
    pub fn is_borrowing(&self, cue: &str) -> bool {
        let cue = cue.trim().to_lowercase();
        if self.borrowing_cues.contains(&cue) {
            return true;
        }
        let mut words = cue.split_whitespace();
        match (words.next(), words.next_back()) {
            (Some(verb), Some(preposition)) => self.borrowing_cues.contains(&format!("{verb} {preposition}")),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn builtin_parameters_parse() {
        let params = super::Params::builtin();
        assert!(params.languages.contains(&"rust".to_string()));
        assert!(params.weights.import_per_manifest > 0.0);
        assert!(params.is_borrowing("Took the credential handling from"));
        assert!(params.is_borrowing("borrowed from") && !params.is_borrowing("tested the parser on"));
    }

    /// A contradiction cue only ever meets an ending mention's cue: each must be an ending
    /// phrase of `rules/cues.toml`, or it can never fire.
    #[test]
    fn every_contradiction_cue_is_an_ending_phrase() {
        let params = super::Params::builtin();
        let cues = crate::ingest::cues::Cues::load(&[]).unwrap();
        for cue in &params.contradiction_cues {
            let ending = cues.ending_before.contains(cue) || cues.ending_after.contains(cue);
            assert!(ending || cues.ending_retractions.contains(cue), "{cue}");
        }
        for retraction in &cues.ending_retractions {
            assert!(params.contradiction_cues.contains(retraction), "{retraction}");
        }
    }
}
