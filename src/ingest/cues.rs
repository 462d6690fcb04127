//! The cue vocabulary: which words near a mention say what relation it evidences.
//!
//! The vocabulary is data (`rules/cues.toml`), compiled into the binary as the default
//! and extended at run time by a user file of the same shape. A user file only adds.

use std::path::Path;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::{Deserialize, Serialize};

use crate::event::CueClass;

/// The built-in vocabulary.
pub const DEFAULT_CUES: &str = include_str!("../../rules/cues.toml");

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawCues {
    #[serde(default)]
    testing: RawClass,
    #[serde(default)]
    learning: RawClass,
    #[serde(default)]
    using: RawClass,
    #[serde(default)]
    lead_in: RawLeadIn,
    #[serde(default)]
    ending: RawEnding,
    #[serde(default)]
    context: RawContext,
    #[serde(default)]
    ambiguous: RawAmbiguous,
    #[serde(default)]
    bulk: RawBulk,
    #[serde(default)]
    hedge: RawHedge,
    #[serde(default)]
    negation: RawNegation,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawClass {
    #[serde(default)]
    phrases: Vec<String>,
    /// Strong phrases about what follows them only (verbs whose object comes after).
    #[serde(default)]
    forward_phrases: Vec<String>,
    #[serde(default)]
    weak_phrases: Vec<String>,
    #[serde(default)]
    repo_flag_commands: Vec<String>,
    #[serde(default)]
    repo_flags: Vec<String>,
    #[serde(default)]
    compounds: Vec<String>,
    /// Compounds that are strong cues (and compounds too).
    #[serde(default)]
    strong_compounds: Vec<String>,
    /// Compounds that name the project's own part built on the repo.
    #[serde(default)]
    project_parts: Vec<String>,
    /// Compounds that name a test subject's own thing in a file that tests it.
    #[serde(default)]
    subject_compounds: Vec<String>,
    #[serde(default)]
    owners: Vec<String>,
    /// Commands that add a dependency to the project's manifest (`cargo add`).
    #[serde(default)]
    add_commands: Vec<String>,
    #[serde(default)]
    gapped_verbs: Vec<String>,
    #[serde(default)]
    gapped_prepositions: Vec<String>,
    #[serde(default)]
    study_verbs: Vec<String>,
    #[serde(default)]
    study_prepositions: Vec<String>,
    /// Nouns of a design, then `design_origin_verbs` and "from": where a design came from.
    #[serde(default)]
    design_nouns: Vec<String>,
    #[serde(default)]
    taking_back_objects: Vec<String>,
    #[serde(default)]
    taken_nouns: Vec<String>,
    #[serde(default)]
    design_origin_verbs: Vec<String>,
    #[serde(default)]
    design_gap_faults: Vec<String>,
    #[serde(default)]
    acquire_verbs: Vec<String>,
    /// Nouns after a studied repo that say what was read was said about it, not its design.
    #[serde(default)]
    hearsay_nouns: Vec<String>,
    /// Nouns after a studied repo that say what was read is the project's run on it.
    #[serde(default)]
    result_nouns: Vec<String>,
    /// Verbs of a part of the project staying on the repo right after them.
    #[serde(default)]
    state_verbs: Vec<String>,
    /// Verbs of staying with the repo as their subject, and the words that may follow them.
    #[serde(default)]
    subject_state_verbs: Vec<String>,
    #[serde(default)]
    state_completions: Vec<String>,
    /// Folders of the project's tree right before the repo in a path (`src/adapters/X.rs`).
    #[serde(default)]
    part_folders: Vec<String>,
    /// Prepositions of means right before the repo ("loaded through scryer-prolog").
    #[serde(default)]
    means_prepositions: Vec<String>,
    /// Words right before such a preposition that make it no means ("looked through").
    #[serde(default)]
    means_not_after: Vec<String>,
    #[serde(default)]
    result_units: Vec<String>,
    /// Names of retrieval scores: one with its value right after a repo is a run's result.
    #[serde(default)]
    result_metrics: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawLeadIn {
    #[serde(default)]
    testing: Vec<String>,
    #[serde(default)]
    learning: Vec<String>,
    #[serde(default)]
    using: Vec<String>,
    #[serde(default)]
    repo_columns: Vec<String>,
    #[serde(default)]
    option_columns: Vec<String>,
    #[serde(default)]
    dependency_columns: Vec<String>,
    #[serde(default)]
    result_columns: Vec<String>,
    #[serde(default)]
    item_columns: Vec<String>,
    #[serde(default)]
    measurement_units: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawEnding {
    #[serde(default)]
    before: Vec<String>,
    #[serde(default)]
    after: Vec<String>,
    #[serde(default)]
    filler: Vec<String>,
    #[serde(default)]
    objects: Vec<String>,
    #[serde(default)]
    retractions: Vec<String>,
    #[serde(default)]
    short_retractions: Vec<String>,
    #[serde(default)]
    lead_ins: Vec<String>,
    #[serde(default)]
    credit_words: Vec<String>,
    #[serde(default)]
    credit_removals: Vec<String>,
    #[serde(default)]
    row_verdicts: Vec<String>,
    #[serde(default)]
    row_retractions: Vec<String>,
    #[serde(default)]
    denied_claims: Vec<String>,
    #[serde(default)]
    near_misses: Vec<String>,
    #[serde(default)]
    participles: Vec<String>,
    #[serde(default)]
    commands: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawHedge {
    #[serde(default)]
    phrases: Vec<String>,
    #[serde(default)]
    lead_ins: Vec<String>,
    #[serde(default)]
    label_lead_ins: Vec<String>,
    #[serde(default)]
    modifier_participles: Vec<String>,
    #[serde(default)]
    modifier_determiners: Vec<String>,
    #[serde(default)]
    modifier_prepositions: Vec<String>,
    #[serde(default)]
    purpose_times: Vec<String>,
    #[serde(default)]
    other_parties: Vec<String>,
    #[serde(default)]
    rejections: Vec<String>,
    #[serde(default)]
    plan_nouns: Vec<String>,
    #[serde(default)]
    dependency_verbs: Vec<String>,
    #[serde(default)]
    owner_words: Vec<String>,
}

/// What a void phrase (`[hedge]`) says of its clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Void {
    /// A plan, a question or a hypothesis ("might", "someday"): `phrases`.
    Hedge,
    /// About someone else's project or setup ("their team", "the user's"): `other_parties`.
    OtherParty,
    /// Rejecting what a compared repo does ("Not followed"): `rejections`. Reaches the
    /// whole item whose cue its lead-in gives.
    Rejection,
}

impl Void {
    /// How a voided mention's cue says why.
    pub fn verb(self) -> &'static str {
        match self {
            Void::Hedge => "hedged by",
            Void::OtherParty => "another party's",
            Void::Rejection => "rejected:",
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawNegation {
    #[serde(default)]
    words: Vec<String>,
    #[serde(default)]
    failure_words: Vec<String>,
    #[serde(default)]
    item_skips: Vec<String>,
    #[serde(default)]
    explicit_skips: Vec<String>,
    #[serde(default)]
    denied_uses: Vec<String>,
    #[serde(default)]
    denied_runs: Vec<String>,
    #[serde(default)]
    denied_studies: Vec<String>,
    #[serde(default)]
    denied_roles: Vec<String>,
    #[serde(default)]
    denial_subjects: Vec<String>,
    #[serde(default)]
    denial_auxiliaries: Vec<String>,
    #[serde(default)]
    denial_adverbs: Vec<String>,
    #[serde(default)]
    denial_objects: Vec<String>,
    #[serde(default)]
    denial_tails: Vec<String>,
    #[serde(default)]
    denial_prepositions: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawContext {
    #[serde(default)]
    repo_words: Vec<String>,
    #[serde(default)]
    repo_path_segments: Vec<String>,
    #[serde(default)]
    index_files: Vec<String>,
    #[serde(default)]
    query_words: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawAmbiguous {
    #[serde(default)]
    ids: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawBulk {
    min_distinct_nodes: Option<usize>,
    subjects_min_distinct_nodes: Option<usize>,
}

/// A compiled cue vocabulary.
#[derive(Debug, Clone)]
pub struct Cues {
    /// Phrase automaton (ASCII case-insensitive, leftmost-longest).
    automaton: AhoCorasick,
    /// The class and strength (`true` = strong) of each phrase, by pattern index.
    classes: Vec<(CueClass, bool)>,
    /// Whether each phrase ends in a preposition, by pattern index.
    forward: Vec<bool>,
    /// Gapped phrases: a verb, a few words, a preposition ("tested the parser on").
    gapped: Option<GappedPhrases>,
    /// Lead-in words of headings and list or table lead-ins, and their classes.
    lead_in: AhoCorasick,
    lead_in_classes: Vec<CueClass>,
    /// What ends an edge (see `[ending]` in `rules/cues.toml`), lower-cased, longest first.
    pub ending_before: Vec<String>,
    pub ending_after: Vec<String>,
    pub ending_filler: Vec<String>,
    pub ending_objects: Vec<String>,
    /// Lower-cased, longest first: a removal's past participle after the mention and at
    /// least one `objects` word ("Dead optional DuckDB feature removed from Cargo.toml").
    pub ending_participles: Vec<String>,
    /// Lower-cased commands that remove a dependency (`[ending] commands`), each ending in
    /// one space: "cargo remove ".
    pub ending_commands: Vec<String>,
    /// Lower-cased, longest first: a sentence opening with one retracts the one before it
    /// (`retractions` and `short_retractions` of `[ending]`).
    pub ending_retractions: Vec<String>,
    /// Those of `ending_retractions` that retract only when punctuation follows ("It
    /// wasn't -", not "It wasn't clear why").
    short_retractions: Vec<String>,
    /// Claims of where something came from that, negated right before the repo, contradict
    /// the claim ("was not ported from X"), lower-cased, longest first.
    pub ending_denied_claims: Vec<String>,
    /// Words that, right before a removal phrase, say it nearly happened ("almost
    /// removed"), lower-cased, longest first.
    pub ending_near_misses: Vec<String>,
    /// Void phrases (`[hedge]`: hedges, other parties, rejections), with what each says.
    hedges: AhoCorasick,
    hedge_kinds: Vec<Void>,
    /// Lower-cased lead-in words that make each item below an ending (`[ending] lead_ins`).
    pub ending_lead_ins: Vec<String>,
    /// Lower-cased words that make a removal's object a credit (`[ending] credit_words`).
    pub credit_words: Vec<String>,
    /// Lower-cased `before` ending phrases that remove (`[ending] credit_removals`): only
    /// these withdraw a credit.
    pub credit_removals: Vec<String>,
    /// Lower-cased words a table row's verdict cell opens with that end the repos the row
    /// names (`[ending] row_verdicts` and `row_retractions`).
    pub row_verdicts: Vec<String>,
    /// Lower-cased lead-in words of lists of plans ("next steps", "todo").
    hedge_lead_ins: AhoCorasick,
    /// Lower-cased `[hedge] label_lead_ins`: a lead-in whose whole label is one of them
    /// ("### 15:52 - Next") leads plans.
    hedge_label_lead_ins: Vec<String>,
    /// `[hedge] modifier_participles`, `modifier_determiners` and `modifier_prepositions`:
    /// "the idea parked on the 5th" describes the idea, it hedges no act.
    modifier_participles: Vec<String>,
    modifier_determiners: Vec<String>,
    modifier_prepositions: Vec<String>,
    /// `[hedge] purpose_times`: right after "so" they open a purpose, not a plan.
    purpose_times: Vec<String>,
    /// Lower-cased negations, and the first words of phrases they never void (`[negation]`).
    negators: Vec<String>,
    /// Lower-cased `[learning] design_origin_verbs` ("came" in "the approach came from"),
    /// and the words that stop a design noun's gap (`design_gap_faults`).
    design_origin_verbs: Vec<String>,
    design_gap_faults: Vec<String>,
    failure_words: Vec<String>,
    /// Words right after a list item's repo that say it was left out (`item_skips`).
    item_skips: Vec<String>,
    /// Stems of those that say so wherever the repo stands (`explicit_skips`).
    explicit_skips: Vec<String>,
    /// A later clause that says the act never happened (`[negation] denied_acts`, …).
    act_denial: ActDenial,
    /// Lower-cased commands that add a dependency (`[using] add_commands`), each ending
    /// in one space: "cargo add ".
    pub add_commands: Vec<String>,
    pub repo_flag_commands: Vec<String>,
    /// Lower-cased flags whose value is the repo a command runs on (`[testing]
    /// repo_flags`: `--repo`, `--issues`).
    pub repo_flags: Vec<String>,
    /// Lower-cased verbs of taking and of study (the learning class's `gapped_verbs` and
    /// `study_verbs`), longest first: right before a repo's possessive they learn from it
    /// ("adopted opencode's approach", "read openclaw's memory_search implementation").
    taking_verbs: Vec<String>,
    /// Lower-cased verbs of study alone (`study_verbs`), longest first: right before the
    /// repo itself, an article at most between, they study it ("Read the Gas Town design
    /// end to end", "reading gastown end to end").
    study_verbs: Vec<String>,
    /// Lower-cased verbs of taking alone (`[learning] gapped_verbs`).
    origin_verbs: Vec<String>,
    /// Lower-cased `[learning] taking_back_objects` and `taken_nouns`: what a sentence
    /// opening with a verb of taking took from the repo named before it.
    taking_back_objects: Vec<String>,
    taken_nouns: Vec<String>,
    /// Lower-cased verbs of fetching a repo (`acquire_verbs`), longest first: "Cloned X
    /// and read …" studies X.
    acquire_verbs: Vec<String>,
    /// Lower-cased nouns after a studied repo that make what was read hearsay about it
    /// (`[learning] hearsay_nouns`: "reading usearch issues", "reading PAI write-ups").
    hearsay_nouns: Vec<String>,
    /// Lower-cased nouns after a studied repo that make what was read the project's run
    /// on it (`[learning] result_nouns`: "Analysed livestore misses").
    result_nouns: Vec<String>,
    /// Lower-cased verbs of staying (`[using] state_verbs`), longest first: right before
    /// the repo, an article at most between, the project's part stays on it ("The vector
    /// files stay in usearch", "the code index stays on usearch + rusqlite").
    state_verbs: Vec<String>,
    /// Lower-cased `[using] subject_state_verbs` and `state_completions`, longest first
    /// ([`Cues::state_after`]).
    subject_state_verbs: Vec<String>,
    state_completions: Vec<String>,
    /// Lower-cased `[using] means_prepositions`, longest first, and the words before one
    /// that make it no means (`means_not_after`) ([`Cues::means_before`]).
    means_prepositions: Vec<String>,
    means_not_after: Vec<String>,
    /// Lower-cased `[using] part_folders` ([`Cues::part_folder_before`]).
    part_folders: Vec<String>,
    /// Lower-cased head nouns that, right after a mention, say what it is to the project
    /// ("the DuckDB crate": using), with their class (`compounds` in `rules/cues.toml`).
    pub compounds: Vec<(String, CueClass)>,
    /// The compounds that are strong cues (`strong_compounds`), lower-cased.
    strong_compounds: Vec<String>,
    /// Nouns after a compound that make it a plan or a document (`[hedge] plan_nouns`).
    plan_nouns: Vec<String>,
    /// Verbs of another repo's own dependency (`[hedge] dependency_verbs`; ASCII
    /// case-insensitive, leftmost-longest): "dojo pulls in `snforge_std`" is dojo's.
    dependency_verbs: AhoCorasick,
    /// Lower-cased compounds that name the project's own part (`[using] project_parts`).
    project_parts: Vec<String>,
    /// Compounds that are a test subject's own in a file that tests it (`[using]
    /// subject_compounds`: "the dojo index").
    subject_compounds: Vec<String>,
    /// Words right after a repo in a lead-in that make the block that repo's own things
    /// (`[hedge] owner_words`: " itself", "'s own").
    pub owner_words: Vec<String>,
    /// Lower-cased possessives that, right before a mention, make it the project's own
    /// ("our DuckDB", "Patina's Dagger integration"), with their class (`owners` in
    /// `rules/cues.toml`; `{project}` stands for the ingesting project's id).
    pub owners: Vec<(String, CueClass)>,
    /// Lower-cased units of a counted result ("454 symbols", "27s", "13%"), by class: a
    /// weak phrase of the class in a sentence reporting one is strong (`result_units`).
    pub result_units: Vec<(String, CueClass)>,
    /// Lower-cased names of retrieval scores (`[testing] result_metrics`: "r@", "mrr"):
    /// one with its value right after a mention is a run's result on the repo.
    result_metrics: Vec<String>,
    pub repo_words: Vec<String>,
    /// Lower-cased words of searching (`[context] query_words`): a quoted string after
    /// one is a query's text, and its phrases are no cue.
    query_words: Vec<String>,
    /// Lower-cased header cells of a table's repo column (`repo_columns` in `[lead_in]`).
    pub repo_columns: Vec<String>,
    /// Lower-cased header cells of a column of the project's options (`option_columns`).
    pub option_columns: Vec<String>,
    /// Lower-cased header cells of a column of the project's own dependencies
    /// (`dependency_columns`).
    pub dependency_columns: Vec<String>,
    /// Lower-cased header words of a results table's measurement columns, and the units
    /// that make a number a measurement (`result_columns`, `measurement_units`).
    pub result_columns: Vec<String>,
    pub measurement_units: Vec<String>,
    /// Lower-cased header cells of a column that makes a table a listing of items (search
    /// hits, files), not of runs per repo (`item_columns`).
    pub item_columns: Vec<String>,
    pub repo_path_segments: Vec<String>,
    /// Lower-cased suffixes of a repo's index files (`[context] index_files`): a mention
    /// glued to one (`opencode.db`) names the index, and reading it runs nothing.
    pub index_files: Vec<String>,
    /// Lower-cased ambiguous ids and aliases.
    pub ambiguous: Vec<String>,
    pub bulk_min_distinct_nodes: usize,
    /// A sentence naming at least this many distinct nodes (on a line of fewer than a bulk
    /// line) with a learning cue of its own is a sweep over test subjects
    /// (`mention::sweep_of_subjects`).
    pub subjects_min_distinct_nodes: usize,
    /// A hash of the whole vocabulary, and of the exemplars and model when attached
    /// (part of the ingest cache key).
    pub fingerprint: [u8; 32],
    /// The exemplars and embedding model that classify what phrases leave plain or weak
    /// (`exemplars.rs`); `None` without the model: phrases alone.
    pub exemplar_model: Option<std::sync::Arc<super::exemplars::ExemplarModel>>,
}

/// The longest owner word [`Cues::owner_before`] compares, besides the project id in it.
const MAX_OWNER_BYTES: usize = 96;

/// The gapped phrases of every class: one of a class's verbs, then one to
/// [`MAX_GAP_WORDS`] words (no preposition, no punctuation ending a clause), then one of
/// its prepositions. A strong cue that points forward: "tested the refactored parser on
/// A", "took the credential handling from B". The contiguous forms ("tested on") are plain
/// phrases. One automaton holds every class's verbs: one pass over a text, not one per class.
#[derive(Debug, Clone)]
struct GappedPhrases {
    verbs: AhoCorasick,
    /// Each head word's rule, by pattern index.
    rules: Vec<GappedRule>,
}

/// One gapped phrase's head word: its class, its prepositions, and the words one of which
/// must stand right before the preposition (empty: any), as "came" in "the routing
/// approach came from".
#[derive(Debug, Clone)]
struct GappedRule {
    class: CueClass,
    prepositions: std::sync::Arc<Vec<String>>,
    last_words: std::sync::Arc<Vec<String>>,
}

/// `s` cut after its first run of ASCII letters (the first `skip` bytes taken as they are):
/// the word and the text after it.
fn split_alphabetic(s: &str, skip: usize) -> (&str, &str) {
    let end = s[skip..].find(|c: char| !c.is_ascii_alphabetic()).map_or(s.len(), |i| i + skip);
    s.split_at(end)
}

/// The head of a compound as [`Cues::compound_after`] gives it: its last word ("adapter"
/// of "launch adapter").
fn head_noun(noun: &str) -> &str {
    noun.rsplit(' ').next().unwrap_or(noun)
}

/// The most words between "the" and a design taken ("Took the priority model"): see
/// [`Cues::taking_without_source`].
const MAX_TAKEN_WORDS: usize = 3;

/// The longest modifier word between a mention and a strong compound ("launch" in "the
/// claude-code launch adapter").
const MAX_MODIFIER: usize = 12;

/// The most words a gapped phrase holds between its verb and its preposition, articles
/// aside (at most twice as many with them).
const MAX_GAP_WORDS: usize = 5;

/// Words of a gapped phrase's object that [`MAX_GAP_WORDS`] does not count.
const ARTICLES: [&str; 3] = ["the", "a", "an"];

/// How far into a dependency line's value [`Cues::dependency_line`] looks for its end.
const MAX_DEPENDENCY_VALUE: usize = 256;

/// Marks of a run that passed or failed, in a results table's cell.
const PASS_FAIL_MARKS: [char; 6] = ['\u{2705}', '\u{274c}', '\u{2713}', '\u{2717}', '\u{2714}', '\u{2718}'];

/// How far into a parenthesis after a mention its count is read, in bytes.
const MAX_COUNT_BYTES: usize = 32;

/// How far after a mention a run's retrieval score is read ([`Cues::metric_right_after`]).
const MAX_METRIC_BYTES: usize = 48;

/// How many bytes of ':', '=' and spaces a retrieval score's name and value may have
/// between them ("r@10: 0.77", "MRR    0.61").
const MAX_METRIC_GAP: usize = 6;

/// How far around a cue phrase the quotes of a query are looked for, in bytes.
const MAX_QUERY_BYTES: usize = 160;

/// The most words between a negation and the cue phrase it voids ("not a fixture").
const NEGATION_REACH: usize = 2;
/// How far back from a cue phrase a negation is looked for, in bytes.
const MAX_NEGATION_BYTES: usize = 64;

/// The words of a clause that denies an act (`[negation] denied_uses` and its
/// companions), lower-cased.
#[derive(Debug, Clone, Default)]
struct ActDenial {
    uses: Vec<String>,
    runs: Vec<String>,
    studies: Vec<String>,
    roles: Vec<String>,
    subjects: Vec<String>,
    auxiliaries: Vec<String>,
    adverbs: Vec<String>,
    objects: Vec<String>,
    tails: Vec<String>,
    prepositions: Vec<String>,
}

impl ActDenial {
    /// The most auxiliaries between the subject and "never" ("has", "had been").
    const MAX_AUXILIARIES: usize = 2;

    /// "never added", "we've never actually used" at the start of `clause`, its act one of
    /// `acts`, when what follows the act is the clause's end, "it"/"them" and then the end
    /// or a tail, or a preposition.
    fn at_clause_start<'t>(
        &self,
        clause: &'t str,
        complete: bool,
        acts: &[&[String]],
        project: Option<&str>,
    ) -> Option<&'t str> {
        let is = |list: &[String], w: &str| list.iter().any(|l| l.eq_ignore_ascii_case(w));
        let mut words = Words { rest: clause };
        let mut word = words.next();
        // "we've", "I'd", "it's": the subject and its auxiliary in one word.
        let (subject, contracted) = match word.find(['\'', '\u{2019}']) {
            Some(i) => (&word[..i], true),
            None => (word, false),
        };
        let is_subject = |w: &str| {
            self.subjects.iter().any(|s| match (s.split_once("{project}"), project) {
                (Some(("", "")), Some(p)) => w.eq_ignore_ascii_case(p),
                (Some(_), _) => false,
                (None, _) => s.eq_ignore_ascii_case(w),
            })
        };
        if is_subject(subject) {
            word = words.next();
        } else if contracted {
            return None;
        }
        for _ in 0..Self::MAX_AUXILIARIES {
            if !is(&self.auxiliaries, word) {
                break;
            }
            word = words.next();
        }
        if !word.eq_ignore_ascii_case("never") {
            return None;
        }
        let from = clause.len() - words.rest.len() - word.len();
        word = words.next();
        if is(&self.adverbs, word) {
            word = words.next();
        }
        if word.is_empty() || !acts.iter().any(|list| is(list, word)) {
            return None;
        }
        let to = clause.len() - words.rest.len();
        // The clause ends here: a separator, a sentence mark or the sentence's own end (not
        // a window's), and no code span or link right after.
        let ends = |rest: &str| {
            let rest = rest.trim_start();
            match rest.chars().next() {
                None => complete,
                Some(c) => !c.is_alphanumeric() && !"`[(\"*_'\u{2019}?".contains(c),
            }
        };
        let object = words.peek();
        let denied = if ends(words.rest) {
            true
        } else if is(&self.objects, object) {
            words.next();
            ends(words.rest) || is(&self.tails, words.peek())
        } else {
            is(&self.prepositions, object)
        };
        denied.then(|| &clause[from..to])
    }
}

/// The words of a clause, one at a time: letters, digits, '-', '/' and apostrophes ("we've"),
/// past spaces only; an empty word where anything else stands.
struct Words<'t> {
    rest: &'t str,
}

impl<'t> Words<'t> {
    fn len(t: &str) -> usize {
        t.find(|c: char| !(c.is_alphanumeric() || "-/'\u{2019}".contains(c))).unwrap_or(t.len())
    }

    fn peek(&self) -> &'t str {
        let t = self.rest.trim_start_matches(' ');
        &t[..Self::len(t)]
    }

    fn next(&mut self) -> &'t str {
        let t = self.rest.trim_start_matches(' ');
        let (word, rest) = t.split_at(Self::len(t));
        self.rest = rest;
        word
    }
}

/// One cue found in a text: byte span and class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CueHit {
    pub start: usize,
    pub end: usize,
    pub class: CueClass,
    /// A strong cue (from `phrases`) rather than a weak one (`weak_phrases`).
    pub strong: bool,
    /// The phrase ends in a preposition ("tested on", "pattern from", "inspired by") or an
    /// article ("uses the"): it is about what follows it, never about a mention before it.
    pub points_forward: bool,
}

/// How far after "with" a testing verb's repo word is looked for.
const MAX_WITH_OBJECT_BYTES: usize = 80;

/// Last words that make a phrase point at what follows it.
const PREPOSITIONS: [&str; 11] = ["from", "by", "after", "on", "of", "with", "against", "into", "across", "to", "via"];

/// Words that open another clause: a gapped phrase's object ends before one ("Skipped by
/// the run because they aren't cloned on this laptop: dust, kit" ran nothing on them).
const CLAUSE_OPENERS: [&str; 10] =
    ["because", "since", "although", "though", "unless", "until", "whereas", "if", "when", "but"];

impl Cues {
    /// The built-in vocabulary, extended by `extra` TOML texts (each labelled for errors).
    pub fn load(extra: &[(String, String)]) -> Result<Cues, String> {
        let (merged, fingerprint) = merged_vocabulary(extra)?;
        let mut phrases = Vec::new();
        let mut classes = Vec::new();
        // Strong phrases first, so a phrase listed as both is strong.
        for strong in [true, false] {
            for (class, raw) in [
                (CueClass::Testing, &merged.testing),
                (CueClass::Learning, &merged.learning),
                (CueClass::Using, &merged.using),
            ] {
                let list: Vec<&String> = match strong {
                    true => raw.phrases.iter().chain(&raw.forward_phrases).collect(),
                    false => raw.weak_phrases.iter().collect(),
                };
                for phrase in list {
                    let phrase = phrase.trim().to_lowercase();
                    if !phrase.is_empty() && !phrases.contains(&phrase) {
                        phrases.push(phrase);
                        classes.push((class, strong));
                    }
                }
            }
        }
        // A DFA: every byte of every text passes through this automaton, and with a few
        // hundred phrases the default (a contiguous NFA) made it a third of a scan.
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(&phrases)
            .map_err(|e| format!("cue phrases: {e}"))?;
        let listed_forward: Vec<String> = [&merged.testing, &merged.learning, &merged.using]
            .iter()
            .flat_map(|raw| raw.forward_phrases.iter().map(|p| p.trim().to_lowercase()))
            .collect();
        let forward = phrases
            .iter()
            .map(|p| {
                if listed_forward.contains(p) {
                    return true;
                }
                // An article too: "X uses the model name" is X's use of something, not
                // the project's use of X ("uses the", "using the" point forward).
                let last = p.rsplit(' ').next();
                p.split_whitespace().count() > 1 && last.is_some_and(|w| PREPOSITIONS.contains(&w) || w == "the")
            })
            .collect();
        let mut lead_in_phrases: Vec<String> = Vec::new();
        let mut lead_in_classes = Vec::new();
        for (class, list) in [
            (CueClass::Testing, &merged.lead_in.testing),
            (CueClass::Learning, &merged.lead_in.learning),
            (CueClass::Using, &merged.lead_in.using),
        ] {
            for phrase in list {
                let phrase = phrase.trim().to_lowercase();
                if !phrase.is_empty() && !lead_in_phrases.contains(&phrase) {
                    lead_in_phrases.push(phrase);
                    lead_in_classes.push(class);
                }
            }
        }
        let lead_in = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&lead_in_phrases)
            .map_err(|e| format!("lead-in phrases: {e}"))?;
        let lower = |v: Vec<String>| v.into_iter().map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()).collect();
        let longest_first = |v: Vec<String>| {
            let mut v: Vec<String> = lower(v);
            v.sort_by_key(|p: &String| std::cmp::Reverse(p.len()));
            v.dedup();
            v
        };
        let words_automaton = |words: &[String], what: &str| {
            let words: Vec<String> = lower(words.to_vec());
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(words)
                .map_err(|e| format!("{what}: {e}"))
        };
        let mut void_phrases: Vec<String> = Vec::new();
        let mut hedge_kinds: Vec<Void> = Vec::new();
        for (kind, list) in [
            (Void::Hedge, &merged.hedge.phrases),
            (Void::OtherParty, &merged.hedge.other_parties),
            (Void::Rejection, &merged.hedge.rejections),
        ] {
            for phrase in lower(list.clone()) {
                let phrase: String = phrase.replace('\u{2019}', "'");
                if !void_phrases.contains(&phrase) {
                    void_phrases.push(phrase);
                    hedge_kinds.push(kind);
                }
            }
        }
        let hedges = words_automaton(&void_phrases, "hedge phrases")?;
        let hedge_lead_ins = words_automaton(&merged.hedge.lead_ins, "hedge lead-ins")?;
        // Per class: its gapped phrases, and its words that stand by a mention or a result.
        let mut gapped_verbs: Vec<String> = Vec::new();
        let mut gapped_rules: Vec<GappedRule> = Vec::new();
        let mut compounds: Vec<(String, CueClass)> = Vec::new();
        let mut strong_compounds: Vec<String> = Vec::new();
        let mut owners: Vec<(String, CueClass)> = Vec::new();
        let mut result_units: Vec<(String, CueClass)> = Vec::new();
        for (class, raw) in [
            (CueClass::Testing, &merged.testing),
            (CueClass::Learning, &merged.learning),
            (CueClass::Using, &merged.using),
        ] {
            let from = vec!["from".to_string()];
            let no_words = Vec::new();
            for (verbs, prepositions, last_words) in [
                (&raw.gapped_verbs, &raw.gapped_prepositions, &no_words),
                (&raw.study_verbs, &raw.study_prepositions, &no_words),
                (&raw.design_nouns, &from, &raw.design_origin_verbs),
            ] {
                let prepositions: Vec<String> = lower(prepositions.clone());
                // A design noun needs its verb ("came"): without one, "<noun> … from X"
                // would be any phrase ("the layout differs from dojo").
                let design = std::ptr::eq(verbs, &raw.design_nouns);
                if prepositions.is_empty() || verbs.is_empty() || design && last_words.is_empty() {
                    continue;
                }
                // A verb listed twice (by two classes or lists) is the first one's.
                let prepositions = std::sync::Arc::new(prepositions);
                let last_words = std::sync::Arc::new(lower(last_words.clone()));
                for verb in lower(verbs.clone()) {
                    if !gapped_verbs.contains(&verb) {
                        gapped_verbs.push(verb);
                        gapped_rules.push(GappedRule {
                            class,
                            prepositions: prepositions.clone(),
                            last_words: last_words.clone(),
                        });
                    }
                }
            }
            let all_compounds: Vec<String> = raw.compounds.iter().chain(&raw.strong_compounds).cloned().collect();
            strong_compounds.extend(lower(raw.strong_compounds.clone()));
            for (words, into) in
                [(&all_compounds, &mut compounds), (&raw.owners, &mut owners), (&raw.result_units, &mut result_units)]
            {
                for word in words {
                    let word = word.trim().to_lowercase().replace('\u{2019}', "'");
                    if !word.is_empty() && !into.iter().any(|(w, _)| *w == word) {
                        into.push((word, class));
                    }
                }
            }
        }
        let gapped = match gapped_verbs.is_empty() {
            true => None,
            false => Some(GappedPhrases {
                verbs: AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&gapped_verbs)
                    .map_err(|e| format!("gapped verbs: {e}"))?,
                rules: gapped_rules,
            }),
        };
        Ok(Cues {
            automaton,
            classes,
            forward,
            gapped,
            lead_in,
            lead_in_classes,
            ending_before: longest_first(merged.ending.before),
            ending_after: longest_first(merged.ending.after),
            ending_filler: lower(merged.ending.filler),
            ending_objects: lower(merged.ending.objects),
            ending_participles: longest_first(merged.ending.participles),
            ending_commands: lower(merged.ending.commands)
                .into_iter()
                .map(|c: String| format!("{} ", c.trim()))
                .collect(),
            ending_retractions: longest_first(
                merged.ending.retractions.iter().chain(&merged.ending.short_retractions).cloned().collect(),
            ),
            short_retractions: lower(merged.ending.short_retractions),
            ending_denied_claims: longest_first(merged.ending.denied_claims),
            ending_near_misses: longest_first(merged.ending.near_misses),
            hedges,
            hedge_kinds,
            ending_lead_ins: lower(merged.ending.lead_ins),
            credit_words: lower(merged.ending.credit_words),
            credit_removals: lower(merged.ending.credit_removals),
            row_verdicts: lower(merged.ending.row_verdicts.into_iter().chain(merged.ending.row_retractions).collect()),
            hedge_lead_ins,
            hedge_label_lead_ins: lower(merged.hedge.label_lead_ins.clone()),
            modifier_participles: merged.hedge.modifier_participles.clone(),
            modifier_determiners: merged.hedge.modifier_determiners.clone(),
            modifier_prepositions: merged.hedge.modifier_prepositions.clone(),
            purpose_times: merged.hedge.purpose_times.clone(),
            design_origin_verbs: lower(merged.learning.design_origin_verbs.clone()),
            design_gap_faults: lower(merged.learning.design_gap_faults.clone()),
            negators: lower(merged.negation.words).into_iter().map(|w: String| w.replace('\u{2019}', "'")).collect(),
            failure_words: lower(merged.negation.failure_words),
            item_skips: lower(merged.negation.item_skips),
            explicit_skips: lower(merged.negation.explicit_skips),
            act_denial: ActDenial {
                uses: lower(merged.negation.denied_uses),
                runs: lower(merged.negation.denied_runs),
                studies: lower(merged.negation.denied_studies),
                roles: lower(merged.negation.denied_roles),
                subjects: lower(merged.negation.denial_subjects),
                auxiliaries: lower(merged.negation.denial_auxiliaries),
                adverbs: lower(merged.negation.denial_adverbs),
                objects: lower(merged.negation.denial_objects),
                tails: lower(merged.negation.denial_tails),
                prepositions: lower(merged.negation.denial_prepositions),
            },
            add_commands: lower(merged.using.add_commands.clone())
                .into_iter()
                .map(|c: String| format!("{} ", c.trim()))
                .collect(),
            repo_flag_commands: lower(merged.testing.repo_flag_commands),
            repo_flags: lower(merged.testing.repo_flags),
            taking_verbs: longest_first(
                merged.learning.gapped_verbs.iter().chain(&merged.learning.study_verbs).cloned().collect(),
            ),
            study_verbs: longest_first(merged.learning.study_verbs.clone()),
            origin_verbs: lower(merged.learning.gapped_verbs.clone()),
            taking_back_objects: lower(merged.learning.taking_back_objects.clone()),
            taken_nouns: lower(merged.learning.taken_nouns.clone()),
            acquire_verbs: longest_first(merged.learning.acquire_verbs.clone()),
            hearsay_nouns: lower(merged.learning.hearsay_nouns.clone()),
            result_nouns: lower(merged.learning.result_nouns.clone()),
            state_verbs: longest_first(merged.using.state_verbs.clone()),
            subject_state_verbs: longest_first(merged.using.subject_state_verbs.clone()),
            state_completions: longest_first(merged.using.state_completions.clone()),
            means_prepositions: longest_first(merged.using.means_prepositions.clone()),
            means_not_after: lower(merged.using.means_not_after.clone()),
            part_folders: lower(merged.using.part_folders.clone()),
            compounds,
            strong_compounds,
            plan_nouns: lower(merged.hedge.plan_nouns.clone()),
            dependency_verbs: AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(lower(merged.hedge.dependency_verbs.clone()))
                .map_err(|e| format!("dependency verbs: {e}"))?,
            project_parts: lower(merged.using.project_parts.clone()),
            subject_compounds: lower(merged.using.subject_compounds.clone()),
            owner_words: merged.hedge.owner_words.clone(),
            owners,
            result_units,
            result_metrics: longest_first(merged.testing.result_metrics.clone()),
            repo_words: lower(merged.context.repo_words),
            query_words: lower(merged.context.query_words),
            repo_columns: lower(merged.lead_in.repo_columns),
            option_columns: lower(merged.lead_in.option_columns),
            dependency_columns: lower(merged.lead_in.dependency_columns),
            result_columns: lower(merged.lead_in.result_columns),
            item_columns: lower(merged.lead_in.item_columns),
            measurement_units: lower(merged.lead_in.measurement_units),
            repo_path_segments: lower(merged.context.repo_path_segments),
            index_files: lower(merged.context.index_files),
            ambiguous: lower(merged.ambiguous.ids),
            bulk_min_distinct_nodes: merged.bulk.min_distinct_nodes.unwrap_or(6).max(2),
            subjects_min_distinct_nodes: merged.bulk.subjects_min_distinct_nodes.unwrap_or(3).max(2),
            fingerprint: *fingerprint.finalize().as_bytes(),
            exemplar_model: None,
        })
    }

    /// These cues with exemplars classifying by meaning (the fingerprint covers them).
    pub fn with_exemplar_model(mut self, model: std::sync::Arc<super::exemplars::ExemplarModel>) -> Cues {
        let mut h = blake3::Hasher::new();
        h.update(&self.fingerprint);
        h.update(&model.fingerprint());
        self.fingerprint = *h.finalize().as_bytes();
        self.exemplar_model = Some(model);
        self
    }

    /// The built-in vocabulary plus the user's file, if it exists.
    pub fn load_with_user_file(user: Option<&Path>) -> Result<Cues, String> {
        Cues::load(&user_file(user)?)
    }

    /// The class of a lead-in line (a heading, a bold label, a line ending in ':'): its
    /// nearest-to-the-end strong cue phrase, else its first lead-in word, else its weak
    /// cue phrase. `(class, words, strong)`.
    pub fn lead_in_class(&self, line: &str) -> Option<(CueClass, String, bool)> {
        let hits = self.find_all(line);
        if let Some(hit) = hits.iter().rev().find(|h| h.strong) {
            return Some((hit.class, line[hit.start..hit.end].to_string(), true));
        }
        let bytes = line.as_bytes();
        // A word of a file name is no lead-in word (`validation.rs`).
        let word = |m: &aho_corasick::Match| {
            is_word_boundary(bytes, m.start(), m.end()) && !in_file_name(bytes, m.start(), m.end())
        };
        if let Some(m) = self.lead_in.find_iter(line).find(word) {
            return Some((self.lead_in_classes[m.pattern().as_usize()], line[m.start()..m.end()].to_string(), true));
        }
        hits.last().map(|h| (h.class, line[h.start..h.end].to_string(), false))
    }

    /// The class of the head noun right after a mention ending at `end` (only spaces
    /// between, within the sentence ending at `s_end`): "the DuckDB crate", "our Dagger
    /// integration" name a thing the project builds on. `(class, noun)`.
    pub fn compound_after(&self, text: &str, end: usize, s_end: usize) -> Option<(CueClass, String)> {
        // A code span's closing mark may stand between: "the `usearch` crate".
        let rest = &text[end..s_end];
        let rest = rest.strip_prefix('`').filter(|r| r.starts_with(' ')).unwrap_or(rest);
        // A suffix glued on ("Dagger-based", the '-' kept: "-based") or a noun after one or
        // two spaces.
        let (word, skip) = match rest.strip_prefix('-') {
            Some(_) => (rest, 1),
            None => {
                let word = rest.trim_start_matches(' ');
                if !(1..=2).contains(&(rest.len() - word.len())) {
                    return None;
                }
                (word, 0)
            }
        };
        let (head, after) = split_alphabetic(word, skip);
        // A noun glued to more ("integration-tests.md", "crate::x") is not the head noun;
        // a colon that ends a label ("the Dagger integration:") is punctuation.
        let glued = after.starts_with(['-', '/', '_'])
            || (after.starts_with(':') && !matches!(after[1..].chars().next(), None | Some(' ')));
        if glued {
            return None;
        }
        if let Some(class) = self.compound_class(head) {
            return Some((class, head.to_string()));
        }
        // One lower-case modifier before a strong compound: "the claude-code launch adapter",
        // "the loro sync crate" (stop 55: set 33). The noun is both words.
        let modifier =
            skip == 0 && (3..=MAX_MODIFIER).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_lowercase());
        let second = after.strip_prefix(' ').filter(|_| modifier)?;
        let (noun, after) = split_alphabetic(second, 0);
        let glued = after.starts_with(['-', '/', '_', '.']);
        let strong = self.strong_compounds.iter().any(|w| w.eq_ignore_ascii_case(noun));
        let class = self.compound_class(noun).filter(|_| strong && !glued)?;
        Some((class, format!("{head} {noun}")))
    }

    /// The class of a `[*] compounds` noun, matched without case.
    fn compound_class(&self, noun: &str) -> Option<CueClass> {
        self.compounds.iter().find(|(w, _)| w.eq_ignore_ascii_case(noun)).map(|(_, class)| *class)
    }

    /// Whether a compound (a cue text as [`Cues::compound_after`] gives it) is one of
    /// `[using] subject_compounds`: a test subject's own thing in a file that tests it.
    pub fn is_subject_compound(&self, noun: &str) -> bool {
        let noun = head_noun(noun);
        self.subject_compounds.iter().any(|w| w.eq_ignore_ascii_case(noun))
    }

    /// Whether a compound noun (as [`Cues::compound_after`] gives it) is a strong cue: a part
    /// of the project built on the repo ("the usearch crate", "the codex adapter"), and
    /// `rest` (the text after the noun) does not make it a plan or a document of one ("the
    /// opencode adapter design", `[hedge] plan_nouns`).
    pub fn is_strong_compound(&self, noun: &str, rest: &str) -> bool {
        let next = rest.trim_start_matches(' ');
        let next = &next[..next.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(next.len())];
        let noun = head_noun(noun);
        self.strong_compounds.iter().any(|w| w.eq_ignore_ascii_case(noun))
            && !self.plan_nouns.iter().any(|w| w.eq_ignore_ascii_case(next))
    }

    /// The index-file suffix glued right after a mention ending at `end` (`.db` in
    /// "queried `opencode.db`"), as written.
    pub fn index_file_after<'t>(&self, text: &'t str, end: usize) -> Option<&'t str> {
        let rest = &text[end..];
        self.index_files.iter().find_map(|suffix| {
            let written = rest.get(..suffix.len())?;
            let ends = !rest[suffix.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            (written.eq_ignore_ascii_case(suffix) && ends).then_some(written)
        })
    }

    /// A manifest's dependency line right after a mention: `usearch = "2.17.0"`,
    /// `ort = { version = "2" }` (Cargo), `"loro-crdt": "^1.4"` (package.json), pasted
    /// into a log: the project declares the repo as a dependency. The line as written.
    pub fn dependency_line<'t>(&self, text: &'t str, end: usize, s_end: usize) -> Option<&'t str> {
        let rest = &text[end..s_end];
        // package.json: the name's closing quote, then `:`.
        let (value, sep) = match rest.strip_prefix('"') {
            Some(after) => (after.trim_start().strip_prefix(':')?, ':'),
            None => (rest.trim_start().strip_prefix('=')?, '='),
        };
        let value = value.trim_start();
        let version = match value.strip_prefix('"') {
            Some(v) => v.trim_start_matches(['^', '~', '=', '>', '<', ' ']).starts_with(|c: char| c.is_ascii_digit()),
            None => {
                sep == '='
                    && value.starts_with('{')
                    && ["version", "path", "git"].iter().any(|k| value[1..].trim_start().starts_with(k))
            }
        };
        if !version {
            return None;
        }
        // Up to the value's closing quote or brace, looked for in a bounded window (a
        // mention per `x = {` on a huge line stays O(1)); the window when there is none.
        let window = &value[..value.floor_char_boundary(MAX_DEPENDENCY_VALUE.min(value.len()))];
        let close = match window.strip_prefix('"') {
            Some(v) => v.find('"').map(|i| i + 2),
            None => window.find('}').map(|i| i + 1),
        };
        let len = rest.len() - value.len() + close.unwrap_or(window.len());
        Some(&text[end..end + len])
    }

    /// The first counted result of class `class` in `sentence`: a number (digits, commas
    /// and dots, an optional `k`/`M` and `+`) followed by one of the class's
    /// `result_units`, glued or after one space ("454 symbols", "84k+ symbols", "27s",
    /// "13%").
    pub fn counted_result<'t>(&self, sentence: &'t str, class: CueClass) -> Option<&'t str> {
        let bytes = sentence.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                // A number glued to a word is no count, nor is any part of it: "v3.0
                // chunks" counts nothing.
                while i < bytes.len() && (bytes[i].is_ascii_digit() || matches!(bytes[i], b',' | b'.')) {
                    i += 1;
                }
                continue;
            }
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || matches!(bytes[i], b',' | b'.')) {
                i += 1;
            }
            // A comma or dot after the digits ends the number ("step 2. Symbols").
            while matches!(bytes[i - 1], b',' | b'.') {
                i -= 1;
            }
            let mut j = i;
            if j < bytes.len() && matches!(bytes[j], b'k' | b'K' | b'M') {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'+' {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            let unit_len = bytes[j..].iter().take_while(|b| b.is_ascii_alphabetic() || **b == b'%').count();
            let unit = &sentence[j..j + unit_len];
            let known = self.result_units.iter().any(|(u, c)| *c == class && u.eq_ignore_ascii_case(unit));
            if unit_len > 0 && known {
                return Some(&sentence[start..j + unit_len]);
            }
            i = i.max(start + 1);
        }
        None
    }

    /// A run's count right after the mention ending at `end` (within the sentence ending
    /// at `s_end`), in parentheses or after one space: "Large repos like duckdb (5,309
    /// files) take ~3 minutes", "the usearch fixture (9,870 symbols)", "gemini-cli 1,904
    /// files, 11,266 functions, 37.9s". Counting a repo's files, symbols or chunks is what
    /// running the tool on it does. A count of things only: not a time or a share ("turso
    /// (40% slower)", "dojo (3 s)", "dojo 3s"). Not after a colon: "quickparse: 1,204
    /// symbols" is an item labelled by its repo, read with its list's lead-in. A tool's
    /// output line tagged with the repo counts it too: "[SDL] 84,913 items in 31.7s".
    pub fn count_right_after<'t>(&self, text: &'t str, start: usize, end: usize, s_end: usize) -> Option<&'t str> {
        let rest = &text[end..s_end];
        let tagged = text[..start].ends_with('[') && !text[..start].ends_with("[[");
        let rest = rest.strip_prefix('`').or_else(|| rest.strip_prefix(']').filter(|_| tagged)).unwrap_or(rest);
        let bare = || rest.strip_prefix(' ').filter(|count| count.starts_with(|c: char| c.is_ascii_digit()));
        let inner = rest.strip_prefix(" (").or_else(bare)?;
        let inner = &inner[..inner.floor_char_boundary(inner.len().min(MAX_COUNT_BYTES))];
        let inner = &inner[..inner.find(')').unwrap_or(inner.len())];
        let count = self.counted_result(inner, CueClass::Testing)?;
        let unit = count.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
        let unit = &count[unit.len()..];
        let counts_things = !["ms", "s", "seconds", "%"].iter().any(|u| u.eq_ignore_ascii_case(unit));
        (inner.starts_with(count) && counts_things).then_some(count)
    }

    /// The owner possessive right before a mention starting at `start`, within the
    /// sentence starting at `s_start`: "our DuckDB", "Patina's simple Dagger approach" (at
    /// most one lower-case word between). `project` stands for `{project}`. `(class, words)`.
    pub fn owner_before(
        &self,
        text: &str,
        s_start: usize,
        start: usize,
        project: Option<&str>,
    ) -> Option<(CueClass, String)> {
        if self.owners.is_empty() {
            return None;
        }
        let before = text[s_start..start].strip_suffix(' ')?;
        let mut words = before.rsplit(' ');
        let last = words.next()?;
        let project = project.map(str::to_lowercase);
        let longest = MAX_OWNER_BYTES + project.as_ref().map_or(0, String::len);
        let owner = |word: &str| -> Option<CueClass> {
            // Owners are short words: a long token before a mention is none of them.
            if word.len() > longest {
                return None;
            }
            let word = word.to_lowercase().replace('\u{2019}', "'");
            self.owners.iter().find_map(|(owner, class)| {
                let matches = match (owner.split_once("{project}"), project.as_deref()) {
                    (Some((pre, post)), Some(project)) => {
                        word.strip_prefix(pre).and_then(|w| w.strip_suffix(post)) == Some(project)
                    }
                    (Some(_), None) => false,
                    (None, _) => *owner == word,
                };
                matches.then_some(*class)
            })
        };
        if let Some(class) = owner(last) {
            return Some((class, last.to_string()));
        }
        // One adjective between: "our own DuckDB", "Patina's simple Dagger".
        if last.is_empty() || !last.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        let second = words.next()?;
        let class = owner(second)?;
        Some((class, format!("{second} {last}")))
    }

    /// Every cue phrase in `text` on word boundaries and outside file names, in order and
    /// non-overlapping.
    ///
    /// Inline code does not break a phrase: "ran `patina scrape` on A" holds "scrape on"
    /// (backticks are transparent) and "why doesn't `patina scry` work on A" holds
    /// "doesn't work on" (a code span between two words of a phrase is skipped). Such a
    /// hit spans the code in `text`; a hit found without looking past code wins over one
    /// that it only partly overlaps, and loses to none it holds whole (the longest phrase
    /// wins, as in plain text: "scrape` on" over the "scrape" inside the code).
    pub fn find_all(&self, text: &str) -> Vec<CueHit> {
        self.find_all_and_negated(text).0
    }

    /// [`Cues::find_all`], and apart the phrases a negation voids ("we don't scrape it").
    pub fn find_all_and_negated(&self, text: &str) -> (Vec<CueHit>, Vec<CueHit>) {
        let mut hits = self.find_spanning_code(text);
        if !self.query_words.is_empty() && text.contains('"') {
            hits.retain(|h| !self.in_quoted_query(text, h));
        }
        hits.into_iter().partition(|h| !self.negated(text, h))
    }

    /// Whether `hit` lies inside a double-quoted query on its line: a quoted string
    /// opened after a word of searching (`[context] query_words`), as in `patina scry
    /// --repo dojo "how does sozo migrate"` or searched for "games built on dojo". The
    /// query's words are what was searched for, not what was done. Read within
    /// [`MAX_QUERY_BYTES`] of the hit on each side.
    fn in_quoted_query(&self, text: &str, hit: &CueHit) -> bool {
        let bytes = text.as_bytes();
        let from = text.floor_char_boundary(hit.start.saturating_sub(MAX_QUERY_BYTES));
        let before = &text[from..hit.start];
        let before = before.rfind('\n').map_or(before, |i| &before[i + 1..]);
        // The opening quote: the only quote between the line (or window) start and the hit.
        let Some(open) = before.rfind('"') else { return false };
        if before[..open].contains('"') {
            return false;
        }
        let to = text.floor_char_boundary((hit.end + MAX_QUERY_BYTES).min(text.len()));
        let closed = bytes[hit.end..to].iter().take_while(|&&b| b != b'\n').any(|&b| b == b'"');
        closed
            && before[..open]
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| self.query_words.iter().any(|q| q.eq_ignore_ascii_case(w)))
    }

    fn find_spanning_code(&self, text: &str) -> Vec<CueHit> {
        let hits = self.find_plain(text);
        if !text.contains('`') {
            return hits;
        }
        // Hits that cross code, from both views, each view's in order.
        let mut past_code: Vec<CueHit> = Vec::new();
        for mode in [CodeSpans::Transparent, CodeSpans::Skipped] {
            let view = CodeView::new(text, mode);
            for hit in self.find_plain(&view.text) {
                let (start, end) = (view.origin(hit.start), view.origin(hit.end - 1) + 1);
                if text.as_bytes()[start..end].contains(&b'`') {
                    past_code.push(CueHit { start, end, ..hit });
                }
            }
        }
        merge_spanning(hits, past_code)
    }

    /// Whether a negation stands right before `hit` (see `[negation]` in `rules/cues.toml`):
    /// one of the negation words at most [`NEGATION_REACH`] words before the phrase, in
    /// its clause, unless the phrase is a failure ("didn't crash on SDL" ran on SDL).
    fn negated(&self, text: &str, hit: &CueHit) -> bool {
        let phrase = &text[hit.start..hit.end];
        let first = phrase.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}')).next();
        let first = first.unwrap_or("");
        if self.negators.is_empty() || self.failure_words.iter().any(|w| prefix_of(first, w) == Some(first.len())) {
            return false;
        }
        let from = text.floor_char_boundary(hit.start.saturating_sub(MAX_NEGATION_BYTES));
        let window = &text[from..hit.start];
        // Only the clause the phrase is in: the text after its last clause mark, and before
        // a parenthesis that closes right there, the clause it stands in ("Not adding turso
        // (or libsql) as a dependency").
        const CLAUSE_END: [char; 11] = ['\n', '.', ',', ';', ':', '!', '?', '(', ')', '\u{2014}', '\u{2013}'];
        fn clause(text: &str) -> &str {
            let text = match text.rmatch_indices(CLAUSE_END).next() {
                Some((i, end)) => &text[i + end.len()..],
                None => text,
            };
            text.rfind(" - ").map_or(text, |i| &text[i + 3..])
        }
        let near = clause(window);
        let aside = window[..window.len() - near.len()]
            .strip_suffix(')')
            .and_then(|inner| inner.rfind('(').filter(|&open| !inner[open + 1..].contains(CLAUSE_END)))
            .map_or("", |open| clause(&window[..open]));
        let is = |word: &str, listed: &str| prefix_of(word, listed) == Some(word.len());
        // The words before the phrase, nearest first; "not only", "not just": no negation.
        let mut after: Option<&str> = None;
        for word in near.split_whitespace().rev().chain(aside.split_whitespace().rev()).take(NEGATION_REACH + 1) {
            let word = word.trim_matches(['`', '*', '"', '_']);
            let softened = after.is_some_and(|a| is(a, "only") || is(a, "just"));
            if !softened && self.negators.iter().any(|n| is(word, n)) {
                return true;
            }
            after = Some(word);
        }
        false
    }

    /// Whether `cue` (a mention's cue text) claims where a design came from: it holds one
    /// of `[learning] design_origin_verbs` and then "from" ("routing approach came from").
    pub fn is_origin_claim(&self, cue: &str) -> bool {
        let mut words = cue.split_whitespace();
        let mut before = words.next().unwrap_or("");
        words.any(|word| {
            let origin = word.eq_ignore_ascii_case("from")
                && self.design_origin_verbs.iter().any(|v| v.eq_ignore_ascii_case(before));
            before = word;
            origin
        })
    }

    /// The verbs of taking a design from a repo (`[learning] gapped_verbs`: "took",
    /// "adopted", …), lower-case: negated before its possessive they deny a claim of where
    /// a design came from. Not the verbs of study: "haven't read dojo's docs yet" denies no
    /// claim.
    pub fn origin_verbs(&self) -> &[String] {
        &self.origin_verbs
    }

    /// The verb of taking that opens `sentence` (from its first word to its end) when the
    /// sentence names no source of its own: its object points back ("Took that for yolo",
    /// `[learning] taking_back_objects`) or is a design ("Took the priority model for
    /// yolo's `policy.toml`", `taken_nouns`), and its clause has no "from" and no negation.
    /// As written.
    pub fn taking_without_source<'t>(&self, sentence: &'t str) -> Option<&'t str> {
        let (verb, rest) = split_alphabetic(sentence, 0);
        if !self.origin_verbs.iter().any(|v| v.eq_ignore_ascii_case(verb)) {
            return None;
        }
        let rest = rest.strip_prefix(' ')?;
        let clause = &rest[..rest.find([':', ';', '(', '\u{2014}', '.']).unwrap_or(rest.len())];
        let words = || clause.split([' ', '`']).filter(|w| !w.is_empty());
        let is = |word: &str, list: &[String]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
        if words().any(|w| w.eq_ignore_ascii_case("from") || self.is_negator(w)) {
            return None;
        }
        let points_back = self.taking_back_objects.iter().any(|object| {
            rest.get(..object.len()).is_some_and(|w| w.eq_ignore_ascii_case(object))
                && !rest[object.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
        // "the", at most three words, then the design taken.
        let design = words().next().is_some_and(|w| w.eq_ignore_ascii_case("the"))
            && words().skip(1).take(MAX_TAKEN_WORDS + 1).any(|w| is(w.trim_end_matches(','), &self.taken_nouns));
        (points_back || design).then_some(verb)
    }

    /// The verb of taking or study right before `start` ("Adopted" in "Adopted opencode's",
    /// "went through" in "went through dojo's"), as written, within `[from, start)`.
    pub fn taking_before<'t>(&self, text: &'t str, from: usize, start: usize) -> Option<&'t str> {
        let before = text[from..start].strip_suffix(' ')?;
        word_at_end(before, &self.taking_verbs).map(|at| &before[at..])
    }

    /// The verb of study right before the mention at `start`, an article at most between
    /// ("Read the Gas Town design", "reading gastown"), as written with its article,
    /// within `[from, start)`. Not a verb of taking: "adopted Dagger" uses it.
    pub fn study_before<'t>(&self, text: &'t str, from: usize, start: usize) -> Option<&'t str> {
        verb_right_before(text, from, start, &self.study_verbs)
    }

    /// The verb of staying right before the mention at `start` (`[using] state_verbs`), an
    /// article at most between, as written with its article, within `[from, start)`:
    /// "The vector files stay in usearch", "the code index stays on usearch + rusqlite".
    pub fn state_before<'t>(&self, text: &'t str, from: usize, start: usize) -> Option<&'t str> {
        verb_right_before(text, from, start, &self.state_verbs)
    }

    /// The preposition of means right before the mention at `start` (`[using]
    /// means_prepositions`), an article at most between, with the word before it, as
    /// written, within `[from, start)`: "loaded it through scryer-prolog", "full rebuild
    /// through usearch". Not after a word of `means_not_after` ("looked through dojo"), nor
    /// on a repo heading a Rust path ("goes through `dojo::world::WorldStorage`").
    pub fn means_before<'t>(&self, text: &'t str, from: usize, start: usize, end: usize) -> Option<&'t str> {
        if text[end..].starts_with("::") {
            return None;
        }
        let phrase = verb_right_before(text, from, start, &self.means_prepositions)?;
        // The phrase is a slice of `text`: where it starts.
        let at = phrase.as_ptr() as usize - text.as_ptr() as usize;
        let before = text[from..at].trim_end();
        let word = before.rsplit(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')).next().unwrap_or("");
        if word.is_empty() || self.means_not_after.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            return None;
        }
        Some(&text[from + before.len() - word.len()..at + phrase.len()])
    }

    /// Whether a path's folder (lower-cased) is one of `[using] part_folders`.
    pub fn is_part_folder(&self, folder: &str) -> bool {
        self.part_folders.iter().any(|f| f == folder)
    }

    /// The folder of the project's part right before the mention at `start` in a path
    /// (`[using] part_folders`), with its slash, as written: "adapters/" in
    /// `src/adapters/opencode.rs` and "adapters/claude-code: …". The folder starts the path
    /// or follows a '/'.
    pub fn part_folder_before<'t>(&self, text: &'t str, start: usize) -> Option<&'t str> {
        let before = text[..start].strip_suffix('/')?;
        let folder = self.part_folders.iter().find(|f| {
            before.len() >= f.len()
                && before.is_char_boundary(before.len() - f.len())
                && before[before.len() - f.len()..].eq_ignore_ascii_case(f)
        })?;
        let at = before.len() - folder.len();
        let opens =
            before[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')));
        opens.then(|| &text[at..start])
    }

    /// The verb of staying after the mention ending at `end`, the repo its subject: at most
    /// one `compounds` word between ("the duckdb backend stays"; not a `subject_compounds`
    /// word, whose thing may be a test subject's), then a
    /// `[using] subject_state_verbs` phrase, then the end of the clause or a
    /// `state_completions` word or a version ("usearch stays as is", "scryer-prolog stays
    /// on 0.9.4", "scryer-prolog is still the rules engine"; not "turso stays \"idea\"",
    /// "turso is still on the roadmap", "SDL is still the slowest", nor a question). Read
    /// within `[end, s_end)`; the verb, as written.
    pub fn state_after<'t>(&self, text: &'t str, end: usize, s_end: usize) -> Option<&'t str> {
        let rest = &text[end..s_end];
        let mut rest = rest.trim_start_matches(['*', '`']).strip_prefix(' ')?;
        let first_word = |r: &str| r.split(|c: char| !(c.is_alphanumeric() || c == '-')).next().unwrap_or("").len();
        let head = first_word(rest);
        // Not past a test subject's own thing ("SDL index is still on v3.0 chunks" in a
        // file that scrapes SDL; `subject_compounds` decide that elsewhere).
        let word = &rest[..head];
        if head > 0
            && self.compounds.iter().any(|(w, _)| w.eq_ignore_ascii_case(word))
            && !self.subject_compounds.iter().any(|w| w.eq_ignore_ascii_case(word))
        {
            rest = rest[head..].trim_start_matches(['*', '`']).strip_prefix(' ')?;
        } else if head > 0 && self.subject_compounds.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            return None;
        }
        let verb = self.subject_state_verbs.iter().find(|v| {
            rest.get(..v.len()).is_some_and(|r| r.eq_ignore_ascii_case(v))
                && !rest[v.len()..].starts_with(|c: char| c.is_alphanumeric())
        })?;
        // A question keeps nothing: "Does turso stay on the shortlist?"
        if text[..s_end].trim_end().ends_with('?') {
            return None;
        }
        let (verb, after) = rest.split_at(verb.len());
        let after = after.trim_start_matches(['*', '`']);
        let ends_clause = after.trim().is_empty()
            || after.starts_with(['.', ',', ';', ':', ')', '\u{2014}', '\u{2013}', '\n'])
            || after.starts_with(" - ");
        let after = after.trim_start();
        let completed = self.state_completions.iter().any(|w| {
            let Some(next) = after.get(..w.len()).filter(|a| a.eq_ignore_ascii_case(w)).map(|_| &after[w.len()..])
            else {
                return false;
            };
            // Not a result: "SDL is still the slowest of the C repos".
            let superlative =
                next.trim_start().split(|c: char| !c.is_alphabetic()).next().is_some_and(|w| w.ends_with("est"));
            !next.starts_with(|c: char| c.is_alphanumeric()) && !superlative
        });
        // A version follows, "on" or "at" at most before it: "stays on 0.9.4", "stays at v2".
        let version = {
            let next = after.strip_prefix("on ").or_else(|| after.strip_prefix("at ")).unwrap_or(after);
            let next = next.trim_start_matches('`');
            let next = next.strip_prefix(['v', 'V']).unwrap_or(next);
            next.starts_with(|c: char| c.is_ascii_digit())
        };
        (ends_clause || completed || version).then_some(verb)
    }

    /// What a study of the repo ending at `end` read, when it is not the repo's design:
    /// the word right after it (past a possessive) is a hearsay noun ("reading usearch
    /// issues", "reading PAI write-ups"), a result of the project's run on it
    /// (`[learning] result_nouns`: "Analysed livestore misses") or a figure ("Dug into
    /// kit's 0.41": a run's result). That word, as written.
    pub fn not_its_design_after<'t>(&self, text: &'t str, end: usize) -> Option<&'t str> {
        word_after_name(text, end)
            .filter(|word| word.starts_with(|c: char| c.is_ascii_digit()) || self.said_or_run(word))
    }

    /// [`Cues::not_its_design_after`] without the figure: after a learning phrase a figure
    /// is as often a version ("inspired by SDL 3's GPU API") as a result.
    pub fn said_or_run_after<'t>(&self, text: &'t str, end: usize) -> Option<&'t str> {
        word_after_name(text, end).filter(|word| self.said_or_run(word))
    }

    fn said_or_run(&self, word: &str) -> bool {
        self.hearsay_nouns.iter().chain(&self.result_nouns).any(|n| n.eq_ignore_ascii_case(word))
    }

    /// A run's retrieval score right after the mention ending at `end`, within the
    /// sentence ending at `s_end` and [`MAX_METRIC_BYTES`]: a `[testing] result_metrics`
    /// name starting a word, then its value ("[1/1] SDL  queries ✓   q r@5 0.65", "dojo
    /// torii-indexer MRR 0.41 → 0.58", "livestore rerun after #228: r@10 0.73 → 0.87").
    /// Names are tried longest first (`mrr@` before `mrr`). A name ending in '@' takes its
    /// cut-off first (`r@10`); at most [`MAX_METRIC_GAP`] bytes of ':', '=' and spaces may
    /// stand before the value. The score as written (cut at the window's end).
    pub fn metric_right_after<'t>(&self, text: &'t str, end: usize, s_end: usize) -> Option<&'t str> {
        let window = &text[end..text.floor_char_boundary((end + MAX_METRIC_BYTES).min(s_end))];
        let bytes = window.as_bytes();
        let starts = (0..bytes.len()).filter(|&i| i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        let named = |at: usize| {
            let rest = &bytes[at..];
            self.result_metrics
                .iter()
                .filter(move |m| rest.len() >= m.len() && rest[..m.len()].eq_ignore_ascii_case(m.as_bytes()))
                .map(move |m| (at, m))
        };
        starts.flat_map(named).find_map(|(at, name)| {
            let mut i = at + name.len();
            if name.ends_with('@') {
                let cut = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if cut == 0 {
                    return None;
                }
                i += cut;
            } else if bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric()) {
                // "mrrx" is another word.
                return None;
            }
            i += bytes[i..].iter().take(MAX_METRIC_GAP).take_while(|b| matches!(b, b' ' | b':' | b'=')).count();
            let value = bytes[i..].iter().take_while(|b| b.is_ascii_digit() || **b == b'.').count();
            // A sentence's full stop is not the value's: "R@10 0.64.".
            let value = value - bytes[i..i + value].iter().rev().take_while(|b| **b == b'.').count();
            let digits = bytes[i..i + value].iter().any(u8::is_ascii_digit);
            (digits && value > 0).then(|| &window[at..i + value])
        })
    }

    /// Whether "own" follows the repo's possessive at `end`: a study of it read a test
    /// subject's own setup, not its design ("how we read death-mountain's own manifest",
    /// "Digging into dojo's own layout"). A verb of taking still takes ("Took cuti's own
    /// run script verbatim").
    pub fn own_after(&self, text: &str, end: usize) -> bool {
        let rest = &text[end..text.floor_char_boundary((end + 8).min(text.len()))];
        let rest = rest.strip_prefix("'s ").or_else(|| rest.strip_prefix("\u{2019}s "));
        rest.is_some_and(|r| {
            r.get(..3).is_some_and(|w| w.eq_ignore_ascii_case("own")) && !r[3..].starts_with(char::is_alphanumeric)
        })
    }

    /// A repo fetched, then read: a verb of fetching right before the mention at `[start,
    /// end)` (within `[from, start)`), then "and" and a verb of study right after it (a
    /// path it went to may stand between), before `to`: "Cloned sst/opencode and read the
    /// session path end to end", "Cloned steveyegge/gastown into ~/src/study/ and read the
    /// `gt prime` path". Its words ("Cloned … and read"). Bounded: the study verb is looked
    /// for in a few bytes after the mention.
    pub fn acquired_then_studied(
        &self,
        text: &str,
        from: usize,
        start: usize,
        end: usize,
        to: usize,
    ) -> Option<String> {
        let before = text[from..start].strip_suffix(' ')?;
        let at = word_at_end(before, &self.acquire_verbs)?;
        let after = &text[end..text.floor_char_boundary(to.min(end + MAX_STUDIED_AFTER))];
        let rest = skip_destination(after).strip_prefix(" and ")?;
        let verb = self.study_verbs.iter().find(|verb| {
            rest.get(..verb.len()).is_some_and(|w| w.eq_ignore_ascii_case(verb))
                && rest[verb.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())
        })?;
        Some(format!("{} … and {}", &before[at..], &rest[..verb.len()]))
    }

    /// A verb of study whose object is the mention's by a possessive pronoun, in `[end,
    /// to)` after the mention (at most [`MAX_PRONOUN_STUDY_AFTER`] bytes): "**humanlayer**
    /// staleness handling. Read their knowledge-freshness code", "the `examples/hooks/`
    /// folder in the claude-code repo and read their `SessionEnd` example". The caller ends
    /// `to` at the next other repo on the line, so the mention is the one named last before
    /// the pronoun. Not when a negation stands before the verb in its clause ("I've never
    /// read its code"). The verb's offset, the verb as written ("Read") and the pronoun
    /// ("their").
    pub fn study_by_pronoun_after<'t>(
        &self,
        text: &'t str,
        end: usize,
        to: usize,
    ) -> Option<(usize, &'t str, &'static str)> {
        let after = &text[end..text.floor_char_boundary(to.min(end + MAX_PRONOUN_STUDY_AFTER))];
        let bytes = after.as_bytes();
        for (at, _) in after.match_indices(' ') {
            let rest = &after[at + 1..];
            let Some(verb) = self.study_verbs.iter().find(|verb| {
                rest.get(..verb.len()).is_some_and(|w| w.eq_ignore_ascii_case(verb))
                    && is_word_boundary(bytes, at + 1, at + 1 + verb.len())
            }) else {
                continue;
            };
            let object = rest[verb.len()..].strip_prefix(' ').unwrap_or("");
            let Some(pronoun) = POSSESSIVE_PRONOUNS.iter().find(|p| {
                object.get(..p.len()).is_some_and(|w| w.eq_ignore_ascii_case(p)) && object[p.len()..].starts_with(' ')
            }) else {
                continue;
            };
            // The verb's clause, back to the last clause-ending mark before it.
            let clause_start = after[..at]
                .char_indices()
                .rev()
                .find(|&(_, ch)| ['.', ';', ':', ',', '!', '?', '(', '\u{2014}'].contains(&ch))
                .map_or(0, |(i, ch)| i + ch.len_utf8());
            let negated = after[clause_start..at]
                .split(|c: char| c.is_whitespace() || c == '`')
                .any(|w| !w.is_empty() && self.is_negator(w));
            if negated {
                return None;
            }
            return Some((end + at + 1, &rest[..verb.len()], pronoun));
        }
        None
    }

    /// Whether `word` (ASCII case aside) is a failure word (`[negation] failure_words`).
    pub fn is_failure_word(&self, word: &str) -> bool {
        self.failure_words.iter().any(|w| w.eq_ignore_ascii_case(word))
    }

    /// Whether `word` is a negation word (`[negation] words`): ASCII case aside, a
    /// typographic apostrophe standing for ' ("Haven’t"). No allocation.
    pub fn is_negator(&self, word: &str) -> bool {
        self.negators.iter().any(|n| prefix_of(word, n) == Some(word.len()))
    }

    /// A negation right before the mention at `start` (within `[from, start)`), an article
    /// at most between, or "nothing"/"none" and "from"/"of": "no turso crate", "not the
    /// Dagger pipeline", "nothing from the Dagger SDK". Not "not only".
    pub fn negation_right_before<'t>(&self, text: &'t str, from: usize, start: usize) -> Option<&'t str> {
        let before =
            text[text.floor_char_boundary(start.saturating_sub(MAX_NEGATION_BYTES)).max(from)..start].trim_end();
        let mut words = before.rsplit(|c: char| c.is_whitespace() || c == '`').filter(|w| !w.is_empty());
        let mut word = words.next()?;
        if ["the", "a", "an", "any"].iter().any(|a| a.eq_ignore_ascii_case(word)) {
            word = words.next()?;
        }
        // "nothing from the Dagger SDK is left", "none of the turso code".
        if ["from", "of"].iter().any(|p| p.eq_ignore_ascii_case(word)) {
            word = words.next().filter(|w| ["nothing", "none"].iter().any(|n| n.eq_ignore_ascii_case(w)))?;
        }
        self.negators.iter().any(|n| n.eq_ignore_ascii_case(word)).then_some(word)
    }

    /// A word right after the mention ending at `end` (within `[end, to)`, past a dash, a
    /// colon or a comma) that says the repo was left out: an item skipped in a list of
    /// runs ("- memista — not cloned, skip", "- SDL: skipped"). A failure that did not
    /// happen is a result ("- SDL: no panics", see `failure_words`). In a table row, past
    /// empty cells too: "| SDL | – | – | skipped: index too old |".
    pub fn skipped_right_after<'t>(&self, text: &'t str, end: usize, to: usize) -> Option<&'t str> {
        let after = right_after(text, end, to);
        let rest =
            after.trim_start_matches([' ', '\t', '\u{2014}', '\u{2013}', '-', ':', ',', '*', '`', '_', ')', '|']);
        // Only past a separator or a space: "memista-not" is no item.
        if rest.len() == after.len() {
            return None;
        }
        let word_end =
            |t: &str| t.find(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}')).unwrap_or(t.len());
        let word = &rest[..word_end(rest)];
        let next = rest[word.len()..].trim_start();
        let next = &next[..word_end(next)];
        let listed = |list: &[String], w: &str| list.iter().any(|l| prefix_of(w, l) == Some(w.len()));
        (!word.is_empty() && listed(&self.item_skips, word) && !listed(&self.failure_words, next)).then_some(word)
    }

    /// A later clause that says the act of a cue of `class` (whose words are `cue`) never
    /// happened, within `rest` (the sentence after the cue, up to another repo's name):
    /// "; never added", "; patina has never used it for anything" (`[negation]
    /// denied_uses`, …). `complete` says whether `rest` runs to the sentence's end (a
    /// clause cut by the caller's window does not end where the window does). The phrase
    /// from "never" to the act, if any.
    pub fn act_denied<'t>(
        &self,
        rest: &'t str,
        complete: bool,
        class: CueClass,
        cue: &str,
        project: Option<&str>,
    ) -> Option<&'t str> {
        // Most windows hold no "never": read nothing else then.
        if !rest.as_bytes().windows(5).any(|w| w.eq_ignore_ascii_case(b"never")) {
            return None;
        }
        let d = &self.act_denial;
        let role = || d.roles.iter().any(|r| r.eq_ignore_ascii_case(cue.trim()));
        let acts: &[&[String]] = match class {
            CueClass::Using => &[&d.uses],
            CueClass::Testing if role() => &[&d.runs, &d.uses],
            CueClass::Testing => &[&d.runs],
            CueClass::Learning => &[&d.studies],
            CueClass::Plain | CueClass::Ending => return None,
        };
        // Clause starts in order, past ';', ',', ':', '—', '–' or a spaced " - ".
        let bytes = rest.as_bytes();
        rest.char_indices()
            .filter_map(|(i, c)| match c {
                ';' | ',' | ':' | '\u{2014}' | '\u{2013}' => Some(i + c.len_utf8()),
                '-' if i > 0 && bytes[i - 1] == b' ' && bytes.get(i + 1) == Some(&b' ') => Some(i + 2),
                _ => None,
            })
            .find_map(|at| d.at_clause_start(&rest[at..], complete, acts, project))
    }

    /// Whether a skip word says so whatever stands before the repo ("Rust fixture (loro):
    /// skipped this month", `[negation] explicit_skips`): "skip", "skipped", "skipping";
    /// not "not", "no", "never".
    pub fn is_explicit_skip(&self, word: &str) -> bool {
        self.explicit_skips.iter().any(|stem| prefix_of(word, stem).is_some())
    }

    /// Whether a failure word follows the mention ending at `end` (within `[end, to)`): "no
    /// SDL panics" is a run on SDL that passed, not SDL denied.
    pub fn failure_right_after(&self, text: &str, end: usize, to: usize) -> bool {
        let rest = right_after(text, end, to).trim_start_matches(['`', '*', '_', ' ', '\t']);
        let word = &rest[..rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len())];
        !word.is_empty() && self.is_failure_word(word)
    }

    /// Whether a compound names a part of the project built on the repo
    /// (`[using] project_parts`): a test run on "the turso store" ran the project's store.
    pub fn is_project_part(&self, noun: &str) -> bool {
        let noun = head_noun(noun);
        self.project_parts.iter().any(|w| w.eq_ignore_ascii_case(noun))
    }

    /// The verbs of a repo's own dependency (`[hedge] dependency_verbs`) in `text`, on
    /// word boundaries, in order: `(start, end)`.
    pub fn dependency_verbs_in(&self, text: &str) -> Vec<(usize, usize)> {
        let bytes = text.as_bytes();
        self.dependency_verbs
            .find_iter(text)
            .filter(|m| is_word_boundary(bytes, m.start(), m.end()))
            .map(|m| (m.start(), m.end()))
            .collect()
    }

    /// The void phrases in `text` (see `[hedge]` in `rules/cues.toml`): byte spans on word
    /// boundaries, in order, and what each says.
    pub fn find_hedges(&self, text: &str) -> Vec<(usize, usize, Void)> {
        let bytes = text.as_bytes();
        self.hedges
            .find_iter(text)
            .filter(|m| is_word_boundary(bytes, m.start(), m.end()))
            // A path's folder or an owner is a name, no word: `[[someone/duckdb]]`,
            // `docs/plans/`.
            .filter(|m| bytes.get(m.end()) != Some(&b'/') && (m.start() == 0 || bytes[m.start() - 1] != b'/'))
            .filter(|m| {
                !self.describes_a_noun(text, m.start(), m.end()) && !self.opens_a_purpose(text, m.start(), m.end())
            })
            .map(|m| (m.start(), m.end(), self.hedge_kinds[m.pattern().as_usize()]))
            .collect()
    }

    /// Whether the hedge at `text[start..end]` is a time (`[hedge] purpose_times`) opening
    /// a clause of purpose, right after "so" or "so that": "Written into `deps.md` so next
    /// month starts from facts" wrote it. The time is the purpose's, not the act's.
    fn opens_a_purpose(&self, text: &str, start: usize, end: usize) -> bool {
        let before = text[..start].trim_end_matches(' ');
        let before = before.strip_suffix(" that").unwrap_or(before).as_bytes();
        before.len() > 2
            && before[before.len() - 2..].eq_ignore_ascii_case(b"so")
            && [b' ', b'`', b','].contains(&before[before.len() - 3])
            && self.purpose_times.iter().any(|t| t.eq_ignore_ascii_case(&text[start..end]))
    }

    /// Whether the hedge word at `text[start..end]` is a participle describing the noun
    /// before it (`[hedge] modifier_participles`): "the idea parked on the 5th", a
    /// determiner and one noun before it, a preposition after it. No allocation.
    fn describes_a_noun(&self, text: &str, start: usize, end: usize) -> bool {
        let eq = |word: &str, list: &[String]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
        if !eq(&text[start..end], &self.modifier_participles) {
            return false;
        }
        let next = text[end..].strip_prefix(' ').unwrap_or("");
        let next = &next[..next.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(next.len())];
        let mut before = text[..start].strip_suffix(' ').unwrap_or("").rsplit(' ');
        let (Some(noun), Some(determiner)) = (before.next(), before.next()) else {
            return false;
        };
        eq(next, &self.modifier_prepositions)
            && eq(determiner, &self.modifier_determiners)
            && !noun.is_empty()
            && noun.bytes().all(|b| b.is_ascii_alphabetic())
            && !eq(noun, &self.act_denial.auxiliaries)
    }

    /// The ending word a lead-in line is ("### Removed", "**Dropped:**", "Deprecated
    /// (v0.9):"): its first word, of `[ending] lead_ins`, with at most three words after it.
    pub fn ending_lead_in<'t>(&self, line: &'t str) -> Option<&'t str> {
        let label = line.trim().trim_start_matches(['#', '-', '*', '_', ' ']);
        let first = label.split(|c: char| !c.is_alphanumeric()).next()?;
        let words = label.split_whitespace().count();
        (words <= 4 && self.ending_lead_ins.iter().any(|w| w.eq_ignore_ascii_case(first))).then_some(first)
    }

    /// The label of a lead-in line when all of it is one of `[hedge] label_lead_ins`:
    /// "### 15:52 - Next", "**Next:**", "Up next:" (markdown, a leading time and a trailing
    /// colon aside). A word that leads plans only alone: "Next batch run on dojo:" and
    /// "Later session work" lead what was done. Read for a block's lead-in line only: "**Later:**
    /// re-ran the scrape on dojo" on one line reports what was done.
    pub fn plan_label<'t>(&self, line: &'t str) -> Option<&'t str> {
        let mut label = line.trim().trim_start_matches(['#', '*', '-', '>', ' ']);
        // A leading time: "15:52 - ", "15:52 ".
        let time = label.bytes().take_while(|b| b.is_ascii_digit() || *b == b':').count();
        if time >= 4 && label[..time].contains(':') {
            label = label[time..].trim_start_matches([' ', '-', '\u{2013}', '\u{2014}']);
        }
        let label = label.trim_end().trim_end_matches(['*', ' ']).trim_end_matches(':').trim_end_matches(['*', ' ']);
        self.hedge_label_lead_ins.iter().any(|w| w.eq_ignore_ascii_case(label)).then_some(label)
    }

    /// The words that make a lead-in line lead a list of plans ("Next steps:", "TODO",
    /// "Ideas"), or of someone else's things ("From the reporter:"): a hedge lead-in word
    /// or a void phrase in it, and what it says.
    pub fn plan_lead_in<'t>(&self, line: &'t str) -> Option<(&'t str, Void)> {
        let bytes = line.as_bytes();
        let word =
            |m: aho_corasick::Match| is_word_boundary(bytes, m.start(), m.end()).then(|| &line[m.start()..m.end()]);
        let plan = self.hedge_lead_ins.find_iter(line).find_map(word).map(|w| (w, Void::Hedge));
        plan.or_else(|| {
            self.hedges
                .find_iter(line)
                .filter(|m| !self.opens_a_purpose(line, m.start(), m.end()))
                .find_map(|m| word(m).map(|w| (w, self.hedge_kinds[m.pattern().as_usize()])))
        })
    }

    /// Whether a table's header cell names a column of results (`result_columns`: "Time",
    /// "p50", "Δ"; a metric at a cutoff, "MRR@10"; or a measurement unit in brackets,
    /// "scrape (s)", "p50 [ms]", "hit rate (%)"). No allocation: header words are compared
    /// in place, lower-cased as they go.
    fn is_result_column(&self, header: &str) -> bool {
        let lower_eq = |w: &str, r: &String| w.chars().flat_map(char::to_lowercase).eq(r.chars());
        let bracketed_unit = header
            .rsplit_once(['(', '['])
            .and_then(|(_, after)| after.split_once([')', ']']))
            .is_some_and(|(unit, _)| self.measurement_units.iter().any(|u| lower_eq(unit.trim(), u)));
        bracketed_unit
            || header
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| !w.is_empty() && self.result_columns.iter().any(|r| lower_eq(w, r)))
            || header.split('@').skip(1).any(|after| after.starts_with(|c: char| c.is_ascii_digit()))
    }

    /// Whether a table cell under `header` is a measurement of a run (see `result_columns`
    /// in `rules/cues.toml`): a number in a result column, a number with a measurement
    /// unit ("11.2s", "3 ms", "13%"), or a change ("0 → 2,118").
    pub fn is_measurement(&self, header: &str, cell: &str) -> bool {
        let digits = cell.bytes().any(|b| b.is_ascii_digit());
        // A pass or fail mark counts under a result column: "| daydreams | … | ❌ see below |".
        if !digits && !cell.contains(PASS_FAIL_MARKS) {
            return false;
        }
        if self.is_result_column(header) {
            return true;
        }
        if !digits {
            return false;
        }
        if cell.contains('\u{2192}') || cell.contains("->") {
            return true;
        }
        // Each number's unit: the letters (or '%') right after its digits.
        let mut rest = cell;
        while let Some(i) = rest.find(|c: char| c.is_ascii_digit()) {
            let after = rest[i..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
            let unit: String =
                after.trim_start_matches(' ').chars().take_while(|c| c.is_alphabetic() || *c == '%').collect();
            if !unit.is_empty() && self.measurement_units.contains(&unit.to_lowercase()) {
                return true;
            }
            rest = after;
        }
        false
    }

    /// Whether `word` is one of the project's commands that run on a repo
    /// (`[testing] repo_flag_commands`: `scrape`, `bench`, `yolo`, …), in any case.
    pub fn is_testing_command(&self, word: &str) -> bool {
        self.repo_flag_commands.iter().any(|c| c.eq_ignore_ascii_case(word))
    }

    /// The retraction `text` opens with, lower-cased as listed ("that was wrong"), if any.
    pub fn retraction_at(&self, text: &str) -> Option<&str> {
        let bytes = text.as_bytes();
        let retracts = |r: &String, len: usize| {
            let rest = text[len..].trim_start_matches(' ');
            !self.short_retractions.contains(r)
                || rest.is_empty()
                || rest.starts_with(['.', ';', ':', ',', '!', '-', '\u{2014}', '\u{2013}', '\n'])
        };
        self.ending_retractions
            .iter()
            .find(|r| prefix_of(text, r).is_some_and(|len| is_word_boundary(bytes, 0, len) && retracts(r, len)))
            .map(String::as_str)
    }

    fn find_plain(&self, text: &str) -> Vec<CueHit> {
        let bytes = text.as_bytes();
        let hits: Vec<CueHit> = self
            .automaton
            .find_iter(text)
            .filter(|m| is_word_boundary(bytes, m.start(), m.end()) && !in_file_name(bytes, m.start(), m.end()))
            .map(|m| {
                let (class, strong) = self.classes[m.pattern().as_usize()];
                let points_forward = self.forward[m.pattern().as_usize()];
                CueHit { start: m.start(), end: m.end(), class, strong, points_forward }
            })
            .collect();
        // A gapped phrase holds the phrases inside it ("tested the scrape on": not "scrape").
        merge_spanning(hits, self.find_gapped(text))
    }

    /// Whether `word` is "with" and the words after it (`rest_at`), to the end of their
    /// clause, name repos by a repo word: "Live tested both commands with dust and dagger
    /// repositories" ran them on those repos, where "tested the pipeline with Dagger" names
    /// a tool.
    fn names_repos_after_with(&self, text: &str, word: &str, rest_at: usize) -> bool {
        if !word.eq_ignore_ascii_case("with") {
            return false;
        }
        let rest = &text[rest_at..text.ceil_char_boundary((rest_at + MAX_WITH_OBJECT_BYTES).min(text.len()))];
        let clause = rest.split(['.', ',', ';', ':', '!', '?', '(', '\n']).next().unwrap_or("");
        clause.split_whitespace().take(MAX_GAP_WORDS + 2).any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            self.repo_words.iter().any(|r| r.eq_ignore_ascii_case(w))
        })
    }

    /// The gapped phrases in `text` (see [`GappedPhrases`]), in no particular order.
    fn find_gapped(&self, text: &str) -> Vec<CueHit> {
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        if let Some(gapped) = &self.gapped {
            for m in gapped.verbs.find_iter(text) {
                let GappedRule { class, prepositions, last_words } = &gapped.rules[m.pattern().as_usize()];
                if !is_word_boundary(bytes, m.start(), m.end()) || in_file_name(bytes, m.start(), m.end()) {
                    continue;
                }
                let mut pos = m.end();
                let mut last_word = "";
                // Articles do not count toward the gap: "read the spec and the template in A"
                // has four words of object. Bounded all the same.
                let mut counted = 0;
                for gap in 0..=2 * MAX_GAP_WORDS {
                    let spaces = bytes[pos..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
                    let start = pos + spaces;
                    let len = bytes[start..].iter().take_while(|b| !b.is_ascii_whitespace()).count();
                    if spaces == 0 || len == 0 {
                        break;
                    }
                    let word = &text[start..start + len];
                    let preposition_here = prepositions.iter().any(|p| p.eq_ignore_ascii_case(word))
                        || *class == CueClass::Testing && self.names_repos_after_with(text, word, start + len);
                    let last_word_fits =
                        last_words.is_empty() || last_words.iter().any(|w| w.eq_ignore_ascii_case(last_word));
                    if gap > 0 && preposition_here && last_word_fits {
                        found.push(CueHit {
                            start: m.start(),
                            end: start + len,
                            class: *class,
                            strong: true,
                            points_forward: true,
                        });
                        break;
                    }
                    // The gap is the verb's object: no preposition, no end of a clause.
                    let ends_clause = word.ends_with(['.', ',', ';', ':', '!', '?', ')']) || word.contains('|');
                    let preposition = PREPOSITIONS.iter().chain(&CLAUSE_OPENERS).any(|p| p.eq_ignore_ascii_case(word));
                    // "the design did not come from X" claims nothing (a denied claim), and
                    // "the routing panic came from X" names a fault, not a design.
                    let bare = word.trim_matches(['*', '`', '_']);
                    let not_a_design = !last_words.is_empty()
                        && (self.is_negator(bare)
                            || self.is_failure_word(bare)
                            || self.design_gap_faults.iter().any(|w| w.eq_ignore_ascii_case(bare)));
                    if !ARTICLES.iter().any(|a| a.eq_ignore_ascii_case(word)) {
                        counted += 1;
                    }
                    if counted > MAX_GAP_WORDS || ends_clause || preposition || not_a_design {
                        break;
                    }
                    last_word = word;
                    pos = start + len;
                }
            }
        }
        found
    }
}

/// `hits` (sorted, non-overlapping) merged with `spanning`, hits found another way (across
/// code, or with words between): a spanning hit replaces the hits it holds whole and gives
/// way to one it only partly overlaps; of overlapping spanning hits the earlier (then the
/// longer) stays. The result is sorted and non-overlapping.
fn merge_spanning(hits: Vec<CueHit>, mut spanning: Vec<CueHit>) -> Vec<CueHit> {
    if spanning.is_empty() {
        return hits;
    }
    // Plain hits are sorted and non-overlapping, so their ends are sorted too: the ones a
    // span overlaps are a run found by binary search.
    let overlapped = |start: usize, end: usize| {
        let first = hits.partition_point(|h| h.end <= start);
        hits[first..].iter().take_while(move |h| h.start < end)
    };
    spanning.retain(|p| overlapped(p.start, p.end).all(|h| p.start <= h.start && h.end <= p.end));
    spanning.sort_by_key(|p| (p.start, std::cmp::Reverse(p.end)));
    let mut kept: Vec<CueHit> = Vec::with_capacity(spanning.len());
    for p in spanning {
        if kept.last().is_none_or(|k| k.end <= p.start) {
            kept.push(p);
        }
    }
    let mut out = Vec::with_capacity(hits.len() + kept.len());
    let mut kept = kept.into_iter().peekable();
    for h in hits {
        while let Some(k) = kept.next_if(|k| k.start <= h.start) {
            out.push(k);
        }
        if out.last().is_none_or(|last: &CueHit| last.end <= h.start) {
            out.push(h);
        }
    }
    out.extend(kept);
    out
}

/// The longest code span (in bytes, backticks included) a phrase may reach across.
const MAX_SKIPPED_CODE: usize = 80;

/// How [`CodeView`] treats an inline code span (`` `…` `` on one line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CodeSpans {
    /// Its backticks are dropped, its text kept: "`patina scrape` on" reads "patina scrape on".
    Transparent,
    /// It is dropped whole, with one space around it: "doesn't `cmd` work" reads "doesn't work".
    Skipped,
}

/// The lines of a text that hold inline code spans, with those spans rewritten for phrase
/// matching, and where each of their bytes came from. Fences and runs of backticks are
/// left as they are, as is a backtick with no partner on its line.
///
/// Only lines with a span are in the view (each with its own line end): a span never
/// crosses a line and no phrase crosses a line end, so a hit that crosses code is found
/// in the view of its own line, and a log whose code sits on a few lines is not read
/// three times over.
struct CodeView {
    text: String,
    /// The copied runs, in order: `(start in text, start in the original)`. One per code
    /// span, not one per byte: a view of a large log costs its text, not eight times it.
    runs: Vec<(usize, usize)>,
}

impl CodeView {
    fn new(text: &str, mode: CodeSpans) -> CodeView {
        let bytes = text.as_bytes();
        let mut view = CodeView { text: String::new(), runs: Vec::new() };
        let mut line_start = 0;
        while line_start < bytes.len() {
            let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
            let mut copied = line_start; // bytes of the line before this are in the view or dropped
            let mut spans = false;
            let mut i = line_start;
            while let Some(open) = memchr::memchr(b'`', &bytes[i..line_end]).map(|k| i + k) {
                let single = |at: usize| bytes.get(at + 1) != Some(&b'`') && (at == 0 || bytes[at - 1] != b'`');
                if !single(open) {
                    i = open + 1;
                    continue;
                }
                let Some(close) = memchr::memchr(b'`', &bytes[open + 1..line_end]).map(|k| open + 1 + k) else {
                    break;
                };
                if !single(close) {
                    i = close + 1;
                    continue;
                }
                spans = true;
                view.copy(text, copied, open);
                match mode {
                    CodeSpans::Transparent => view.copy(text, open + 1, close),
                    // A long span is no command inside a sentence: kept, so no phrase
                    // reaches across it (and no cue holds a page of code).
                    CodeSpans::Skipped if close - open > MAX_SKIPPED_CODE => view.copy(text, open, close + 1),
                    CodeSpans::Skipped => {
                        // One space stands where the span and its surrounding spaces were.
                        if view.text.ends_with(' ') && bytes.get(close + 1) == Some(&b' ') {
                            copied = close + 2;
                            i = close + 2;
                            continue;
                        }
                    }
                }
                copied = close + 1;
                i = close + 1;
            }
            if spans {
                view.copy(text, copied, line_end);
            }
            line_start = line_end;
        }
        view
    }

    /// Appends `text[from..to]` (both on char boundaries: backticks and line ends are ASCII).
    fn copy(&mut self, text: &str, from: usize, to: usize) {
        if from < to {
            self.runs.push((self.text.len(), from));
            self.text.push_str(&text[from..to]);
        }
    }

    /// The byte of the original text that byte `i` of the view copies.
    fn origin(&self, i: usize) -> usize {
        let run = self.runs.partition_point(|&(at, _)| at <= i) - 1;
        let (at, from) = self.runs[run];
        from + (i - at)
    }
}

/// The built-in vocabulary (`rules/cues.toml`) with each of `extra`'s TOML texts (labelled
/// for errors) added to its lists, and a hash of all the texts.
fn merged_vocabulary(extra: &[(String, String)]) -> Result<(RawCues, blake3::Hasher), String> {
    let mut merged: RawCues = toml::from_str(DEFAULT_CUES).map_err(|e| format!("built-in cues: {e}"))?;
    let mut fingerprint = blake3::Hasher::new();
    fingerprint.update(DEFAULT_CUES.as_bytes());
    for (label, text) in extra {
        let raw: RawCues = toml::from_str(text).map_err(|e| format!("{label}: {e}"))?;
        fingerprint.update(text.as_bytes());
        for (into, from) in
            [(&mut merged.testing, raw.testing), (&mut merged.learning, raw.learning), (&mut merged.using, raw.using)]
        {
            into.phrases.extend(from.phrases);
            into.forward_phrases.extend(from.forward_phrases);
            into.weak_phrases.extend(from.weak_phrases);
            into.repo_flag_commands.extend(from.repo_flag_commands);
            into.repo_flags.extend(from.repo_flags);
            into.compounds.extend(from.compounds);
            into.strong_compounds.extend(from.strong_compounds);
            into.project_parts.extend(from.project_parts);
            into.subject_compounds.extend(from.subject_compounds);
            into.owners.extend(from.owners);
            into.add_commands.extend(from.add_commands);
            into.gapped_verbs.extend(from.gapped_verbs);
            into.gapped_prepositions.extend(from.gapped_prepositions);
            into.study_verbs.extend(from.study_verbs);
            into.study_prepositions.extend(from.study_prepositions);
            into.design_nouns.extend(from.design_nouns);
            into.taking_back_objects.extend(from.taking_back_objects);
            into.taken_nouns.extend(from.taken_nouns);
            into.design_origin_verbs.extend(from.design_origin_verbs);
            into.design_gap_faults.extend(from.design_gap_faults);
            into.acquire_verbs.extend(from.acquire_verbs);
            into.hearsay_nouns.extend(from.hearsay_nouns);
            into.result_nouns.extend(from.result_nouns);
            into.state_verbs.extend(from.state_verbs);
            into.subject_state_verbs.extend(from.subject_state_verbs);
            into.state_completions.extend(from.state_completions);
            into.means_prepositions.extend(from.means_prepositions);
            into.part_folders.extend(from.part_folders);
            into.means_not_after.extend(from.means_not_after);
            into.result_units.extend(from.result_units);
            into.result_metrics.extend(from.result_metrics);
        }
        merged.lead_in.testing.extend(raw.lead_in.testing);
        merged.lead_in.learning.extend(raw.lead_in.learning);
        merged.lead_in.using.extend(raw.lead_in.using);
        merged.lead_in.repo_columns.extend(raw.lead_in.repo_columns);
        merged.lead_in.option_columns.extend(raw.lead_in.option_columns);
        merged.lead_in.dependency_columns.extend(raw.lead_in.dependency_columns);
        merged.lead_in.result_columns.extend(raw.lead_in.result_columns);
        merged.lead_in.item_columns.extend(raw.lead_in.item_columns);
        merged.lead_in.measurement_units.extend(raw.lead_in.measurement_units);
        merged.ending.before.extend(raw.ending.before);
        merged.ending.after.extend(raw.ending.after);
        merged.ending.filler.extend(raw.ending.filler);
        merged.ending.objects.extend(raw.ending.objects);
        merged.ending.participles.extend(raw.ending.participles);
        merged.ending.commands.extend(raw.ending.commands);
        merged.ending.retractions.extend(raw.ending.retractions);
        merged.ending.short_retractions.extend(raw.ending.short_retractions);
        merged.ending.lead_ins.extend(raw.ending.lead_ins);
        merged.ending.row_verdicts.extend(raw.ending.row_verdicts);
        merged.ending.credit_words.extend(raw.ending.credit_words);
        merged.ending.credit_removals.extend(raw.ending.credit_removals);
        merged.ending.row_retractions.extend(raw.ending.row_retractions);
        merged.ending.denied_claims.extend(raw.ending.denied_claims);
        merged.ending.near_misses.extend(raw.ending.near_misses);
        merged.hedge.phrases.extend(raw.hedge.phrases);
        merged.hedge.lead_ins.extend(raw.hedge.lead_ins);
        merged.hedge.label_lead_ins.extend(raw.hedge.label_lead_ins);
        merged.hedge.modifier_participles.extend(raw.hedge.modifier_participles);
        merged.hedge.modifier_determiners.extend(raw.hedge.modifier_determiners);
        merged.hedge.modifier_prepositions.extend(raw.hedge.modifier_prepositions);
        merged.hedge.purpose_times.extend(raw.hedge.purpose_times);
        merged.hedge.plan_nouns.extend(raw.hedge.plan_nouns);
        merged.hedge.dependency_verbs.extend(raw.hedge.dependency_verbs);
        merged.hedge.owner_words.extend(raw.hedge.owner_words);
        merged.hedge.other_parties.extend(raw.hedge.other_parties);
        merged.hedge.rejections.extend(raw.hedge.rejections);
        merged.negation.words.extend(raw.negation.words);
        merged.negation.failure_words.extend(raw.negation.failure_words);
        merged.negation.item_skips.extend(raw.negation.item_skips);
        merged.negation.explicit_skips.extend(raw.negation.explicit_skips);
        merged.negation.denied_uses.extend(raw.negation.denied_uses);
        merged.negation.denied_runs.extend(raw.negation.denied_runs);
        merged.negation.denied_studies.extend(raw.negation.denied_studies);
        merged.negation.denied_roles.extend(raw.negation.denied_roles);
        merged.negation.denial_subjects.extend(raw.negation.denial_subjects);
        merged.negation.denial_auxiliaries.extend(raw.negation.denial_auxiliaries);
        merged.negation.denial_adverbs.extend(raw.negation.denial_adverbs);
        merged.negation.denial_objects.extend(raw.negation.denial_objects);
        merged.negation.denial_tails.extend(raw.negation.denial_tails);
        merged.negation.denial_prepositions.extend(raw.negation.denial_prepositions);
        merged.context.repo_words.extend(raw.context.repo_words);
        merged.context.query_words.extend(raw.context.query_words);
        merged.context.repo_path_segments.extend(raw.context.repo_path_segments);
        merged.context.index_files.extend(raw.context.index_files);
        merged.ambiguous.ids.extend(raw.ambiguous.ids);
        if raw.bulk.min_distinct_nodes.is_some() {
            merged.bulk.min_distinct_nodes = raw.bulk.min_distinct_nodes;
        }
        if raw.bulk.subjects_min_distinct_nodes.is_some() {
            merged.bulk.subjects_min_distinct_nodes = raw.bulk.subjects_min_distinct_nodes;
        }
    }
    Ok((merged, fingerprint))
}

/// A user's rules file as `(label, text)` for a `load(extra)`: nothing when there is no
/// path or the file does not exist, an error naming the file when it cannot be read.
pub fn user_file(user: Option<&Path>) -> Result<Vec<(String, String)>, String> {
    let Some(path) = user else { return Ok(Vec::new()) };
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(vec![(path.display().to_string(), text)]),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(format!("{}: {err}", path.display())),
    }
}

/// The cue vocabulary's claims the graph needs, lower-cased: an ending cue that is a
/// retraction (`[ending] retractions`), or that ends with a denied claim (`[ending]
/// denied_claims`: "not ported from") or a verb of taking (`[learning] gapped_verbs`,
/// negated before a repo's possessive: "we never took livestore's approach"), contradicts
/// a claim, so it ends LEARNS_FROM too.
///
/// Read from the same merged texts as [`Cues::load`], so a user's cue file that adds a
/// retraction or a verb of taking changes ingest and the graph alike.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimVocabulary {
    pub retractions: Vec<String>,
    pub denied_claims: Vec<String>,
    pub taking_verbs: Vec<String>,
    /// Words that make a removal's object a credit: such an ending withdraws a claim.
    pub credit_words: Vec<String>,
    /// Nouns that name a part or role of the repo in the project (every class's
    /// `compounds` and `strong_compounds`, the one-word `[lead_in] using` labels, the
    /// `option_columns` and `dependency_columns`), and the owner words before one ("our"):
    /// a cue of one of them says what the repo is to the project, not that something was
    /// done with it.
    pub part_nouns: Vec<String>,
}

impl ClaimVocabulary {
    /// The built-in vocabulary's claims.
    pub fn builtin() -> ClaimVocabulary {
        ClaimVocabulary::load(&[]).expect("rules/cues.toml is valid (checked by a test)")
    }

    /// The built-in vocabulary extended by `extra` (as for [`Cues::load`]).
    pub fn load(extra: &[(String, String)]) -> Result<ClaimVocabulary, String> {
        let (merged, _) = merged_vocabulary(extra)?;
        let clean = |list: Vec<String>| -> Vec<String> {
            list.iter().map(|r| r.trim().to_lowercase()).filter(|r| !r.is_empty()).collect()
        };
        let mut retractions = merged.ending.retractions;
        retractions.extend(merged.ending.short_retractions);
        retractions.extend(merged.ending.row_retractions);
        let part_nouns = clean(
            [&merged.testing, &merged.learning, &merged.using]
                .into_iter()
                .flat_map(|class| class.compounds.iter().chain(&class.strong_compounds))
                .chain(merged.lead_in.using.iter().filter(|w| !w.trim().contains(' ')))
                .chain(&merged.lead_in.option_columns)
                .chain(&merged.lead_in.dependency_columns)
                .chain(merged.using.owners.iter().filter(|w| !w.contains("{project}")))
                .map(|w| w.trim().trim_start_matches('-').to_string())
                .collect(),
        );
        Ok(ClaimVocabulary {
            retractions: clean(retractions),
            denied_claims: clean(merged.ending.denied_claims),
            taking_verbs: clean(merged.learning.gapped_verbs),
            credit_words: clean(merged.ending.credit_words),
            part_nouns,
        })
    }

    /// The built-in vocabulary plus the user's file, if it exists.
    pub fn load_with_user_file(user: Option<&Path>) -> Result<ClaimVocabulary, String> {
        ClaimVocabulary::load(&user_file(user)?)
    }
}

/// `after` past a destination right after a fetched repo: " into ~/src/study/", " to
/// `/tmp/x`", " locally". A destination is one word that looks like a path (a '/', '~' or
/// '`' in it); anything else is left as it is.
fn skip_destination(after: &str) -> &str {
    if let Some(rest) = after.strip_prefix(" locally") {
        return rest;
    }
    for preposition in [" into ", " to ", " under ", " in "] {
        if let Some(rest) = after.strip_prefix(preposition) {
            let word_end = rest.find([' ', ',', ';']).unwrap_or(rest.len());
            if rest[..word_end].contains(['/', '~', '`']) {
                return &rest[word_end..];
            }
        }
    }
    after
}

/// How far after a fetched repo's mention its verb of study may start.
const MAX_STUDIED_AFTER: usize = 48;

/// How far after a mention [`Cues::study_by_pronoun_after`] looks for a verb of study.
pub const MAX_PRONOUN_STUDY_AFTER: usize = 160;

/// Possessive pronouns that, as a verb of study's object, point back to the repo named
/// before them.
const POSSESSIVE_PRONOUNS: [&str; 2] = ["their", "its"];

/// The word right after a name ending at `end` (past a possessive and a '`'), read
/// within [`MAX_NEGATION_BYTES`]: "issues" in "reading usearch issues", "0.41" in "kit's
/// 0.41". None when no space follows the name.
fn word_after_name(text: &str, end: usize) -> Option<&str> {
    let rest = &text[end..text.floor_char_boundary((end + MAX_NEGATION_BYTES).min(text.len()))];
    let rest = rest.strip_prefix("'s").or_else(|| rest.strip_prefix("\u{2019}s")).unwrap_or(rest);
    let rest = rest.strip_prefix(' ')?.trim_start_matches('`');
    let word = &rest[..rest.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.')).unwrap_or(rest.len())];
    Some(word.trim_end_matches('.'))
}

/// A version change right after the mention ending at `end`, within the sentence ending
/// at `s_end`: the repo's release the project moved between, as written ("scryer-prolog
/// 0.10.0 → 0.10.1", "mthom/scryer-prolog 0.10.2 → 0.11.0", "usearch v2.17.1 -> v2.18.0",
/// "scryer-prolog 0.9 → 0.10"). Only what cannot be a score's change: a side with three
/// parts or a 'v', a major version above 0, or a minor version that reads smaller as a
/// decimal ("0.9 → 0.10"); "livestore 0.73 → 0.87" is a run's recall (stop 58: sets 24,
/// 35 and 37, three authors, each a bump labelled using).
pub fn version_change_after(text: &str, end: usize, s_end: usize) -> Option<&str> {
    let rest = &text[end..s_end];
    let skipped = rest.len() - rest.trim_start_matches('`').len();
    let after = &rest[skipped..];
    let gap = after.len() - after.trim_start_matches(' ').len();
    if !(1..=2).contains(&gap) {
        return None;
    }
    let (old, old_len) = version_at(&after[gap..])?;
    let tail = &after[gap + old_len..];
    let arrow_len = ["\u{2192}", "->", "=>", "to"].iter().find_map(|arrow| {
        let t = tail.strip_prefix(' ')?.strip_prefix(arrow)?.strip_prefix(' ')?;
        Some(tail.len() - t.len())
    })?;
    let (new, new_len) = version_at(&tail[arrow_len..])?;
    let plain_decimals = |v: &Version| v.parts == 2 && !v.prefixed && v.major_is_zero;
    let is_version =
        !plain_decimals(&old) || !plain_decimals(&new) || decimal_digits_less(new.minor_text, old.minor_text);
    let stop = skipped + gap + old_len + arrow_len + new_len;
    is_version.then(|| &rest[skipped + gap..stop])
}

/// A version as written at the start of `text`: an optional 'v', then two to four
/// dot-separated numbers of at most six digits, ending on a word boundary.
struct Version<'t> {
    prefixed: bool,
    /// How many numbers it has.
    parts: usize,
    major_is_zero: bool,
    /// The second number as written ("10" in "0.10"), to read it as a decimal.
    minor_text: &'t str,
}

/// Whether `0.a` < `0.b` for digit strings `a` and `b` ("10" < "9": 0.10 < 0.9): their
/// digits compared in turn, a missing one reading as 0. No allocation.
fn decimal_digits_less(a: &str, b: &str) -> bool {
    let digit = |s: &str, i: usize| s.as_bytes().get(i).copied().unwrap_or(b'0');
    (0..a.len().max(b.len())).map(|i| (digit(a, i), digit(b, i))).find(|(x, y)| x != y).is_some_and(|(x, y)| x < y)
}

/// The longest version [`version_at`] reads (four numbers of six digits and their dots).
const MAX_VERSION_BYTES: usize = 27;

fn version_at(text: &str) -> Option<(Version<'_>, usize)> {
    let prefixed = text.starts_with(['v', 'V']);
    let body = &text[usize::from(prefixed)..];
    // Read at most a version's length: a run of digits and dots longer than that is no
    // version, and the word-boundary check below turns it down.
    let len = body.bytes().take(MAX_VERSION_BYTES).take_while(|&b| b.is_ascii_digit() || b == b'.').count();
    let written = body[..len].trim_end_matches('.');
    let parts = written.split('.').count();
    if !(2..=4).contains(&parts) || written.split('.').any(|n| n.is_empty() || n.len() > 6) {
        return None;
    }
    if body[written.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let mut numbers = written.split('.');
    let major_is_zero = numbers.next().is_some_and(|n| n.bytes().all(|b| b == b'0'));
    let minor_text = numbers.next()?;
    Some((Version { prefixed, parts, major_is_zero, minor_text }, usize::from(prefixed) + written.len()))
}

/// One of `verbs` right before `start`, an article at most between, as written with its
/// article, within `[from, start)`.
fn verb_right_before<'t>(text: &'t str, from: usize, start: usize, verbs: &[String]) -> Option<&'t str> {
    // Markup that opens the name is no word between: "Staying on [[unum-cloud/usearch]]",
    // "read `gastown` end to end", "went into **dojo**".
    let before = text[from..start].trim_end_matches(['[', '`', '*', '_']).strip_suffix(' ')?;
    let verb_end = ["the", "a", "an"]
        .iter()
        .find_map(|article| {
            let at = before.len().checked_sub(article.len() + 1)?;
            let written = before.get(at..)?;
            (written.as_bytes()[0] == b' ' && written[1..].eq_ignore_ascii_case(article)).then_some(at)
        })
        .unwrap_or(before.len());
    word_at_end(&before[..verb_end], verbs).map(|at| &before[at..])
}

/// Where the first of `words` (lower-cased, longest first) that ends `text` as a whole
/// word starts, compared case-insensitively.
fn word_at_end(text: &str, words: &[String]) -> Option<usize> {
    words.iter().find_map(|word| {
        let at = text.len().checked_sub(word.len())?;
        let written = text.get(at..)?;
        (written.eq_ignore_ascii_case(word) && is_word_boundary(text.as_bytes(), at, text.len())).then_some(at)
    })
}

/// Whether `bytes[start..end]` stands on word boundaries (no letter, digit or `_` just
/// outside it). Multi-byte UTF-8 letters count as word characters.
pub fn is_word_boundary(bytes: &[u8], start: usize, end: usize) -> bool {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let before = start == 0 || !is_word(bytes[start - 1]);
    let after = end >= bytes.len() || !is_word(bytes[end]);
    before && after
}

/// The text right after a mention ending at `end`, up to `to` and at most
/// [`MAX_NEGATION_BYTES`]: where a skip or a failure word is read.
fn right_after(text: &str, end: usize, to: usize) -> &str {
    &text[end..text.floor_char_boundary(to.min(end + MAX_NEGATION_BYTES))]
}

/// The length in bytes of the start of `text` that reads `listed` (lower-case): ASCII case
/// aside, a typographic apostrophe (’) standing for '. No allocation: this runs for every
/// cue phrase and mention.
fn prefix_of(text: &str, listed: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    for want in listed.chars() {
        let (_, c) = chars.next()?;
        let c = if c == '\u{2019}' { '\'' } else { c.to_ascii_lowercase() };
        if c != want {
            return None;
        }
    }
    Some(chars.next().map_or(text.len(), |(i, _)| i))
}

/// Whether `bytes[start..end]` is glued into a file name or path (`dagger-integration.md`,
/// `docs/patterns/`), where it names a file rather than says something.
fn in_file_name(bytes: &[u8], start: usize, end: usize) -> bool {
    let glued_before = start > 0 && matches!(bytes[start - 1], b'-' | b'/' | b'.' | b'_');
    let glued_after = end < bytes.len()
        && (matches!(bytes[end], b'-' | b'/' | b'_')
            || (bytes[end] == b'.' && bytes.get(end + 1).is_some_and(|b| b.is_ascii_alphanumeric())));
    glued_before || glued_after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_load_and_find_cues_on_word_boundaries() {
        let cues = Cues::load(&[]).unwrap();
        let hits = cues.find_all("We stress tested it; the Benchmark was reviewed. attested dagger-integration.md");
        let classes: Vec<(CueClass, bool)> = hits.iter().map(|h| (h.class, h.strong)).collect();
        assert_eq!(classes, vec![(CueClass::Testing, true), (CueClass::Testing, true), (CueClass::Learning, false)]);
        assert!(cues.repo_flag_commands.contains(&"scrape".to_string()));
        assert!(cues.ambiguous.contains(&"codex".to_string()));
    }

    #[test]
    fn a_users_file_extends_every_list_of_the_vocabulary() {
        // The merge names each list by hand: one it forgot would drop a user's words
        // silently (stop 57: `[hedge] label_lead_ins` was). The built-in file read twice
        // doubles every list it fills.
        fn lists(value: &toml::Value, path: String, out: &mut Vec<(String, usize)>) {
            match value {
                toml::Value::Table(table) => {
                    for (key, value) in table {
                        lists(value, format!("{path}.{key}"), out);
                    }
                }
                toml::Value::Array(items) => out.push((path, items.len())),
                _ => {}
            }
        }
        let read = |extra: &[(String, String)]| {
            let (raw, _) = merged_vocabulary(extra).unwrap();
            let mut out = Vec::new();
            lists(&toml::Value::try_from(&raw).unwrap(), String::new(), &mut out);
            out
        };
        let once = read(&[]);
        let twice = read(&[("again".into(), DEFAULT_CUES.into())]);
        assert!(once.len() > 100, "{}", once.len());
        for ((path, n), (_, m)) in once.iter().zip(&twice) {
            assert_eq!(*m, 2 * n, "{path}");
        }
    }

    #[test]
    fn a_head_noun_right_after_a_mention_is_a_compound() {
        let cues = Cues::load(&[]).unwrap();
        let after = |text: &str, name: &str| {
            let end = text.find(name).unwrap() + name.len();
            cues.compound_after(text, end, text.len())
        };
        assert_eq!(
            after("explored the DuckDB integration today", "DuckDB"),
            Some((CueClass::Using, "integration".into()))
        );
        assert_eq!(after("the DuckDB  crate API", "DuckDB"), Some((CueClass::Using, "crate".into())));
        assert_eq!(after("the Dagger-based setup", "Dagger"), Some((CueClass::Using, "-based".into())));
        // Not right after, possessive, glued into a file name, or not a listed noun.
        assert_eq!(after("DuckDB and its crate", "DuckDB"), None);
        assert_eq!(after("HumanLayer's storage design", "HumanLayer"), None);
        assert_eq!(after("see dagger-integration.md", "dagger"), None);
        assert_eq!(after("the DuckDB integration-tests.md file", "DuckDB"), None);
        assert_eq!(after("the Dagger integration:", "Dagger"), Some((CueClass::Using, "integration".into())));
        assert_eq!(after("the DuckDB crate::Connection", "DuckDB"), None);
        assert_eq!(after("the SDL codebase", "SDL"), None);
        assert_eq!(after("ended with SDL", "SDL"), None);
        // One lower-case modifier before a strong compound (stop 55): "the claude-code launch
        // adapter". Not before a weak one, a capitalised word, or a glued noun.
        let launch = after("The claude-code launch adapter (`patina launch claude`) now runs", "claude-code");
        assert_eq!(launch, Some((CueClass::Using, "launch adapter".into())));
        assert!(cues.is_strong_compound("launch adapter", " now runs"));
        assert!(cues.is_project_part("launch adapter"));
        assert_eq!(after("the SDL parse pipeline", "SDL"), None);
        assert_eq!(after("the dojo Katana adapter", "dojo"), None);
        assert_eq!(after("the dojo launch adapter.rs file", "dojo"), None);
        let user = "[testing]\ncompounds = [\"fixture\"]\n".to_string();
        let cues = Cues::load(&[("user.toml".into(), user)]).unwrap();
        assert_eq!(cues.compound_after("the SDL fixture", 7, 15), Some((CueClass::Testing, "fixture".into())));
    }

    #[test]
    fn a_measurement_is_a_result_column_a_unit_a_metric_at_k_or_a_pass_fail_mark() {
        let cues = Cues::load(&[]).unwrap();
        assert!(cues.is_measurement("Time", "11.2"));
        assert!(cues.is_measurement("Files", "11.2s"));
        assert!(cues.is_measurement("Hybrid R@10", "0.71"));
        assert!(cues.is_measurement("MRR@10", "0.5"));
        assert!(cues.is_measurement("Result", "\u{274c} see below"));
        assert!(cues.is_measurement("Outcome", "\u{2705}"));
        // Counts alone, and a mark under a column that is no result, measure nothing.
        assert!(!cues.is_measurement("Files", "1,023"));
        assert!(!cues.is_measurement("Indexed", "\u{2705}"));
        assert!(!cues.is_measurement("user@host", "12"));
    }

    #[test]
    fn a_possessive_of_the_project_right_before_a_mention_makes_it_its_own() {
        let cues = Cues::load(&[]).unwrap();
        let before = |text: &str, name: &str| cues.owner_before(text, 0, text.find(name).unwrap(), Some("patina"));
        let using = |words: &str| Some((CueClass::Using, words.to_string()));
        assert_eq!(before("Analyzed Patina's Dagger integration", "Dagger"), using("Patina's"));
        assert_eq!(before("whether Patina\u{2019}s simple Dagger approach", "Dagger"), using("Patina\u{2019}s simple"));
        assert_eq!(before("Using our own DuckDB to understand", "DuckDB"), using("our own"));
        assert_eq!(before("we moved my SDL checkout", "SDL"), using("my"));
        // Not right before, another owner, a capitalised word between, or nothing before.
        assert_eq!(before("our take on how Dagger works", "Dagger"), None);
        assert_eq!(before("HumanLayer's Dagger setup", "Dagger"), None);
        assert_eq!(before("our Big Dagger", "Dagger"), None);
        assert_eq!(before("Dagger first", "Dagger"), None);
        assert_eq!(cues.owner_before("Patina's Dagger", 0, 9, None), None);
    }

    #[test]
    fn inline_code_does_not_break_a_phrase() {
        let cues = Cues::load(&[]).unwrap();
        let found = |text: &str| -> Vec<(String, CueClass, bool)> {
            cues.find_all(text).iter().map(|h| (text[h.start..h.end].to_string(), h.class, h.strong)).collect()
        };
        let testing = |s: &str| (s.to_string(), CueClass::Testing, true);
        // The gapped phrase "ran … on" holds the phrase "scrape on" across the code.
        assert_eq!(found("Ran `patina scrape` on turso, and on cuti."), vec![testing("Ran `patina scrape` on")]);
        assert_eq!(
            found("Why doesn't `patina scry --repo x` work on openclaw?"),
            vec![testing("doesn't `patina scry --repo x` work on")]
        );
        assert_eq!(found("tested `--release` on dojo"), vec![testing("tested `--release` on")]);
        // Found without looking past code: as before, and it wins over an overlapping one.
        assert_eq!(found("tested on `dojo`"), vec![testing("tested on")]);
        assert_eq!(found("Stress tested `x` on dojo"), vec![testing("Stress tested")]);
        // A fence, a run of backticks or a lone backtick is no code span.
        assert_eq!(found("```\nscrape\n```\n on dojo"), vec![("scrape".into(), CueClass::Testing, false)]);
        assert_eq!(found("a `` scrape `` on dojo"), vec![("scrape".into(), CueClass::Testing, false)]);
        assert!(found("lone ` scrape on").iter().all(|(s, ..)| s == "scrape on"));
        // Multi-byte text around code keeps its offsets.
        assert_eq!(found("Café: ran `scrape` on — dojo"), vec![testing("ran `scrape` on")]);
        // A long span is no command in a sentence: no phrase reaches across it.
        let long = format!("tested `{}` on dojo", "x ".repeat(50));
        assert!(found(&long).is_empty(), "{:?}", found(&long));
        // Many spans in one text: every hit found once, in order.
        let many = "Ran `patina scrape` on dojo; tested `--release` on SDL. ".repeat(2000);
        let hits = cues.find_all(&many);
        assert_eq!(hits.len(), 4000);
        assert!(hits.windows(2).all(|w| w[0].end <= w[1].start));
    }

    #[test]
    fn a_testing_verb_and_a_preposition_with_its_object_between_are_one_phrase() {
        let cues = Cues::load(&[]).unwrap();
        let found = |text: &str| -> Vec<(String, CueClass, bool, bool)> {
            cues.find_all(text)
                .iter()
                .map(|h| (text[h.start..h.end].to_string(), h.class, h.strong, h.points_forward))
                .collect()
        };
        let gapped = |s: &str| vec![(s.to_string(), CueClass::Testing, true, true)];
        assert_eq!(found("Tested the refactored parser on dojo"), gapped("Tested the refactored parser on"));
        assert_eq!(found("Successfully tested ask command on SDL repo"), gapped("tested ask command on"));
        assert_eq!(found("benchmarked retrieval against loro"), gapped("benchmarked retrieval against"));
        // Holds the phrases inside it: "scrape" is the verb's object here.
        assert_eq!(found("ran the scrape on dust"), gapped("ran the scrape on"));
        // The contiguous form is the plain phrase.
        assert_eq!(found("tested on dojo"), gapped("tested on"));
        // Not "with" (the tool, not the subject), not past a preposition, the end of a
        // clause or five words...
        assert!(found("tested the pipeline with Dagger").is_empty());
        // ... unless a repo word after "with" says the repos were the subjects.
        assert_eq!(
            found("Live tested both commands with dust and dagger repositories"),
            gapped("tested both commands with")
        );
        assert!(found("tested the pipeline with Dagger. The repo is fine").is_empty());
        assert!(found("tested five of the parsers on SDL").is_empty());
        assert!(found("we tested it, then on dojo").is_empty());
        assert!(found("tested one big shiny new thing there on SDL").is_empty());
        // Five words are the most, articles aside: "read the SKILL.md spec and template in
        // X" (a study), and "read the SKILL.md spec and the template in X" (stop 55: set
        // 31's author).
        for study in ["read the SKILL.md spec and template in", "read the SKILL.md spec and the template in"] {
            assert_eq!(found(&format!("{study} SDL")), [(study.into(), CueClass::Learning, true, true)]);
        }
        assert!(found("tested the one big shiny new thing there on SDL").is_empty());
        assert!(found("attested nothing on SDL").is_empty());
        // A failure without code around the command: "why doesn't patina scry work on A".
        assert_eq!(found("why doesn't patina scry work on openclaw"), gapped("doesn't patina scry work on"));
        assert_eq!(found("the scraper crashed again on SDL"), gapped("crashed again on"));
    }

    #[test]
    fn a_counted_result_is_a_number_and_a_unit() {
        let cues = Cues::load(&[]).unwrap();
        let result = |s: &'static str| cues.counted_result(s, CueClass::Testing);
        assert_eq!(result("indexed dust: 454 symbols from 235 files"), Some("454 symbols"));
        assert_eq!(result("parsed SDL (84k+ symbols, no crashes)"), Some("84k+ symbols"));
        assert_eq!(result("5,664 files in 27s"), Some("5,664 files"));
        assert_eq!(result("scraped in 27s"), Some("27s"));
        assert_eq!(result("recall 13% on it"), Some("13%"));
        // A number without a unit, inside a word, or of another unit is none.
        assert_eq!(result("PR #2 merged, v0.8 out, x86 only"), None);
        assert_eq!(result("removed ~569 lines of dead code"), None);
        assert_eq!(result("sha256 symbols"), None);
        assert_eq!(result("in step 2. Symbols were next"), None);
        assert_eq!(cues.counted_result("454 symbols", CueClass::Learning), None);
    }

    #[test]
    fn user_file_extends_and_bad_file_is_an_error() {
        let user = "[learning]\nphrases = [\"cribbed from\"]\n".to_string();
        let cues = Cues::load(&[("user.toml".into(), user)]).unwrap();
        assert_eq!(cues.find_all("cribbed from it")[0].class, CueClass::Learning);
        assert_ne!(cues.fingerprint, Cues::load(&[]).unwrap().fingerprint);
        let err = Cues::load(&[("user.toml".into(), "[testin]\n".into())]).unwrap_err();
        assert!(err.starts_with("user.toml"), "{err}");
    }
}
