//! The weight parameters and language domains (`rules/graph.toml`, compiled in), and the
//! claims that contradict (from the cue vocabulary: the built-in one and a home's).

use serde::Deserialize;

use crate::error::{Error, InvalidInput};
use crate::home::PatinaHome;
use crate::ingest::cues::ClaimVocabulary;

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
    /// Lower-cased words that make a removal's object a credit (`[ending] credit_words`): an
    /// ending cue naming one ("removed … credit") withdraws a claim.
    pub credit_words: Vec<String>,
    /// Lower-cased nouns of a part or role of the repo in the project
    /// ([`ClaimVocabulary::part_nouns`]): a strong cue of one names what an ending ended
    /// as often as it says the repo is back, and so starts no ended edge again.
    pub part_nouns: Vec<String>,
    /// A domain on more nodes than this is broad: the domain rules ignore it.
    pub max_domain_members: usize,
    /// A hash of the parameters and rule program version (part of the graph's stamp).
    pub fingerprint: [u8; 32],
}

/// Bump when the rule program changes meaning, so stored graphs are re-derived.
const PROGRAM_VERSION: &str = "rules-v7";

impl Params {
    /// The built-in parameters.
    pub fn builtin() -> Params {
        Params::with_claims(ClaimVocabulary::builtin())
    }

    /// The parameters of a home: the built-in ones with the claims of the home's cue file
    /// (`rules/cues.toml`), the file ingest reads too (unless `--cues FILE` replaces it for
    /// one ingest). Every derivation from a home uses these, read again each time, so the
    /// stored graph's fingerprint is the same whichever process derives it. A malformed
    /// file is an error here as it is for ingest.
    pub fn for_home(home: &PatinaHome) -> Result<Params, Error> {
        let cue_file = home.root().join("rules").join("cues.toml");
        let claims = ClaimVocabulary::load_with_user_file(Some(&cue_file))
            .map_err(|e| Error::Invalid(InvalidInput::Other(format!("loading the cue vocabulary: {e}"))))?;
        Ok(Params::with_claims(claims))
    }

    /// The built-in weights and domains with `claims` (from the cue vocabulary).
    pub fn with_claims(claims: ClaimVocabulary) -> Params {
        let file: File = toml::from_str(GRAPH_TOML).expect("rules/graph.toml is valid (checked by a test)");
        let mut hasher = blake3::Hasher::new();
        hasher.update(PROGRAM_VERSION.as_bytes());
        hasher.update(GRAPH_TOML.as_bytes());
        // A retraction withdraws the claim before it: a contradiction, listed once, in the
        // cue vocabulary.
        let ClaimVocabulary { retractions, mut denied_claims, taking_verbs, credit_words, part_nouns } = claims;
        denied_claims.extend(taking_verbs);
        for r in retractions.iter().chain(&denied_claims) {
            hasher.update(r.as_bytes());
            hasher.update(b"\n");
        }
        hasher.update(b"credit words\n");
        for r in &credit_words {
            hasher.update(r.as_bytes());
            hasher.update(b"\n");
        }
        hasher.update(b"part nouns\n");
        for r in &part_nouns {
            hasher.update(r.as_bytes());
            hasher.update(b"\n");
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
            credit_words,
            part_nouns,
            max_domain_members: file.domains.max_members.max(2),
            fingerprint: *hasher.finalize().as_bytes(),
        }
    }

    /// Whether an ending cue contradicts a claim (and so ends LEARNS_FROM too): one of
    /// `contradiction_cues`, a denied claim ("not ported from", "didn't come from", "never
    /// took" before the repo's possessive), or a removal of a credit ("removed … credit").
    pub fn is_contradiction(&self, cue: &str) -> bool {
        let cue = cue.trim().to_lowercase();
        self.contradiction_cues.contains(&cue)
            || self.denied_claims.iter().any(|claim| cue.strip_suffix(claim.as_str()).is_some_and(|n| n.ends_with(' ')))
            || cue.rsplit_once(" \u{2026} ").is_some_and(|(_, object)| self.credit_words.iter().any(|w| w == object))
    }

    /// Whether a cue only names the repo's part or role in the project: a compound noun
    /// ("the duckdb crate", "the gemini-cli adapter", "Dagger-based"), an owner before it
    /// ("our", "Patina's"), a table column (`crate (column "crate", line 38)`), or a
    /// lead-in that is such a noun (`Dependencies (lead-in "Dependencies", line 30)`).
    /// Such cues are what a look back at a removal says ("the gemini-cli adapter spike was
    /// dropped the same day", "the `duckdb` crate is no longer in the tree"), so they start
    /// no ended edge again; an act does (`cargo add`, a dependency line, "built on X
    /// again", a strong compound in a feature commit's subject). Known limit: a lead-in
    /// whose own words are an act ("Added dependencies:") is read by its noun.
    pub fn names_a_part(&self, cue: &str) -> bool {
        if cue.contains(" (column \"") {
            return true;
        }
        let words =
            [" (lead-in \"", " (inline lead-in \""].iter().find_map(|m| cue.split_once(m)).map_or(cue, |(w, _)| w);
        let words = words.trim().trim_start_matches('-');
        // An owner possessive ("our DuckDB crate", "Patina's Dagger") is one word; a study
        // of the repo's own code ("read scryer-prolog's") is more. Read for every strong
        // mention of a derivation: no allocation.
        let owner = !words.contains(' ') && (words.ends_with("'s") || words.ends_with("\u{2019}s"));
        owner || self.part_nouns.iter().any(|noun| noun.eq_ignore_ascii_case(words))
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

    /// A user's cue file that adds a verb of taking or a retraction changes ingest and the
    /// graph alike: "never cribbed" (before a repo's possessive) then ends LEARNS_FROM.
    #[test]
    fn a_users_cue_file_extends_the_graphs_claims() {
        let user = "[learning]\ngapped_verbs = [\"Cribbed\"]\n[ending]\nretractions = [\"forget i said it\"]\n";
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("rules")).unwrap();
        std::fs::write(home.path().join("rules/cues.toml"), user).unwrap();
        let params = super::Params::for_home(&crate::home::PatinaHome::at(home.path())).unwrap();
        let builtin = super::Params::builtin();
        assert!(params.is_contradiction("never cribbed") && !builtin.is_contradiction("never cribbed"));
        assert!(params.is_contradiction("Forget I said it") && !builtin.is_contradiction("forget i said it"));
        assert!(params.is_contradiction("never took"), "the built-in verbs stay");
        assert_ne!(params.fingerprint, builtin.fingerprint, "a stored graph is re-derived");
        let cues = crate::ingest::cues::Cues::load(&[("user".into(), user.into())]).unwrap();
        assert!(cues.origin_verbs().contains(&"cribbed".to_string()), "ingest reads the same verb");

        let empty = tempfile::tempdir().unwrap();
        let plain = super::Params::for_home(&crate::home::PatinaHome::at(empty.path())).unwrap();
        assert_eq!(plain.fingerprint, builtin.fingerprint, "no cue file: the built-in parameters");

        std::fs::write(home.path().join("rules/cues.toml"), "[learning\n").unwrap();
        let err = super::Params::for_home(&crate::home::PatinaHome::at(home.path())).unwrap_err().to_string();
        assert!(err.contains("cues.toml") && err.starts_with("loading the cue vocabulary"), "{err}");
    }

    /// A cue that only names the repo's part or role (a compound noun, a crate or option
    /// column, a lead-in that is such a noun) is told from one that says an act.
    #[test]
    fn a_part_named_is_told_from_an_act() {
        let params = super::Params::builtin();
        for part in [
            "crate",
            "Adapter",
            "-backed",
            "crate (column \"crate\", line 38)",
            "Store (column \"Store\", line 55)",
            "repo / crate (column \"repo / crate\", line 47)",
            "Dependencies (lead-in \"Dependencies\", line 30)",
            "our",
            "Patina\u{2019}s",
        ] {
            assert!(params.names_a_part(part), "{part}");
        }
        for act in [
            "built on",
            "depends on",
            "dependency line `loro = \"1.5\"`",
            "cargo add",
            "vendored",
            "built on (lead-in \"Built on\", line 3)",
            "exemplar \"Patina launches REPO as its LLM adapter\" (0.71)",
            "read scryer-prolog's",
            "adapter (in a feat commit)",
        ] {
            assert!(!params.names_a_part(act), "{act}");
        }
    }

    /// A contradiction cue only ever meets an ending mention's cue: each must be an ending
    /// phrase of `rules/cues.toml`, or it can never fire.
    #[test]
    fn every_contradiction_cue_is_an_ending_phrase() {
        let params = super::Params::builtin();
        let cues = crate::ingest::cues::Cues::load(&[]).unwrap();
        for cue in &params.contradiction_cues {
            let ending = cues.ending_before.contains(cue) || cues.ending_after.contains(cue);
            let verdict = cues.row_verdicts.contains(cue);
            assert!(ending || verdict || cues.ending_retractions.contains(cue), "{cue}");
        }
        for retraction in &cues.ending_retractions {
            assert!(params.contradiction_cues.contains(retraction), "{retraction}");
        }
        // A row's retraction verdict is a contradiction; a row's removal verdict is not.
        assert!(params.is_contradiction("retracted") && params.is_contradiction("Withdrawn"));
        assert!(!params.is_contradiction("drop") && !params.is_contradiction("gone"));
        // A removal of a credit withdraws the claim; a plain removal does not.
        assert!(params.is_contradiction("removed \u{2026} credit") && params.is_contradiction("Dropped … credits"));
        assert!(!params.is_contradiction("removed") && !params.is_contradiction("credit"));
    }
}
