//! Finding mentions of registered nodes in free text, with the sentence and cue of each.
//!
//! A mention is a registered node's id or alias, matched case-insensitively on word
//! boundaries. Hyphenated or underscored ids also match their spaced form when it is
//! written as a proper name ("Scryer Prolog" for `scryer-prolog`). Context rules cut the
//! noise of real session logs:
//! - in a path, a node counts only as a repo path (`~/.patina/repos/dojo`, a path that
//!   starts with the node) or as the name of an `owner/name` reference, whatever the
//!   owner (`dojoengine/dojo`, `[[someorg/dojo]]`: a moved repo or a fork is still the
//!   repo), or the project's part after one of `[using] part_folders`
//!   (`src/adapters/opencode.rs`, a strong using cue); `layer/dust/…` is not `dust`;
//! - a node whose id or alias is `owner/name` also goes by its distinctive name part
//!   (`someorg/vectorlite` is "vectorlite"; a renamed repo's old `owner/name` aliases
//!   give its old names);
//! - `--repo X` (or another of the vocabulary's `repo_flags`: `--issues X`) on a command
//!   line is repo context, and a testing cue when the command is one of its
//!   `repo_flag_commands` (`scrape`, `bench`, …); so is a checkout's path as the flag's
//!   value (`--repo ~/ref/gastown`);
//! - the project's code, manifests and builds name what it uses: a pasted dependency line,
//!   a `cargo tree` branch, a Cargo.lock entry, cargo's build output ("Compiling usearch
//!   v2.17.1"), a Rust path to a crate's type (`turso::Builder`, `scryer_prolog::Machine`:
//!   a dashed package also matches with underscores; not for a repo the file tests);
//! - an *ambiguous* id (an ordinary word in these logs) needs repo context or a cue;
//! - a line naming many distinct nodes (a bulk list, a stats table) records its
//!   mentions without cues; a sentence naming several with a learning cue of its own is a
//!   sweep over test subjects: the cue counts as testing ([`sweep_of_subjects`]);
//! - a list item or table row with no strong cue of its own inherits the cue of its
//!   block's lead-in (the heading, bold label or `…:` line right above the list or
//!   table, or the parent item of a nested list; of a line of several sentences, the
//!   last; none that opens with a negation), unless the block names many nodes and its
//!   lead-in is not about testing (a results table names many repos);
//! - a removal or contradiction right at the mention ("removed the X dependency",
//!   "X is no longer used") is an `ending` cue, whatever else the sentence says, and so
//!   is every mention of a sentence the next one retracts ("… inspired by X. That was
//!   wrong");
//! - a table row naming a repo in a repo column (`| Repo | … |`), with a measurement of a
//!   run in another cell, is a test run on it ([`ResultsRow`]) and repo context;
//! - a hedge in the mention's or its cue's clause ("X might be worth benchmarking"), an
//!   item under a lead-in of plans ("Next steps:"), or a negated phrase in its clause
//!   with nothing stronger ("we don't scrape X") *voids* the mention: plain, its cue saying
//!   why, and the exemplars leave it. Not an owner's cue ("our DuckDB").
//!
//! Architecture Invariant: extraction is a pure function of (text, nodes, cues): no I/O,
//! no clock, deterministic order (by byte offset).
//!
//! Invariant: extraction is O(n log n) in the text, however many mentions share a line.
//! Every per-mention look-around (path token, sentence, nearest cue, `--repo` command) is
//! a binary search in positions found once per text ([`Layout`]), is bounded by a
//! constant (a command is read at most [`MAX_COMMAND`] bytes back), or is read once per
//! sentence or line and kept (an inline list's words, a counted result, a line's clause
//! breaks and hedges, a table row's header and measurements). One line holding
//! 100,000 mentions took 31.6 s when each mention rescanned its line.

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::cues::{CueHit, Cues, MAX_PRONOUN_STUDY_AFTER, Void, is_word_boundary, version_change_after};
use crate::event::{CueClass, NodeRegistered};

/// How a term names its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TermKind {
    Id,
    Alias,
    /// An `owner/name` alias: always repo context.
    OwnerName,
    /// The spaced form of a hyphenated id; needs capitalised words.
    Spaced,
}

#[derive(Debug, Clone)]
struct Term {
    node: usize,
    kind: TermKind,
    ambiguous: bool,
}

/// Hosts whose URLs name repos as `host/owner/name` (the longest last).
const FORGES: [&str; 3] = ["github.com/", "gitlab.com/", "codeberg.org/"];

/// An automaton over every id and alias of the registered nodes.
#[derive(Debug, Clone)]
pub struct NodeMatcher {
    automaton: AhoCorasick,
    terms: Vec<Term>,
    ids: Vec<String>,
    /// Per node: whether it names a package (a crate, an npm package), something the
    /// project can be built on.
    packaged: Vec<bool>,
    /// Per node: its package names as Rust code writes a crate's (lower case, `-` as `_`).
    crates: Vec<Vec<String>>,
}

impl NodeMatcher {
    pub fn new<'a>(nodes: impl IntoIterator<Item = &'a NodeRegistered>, cues: &Cues) -> NodeMatcher {
        let mut patterns: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut terms = Vec::new();
        let mut ids = Vec::new();
        let nodes: Vec<&NodeRegistered> = nodes.into_iter().collect();
        let mut add = |text: &str, node: usize, kind: TermKind, ambiguous: bool| {
            let lower = text.trim().to_lowercase();
            if lower.chars().count() < 2 || !seen.insert(lower.clone()) {
                return;
            }
            patterns.push(lower);
            terms.push(Term { node, kind, ambiguous });
        };
        for (node_idx, node) in nodes.iter().enumerate() {
            ids.push(node.id.clone());
            let id_ambiguous = cues.ambiguous.contains(&node.id.to_lowercase());
            let id_kind = if node.id.contains('/') { TermKind::OwnerName } else { TermKind::Id };
            add(&node.id, node_idx, id_kind, id_ambiguous && id_kind == TermKind::Id);
            if node.id.contains(['-', '_']) && !node.id.contains('/') {
                add(&node.id.replace(['-', '_'], " "), node_idx, TermKind::Spaced, id_ambiguous);
            }
            for alias in &node.aliases {
                let ambiguous = cues.ambiguous.contains(&alias.to_lowercase());
                if alias.contains('/') {
                    add(alias, node_idx, TermKind::OwnerName, false);
                } else {
                    add(alias, node_idx, TermKind::Alias, ambiguous);
                }
            }
        }
        // Then its package names ("libsql", "@google/gemini-cli", "litecanvas"): a log that
        // pastes a manifest, an import or a config names the repo by them. Added after every
        // id and alias, so a package never takes another node's name.
        for (node_idx, node) in nodes.iter().enumerate() {
            for package in &node.packages {
                let kind = if package.contains('/') { TermKind::OwnerName } else { TermKind::Alias };
                let ambiguous = kind == TermKind::Alias && cues.ambiguous.contains(&package.to_lowercase());
                add(package, node_idx, kind, ambiguous);
                // A Rust crate's name as its code writes it: `scryer-prolog` is
                // `scryer_prolog::Machine` in a `use` or a path.
                if kind == TermKind::Alias && package.contains('-') && !package.starts_with('@') {
                    add(&package.replace('-', "_"), node_idx, kind, ambiguous);
                }
            }
        }
        // A repo also goes by the distinctive name parts of its `owner/name`s (added last:
        // never another node's id or alias); one that may be an ordinary word is
        // ambiguous, like the ids of `[ambiguous]` in `cues.toml`.
        for part in crate::registry::name_parts(&nodes) {
            let ambiguous = part.word_like || cues.ambiguous.contains(&part.name);
            add(&part.name, part.index, TermKind::Alias, ambiguous);
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .expect("node terms are plain strings");
        let packaged = nodes.iter().map(|node| !node.packages.is_empty()).collect();
        let crates = nodes
            .iter()
            .map(|node| node.packages.iter().map(|p| p.to_lowercase().replace('-', "_")).collect())
            .collect();
        NodeMatcher { automaton, terms, ids, packaged, crates }
    }

    /// Whether `name` is one of the node's packages as Rust code names the crate (`loro`
    /// in `loro::LoroDoc`, `scryer_prolog`).
    fn names_a_crate(&self, node: usize, name: &str) -> bool {
        let rust = |b: u8| if b == b'-' { b'_' } else { b.to_ascii_lowercase() };
        self.crates[node]
            .iter()
            .any(|krate| krate.len() == name.len() && krate.bytes().zip(name.bytes()).all(|(k, n)| k == rust(n)))
    }

    pub fn node_id(&self, node: usize) -> &str {
        &self.ids[node]
    }
}

/// One mention found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundMention {
    /// Index of the node in the matcher's node order.
    pub node: usize,
    /// 1-based line number.
    pub line: u32,
    /// The text as written.
    pub matched: String,
    pub sentence: String,
    pub cue_class: CueClass,
    pub cue: String,
    pub strong_cue: bool,
    /// Distinct nodes named on the same line (including this one).
    pub co_mentions: u32,
    /// Distinct nodes named in the mention's sentence (including this one): a sweep's
    /// subjects are one sentence's list, not a paragraph's names.
    pub sentence_co_mentions: u32,
    /// The lead-in of the list or table block the mention sits in (its label, trimmed of
    /// markdown), when the block is not a bulk list; what the exemplars compare with.
    pub lead_in: Option<String>,
    /// The cue is bound to the mention's own noun phrase (a compound noun after it, an
    /// owner possessive before it): the closest binding there is, so exemplars leave it.
    pub bound: bool,
    /// The cue was inherited from a lead-in (a list's, a table's or an inline list's).
    pub inherited: bool,
    /// The mention sits in a plan, a question or a hypothesis ("X might be worth
    /// benchmarking", an item under "Next steps:"), or its clause's cue phrase is negated
    /// ("we don't scrape X"): plain, and the exemplars leave it (an embedding reads "we
    /// don't scrape X" as near "we scrape X").
    pub voided: bool,
    /// The mention is in prose, not in a fenced code block (pasted output, a diff): only
    /// prose is compared with the exemplars' sentences.
    pub prose: bool,
}

/// A sentence naming several repos with a learning cue of its own is a sweep over test
/// subjects: the cue counts as testing ("Analyzed the database contents from SDL, DuckDB,
/// Dagger, Dust, Dojo repos"). One learns from a repo or two; one runs a tool over many.
/// The sentence, not the line: a paragraph that names three repos in three sentences
/// ("With urfave/cli and dagger both gone there is no Go fixture. … I've been meaning to
/// read how Gas Town's `gt prime` works") sweeps nothing. (A bulk line is still a line.)
/// A cue bound to the mention (an owner, a compound noun), one inherited from a lead-in
/// ("Prior art: A, B, C") and bulk lines are left alone. Applied to phrase cues here and
/// to the exemplars' decisions in ingest. See `subjects_min_distinct_nodes` in
/// `rules/cues.toml`.
///
/// A weak testing cue in such a sentence is strong: "Successfully indexed 6 large repositories
/// (Dagger, Dust, Dojo, SDL, HumanLayer, DuckDB)" names the run's subjects. (A weak
/// learning cue stays weak: "explored documentation patterns across 4 repos" is no run.)
pub fn sweep_of_subjects(mention: &mut FoundMention, cues: &Cues) {
    let n = mention.sentence_co_mentions as usize;
    // "the merge logic and weights come from openclaw" says where a design came from,
    // whatever else the sentence names.
    let sweep = !mention.bound
        && !mention.inherited
        && !cues.is_origin_claim(&mention.cue)
        && n >= cues.subjects_min_distinct_nodes
        && (mention.co_mentions as usize) < cues.bulk_min_distinct_nodes;
    if !sweep {
        return;
    }
    let becomes_strong = mention.cue_class == CueClass::Testing && !mention.strong_cue;
    if mention.cue_class == CueClass::Learning || becomes_strong {
        mention.cue_class = CueClass::Testing;
        mention.strong_cue |= becomes_strong;
        mention.cue = format!("{} ({n} repos in one sentence: a sweep of test subjects)", mention.cue);
    }
}

/// For each `(sentence start, node)` of a line's mentions, in order, how many distinct
/// nodes its sentence names. The mentions of one sentence are consecutive, so each
/// sentence's group is counted once: O(m log m) for m mentions on the line.
fn distinct_per_sentence(mentions: &[(usize, usize)]) -> Vec<u32> {
    let mut out = Vec::with_capacity(mentions.len());
    for group in mentions.chunk_by(|a, b| a.0 == b.0) {
        let mut nodes: Vec<usize> = group.iter().map(|&(_, node)| node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        out.extend(std::iter::repeat_n(nodes.len() as u32, group.len()));
    }
    out
}

/// The lead-in of a list or table block.
#[derive(Debug, Clone)]
struct LeadIn {
    /// The lead-in line without markdown decoration, at most 80 characters.
    label: String,
    /// The cue the block's items inherit: the lead-in's strong class, with its words.
    cue: Option<(CueClass, String)>,
    /// The lead-in heads a list of plans ("Next steps:", "TODO") or of someone else's
    /// things ("From the reporter:"): why its items are void, with its words and line.
    plan: Option<String>,
    /// The lead-in heads a list of removals (a changelog's "### Removed"): the ending cue
    /// of its items, with its words and line.
    ending: Option<String>,
    /// The nodes a learning lead-in names itself (at most a few, in order; empty for other
    /// lead-ins): one that names its source ("Idea taken from turso:") is about that
    /// source only.
    names: Vec<usize>,
    /// A node the lead-in says the block is the own things of ("what dojo itself pulls
    /// in:", "death-mountain's own setup:"), with why: other repos in the block are its.
    owner: Option<(usize, String)>,
}

const MAX_SENTENCE: usize = 400;
/// How far back from `--repo` a command is read, in bytes.
const MAX_COMMAND: usize = 512;
/// The longest word after a mention that can be a repo word ("repo", "codebase", …).
const MAX_REPO_WORD: usize = 64;

struct Candidate {
    node: usize,
    start: usize,
    end: usize,
    line_idx: usize,
    repo_context: bool,
    flag_cue: Option<String>,
    ambiguous: bool,
}

/// Extracts every mention in `text` of a node other than `skip_node` (the project itself).
pub fn extract(text: &str, matcher: &NodeMatcher, cues: &Cues, skip_node: Option<&str>) -> Vec<FoundMention> {
    let bytes = text.as_bytes();
    let line_starts: Vec<usize> = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1)).collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset) - 1;
    let line_end = |line_idx: usize| line_starts.get(line_idx + 1).map(|&s| s - 1).unwrap_or(bytes.len());
    let layout = Layout::new(text);

    let mut candidates: Vec<Candidate> = Vec::new();
    for m in matcher.automaton.find_iter(text) {
        let (start, end) = (m.start(), m.end());
        let term = &matcher.terms[m.pattern().as_usize()];
        if skip_node.is_some_and(|skip| matcher.ids[term.node].eq_ignore_ascii_case(skip)) {
            continue;
        }
        let line_idx = line_of(start);
        let line_start = line_starts[line_idx];
        // A diff's removed manifest line (`-turso = "0.4.2"`) names the repo it removes.
        let glued = start > 0 && matches!(bytes[start - 1], b'-' | b'.' | b'$');
        let diff_removed = glued && start == line_start + 1 && removed_dependency(text, start, end, cues).is_some();
        if !is_word_boundary(bytes, start, end) || glued && !diff_removed {
            continue;
        }
        if term.kind == TermKind::Spaced && !capitalised_words(&text[start..end]) {
            continue;
        }
        let cd_cue = || cd_into_repo_then_command(text, line_start, line_end(line_idx), start, end, cues, skip_node);
        // A folder of another (`fixtures/death-mountain`) is no mention, unless the
        // project's command runs in it after a `cd`, or it is the value of a repo flag
        // (`--repo ~/ref/gastown`): the folder is a checkout of the repo.
        let (path_ok, cd_flag) = match path_context(text, &layout, start, end, line_start, line_end(line_idx), cues) {
            Some(path_ok) => (path_ok, None),
            None => match repo_flag_on_path(text, &layout, line_start, line_end(line_idx), start, end, cues)
                .or_else(cd_cue)
            {
                Some(cue) => (true, Some(cue)),
                None => continue,
            },
        };
        let mut repo_context = term.kind == TermKind::OwnerName || path_ok;
        let flag_cue = repo_flag(text, line_start, start, end, cues)
            .or_else(|| {
                path_ok
                    .then(|| command_on_repo_path(text, &layout, line_start, line_end(line_idx), start, end, cues))?
            })
            .or(cd_flag)
            .or_else(cd_cue);
        // A repo flag's value is repo context whatever the command (`repo_flag` answers
        // `Some("")` for a command that tests nothing).
        if flag_cue.is_some() {
            repo_context = true;
        }
        // "Credit to [[loro]] holds": a wiki link names the repo by itself, as
        // `[[owner/name]]` does.
        let wiki_link =
            text[..start].ends_with("[[") && (text[end..].starts_with("]]") || text[end..].starts_with('|'));
        if !repo_context
            && (wiki_link
                || followed_by_repo_word(text, end, cues)
                || named_after_repo_word(text, line_start, start, cues)
                || glossed_by_owner_name(text, start, end))
        {
            repo_context = true;
        }
        candidates.push(Candidate {
            node: term.node,
            start,
            end,
            line_idx,
            repo_context,
            flag_cue: flag_cue.filter(|c| !c.is_empty()),
            ambiguous: term.ambiguous,
        });
    }

    let (hits, negated) = cues.find_all_and_negated(text);
    let cue_hits = CueIndex::new(hits);
    let mut nodes_on_line: HashSet<usize> = HashSet::new();
    let lines: Vec<(usize, usize)> = (0..line_starts.len()).map(|i| (line_starts[i], line_end(i))).collect();
    let (fenced, in_diff) = fenced_lines(text, &lines);
    let mut blocks = Blocks::default();
    let mut out = Vec::with_capacity(candidates.len());
    let mut i = 0;
    while i < candidates.len() {
        // Candidates of one line.
        let line_idx = candidates[i].line_idx;
        let mut j = i;
        while j < candidates.len() && candidates[j].line_idx == line_idx {
            j += 1;
        }
        let line = &candidates[i..j];
        let (line_start, line_stop) = (line_starts[line_idx], line_end(line_idx));
        let mut found: Vec<FoundMention> = Vec::new();
        // Each found mention's (sentence start, node), in the order of `found`.
        let mut nodes_in_sentence: Vec<(usize, usize)> = Vec::new();
        // Whether each found mention's cue is its testing command's flag (`--repo X`).
        let mut named_by_flag: Vec<bool> = Vec::new();
        nodes_on_line.clear();
        let mut breaks = sentence_breaks(bytes, line_start, line_stop);
        add_breaks_before_names(bytes, line_start, line.iter().map(|c| c.start), &mut breaks);
        let colons: Vec<usize> =
            memchr::memchr_iter(b':', &bytes[line_start..line_stop]).map(|i| line_start + i).collect();
        let clauses = clause_breaks(text, line_start, line_stop);
        // Only where another repo can be the subject: a line naming two or more.
        let dependency_verbs: Vec<(usize, usize)> = match line.len() {
            0 | 1 => Vec::new(),
            _ => cues
                .dependency_verbs_in(&text[line_start..line_stop])
                .into_iter()
                .map(|(a, b)| (a + line_start, b + line_start))
                .collect(),
        };
        // Read only on lines that name a node: most of a log names none.
        let hedges: Vec<(usize, usize, Void)> = cues
            .find_hedges(&text[line_start..line_stop])
            .into_iter()
            .map(|(a, b, void)| (a + line_start, b + line_start, void))
            .collect();
        let results_row = match line_shape(&text[line_start..line_stop]) {
            LineShape::TableRow => ResultsRow::read(text, &lines, line_idx, cues),
            _ if fenced[line_idx] => ResultsRow::read_aligned(text, &lines, &fenced, line_idx, cues),
            _ => None,
        };
        // A diff's removed line ("-- Memory: episodic memory inspired by daydreams").
        let removed_line = in_diff[line_idx] && {
            let t = text[line_start..line_stop].trim_start_matches(' ');
            // Not a file header ("--- a/src/lib.rs").
            let header = t.strip_prefix("--- ").is_some_and(|path| !path.trim_end().contains(' '));
            t.starts_with('-') && !header
        };
        // A quoted line ("> …" outside code) is someone else's words: a README, an issue.
        let quoted = !fenced[line_idx] && text[line_start..line_stop].trim_start().starts_with('>');
        // An open task ("- [ ] Prototype the opencode adapter") is a plan, not a report.
        let open_task = !fenced[line_idx] && is_open_task(&text[line_start..line_stop]);
        // A done task ("- [x] benchmarked dojo" under "## Test plan") is a report.
        let done_task = !fenced[line_idx] && is_done_task(&text[line_start..line_stop]);
        let mut inline_leads: std::collections::HashMap<usize, Option<(CueClass, String)>> = Default::default();
        // Each colon's inline lead-in of plans, read once per line when asked.
        let mut inline_plans: std::collections::HashMap<usize, Option<String>> = Default::default();
        // The line's item's denial ("Not studied."), read once per line when asked.
        let mut item_denied: Option<Option<&str>> = None;
        // Each sentence's counted result, by (sentence start, class): read once per
        // sentence, however many mentions it holds.
        let mut results: std::collections::HashMap<(usize, CueClass), Option<String>> = Default::default();
        for c in line {
            let (s_start, s_end) = sentence_bounds(&breaks, line_start, line_stop, c.start, c.end);
            let mut bound = false;
            let mut inherited = false;
            let mut owned = false;
            let mut retracted = false;
            // Where the deciding cue stands (its clause may hedge it).
            let mut cue_at = c.start;
            let dependency_line = cues.dependency_line(text, c.end, s_end);
            let (mut cue, mut strong) = match &c.flag_cue {
                Some(flag) => (Some((CueClass::Testing, flag.clone())), true),
                None => match cue_hits.nearest(s_start, s_end, c.start, c.end) {
                    // "crashed on command execution due to Dagger lazy evaluation": what the
                    // phrase points at comes first; the mention is a cause.
                    Some(hit) if hit.points_forward && hit.end <= c.start && names_a_cause(&text[hit.end..c.start]) => {
                        (None, false)
                    }
                    // "never in the running (it already lost on compile time); libsql only
                    // wins if …": what the phrase points at ends at its clause.
                    Some(hit)
                        if hit.points_forward && hit.end <= c.start && leaves_its_clause(&text[hit.end..c.start]) =>
                    {
                        (None, false)
                    }
                    // "the test helpers in dojo lean on snforge_std": a phrase with another
                    // repo inside its gap is about that repo.
                    Some(hit)
                        if hit.points_forward
                            && hit.end <= c.start
                            && line[line.partition_point(|o| o.start < hit.start)..]
                                .iter()
                                .take_while(|o| o.end <= hit.end)
                                .any(|o| o.node != c.node) =>
                    {
                        (None, false)
                    }
                    // "`patina launch opencode --repo ~/.patina/cache/repos/dust`": a verb
                    // of running a tool, or of taking a design, has the first repo after
                    // it as its object (or a list of them: "launched opencode and codex"),
                    // not one further on ("the layout comes from anthropics/skills' spec,
                    // and the earlier huggingface/skills credit was retracted"). (A testing
                    // phrase runs on a list with results: "tested on SDL (3,878 types), dojo
                    // …".)
                    Some(hit)
                        if hit.points_forward
                            && hit.class != CueClass::Testing
                            && hit.end <= c.start
                            && !object_of_forward_phrase(text, line, hit.end, c, cues) =>
                    {
                        (None, false)
                    }
                    // "death-mountain failed on oxidize: 9 model-only files (`#[dojo::model]`
                    // struct)": a repo's name heading a Rust path is code, not what ran
                    // (stop 57: set 37).
                    Some(hit) if hit.class == CueClass::Testing && text[c.end..].starts_with("::") => (None, false),
                    // "role templates rendered at launch, with a Credits section pointing at
                    // [[steveyegge/gastown]]": a verb used as a noun points at nothing.
                    Some(hit) if hit.points_forward && hit.end <= c.start && used_as_noun(text, s_start, &hit) => {
                        (None, false)
                    }
                    // "Analysed livestore misses": what a learning phrase read is what was
                    // said of the repo or the project's run on it, not its design (a
                    // figure after it is a version: "inspired by SDL 3's GPU API").
                    Some(hit)
                        if hit.class == CueClass::Learning
                            && hit.end <= c.start
                            && cues.said_or_run_after(text, c.end).is_some() =>
                    {
                        (None, false)
                    }
                    // "Ported src/stats/db.rs from the duckdb Appender API to turso's
                    // connection": a move from one repo to another learns from neither.
                    Some(hit) if hit.class == CueClass::Learning && moved_between_repos(text, line, c, &hit, s_end) => {
                        (None, false)
                    }
                    // "Bumped the vendored grammar, regenerated the parser, rescraped
                    // gemini-cli: 0 parse errors": a verb right before the mention, its
                    // object, says more than a strong cue of another clause of the list.
                    Some(hit)
                        if hit.strong
                            && let Some(verb) = cue_hits.weak_right_before(c.start)
                            && hit.end <= verb.start
                            && text[hit.end..verb.start].contains(',') =>
                    {
                        cue_at = verb.start;
                        (Some((verb.class, text[verb.start..verb.end].to_string())), false)
                    }
                    Some(hit) => {
                        cue_at = hit.start;
                        (Some((hit.class, text[hit.start..hit.end].to_string())), hit.strong)
                    }
                    None => (None, false),
                },
            };
            if !strong && let Some(hit) = cue_hits.failure_of_subject(text, c.end, s_end, cues) {
                // "quickparse failed on the symbol step": the repo is what failed.
                cue = Some((hit.class, text[hit.start..hit.end].to_string()));
                strong = true;
                cue_at = hit.start;
            }
            // The possessive first: one compare, before any verb is looked for.
            if !strong
                && (text[c.end..].starts_with("'s") || text[c.end..].starts_with("\u{2019}s"))
                && let Some(verb) = cues.taking_before(text, s_start, c.start)
                && cues.not_its_design_after(text, c.end).is_none()
                // "Digging into dojo's own layout" studied a subject's own setup; "Took
                // cuti's own run script" still took it.
                && (!cues.own_after(text, c.end) || cues.origin_verbs().iter().any(|v| v.eq_ignore_ascii_case(verb)))
            {
                // "Adopted opencode's approach", "took cuti's run script": taken from it.
                cue = Some((CueClass::Learning, format!("{verb} {}'s", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong
                && let Some(verb) = cues.study_before(text, s_start, c.start)
                && cues.not_its_design_after(text, c.end).is_none()
                && !cues.own_after(text, c.end)
            {
                // "Read the Gas Town design end to end", "Reading steveyegge/gastown".
                cue = Some((CueClass::Learning, format!("{verb} {}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong && let Some(verb) = cues.state_before(text, s_start, c.start) {
                // "The vector files stay in usearch": the project's part stays on it.
                cue = Some((CueClass::Using, format!("{verb} {}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong
                && (!c.ambiguous || c.repo_context)
                && let Some(folder) = cues.part_folder_before(text, c.start)
            {
                // `src/adapters/opencode.rs`: the project's part built on the repo. Not an
                // ordinary word (`src/adapters/kit.rs`, "our own little adapter kit").
                cue = Some((CueClass::Using, format!("{folder}{}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong && let Some(words) = cues.means_before(text, s_start, c.start, c.end) {
                // "loaded it through scryer-prolog": the project's work is done by it.
                cue = Some((CueClass::Using, format!("{words} {}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong && let Some(change) = version_change_after(text, c.end, s_end) {
                // "scryer-prolog 0.10.0 → 0.10.1": the project moved to another release.
                cue = Some((CueClass::Using, format!("{} {change}{VERSION_CHANGE}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong && let Some(words) = cues.acquired_then_studied(text, s_start, c.start, c.end, s_end) {
                // "Cloned sst/opencode and read the session/prompt path end to end".
                cue = Some((CueClass::Learning, words));
                strong = true;
                cue_at = c.start;
            } else if !strong
                && cue.as_ref().is_none_or(|(class, _)| *class == CueClass::Learning)
                && let Some(path) = source_path_after(text, c.end, s_end)
            {
                // "openclaw/openclaw `src/memory/` → memory_search runs vector + bm25",
                // "Opened daydreams `packages/core/src/memory/` (episodic memory):": a path
                // into the repo's tree, right after its name, points at the code read (stop
                // 59: sets 6, 13, 31, 33, 37, 39 and 41, every such mention's log labelled
                // learning).
                cue = Some((CueClass::Learning, format!("{} `{path}` (a path into its tree)", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong
                && (!c.ambiguous || c.repo_context)
                && let Some((at, verb, pronoun)) =
                    cues.study_by_pronoun_after(text, c.end, next_other_repo(line, c, line_stop))
            {
                // "**humanlayer** staleness handling. Read their freshness code": the repo
                // named last before the pronoun is what was read. Not what makes an
                // ambiguous name a repo ("codex's TypeScript half looked light. Read its
                // rows": the product's name).
                cue = Some((CueClass::Learning, format!("{verb} {pronoun} ({pronoun}: {})", &text[c.start..c.end])));
                strong = true;
                cue_at = at;
            } else if !strong
                && (!c.ambiguous || c.repo_context)
                && let Some((at, verb)) = taking_in_a_later_sentence(text, &breaks, line, c, s_end, line_stop, cues)
            {
                // "gemini-cli's policy engine is the cleanest version I know of: … Took the
                // priority model for yolo's `policy.toml`": a sentence of taking that names
                // no source takes from the repo named before it.
                cue = Some((CueClass::Learning, format!("{verb} (a later sentence: {})", &text[c.start..c.end])));
                strong = true;
                cue_at = at;
            }
            if !strong
                && cue.as_ref().is_none_or(|(class, _)| *class == CueClass::Using)
                && !cue_hits.class_in(s_start, s_end, CueClass::Testing)
                && !cue_hits.class_in(s_start, s_end, CueClass::Learning)
                && let Some(verb) = cues.state_after(text, c.end, s_end)
            {
                // "usearch stays as is", "scryer-prolog stays on 0.9.4": the project keeps
                // it (a cue of another class in the sentence says more).
                cue = Some((CueClass::Using, format!("{} {verb}", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            }
            let testing_cue = matches!(cue, Some((CueClass::Testing, _))) && c.flag_cue.is_none();
            if let Some(flag) = feature_flag(text, line_start, c.start) {
                // `cargo bench --features turso`, `turso = ["dep:turso"]`: the project's own
                // build option named after the repo, whatever the command runs.
                cue = Some((CueClass::Using, format!("cargo feature `{flag}{}`", &text[c.start..c.end])));
                strong = true;
                bound = true;
                cue_at = c.start;
            } else if let Some(compound) = cues.compound_after(text, c.end, s_end)
                && (!strong || testing_cue && cues.is_project_part(&compound.1))
            {
                // "All 96 tests green on the turso store": what ran is the project's part
                // built on the repo, not the repo.
                // "explored the DuckDB integration": the noun the mention qualifies says
                // what the repo is to the project, closer than any word around it. A part
                // of the project built on it ("the usearch crate", "the dagger adapter") is
                // strong, unless the sentence's own word is of another class ("scraped the
                // dojo crate: 367 chunks" ran on it).
                // Words before a colon that opens the mention's part are a label of it
                // ("Rerun: image builds in 3m10s, and the claude-code adapter starts
                // `claude`", stop 57: set 35), not its clause's verb.
                let part = colons
                    .partition_point(|&i| i < c.start)
                    .checked_sub(1)
                    .map(|i| colons[i] + 1)
                    .filter(|&at| at > s_start)
                    .unwrap_or(s_start);
                let other_class = cue.as_ref().is_some_and(|(class, _)| *class != compound.0) && cue_at >= part
                    || cue_hits.class_in(part, s_end, CueClass::Testing) && compound.0 != CueClass::Testing;
                // The compound stands within four bytes of the mention (a '`', spaces, a '-').
                let rest = &text[c.end..s_end];
                let after = rest.get(..4 + compound.1.len()).and_then(|w| w.find(compound.1.as_str()));
                let rest = after.map_or("", |at| &rest[at + compound.1.len()..]);
                // An ambiguous name is not made a repo by it ("The Codex adapter" is the product's).
                strong = cues.is_strong_compound(&compound.1, rest) && !other_class && (!c.ambiguous || c.repo_context);
                // "feat(adapters/gemini): gemini-cli adapter": the commit added the part it
                // names, an act, where the noun alone may look back at a removed part.
                let (class, noun) = compound;
                cue = Some(match in_a_feat_commit(text, line_start, c.start) {
                    true => (class, format!("{noun}{FEAT_COMMIT}")),
                    false => (class, noun),
                });
                bound = true;
                cue_at = c.start;
            } else if !strong && let Some(line) = dependency_line {
                // `usearch = "2.17.0"` pasted from Cargo.toml: a declared dependency.
                cue = Some((CueClass::Using, format!("dependency line `{}{line}`", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            } else if !strong
                && (!c.ambiguous || c.repo_context || matcher.names_a_crate(c.node, &text[c.start..c.end]))
                && let Some(path) = rust_type_path(text, c.start, c.end)
            {
                // `turso::Builder::new_local(..)`, "no method named `prepare_cached` found for
                // struct `turso::Connection`": the project's Rust code names a type of the
                // crate (unless the file tests the repo: see `subjects_own_compounds`). An
                // ambiguous name counts when it is the repo's crate (`loro::LoroDoc::new()`),
                // not a word that heads some other module (`kit::Layout`: kit ships none).
                cue = Some((CueClass::Using, format!("{RUST_PATH}`{path}`")));
                strong = true;
                bound = true;
                cue_at = c.start;
            } else if !strong && let Some(entry) = manifest_entry(cues, text, line_start, c.start, c.end, skip_node) {
                // `├── scryer-prolog v0.9.4` from `cargo tree`, `package = "opencode-ai"`.
                cue = Some((CueClass::Using, entry));
                strong = true;
                cue_at = c.start;
            } else if !strong && let Some(count) = cues.count_right_after(text, c.start, c.end, s_end) {
                // "Large repos like duckdb (5,309 files) take ~3 minutes": a run's count.
                cue = Some((CueClass::Testing, format!("{} ({count})", &text[c.start..c.end])));
                strong = true;
                cue_at = c.start;
            }
            if !strong
                && let Some(colon) = colons.partition_point(|&i| i < c.start).checked_sub(1).map(|i| colons[i])
                && colon >= s_start
                && stands_alone(text, &layout, c.start, c.end, line_start, line_stop)
                && starts_an_item(text, colon, c.start)
            {
                // "Tested edge-case repos: A (13%), B (23%), C": an inline list inherits
                // the words before its colon, as a list inherits its lead-in. Only a repo
                // named by itself is an item (not one inside `a-file-name.md`).
                let lead = inline_leads
                    .entry(colon)
                    .or_insert_with(|| inline_lead_in(text, &colons, colon, s_start, cues))
                    .clone();
                // "took from memista: drop the HashMap; usearch key = rowid": a learning
                // lead-in naming its source is about that source only (stop 57: set 37), as
                // a lead-in line is.
                let other_source = lead.as_ref().is_some_and(|(class, _)| *class == CueClass::Learning)
                    && line[line.partition_point(|o| o.start < s_start)..]
                        .iter()
                        .take_while(|o| o.start < colon)
                        .any(|o| o.node != c.node);
                if let Some(lead) = lead.filter(|_| !other_source) {
                    cue = Some(lead);
                    strong = true;
                    bound = false;
                    inherited = true;
                    cue_at = colon;
                }
            }
            let results_table = results_row.as_ref().and_then(|row| row.cue(c.start, cues));
            // "| crate | called from | verdict |" then "| usearch | `src/index/vectors.rs` |
            // core |": a row of the project's own dependencies names its crate (an
            // ambiguous name alone in its cell: "| loro |").
            let dependency_column = results_row.as_ref().and_then(|row| {
                let name = row.column(c.start)?;
                (cell_named(name, &cues.dependency_columns)
                    && row.names_by_itself(text, c.start, c.end, c.ambiguous && !c.repo_context))
                .then(|| format!("{name} (column \"{name}\", line {})", row.header_line + 1))
            });
            // "Removed `scryer-prolog = \"0.9\"` from Cargo.toml": the line is the mention's.
            let mention_end = c.end + dependency_line.map_or(0, str::len);
            // A row's verdict is read for every mention, left to right, so that the row's
            // first named cell is its subject; an ambiguous name must stand alone in its
            // cell ("| game-engine (Cairo) |", not "| dust filter |").
            let alone = c.ambiguous && !c.repo_context;
            let verdict = results_row.as_ref().and_then(|row| row.verdict_ending(text, c.start, c.end, alone));
            let ending = removed_dependency(text, c.start, c.end, cues)
                .map(|line| format!("a diff's removed line `-{}{line}`", &text[c.start..c.end]))
                .or_else(|| ending_cue(text, s_start, s_end, c.start, mention_end, cues))
                .or(verdict);
            // An ambiguous name needs repo context or a strong cue (an ending is one:
            // "Removed loro and the `crdt` feature"); a weak testing word with the run's
            // counted result is one too ("loro rerun: 1,204 files, 9,877 chunks"), and so is
            // a run's score right after the name ("loro: 35 queries, MRR 0.54": stop 55,
            // set 33).
            if c.ambiguous
                && !c.repo_context
                && results_table.is_none()
                && dependency_column.is_none()
                && !strong
                && ending.is_none()
                && !matches!(&cue, Some((CueClass::Testing, _))
                    if results
                        .entry((s_start, CueClass::Testing))
                        .or_insert_with(|| cues.counted_result(&text[s_start..s_end], CueClass::Testing).map(str::to_string))
                        .is_some())
                && cues.metric_right_after(text, c.end, s_end.min(next_other_repo(line, c, line_stop))).is_none()
            {
                continue;
            }
            if let Some(owner) = cues.owner_before(text, s_start, c.start, skip_node) {
                // "analysed Patina's Dagger integration": the project's own Dagger, whatever
                // verb leads the sentence (not a reason to accept an ambiguous name).
                cue = Some(owner);
                strong = true;
                bound = true;
                owned = true;
            }
            let lead_in = blocks.lead_in(line_idx, text, &lines, cues, matcher, skip_node);
            if let Some(ending) = ending {
                cue = Some((CueClass::Ending, ending));
                strong = true;
                bound = false;
                cue_at = c.start;
            } else if let Some(retraction) = retraction_after(text, s_end, cues) {
                // "… was inspired by daydreams. That was wrong - …": the claim is withdrawn.
                cue = Some((CueClass::Ending, retraction.to_string()));
                strong = true;
                bound = false;
                retracted = true;
            } else if (!strong || bound)
                && !owned
                && let Some(ending) = lead_in.as_ref().and_then(|l| l.ending.clone()).or_else(|| {
                    let row = results_row.as_ref()?;
                    let name = row.column(c.start)?;
                    // "| removed | when | why |" then "| turso backend | 05-12 | … |".
                    let word = cues.ending_lead_in(name)?;
                    Some(format!("{word} (column \"{name}\", line {})", row.header_line + 1))
                })
            {
                // "### Removed" then "- The optional DuckDB scrape backend": a removal.
                cue = Some((CueClass::Ending, ending));
                strong = true;
                bound = false;
                inherited = true;
            } else if !strong
                && let Some((row, name)) =
                    results_row.as_ref().and_then(|row| row.column(c.start).map(|name| (row, name)))
                && cell_named(name, &cues.option_columns)
            {
                // "| backend | build | p50 |" then "| usearch (HNSW) | 47.1s | 0.9 ms |": the
                // project's options compared, what it builds on, not test subjects.
                cue = Some((CueClass::Using, format!("{name} (column \"{name}\", line {})", row.header_line + 1)));
                bound = false;
                cue_at = c.start;
            } else if !strong
                && let Some(lead) = lead_in.as_ref().and_then(|l| {
                    // "Idea taken from turso (applies to our usearch setup):" learns from
                    // turso; an item naming usearch takes nothing from it. Not a testing
                    // lead-in: "Ran the gemini-cli adapter against these repos:" names its
                    // tool, and the items are the subjects.
                    let other_source = l.cue.as_ref().is_some_and(|(class, _)| *class == CueClass::Learning)
                        && !l.names.is_empty()
                        && !l.names.contains(&c.node);
                    l.cue.clone().filter(|_| !other_source)
                })
            {
                cue = Some(lead);
                strong = true;
                bound = false;
                inherited = true;
                cue_at = c.start;
            } else if !strong && let Some(row) = &results_table {
                // "| SDL | C | 1,412 | 11.2s |" under "| Repo | Lang | Files | Time |",
                // whatever the heading (a heading that leads it says more, above).
                cue = Some((CueClass::Testing, row.clone()));
                strong = true;
                bound = false;
                inherited = true;
                cue_at = c.start;
            } else if !strong && let Some(column) = &dependency_column {
                // A table of the project's crates. A lead-in with a cue decides above
                // ("Tested these crates:" ran the tool on them), and so does a run's
                // measurement under a repo column ("| repo / crate | time |").
                cue = Some((CueClass::Using, column.clone()));
                strong = true;
                bound = false;
                inherited = true;
                cue_at = c.start;
            }
            // "[1/1] SDL  queries ✓   q r@5 0.65": a retrieval score right after the repo
            // is a run's result on it. Not over a strong cue, a cue of study, a weak use
            // phrase ("search via usearch: recall@10 0.97"), nor a part of the project
            // named after the repo ("the turso store: recall@10 0.95" measured the project).
            if !strong
                && cue.as_ref().is_none_or(|(class, words)| match class {
                    CueClass::Testing => true,
                    CueClass::Using => bound && !cues.is_project_part(words.strip_suffix(FEAT_COMMIT).unwrap_or(words)),
                    _ => false,
                })
                // The score is the nearest name's before it: "livestore ✗  cortex r@5 0.61"
                // scored cortex.
                && let Some(metric) = cues.metric_right_after(text, c.end, s_end.min(next_other_repo(line, c, line_stop)))
            {
                cue = Some((CueClass::Testing, format!("{} ({metric})", &text[c.start..c.end])));
                strong = true;
                bound = false;
                cue_at = c.start;
            }
            if !strong
                && let Some((class, words)) = &cue
                && let Some(result) = results
                    .entry((s_start, *class))
                    .or_insert_with(|| cues.counted_result(&text[s_start..s_end], *class).map(str::to_string))
                    .clone()
            {
                // "Successfully indexed dust repository: 454 symbols from 235 files": a
                // weak testing word with the run's counted result is a test run.
                cue = Some((*class, format!("{words} (with a counted result: \"{result}\")")));
                strong = true;
            }
            if cue.is_none()
                && let Some(head_end) = item_head_end(text, line_start, line_stop, c.start, c.end)
                && let Some(hit) = {
                    // The item's first strong cue (of its first few), in a sentence that
                    // names no other node and holds no hedge: binary searches, bounded.
                    let first = cue_hits.strong.partition_point(|h| h.start < head_end);
                    cue_hits.strong[first..].iter().take_while(|h| h.end <= line_stop).take(MAX_ITEM_CUES).find(|h| {
                        let (from, to) = sentence_bounds(&breaks, line_start, line_stop, h.start, h.end);
                        let o = line.partition_point(|o| o.start < from);
                        let names_other =
                            line[o..].iter().take_while(|o| o.start < to).take(MAX_ITEM_CUES).any(|o| o.node != c.node);
                        let v = hedges.partition_point(|v| v.0 < from);
                        h.class != CueClass::Plain && !names_other && hedges.get(v).is_none_or(|v| v.1 > to)
                    })
                }
            {
                // "- **livestore** (livestorejs/livestore): the event log is the source of
                // truth … Read the materializer docs in the repo.": the item is about its
                // head, and its sentences' cues are the head's.
                cue = Some((hit.class, format!("{} (in the item it heads)", &text[hit.start..hit.end])));
                strong = true;
                inherited = true;
            }
            // "Queried `opencode.db` from the March eval: 28,940 symbols": the index of an
            // earlier run, read again; nothing ran on the repo here.
            // Void, so the exemplars leave it too; a learning or using phrase stays.
            let mut read_index = false;
            if c.flag_cue.is_none()
                && matches!(cue, None | Some((CueClass::Testing, _)))
                && let Some(suffix) = cues.index_file_after(text, c.end)
            {
                let was = cue.take().map(|(_, words)| format!(": {words}")).unwrap_or_default();
                cue = Some((CueClass::Plain, format!("reads the index `{}{suffix}`{was}", &text[c.start..c.end])));
                strong = false;
                bound = false;
                inherited = false;
                read_index = true;
            }
            // A plan, a question or a hypothesis evidences nothing: "Turso might be worth
            // benchmarking someday", an item under "Next steps:". Not the project's own
            // thing ("our DuckDB") nor a retraction.
            // Someone else's project ("their team runs tests with X"), a rejection ("Not
            // followed": the whole item, when its cue is its lead-in's) and a quote void it too.
            let said = |h: &(usize, usize, Void)| format!("{} \"{}\"", h.2.verb(), &text[h.0..h.1]);
            let hedge = if owned || retracted {
                None
            } else if removed_line && !matches!(cue, Some((CueClass::Ending, _))) {
                // "-- Context loading: hooks approach from PAI" in a ```diff: the text was
                // deleted; what it claimed is no evidence (a removed dependency line is an
                // ending, read above).
                Some("a diff's removed line (deleted text)".to_string())
            } else if quoted {
                Some("quoted (someone else's words)".to_string())
            } else if open_task {
                Some("an open task (\"[ ]\": not done)".to_string())
            } else if let Some(plan) = lead_in.as_ref().and_then(|l| l.plan.clone()).filter(|_| !done_task) {
                Some(plan)
            } else if let Some((_, why)) = lead_in.as_ref().and_then(|l| l.owner.as_ref()).filter(|(n, _)| *n != c.node)
            {
                Some(why.clone())
            } else if let Some((row, name)) =
                results_row.as_ref().and_then(|row| row.column(c.start).map(|name| (row, name)))
                && let Some(&(a, b, void)) = cues.find_hedges(name).first()
            {
                // "| consumer | direct deps | notable transitive |": the column says whose.
                Some(format!("{} \"{}\" (column \"{name}\", line {})", void.verb(), &name[a..b], row.header_line + 1))
            } else {
                // The mention's clause, its cue's, and its inline list's lead-in ("From the
                // reporter: A; B").
                let colon = colons.partition_point(|&i| i < c.start).checked_sub(1).map(|i| colons[i]);
                [Some(c.start), Some(cue_at), colon.filter(|&at| at >= s_start)]
                    .into_iter()
                    .flatten()
                    .find_map(|at| {
                        let (from, to) = clause_bounds(&clauses, s_start, s_end, at);
                        let i = hedges.partition_point(|h| h.0 < from);
                        hedges.get(i).filter(|h| h.1 <= to).map(said)
                    })
                    .or_else(|| {
                        // "Next steps: benchmark dojo, then the opencode adapter", "Handoff
                        // plan for this week: …": an inline lead-in of plans hedges its
                        // sentence after the colon, as a lead-in line hedges its list.
                        let colon = colon.filter(|&at| at >= s_start)?;
                        inline_plans
                            .entry(colon)
                            .or_insert_with(|| inline_plan_lead_in(text, &colons, colon, s_start, cues))
                            .clone()
                    })
                    .or_else(|| {
                        // A short verdict after the mention's clause speaks for it: "I also
                        // meant to run it on death-mountain - postponed."
                        let (_, to) = clause_bounds(&clauses, s_start, s_end, c.start);
                        let (from, next_to) = clause_bounds(&clauses, s_start, s_end, to);
                        let short =
                            to < s_end && text[from..next_to].split_whitespace().count() <= MAX_VERDICT_WORDS + 1;
                        let i = hedges.partition_point(|h| h.0 < from);
                        hedges.get(i).filter(|h| short && h.1 <= next_to).map(said)
                    })
                    .or_else(|| {
                        // A later clause says the cue's act never happened: "starknet-foundry
                        // was proposed as a second fixture last year; never added". Read
                        // after the cue, up to another repo's name.
                        let (class, words) = cue.as_ref()?;
                        let from = c.end.max(cue_at);
                        // `line` is sorted by start: from the first mention past `from`, within
                        // the window only (a line may hold 100,000 mentions of one repo).
                        let next_repo = line[line.partition_point(|o| o.start < from)..]
                            .iter()
                            .take_while(|o| o.start < from + MAX_DENIAL_BYTES)
                            .find(|o| o.node != c.node)
                            .map(|o| o.start);
                        let end = next_repo.unwrap_or(s_end).min(s_end).min(from + MAX_DENIAL_BYTES);
                        let stop = text.floor_char_boundary(end).max(from);
                        cues.act_denied(&text[from..stop], stop == s_end, *class, words, skip_node)
                            .map(|phrase| format!("denied by \"{phrase}\""))
                    })
                    .or_else(|| inherited.then(|| hedges.iter().find(|h| h.2 == Void::Rejection).map(said))?)
                    .or_else(|| {
                        let (from, _) = clause_bounds(&clauses, s_start, s_end, c.start);
                        dependency_of_another(text, line, &dependency_verbs, c, from)
                    })
            };
            let mut voided = hedge.is_some() || read_index;
            if let Some(hedge) = hedge {
                let was = cue.take().map(|(_, words)| format!(": {words}")).unwrap_or_default();
                cue = Some((CueClass::Plain, format!("{hedge}{was}")));
                strong = false;
                bound = false;
                inherited = false;
            } else if !owned
                && let Some(negation) = cues.negation_right_before(text, s_start, c.start)
                && (bound
                    || !retracted
                        && !matches!(cue, Some((CueClass::Ending, _)))
                        && !cues.failure_right_after(text, c.end, s_end))
            {
                // A repo right after a negation was not there, whatever its sentence did: "a
                // plain bash loop, no dagger involved", "ran it on SDL, not duckdb", "no turso
                // crate in Cargo.lock". A dependency that is not there ("there is no opencode
                // dependency") says the repo is not used, as "X is not used" does: an ending.
                // A failure word after ("no SDL panics") is a run that passed.
                let absent = format!("{negation} {}", &text[c.start..c.end]);
                let denied_use =
                    bound && negation.eq_ignore_ascii_case("no") && matches!(cue, Some((CueClass::Using, _)));
                cue = Some(match denied_use {
                    true => (CueClass::Ending, format!("{absent} {}", cue.as_ref().map_or("", |(_, noun)| noun))),
                    false => (CueClass::Plain, format!("negated: \"{absent}\"")),
                });
                // An unbound mention drops the cue it inherited from its list's lead-in.
                inherited &= bound;
                strong = denied_use;
                bound = false;
                voided = !denied_use;
            } else if !bound
                && !owned
                && let Some(word) = cues.skipped_right_after(text, c.end, s_end)
                && (cues.is_explicit_skip(word)
                    || (inherited || !strong) && starts_its_item(&text[line_start..c.start]))
            {
                // "## Bench" then "- memista — not cloned, skip": left out of the runs.
                cue = Some((CueClass::Plain, format!("skipped: \"{} … {word}\"", &text[c.start..c.end])));
                strong = false;
                inherited = false;
                voided = true;
            } else if !bound
                && !c.repo_context
                && matches!(cue, Some((CueClass::Testing, _)))
                && let Some((article, noun)) = noun_it_modifies(text, line_start, c.start, c.end)
            {
                // "the first real test of the scrape path on a Dojo game", "yolo on a Dojo
                // game": the run was on a thing built with the repo (death-mountain), not
                // on the repo (stop 59: sets 6 and 14).
                let name = &text[c.start..c.end];
                cue = Some((CueClass::Plain, format!("modifies a noun: \"{article}{name}{noun}\"")));
                strong = false;
                inherited = false;
                voided = true;
            } else if inherited
                && matches!(line_shape(&text[line_start..line_stop]), LineShape::Item(_))
                && let Some(denial) = *item_denied.get_or_insert_with(|| item_denial(text, &lines, line_idx, cues))
            {
                // "## Prior art" then "- **Daydreams** (…). Has episodic memory, per its
                // README. Not studied.": the item says it was not done.
                cue = Some((CueClass::Plain, format!("the item says \"{denial}\"")));
                strong = false;
                inherited = false;
                voided = true;
            } else if !strong && !bound {
                // A negated phrase in the mention's clause, and nothing stronger: the
                // clause says it was not done.
                let (from, to) = clause_bounds(&clauses, s_start, s_end, c.start);
                let i = negated.partition_point(|h| h.start < from);
                if let Some(h) = negated.get(i).filter(|h| h.end <= to) {
                    let phrase = text[text.floor_char_boundary(h.start.saturating_sub(NEGATION_SHOWN))..h.end].trim();
                    cue = Some((CueClass::Plain, format!("negated: \"…{phrase}\"")));
                    inherited = false;
                    voided = true;
                }
            }
            nodes_on_line.insert(c.node);
            nodes_in_sentence.push((s_start, c.node));
            let (cue_class, cue) = cue.unwrap_or((CueClass::Plain, String::new()));
            let strong_cue = strong && cue_class != CueClass::Plain;
            named_by_flag.push(strong_cue && c.flag_cue.as_deref() == Some(cue.as_str()));
            found.push(FoundMention {
                node: c.node,
                line: line_idx as u32 + 1,
                matched: text[c.start..c.end].to_string(),
                sentence: clean_sentence(&text[s_start..s_end], c.start - s_start, c.end - s_start),
                cue_class,
                cue,
                strong_cue,
                co_mentions: 0,
                sentence_co_mentions: 0,
                lead_in: lead_in.map(|l| l.label),
                bound,
                inherited,
                voided,
                prose: !fenced[line_idx],
            });
        }
        let distinct = nodes_on_line.len() as u32;
        let in_sentence = distinct_per_sentence(&nodes_in_sentence);
        for ((mut mention, sentence_distinct), by_flag) in
            found.into_iter().zip(in_sentence).zip(named_by_flag.drain(..))
        {
            mention.co_mentions = distinct;
            mention.sentence_co_mentions = sentence_distinct;
            // A bulk line is a listing, unless the command names each repo it runs on
            // (`$ patina scrape --repo dojo --repo SDL --repo livestore …`).
            if distinct as usize >= cues.bulk_min_distinct_nodes && !by_flag {
                mention.cue_class = CueClass::Plain;
                mention.cue.clear();
                mention.strong_cue = false;
            }
            sweep_of_subjects(&mut mention, cues);
            out.push(mention);
        }
        i = j;
    }
    subjects_own_compounds(&mut out, matcher, cues);
    out
}

/// "the dojo index" in a file that scrapes dojo is the index patina built of its test
/// subject, while "the usearch index" in a file that never tests usearch is the project's
/// index built on it: a compound of `[using] subject_compounds` says nothing of a repo the
/// same file gives a testing cue, and its mention stays plain (its cue text says why).
///
/// So does a Rust path to a type of such a repo ("(also exported as dojo::ModelStorage)" in
/// a file that scrapes dojo): the subject's own code, not the project's. And so does the
/// index of a repo that ships no package, in any file: "the SDL index" is patina's index
/// of SDL's code, nothing built on SDL. A version change of a repo the file tests on is the
/// test subject's new release ("re-scraped dojo 1.6 → 1.7"), not a dependency's bump.
fn subjects_own_compounds(mentions: &mut [FoundMention], matcher: &NodeMatcher, cues: &Cues) {
    let tested: HashSet<usize> =
        mentions.iter().filter(|m| m.cue_class == CueClass::Testing && !m.voided).map(|m| m.node).collect();
    for m in mentions.iter_mut() {
        let version_change = m.cue.ends_with(VERSION_CHANGE);
        if m.cue_class != CueClass::Using || !(m.bound || version_change) {
            continue;
        }
        let noun = m.cue.strip_suffix(FEAT_COMMIT).unwrap_or(&m.cue);
        let subject_compound = cues.is_subject_compound(noun);
        let subjects_own = subject_compound || noun.starts_with(RUST_PATH) || version_change;
        let why = if tested.contains(&m.node) && subjects_own {
            "of a repo this file tests on"
        } else if subject_compound && !matcher.packaged[m.node] {
            // "run against the SDL index": a repo that ships no package (no crate, no npm
            // package) is nothing the project's index is built on (stop 57: set 21).
            "of a repo with no package"
        } else {
            continue;
        };
        m.cue = format!("{} ({why})", m.cue);
        m.cue_class = CueClass::Plain;
        m.strong_cue = false;
    }
}

/// The path into a repo's tree in a code span right after the repo's name at `end`, within
/// its sentence (before `s_end`): past at most a parenthesis ("openclaw (`openclaw/openclaw`,
/// the old moltbot repo) `src/memory/`") and a ',' or ':'. A relative path of folders
/// (`packages/core/src/memory/`, `examples/hooks/x.py`): at least one '/', starting with a
/// letter or digit, not a home, absolute or dot path (`~/.claude/settings.json` is a local
/// file) and no command (no space).
fn source_path_after(text: &str, end: usize, s_end: usize) -> Option<&str> {
    let mut rest = &text[end..s_end.max(end)];
    if let Some(inner) = rest.strip_prefix(" (") {
        let close = inner.bytes().take(MAX_GLOSS).position(|b| b == b')' || b == b'(' || b == b'\n')?;
        rest = inner[close..].strip_prefix(')')?;
    }
    let rest = rest.strip_prefix([',', ':']).unwrap_or(rest);
    let rest = rest.strip_prefix(' ')?.strip_prefix('`')?;
    let len =
        rest.bytes().take(MAX_SOURCE_PATH + 1).take_while(|b| b.is_ascii_alphanumeric() || b"_./-".contains(b)).count();
    let path = &rest[..len.min(MAX_SOURCE_PATH)];
    let relative = path.starts_with(|c: char| c.is_ascii_alphanumeric());
    (len <= MAX_SOURCE_PATH && relative && path.contains('/') && rest[len..].starts_with('`')).then_some(path)
}

/// The longest parenthesis [`source_path_after`] steps over.
const MAX_GLOSS: usize = 80;

/// The longest path [`source_path_after`] reads.
const MAX_SOURCE_PATH: usize = 160;

/// Whether the name `[start, end)` is glossed by its `owner/name` in parentheses right
/// after it, the same name after the owner: "kit (sveltejs/kit checkout)", "dust
/// (dustproject/dust)". The writer says which repo the name is, whether or not the
/// registry knows that owner.
fn glossed_by_owner_name(text: &str, start: usize, end: usize) -> bool {
    let Some(gloss) = text[end..].strip_prefix(" (") else { return false };
    let owner =
        gloss.bytes().take(MAX_OWNER + 1).take_while(|b| b.is_ascii_alphanumeric() || b"-_.".contains(b)).count();
    let name = &text[start..end];
    (1..=MAX_OWNER).contains(&owner)
        && gloss[owner..].strip_prefix('/').is_some_and(|rest| {
            rest.get(..name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name))
                && !rest[name.len()..].starts_with(|c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '/'))
        })
}

/// The longest owner [`glossed_by_owner_name`] reads (GitHub allows 39 characters).
const MAX_OWNER: usize = 39;

/// The noun that the mention `[start, end)` modifies after an indefinite article, a
/// word in lower case right after it: "a Dojo game", "a dagger pipeline" names a thing
/// built with the repo, not the repo (a repo is one thing, never "a" one). The article and
/// the noun (with the space before it) as written.
fn noun_it_modifies(text: &str, line_start: usize, start: usize, end: usize) -> Option<(&str, &str)> {
    let before = &text[line_start..start];
    let article = ["a ", "an "].into_iter().find_map(|a| {
        let at = before.len().checked_sub(a.len())?;
        let written = before.get(at..).filter(|w| w.eq_ignore_ascii_case(a))?;
        (!before[..at].ends_with(|ch: char| ch.is_alphanumeric())).then_some(written)
    })?;
    let rest = &text[end..];
    let word = rest.strip_prefix(' ')?;
    let len = word.bytes().take(MAX_NOUN + 1).take_while(|b| b.is_ascii_lowercase()).count();
    (2..=MAX_NOUN).contains(&len).then(|| (article, &rest[..1 + len]))
}

/// The longest noun [`noun_it_modifies`] reads.
const MAX_NOUN: usize = 24;

/// How a version change's cue ends ([`version_change_after`]).
const VERSION_CHANGE: &str = " (a version change)";

/// How a Rust path's cue begins ([`rust_type_path`]).
const RUST_PATH: &str = "Rust path ";

/// The Rust path to a type that the mention `[start, end)` begins: the name, `::`, then a
/// capitalised identifier (`turso::Builder`, `usearch::Index`, `loro::LoroDoc`), the name
/// not itself inside a path or a word (`crate::adapters::codex::Writer`, `my_turso::X`);
/// or a use list that opens with one (`use usearch::{Index, MetricKind};`, its first
/// item within [`MAX_PATH_ITEM`] bytes of blanks, on the next line too). A module path
/// (`dojo::model::spawn`) names no type and is left alone. The path as the cue shows it.
fn rust_type_path(text: &str, start: usize, end: usize) -> Option<String> {
    let before = text[..start].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '/' | '-')) {
        return None;
    }
    let item = text[end..].strip_prefix("::")?;
    // A use list's first item, on its line or the next: `use usearch::{Index, …};`.
    let list = item.strip_prefix('{').map(|list| {
        let blank = list.bytes().take(MAX_PATH_ITEM).take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')).count();
        &list[blank..]
    });
    let item = list.unwrap_or(item);
    let len = item.bytes().take(MAX_PATH_ITEM + 1).take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    let ident = &item[..len.min(MAX_PATH_ITEM)];
    let capitalised =
        ident.starts_with(|c: char| c.is_ascii_uppercase()) && ident.chars().any(|c| c.is_ascii_lowercase());
    let name = &text[start..end];
    (capitalised && len <= MAX_PATH_ITEM).then(|| match list {
        Some(_) => format!("{name}::{{{ident}"),
        None => format!("{name}::{ident}"),
    })
}

/// The longest type name a Rust path's cue reads.
const MAX_PATH_ITEM: usize = 64;

/// What a compound noun's cue says after the noun when a feature commit names it.
const FEAT_COMMIT: &str = " (in a feat commit)";

/// Whether the mention starting at `start` stands in the subject of a conventional commit
/// of a feature ("feat: …", "feat(adapters)!: …"), within [`MAX_COMMAND`] bytes of its
/// line: a part it names was added. Not in a revert of one (`Revert "feat: …"`), and not
/// past the subject's end: no '`' or '"' between the type and the mention ("after `feat:
/// usearch index` landed, the vectorlite crate …" adds no vectorlite).
fn in_a_feat_commit(text: &str, line_start: usize, start: usize) -> bool {
    let from = text.floor_char_boundary(start.saturating_sub(MAX_COMMAND).max(line_start));
    let before = &text[from..start];
    before.match_indices("feat").any(|(at, _)| {
        let word_start = at == 0 || !before.as_bytes()[at - 1].is_ascii_alphanumeric();
        let reverted = before.as_bytes()[..at].windows(6).any(|w| w.eq_ignore_ascii_case(b"revert"));
        let rest = &before[at + "feat".len()..];
        let rest = match rest.strip_prefix('(') {
            Some(scope) => scope.find(')').map_or("", |close| &scope[close + 1..]),
            None => rest,
        };
        let subject = rest.strip_prefix('!').unwrap_or(rest).strip_prefix(": ");
        word_start && !reverted && subject.is_some_and(|s| !s.contains(['`', '"']))
    })
}

/// The mark in a markdown task item's box: `' '` for "- [ ] …", `'x'` for "* [x] …" (also
/// `+`, `1.`, `1)`); `None` when the line is no task item.
fn task_mark(line: &str) -> Option<char> {
    let t = line.trim_start();
    let rest = match t.strip_prefix(['-', '*', '+']) {
        Some(rest) => rest,
        None => {
            let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
            if rest.len() == t.len() {
                return None;
            }
            rest.strip_prefix(['.', ')'])?
        }
    };
    let mut chars = rest.strip_prefix(" [")?.chars();
    let mark = chars.next()?;
    (chars.next() == Some(']')).then_some(mark)
}

/// Whether a line is a task item done: "- [x] …".
fn is_done_task(line: &str) -> bool {
    matches!(task_mark(line), Some('x' | 'X'))
}

/// Whether a line is an open task item: "- [ ] …", "1. [ ] …".
fn is_open_task(line: &str) -> bool {
    task_mark(line) == Some(' ')
}

/// The markdown shape of a line, as far as lead-ins go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineShape {
    Blank,
    /// A list item (`-`, `*`, `+`, `1.`) at this indentation.
    Item(usize),
    TableRow,
    /// A heading, a bold label (`**Testing:**`) or a line ending in ':': a lead-in.
    LeadIn,
    Other,
}

fn line_shape(line: &str) -> LineShape {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let trimmed = trimmed.trim_end();
    if trimmed.is_empty() {
        return LineShape::Blank;
    }
    if trimmed.starts_with('|') {
        return LineShape::TableRow;
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let bullet = trimmed.starts_with(['-', '*', '+']) && trimmed[1..].starts_with(' ');
    let numbered = digits > 0 && trimmed[digits..].starts_with(". ");
    if (bullet && !trimmed.starts_with("**")) || numbered {
        return LineShape::Item(indent);
    }
    if trimmed.starts_with('#') || trimmed.trim_end_matches(['*', '_']).ends_with(':') {
        return LineShape::LeadIn;
    }
    LineShape::Other
}

/// The lead-ins of list and table blocks, found once per line and remembered.
#[derive(Default)]
struct Blocks {
    /// Line index → the lead-in of the item or row on it (`None`: not in a block with one).
    cache: std::collections::HashMap<usize, Option<LeadIn>>,
}

/// Whether the mention `[start, end)` is a word of its own: its path token is the mention
/// itself, give or take trailing punctuation.
fn stands_alone(text: &str, layout: &Layout, start: usize, end: usize, line_start: usize, line_stop: usize) -> bool {
    let (token_start, token_end) = layout.token_around(start, end, line_start, line_stop);
    token_start == start && text[end..token_end].bytes().all(|b| matches!(b, b':' | b'.' | b'!' | b'?'))
}

/// How far before an `owner/name` token its "[[" or clone command ("git clone ", "repo
/// add ") is read, in bytes.
const MAX_BEFORE_REFERENCE: usize = 16;

/// How many bytes before a negated phrase its cue text shows ("…don't scrape").
const NEGATION_SHOWN: usize = 12;

/// The most bytes between a mention and the failure phrase it is the subject of.
const MAX_SUBJECT_GAP: usize = 24;

/// The most bytes before an inline list's colon read as its lead-in.
const MAX_INLINE_LEAD_IN: usize = 120;

/// The words before an inline list's colon (after the previous colon or the sentence
/// start, at most [`MAX_INLINE_LEAD_IN`] bytes).
fn inline_lead_words<'t>(text: &'t str, colons: &[usize], colon: usize, s_start: usize) -> &'t str {
    let previous = colons.partition_point(|&i| i < colon).checked_sub(1).map(|i| colons[i] + 1).unwrap_or(0);
    let from = text.floor_char_boundary(colon.saturating_sub(MAX_INLINE_LEAD_IN)).max(previous).max(s_start);
    &text[from..colon]
}

/// Why an inline lead-in hedges what follows its colon: a label of plans, whose first
/// word, or second after a word, is a hedge lead-in word ("Next steps:", "Plan for
/// today:", "Handoff plan for this week:", "TODO:"), with the lead-in as written. Not a
/// clause that holds one further on ("Removed confusing TODOs:", "Question from the TODO
/// file:"), nor a journal entry's time ("20:12 TODO: fix the panic for kit → applied").
fn inline_plan_lead_in(text: &str, colons: &[usize], colon: usize, s_start: usize, cues: &Cues) -> Option<String> {
    let words = inline_lead_words(text, colons, colon, s_start);
    let label: String = words.trim().trim_start_matches(['#', '-', '*', '>', ' ']).replace("**", "");
    let label = label.trim();
    let (hit, void) = cues.plan_lead_in(label)?;
    let bytes = label.as_bytes();
    let (at, _) = label.match_indices(hit).find(|&(i, _)| is_word_boundary(bytes, i, i + hit.len()))?;
    let mut before = label[..at].split_whitespace();
    // One word before it, not a report of the plan done ("Finished TODOs:").
    let head = match (before.next(), before.next()) {
        (None, _) => true,
        (Some(first), None) => first.chars().all(char::is_alphabetic) && !first.to_ascii_lowercase().ends_with("ed"),
        _ => false,
    };
    head.then(|| format!("{} \"{hit}\" (inline lead-in \"{label}\")", void.verb()))
}

/// The cue an inline list inherits: the strong class of the words between the previous
/// colon (or the sentence start) and its colon, at most [`MAX_INLINE_LEAD_IN`] bytes, so
/// that every colon of a line is read once.
fn inline_lead_in(
    text: &str,
    colons: &[usize],
    colon: usize,
    s_start: usize,
    cues: &Cues,
) -> Option<(CueClass, String)> {
    let words = inline_lead_words(text, colons, colon, s_start);
    // A colon inside a code span is code, or a quoted commit's subject ("PR #220 `bench:
    // --export to duckdb`", stop 57: set 37), no label.
    if is_commit_type(words) || words.bytes().filter(|&b| b == b'`').count() % 2 == 1 {
        return None;
    }
    match cues.lead_in_class(words) {
        Some((class, hit, true)) if class != CueClass::Plain => {
            let label: String = words.trim().trim_start_matches(['#', '-', '*', ' ']).replace("**", "");
            Some((class, format!("{hit} (inline lead-in \"{}\")", label.trim())))
        }
        _ => None,
    }
}

/// Whether an inline lead-in's words are a commit's hash and type (`- 0ae4b12 bench`,
/// `71d7b4a store(knn)`): "0ae4b12 bench: re-run knn, usearch only" is a commit's subject,
/// not a list of benchmarked repos (stop 55: set 11).
fn is_commit_type(words: &str) -> bool {
    let label = words.trim().trim_start_matches(['-', '*', '+', ' ', '`']);
    let mut parts = label.split_whitespace();
    let (Some(hash), Some(kind), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let kind = kind.strip_suffix('!').unwrap_or(kind);
    let kind = kind.split_once('(').map_or(kind, |(kind, scope)| if scope.ends_with(')') { kind } else { "" });
    (7..=40).contains(&hash.len())
        && hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && hash.bytes().any(|b| b.is_ascii_digit())
        && !kind.is_empty()
        && kind.bytes().all(|b| b.is_ascii_lowercase())
}

/// Words that, between a phrase pointing forward and a mention after it, make the mention a
/// cause rather than what the phrase points at.
const CAUSE_WORDS: [&str; 5] = ["due to", "because", "caused by", "thanks to", "owing to"];

/// How much text between a phrase pointing forward and a mention is read for a cause.
const MAX_CAUSE_GAP: usize = 160;

/// Whether `gap` (the text between a phrase pointing forward and a mention) names a cause
/// ("… on command execution due to …"). Longer gaps are not read (and name none).
fn names_a_cause(gap: &str) -> bool {
    // No allocation: a case-insensitive compare at each word start of the gap.
    let bytes = gap.as_bytes();
    gap.len() <= MAX_CAUSE_GAP
        && (0..bytes.len()).any(|i| {
            CAUSE_WORDS.iter().any(|w| {
                bytes.get(i..i + w.len()).is_some_and(|b| b.eq_ignore_ascii_case(w.as_bytes()))
                    && is_word_boundary(bytes, i, i + w.len())
            })
        })
}

/// How many lines of a list item (its own and its continuation lines) are read for a
/// sentence that denies it.
const MAX_ITEM_LINES: usize = 6;

/// The most words of a clause after a mention's that, holding a hedge, speaks for it
/// ("- postponed", "; maybe later").
const MAX_VERDICT_WORDS: usize = 3;

/// How far past a mention a later clause that denies its act is looked for, in bytes (a
/// sentence may be a whole minified line).
const MAX_DENIAL_BYTES: usize = 240;

/// How much of each line of an item is read for its denial, in bytes.
const MAX_ITEM_BYTES: usize = 400;

/// Verbs that, after a negation opening a sentence, deny what an item's lead-in says of it
/// ("Not studied.", "Haven't read the code.", "Not looked at."), besides any in "-ed".
const DENIED_VERBS: [&str; 10] = ["read", "run", "ran", "seen", "done", "tried", "opened", "touched", "used", "looked"];

/// A sentence of the list item at `line_idx` (its line and its indented continuation
/// lines, at most [`MAX_ITEM_LINES`]) that opens with a negation and a verb: "Not
/// studied.", "Haven't read the code.", "Never used it". The item says its lead-in's word
/// does not hold for it. Not a failure that did not happen ("No panics").
fn item_denial<'t>(text: &'t str, lines: &[(usize, usize)], line_idx: usize, cues: &Cues) -> Option<&'t str> {
    let (first_start, first_stop) = lines[line_idx];
    let indent = text[first_start..first_stop].len() - text[first_start..first_stop].trim_start().len();
    let continuation = lines[line_idx + 1..].iter().take(MAX_ITEM_LINES - 1).take_while(|&&(a, b)| {
        let line = &text[a..b];
        let trimmed = line.trim_start();
        !trimmed.is_empty()
            && line.len() - trimmed.len() > indent
            && !matches!(line_shape(line), LineShape::Item(_) | LineShape::TableRow)
    });
    std::iter::once(&lines[line_idx]).chain(continuation).find_map(|&(a, b)| {
        text[a..text.floor_char_boundary(b.min(a + MAX_ITEM_BYTES))].split_inclusive(['.', ';']).find_map(|sentence| {
            let sentence = sentence.trim_start_matches(|c: char| c.is_whitespace() || "-*+_(".contains(c));
            let mut words = sentence.split(|c: char| c.is_whitespace()).filter(|w| !w.is_empty());
            let negator = words.next()?;
            let verb = words.next()?.trim_end_matches(['.', ',', ';']);
            let past = verb.len() > 2 && verb.as_bytes()[verb.len() - 2..].eq_ignore_ascii_case(b"ed");
            let denies = cues.is_negator(negator)
                && verb.len() > 2
                && (past || DENIED_VERBS.iter().any(|d| d.eq_ignore_ascii_case(verb)))
                && !cues.is_failure_word(verb);
            denies.then(|| sentence.trim_end())
        })
    })
}

/// Whether a mention after `before` (its line up to it) heads a list item: only the list
/// marker, indentation and emphasis stand before it (`- `, `  * **`, `1. `).
fn starts_its_item(before: &str) -> bool {
    let rest = before.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let rest = match rest.strip_prefix(['-', '*', '+']) {
        Some(after) if after.starts_with(' ') => after,
        _ if digits > 0 && rest[digits..].starts_with(". ") => &rest[digits + 1..],
        _ => return false,
    };
    rest.trim_start_matches([' ', '*', '_', '`', '[']).is_empty()
}

/// Whether the text between a phrase pointing forward and a mention after it leaves the
/// phrase's clause: a ';', or a ')' closing a parenthesis the phrase stands in. Gaps longer
/// than [`MAX_CAUSE_GAP`] are not read (and leave nothing).
fn leaves_its_clause(gap: &str) -> bool {
    let bytes = gap.as_bytes();
    bytes.len() <= MAX_CAUSE_GAP
        && (memchr::memchr(b';', bytes).is_some()
            || memchr::memchr(b')', bytes).is_some_and(|close| memchr::memchr(b'(', &bytes[..close]).is_none()))
}

/// Whether the mention `c` is the object of a phrase pointing forward that ends at
/// `phrase_end` on its line: no other repo stands between them, or the text after the last
/// one only separates a list's items ("launched opencode (sst/opencode), gemini-cli and
/// codex", "the opencode adapter and the codex adapter": commas, "and", "or", articles and
/// `compounds` nouns, asides in parentheses), not an argument (`--repo`, `cwd=`, a path),
/// a preposition ("in the dojo checkout") or another clause. Gaps longer than
/// [`MAX_CAUSE_GAP`] are not read (and keep the object).
fn object_of_forward_phrase(text: &str, line: &[Candidate], phrase_end: usize, c: &Candidate, cues: &Cues) -> bool {
    if c.start.saturating_sub(phrase_end) > MAX_CAUSE_GAP {
        return true;
    }
    let last_other = line[line.partition_point(|o| o.start < phrase_end)..]
        .iter()
        .take_while(|o| o.end <= c.start)
        .filter(|o| o.node != c.node)
        .map(|o| o.end)
        .max();
    last_other.is_none_or(|end| list_separator(&text[end..c.start], cues))
}

/// Whether `gap` only separates the items of a list (see [`object_of_forward_phrase`]).
fn list_separator(gap: &str, cues: &Cues) -> bool {
    let mut depth = 0usize;
    let mut outside = String::new();
    for ch in gap.chars() {
        match ch {
            '(' => depth += 1,
            // An aside that opened before the gap: "codex (openai/codex, v0.3) and".
            ')' if depth == 0 => outside.clear(),
            ')' => depth -= 1,
            _ if depth == 0 => outside.push(ch),
            _ => {}
        }
    }
    outside
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '&' | '+' | '`' | '*'))
        .filter(|w| !w.is_empty())
        .all(|w| {
            ["and", "or", "plus", "the", "a", "an"].iter().any(|s| s.eq_ignore_ascii_case(w))
                || cues.compounds.iter().any(|(noun, _)| noun.eq_ignore_ascii_case(w))
        })
}

/// How far back from a mention the start of its inline-list item is looked for, in bytes.
const MAX_ITEM_PREFIX: usize = 64;

/// Whether the mention at `start` starts an item of the inline list after `colon`: at most
/// two words stand between it and the colon or the last separator (',', ';', '(', '+',
/// "and", "or"; not '/': "preferences/philosophy as A facts"). "Tested repos: A (13%), B and C" lists A, B and C; "Deep research into
/// old sessions revealed the vision: a home with preferences as A facts" lists nothing.
fn starts_an_item(text: &str, colon: usize, start: usize) -> bool {
    let from = text.floor_char_boundary(start.saturating_sub(MAX_ITEM_PREFIX)).max(colon + 1);
    let before = &text[from..start];
    let item = match before.rfind([',', ';', '(', '&', '+', '|']) {
        Some(i) => &before[i + 1..],
        None if from == colon + 1 => before,
        None => return false,
    };
    let words: Vec<&str> = item.split_whitespace().collect();
    let last_and = words.iter().rposition(|w| ["and", "or", "then"].iter().any(|s| s.eq_ignore_ascii_case(w)));
    words.len() - last_and.map_or(0, |i| i + 1) <= 2
}

/// How many of a lead-in's own mentions are read.
const MAX_LEAD_IN_NAMES: usize = 8;

/// How far above an item its lead-in may be (a long list is still one block).
const MAX_BLOCK_LINES: usize = 200;

impl Blocks {
    fn lead_in(
        &mut self,
        line_idx: usize,
        text: &str,
        lines: &[(usize, usize)],
        cues: &Cues,
        matcher: &NodeMatcher,
        skip_node: Option<&str>,
    ) -> Option<LeadIn> {
        if let Some(known) = self.cache.get(&line_idx) {
            return known.clone();
        }
        let found = find_lead_in(line_idx, text, lines, cues, matcher, skip_node);
        self.cache.insert(line_idx, found.clone());
        found
    }
}

fn find_lead_in(
    line_idx: usize,
    text: &str,
    lines: &[(usize, usize)],
    cues: &Cues,
    matcher: &NodeMatcher,
    skip_node: Option<&str>,
) -> Option<LeadIn> {
    let line_text = |i: usize| &text[lines[i].0..lines[i].1];
    let shape = line_shape(line_text(line_idx));
    let indent = match shape {
        LineShape::Item(indent) => indent,
        LineShape::TableRow => 0,
        _ => return None,
    };
    // Walk up over the block: items at this indentation or deeper, table rows,
    // continuation lines; one blank line may sit between the lead-in and the block.
    let mut i = line_idx;
    let mut block_start = line_idx;
    let mut blank_seen = false;
    let mut indent = indent;
    let lead = loop {
        if i == 0 || line_idx - i > MAX_BLOCK_LINES {
            return None;
        }
        i -= 1;
        let above = line_text(i);
        match line_shape(above) {
            LineShape::Item(d) if d >= indent && !blank_seen => block_start = i,
            LineShape::TableRow if shape == LineShape::TableRow && !blank_seen => block_start = i,
            LineShape::Item(d) if d < indent && !blank_seen => {
                // The parent item of a nested list leads it when it ends in ':'; otherwise
                // the nested list belongs to the parent's list and its lead-in.
                if above.trim_end().trim_end_matches(['*', '_']).ends_with(':') {
                    break i;
                }
                indent = d;
                block_start = i;
            }
            LineShape::Blank if !blank_seen => blank_seen = true,
            LineShape::LeadIn => break i,
            LineShape::Other if !blank_seen && above.starts_with([' ', '\t']) => block_start = i,
            _ => return None,
        }
    };
    // A lead-in line of several sentences leads with its last, the one that ends in the
    // colon: "Bumping DuckDB again reminded me how heavy the build is. Wrote a note:"
    // introduces the note's items, not a bump.
    let lead_start =
        sentence_breaks(text.as_bytes(), lines[lead].0, lines[lead].1).last().map_or(lines[lead].0, |&b| b + 1);
    let lead_text = &text[lead_start..lines[lead].1];
    // A lead-in that opens with a negation leads nothing: "Not just run tests once, but:"
    // lists what an agent should do, not tests run.
    let first_word = lead_text.trim_start_matches(['#', '-', '*', ' ', '_']).split_whitespace().next().unwrap_or("");
    let class = match cues.lead_in_class(lead_text) {
        _ if cues.is_negator(first_word) => None,
        Some((class, words, true)) if class != CueClass::Plain => Some((class, words)),
        _ => None,
    };
    // A block naming many distinct nodes is a bulk list: it inherits nothing, unless its
    // lead-in is about testing (a results table or a list of tested repos names many).
    if class.as_ref().is_none_or(|(class, _)| *class != CueClass::Testing) {
        let mut end = line_idx + 1;
        while end < lines.len() && end - line_idx < MAX_BLOCK_LINES {
            match line_shape(line_text(end)) {
                LineShape::Item(d) if d >= indent => end += 1,
                LineShape::TableRow if shape == LineShape::TableRow => end += 1,
                _ => break,
            }
        }
        let block = &text[lines[block_start].0..lines[end - 1].1];
        let mut distinct: Vec<usize> = Vec::new();
        for m in matcher.automaton.find_iter(block) {
            let node = matcher.terms[m.pattern().as_usize()].node;
            if skip_node.is_some_and(|skip| matcher.ids[node].eq_ignore_ascii_case(skip)) {
                continue;
            }
            if !distinct.contains(&node) {
                distinct.push(node);
                if distinct.len() >= cues.bulk_min_distinct_nodes {
                    return None;
                }
            }
        }
    }
    let label = lead_text.trim().trim_start_matches(['#', '-', '*', ' ']).replace("**", "");
    let label: String = label.trim().chars().take(80).collect();
    let cue = class.map(|(class, words)| (class, format!("{words} (lead-in \"{label}\", line {})", lead + 1)));
    let plan = cues
        .plan_label(lead_text)
        .map(|words| (words, Void::Hedge))
        .or_else(|| cues.plan_lead_in(lead_text))
        .map(|(words, void)| format!("{} \"{words}\" (lead-in \"{label}\", line {})", void.verb(), lead + 1));
    let ending =
        cues.ending_lead_in(lead_text).map(|words| format!("{words} (lead-in \"{label}\", line {})", lead + 1));
    // The nodes a learning lead-in names, not its own ("applies to our usearch setup" is
    // the project's); read only for a learning lead-in, the one kind that needs them.
    let mut names: Vec<usize> = Vec::new();
    let learning = matches!(cue, Some((CueClass::Learning, _)));
    for m in matcher.automaton.find_iter(lead_text).take(if learning { MAX_LEAD_IN_NAMES } else { 0 }) {
        let node = matcher.terms[m.pattern().as_usize()].node;
        let own = cues.owner_before(text, lead_start, lead_start + m.start(), skip_node).is_some();
        if !own && !names.contains(&node) && skip_node.is_none_or(|skip| !matcher.ids[node].eq_ignore_ascii_case(skip))
        {
            names.push(node);
        }
    }
    // "walked through what dojo itself pulls in:", "death-mountain's own setup:": the
    // block lists a repo's own things. Read only on a lead-in with "itself" or "'s own".
    let mut owner = None;
    if cues.owner_words.iter().any(|w| memchr::memmem::find(lead_text.as_bytes(), w.as_bytes()).is_some()) {
        for m in matcher.automaton.find_iter(lead_text).take(MAX_LEAD_IN_NAMES) {
            let node = matcher.terms[m.pattern().as_usize()].node;
            let own_project = skip_node.is_some_and(|skip| matcher.ids[node].eq_ignore_ascii_case(skip));
            if own_project || !is_word_boundary(lead_text.as_bytes(), m.start(), m.end()) {
                continue;
            }
            if let Some(word) = cues.owner_words.iter().find(|w| lead_text[m.end()..].starts_with(w.as_str())) {
                let why = format!(
                    "another repo's own \"{}{word}\" (lead-in \"{label}\", line {})",
                    &lead_text[m.start()..m.end()],
                    lead + 1
                );
                owner = Some((node, why));
                break;
            }
        }
    }
    Some(LeadIn { label, cue, plan, ending, names, owner })
}

/// A table row read against its table's header, once per row: which of its cells sit
/// in a repo column (`repo_columns` in `[lead_in]`) and which measure a run, and what
/// each column is (a column of removals or of the project's options says what its rows are). A markdown
/// table (`| Repo | Time |`) or a table of columns aligned by spaces in pasted output
/// (`repo   MRR@10   p50 ms`, in a fenced code block).
struct ResultsRow {
    /// Where each of the row's cells starts (after its `|`, or its first character).
    starts: Vec<usize>,
    /// The header cell of each column, trimmed.
    header: Vec<String>,
    header_line: usize,
    /// Whether the header names a repo column and no column of items
    /// ([`is_results_header`]): only then does a row say it measured a run.
    results: bool,
    /// Whether each cell of the row is a measurement of a run ("11.2s", "0 → 2,118", "13%",
    /// a number under "Recall"; `Cues::is_measurement`), and how many are.
    measured: Vec<bool>,
    measurements: usize,
    /// The row's verdict, if its last cell opens with one (`[ending] row_verdicts`): the
    /// cell's index and the verdict word.
    verdict: Option<(usize, String)>,
    /// The first cell before the verdict that holds a mention: the row's subject.
    subject_column: std::cell::OnceCell<usize>,
}

impl ResultsRow {
    /// The row `line_idx` of a table with a header and separator row above it (read at
    /// most [`MAX_BLOCK_LINES`] rows up), if its header names a repo column.
    fn read(text: &str, lines: &[(usize, usize)], line_idx: usize, cues: &Cues) -> Option<ResultsRow> {
        let line_text = |i: usize| &text[lines[i].0..lines[i].1];
        let mut header_line = line_idx;
        while header_line > 0
            && line_idx - header_line < MAX_BLOCK_LINES
            && line_shape(line_text(header_line - 1)) == LineShape::TableRow
        {
            header_line -= 1;
        }
        // A header, its separator row, then this row (not the header or the separator).
        if header_line + 1 >= line_idx
            || !line_text(header_line + 1).trim().chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
        {
            return None;
        }
        fn cells(line: &str) -> Vec<&str> {
            line.trim().trim_start_matches('|').trim_end_matches('|').split('|').map(str::trim).collect()
        }
        let header: Vec<String> = cells(line_text(header_line)).into_iter().map(str::to_string).collect();
        let results = is_results_header(&header, cues);
        let row = line_text(line_idx);
        // The row's cells, read once: for measurements and for its verdict.
        let row_cells = cells(row);
        // Only a results table's cells are read as measurements.
        let measured: Vec<bool> = match results {
            true => row_cells
                .iter()
                .enumerate()
                .map(|(i, cell)| cues.is_measurement(header.get(i).map_or("", String::as_str), cell))
                .collect(),
            false => Vec::new(),
        };
        let measurements = measured.iter().filter(|m| **m).count();
        let starts = memchr::memchr_iter(b'|', row.as_bytes()).map(|i| lines[line_idx].0 + i + 1).collect();
        let verdict = row_cells
            .iter()
            .rposition(|cell| !cell.is_empty())
            .filter(|&last| last > 0)
            .and_then(|last| Some((last, verdict_word(row_cells[last], &cues.row_verdicts)?.to_lowercase())));
        let subject_column = std::cell::OnceCell::new();
        Some(ResultsRow { starts, header, header_line, results, measured, measurements, verdict, subject_column })
    }

    /// The row `line_idx` of a table of aligned columns in a fenced code block: its header
    /// is the first line of the block's output (after the fence, a blank line or a `$ `
    /// command line, at most [`MAX_BLOCK_LINES`] up), and the row has as many cells as the
    /// header, cells being split by two or more spaces. Read only if the header names a
    /// repo column.
    fn read_aligned(
        text: &str,
        lines: &[(usize, usize)],
        fenced: &[bool],
        line_idx: usize,
        cues: &Cues,
    ) -> Option<ResultsRow> {
        let line_text = |i: usize| &text[lines[i].0..lines[i].1];
        let output_line = |i: usize| {
            let t = line_text(i).trim_start();
            fenced[i] && !t.is_empty() && !t.starts_with("```") && !t.starts_with("~~~") && !t.starts_with("$ ")
        };
        if !output_line(line_idx) {
            return None;
        }
        let mut header_line = line_idx;
        while header_line > 0 && line_idx - header_line < MAX_BLOCK_LINES && output_line(header_line - 1) {
            header_line -= 1;
        }
        if header_line == line_idx {
            return None;
        }
        let header: Vec<String> = aligned_cells(line_text(header_line)).map(|(_, c)| c.to_string()).collect();
        if header.len() < 2 || !is_results_header(&header, cues) {
            return None;
        }
        let row = line_text(line_idx);
        let cells: Vec<(usize, &str)> = aligned_cells(row).collect();
        if cells.len() != header.len() {
            return None;
        }
        let measured: Vec<bool> =
            cells.iter().zip(&header).map(|((_, cell), name)| cues.is_measurement(name, cell)).collect();
        let measurements = measured.iter().filter(|m| **m).count();
        let starts = cells.iter().map(|(at, _)| lines[line_idx].0 + at).collect();
        let (verdict, subject_column) = (None, std::cell::OnceCell::new());
        Some(ResultsRow { starts, header, header_line, results: true, measured, measurements, verdict, subject_column })
    }

    /// The ending of the mention `[start, end)` by the row's verdict: the mention is in the
    /// row's subject, its first cell before the verdict that holds a mention, and names the
    /// cell's repo by itself (a parenthesis and at most two more words beside it; `alone`:
    /// none, for an ambiguous name). "| kit (SvelteKit monorepo) | ts | drop - over-covered
    /// |" ends kit; "| urfave/cli | go | a name collision with gemini-cli | drop |" ends
    /// urfave/cli, not gemini-cli; "| duckdb | turso | removed |" ends duckdb, not its
    /// replacement. Mentions are read left to right; a cell longer than
    /// [`MAX_ROW_NAME_CELL`] is prose, never a name (and never rescanned).
    fn verdict_ending(&self, text: &str, start: usize, end: usize, alone: bool) -> Option<String> {
        let (verdict_cell, word) = self.verdict.as_ref()?;
        let column = self.column_index(start)?;
        if column >= *verdict_cell {
            return None;
        }
        // The first cell with a mention is the row's subject, whether or not it names the
        // repo by itself: "| the old duckdb backend | turso | removed |" ends neither.
        let subject = *self.subject_column.get_or_init(|| column);
        (subject == column && self.names_by_itself(text, start, end, alone)).then(|| word.clone())
    }

    /// Whether the mention `[start, end)` names its cell's repo by itself: a parenthesis
    /// and at most [`MAX_WORDS_BESIDE_ROW_NAME`] more words beside it (none when `alone`),
    /// in a cell of at most [`MAX_ROW_NAME_CELL`] bytes (a longer one is prose).
    fn names_by_itself(&self, text: &str, start: usize, end: usize, alone: bool) -> bool {
        let column = self.column_index(start);
        let Some((column, cell_end)) =
            column.and_then(|column| Some((column, self.starts.get(column + 1)?.checked_sub(1)?)))
        else {
            return false;
        };
        if end > cell_end || cell_end - self.starts[column] > MAX_ROW_NAME_CELL {
            return false;
        }
        let beside = words_outside_parentheses(&text[self.starts[column]..start])
            + words_outside_parentheses(&text[end..cell_end]);
        beside <= if alone { 0 } else { MAX_WORDS_BESIDE_ROW_NAME }
    }

    /// The index of the cell the byte `start` of this row is in.
    fn column_index(&self, start: usize) -> Option<usize> {
        self.starts.partition_point(|&s| s <= start).checked_sub(1)
    }

    /// The header cell of the column the byte `start` of this row is in.
    fn column(&self, start: usize) -> Option<&str> {
        let column = self.column_index(start)?;
        self.header.get(column).map(String::as_str)
    }

    /// The results cue of a mention at `start` in this row: it is in a repo column and
    /// another cell holds a measurement.
    fn cue(&self, start: usize, cues: &Cues) -> Option<String> {
        if !self.results {
            return None;
        }
        let column = self.column_index(start)?;
        let name = self.header.get(column)?;
        // Another cell than the mention's: O(1), however many mentions the row holds.
        let counted = self.measurements > usize::from(self.measured.get(column).copied().unwrap_or(false));
        (cell_named(name, &cues.repo_columns) && counted)
            .then(|| format!("results table (column \"{name}\", line {})", self.header_line + 1))
    }
}

/// How many words a cell may hold beside a repo's name (outside parentheses) for a row's
/// verdict to end the repo: "Codex CLI adapter (openai/codex)".
const MAX_WORDS_BESIDE_ROW_NAME: usize = 2;

/// The longest cell, in bytes, that can be a row's name for its verdict.
const MAX_ROW_NAME_CELL: usize = 160;

/// The words of `text` outside parentheses (an unmatched one opens or closes at the edge).
fn words_outside_parentheses(text: &str) -> usize {
    let mut depth = 0usize;
    let mut words = 0;
    let mut in_word = false;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let wordy = depth == 0 && c.is_alphanumeric();
        if wordy && !in_word {
            words += 1;
        }
        in_word = wordy;
    }
    words
}

/// Whether a table's header cells make it a table of results per repo: a repo column
/// (`repo_columns`), and no column of items (`item_columns`: `score  repo  path` lists
/// search hits).
fn is_results_header(header: &[String], cues: &Cues) -> bool {
    header.iter().any(|c| cell_named(c, &cues.repo_columns))
        && !header.iter().any(|c| cell_named(c, &cues.item_columns))
}

/// The longest header cell read as a column's name, in bytes.
const MAX_HEADER_NAME: usize = 64;

/// Whether a table cell (emphasis and code marks trimmed), or one of its alternatives split
/// by '/', is one of `names` (lower-cased ASCII words), compared in place: it runs for
/// every table-row mention, on at most [`MAX_HEADER_NAME`] bytes.
fn cell_named(cell: &str, names: &[String]) -> bool {
    // A longer cell is prose, never a column's name (and is not split per mention).
    if cell.len() > MAX_HEADER_NAME {
        return false;
    }
    // "| Repo / crate |" names both.
    cell.split('/').any(|part| {
        let part = part.trim().trim_matches(['*', '_', '`']);
        names.iter().any(|n| n.eq_ignore_ascii_case(part))
    })
}

/// The cells of a line of aligned columns: runs of text split by two or more spaces (or a
/// tab), each with its byte offset in the line.
fn aligned_cells(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = line.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t') {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() {
            let gap = bytes[at] == b'\t' || (bytes[at] == b' ' && bytes.get(at + 1) == Some(&b' '));
            if gap {
                break;
            }
            at += 1;
        }
        Some((start, line[start..at].trim_end()))
    })
}

/// Which lines sit in a fenced code block (its fence lines included), and which sit inside
/// one whose info string says it is a diff (```diff, ```patch; its fence lines are not).
fn fenced_lines(text: &str, lines: &[(usize, usize)]) -> (Vec<bool>, Vec<bool>) {
    // While inside a block: whether it is a diff.
    let mut block: Option<bool> = None;
    let mut fenced = Vec::with_capacity(lines.len());
    let mut in_diff = Vec::with_capacity(lines.len());
    for &(a, b) in lines {
        let t = text[a..b].trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            block = match block {
                Some(_) => None,
                None => {
                    let info = t.trim_start_matches(['`', '~']).trim_start();
                    Some(info.starts_with("diff") || info.starts_with("patch"))
                }
            };
            fenced.push(true);
            in_diff.push(false);
        } else {
            fenced.push(block.is_some());
            in_diff.push(block == Some(true));
        }
    }
    (fenced, in_diff)
}

/// `Some(cue)` when the mention `[start, end)`, a repo path, is given to a testing command
/// (`repo_flag_commands`): `$ patina ingest ~/.patina/cache/repos/codex`. The command
/// starts its line or code span (after a `$ ` prompt or a list marker) and has at most
/// four words before the path.
fn command_on_repo_path(
    text: &str,
    layout: &Layout,
    line_start: usize,
    line_stop: usize,
    start: usize,
    end: usize,
    cues: &Cues,
) -> Option<String> {
    let (token_start, token_end) = layout.token_around(start, end, line_start, line_stop);
    let window = text.floor_char_boundary(token_start.saturating_sub(MAX_COMMAND)).max(line_start);
    let command_start = match text[window..token_start].rfind('`') {
        Some(i) => window + i + 1,
        None if window == line_start => line_start,
        None => return None,
    };
    let command = text[command_start..token_start].trim_start().trim_start_matches(['$', '-', '*', '>', ' ']);
    let words: Vec<&str> = command.split_whitespace().collect();
    let testing = words.iter().any(|w| cues.is_testing_command(w));
    (testing && words.len() <= 4).then(|| format!("{} {}", command.trim_end(), &text[token_start..token_end]))
}

/// How many lines after a `cd` into a repo the command run there is looked for.
const MAX_LINES_AFTER_CD: usize = 12;
/// How long a `cd`'s directory before the mention may be, in bytes.
const MAX_CD_DIR: usize = 256;

/// `Some(cue)` when the mention ends the directory of a shell `cd` (`$ cd
/// ~/src/death-mountain`, `$ cd fixtures/death-mountain && patina yolo up`) and the
/// project's own testing command (`project`, then a `repo_flag_commands` word among its
/// next three words) runs there: after `&&` or `;` on the same line, or on a later `$ `
/// line of the same block before the next `cd`, blank line or fence. The command runs on
/// its working directory, the repo, as it would on `--repo X`. A `cd` followed by other
/// tools (`git pull`, `devcontainer up`, `rg`) runs nothing of the project's.
fn cd_into_repo_then_command(
    text: &str,
    line_start: usize,
    line_stop: usize,
    start: usize,
    end: usize,
    cues: &Cues,
    project: Option<&str>,
) -> Option<String> {
    let project = project?;
    // Every look is bounded (a long line of mentions stays linear): the directory within
    // MAX_CD_DIR bytes before the mention, the same line's commands within MAX_COMMAND
    // bytes after it, the later lines within MAX_LINES_AFTER_CD lines of MAX_COMMAND bytes.
    let window = text.floor_char_boundary(start.saturating_sub(MAX_CD_DIR)).max(line_start);
    let before = &text[window..start];
    // The directory: the word after `cd`, ending with the mention (or a folder inside it).
    let dir_start = window + before.rfind(|c: char| c.is_whitespace()).map(|i| i + 1)?;
    let dir_prefix = &text[dir_start..start];
    if !(dir_prefix.is_empty() || dir_prefix.ends_with('/')) || dir_prefix.contains(['`', '"', '\'']) {
        return None;
    }
    let head_from = text.floor_char_boundary(dir_start.saturating_sub(16)).max(line_start);
    let head = text[head_from..dir_start].trim_end();
    let opens_command = |rest: &str| {
        let rest = rest.trim_end();
        rest.is_empty() && head_from == line_start
            || rest.ends_with(['$', '`', '&', ';'])
            || head_from == line_start && rest.trim_start_matches(['-', '*', ' ']).is_empty()
    };
    head.strip_suffix("cd").filter(|rest| opens_command(rest))?;
    let after = &text[end..text.floor_char_boundary((end + MAX_COMMAND).min(line_stop))];
    let dir_rest_len = after.find(char::is_whitespace).unwrap_or(after.len());
    if !(after[..dir_rest_len].is_empty() || after.starts_with('/')) || after[..dir_rest_len].contains('`') {
        return None;
    }
    let runs_here = |command: &str| -> bool {
        let command = command.trim().trim_start_matches(['$', ' ']);
        let mut words = command.split_whitespace();
        words.next().is_some_and(|w| w.eq_ignore_ascii_case(project))
            && words.take(3).any(|w| cues.is_testing_command(w))
    };
    let shown = |command: &str| {
        format!("cd {}{} … {}", dir_prefix, &text[start..end], command.trim().trim_start_matches(['$', ' ']))
    };
    // The same line: `cd X && patina yolo up`.
    let rest = &after[dir_rest_len..];
    for part in rest.split("&&").flat_map(|p| p.split(';')).skip(1) {
        let part = part.trim_end_matches('`');
        if runs_here(part) {
            return Some(shown(part));
        }
        if part.trim_start().starts_with("cd ") {
            return None;
        }
    }
    // Later lines of the block: `$ cd ~/src/death-mountain && git pull`, then `$ patina init .`.
    let mut at = line_stop;
    for _ in 0..MAX_LINES_AFTER_CD {
        let from = at + 1;
        if from >= text.len() {
            return None;
        }
        let stop = memchr::memchr(b'\n', &text.as_bytes()[from..]).map_or(text.len(), |i| from + i);
        let t = text[from..text.floor_char_boundary(stop.min(from + MAX_COMMAND))].trim_start();
        if t.trim_end().is_empty()
            || t.starts_with("```")
            || t.starts_with("~~~")
            || t.starts_with("$ cd ")
            || t.starts_with("cd ")
        {
            return None;
        }
        if t.starts_with("$ ") && runs_here(t) {
            return Some(shown(t));
        }
        at = stop;
    }
    None
}

/// How far before a mention a dependency tree's branch or a package key is read, in bytes.
const MAX_MANIFEST_PREFIX: usize = 48;

/// How far above a Cargo.lock entry its block is read for the lock file's path, in bytes.
const MAX_LOCK_BLOCK_BYTES: usize = 4096;

/// Whether a line's path to a lock file goes through a repo folder into another repo
/// than `project` (`~/.patina/repos/dojo/Scarb.lock`; not `~/src/patina/Cargo.lock`).
fn lock_of_a_checkout(line: &str, cues: &Cues, project: Option<&str>) -> bool {
    let segments = line.split(['/', '\\']);
    segments.clone().zip(segments.skip(1)).any(|(folder, repo)| {
        cues.repo_path_segments.iter().any(|s| s.eq_ignore_ascii_case(folder))
            && project.is_none_or(|p| !repo.eq_ignore_ascii_case(p))
            && !repo.contains('.')
    })
}

/// How many characters of a build output's line are shown in its cue.
const MAX_CUE_LINE: usize = 80;

/// How many characters of a dependency tree's version are shown in its cue.
const MAX_VERSION_SHOWN: usize = 24;

/// A manifest entry naming the mention that [`Cues::dependency_line`] (`name = "1.2"`)
/// does not see, read in a bounded window before it:
/// - a branch of a dependency tree, `cargo tree` (`├── scryer-prolog v0.9.4`) or `npm ls`
///   (`└─┬ @google/gemini-cli@0.11.2`): the branch's drawing only, then the name, then its
///   version;
/// - a Cargo.lock entry: `name = "usearch"` right under `[[package]]` (pasted or in a diff);
/// - the value of a `package` key: an adapter's `package = "opencode-ai"`, Cargo's rename
///   `sql = { package = "libsql", … }`, package.json's `"package": "libsql"`;
/// - an add command (`cargo add scryer-prolog@0.9`, `[using] add_commands`) and cargo's answer
///   ("Adding scryer-prolog v0.9.4 to dependencies").
fn manifest_entry(
    cues: &Cues,
    text: &str,
    line_start: usize,
    start: usize,
    end: usize,
    project: Option<&str>,
) -> Option<String> {
    let from = text.floor_char_boundary(start.saturating_sub(MAX_MANIFEST_PREFIX)).max(line_start);
    let before = &text[from..start];
    let after = &text[end..text.ceil_char_boundary((end + 2).min(text.len()))];
    let name = &text[start..end];
    let versioned = |rest: &str| {
        let mut chars = rest.chars();
        matches!((chars.next(), chars.next()), (Some(' '), Some('v')) | (Some('@'), Some('0'..='9')))
    };
    let branch = from == line_start
        && before.contains(['─', '-'])
        && before.trim_end().ends_with(['─', '┬', '-'])
        && before.chars().all(|c| matches!(c, ' ' | '\t' | '│' | '├' | '└' | '─' | '┬' | '|' | '`' | '-' | '+'));
    // `cargo add scryer-prolog@0.9 --no-default-features`, and what cargo answers:
    // "Adding scryer-prolog v0.9.4 to dependencies".
    if let Some(command) = command_before(before, &cues.add_commands, b"") {
        return Some(format!("`{command}{name}`"));
    }
    if before.trim_start().trim_start_matches(['`', '>', ' ']) == "Adding " && versioned(after) {
        return Some(format!("`Adding {name}` (a package manager's output)"));
    }
    // cargo's build output names a crate of the build: "   Compiling usearch v2.17.1",
    // "failed to run custom build command for `usearch v2.17.1`", "warning:
    // usearch@2.17.1: …", a `--timings` row ("usearch v2.17.0 (build script)  37.1s") or
    // `cargo tree`'s root ("usearch v2.17.2"). Not a crate of a checkout's build (a repo
    // path in parentheses after the version: cargo run in the repo), nor the root of an
    // inverted tree whose first dependent is another crate (`cargo tree -i duckdb`, then
    // "└── codegraph-store"): another crate's dependency.
    let bare = before.trim_start();
    let rest = &text[end..];
    let cargo_version = rest.strip_prefix(" v").is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    let row = from == line_start && bare.is_empty();
    let compiled = (bare == "Compiling " || bare.ends_with("build command for `") || row) && cargo_version
        || bare == "warning: " && versioned(after);
    if compiled {
        let line_stop = memchr::memchr(b'\n', rest.as_bytes()).map_or(text.len(), |i| end + i);
        let dependent = text[line_stop..]
            .strip_prefix('\n')
            .and_then(|next| next.trim_start().strip_prefix(['└', '├']))
            .map(|branch| branch.trim_start_matches(['─', ' ']));
        let of_another = row
            && dependent
                .is_some_and(|d| project.is_none_or(|p| !d.get(..p.len()).is_some_and(|w| w.eq_ignore_ascii_case(p))));
        if !of_another && !lock_of_a_checkout(&text[end..line_stop], cues, project) {
            let line: String = text[line_start..line_stop].trim().chars().take(MAX_CUE_LINE).collect();
            return Some(format!("cargo's build output \"{line}\""));
        }
    }
    if branch && versioned(after) {
        let rest = text[end..].strip_prefix(' ').unwrap_or(&text[end..]);
        let version: String = rest.chars().take(MAX_VERSION_SHOWN).take_while(|c| !c.is_whitespace()).collect();
        let version = if after.starts_with(' ') { format!(" {version}") } else { version };
        return Some(format!("dependency tree `{}{name}{version}`", before.trim_start()));
    }
    // A Cargo.lock entry, pasted or in a diff: `[[package]]` then `name = "usearch"`. The
    // line opens with `name = "` (so one mention per line gets this far) and the block
    // above is read within [`MAX_LOCK_BLOCK_BYTES`]. Not a lock file of a repo's checkout
    // (`# ~/.patina/repos/dojo/Scarb.lock` above it in the block): that lists the repo's
    // dependencies.
    if from == line_start && line_start > 0 && before.trim_start_matches(['+', '-', ' ']).trim_end() == "name = \"" {
        let window = text.floor_char_boundary(line_start.saturating_sub(MAX_LOCK_BLOCK_BYTES));
        let mut above = text[window..line_start - 1].rsplit('\n');
        let under_package =
            above.next().is_some_and(|l| l.trim_start_matches(['+', '-', ' ']).trim_end() == "[[package]]");
        let checkout = || {
            above
                .take_while(|l| !l.trim_start().starts_with("```"))
                .any(|l| l.contains(".lock") && lock_of_a_checkout(l, cues, project))
        };
        if under_package && !checkout() {
            return Some(format!("Cargo.lock entry `name = \"{name}\"`"));
        }
    }
    let key = before.strip_suffix('"')?.trim_end();
    let key = key.strip_suffix(['=', ':'])?.trim_end().trim_end_matches('"');
    let word_start = key.len().checked_sub("package".len())?;
    let named = key.get(word_start..).is_some_and(|k| k.eq_ignore_ascii_case("package"))
        && !key[..word_start].ends_with(|c: char| c.is_alphanumeric() || c == '_');
    named.then(|| format!("package key `{}{name}\"`", &before[word_start..]))
}

/// The first of `commands` in `before` (the text up to a mention) that only argument bytes
/// (letters, digits, `-_=@./`, a space, and any of `also`) separate from the mention:
/// `cargo add scryer-prolog@0.9 --no-default-features ` before `loro`.
fn command_before<'c>(before: &str, commands: &'c [String], also: &[u8]) -> Option<&'c str> {
    commands.iter().map(String::as_str).find(|cmd| {
        before.find(cmd).is_some_and(|at| {
            before[at + cmd.len()..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b" -_=@./".contains(&b) || also.contains(&b))
        })
    })
}

/// How a cargo feature named after a repo is written right before it: the flag of a
/// command, or an optional dependency in a `[features]` table.
const FEATURE_FLAGS: [&str; 4] = ["--features ", "--features=", "-F ", "dep:"];

/// The flag right before the mention at `start` that makes it one of the project's cargo
/// features (`--features turso`, `"dep:turso"`), if any, not on a diff's removed line. Read
/// only on the mention's line.
fn feature_flag(text: &str, line_start: usize, start: usize) -> Option<&'static str> {
    // A diff's removed line (`-prolog = ["dep:scryer-prolog"]`) takes the feature away.
    let line = &text[line_start..];
    if line.starts_with('-') && !line.starts_with("- ") {
        return None;
    }
    let from = text.floor_char_boundary(start.saturating_sub(12)).max(line_start);
    let before = text[from..start].trim_end_matches(['`', '"']);
    FEATURE_FLAGS.into_iter().find(|flag| {
        before.ends_with(flag)
            && (*flag != "-F " || before[..before.len() - flag.len()].ends_with(|c: char| c.is_whitespace()))
    })
}

/// How far before a mention the subject of another repo's dependency verb is looked for.
const MAX_DEPENDENCY_SUBJECT: usize = 160;

/// Another repo's own dependency: a verb of `[hedge] dependency_verbs` (`verbs`, the line's,
/// in order) before the mention in its clause (from `from`), with another node named
/// before the verb ("dojo pulls in `snforge_std` from starknet-foundry": starknet-foundry
/// is dojo's). Binary searches and a bounded window.
fn dependency_of_another(
    text: &str,
    line: &[Candidate],
    verbs: &[(usize, usize)],
    c: &Candidate,
    from: usize,
) -> Option<String> {
    let clause = from;
    let from = c.start.saturating_sub(MAX_DEPENDENCY_SUBJECT).max(from);
    let (verb_at, verb_end) = *verbs[..verbs.partition_point(|v| v.1 <= c.start)].last().filter(|v| v.0 >= from)?;
    let verb = &text[verb_at..verb_end];
    // The nearest before the verb, among those in the window: a bounded walk back.
    let before_verb = line.partition_point(|o| o.start < verb_at);
    let other = |o: &&Candidate| o.node != c.node && o.end <= verb_at;
    if let Some(subject) = line[..before_verb].iter().rev().take_while(|o| o.start >= from).find(other) {
        return Some(format!("another repo's own dependency \"{} {verb}\"", &text[subject.start..subject.end]));
    }
    // "Studied memista; it wraps usearch": a clause whose subject is a pronoun, right
    // before the verb (one word between at most: "it also wraps"), speaks of the other
    // repo named last before it on the line. Not "its replacement wraps usearch": a
    // possessive's noun may be the project's.
    let lead = text[clause..verb_at].trim_start_matches(|c: char| !c.is_alphanumeric());
    let mut words = lead.split_whitespace();
    let pronoun = words.next().and_then(|w| PRONOUN_SUBJECTS.iter().find(|p| w.eq_ignore_ascii_case(p)))?;
    if words.count() > 1 {
        return None;
    }
    let antecedent = line[..line.partition_point(|o| o.start < clause)]
        .iter()
        .rev()
        .take_while(|o| o.start + MAX_DEPENDENCY_SUBJECT >= clause)
        .find(other)?;
    Some(format!(
        "another repo's own dependency \"{lead}{verb}\" ({pronoun}: {})",
        &text[antecedent.start..antecedent.end]
    ))
}

/// Pronouns that, opening a clause, make its subject the repo named last before it.
const PRONOUN_SUBJECTS: [&str; 2] = ["it", "they"];

/// How many bytes on each side of a mention an ending phrase (with its filler and object
/// words) may take.
const ENDING_WINDOW: usize = 120;

/// The manifest entry after the mention at `[start, end)` when the mention opens a diff's
/// removed line, right after its '-' (`-scryer-prolog = { version = "0.9.4" }`), and no
/// added line of the same hunk names it again (`+scryer-prolog = "0.9.5"` is a change): the
/// dependency taken out, an ending. (`+turso = "0.4"`, an added line, reads as any pasted
/// dependency line does.)
fn removed_dependency<'t>(text: &'t str, start: usize, end: usize, cues: &Cues) -> Option<&'t str> {
    let bytes = text.as_bytes();
    let opens_removed_line = start >= 1 && bytes[start - 1] == b'-' && (start == 1 || bytes[start - 2] == b'\n');
    if !opens_removed_line {
        return None;
    }
    let line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(text.len(), |i| end + i);
    let entry = cues.dependency_line(text, end, line_end)?;
    let name = &text[start..end];
    // The hunk: the lines around that a diff writes (' ', '-' or '+' first), at most
    // MAX_HUNK_LINES each way.
    let is_hunk_line = |line: &str| line.starts_with([' ', '-', '+']) && !line.trim_start().starts_with("```");
    let readded = |line: &str| {
        line.strip_prefix('+').is_some_and(|rest| {
            rest.get(..name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name))
                && rest[name.len()..].trim_start().starts_with(['=', '"'])
        })
    };
    let (before, after) = (&text[..start - 1], &text[line_end..]);
    let earlier = before.lines().rev().take(MAX_HUNK_LINES).take_while(|l| is_hunk_line(l));
    let later = after.lines().skip(1).take(MAX_HUNK_LINES).take_while(|l| is_hunk_line(l));
    if earlier.chain(later).any(readded) {
        return None;
    }
    Some(entry)
}

/// How many lines a diff's hunk is read each way from a removed line.
const MAX_HUNK_LINES: usize = 64;

/// The ending cue of a mention, if a removal or contradiction stands right at it.
fn ending_cue(text: &str, s_start: usize, s_end: usize, start: usize, end: usize, cues: &Cues) -> Option<String> {
    // Ending phrases stand right at the mention: a bounded window on each side keeps a
    // mention in a huge sentence O(1).
    let from = text.floor_char_boundary(start.saturating_sub(ENDING_WINDOW).max(s_start));
    let to = text.ceil_char_boundary((end + ENDING_WINDOW).min(s_end));
    let before = text[from..start].to_lowercase();
    let after = text[end..to].to_lowercase();
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
            .filter(|w| !w.is_empty())
            .map(|w| w.trim_matches('\'').to_string())
            .collect()
    };
    let before_words = words(&before);
    let after_words = words(&after);
    let is_filler = |w: &str| cues.ending_filler.iter().any(|f| f == w);
    let is_object = |w: &str| cues.ending_objects.iter().any(|f| f == w);
    // `$ cargo remove loro`: the inverse of `[using] add_commands`.
    if let Some(command) = command_before(&before, &cues.ending_commands, b"`") {
        return Some(command.trim_end().to_string());
    }
    if let Some(verdict) = label_verdict(text, s_start, start, end, cues) {
        return Some(verdict.to_string());
    }
    // The mention ends its clause, or the next word is an object word, or one word then
    // an object word ("the dagger release pipeline").
    let clause_ends_after = {
        let rest = after.trim_start_matches(['`', '*', '"', '\'', ')', ']']);
        let compound_then_object = match after_words.get(..2) {
            Some([word, object]) => {
                is_object(object)
                    && !is_object(word)
                    && !is_filler(word)
                    && rest.strip_prefix(' ').is_some_and(|r| r.starts_with(&format!("{word} {object}")))
            }
            _ => false,
        };
        rest.is_empty()
            || rest.starts_with([',', '.', ';', ':', '(', '!', '?'])
            || rest.trim_start().starts_with('(')
            || rest.starts_with(" and ")
            || rest.starts_with(" - ")
            || rest.starts_with(" → ")
            || after_words.first().is_some_and(|w| is_object(w))
            || compound_then_object
    };
    if clause_ends_after {
        let mut n = before_words.len();
        while n > 0 && is_filler(&before_words[n - 1]) {
            n -= 1;
        }
        let head = before_words[..n].join(" ");
        for phrase in &cues.ending_before {
            if head == *phrase || head.ends_with(&format!(" {phrase}")) {
                // "We almost removed the gemini-cli adapter, but kept it": not removed.
                let rest = head[..head.len() - phrase.len()].trim_end();
                let rest_words: Vec<&str> = rest.split(' ').collect();
                let near = (1..=2).any(|skip| {
                    let upto = rest_words.len().saturating_sub(skip - 1);
                    let before = rest_words[..upto].join(" ");
                    cues.ending_near_misses.iter().any(|m| before == *m || before.ends_with(&format!(" {m}")))
                });
                if near {
                    return None;
                }
                // "Removed the LiveStore credit from …": a claim withdrawn, named so. Only a
                // removal's (not "replaced the X credit with a fuller one"), and only in the
                // mention's clause ("Removed the dagger pipeline (credit: alice)" is not).
                let is_credit = |w: &str| cues.credit_words.iter().any(|c| c == w);
                let clause = after.split([',', ';', '(', ')', ':', '.']).next().unwrap_or("");
                let credit = cues
                    .credit_removals
                    .contains(phrase)
                    .then(|| {
                        words(clause)
                            .into_iter()
                            .take(MAX_CREDIT_WORDS)
                            .take_while(|w| {
                                // "Removed dagger with credit to alice" names whose credit the
                                // removal was, not a credit removed.
                                let preposition = matches!(w.as_str(), "with" | "for" | "to" | "in");
                                is_filler(w) || is_credit(w) || is_object(w) && !preposition
                            })
                            .find(|w| is_credit(w))
                    })
                    .flatten();
                return Some(match credit {
                    Some(credit) => format!("{phrase} \u{2026} {credit}"),
                    None => phrase.clone(),
                });
            }
        }
    }
    let possessive = after.starts_with("'s") || after.starts_with("\u{2019}s");
    if let Some(denied) = denied_claim(&before_words, possessive, cues) {
        return Some(denied);
    }
    let mut k = 0;
    while k < after_words.len() && (is_filler(&after_words[k]) || is_object(&after_words[k])) && k < 3 {
        k += 1;
    }
    let tail = after_words[k..].join(" ");
    let starts =
        |phrase: &str| tail == phrase || tail.starts_with(phrase) && tail.as_bytes().get(phrase.len()) == Some(&b' ');
    if let Some(phrase) = cues.ending_after.iter().find(|p| starts(p)) {
        return Some(phrase.clone());
    }
    // "Dead optional DuckDB feature removed from Cargo.toml": a participle after an object
    // word; never right after the name ("turso removed the old sync API" is turso's change).
    if after_words[..k].iter().any(|w| is_object(w))
        && let Some(participle) = cues.ending_participles.iter().find(|p| starts(p))
    {
        return Some(format!("{} {participle}", after_words[k - 1]));
    }
    None
}

/// How many words after a removed mention are read for a credit ("from the credits").
const MAX_CREDIT_WORDS: usize = 3;

/// How far before a mention its item's start may be for the mention to be the item's label.
const MAX_LABEL_PREFIX: usize = 12;

/// Words that may follow an item's verdict: when, how, or nothing ("removed on Dec 10",
/// "dropped entirely"), not an object ("removed the old sync API" is a change of its own).
const VERDICT_FOLLOWERS: [&str; 12] =
    ["on", "in", "since", "after", "from", "with", "as", "today", "yesterday", "entirely", "completely", "for"];

/// The ending verdict of an item whose label is the mention: "- scryer-prolog: removed on
/// Dec 10, replaced by the native evaluator", "**loro** - dropped on the 12th". The
/// verdict is a word that, heading a list, ends its items (`[ending] lead_ins`); it stands
/// right after the label's colon or dash, with nothing after it but when or how. Bounded:
/// a few bytes before the mention and one word after the colon are read.
fn label_verdict<'t>(text: &'t str, s_start: usize, start: usize, end: usize, cues: &Cues) -> Option<&'t str> {
    if start - s_start > MAX_LABEL_PREFIX
        || !text[s_start..start].trim_start_matches(|c: char| " -*+`#>.".contains(c) || c.is_ascii_digit()).is_empty()
    {
        return None;
    }
    let after = &text[end..text.floor_char_boundary((end + 48).min(text.len()))];
    let after = after.trim_start_matches(['*', '`', '"', ']']);
    let rest = [":", " -", " \u{2013}", " \u{2014}"].iter().find_map(|mark| after.strip_prefix(mark))?;
    verdict_word(rest, &cues.ending_lead_ins)
}

/// The verdict `rest` opens with: one of `words` (past emphasis marks), with nothing after
/// it but when or how ([`VERDICT_FOLLOWERS`], a month, punctuation or the end): "removed
/// on Dec 10", "dropped Jun 14", "drop - the checkout 404s"; not "removed the old sync API"
/// or "dropped 2 symbols". Reads one word past the verdict.
fn verdict_word<'t>(rest: &'t str, words: &[String]) -> Option<&'t str> {
    let rest = rest.trim_start_matches([' ', '*', '_']);
    let word_end = rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
    let word = &rest[..word_end];
    if word.is_empty() || !words.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        return None;
    }
    let tail = rest[word_end..].trim_start_matches(['*', '_']);
    let next = tail.strip_prefix(' ').map(|t| &t[..t.find(|c: char| !c.is_alphabetic()).unwrap_or(t.len())]);
    let ends_there = match next {
        Some(w) if !w.is_empty() => {
            // A month only before a number ("Jun 15", not "drop may be premature"); "from"
            // not before one ("dropped from 40s to 12s" is a change of a measure).
            let numbered =
                || tail[1 + w.len()..].strip_prefix(' ').is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()));
            VERDICT_FOLLOWERS.iter().any(|f| f.eq_ignore_ascii_case(w))
                && !(w.eq_ignore_ascii_case("from") && numbered())
                || MONTHS.split(' ').any(|m| m.eq_ignore_ascii_case(w)) && numbered()
        }
        _ => {
            let tail = tail.trim_start_matches(' ');
            let dash = tail.strip_prefix(['-', '\u{2013}', '\u{2014}']);
            // A dash as a mark ("drop - over-covered"), not glued to a word ("drop-in").
            tail.is_empty()
                || tail.starts_with([',', '.', ';', ')', '(', ':', '\n', '\r', '|'])
                || dash.is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
        }
    };
    ends_there.then_some(word)
}

/// Month names, as a verdict's when: "removed Jun 15".
const MONTHS: &str = "jan january feb february mar march apr april may jun june jul july aug august \
                      sep sept september oct october nov november dec december";

/// Words that make the word after them a noun: "rendered at launch", "the launch".
const NOUN_MARKERS: [&str; 12] =
    ["at", "on", "the", "a", "an", "after", "before", "until", "since", "of", "its", "our"];

/// Whether a one-word phrase pointing forward ("launch") stands as a noun: right after a
/// preposition or an article in its sentence (from `s_start`). Not a gerund or a
/// participle: "after launching gemini-cli" and "the launched gemini-cli" launch it.
fn used_as_noun(text: &str, s_start: usize, hit: &CueHit) -> bool {
    // Bounded: a one-word phrase is short, and only a few bytes before it are read.
    let phrase = &text[hit.start..hit.end];
    if phrase.len() > MAX_NOUN_PHRASE || phrase.contains(' ') {
        return false;
    }
    let phrase = phrase.to_ascii_lowercase();
    if phrase.ends_with("ing") || phrase.ends_with("ed") {
        return false;
    }
    let from = text.floor_char_boundary(hit.start.saturating_sub(MAX_NOUN_PHRASE)).max(s_start);
    let before = &text[from..hit.start];
    let trimmed = before.trim_end_matches([' ', '*', '`']);
    let word = trimmed.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    trimmed.len() < before.len() && NOUN_MARKERS.iter().any(|m| m.eq_ignore_ascii_case(word))
}

/// The longest one-word phrase [`used_as_noun`] reads, and how far before it it looks.
const MAX_NOUN_PHRASE: usize = 16;

/// How far apart the two repos of a move ("from A … to B") may stand, in bytes.
const MAX_MOVE_GAP: usize = 80;

/// Whether the learning phrase `hit`, ending in "from", names a move from one repo to
/// another and `c` is either: "Ported the stats code from the duckdb Appender API to
/// turso's connection", "switched the store from duckdb to turso". The repo right after
/// "from" is left and the one after "to"/"into" is gone to; neither is learned from.
/// "Ported the scheduler from dojo to our runtime" still learns from dojo.
fn moved_between_repos(text: &str, line: &[Candidate], c: &Candidate, hit: &CueHit, s_end: usize) -> bool {
    let phrase = &text.as_bytes()[hit.start..hit.end];
    let from_ends = phrase.len() >= 4 && phrase[phrase.len() - 4..].eq_ignore_ascii_case(b"from");
    if !from_ends || hit.end > c.start {
        return false;
    }
    let after = &line[line.partition_point(|o| o.start < hit.end)..];
    let Some(source) = after.first().filter(|o| o.end <= s_end) else { return false };
    let is_to = |w: &str| w.eq_ignore_ascii_case("to") || w.eq_ignore_ascii_case("into");
    after[1..].iter().take_while(|o| o.end <= s_end && o.start <= source.end + MAX_MOVE_GAP).any(|dest| {
        let gap = &text[source.end..dest.start];
        // "to" right before the destination, an article at most between: not the
        // infinitive of "from duckdb to speed up turso writes".
        let mut words = gap.split(|ch: char| !ch.is_alphanumeric()).filter(|w| !w.is_empty()).rev();
        let to_before = match (words.next(), words.next()) {
            (Some(last), _) if is_to(last) => true,
            (Some(article), Some(to)) => {
                ["the", "a", "an"].iter().any(|a| a.eq_ignore_ascii_case(article)) && is_to(to)
            }
            _ => false,
        };
        dest.node != source.node
            && (c.node == source.node || c.start >= dest.start)
            && !gap.contains([';', '.', ',', '(', ')'])
            && to_before
    })
}

/// Where the next repo after the mention `c` on its line starts (`line_stop` if none):
/// the end of what a pronoun after `c` can point back to. Bounded: only candidates within
/// the reach of a pronoun ([`MAX_PRONOUN_STUDY_AFTER`] bytes after `c`) are looked at.
fn next_other_repo(line: &[Candidate], c: &Candidate, line_stop: usize) -> usize {
    let reach = c.end + MAX_PRONOUN_STUDY_AFTER;
    line[line.partition_point(|o| o.start < c.end)..]
        .iter()
        .take_while(|o| o.start < reach)
        .find(|o| o.node != c.node)
        .map_or(line_stop.min(reach), |o| o.start)
}

/// How many sentences after a mention's one that opens with a verb of taking may stand,
/// and how far from the mention (bytes): see [`taking_in_a_later_sentence`].
const MAX_TAKING_SENTENCES: usize = 2;
const MAX_TAKING_AFTER: usize = 640;

/// One of the [`MAX_TAKING_SENTENCES`] sentences after the mention's (ending at `s_end`) on
/// its line, starting within [`MAX_TAKING_AFTER`] bytes and no other repo named before its
/// end, that opens with a verb of taking and names no source of its own
/// ([`Cues::taking_without_source`]): "gemini-cli's policy engine is the cleanest version I
/// know of: … Took the priority model for yolo's `policy.toml`". Where its verb stands, and
/// the verb as written. Bounded: a line of 100,000 mentions of one repo reads at most the
/// mentions within the window, for each.
fn taking_in_a_later_sentence<'t>(
    text: &'t str,
    breaks: &[usize],
    line: &[Candidate],
    c: &Candidate,
    s_end: usize,
    line_stop: usize,
    cues: &Cues,
) -> Option<(usize, &'t str)> {
    let reach = line_stop.min(c.end + MAX_TAKING_AFTER);
    let mut start = s_end;
    let mut next = breaks.partition_point(|&b| b < s_end);
    for _ in 0..MAX_TAKING_SENTENCES {
        if start >= reach {
            break;
        }
        let end = breaks.get(next).map_or(line_stop, |&b| b + 1);
        let sentence = &text[start..end];
        let opening = sentence.trim_start_matches([' ', '\t']);
        if let Some(verb) = cues.taking_without_source(opening) {
            // `line` is sorted by start: another repo between the mention and the
            // sentence's end is the one it takes from, if any.
            let other = line[line.partition_point(|o| o.start < c.end)..]
                .iter()
                .take_while(|o| o.start < end.min(reach))
                .any(|o| o.node != c.node);
            return (!other).then_some((start + (sentence.len() - opening.len()), verb));
        }
        start = end;
        next += 1;
    }
    None
}

/// A claim of where something came from, negated, right before the repo (only filler
/// words between): "was **not** ported from openai/codex", "did not come from LiveStore",
/// "wasn't really inspired by X". A contradiction of the claim, whatever follows; its cue
/// is the negation and the phrase ("not ported from"). Before the repo's possessive
/// (`possessive`), a verb of taking is such a claim too: "we never took livestore's
/// approach" (not a verb of study: "I haven't read dojo's docs yet" denies no claim).
fn denied_claim(before_words: &[String], possessive: bool, cues: &Cues) -> Option<String> {
    let is_filler = |w: &str| cues.ending_filler.iter().any(|f| f == w);
    let mut n = before_words.len();
    while n > 0 && is_filler(&before_words[n - 1]) {
        n -= 1;
    }
    let head = &before_words[..n];
    let taking = possessive.then(|| cues.origin_verbs()).into_iter().flatten();
    cues.ending_denied_claims.iter().chain(taking).find_map(|phrase| {
        let len = phrase.split(' ').count();
        let at = head.len().checked_sub(len)?;
        if !head[at..].iter().map(String::as_str).eq(phrase.split(' ')) {
            return None;
        }
        // The negation right before the phrase, or one adverb between ("not really").
        let negation = (at.saturating_sub(2)..at).rev().find(|&i| cues.is_negator(&head[i]))?;
        Some(format!("{} {phrase}", head[negation]))
    })
}

/// Where the head of a list item ends, when the mention at `[start, end)` is that head:
/// the item's first word (after its marker and emphasis), then at most a short
/// parenthesis or path before a colon ("- **livestore** (livestorejs/livestore): …",
/// "1. dojo, `crates/sozo/`: …"). The byte after the colon. Bounded: the colon is looked
/// for in [`MAX_ITEM_HEAD`] bytes.
fn item_head_end(text: &str, line_start: usize, line_stop: usize, start: usize, end: usize) -> Option<usize> {
    let prefix = text[line_start..start].trim_start();
    let prefix = match prefix.strip_prefix(['-', '*', '+']) {
        Some(rest) => rest,
        None => prefix.trim_start_matches(|c: char| c.is_ascii_digit()).strip_prefix(['.', ')'])?,
    };
    if !prefix.starts_with(' ') || !prefix.trim_matches([' ', '*', '_', '`']).is_empty() {
        return None;
    }
    let window = &text[end..text.floor_char_boundary((end + MAX_ITEM_HEAD).min(line_stop))];
    let colon = window.find(':')?;
    if window[colon..].starts_with("://") {
        return None;
    }
    // A head, not a sentence: "dojo: …", "**dojo** (dojoengine/dojo), `crates/sozo/`: …",
    // "SDL fixture: …", not "Dojo is the interesting one: …". Parentheses and code spans
    // are dropped; one more word at most may stand.
    let mut words = 0;
    let mut depth = 0u32;
    let mut code = false;
    for part in window[..colon].split_inclusive([' ', '(', ')', '`']) {
        let word = part.trim_end_matches([' ', '(', ')', '`']);
        let countable = depth == 0 && !code && !word.trim_matches(['*', '_', ',']).is_empty();
        words += usize::from(countable);
        match part.chars().last() {
            Some('(') => depth += 1,
            Some(')') => depth = depth.saturating_sub(1),
            Some('`') => code = !code,
            _ => {}
        }
    }
    (words <= 1).then_some(end + colon + 1)
}

/// How far after an item's head mention its colon may stand.
const MAX_ITEM_HEAD: usize = 80;
/// How many cues of an item (and mentions of one of its sentences) are read for its head.
const MAX_ITEM_CUES: usize = 8;

fn capitalised_words(text: &str) -> bool {
    text.split(' ').filter(|w| !w.is_empty()).all(|w| w.chars().next().is_some_and(char::is_uppercase))
}

fn is_token_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || b"`'\"()[]{}<>,;|*".contains(&b))
}

/// `None` if the mention is part of a path that is not about the repo; `Some(true)` for a
/// repo path; `Some(false)` for no path at all.
fn path_context(
    text: &str,
    layout: &Layout,
    start: usize,
    end: usize,
    line_start: usize,
    line_stop: usize,
    cues: &Cues,
) -> Option<bool> {
    let bytes = text.as_bytes();
    let (token_start, token_end) = layout.token_around(start, end, line_start, line_stop);
    // Sentence punctuation right after a word is not a path.
    if !layout.has_slash(token_start, token_end) {
        return Some(false);
    }
    let slash_before = start > token_start && bytes[start - 1] == b'/';
    let slash_after = end < token_end && bytes[end] == b'/';
    if slash_before {
        let segment_start = layout.last_slash_before(token_start, start - 1);
        let before = &text[segment_start..start - 1];
        let segment = before.to_lowercase();
        let segment = segment.trim_start_matches(['~', '.', '@']);
        if cues.repo_path_segments.iter().any(|s| s == segment) {
            return Some(true);
        }
        // `src/adapters/opencode.rs`: the project's part named after the repo, a mention
        // (`Cues::part_folder_before` gives its cue), no repo context.
        if cues.is_part_folder(segment) {
            return Some(false);
        }
        if owner_name_reference(text, token_start, segment_start, end, token_end, line_start, cues) {
            return Some(true);
        }
        return None;
    }
    if slash_after {
        // A path rooted at the node (`dojo/crates/...`, `SDL/`) may be the repo or a folder
        // of the same name (`dust/` is Patina's archive): a mention, not repo context.
        return if start == token_start { Some(false) } else { None };
    }
    // The token has a slash elsewhere, e.g. `a/b:dojo`; not a path segment of ours.
    Some(false)
}

/// Whether the mention ending at `end` is the name of an `owner/name` reference: its token
/// is `owner/name` alone, the owner is not one of [`super::candidates::NOT_OWNERS`], and it
/// is written as a repo is: a wiki link (`[[owner/name]]`), a forge URL
/// (`github.com/owner/name`), followed by a repo word ("owner/name repo") or after a clone
/// command (`git clone owner/name`). A plain `a/b` is as likely a folder ("surface/dust"
/// is a folder of the project's own). A repo moved to another owner, or a fork, is still
/// the repo.
fn owner_name_reference(
    text: &str,
    token_start: usize,
    segment_start: usize,
    end: usize,
    token_end: usize,
    line_start: usize,
    cues: &Cues,
) -> bool {
    if !text[end..token_end].chars().all(|c| matches!(c, '.' | ':' | '!' | '?' | ',')) {
        return false;
    }
    let owner = text[segment_start..end].split('/').next().unwrap_or("");
    let valid_owner = !owner.is_empty()
        && owner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !super::candidates::NOT_OWNERS.iter().any(|w| w.eq_ignore_ascii_case(owner));
    if !valid_owner {
        return false;
    }
    if segment_start > token_start {
        // Only a forge URL may come before the owner (read at most its host's length back,
        // so that many mentions in one long token stay linear).
        let from = text.floor_char_boundary(segment_start.saturating_sub(FORGES[2].len())).max(token_start);
        let tail = text[from..segment_start].to_ascii_lowercase();
        return FORGES.iter().any(|f| tail.ends_with(f));
    }
    let from = text.floor_char_boundary(token_start.saturating_sub(MAX_BEFORE_REFERENCE)).max(line_start);
    let before = text[from..token_start].trim_end_matches([' ', '`']).to_ascii_lowercase();
    let after = &text[end..];
    let wiki = before.ends_with("[[") && (after.starts_with("]]") || after.starts_with('|'));
    let cloned = ["clone", "repo add"].iter().any(|c| before.ends_with(c));
    wiki || cloned || followed_by_repo_word(text, end, cues)
}

/// `Some(cue)` when the mention is the value of `--repo` (`Some("")` when the command is
/// not a testing command); `None` otherwise.
fn repo_flag(text: &str, line_start: usize, start: usize, end: usize, cues: &Cues) -> Option<String> {
    let before = &text[line_start..start];
    let flag_end = flag_before(before, cues)?;
    // The command runs from the last code-span or line start to the flag, and is read at
    // most MAX_COMMAND bytes back (so a line of many `--repo X` stays linear).
    let window = before.floor_char_boundary(flag_end.saturating_sub(MAX_COMMAND));
    let command_start = before[window..flag_end].rfind('`').map(|i| window + i + 1).unwrap_or(window);
    let command = &before[command_start..flag_end];
    let words: Vec<String> = command
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let is_testing = words.iter().any(|w| cues.is_testing_command(w));
    if !is_testing {
        return Some(String::new());
    }
    let cue = format!("{} {}", command.trim(), text[flag_end + line_start..end].trim());
    let cue = cue.trim_start_matches(['-', '*', ' ']).trim().to_string();
    Some(cue)
}

/// `Some(cue)` when the mention ends a path (`~/ref/gastown`) given as the value of a
/// repo flag: `patina scrape --repo ~/ref/gastown` runs on a checkout of the repo
/// (`Some("")` when the command tests nothing, as [`repo_flag`]). The path's last
/// segment is the mention, trailing punctuation aside.
fn repo_flag_on_path(
    text: &str,
    layout: &Layout,
    line_start: usize,
    line_stop: usize,
    start: usize,
    end: usize,
    cues: &Cues,
) -> Option<String> {
    let (token_start, token_end) = layout.token_around(start, end, line_start, line_stop);
    // A token holds no quote, comma or parenthesis (`is_token_byte`): only a full stop, a
    // colon or a closing slash may follow the name.
    let ends_path = text[end..token_end].trim_end_matches(['.', ':', '/']).is_empty();
    if !ends_path || token_start == start {
        return None;
    }
    repo_flag(text, line_start, token_start, end, cues)
}

/// Where the flag of `[testing] repo_flags` that `before` (the line up to a mention) ends
/// with begins: "`patina scrape --repo `", "--issues=" (the value is the mention).
fn flag_before(before: &str, cues: &Cues) -> Option<usize> {
    let before = before_list_items(before)?;
    let trimmed = before.trim_end();
    cues.repo_flags.iter().find_map(|flag| {
        let ends_with = |s: &str| {
            s.len() >= flag.len() && s.as_bytes()[s.len() - flag.len()..].eq_ignore_ascii_case(flag.as_bytes())
        };
        let spaced = trimmed.len() < before.len() && ends_with(trimmed);
        let glued = before.strip_suffix('=').filter(|b| ends_with(b));
        // The flag is a word of its own: not `--repo-path`, nor the tail of `x--repo`.
        let flag_start = match (spaced, glued) {
            (true, _) => trimmed.len() - flag.len(),
            (false, Some(b)) => b.len() - flag.len(),
            _ => return None,
        };
        let after_word = before[..flag_start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '-');
        (!after_word).then_some(flag_start)
    })
}

/// How many items of a comma list before a mention a flag is looked for past.
const MAX_FLAG_LIST_ITEMS: usize = 16;
/// The longest item of such a list, in bytes.
const MAX_FLAG_LIST_ITEM: usize = 64;

/// `before` (the line up to a mention) without the items of a comma list that the mention
/// continues: `--fixtures dojo,SDL,` → `--fixtures ` (the flag names every item). `None`
/// when the list is longer than is looked past.
fn before_list_items(before: &str) -> Option<&str> {
    let mut rest = before;
    for _ in 0..=MAX_FLAG_LIST_ITEMS {
        let Some(list) = rest.strip_suffix(',') else {
            return Some(rest);
        };
        let window = list.floor_char_boundary(list.len().saturating_sub(MAX_FLAG_LIST_ITEM));
        let item_start = window + list[window..].rfind([' ', '\t', ',', '='])? + 1;
        if item_start == list.len() {
            return None;
        }
        rest = &list[..item_start];
    }
    None
}

/// "the SvelteKit monorepo (kit)", "repo: kit": a repo word, then the name in parentheses,
/// after a colon or in code.
fn named_after_repo_word(text: &str, line_start: usize, start: usize, cues: &Cues) -> bool {
    let from = text.floor_char_boundary(start.saturating_sub(MAX_REPO_WORD + 4)).max(line_start);
    let before = &text[from..start];
    let rest = before.trim_end_matches(['(', ':', '`', ' ']);
    if rest.len() == before.len() || !before[rest.len()..].contains(['(', ':', '`']) {
        return false;
    }
    let word = rest.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    !word.is_empty() && cues.repo_words.iter().any(|w| w.eq_ignore_ascii_case(word))
}

fn followed_by_repo_word(text: &str, end: usize, cues: &Cues) -> bool {
    let rest = &text[end..];
    let rest = rest.strip_prefix("'s").unwrap_or(rest);
    let rest = rest.trim_start_matches([' ', ')', '`', '*']);
    let word: String =
        rest.chars().take(MAX_REPO_WORD).take_while(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
    !word.is_empty() && cues.repo_words.contains(&word)
}

/// The sentence breaks of a line, in order: each the index of a '.', '!' or '?' followed
/// by a space and an uppercase letter, with a lowercase letter, digit or closing mark
/// before it.
fn sentence_breaks(bytes: &[u8], line_start: usize, line_stop: usize) -> Vec<usize> {
    let is_break = |i: usize| {
        i + 2 < line_stop
            && bytes[i + 1] == b' '
            && (bytes[i + 2].is_ascii_uppercase() || bytes[i + 2] == b'`')
            && i > line_start
            && (bytes[i - 1].is_ascii_lowercase() || bytes[i - 1].is_ascii_digit() || b")`\"'".contains(&bytes[i - 1]))
    };
    memchr::memchr3_iter(b'.', b'!', b'?', &bytes[line_start..line_stop])
        .map(|i| line_start + i)
        .filter(|&i| is_break(i))
        .collect()
}

/// How far back the word before a full stop is read, in bytes: past the longest of
/// [`ABBREVIATIONS`].
const MAX_ABBREVIATION: usize = 8;

/// Abbreviations whose full stop ends no sentence: "vs. turso", "cf. dojo".
const ABBREVIATIONS: [&str; 8] = ["vs", "cf", "etc", "incl", "approx", "viz", "e.g", "i.e"];

/// Adds to a line's sentence `breaks` (sorted) a break before each name (at `starts`) that
/// opens a sentence in lower case, as repo names do: "…so every adapter can inject it.
/// openclaw was added to the registry" is two sentences. Not after an abbreviation ("vs.
/// turso", "e.g. dojo") or a lone letter.
fn add_breaks_before_names(
    bytes: &[u8],
    line_start: usize,
    starts: impl Iterator<Item = usize>,
    breaks: &mut Vec<usize>,
) {
    let known = breaks.len();
    for start in starts {
        if start < line_start + 3 || !bytes[start].is_ascii_lowercase() || bytes[start - 1] != b' ' {
            continue;
        }
        let stop = start - 2;
        if !matches!(bytes[stop], b'.' | b'!' | b'?') || breaks[..known].binary_search(&stop).is_ok() {
            continue;
        }
        // The word the stop ends, read at most MAX_ABBREVIATION bytes back.
        let from = stop.saturating_sub(MAX_ABBREVIATION).max(line_start);
        let word_from = bytes[from..stop]
            .iter()
            .rposition(|b| b.is_ascii_whitespace() || b"(*_`".contains(b))
            .map_or(from, |i| from + i + 1);
        let word = &bytes[word_from..stop];
        let closes = word.last().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b")`\"'".contains(b));
        let abbreviation = word.len() < 2 || ABBREVIATIONS.iter().any(|a| a.as_bytes().eq_ignore_ascii_case(word));
        if closes && !abbreviation {
            breaks.push(stop);
        }
    }
    if breaks.len() > known {
        breaks.sort_unstable();
        breaks.dedup();
    }
}

/// The clause separators of a line, in order: where each ';', " - ", " — ", " – ", ", but "
/// or " and it ", " and it's ", " and they " (a clause with its own subject) starts. A
/// hedge speaks for its clause: "Tested on dojo; SDL might be next".
fn clause_breaks(text: &str, line_start: usize, line_stop: usize) -> Vec<usize> {
    let line = &text[line_start..line_stop];
    let mut breaks: Vec<usize> = Vec::new();
    for separator in [";", " - ", " \u{2014} ", " \u{2013} ", ", but ", " and it ", " and it's ", " and they "] {
        breaks.extend(line.match_indices(separator).map(|(i, _)| line_start + i));
    }
    breaks.sort_unstable();
    breaks
}

/// The clause of the sentence `[s_start, s_end)` holding byte `at`, given its line's
/// clause breaks.
fn clause_bounds(breaks: &[usize], s_start: usize, s_end: usize, at: usize) -> (usize, usize) {
    let i = breaks.partition_point(|&b| b <= at);
    let from = i.checked_sub(1).map_or(s_start, |i| breaks[i].max(s_start));
    let to = breaks.get(i).map_or(s_end, |&b| b.min(s_end));
    (from, to)
}

/// The retraction opening the sentence after the one ending at `s_end` (on the same line,
/// or the next line's first words past a list marker), if any: "That was wrong".
fn retraction_after<'c>(text: &str, s_end: usize, cues: &'c Cues) -> Option<&'c str> {
    let rest = text[s_end..].trim_start_matches([' ', '\t', '\r']);
    let rest = match rest.strip_prefix('\n') {
        Some(next) => next.trim_start_matches([' ', '\t']).trim_start_matches(['-', '*', '+', '>']).trim_start(),
        None => rest,
    };
    cues.retraction_at(rest.trim_start_matches("**"))
}

/// The sentence holding `[start, end)` within its line, given the line's breaks.
fn sentence_bounds(breaks: &[usize], line_start: usize, line_stop: usize, start: usize, end: usize) -> (usize, usize) {
    // After the last break before the mention…
    let before = breaks.partition_point(|&b| b < start);
    let s = if before > 0 { breaks[before - 1] + 1 } else { line_start };
    // …through the first break at or after its end, keeping the full stop.
    let after = breaks.partition_point(|&b| b < end);
    let e = breaks.get(after).map(|&b| b + 1).unwrap_or(line_stop);
    (s, e)
}

/// Positions found once per text, so that looking around a mention is a binary search.
struct Layout {
    /// Invariant: sorted; every byte that ends a path token (see `is_token_byte`).
    breaks: Vec<usize>,
    /// Invariant: sorted; every '/'.
    slashes: Vec<usize>,
}

impl Layout {
    fn new(text: &str) -> Layout {
        let bytes = text.as_bytes();
        let breaks = (0..bytes.len()).filter(|&i| !is_token_byte(bytes[i])).collect();
        let slashes = memchr::memchr_iter(b'/', bytes).collect();
        Layout { breaks, slashes }
    }

    /// The path token around `[start, end)`: token bytes before `start` and after `end`,
    /// within the line.
    fn token_around(&self, start: usize, end: usize, line_start: usize, line_stop: usize) -> (usize, usize) {
        let before = self.breaks.partition_point(|&b| b < start);
        let token_start = if before > 0 { (self.breaks[before - 1] + 1).max(line_start) } else { line_start };
        let after = self.breaks.partition_point(|&b| b < end);
        let token_end = self.breaks.get(after).map_or(line_stop, |&b| b.min(line_stop));
        (token_start.min(start), token_end.max(end))
    }

    fn has_slash(&self, from: usize, to: usize) -> bool {
        let i = self.slashes.partition_point(|&s| s < from);
        self.slashes.get(i).is_some_and(|&s| s < to)
    }

    /// Just after the last '/' in `[from, to)`, or `from`.
    fn last_slash_before(&self, from: usize, to: usize) -> usize {
        let i = self.slashes.partition_point(|&s| s < to);
        match i.checked_sub(1).map(|i| self.slashes[i]) {
            Some(s) if s >= from => s + 1,
            _ => from,
        }
    }
}

/// Cue hits split by strength, so the nearest cue of a mention is two binary searches.
struct CueIndex {
    /// Invariant: each sorted by position and non-overlapping (the automaton's
    /// leftmost-longest, non-overlapping matches), so ends are sorted too.
    strong: Vec<CueHit>,
    weak: Vec<CueHit>,
}

impl CueIndex {
    fn new(hits: Vec<CueHit>) -> CueIndex {
        let (strong, weak) = hits.into_iter().partition(|h| h.strong);
        CueIndex { strong, weak }
    }

    /// A weak cue ending one space before `start` ("rescraped gemini-cli"): the mention
    /// is its object.
    fn weak_right_before(&self, start: usize) -> Option<CueHit> {
        let i = self.weak.partition_point(|h| h.end < start);
        let hit = *self.weak.get(i.checked_sub(1)?)?;
        (hit.end + 1 == start && !hit.points_forward).then_some(hit)
    }

    /// A strong testing phrase that points forward and opens with a failure word ("failed
    /// on", "crashed on") standing right after the mention ending at `end`, with only
    /// spaces or a repo word between: the mention is its subject ("SDL failed on parsing"),
    /// the repo that was tested. Not a verb of running after a tool's name ("`opencode run`
    /// waits on stdin" is the tool's own subcommand; stop 55, set 33).
    fn failure_of_subject(&self, text: &str, end: usize, s_end: usize, cues: &Cues) -> Option<CueHit> {
        let i = self.strong.partition_point(|h| h.start < end);
        let hit = *self.strong.get(i)?;
        if hit.end > s_end || !hit.points_forward || hit.class != CueClass::Testing || hit.start - end > MAX_SUBJECT_GAP
        {
            return None;
        }
        if !text[hit.start..hit.end].split_whitespace().next().is_some_and(|w| cues.is_failure_word(w)) {
            return None;
        }
        let gap = text[end..hit.start].trim();
        let gap = gap.strip_prefix("'s").unwrap_or(gap).trim();
        (gap.is_empty() || cues.repo_words.iter().any(|w| w.eq_ignore_ascii_case(gap))).then_some(hit)
    }

    /// The cue of the mention `[start, end)` within its sentence `[s_start, s_end)`: the
    /// nearest strong cue, else the nearest weak one; at equal distance the earlier class,
    /// then the cue before the mention.
    /// Whether one of the first [`MAX_ITEM_CUES`] cues of each strength in `[s_start, s_end)`
    /// is of `class`.
    fn class_in(&self, s_start: usize, s_end: usize, class: CueClass) -> bool {
        [&self.strong, &self.weak].into_iter().any(|hits| {
            let first = hits.partition_point(|h| h.start < s_start);
            hits[first..].iter().take_while(|h| h.end <= s_end).take(MAX_ITEM_CUES).any(|h| h.class == class)
        })
    }

    fn nearest(&self, s_start: usize, s_end: usize, start: usize, end: usize) -> Option<CueHit> {
        let nearest_of = |hits: &[CueHit]| {
            let b = hits.partition_point(|h| h.end <= start);
            let before = b.checked_sub(1).map(|i| hits[i]).filter(|h| h.start >= s_start);
            // A phrase that points forward ("tested on", "pattern from") is about what
            // follows it, never about a mention before it.
            let a = hits.partition_point(|h| h.start < end);
            let after = hits[a..].iter().take_while(|h| h.end <= s_end).find(|h| !h.points_forward).copied();
            [before, after].into_iter().flatten().min_by_key(|h| {
                let distance = if h.end <= start { start - h.end } else { h.start - end };
                (distance, h.class)
            })
        };
        nearest_of(&self.strong).or_else(|| nearest_of(&self.weak))
    }
}

/// Trims markdown decoration and clips long sentences around the mention.
fn clean_sentence(sentence: &str, mention_start: usize, mention_end: usize) -> String {
    let mut from = 0;
    let mut to = sentence.len();
    if to > MAX_SENTENCE {
        let half = MAX_SENTENCE / 2;
        from = sentence.floor_char_boundary(mention_start.saturating_sub(half));
        to = sentence.ceil_char_boundary((mention_end + half).min(sentence.len()));
    }
    let mut s = sentence[from..to].trim().to_string();
    for prefix in ["- [ ] ", "- [x] ", "- ", "* ", "+ ", "> "] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.to_string();
            break;
        }
    }
    let s = s.trim_start_matches('#').trim().replace("**", "");
    let mut s = s.trim().to_string();
    if from > 0 {
        s.insert(0, '…');
    }
    if to < sentence.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::NodeKind;

    fn node(id: &str, aliases: &[&str]) -> NodeRegistered {
        NodeRegistered {
            id: id.into(),
            kind: NodeKind::Reference,
            path: None,
            domains: vec![],
            summary: None,
            aliases: aliases.iter().map(|s| s.to_string()).collect(),
            packages: vec![],
        }
    }

    fn world() -> (NodeMatcher, Cues) {
        let cues = Cues::load(&[]).unwrap();
        let nodes = vec![
            node("patina", &["NicabarNimble/patina"]),
            node("dojo", &["dojoengine/dojo"]),
            node("SDL", &["libsdl-org/SDL"]),
            node("dust", &[]),
            node("codex", &["openai/codex"]),
            node("codex-autorunner", &[]),
            NodeRegistered { packages: vec!["scryer-prolog".into()], ..node("scryer-prolog", &[]) },
            node("game-engine", &[]),
            node("duckdb", &[]),
            node("dagger", &[]),
            NodeRegistered { packages: vec!["turso".into(), "libsql".into()], ..node("turso", &[]) },
            NodeRegistered { packages: vec!["@google/gemini-cli".into()], ..node("gemini-cli", &[]) },
            NodeRegistered { packages: vec!["loro".into()], ..node("loro", &[]) },
            node("cuti", &[]),
            node("kit", &[]),
            node("memista", &[]),
            node("death-mountain", &[]),
            node("livestore", &[]),
        ];
        (NodeMatcher::new(&nodes, &cues), cues)
    }

    fn check(text: &str) -> Vec<(String, CueClass, String)> {
        let (matcher, cues) = world();
        extract(text, &matcher, &cues, Some("patina"))
            .into_iter()
            .map(|m| (matcher.node_id(m.node).to_string(), m.cue_class, m.cue))
            .collect()
    }

    /// The class and cue of `repo`'s first mention in `text`.
    fn cue_of(text: &str, repo: &str) -> (CueClass, String) {
        let (_, class, cue) = check(text).into_iter().find(|(id, ..)| id == repo).expect(repo);
        (class, cue)
    }

    /// Stop 55, from an ordinary month's logs (set 31): a repo flag given a checkout's path,
    /// cargo's build output, a crate's name as Rust code writes it, and a lead-in line of
    /// several sentences leading with its last.
    #[test]
    fn checkout_paths_build_output_crate_identifiers_and_last_sentence_lead_ins() {
        // `--repo ~/ref/gastown`: the path's last segment is the repo the command runs on.
        let scrape = "```\n$ patina scrape --repo ~/ref/dojo\n  go: 286 files, 3,114 functions\n```\n";
        assert_eq!(cue_of(scrape, "dojo"), (CueClass::Testing, "patina scrape --repo ~/ref/dojo".into()));
        // Not a folder inside the checkout, nor a path given to another flag or command.
        for text in ["$ patina scrape --repo ~/ref/dojo/crates", "$ patina scrape --out ~/ref/dojo", "$ ls ~/ref/dojo"]
        {
            assert!(check(text).iter().all(|(id, ..)| id != "dojo"), "{text}: {:?}", check(text));
        }
        // A flag of a command that tests nothing makes the path a mention, and no cue.
        assert_eq!(cue_of("$ git clone x --repo ~/ref/dojo", "dojo").0, CueClass::Plain);

        // cargo's build output names the crates the build compiles.
        for (text, cue) in [
            ("```\n   Compiling duckdb v1.2.1\n```\n", "cargo's build output \"Compiling duckdb v1.2.1\""),
            (
                "error: failed to run custom build command for `duckdb v1.2.1`",
                "cargo's build output \"error: failed to run custom build command for `duckdb v1.2.1`\"",
            ),
            ("warning: duckdb@1.2.1: unknown type", "cargo's build output \"warning: duckdb@1.2.1: unknown type\""),
        ] {
            assert_eq!(cue_of(text, "duckdb"), (CueClass::Using, cue.into()), "{text}");
        }
        // A `--timings` row, and `cargo tree`'s root when the project depends on it.
        let timings = "```\n$ cargo build --release --timings\n  duckdb v1.1.1 (build script)   239.7s\n```\n";
        assert_eq!(cue_of(timings, "duckdb").0, CueClass::Using);
        let uses = |text: &str| check(text).iter().any(|(id, class, _)| id == "duckdb" && *class == CueClass::Using);
        assert!(uses("```\n$ cargo tree -i duckdb\nduckdb v1.1.3\n└── patina-ai v0.14.1 (~/projects/patina)\n```\n"));
        // Another crate's dependency: the inverted tree's first dependent is not the project.
        assert!(!uses("```\n$ cargo tree -i duckdb\nduckdb v1.1.3\n└── codegraph-store v0.6.1\n```\n"));
        // Not a crate built inside a repo's checkout, nor a crate without its version.
        let checkout = "   Compiling dojo v1.0.0 (/home/n/.patina/repos/dojo/crates/dojo)";
        assert_eq!(cue_of(checkout, "dojo").0, CueClass::Plain);
        assert_eq!(cue_of("   Compiling duckdb now", "duckdb").0, CueClass::Plain);

        // `scryer_prolog::Machine`: the crate `scryer-prolog` as Rust code names it.
        let rust = "static MACHINE: OnceLock<Mutex<scryer_prolog::Machine>> = OnceLock::new();";
        assert_eq!(cue_of(rust, "scryer-prolog"), (CueClass::Using, "Rust path `scryer_prolog::Machine`".into()));

        // The last sentence of a lead-in line leads its list: the note's items are plans
        // and options written down, not a bump.
        let note = "Bumping the duckdb crate again reminded me how heavy the build is. Wrote a note:\n\
                    - candidate for later: turso (sync core)\n";
        assert_eq!(cue_of(note, "turso").0, CueClass::Plain);
        let results = "Reran the parser after the fix. Tested on:\n- dojo: 1,231 files\n";
        assert_eq!(cue_of(results, "dojo").0, CueClass::Testing);
        // A lead-in opening with a negation leads nothing (a real October log: the steps
        // an agent should take, each "using the Dagger infrastructure").
        let steps = "Agents should iterate using the dagger setup. Not just run tests once, but:\n\
                     1. Create workspace (git branch + dagger)\n";
        assert_ne!(cue_of(steps, "dagger").0, CueClass::Testing);
        // A commit's hash and type is no inline lead-in (set 11: the project's bench re-run
        // on one of its own backends).
        let commit = cue_of("- 0ae4b12 bench: re-run knn, duckdb only", "duckdb").1;
        assert!(!commit.contains("inline lead-in"), "{commit}");
        assert_eq!(cue_of("- bench: dojo 3.1s, SDL 4.2s", "SDL").0, CueClass::Testing);
    }

    /// Stop 52, from an ordinary month's logs (set 27): a run's count straight after the
    /// name, a Rust path to a crate's type, a Cargo.lock entry, the project's path or
    /// settings of a dependency, a clause opened inside a gapped phrase, a heading that is
    /// only "Next".
    #[test]
    fn counts_rust_paths_lock_entries_settings_and_next_headings() {
        let testing = |text: &str, repo: &str| cue_of(text, repo).0 == CueClass::Testing;
        assert!(testing(
            "- Sanity check on the other TS repo: gemini-cli 1,904 files, 11,266 functions, 37.9s",
            "gemini-cli"
        ));
        assert!(testing("- Python side needed a rescrape first: dust 212 files, 1,431 functions, 5.2s", "dust"));
        // A tool's output line tagged with the repo (stop 54, set 11); not a wiki link.
        assert_eq!(
            cue_of("```\n  [SDL] 84,913 items in 31.7s\n```", "SDL"),
            (CueClass::Testing, "SDL (84,913 items)".into())
        );
        for text in ["Credit to [[dojo]] 3 files later.", "The dojo] 3 files."] {
            assert!(check(text).iter().all(|(_, class, _)| *class != CueClass::Testing), "{text}");
        }
        // An item labelled by its repo is read with its lead-in, as before.
        let item = cue_of("**Testing Results:**\n- dojo: 1,231 files in 0.4 s\n", "dojo");
        assert_eq!(item.0, CueClass::Testing);
        assert!(item.1.contains("lead-in \"Testing Results:\""), "{item:?}");
        // A time or a share is no count of things; nor is a number glued to a word.
        assert!(!cue_of("Slowest of the lot was dojo 3s behind.", "dojo").1.starts_with("dojo ("));
        assert!(!cue_of("Then dojo 40% slower than before.", "dojo").1.starts_with("dojo ("));

        let rust = "```rust\nlet db = turso::Builder::new_local(&path).build().await?;\n```\n";
        assert_eq!(cue_of(rust, "turso"), (CueClass::Using, "Rust path `turso::Builder`".into()));
        let error = "error[E0599]: no method named `prepare_cached` found for struct `duckdb::Connection`";
        assert_eq!(cue_of(error, "duckdb"), (CueClass::Using, "Rust path `duckdb::Connection`".into()));
        // A module path names no type; a name inside another path is not the crate.
        for text in ["let w = dojo::model::spawn();", "use crate::adapters::codex::Writer;", "dojo::TODO"] {
            assert!(check(text).iter().all(|(_, class, _)| *class != CueClass::Using), "{text}");
        }
        // The type of a repo the file tests is the subject's own.
        let subject =
            "- Scraped dojo: 1,231 files, 21,806 symbols\n\n```\n(also exported as dojo::ModelStorage)\n```\n";
        let found = check(subject);
        let own = found.iter().find(|(_, _, cue)| cue.contains("ModelStorage")).unwrap();
        assert_eq!(
            (own.1, own.2.as_str()),
            (CueClass::Plain, "Rust path `dojo::ModelStorage` (of a repo this file tests on)")
        );

        let lock = "```diff\n [[package]]\n name = \"duckdb\"\n-version = \"1.1.0\"\n+version = \"1.2.0\"\n```\n";
        assert_eq!(cue_of(lock, "duckdb"), (CueClass::Using, "Cargo.lock entry `name = \"duckdb\"`".into()));
        let checkout = "```diff\n# ~/.patina/repos/dojo/Cargo.lock\n [[package]]\n name = \"duckdb\"\n```\n";
        assert_eq!(cue_of(checkout, "duckdb").0, CueClass::Plain);
        assert_eq!(cue_of("name = \"duckdb\"", "duckdb").0, CueClass::Plain);
        // The project's own lock, and a diff of its own source above it, are the project's.
        let own = "```diff\n# ~/src/patina/Cargo.lock\n+++ b/src/store/mod.rs\n [[package]]\n name = \"duckdb\"\n```\n";
        assert_eq!(cue_of(own, "duckdb").0, CueClass::Using);

        // What ran is the project's way through the dependency, not the dependency.
        let path = "- Re-ran the knn bench on the duckdb path only: p50 0.9 ms, p99 2.0 ms";
        assert_eq!(cue_of(path, "duckdb"), (CueClass::Using, "path".into()));
        let settings = "- Re-ran `patina scry --eval` on four repos, same duckdb settings as the 11th:";
        assert_eq!(cue_of(settings, "duckdb").0, CueClass::Using);

        // A clause opened inside a gapped phrase ends its object.
        let skipped = "Skipped by the run because they aren't cloned on this laptop: dust, loro.";
        assert!(check(skipped).iter().all(|(_, class, _)| *class != CueClass::Testing), "{:?}", check(skipped));
        assert!(testing("Ran the scrape again on dust.", "dust"));

        // A heading that is only "Next" (or "Later") leads plans; one that says more does not.
        for heading in ["### 15:52 - Next", "**Next:**", "## Later", "### 09:02 – Up next"] {
            let text = format!("{heading}\n- Rerun the extractor on loro once impl blocks land\n");
            assert_eq!(cue_of(&text, "loro").0, CueClass::Plain, "{heading}");
        }
        assert!(testing("### 10:00 - Next batch run\n- Rerun the extractor on loro: 1,204 files\n", "loro"));
        assert!(testing("### 10:00 - Extractor\n- Rerun the extractor on loro once impl blocks land\n", "loro"));
        assert!(testing("**Later:** re-ran the extractor on loro, 1,204 files", "loro"));

        // The issue scrape's flag names the repo it runs on, as `--repo` does; a flag is a
        // word of its own; a line that draws a tree (`├──`, multi-byte) is read whole.
        assert_eq!(
            cue_of("First run of `patina scrape --issues openai/codex` died at 5,100", "codex").0,
            CueClass::Testing
        );
        assert_eq!(cue_of("`patina scrape --issues=dojo`", "dojo").0, CueClass::Testing);
        assert!(!cue_of("`patina scrape x--issues dojo`", "dojo").1.contains("--issues"));
        assert_eq!(check("├── dojo\n├─┬ loro\n").len(), 1, "loro needs context");
    }

    #[test]
    fn retrieval_scores_use_lists_and_studied_runs() {
        // A retrieval score right after the repo is a run's result on it.
        let output =
            "```\n$ patina eval run --only queries\n[1/1] SDL  queries \u{2713}   q r@5 0.65  q r@10 0.77\n```\n";
        assert_eq!(cue_of(output, "SDL"), (CueClass::Testing, "SDL (r@5 0.65)".into()));
        assert_eq!(
            cue_of("- dojo torii-indexer MRR 0.41 \u{2192} 0.58", "dojo"),
            (CueClass::Testing, "dojo (MRR 0.41)".into())
        );
        let rerun = cue_of("- re-ran dojo, hybrid R@10 0.64.", "dojo");
        assert_eq!(rerun, (CueClass::Testing, "dojo (R@10 0.64)".into()), "the full stop is not the value's");
        // No score: a name without its value, a cut-off without a value, another word.
        for text in ["- SDL recall@10 was not measured", "- SDL r@ 0.65", "- SDL mrrx 0.4", "- SDL r@10 n/a"] {
            assert!(!cue_of(text, "SDL").1.starts_with("SDL ("), "{text}");
        }
        // Too far from the repo, or past a part of the project named after it.
        let far = "- dojo was reindexed overnight after the cron job moved, and then r@10 0.8";
        assert!(!cue_of(far, "dojo").1.starts_with("dojo ("), "{far}");
        let part = "- Re-ran the knn bench on the duckdb path: recall@10 0.97";
        assert_eq!(cue_of(part, "duckdb").0, CueClass::Using);
        // A weak use phrase says the project measured itself.
        assert_ne!(cue_of("- vector search via duckdb: recall@10 0.97", "duckdb").0, CueClass::Testing);

        // A Rust use list that opens with a type of the crate.
        let uses = "```rust\nuse duckdb::{Connection, Appender, params};\n```\n";
        assert_eq!(cue_of(uses, "duckdb"), (CueClass::Using, "Rust path `duckdb::{Connection`".into()));
        let spaced = "```rust\nuse turso::{ Builder, Connection };\n```\n";
        assert_eq!(cue_of(spaced, "turso"), (CueClass::Using, "Rust path `turso::{Builder`".into()));
        assert_ne!(cue_of("use dojo::{model, world};", "dojo").0, CueClass::Using, "modules name no type");

        // "mrr@" is tried before "mrr"; a score belongs to the nearest name before it.
        assert_eq!(cue_of("- dojo MRR@10 0.41", "dojo"), (CueClass::Testing, "dojo (MRR@10 0.41)".into()));
        let two = "```\n[1/2] dojo      scrape \u{2717}\n[2/2] SDL  r@5 0.61\n```\n";
        assert!(!cue_of(two, "dojo").1.starts_with("dojo ("), "{two}");
        let next = "- dojo \u{2717}  SDL r@5 0.61";
        assert!(!cue_of(next, "dojo").1.starts_with("dojo ("), "{next}");
        assert_eq!(cue_of(next, "SDL").1, "SDL (r@5 0.61)");
        // A use list over lines, rustfmt's way.
        let multi = "```rust\nuse duckdb::{\n    Connection,\n    Appender,\n};\n```\n";
        assert_eq!(cue_of(multi, "duckdb"), (CueClass::Using, "Rust path `duckdb::{Connection`".into()));

        // A phrase of study that read the project's run on the repo learns nothing from it.
        let misses = cue_of("- Analysed SDL misses: 3 of 4 caused by `examples/` down-weighting", "SDL");
        assert_ne!(misses.0, CueClass::Learning, "{misses:?}");
        assert_ne!(cue_of("- Studied the duckdb issues about f16", "duckdb").0, CueClass::Learning);
        assert_eq!(cue_of("- Analysed SDL's event loop design", "SDL").0, CueClass::Learning);
        // Markup opening the name is no word between a verb and it.
        assert_eq!(cue_of("Changed my mind back. Staying on [[duckdb]] for exports.", "duckdb").0, CueClass::Using);
        assert_eq!(cue_of("- Went into `SDL` itself: the GPU headers.", "SDL").0, CueClass::Learning);
        // "went into" studies what follows it, not a repo before it.
        assert_eq!(
            cue_of("Went into SDL itself: `src/video/SDL_video.c` and the GPU headers.", "SDL").0,
            CueClass::Learning
        );
        assert_ne!(cue_of("SDL went into the bench as a C fixture.", "SDL").0, CueClass::Learning);
        // A figure after a phrase is a version, not a result.
        assert_eq!(cue_of("- The renderer is inspired by SDL 3's GPU API", "SDL").0, CueClass::Learning);
        assert_ne!(cue_of("- Analysed SDL scores for the hybrid ranker", "SDL").0, CueClass::Learning);
    }

    /// A later clause of the sentence that says the cue's act never happened denies the
    /// cue; a "never" of another act, another subject, another repo or a scope denies
    /// nothing.
    #[test]
    fn an_act_denied_later_in_the_sentence_voids_the_cue() {
        for (text, repo, denial) in [
            (
                "dojo was proposed as a second Cairo fixture last spring; never added, SDL covers that mix.",
                "dojo",
                "never added",
            ),
            (
                "The registry lists memista as a fixture for vector stores; patina has never used it for anything.",
                "memista",
                "never used",
            ),
            (
                "Benchmarked the scanner on duckdb - it was never actually run, the table is copied.",
                "duckdb",
                "never actually run",
            ),
            ("Integrated turso as the facts store — we’ve never used it, in the end.", "turso", "never used"),
            ("Studied loro's sync protocol; never read, only skimmed.", "loro", "never read"),
        ] {
            let (class, why) = cue_of(text, repo);
            assert_eq!(class, CueClass::Plain, "{text}");
            assert!(why.starts_with(&format!("denied by \"{denial}\"")), "{text}: {why}");
        }
        for (text, repo, kept) in [
            // Another act of the cue's subject than the cue's.
            ("Tested the scanner on dojo; never read its source.", "dojo", CueClass::Testing),
            ("Studied loro's sync protocol; never used it.", "loro", CueClass::Learning),
            ("Tested the parser on dojo; never added it as a dependency.", "dojo", CueClass::Testing),
            // Another subject, a scope after the act, a question.
            ("Ran the bench on SDL; the old index never moved, so nothing to redo.", "SDL", CueClass::Testing),
            ("Ran the bench on duckdb locally; it never ran in CI.", "duckdb", CueClass::Testing),
            ("Tested the adapter on SDL; we had never tested it before.", "SDL", CueClass::Testing),
            ("Tested the adapter on SDL; was it never run?", "SDL", CueClass::Testing),
            // The denial is another repo's, or stands before the cue.
            ("Ran the bench on SDL and duckdb; turso was discussed too, never tested.", "SDL", CueClass::Testing),
            ("memista was never added; benchmarked the scanner on dojo instead.", "dojo", CueClass::Testing),
            // An ending stays an ending.
            ("Removed the duckdb dependency; never used it after October.", "duckdb", CueClass::Ending),
        ] {
            assert_eq!(cue_of(text, repo).0, kept, "{text}");
        }
        // Not past a window that cuts the clause: the sentence goes on after it.
        let long = format!("Benchmarked the scanner on SDL;{} never run", " x,".repeat(80));
        assert_eq!(cue_of(&format!("{long} twice over."), "SDL").0, CueClass::Testing);
    }

    /// A compound in a feature commit's subject names a part the commit added: its cue
    /// says so (an act, which may start an ended edge again; the noun alone does not).
    #[test]
    fn a_compound_in_a_feat_commit_says_so() {
        for text in [
            "Commit: `b7c2d10 feat: duckdb adapter (v2, conformance-tested)`",
            "- `feat(adapters/duckdb): duckdb adapter`",
            "$ git commit -m \"feat(store)!: duckdb backend behind a flag\"",
        ] {
            // The last mention: a scope's `adapters/duckdb` is the project's part too.
            let (_, class, cue) = check(text).into_iter().rfind(|(id, ..)| id == "duckdb").unwrap();
            assert_eq!(class, CueClass::Using, "{text}");
            assert!(cue.ends_with(" (in a feat commit)"), "{text}: {cue}");
        }
        assert_eq!(cue_of("- `feat(adapters/duckdb): duckdb adapter`", "duckdb").1, "adapters/duckdb");
        for text in [
            "Commit: `fix: duckdb adapter leaks a handle`",
            "- the defeat: duckdb adapter",
            "feature: duckdb adapter",
            "$ git commit -m 'Revert \"feat(adapters): duckdb adapter\"'",
            "After `feat: usearch index` landed, the duckdb crate stayed.",
        ] {
            assert!(!cue_of(text, "duckdb").1.contains("feat commit"), "{text}");
        }
        // A multi-byte text before the commit, and a commit far before the mention.
        assert!(cue_of("é — feat: the duckdb crate", "duckdb").1.ends_with("(in a feat commit)"));
        let far = format!("feat: {} the duckdb crate", "x".repeat(600));
        assert_eq!(cue_of(&far, "duckdb").1, "crate");
    }

    #[test]
    fn a_repos_index_is_the_projects_unless_the_file_tests_the_repo() {
        let (matcher, cues) = world();
        let of = |text: &str, line: u32, repo: &str| {
            let found = extract(text, &matcher, &cues, Some("patina"));
            let m = found.into_iter().find(|m| m.line == line && matcher.node_id(m.node) == repo).expect(repo);
            (m.cue_class, m.strong_cue, m.cue)
        };
        // "the turso index" in a log that never tests turso: the project's index built on it.
        let (class, strong, cue) = of("- The turso index stays the only vector path.\n", 1, "turso");
        assert_eq!((class, strong, cue.as_str()), (CueClass::Using, true, "index"));
        // A plan of one is not (`[hedge] plan_nouns`).
        assert!(!of("- Sketched the turso index design.\n", 1, "turso").1);
        // "the dojo index" in a log that scrapes dojo: the index patina built of its subject.
        let text = "- Scraped dojo: 1,204 functions.\n\n- The dojo index was built last month.\n";
        assert_eq!(of(text, 1, "dojo").0, CueClass::Testing);
        let (class, strong, cue) = of(text, 3, "dojo");
        assert_eq!((class, strong), (CueClass::Plain, false), "{cue}");
        assert_eq!(cue, "index (of a repo this file tests on)");
        // Another compound keeps its cue in such a file: "the dojo crate" is not in
        // `subject_compounds`.
        let text = "- Scraped dojo: 1,204 functions.\n\n- The dojo crate exports the world contract.\n";
        let (class, _, cue) = of(text, 3, "dojo");
        assert_eq!((class, cue.as_str()), (CueClass::Using, "crate"));
    }

    #[test]
    fn a_negated_name_another_repos_dependency_and_the_projects_part_under_test() {
        let strong_of = |text: &str, repo: &str| {
            let (matcher, cues) = world();
            let found = extract(text, &matcher, &cues, Some("patina"));
            let m = found.into_iter().find(|m| matcher.node_id(m.node) == repo).expect(repo);
            (m.cue_class, m.strong_cue)
        };
        // A repo right after a negation was not there, whatever its sentence did.
        let (class, why) = cue_of("- Fixture runner is a plain bash loop, no dagger involved", "dagger");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "negated: \"no dagger\""));
        assert_eq!(cue_of("- Ran the scraper on dojo, not SDL", "SDL").0, CueClass::Plain);
        assert_eq!(cue_of("- Ran the scraper on dojo, not SDL", "dojo").0, CueClass::Testing);
        assert_eq!(
            cue_of("- the turso and memista checkouts are leftovers, neither is scraped", "memista").0,
            CueClass::Plain
        );
        // … but not before a failure word: a run that passed.
        assert_ne!(cue_of("- Re-ran the scrape on dojo: no SDL panics", "SDL").1, "negated: \"no SDL\"");
        // Another repo's own dependency is that repo's, not the project's; the subject stays tested.
        let theirs = "- Scraped dojo: 18% of symbols are tests; dojo pulls in memista for its fixtures, 40 chunks";
        let (class, why) = cue_of(theirs, "memista");
        assert_eq!(class, CueClass::Plain);
        assert!(why.starts_with("another repo's own dependency \"dojo pulls in\""), "{why}");
        assert_eq!(cue_of(theirs, "dojo").0, CueClass::Testing);
        // "uses", "pairs": the commonest verbs of another repo's own stack.
        let (class, why) = cue_of("- Analysed memista against our design: memista pairs SQLite with turso", "turso");
        assert_eq!(
            (class, why.as_str()),
            (CueClass::Plain, "another repo's own dependency \"memista pairs\": Analysed")
        );
        let (class, why) = cue_of("- Our tests go through dojo, and dojo uses the turso crate", "turso");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "another repo's own dependency \"dojo uses\": uses the"));
        // A clause whose subject is a pronoun speaks of the repo named last before it.
        let (class, why) = cue_of("- Studied memista's README; it wraps turso for storage", "turso");
        assert_eq!(class, CueClass::Plain);
        assert_eq!(why, "another repo's own dependency \"it wraps\" (it: memista): Studied");
        // Not a possessive's noun, which may be the project's.
        let (class, _) = cue_of("- We built on dojo at first; its replacement is built on turso", "turso");
        assert_eq!(class, CueClass::Using);
        // A test run on the project's part built on a repo ran the project, which uses it.
        assert_eq!(cue_of("- All 96 tests green on the turso store", "turso").0, CueClass::Using);
        // Adding a dependency with a package manager, and its answer, declare a use.
        assert_eq!(
            strong_of("$ cargo add scryer-prolog@0.9 --no-default-features", "scryer-prolog"),
            (CueClass::Using, true)
        );
        assert_eq!(
            strong_of("      Adding scryer-prolog v0.9.4 to dependencies", "scryer-prolog"),
            (CueClass::Using, true)
        );
        assert_ne!(strong_of("$ cargo build && ./run duckdb", "duckdb"), (CueClass::Using, true));
        // A friend's project, a separate repo of the developer's: not this project's.
        assert_eq!(cue_of("- A friend's agent built on dagger hit the same wall", "dagger").0, CueClass::Plain);
        let jam = "- the jam game (~/projects/jam, separate repo) runs on game-engine";
        assert_eq!(cue_of(jam, "game-engine").0, CueClass::Plain);
    }

    #[test]
    fn a_block_of_a_repos_own_things_and_an_explicit_skip() {
        // A lead-in that says the block is a repo's own things: the other repos it names
        // are that repo's; the repo itself keeps its own cue.
        let own = "Walked through what dojo itself pulls in:\n\n\
                   - `Scarb.toml` has memista as a dev-dependency\n\
                   - the README lists games built on dojo, game-engine among them\n";
        let (class, why) = cue_of(own, "memista");
        assert_eq!(class, CueClass::Plain);
        assert!(why.starts_with("another repo's own \"dojo itself\""), "{why}");
        assert_eq!(cue_of(own, "game-engine").0, CueClass::Plain);
        let subject = "Context for the scanner result, this is all the subject repo's own setup:\n\n\
                       - pins dagger as a dependency\n";
        assert_eq!(cue_of(subject, "dagger").0, CueClass::Plain);
        // Not the project's own: "patina's own index" leads a real benchmark.
        let ours = "Benchmark on patina's own index:\n\n- duckdb: 12.1s, 340 chunks\n";
        assert_eq!(cue_of(ours, "duckdb").0, CueClass::Testing);
        // "skipped" right after a repo says it was left out, wherever it stands.
        let skipped = "- 07:20 Rust fixture (loro): skipped this month\n- 07:25 C fixture (SDL): 1,412 files\n";
        assert_eq!(cue_of(skipped, "loro").0, CueClass::Plain);
        assert_eq!(cue_of(skipped, "SDL").0, CueClass::Testing);
        // In a table row too, past empty cells.
        let row = "| repo | files | R@10 | note |\n|---|---|---|---|\n| dojo | 1,204 | 0.81 | |\n\
                   | SDL | – | – | skipped: index older than the scraper |\n";
        assert_eq!(cue_of(row, "dojo").0, CueClass::Testing);
        assert_eq!(cue_of(row, "SDL"), (CueClass::Plain, "skipped: \"SDL … skipped\"".into()));
        // A lead-in that says nothing was taken, or that its items are plans.
        let prior = "Prior art skimmed (nothing taken yet):\n- dojo: keeps a log of snapshots\n";
        assert_eq!(cue_of(prior, "dojo").0, CueClass::Plain);
        let plans = "**May list (plans, nothing started):**\n- add dojo as a Cairo fixture\n";
        assert_eq!(cue_of(plans, "dojo").0, CueClass::Plain);
        // The repo named as what the tool is tried on, and a run with its count.
        let subject = "Added memista as the TypeScript eval subject (75 queries, weak on re-exports).";
        assert_eq!(cue_of(subject, "memista").0, CueClass::Testing);
        let ran = "First external scry eval ran on dojo: 90 queries, recall@10 between 0.73 and 0.98.";
        assert_eq!(cue_of(ran, "dojo").0, CueClass::Testing);
    }

    #[test]
    fn mentions_in_passing_of_an_ordinary_session() {
        // A sentence may open with a repo's lower-case name: the one before it is not its.
        let text = "Studied dojo's `gt prime` and adopted its shape. memista was added to the registry.";
        assert_eq!(cue_of(text, "dojo").0, CueClass::Learning);
        assert_eq!(cue_of(text, "memista").0, CueClass::Plain);
        // Not after an abbreviation: "vs." and "e.g." end no sentence.
        let text = "Benchmarked the scanner on SDL vs. duckdb and e.g. dojo, 3 s each.";
        let line_stop = text.len();
        let mut breaks = sentence_breaks(text.as_bytes(), 0, line_stop);
        add_breaks_before_names(
            text.as_bytes(),
            0,
            ["duckdb", "dojo"].map(|n| text.find(n).unwrap()).into_iter(),
            &mut breaks,
        );
        assert!(breaks.is_empty(), "{breaks:?}");
        // A quoted query's words are what was searched for; the command's flag still counts.
        let query = "$ patina scry --repo dojo \"how does sozo migrate diff the world\"";
        assert_ne!(cue_of(query, "dojo").0, CueClass::Learning);
        let query = "$ patina scry \"agent framework built on dojo\"";
        assert_eq!(cue_of(query, "dojo").0, CueClass::Plain);
        let query = "$ patina scrape --repo dojo \"how does sozo migrate diff the world\"";
        assert_eq!(cue_of(query, "dojo").0, CueClass::Testing);
        // A quoted message that is no query keeps its words.
        assert_eq!(cue_of("git commit -m \"store built on turso\"", "turso").0, CueClass::Using);
        // Put off or only proposed.
        for text in [
            "Claude suggested also validating our front matter against the memista spec. Postponed.",
            "I also meant to run it on game-engine - postponed.",
            "Ravi asked in passing whether we ever adopted memista's hook layout.",
        ] {
            let found = check(text);
            assert!(!found.is_empty(), "{text}");
            assert!(found.iter().all(|(_, class, _)| *class == CueClass::Plain), "{text}: {found:?}");
        }
        // "nothing from" and "none of" before the name deny it, whatever noun follows.
        let (class, why) = cue_of("Renamed the fixture: nothing from the Dagger SDK is left in it.", "dagger");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "negated: \"nothing Dagger\""));
        // The project's cargo feature named after a repo: a use, whatever the command runs.
        let feature = "Re-ran the store bench with `--features turso` against the new scrape: p50 9.1ms.";
        let (class, why) = cue_of(feature, "turso");
        assert_eq!((class, why.as_str()), (CueClass::Using, "cargo feature `--features turso`"));
        let optional = check("turso = [\"dep:turso\"]");
        assert_eq!(optional[1].1, CueClass::Using, "{optional:?}");
        // A diff's removed line takes the feature away.
        assert_ne!(cue_of("-prolog = [\"dep:scryer-prolog\"]", "scryer-prolog").0, CueClass::Using);
        assert_eq!(
            cue_of("the regression subject stays dojo: 12/12 routing queries pass", "dojo").0,
            CueClass::Testing
        );
        // An item that says its lead-in's word does not hold for it.
        let prior = "## Prior art\n\n\
                     - **dojo** (dojoengine/dojo). Event log and materializers; we read the code.\n\
                     - **memista** (memista). Has episodic memory, per its README.\n  Not studied.\n\
                     - **duckdb**. Haven't read the code.\n";
        assert_eq!(cue_of(prior, "dojo").0, CueClass::Learning);
        let (class, why) = cue_of(prior, "memista");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "the item says \"Not studied.\""));
        assert!(check(prior).iter().filter(|(id, ..)| id == "memista").all(|(_, class, _)| *class == CueClass::Plain));
        assert_eq!(cue_of(prior, "duckdb").0, CueClass::Plain);
        // A failure that did not happen denies nothing.
        assert_eq!(cue_of("## Bench runs\n\n- SDL: 1,412 files. No panics.\n", "SDL").0, CueClass::Testing);
        // A dependency's own dependency, in a sentence or under a column that says so.
        let transitive = "So DuckDB is back in the tree, but only as a dependency of a dependency.";
        assert_eq!(cue_of(transitive, "duckdb").0, CueClass::Plain);
        let table = "### Who depends on what\n\n| consumer | direct deps | notable transitive |\n|---|---|---|\n\
                     | `patina` | usearch, dagger | duckdb (bundled, via codegraph-store) |\n";
        assert_eq!(cue_of(table, "dagger").0, CueClass::Using);
        let (class, why) = cue_of(table, "duckdb");
        assert_eq!(class, CueClass::Plain);
        assert!(why.contains("(column \"notable transitive\""), "{why}");
        // A run's count right after the name; not a time or a share.
        let (class, why) = cue_of("- Large repos like duckdb (5,309 files) take ~3 minutes", "duckdb");
        assert_eq!((class, why.as_str()), (CueClass::Testing, "duckdb (5,309 files)"));
        assert_eq!(cue_of("- turso (40% slower) and dojo (3 s) were compared", "turso").0, CueClass::Plain);
        assert_eq!(cue_of("- turso (40% slower) and dojo (3 s) were compared", "dojo").0, CueClass::Plain);
    }

    #[test]
    fn an_owner_name_reference_names_the_repo_whatever_the_owner() {
        // A fork or a moved repo, written as a repo is written.
        for text in [
            "- Tested the parser on [[otherorg/duckdb]]: 12 failures.",
            "- Tested the parser on https://github.com/otherorg/duckdb, 12 failures.",
            "- Tested the parser on the otherorg/duckdb repo: 12 failures.",
            "- Ran `git clone otherorg/duckdb` and tested the parser on it.",
        ] {
            let found = check(text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_eq!(found[0].0, "duckdb", "{text}");
        }
        // A folder of the same name is not the repo: a plain `a/b`, a path root, a file.
        for text in [
            "- Moved the notes to surface/duckdb for now.",
            "- Tested the parser on docs/duckdb pages.",
            "- Tested the parser on [[layer/duckdb]].",
            "- Tested the parser on [[otherorg/duckdb/src]].",
        ] {
            assert!(check(text).is_empty(), "{text}: {:?}", check(text));
        }
    }

    #[test]
    fn a_repo_goes_by_the_distinctive_name_part_of_its_owner_name() {
        let cues = Cues::load(&[]).unwrap();
        let nodes = vec![
            node("atlas", &[]),
            node("someorg/vectorlite", &[]),
            // Renamed twice: the old `owner/name`s give its old names.
            node("openclaw", &["clawdbot/clawdbot", "moltbot/moltbot"]),
            node("urfave-cli", &["urfave/cli"]),
            node("anthropics-skills", &["anthropics/skills"]),
            node("huggingface-skills", &["huggingface/skills"]),
            node("acme-tools", &["acme/tools"]),
        ];
        let matcher = NodeMatcher::new(&nodes, &cues);
        let found = |text: &str| -> Vec<String> {
            extract(text, &matcher, &cues, Some("atlas")).iter().map(|m| matcher.node_id(m.node).to_string()).collect()
        };
        assert_eq!(found("- Benchmarked vectorlite recall: 0.9."), ["someorg/vectorlite"]);
        assert_eq!(found("- Benchmarked someorg/vectorlite recall: 0.9."), ["someorg/vectorlite"]);
        assert_eq!(found("- Studied how clawdbot routes messages; moltbot kept it."), ["openclaw", "openclaw"]);
        // Too short ("cli"), or the name part of two nodes ("skills"): not a name.
        assert!(found("- Benchmarked the cli and the skills: fine.").is_empty());
        // A short all-letter name part may be a word: it needs repo context or a cue.
        assert!(found("- Sharpened the tools.").is_empty());
        assert_eq!(found("- Benchmarked tools: fine."), ["acme-tools"]);
    }

    #[test]
    fn repo_flag_of_a_testing_command_is_a_testing_cue() {
        let found = check("- Ran `patina scrape code --force --repo dojo` and it worked");
        assert_eq!(found, vec![("dojo".into(), CueClass::Testing, "patina scrape code --force --repo dojo".into())]);
        let found = check("- Case-insensitive repo lookup: --repo sdl finds the directory");
        assert_eq!(found[0].0, "SDL");
        // `oxidize` builds a repo's semantic index: the project's pipeline run on it.
        let found = check("$ patina oxidize --repo dojo --quantization f16 --force");
        assert_eq!(found, vec![("dojo".into(), CueClass::Testing, "$ patina oxidize --repo dojo".into())]);
        // A comma list after a flag names each repo it runs on (stop 54, sets 17 and 29).
        let found = check("$ patina eval run --fixtures dojo,SDL,game-engine --out eval/results.json");
        let classes: Vec<_> = found.iter().map(|(id, class, _)| (id.as_str(), *class)).collect();
        assert_eq!(
            classes,
            [("dojo", CueClass::Testing), ("SDL", CueClass::Testing), ("game-engine", CueClass::Testing)]
        );
        assert_eq!(found[1].2, "$ patina eval run --fixtures dojo,SDL");
        // Not a list after another word, nor a flag of a command that tests nothing.
        assert_eq!(cue_of("$ patina eval run --out dojo,SDL", "SDL").0, CueClass::Plain);
        assert_eq!(cue_of("$ patina mother sync --only dojo,SDL", "SDL").0, CueClass::Plain);
        // A command that names each repo by its flag is no bulk listing (stop 54, set 19).
        let many = "$ patina scrape --repo dojo --repo SDL --repo duckdb --repo game-engine --repo loro --repo cuti";
        let found = check(many);
        assert_eq!(found.len(), 6);
        assert!(found.iter().all(|(_, class, _)| *class == CueClass::Testing), "{found:?}");
        let listing = "dojo, SDL, duckdb, game-engine, loro and cuti were tested on";
        assert!(check(listing).iter().all(|(_, class, _)| *class == CueClass::Plain));
    }

    /// A flag's comma list is read a bounded way back (`MAX_FLAG_LIST_ITEMS`): items past
    /// the bound take no flag.
    #[test]
    fn a_long_comma_list_after_a_flag_is_read_a_bounded_way() {
        let (matcher, cues) = world();
        let line = format!("$ patina bench --repos {}", vec!["dojo"; 100].join(","));
        let found = extract(&line, &matcher, &cues, Some("patina"));
        assert_eq!(found.len(), 100);
        assert!(found[..=MAX_FLAG_LIST_ITEMS].iter().all(|m| m.cue_class == CueClass::Testing));
        assert!(found[MAX_FLAG_LIST_ITEMS + 1..].iter().all(|m| m.cue_class == CueClass::Plain));
    }

    /// Stop 54, from three authors' blind logs (sets 13, 21, 29): the project's testing
    /// command run in a repo's folder after a `cd` into it runs on the repo.
    #[test]
    fn the_projects_command_after_a_cd_into_a_repo_tests_it() {
        // On the same line, in a folder that is no repo folder (`fixtures/`).
        let found = check("$ cd fixtures/death-mountain && patina yolo up");
        assert_eq!(
            found,
            vec![("death-mountain".into(), CueClass::Testing, "cd fixtures/death-mountain … patina yolo up".into())]
        );
        // On a later line of the same block.
        let block =
            "```\n$ cd ~/src/test/death-mountain && git pull\nAlready up to date.\n$ patina yolo --dry-run\n```";
        assert_eq!(
            cue_of(block, "death-mountain"),
            (CueClass::Testing, "cd ~/src/test/death-mountain … patina yolo --dry-run".into())
        );
        let init = "$ cd ~/src/death-mountain && git remote -v\norigin  https://github.com/x/death-mountain (fetch)\n$ patina init .";
        assert_eq!(cue_of(init, "death-mountain").0, CueClass::Testing);
        // Other tools run there, the project's command elsewhere, or after the block: no cue.
        assert!(check("$ cd fixtures/death-mountain && devcontainer up --workspace-folder .").is_empty());
        let other = "```\n$ cd ~/.patina/repos/livestore\n$ rg -l materializer packages\n```";
        assert_eq!(cue_of(other, "livestore").0, CueClass::Plain);
        let moved_on = "$ cd ~/src/dojo\n$ cd ~/src/other\n$ patina scrape";
        assert_eq!(cue_of(moved_on, "dojo").0, CueClass::Plain);
        let after_block = "```\n$ cd ~/src/dojo\n```\n\n```\n$ patina scrape\n```";
        assert_eq!(cue_of(after_block, "dojo").0, CueClass::Plain);
        // Not a `cd`: a folder named in passing, and a word that ends in "cd".
        assert!(check("$ ls fixtures/death-mountain && patina yolo up").is_empty());
        assert!(check("$ abcd fixtures/death-mountain && patina yolo up").is_empty());
    }

    #[test]
    fn archive_folder_paths_are_not_the_dust_repo() {
        assert!(check("- Moved notes to `layer/dust/research-2025/model.md`").is_empty());
        assert!(check("see layer/dust/repos/ for the clones").is_empty());
        let found = check("the clone lives in layer/dust/repos/dojo now");
        assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["dojo"]);
        let found = check("cloned to ~/.patina/repos/SDL");
        assert_eq!(found[0].0, "SDL");
    }

    #[test]
    fn ambiguous_ids_need_context_or_a_cue() {
        assert!(check("Moved old docs to dust").is_empty());
        assert!(check("Moved redundant patterns to dust/archive/").is_empty());
        assert!(check("Layer system for pattern evolution (Core → Surface → Dust)").is_empty());
        assert!(check("OpenAI Codex/Claude Code GitHub Actions").is_empty());
        assert!(check("The Codex adapter writes hooks").is_empty());
        assert_eq!(check("Successfully tested fix with SDL and dust repositories").len(), 2);
        assert_eq!(check("Looked at openai/codex sandboxing").len(), 1);
        assert!(check("a tiny game engine in the browser").is_empty());
    }

    #[test]
    fn word_boundaries_and_longest_match() {
        assert!(check("the dojos and undojo and dojo_core and asdf-dojo plugin").is_empty());
        let found = check("Ran codex-autorunner tickets as a test on it");
        assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["codex-autorunner"]);
        let found = check("Installed Scryer Prolog; scryer prolog lowercase is not a name");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "scryer-prolog");
    }

    #[test]
    fn nearest_cue_in_the_same_sentence_wins() {
        let found = check("Studied the dojo world contract. Later we benchmarked SDL.");
        assert_eq!(found[0], ("dojo".into(), CueClass::Learning, "Studied".into()));
        assert_eq!(found[1], ("SDL".into(), CueClass::Testing, "benchmarked".into()));
        let found = check("Analyzed the scraped dojo codebase");
        assert_eq!(found[0], ("dojo".into(), CueClass::Learning, "Analyzed".into()));
        let found = check("We talked about duckdb for a while");
        assert_eq!(found[0].1, CueClass::Plain);
    }

    #[test]
    fn the_noun_a_mention_qualifies_beats_weak_cues_around_it() {
        // "explored" is a weak learning cue; "the duckdb integration" is the project's own.
        let found = check("Explored the duckdb integration for a memory system");
        assert_eq!(found[0], ("duckdb".into(), CueClass::Using, "integration".into()));
        // A strong cue still decides its sentence.
        let found = check("Studied the dojo client in depth");
        assert_eq!(found[0], ("dojo".into(), CueClass::Learning, "Studied".into()));
    }

    #[test]
    fn the_projects_own_repo_is_used_whatever_the_verb() {
        let (matcher, cues) = world();
        let found = extract("- Analyzed Patina's dagger integration by examining:", &matcher, &cues, Some("patina"));
        assert_eq!(
            (found[0].cue_class, found[0].cue.as_str(), found[0].strong_cue),
            (CueClass::Using, "Patina's", true)
        );
        assert!(found[0].bound, "exemplars leave it");
        let found = check("Analyzed our own duckdb with window functions");
        assert_eq!(found[0], ("duckdb".into(), CueClass::Using, "our own".into()));
        // An ending still decides; another project's possessive is no owner.
        assert_eq!(check("Removed our dagger dependency")[0].1, CueClass::Ending);
        assert_eq!(check("Analyzed opencode's dagger setup")[0].1, CueClass::Learning);
        // A compound is bound too (a weak cue exemplars leave alone); a plain weak cue is not.
        let found = extract("Integrate with existing dagger-based patterns", &matcher, &cues, Some("patina"));
        assert!(found[0].bound && !found[0].strong_cue);
        let found = extract("Explored how dagger works", &matcher, &cues, Some("patina"));
        assert!(!found[0].bound);
    }

    #[test]
    fn bulk_lines_lose_their_cues_but_keep_the_mentions() {
        let (matcher, cues) = world();
        let text = "- Tested all: dojo, SDL, dust repo, duckdb, dagger, scryer-prolog, codex-autorunner";
        let found = extract(text, &matcher, &cues, Some("patina"));
        assert_eq!(found.len(), 7);
        assert!(found.iter().all(|m| m.cue_class == CueClass::Plain && m.co_mentions == 7));
    }

    #[test]
    fn a_cue_over_several_repos_is_a_sweep_of_test_subjects() {
        let (matcher, cues) = world();
        let cue_of = |text: &str| -> Vec<(String, CueClass, String)> {
            extract(text, &matcher, &cues, Some("patina"))
                .into_iter()
                .map(|m| (matcher.node_id(m.node).to_string(), m.cue_class, m.cue))
                .collect()
        };
        let found = cue_of("Analyzed the database contents from SDL, duckdb and dagger repos");
        assert!(found.iter().all(|(_, class, cue)| *class == CueClass::Testing
            && cue == "Analyzed (3 repos in one sentence: a sweep of test subjects)"));
        assert_eq!(found.len(), 3);
        // One or two repos: studied, not swept.
        assert!(cue_of("Analyzed rqlite and dagger codebases").iter().all(|(_, c, _)| *c == CueClass::Learning));
        assert!(cue_of("Analyzed SDL and dagger").iter().all(|(_, c, _)| *c == CueClass::Learning));
        // A cue inherited from a lead-in stays: the list is of what was studied.
        let found = cue_of("Studied for the design:\n- SDL, duckdb, dagger: their plugin loading\n");
        assert!(found.iter().all(|(_, c, _)| *c == CueClass::Learning), "{found:?}");
        // A testing or using cue over several repos keeps its class.
        assert!(cue_of("Tested on SDL, duckdb and dagger").iter().all(|(_, c, _)| *c == CueClass::Testing));
        // A weak testing cue over several repos names the run's subjects: strong. Over
        // two, it stays weak; a weak learning cue over several becomes a weak testing one.
        let strength = |text: &str| -> Vec<(CueClass, bool)> {
            extract(text, &matcher, &cues, Some("patina")).into_iter().map(|m| (m.cue_class, m.strong_cue)).collect()
        };
        assert_eq!(
            strength("Successfully indexed 3 large repositories (SDL, duckdb, dagger)"),
            [(CueClass::Testing, true); 3]
        );
        assert_eq!(strength("Successfully indexed SDL and duckdb"), [(CueClass::Testing, false); 2]);
        assert_eq!(
            strength("Explored documentation patterns across SDL, duckdb and dagger"),
            [(CueClass::Testing, false); 3]
        );
    }

    #[test]
    fn a_command_run_on_several_repos_tests_each() {
        let (matcher, cues) = world();
        let found = extract("Ran the new scrape on dojo, and on SDL and dagger.", &matcher, &cues, None);
        assert_eq!(found.len(), 3);
        assert!(
            found.iter().all(|m| m.cue_class == CueClass::Testing && m.strong_cue && m.cue == "Ran the new scrape on")
        );
    }

    #[test]
    fn a_weak_testing_word_with_a_counted_result_is_a_test_run() {
        let (matcher, cues) = world();
        let found = extract("Successfully indexed dojo repository: 454 symbols from 235 files", &matcher, &cues, None);
        assert_eq!(found[0].cue_class, CueClass::Testing);
        assert!(found[0].strong_cue);
        assert_eq!(found[0].cue, "indexed (with a counted result: \"454 symbols\")");
        // Without a result the word stays weak.
        let found = extract("Cairo now extracts more symbols than Rust in dojo", &matcher, &cues, None);
        assert_eq!((found[0].cue_class, found[0].strong_cue), (CueClass::Testing, false));
    }

    #[test]
    fn sentence_is_cleaned_and_lines_are_counted() {
        let (matcher, cues) = world();
        let found = extract("# Title\n\n- **Tested** on SDL: 84k symbols. Next thing.\n", &matcher, &cues, None);
        assert_eq!(found[0].line, 3);
        assert_eq!(found[0].sentence, "Tested on SDL: 84k symbols.");
        let long = format!("{} dojo {}", "word ".repeat(200), "more ".repeat(200));
        let found = extract(&long, &matcher, &cues, None);
        assert!(found[0].sentence.len() <= MAX_SENTENCE + 16 && found[0].sentence.contains("dojo"));
    }

    #[test]
    fn ending_cues_stand_right_at_the_mention() {
        let ending = |text: &str| -> Vec<(String, String)> {
            let (matcher, cues) = world();
            extract(text, &matcher, &cues, Some("patina"))
                .into_iter()
                .filter(|m| m.cue_class == CueClass::Ending)
                .map(|m| (matcher.node_id(m.node).to_string(), m.cue))
                .collect()
        };
        assert_eq!(
            ending("- Removed the duckdb dependency from Cargo.toml"),
            vec![("duckdb".into(), "removed".into())]
        );
        assert_eq!(ending("We migrated away from duckdb."), vec![("duckdb".into(), "migrated away from".into())]);
        assert_eq!(
            ending("The dagger integration is no longer used"),
            vec![("dagger".into(), "is no longer used".into())]
        );
        assert_eq!(ending("Replaced duckdb with dagger"), vec![("duckdb".into(), "replaced".into())]);
        assert_eq!(ending("Switched from duckdb to SQLite."), vec![("duckdb".into(), "switched from".into())]);
        assert_eq!(ending("Migrated from duckdb to SQLite"), vec![("duckdb".into(), "migrated from".into())]);
        assert_eq!(ending("Deleted the dagger adapter"), vec![("dagger".into(), "deleted".into())]);
        assert_eq!(
            ending("duckdb is no longer a dependency"),
            vec![("duckdb".into(), "is no longer a dependency".into())]
        );
        assert!(ending("Migrated from SQLite to duckdb").is_empty());
        assert!(ending("Migrated from duckdb 0.9 to 1.1").is_empty());
        assert!(ending("Removed dead code from the dagger module").is_empty());
        assert!(ending("parse time for SDL dropped from 7s to 2s").is_empty());
        assert!(ending("Removed all deprecated dagger template files").is_empty());
    }

    #[test]
    fn a_removal_named_by_its_noun_participle_or_command_ends_the_repo() {
        let ending = |text: &str| -> Vec<(String, String)> {
            check(text).into_iter().filter(|(_, class, _)| *class == CueClass::Ending).map(|(r, _, c)| (r, c)).collect()
        };
        let one = |repo: &str, cue: &str| vec![(repo.to_string(), cue.to_string())];
        // The noun of the removal right after the name.
        assert_eq!(ending("- Executed complete Dagger removal using scalpel approach"), one("dagger", "removal"));
        assert_eq!(ending("Same reasoning as last week's duckdb removal."), one("duckdb", "removal"));
        // A reduced passive after an object word, never right after the name.
        assert_eq!(ending("Dead optional DuckDB feature removed from Cargo.toml."), one("duckdb", "feature removed"));
        assert!(ending("turso removed the old sync API in 0.4").is_empty());
        assert!(ending("The duckdb backend dropped from 40s to 12s").is_empty());
        // One word between the name and an object word.
        assert_eq!(
            ending("Replaced the dagger release pipeline with a plain GitHub Actions matrix"),
            one("dagger", "replaced")
        );
        assert_eq!(ending("scryer-prolog has been gone since the 14th."), one("scryer-prolog", "has been gone"));
        // A dependency no more, said as a state; not a repo that never was one.
        assert_eq!(
            ending("- duckdb has not been a dependency since Oct 2025, scrape output is SQLite"),
            one("duckdb", "has not been a dependency since")
        );
        assert_eq!(ending("turso isn't a dependency anymore."), one("turso", "isn't a dependency anymore"));
        assert!(ending("SDL is not a dependency, it is a test subject.").is_empty());
        // The inverse of an add command; an ambiguous name is taken on an ending.
        assert_eq!(ending("$ cargo remove loro"), one("loro", "cargo remove"));
        assert_eq!(ending("- Removed loro and the `crdt` feature"), one("loro", "removed"));
        assert_eq!(cue_of("$ cargo add --dev loro", "loro").0, CueClass::Using);
        assert!(check("loro and the crdt feature were fine").is_empty());
        // A diff's removed manifest line takes the dependency out; an added one declares it.
        let diff = "```diff\n [dependencies]\n-turso = \"0.4.2\"\n-scryer-prolog = { version = \"0.9.4\", optional = true }\n+duckdb = \"1.1\"\n```";
        assert_eq!(
            ending(diff),
            vec![
                ("turso".to_string(), "a diff's removed line `-turso = \"0.4.2\"`".to_string()),
                (
                    "scryer-prolog".to_string(),
                    "a diff's removed line `-scryer-prolog = { version = \"0.9.4\", optional = true }`".to_string()
                )
            ]
        );
        assert_eq!(cue_of(diff, "duckdb").0, CueClass::Using);
        // A line removed and added again, in either order, is a change of version.
        for bump in [
            "```diff\n [dependencies]\n-duckdb = \"1.1\"\n+duckdb = { version = \"1.2\" }\n```",
            "```diff\n+duckdb = \"1.2\"\n serde = \"1\"\n-duckdb = \"1.1\"\n```",
        ] {
            assert!(ending(bump).is_empty(), "{bump}");
            assert_eq!(cue_of(bump, "duckdb").0, CueClass::Using, "{bump}");
        }
        assert!(check("-turso is the flag\n--turso = \"0.4\"").is_empty());
    }

    #[test]
    fn a_denied_claim_contradicts_and_a_near_miss_ends_nothing() {
        let ending = |text: &str| -> Vec<(String, String)> {
            check(text)
                .into_iter()
                .filter(|(_, class, _)| *class == CueClass::Ending)
                .map(|(id, _, cue)| (id, cue))
                .collect()
        };
        // A claim of where a design came from, negated right before the repo.
        assert_eq!(
            ending("The sandbox was **not** ported from openai/codex. The kernel docs were."),
            vec![("codex".into(), "not ported from".into())]
        );
        assert_eq!(
            ending("The eventlog design did not come from dojo."),
            vec![("dojo".into(), "not come from".into())]
        );
        assert_eq!(
            ending("It wasn't really inspired by dojo at all"),
            vec![("dojo".into(), "wasn't inspired by".into())]
        );
        // Not negated, or the negation too far away: a claim, no ending.
        assert!(ending("The sandbox was ported from openai/codex").is_empty());
        assert!(ending("Not what I expected, but the design came from dojo").is_empty());
        // Before the repo's possessive, a verb of taking negated denies the claim.
        assert_eq!(
            ending("Turns out we never took dojo's approach at all; we got there on our own."),
            vec![("dojo".into(), "never took".into())]
        );
        assert_eq!(cue_of("We took dojo's approach.", "dojo").0, CueClass::Learning);
        // Not a study not done yet.
        assert!(ending("I haven't read dojo's docs yet.").is_empty());
        // A removal that nearly happened is none.
        assert!(ending("We almost removed the dagger adapter, but kept it").is_empty());
        assert!(ending("We came close to dropping duckdb for good").is_empty());
        assert_eq!(ending("We removed the dagger adapter"), vec![("dagger".into(), "removed".into())]);
    }

    #[test]
    fn an_item_about_a_repo_takes_the_cues_of_its_sentences() {
        // The item's head is its subject: a later sentence of the item says what was done.
        let item = "- **dojo** (dojoengine/dojo), `crates/sozo/`: sozo diffs the manifest. \
                    Read the migrate code in the repo closely.";
        let found = check(item);
        assert_eq!(found[0].0, "dojo");
        assert_eq!(found[0].1, CueClass::Learning, "{found:?}");
        assert!(found[0].2.ends_with("(in the item it heads)"), "{found:?}");
        // Not a sentence that merely opens with the repo, nor a cue about another repo.
        assert_eq!(
            check("- Dojo is the interesting one: slow on Cairo. Read the macros in the repo closely.")[0].1,
            CueClass::Plain
        );
        let other = check("- dojo: the Cairo side is slow. Studied SDL's macros closely.");
        assert_eq!(other.iter().find(|m| m.0 == "dojo").unwrap().1, CueClass::Plain, "{other:?}");
        // "X uses the Y" is X's use of something, not the project's use of X.
        assert_eq!(check("The dojo query uses the model name")[0].1, CueClass::Plain);
        assert_eq!(check("The importer uses the dojo manifest")[0].1, CueClass::Using);
    }

    #[test]
    fn a_repo_cloned_and_read_is_studied() {
        assert_eq!(
            check("Cloned dojoengine/dojo and read the migrate path end to end"),
            vec![("dojo".into(), CueClass::Learning, "Cloned … and read".into())]
        );
        assert_eq!(check("Cloned dojo and went through its layout")[0].1, CueClass::Learning);
        // Fetched and run is no study; nor a study verb further on.
        assert_ne!(check("Cloned dojo and ran the scrape: 14s")[0].1, CueClass::Learning);
        assert_eq!(check("Cloned dojo; later that day I read a blog post")[0].1, CueClass::Plain);
    }

    #[test]
    fn a_study_of_their_code_is_a_study_of_the_repo_named_before() {
        assert_eq!(
            cue_of("- [x] **memista** staleness. Read their freshness code: each fact decays.", "memista"),
            (CueClass::Learning, "Read their (their: memista)".into())
        );
        assert_eq!(
            cue_of("Went to the `examples/` folder in the dojo repo and read its hook example again.", "dojo").0,
            CueClass::Learning
        );
        // The pronoun is the repo's named last before it: not cuti's here.
        let found = check("The dojo repo holds worlds; memista is simpler. Read their store code.");
        assert_eq!(
            found.iter().map(|m| (m.0.as_str(), m.1)).collect::<Vec<_>>(),
            [("dojo", CueClass::Plain), ("memista", CueClass::Learning)]
        );
        // Never read is no study.
        assert_eq!(cue_of("memista came up again. I've never read its code.", "memista").0, CueClass::Plain);
        // An ambiguous name is not made a repo by a pronoun.
        assert!(check("The codex output looked light. Read its rows only.").is_empty());
    }

    #[test]
    fn the_index_of_a_repo_with_no_package_is_not_built_on_it() {
        // Stop 57: set 21. SDL ships no package in this world; turso does.
        assert_eq!(
            cue_of("Same queries as July, run against the SDL index.", "SDL"),
            (CueClass::Plain, "index (of a repo with no package)".into())
        );
        assert_eq!(cue_of("The turso index holds the rows.", "turso").0, CueClass::Using);
    }

    #[test]
    fn a_repos_name_heading_a_rust_path_is_no_test_subject() {
        // Stop 57: set 37.
        let failed = "- memista failed on oxidize: 9 model-only files (`#[dojo::model]` structs)";
        assert_eq!(cue_of(failed, "memista").0, CueClass::Testing);
        assert_eq!(cue_of(failed, "dojo").0, CueClass::Plain);
    }

    #[test]
    fn a_sentence_of_taking_with_no_source_takes_from_the_repo_named_before() {
        // Stop 57: set 35.
        let policy = "gemini-cli's policy engine is the cleanest version I know of: rules in TOML, each with a \
                      priority. Took the priority model for yolo's `policy.toml`.";
        let (class, why) = cue_of(policy, "gemini-cli");
        assert_eq!(class, CueClass::Learning);
        assert_eq!(why, "Took (a later sentence: gemini-cli)");
        assert_eq!(
            cue_of("The livestore event log keeps two states. Adopted that for blocks.", "livestore").0,
            CueClass::Learning
        );
        // No design taken, a source of its own, a negation, another repo between, too far.
        for (text, repo) in [
            ("The dojo world has 412 files. Took notes on the run.", "dojo"),
            ("The dojo world has 412 files. Took a step back.", "dojo"),
            ("livestore keeps two states. Took the block layout from the old store.", "livestore"),
            ("livestore keeps two states. Took nothing: the layout differs.", "livestore"),
            ("livestore keeps two states. memista keeps one. Took that for blocks.", "livestore"),
            ("livestore keeps two states. One. Two. Took that for blocks.", "livestore"),
        ] {
            assert_eq!(cue_of(text, repo).0, CueClass::Plain, "{text}");
        }
        assert_eq!(
            cue_of("livestore keeps two states. memista keeps one. Took that for blocks.", "memista").0,
            CueClass::Learning
        );
    }

    /// Whether `repo`'s first mention in `text` has a strong cue.
    fn strong(text: &str, repo: &str) -> bool {
        let (matcher, cues) = world();
        let found = extract(text, &matcher, &cues, Some("patina"));
        found.iter().find(|m| matcher.node_id(m.node) == repo).expect(repo).strong_cue
    }

    #[test]
    fn work_done_through_a_repo_uses_it() {
        // Stop 58: sets 1 and 39.
        for (text, why) in [
            (
                "- Wrote the rule as `stale.pl` and loaded it through scryer-prolog alongside the others",
                "it through scryer-prolog",
            ),
            (
                "- evaluated through scryer-prolog: `Machine::consult_module_string(\"skills\", rules)`",
                "evaluated through scryer-prolog",
            ),
            ("- full rebuild through the turso crate's bulk loader", "rebuild through the turso"),
        ] {
            assert_eq!(cue_of(text, repo_of(why)), (CueClass::Using, why.into()), "{text}");
            assert!(strong(text, repo_of(why)), "{text}");
        }
        // A verb of reading or passing, a Rust path of a test subject, someone else's work.
        for (text, repo) in [
            ("Looked through dojo before lunch.", "dojo"),
            ("Almost every system goes through `dojo::world::WorldStorage`.", "dojo"),
            ("- Then back through dojo for the last time", "dojo"),
            ("- #221 came from someone driving gemini through codex-autorunner.", "codex-autorunner"),
            ("The user said their other workspace queues runs through codex-autorunner.", "codex-autorunner"),
        ] {
            assert_ne!(cue_of(text, repo).0, CueClass::Using, "{text}: {:?}", cue_of(text, repo));
        }
        // An owner named like a hedge word is a name: the run on the fork stands.
        assert_eq!(cue_of("- Tested the scraper on [[someone/duckdb]]: 4,120 symbols", "duckdb").0, CueClass::Testing);
    }

    fn repo_of(why: &str) -> &'static str {
        ["scryer-prolog", "turso"].into_iter().find(|r| why.contains(r)).unwrap()
    }

    #[test]
    fn a_version_change_of_a_repo_is_a_bump_unless_it_is_a_score_or_a_test_subjects() {
        // Stop 58: sets 24, 35, 37 and 39.
        for (text, change) in [
            ("- While in Cargo.toml: scryer-prolog 0.10.0 → 0.10.1 (patch release)", "0.10.0 → 0.10.1"),
            ("- scryer-prolog 0.9 → 0.10 — belief confidence rules broke:", "0.9 → 0.10"),
            ("    Updating turso v0.4.1 -> v0.5.0", "v0.4.1 -> v0.5.0"),
            ("### turso 1.1 to 1.2", "1.1 to 1.2"),
        ] {
            let (class, why) = cue_of(text, if text.contains("turso") { "turso" } else { "scryer-prolog" });
            assert_eq!(class, CueClass::Using, "{text}");
            assert!(why.contains(change) && why.ends_with(VERSION_CHANGE), "{text}: {why}");
        }
        // A recall's change reads as a score, not a release.
        assert_ne!(cue_of("livestore 0.73 → 0.87 at @10 from #228 alone.", "livestore").0, CueClass::Using);
        assert_eq!(version_change_after("x 0.73 → 0.87", 1, 13), None);
        assert_eq!(version_change_after("x 0.11 → 0.12", 1, 13), None);
        assert_eq!(version_change_after("x 0.9 → 0.10 ok", 1, 15), Some("0.9 → 0.10"));
        assert_eq!(version_change_after("x 2.16 → 2.19", 1, 15), Some("2.16 → 2.19"));
        assert_eq!(version_change_after("x 2.16abc → 2.19", 1, 18), None);
        // Not a run of numbers longer than a version, however long.
        let run = format!("x 1.2 → {}", "1234567.".repeat(10_000));
        assert_eq!(version_change_after(&run, 1, run.len()), None);
        assert_eq!(version_change_after("x 1.2 → 1.2.3.4.5", 1, 19), None);
        // A test subject's new release, in a file that tests it.
        let fixture = "- dojo 1.6.0 → 1.7.0 upstream.\n- re-scraped dojo: 412 files, 3,114 symbols\n";
        assert_eq!(cue_of(fixture, "dojo").0, CueClass::Plain, "{:?}", check(fixture));
    }

    #[test]
    fn a_repo_named_folder_of_the_projects_adapters_is_its_adapter() {
        // Stop 58: sets 6, 21 and 39.
        for text in [
            "- `a1f3c9e adapters/gemini-cli: read model default, pass --model only if set`",
            "- New `src/adapters/gemini-cli.rs` (412 lines): writes the config",
        ] {
            assert_eq!(cue_of(text, "gemini-cli"), (CueClass::Using, "adapters/gemini-cli".into()), "{text}");
            assert!(strong(text, "gemini-cli"), "{text}");
        }
        // An ordinary word, another folder, a folder inside a word.
        assert!(
            check("pulled into `src/adapters/dust.rs`, our own adapter dust")
                .iter()
                .all(|(id, class, _)| id != "dust" || *class != CueClass::Using)
        );
        assert!(check("see `layer/dojo/notes.md`").iter().all(|(id, ..)| id != "dojo"));
        assert!(check("see `myadapters/dojo.rs`").iter().all(|(id, ..)| id != "dojo"));
    }

    #[test]
    fn a_crate_path_an_agent_install_and_a_project_command_on_a_repo() {
        // Stop 59: sets 14, 17, 31, 35 and 41.
        // An ambiguous name heading a Rust path counts when it is the repo's crate.
        let path = "```rust\nlet doc = loro::LoroDoc::new();\n```\n";
        assert_eq!(cue_of(path, "loro"), (CueClass::Using, "Rust path `loro::LoroDoc`".into()));
        assert!(strong(path, "loro"));
        // Not an ambiguous name that names no crate of its repo (cuti ships none).
        assert!(check("let l = cuti::Layout::new();").iter().all(|(id, ..)| id != "cuti"));
        // A global install of a tool is an add command, `npm i` as well as `npm install`.
        for text in ["- `npm i -g @google/gemini-cli@latest` -> 1.6.0", "$ npm install -g @google/gemini-cli"] {
            assert_eq!(cue_of(text, "gemini-cli").0, CueClass::Using, "{text}");
            assert!(strong(text, "gemini-cli"), "{text}");
        }
        // Not `npm init` or `npm info`, whose word only begins like it.
        assert!(!strong("$ npm info @google/gemini-cli", "gemini-cli"));
        // Not a thing built with the repo: "a Dojo game" is death-mountain.
        let (class, why) = cue_of("Cairo extraction + yolo on a Dojo game", "dojo");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "modifies a noun: \"a Dojo game\""));
        assert_eq!(cue_of("- yolo on a dojo", "dojo").0, CueClass::Testing);
        assert_eq!(cue_of("- yolo on dojo game contracts", "dojo").0, CueClass::Testing);
        // The project's own commands named bare before "on" run it on the repo.
        for (text, repo) in [
            ("yolo on death-mountain rebuilt + `scarb build` inside ✓", "death-mountain"),
            ("- Oxidize on livestore: 9,614 chunks, 2m41s", "livestore"),
            ("- Bench on dojo: MRR 0.641 → 0.668", "dojo"),
        ] {
            assert_eq!(cue_of(text, repo).0, CueClass::Testing, "{text}");
            assert!(strong(text, repo), "{text}");
        }
    }

    #[test]
    fn a_path_into_a_repos_tree_and_a_name_glossed_by_its_owner() {
        // Stop 59: sets 6, 13, 31, 33, 37, 39 and 41.
        for (text, repo) in [
            ("dojoengine/dojo `crates/sozo/ops/` → sozo diffs the manifest", "dojo"),
            ("Opened livestore `packages/core/src/memory/` (episodic memory):", "livestore"),
            ("livestore (`livestorejs/livestore`, the old repo) `src/memory/` — the event log:", "livestore"),
        ] {
            let (class, why) = cue_of(text, repo);
            assert_eq!(class, CueClass::Learning, "{text}");
            assert!(why.ends_with("(a path into its tree)"), "{why}");
            assert!(strong(text, repo), "{text}");
        }
        // A local file, a command, a path with no folder, a sentence that says another act.
        for (text, repo) in [
            ("gemini-cli `~/.gemini/settings.json` now holds the hook", "gemini-cli"),
            ("dojo `sozo build` failed", "dojo"),
            ("dojo `Scarb.toml` pins 2.8", "dojo"),
            ("Scraped dojo `crates/`: 1,204 symbols", "dojo"),
        ] {
            assert_ne!(cue_of(text, repo).0, CueClass::Learning, "{text}");
        }
        // An ambiguous name glossed by its own `owner/name` is the repo, known owner or not.
        assert!(check("kit (sveltejs/kit checkout): container build 2m41s").iter().any(|(id, ..)| id == "kit"));
        assert!(check("kit (sveltejs/kitten): container build").iter().all(|(id, ..)| id != "kit"));
        assert!(check("kit (our own): container build").iter().all(|(id, ..)| id != "kit"));
    }

    #[test]
    fn reading_what_is_said_of_a_repo_or_its_figure_is_no_study() {
        assert_eq!(cue_of("memista came up while reading dojo issues", "dojo").0, CueClass::Plain);
        assert_eq!(cue_of("User has been reading dojo write-ups again.", "dojo").0, CueClass::Plain);
        assert_eq!(
            cue_of("- Dug into dojo's 0.41. Of its 60 queries, 23 ask about components", "dojo").0,
            CueClass::Plain
        );
        // Its code or design is.
        assert_eq!(cue_of("Spent the morning reading dojo end to end", "dojo").0, CueClass::Learning);
        assert_eq!(cue_of("- Dug into dojo's world contract.", "dojo").0, CueClass::Learning);
    }

    #[test]
    fn a_part_that_stays_on_a_repo_uses_it() {
        assert_eq!(
            cue_of("Only the event log moves. The vector files stay in turso; nothing else changes.", "turso"),
            (CueClass::Using, "stay in turso".into())
        );
        assert_eq!(cue_of("the code index stays on duckdb + rusqlite", "duckdb").0, CueClass::Using);
        // Not a repo further on: "active stays in filesystem, dust blows to rqlite".
        let found = check("- Database future: active stays in filesystem, SDL blows to rqlite");
        assert!(!found.is_empty() && found.iter().all(|m| m.1 != CueClass::Using), "{found:?}");
    }

    #[test]
    fn a_learning_lead_in_naming_its_source_is_about_that_source() {
        let list = "**Idea taken from SDL (applies to our duckdb setup):**\n\
                    - Write a generation counter into the duckdb file\n\
                    - Rebuild like SDL does when they disagree\n";
        let found = check(list);
        let of = |id: &str| found.iter().filter(|m| m.0 == id).map(|m| m.1).collect::<Vec<_>>();
        assert_eq!(of("duckdb")[1], CueClass::Plain, "{found:?}");
        assert!(of("SDL").iter().all(|c| *c == CueClass::Learning), "{found:?}");
        // An inline lead-in too (stop 57: set 37).
        let inline = "- took from memista: drop the HashMap; duckdb key = rowid now";
        assert_eq!(cue_of(inline, "memista").0, CueClass::Learning);
        assert_eq!(cue_of(inline, "duckdb").0, CueClass::Plain);
    }

    #[test]
    fn a_sweep_is_a_sentence_a_subjects_own_setup_and_a_diffs_deleted_text() {
        // Three repos in three sentences of one paragraph: no sweep, the study stays.
        let paragraph = "With SDL and dagger both gone there is no C fixture. I read how duckdb's planner works.\n";
        assert_eq!(cue_of(paragraph, "duckdb").0, CueClass::Learning);
        // A test subject's own setup, read: no study of its design.
        assert_eq!(cue_of("Digging into dojo's own layout\n", "dojo").0, CueClass::Plain);
        assert_eq!(cue_of("Digging into dojo's layout\n", "dojo").0, CueClass::Learning);
        // An intention not acted on.
        assert_eq!(cue_of("I've been meaning to read how dojo does it.\n", "dojo").0, CueClass::Plain);
        // A diff's removed line is deleted text; its added line and a removed dependency
        // line still speak.
        let diff = "```diff\n-- Memory: episodic memory inspired by duckdb\n+- Memory: our own\n-scryer-prolog = \"0.9\"\n```\n";
        let (class, cue) = cue_of(diff, "duckdb");
        assert_eq!((class, cue.as_str()), (CueClass::Plain, "a diff's removed line (deleted text): inspired by"));
        assert_eq!(cue_of(diff, "scryer-prolog").0, CueClass::Ending);
        let added = "```diff\n+- Memory: episodic memory inspired by duckdb\n```\n";
        assert_eq!(cue_of(added, "duckdb").0, CueClass::Learning);
        // A list outside a diff fence is no diff.
        let yaml = "```yaml\n- inspired by duckdb\n```\n";
        assert_ne!(cue_of(yaml, "duckdb").1, "a diff's removed line (deleted text): inspired by");
    }

    /// A table row's verdict cell ends the repos the row names by itself before it; what
    /// follows the verdict word must be when or how, and "in" or "keep" ends nothing.
    #[test]
    fn a_table_rows_verdict_ends_the_repos_it_names() {
        let table = "| fixture | lang | why added | verdict |\n|---|---|---|---|\n";
        let ended = |row: &str, repo: &str| {
            // A name dropped as ambiguous is no mention, so nothing it could end.
            let found = check(&format!("{table}{row}\n")).into_iter().find(|(id, ..)| id == repo);
            found.and_then(|(_, class, cue)| (class == CueClass::Ending).then_some(cue))
        };
        assert_eq!(
            ended("| game-engine (Cairo monorepo) | cairo | YOLO test project | drop - over-covered |", "game-engine")
                .as_deref(),
            Some("drop")
        );
        assert_eq!(
            ended("| codex-autorunner | go | a name collision with gemini-cli | drop |", "codex-autorunner").as_deref(),
            Some("drop")
        );
        assert_eq!(
            ended("| codex-autorunner | go | a name collision with gemini-cli | drop |", "gemini-cli"),
            None,
            "not its row's name"
        );
        assert_eq!(
            ended("| duckdb | rust | removed Jun 15, replaced by turso | gone |", "duckdb").as_deref(),
            Some("gone")
        );
        assert_eq!(ended("| duckdb | rust | removed Jun 15, replaced by turso | gone |", "turso"), None);
        assert_eq!(
            ended("| hooks | memista (vector + SQLite) | by assumption | **retracted** |", "memista").as_deref(),
            Some("retracted")
        );
        assert_eq!(
            ended("| Codex CLI (openai/codex) | ts | trial | dropped Jun 14 |", "codex").as_deref(),
            Some("dropped")
        );
        assert_eq!(
            ended("| scryer-prolog | rust | removed Jun 8, re-added Jun 21 | in |", "scryer-prolog"),
            None,
            "the last cell decides"
        );
        assert_eq!(ended("| turso | rust | 12.1s | reverted to WAL mode |", "turso"), None, "a change, not a verdict");
        assert_eq!(ended("| loro | rust | 3 files | dropped 2 symbols |", "loro"), None);
        assert_eq!(ended("| dojo | cairo | fixture | keep |", "dojo"), None);
        assert_eq!(ended("| dojo |", "dojo"), None, "a row of one cell has no verdict");
        assert_eq!(ended("| the fixture that dojo used to be | x | y | removed |", "dojo"), None, "prose, not a name");
        assert_eq!(ended("| dojo | x | y | remové |", "dojo"), None);
        // The stop-47 review: a replacement's column, a glued dash, a modal "may", a long cell.
        assert_eq!(ended("| duckdb | memista | y | removed |", "duckdb").as_deref(), Some("removed"));
        assert_eq!(ended("| duckdb | memista | y | removed |", "memista"), None, "the row's subject is its first name");
        assert_eq!(ended("| dojo | rust | y | drop-in replacement for redb |", "dojo"), None);
        assert_eq!(ended("| dojo | cairo | y | drop may be premature; keep |", "dojo"), None);
        assert_eq!(ended("| dojo | cairo | y | drop \u{2014} over-covered |", "dojo").as_deref(), Some("drop"));
        assert_eq!(ended("| dojo | cairo | y | removed May 3 |", "dojo").as_deref(), Some("removed"));
        let long = format!("| dojo {} | x | y | removed |", "z".repeat(200));
        assert_eq!(ended(&long, "dojo"), None);
        // An ambiguous name ends only alone in its cell.
        assert_eq!(ended("| dust | rust | y | removed |", "dust").as_deref(), Some("removed"));
        assert_eq!(ended("| dust filter | rust | y | removed |", "dust"), None);
        // The final review: the first cell with a mention is the subject; a change of a measure.
        assert_eq!(ended("| the old duckdb backend | memista | y | removed |", "memista"), None);
        assert_eq!(ended("| dojo | cairo | y | dropped from 40s to 12s |", "dojo"), None);
        assert_eq!(ended("| dojo | cairo | y | dropped from the fixture set |", "dojo").as_deref(), Some("dropped"));
    }

    /// A table with a crate column lists the project's dependencies; a lead-in with a cue,
    /// a run's measurement under a repo column and a row's verdict still decide.
    #[test]
    fn a_crate_tables_rows_are_the_projects_dependencies() {
        let audit = "| crate | called from | verdict |\n|---|---|---|\n";
        let of = |text: &str, repo: &str| {
            let (matcher, cues) = world();
            let found = extract(text, &matcher, &cues, Some("patina"));
            found.into_iter().find(|m| matcher.node_id(m.node) == repo).map(|m| (m.cue_class, m.strong_cue, m.cue))
        };
        let row = format!("{audit}| scryer-prolog | `src/rules/engine.rs` | core - bump to 0.10 |\n");
        assert_eq!(of(&row, "scryer-prolog"), Some((CueClass::Using, true, "crate (column \"crate\", line 1)".into())));
        // An ambiguous name counts alone in its cell, not inside prose.
        let row = format!("{audit}| loro | `src/mother/sync_crdt.rs` | keep |\n");
        assert_eq!(of(&row, "loro").map(|m| m.0), Some(CueClass::Using));
        let row = format!("{audit}| the loro-style merge we wrote | `src/mother/sync_crdt.rs` | keep |\n");
        assert_eq!(of(&row, "loro"), None);
        // Not the repo named in another column, nor one in a long cell.
        let row = format!("{audit}| tree-sitter | the way dojo does it | keep |\n");
        assert_eq!(of(&row, "dojo").map(|m| m.0), Some(CueClass::Plain));
        let row = format!("{audit}| dojo {} | x | keep |\n", "z".repeat(200));
        assert_eq!(of(&row, "dojo").map(|m| m.0), Some(CueClass::Plain));
        // The row's verdict ends it.
        let row = format!("{audit}| duckdb | `src/analytics/store.rs` | removed |\n");
        assert_eq!(of(&row, "duckdb").map(|m| m.0), Some(CueClass::Ending));
        // A testing lead-in decides: the crates were scraped.
        let text = format!("Tested these crates:\n\n{audit}| turso | - | 3 panics |\n");
        assert_eq!(of(&text, "turso").map(|m| m.0), Some(CueClass::Testing));
        // "Repo / crate" is both: a run's measurement makes the row a result.
        let table = "| repo / crate | time |\n|---|---|\n| duckdb | 11.2s |\n";
        assert_eq!(of(table, "duckdb").map(|m| m.0), Some(CueClass::Testing));
        let table = "| role | repo / crate | since |\n|---|---|---|\n| rollup store | turso | 2026 |\n";
        assert_eq!(of(table, "turso").map(|m| m.0), Some(CueClass::Using));
        // A corpus column and a Δ column make a results table.
        let table = "| corpus | vectors | p50 |\n|---|---|---|\n| dojoengine/dojo | 21,774 | 1.9 ms |\n";
        assert_eq!(of(table, "dojo").map(|m| m.0), Some(CueClass::Testing));
        let table = "| fixture | Dec | Jan | \u{394} |\n|---|---|---|---|\n| SDL | 0.742 | 0.788 | +0.046 |\n";
        assert_eq!(of(table, "SDL").map(|m| m.0), Some(CueClass::Testing));
    }

    /// A design noun, then "came from": where the design came from, a strong learning cue
    /// for the repo it points at, whatever else the sentence names.
    #[test]
    fn where_a_design_came_from_is_learning() {
        let of = |text: &str, repo: &str| {
            let (matcher, cues) = world();
            let found = extract(text, &matcher, &cues, Some("patina"));
            let mut m = found.into_iter().find(|m| matcher.node_id(m.node) == repo).expect(repo);
            sweep_of_subjects(&mut m, &cues);
            (m.cue_class, m.strong_cue, m.cue)
        };
        assert_eq!(
            of("- The routing approach came from dojo's role templates", "dojo"),
            (CueClass::Learning, true, "approach came from".into())
        );
        assert_eq!(of("That layout came from cuti in Oct 2025 and hasn't changed.", "cuti").0, CueClass::Learning);
        let three = "memista is SDL + duckdb with no text search; the merge logic and weights come from turso";
        assert_eq!(of(three, "turso").0, CueClass::Learning, "no sweep of test subjects");
        // A cause, a denial, and a repo behind the first object are not.
        assert_ne!(of("The panic came from dojo's manifest", "dojo").0, CueClass::Learning);
        assert_ne!(of("The routing panic came from dojo's manifest", "dojo").0, CueClass::Learning);
        assert_ne!(of("The layout bug came from dojo's Scarb.toml", "dojo").0, CueClass::Learning);
        assert_ne!(of("The design did not come from dojo", "dojo").0, CueClass::Learning);
        assert_ne!(of("The design didn\u{2019}t come from dojo", "dojo").0, CueClass::Learning);
        assert_ne!(of("The layout came from cuti, not from dojo.", "dojo").0, CueClass::Learning);
        let second = "The layout comes from the dojo `SKILL.md` spec, and the earlier SDL credit was retracted.";
        assert_eq!(of(second, "dojo").0, CueClass::Learning);
        assert_ne!(of(second, "SDL").0, CueClass::Learning);
    }

    /// The repo as the subject of a verb of staying: the project keeps it.
    #[test]
    fn a_repo_that_stays_is_kept() {
        let using = |text: &str, repo: &str| {
            let (class, cue) = cue_of(text, repo);
            (class == CueClass::Using).then_some(cue)
        };
        assert_eq!(using("- duckdb stays as is", "duckdb").as_deref(), Some("duckdb stays"));
        assert_eq!(
            using("- scryer-prolog stays on 0.9.4 for now", "scryer-prolog").as_deref(),
            Some("scryer-prolog stays")
        );
        assert_eq!(using("**Dagger stays** for build/test pipelines", "dagger").as_deref(), Some("Dagger stays"));
        assert!(using("The turso backend stays.", "turso").is_some());
        assert!(using("scryer-prolog is still the rules engine", "scryer-prolog").is_some());
        // Not an idea, not what stays somewhere else, not a test subject.
        assert_eq!(using("turso stays \"idea\"", "turso"), None);
        assert_eq!(using("duckdb stays out of the release build", "duckdb"), None);
        assert_eq!(using("dojo stays the regression subject for scry routing", "dojo"), None);
        assert_eq!(using("the dojo checkout stays on disk", "dojo"), None);
        assert_eq!(using("turso is still on the roadmap", "turso"), None);
        assert_eq!(using("SDL is still the slowest of the C repos", "SDL"), None);
        assert_eq!(using("Does turso stay on 0.4?", "turso"), None);
        assert!(using("turso stays at v0.4 until the API settles", "turso").is_some());
    }

    /// A wiki link names a repo by itself, an ambiguous id too.
    #[test]
    fn a_wiki_link_is_repo_context() {
        assert_eq!(check("Credit to [[loro]] holds.").len(), 1);
        assert_eq!(check("Credit to [[loro|Loro]] holds.").len(), 1);
        assert!(check("Credit to loro holds.").is_empty(), "an ordinary word");
    }

    /// A testing lead-in that names a repo passes its cue to every item: the name may be
    /// the tool run, and the items its subjects (the review of stop 47).
    #[test]
    fn a_testing_lead_in_naming_its_tool_still_leads_its_items() {
        let text = "Ran the gemini-cli adapter against these repos:\n\n- memista: 12 files\n- dojo: 3 files\n";
        assert_eq!(cue_of(text, "memista").0, CueClass::Testing);
        assert_eq!(cue_of(text, "dojo").0, CueClass::Testing);
    }

    /// A removal whose object is a credit names it in its cue (the graph's contradiction).
    #[test]
    fn a_removed_credit_is_named_in_the_ending() {
        let ending = |text: &str, repo: &str| {
            let (class, cue) = cue_of(text, repo);
            assert_eq!(class, CueClass::Ending, "{text}");
            cue
        };
        assert_eq!(
            ending("Removed the memista credit from the eventlog doc header.", "memista"),
            "removed \u{2026} credit"
        );
        assert_eq!(ending("Removed dojoengine/dojo from credits entirely.", "dojo"), "removed \u{2026} credits");
        assert_eq!(ending("Removed the dagger dependency.", "dagger"), "removed");
        assert_eq!(ending("Removed dagger from the build, then fixed the credits page.", "dagger"), "removed");
        assert_eq!(ending("Removed the dagger pipeline (credit: alice).", "dagger"), "removed");
        assert_eq!(ending("Replaced the memista credit with a fuller one.", "memista"), "replaced");
        assert_eq!(ending("Removed dagger with credit to the reviewer.", "dagger"), "removed");
    }

    #[test]
    fn task_items_are_read_by_their_box() {
        assert!(is_open_task("- [ ] bench dojo") && is_open_task("  1. [ ] bench") && is_open_task("2) [ ] bench"));
        assert!(is_done_task("* [x] ran it") && is_done_task("3. [X] ran it") && is_done_task("+ [x] ran it"));
        assert!(!is_open_task("- [x] ran it") && !is_done_task("- [ ] run it"));
        for not_a_task in ["- [link](x)", "[ ] x", "12 [ ] x", "-[ ] x", "- [", "- [ ", "", "→ [ ]", "- [é"] {
            assert_eq!(task_mark(not_a_task), None, "{not_a_task:?}");
        }
    }

    #[test]
    fn fences_and_diffs_are_told_apart() {
        let text = "a\n```diff\n-x\n```\nb\n  ~~~rust\n-y\n~~~\n```patch\n+z\n";
        let mut lines = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            lines.push((start, start + line.len() - 1));
            start += line.len();
        }
        let (fenced, in_diff) = fenced_lines(text, &lines);
        assert_eq!(fenced, [false, true, true, true, false, true, true, true, true, true]);
        assert_eq!(in_diff, [false, false, true, false, false, false, false, false, false, true]);
    }

    /// The stop-46 review's inputs: multi-byte marks before a noun phrase or a pronoun's
    /// verb, an infinitive "to", a taking verb before "own", done tasks under a plan, a
    /// plan word inside another word, a verdict then "and".
    #[test]
    fn review_inputs_neither_panic_nor_misread() {
        for text in [
            "- Step 2 \u{2192} launch dagger\n",
            "\u{2022} launch gemini-cli\n",
            "- duckdb staleness handling \u{2014} read their freshness code\n",
        ] {
            let _ = check(text);
        }
        let borrowed = "Borrowed the batching idea from duckdb to speed up turso writes.\n";
        assert_eq!(cue_of(borrowed, "duckdb").0, CueClass::Learning);
        assert_eq!(cue_of("Took dojo's own run script verbatim.\n", "dojo").0, CueClass::Learning);
        assert_eq!(cue_of("## Test plan\n- [x] benchmarked dojo: 13 ms\n", "dojo").0, CueClass::Testing);
        assert_eq!(cue_of("## Test plan\n- [ ] benchmark dojo\n", "dojo").0, CueClass::Plain);
        assert_eq!(cue_of("Explanation of the plan: benchmarked dojo.\n", "dojo").0, CueClass::Testing);
        assert_eq!(cue_of("Finished TODOs: fixed the UTF-8 panic for dojo.\n", "dojo").0, CueClass::Testing);
        assert_ne!(cue_of("- scryer-prolog: dropped and re-added on the 14th\n", "scryer-prolog").0, CueClass::Ending);
        // A diff inside a list item is a diff; a file header is not a removed line.
        let nested = "- the credits change:\n  ```diff\n  -- Memory: inspired by duckdb\n  ```\n";
        assert_eq!(cue_of(nested, "duckdb").0, CueClass::Plain);
    }

    #[test]
    fn an_items_verdict_ends_its_label() {
        for item in [
            "- scryer-prolog: removed on Dec 10, replaced by the native evaluator\n",
            "- **scryer-prolog** - dropped on the 12th\n",
            "- `scryer-prolog`: removed.\n",
            "2. scryer-prolog: deleted\n",
        ] {
            assert_eq!(cue_of(item, "scryer-prolog").0, CueClass::Ending, "{item}");
        }
        // The repo's own change, a label that is not the item's, a verdict with an object.
        for item in [
            "- dojo: removed the old sync API in 1.5\n",
            "- Notes on the old setup with dojo: removed nothing\n",
            "- dojo: kept, the removal was reverted\n",
        ] {
            assert_ne!(cue_of(item, "dojo").0, CueClass::Ending, "{item}");
        }
    }

    #[test]
    fn a_move_a_noun_a_fetched_path_and_an_inline_plan() {
        // A move from one repo to another learns from neither; a port to the project's own
        // code still learns from its source.
        let moved = "- Ported src/stats/db.rs from the duckdb Appender API to turso's connection.\n";
        assert_eq!(cue_of(moved, "duckdb").0, CueClass::Plain);
        assert_eq!(cue_of(moved, "turso").0, CueClass::Plain);
        assert_eq!(cue_of("- Ported the scheduler from dojo to our runtime.\n", "dojo").0, CueClass::Learning);
        // "at launch" is a noun; "after launching", "the launched" and "launch" are verbs.
        let noun = "- role templates rendered at launch, with a Credits section pointing at dojoengine/dojo\n";
        assert_eq!(cue_of(noun, "dojo").0, CueClass::Plain);
        for verb in ["- after launching gemini-cli twice\n", "- the launched gemini-cli read it\n"] {
            assert_eq!(cue_of(verb, "gemini-cli").0, CueClass::Using, "{verb}");
        }
        // A fetched repo read where it was put.
        let (class, cue) = cue_of("- Cloned openai/codex into ~/src/study/ and read the sandbox path\n", "codex");
        assert_eq!((class, cue.as_str()), (CueClass::Learning, "Cloned … and read"));
        assert_eq!(cue_of("- Cloned openai/codex into the fixtures and read nothing\n", "codex").0, CueClass::Plain);
        // An inline lead-in of plans hedges its sentence; a clause with a plan word in it,
        // or a journal entry's time, does not.
        let (class, cue) = cue_of("Plan for today: benchmark dojo, then the gemini-cli adapter.\n", "dojo");
        assert_eq!(class, CueClass::Plain);
        assert!(cue.starts_with("hedged by \"Plan\" (inline lead-in \"Plan for today\")"), "{cue}");
        assert_eq!(cue_of("Handoff plan for this week: a gemini-cli adapter.\n", "gemini-cli").0, CueClass::Plain);
        assert_eq!(cue_of("- 20:12 TODO: fix the UTF-8 panic for dojo, applied\n", "dojo").0, CueClass::Testing);
        assert_eq!(cue_of("Removed confusing TODOs: benchmarked dojo.\n", "dojo").0, CueClass::Testing);
    }

    #[test]
    fn a_table_column_says_what_its_rows_are() {
        // A column of the project's options: what it builds on, not a test subject,
        // whatever the heading above says.
        let options = "Benchmark on our own index:\n\n| backend | build | p50 |\n|---|---|---|\n\
                       | duckdb (HNSW) | 47.1s | 0.9 ms |\n";
        assert_eq!(
            check(options),
            vec![("duckdb".into(), CueClass::Using, "backend (column \"backend\", line 3)".into())]
        );
        // A column of removals: each row's repo is an ending.
        let removed = "| removed | when | why |\n|---|---|---|\n| dagger pipeline | 05-11 | same day revert |\n";
        assert_eq!(
            check(removed),
            vec![("dagger".into(), CueClass::Ending, "removed (column \"removed\", line 1)".into())]
        );
        // A repo column with measurements is still a run.
        let runs = "| repo | time |\n|---|---|\n| dojo | 11.2s |\n";
        assert_eq!(check(runs)[0].1, CueClass::Testing);
    }

    #[test]
    fn a_plan_or_a_hypothesis_evidences_nothing() {
        let cue = cue_of;
        let (class, why) = cue("- Turso might be worth benchmarking someday, dojo too", "dojo");
        assert_eq!(class, CueClass::Plain);
        assert_eq!(why, "hedged by \"might\": benchmarking");
        assert_eq!(cue("Asked whether SDL should join the fixture set", "SDL").0, CueClass::Plain);
        assert_eq!(cue("A monorepo like dojo would be a good stress test; maybe later", "dojo").0, CueClass::Plain);
        // The hedge speaks for its clause: the tested repo of the clause before is tested.
        assert_eq!(cue("Tested on dojo; SDL might be next", "dojo").0, CueClass::Testing);
        assert_eq!(cue("Tested on dojo; SDL might be next", "SDL").0, CueClass::Plain);
        // "and it", "and they" open a clause of their own (set 24): its rejection is of
        // what follows it.
        let own = "That design came from reading gemini-cli's policy engine and it has nothing to do with \
                   whether we launch codex.";
        assert_eq!(cue(own, "gemini-cli").0, CueClass::Learning);
        assert_eq!(cue("Tested on dojo and it might be worth a run on SDL", "dojo").0, CueClass::Testing);
        assert_eq!(cue("Tested on dojo and it might be worth a run on SDL", "SDL").0, CueClass::Plain);
        // A clause of options hedges its mention whatever cue the sentence has.
        let options = "Considered a second Cairo fixture; options were dojo or a contracts repo";
        assert!(cue(options, "dojo").1.starts_with("hedged by \"options were\""));
        // Items under a lead-in of plans are hedged, whatever their own cue.
        let (class, why) = cue("**Next steps:**\n- Test on SDL to verify macros\n", "SDL");
        assert_eq!(class, CueClass::Plain);
        assert!(why.starts_with("hedged by \"Next steps\" (lead-in \"Next steps:\", line 1)"), "{why}");
        // The project's own thing stays its own; a bare modal is no hedge.
        assert_eq!(cue("We might tune our duckdb schema", "duckdb").0, CueClass::Using);
        assert_eq!(cue("The scraper could not parse it and crashed on dojo", "dojo").0, CueClass::Testing);
        assert_eq!(cue("Tested on dojo: the parser should now work there", "dojo").0, CueClass::Testing);
        // A participle describing a noun hedges no act (stop 57: set 35); a verb does, and
        // so does the participle after a noun of two words.
        let parked = "Went back to the idea parked on the 5th and read livestore properly this time.";
        assert_eq!(cue(parked, "livestore").0, CueClass::Learning);
        let suggested = "A user suggested reading how livestore versions its events.";
        assert_eq!(cue(suggested, "livestore").0, CueClass::Plain);
        let postponed = "The dojo rescrape postponed until Friday.";
        assert_eq!(cue(postponed, "dojo").0, CueClass::Plain);
        assert_eq!(cue("That was planned for dojo: scraped it, 412 files.", "dojo").0, CueClass::Plain);
        // A hedge opening a clause of purpose is the purpose's (stop 57: set 24).
        assert_eq!(cue("Scraped dojo so next month's bench has a baseline: 412 files.", "dojo").0, CueClass::Testing);
        let table = "Written into `deps.md` so next month starts from facts:\n\n| Role | Repo / crate |\n|---|---|\n| rules engine | scryer-prolog |\n";
        assert_eq!(cue(table, "scryer-prolog").0, CueClass::Using);
        assert_eq!(cue("Scraped dojo also next month.", "dojo").0, CueClass::Plain);
        assert_eq!(cue("Parser untouched, so no reason to re-run the dojo fixture", "dojo").0, CueClass::Plain);
    }

    #[test]
    fn a_negated_cue_phrase_is_no_cue() {
        let classes = |text: &str| -> Vec<CueClass> { check(text).into_iter().map(|(_, class, _)| class).collect() };
        assert_eq!(classes("USearch is one header; we don't scrape dojo"), vec![CueClass::Plain]);
        assert_eq!(classes("SDL is named as a shape, not a fixture"), vec![CueClass::Plain]);
        assert_eq!(classes("never benchmarked against dojo"), vec![CueClass::Plain]);
        // Not past the end of a clause or two words, not "not only", not a failure.
        assert_eq!(classes("Not slow, and tested on dojo"), vec![CueClass::Testing]);
        assert_eq!(classes("no, we did not really ever look, but tested on dojo"), vec![CueClass::Testing]);
        assert_eq!(classes("not only tested on dojo"), vec![CueClass::Testing]);
        assert_eq!(classes("it didn't crash on dojo"), vec![CueClass::Testing]);
        assert_eq!(classes("no panics on SDL"), vec![CueClass::Testing]);
        assert_eq!(classes("Metadata only: nothing was scraped from dojo"), vec![CueClass::Plain]);
        // A parenthesis inside the clause is passed over, and what it says is not read.
        assert_eq!(classes("Not adding turso (or libsql) as a dependency."), vec![CueClass::Plain, CueClass::Plain]);
        assert_eq!(cue_of("Kept turso (not libsql) as a dependency.", "turso").0, CueClass::Using);
        // Lined up, not run; a name that only collides.
        assert_eq!(classes("Queued SDL as the C fixture for the next sweep"), vec![CueClass::Plain]);
        assert_eq!(classes("A directory named game-engine; nothing to do with our fixture"), vec![CueClass::Plain]);
    }

    #[test]
    fn a_retraction_in_the_next_sentence_withdraws_the_claim() {
        let retraction = |text: &str| -> Vec<(String, CueClass, String)> {
            check(text).into_iter().filter(|(id, ..)| id == "dojo").collect()
        };
        let withdrawn = vec![("dojo".to_string(), CueClass::Ending, "that was wrong".to_string())];
        assert_eq!(retraction("The old credits said it was inspired by dojo. That was wrong - it was SDL"), withdrawn);
        assert_eq!(
            retraction("- Hybrid ranking modeled on dojo\n- That\u{2019}s wrong: it is SDL's"),
            vec![("dojo".to_string(), CueClass::Ending, "that's wrong".to_string())]
        );
        // Only the sentence right before: not two back, not a later "wrong".
        assert_eq!(retraction("Modeled on dojo. It helped. That was wrong")[0].1, CueClass::Learning);
        assert_eq!(retraction("Modeled on dojo. The old test was wrong")[0].1, CueClass::Learning);
    }

    #[test]
    fn list_items_and_table_rows_inherit_the_lead_in() {
        let (matcher, cues) = world();
        let text = "### Benchmarks\n\n- SDL: 84k symbols\n  - dojo nested: 1k\n\nNotes:\n- dagger was fine\n\
                    | repo | note |\n|---|---|\n| duckdb | fine |\n";
        let found = extract(text, &matcher, &cues, Some("patina"));
        let classes: Vec<(&str, CueClass)> = found.iter().map(|m| (matcher.node_id(m.node), m.cue_class)).collect();
        assert_eq!(
            classes,
            vec![
                ("SDL", CueClass::Testing),
                ("dojo", CueClass::Testing),
                ("dagger", CueClass::Plain),
                ("duckdb", CueClass::Plain),
            ],
            "a list under a heading inherits, a nested item too; \"Notes:\" says nothing; a table right after a list \
             without its own lead-in inherits nothing"
        );
        // A run over repos leads its list: a suite run against them, a sweep of edge cases.
        for lead in ["Ran the full suite against:", "**Edge-case sweep** (2 repos):", "### Scrape sweep"] {
            let text = format!("{lead}\n- SDL: 3 warnings\n- duckdb: ok\n");
            let classes: Vec<CueClass> = check(&text).into_iter().map(|(_, class, _)| class).collect();
            assert_eq!(classes, [CueClass::Testing, CueClass::Testing], "{lead}");
        }
    }

    #[test]
    fn a_row_of_a_results_table_with_a_repo_column_is_a_test_run() {
        let cues_of = check;
        // Under a heading that says nothing; an ambiguous id (game-engine) counts here.
        let table = "**Work completed:**\n\n| Repo | Files | Members (before → after) | Time |\n\
                     |------|-------|---|------|\n| SDL | 1,412 | 0 → 2,118 | 11.2s |\n| game-engine | 3 | 0 → 61 | 0.2s |\n";
        let found = cues_of(table);
        let results = "results table (column \"Repo\", line 3)".to_string();
        assert_eq!(
            found,
            vec![
                ("SDL".into(), CueClass::Testing, results.clone()),
                ("game-engine".into(), CueClass::Testing, results.clone())
            ]
        );
        // Not outside the repo column, not without a number, not without a header.
        let first = |text: &str| cues_of(text)[0].1;
        assert_ne!(first("| Tool | Repo | Time |\n|---|---|---|\n| SDL | dagger | 3s |\n"), CueClass::Testing);
        assert_ne!(first("| Repo | Purpose |\n|---|---|\n| SDL | C library |\n"), CueClass::Testing);
        assert_ne!(first("| SDL | 1,412 |\n| duckdb | 3 |\n"), CueClass::Testing);
        // Counts alone are a stats table (sizes, or `mother stats` pasted), not a run.
        assert_ne!(first("| repo | files | symbols |\n|---|---|---|\n| SDL | 14 | 310 |\n"), CueClass::Testing);
        assert_eq!(first("| repo | files | recall |\n|---|---|---|\n| SDL | 14 | 0.61 |\n"), CueClass::Testing);
        // Under a lead-in of plans, a results row is a plan.
        let planned = cues_of("Next steps:\n\n| Repo | Files |\n|---|---|\n| SDL | 1,412 |\n");
        assert!(planned[0].2.starts_with("hedged by \"Next steps\""), "{planned:?}");
    }

    #[test]
    fn taking_something_from_a_repo_is_learning_from_it() {
        let learning = |text: &str| -> Vec<(String, CueClass, String)> {
            check(text).into_iter().filter(|(_, class, _)| *class == CueClass::Learning).collect()
        };
        assert_eq!(
            learning("- Took the credential handling from dojo's run script"),
            vec![("dojo".into(), CueClass::Learning, "Took the credential handling from".into())]
        );
        assert_eq!(learning("The layout is taken directly from dojo")[0].2, "taken directly from");
        assert!(learning("Took 27 seconds to scrape dojo").is_empty());
    }

    #[test]
    fn taking_from_a_repos_possessive_is_learning_from_it() {
        let cue = |text: &str| check(text).into_iter().map(|(_, class, cue)| (class, cue)).next().unwrap();
        assert_eq!(cue("- Adopted dojo's approach: the tool pages"), (CueClass::Learning, "Adopted dojo's".into()));
        assert_eq!(cue("The cursor scheme was taken from dojo.").0, CueClass::Learning);
        // Not a possessive, or not a verb of taking: nothing is taken.
        assert_ne!(cue("- Adopted dojo as the second fixture").1, "Adopted dojo's");
        // Reading a repo's code is study: right before its possessive, or with where it was read.
        assert_eq!(
            cue("- Read dojo's memory_search implementation closely"),
            (CueClass::Learning, "Read dojo's".into())
        );
        assert_eq!(cue("- Went back through dojo's settings.json").1, "Went back through dojo's");
        assert_eq!(cue("- Read the hook examples in dojoengine/dojo to pin down the payload").0, CueClass::Learning);
        assert_ne!(cue("- Pinned dojo's version").0, CueClass::Learning);
        // What was found in it or taken from it.
        assert_eq!(cue("- Discovered the asdf solution from the dojo repo").0, CueClass::Learning);
        assert_eq!(cue("**Key findings from dojo codebase analysis:**").0, CueClass::Learning);
        assert_eq!(cue("- Reviewed how dojo deals with stale knowledge").0, CueClass::Learning);
    }

    #[test]
    fn pasted_tool_output_tests_the_repos_it_runs_on_and_lists_nothing() {
        let found = |text: &str| -> Vec<(String, CueClass)> {
            check(text).into_iter().map(|(id, class, _)| (id, class)).collect()
        };
        let bench = "```\n$ patina bench retrieval --set standard\nrepo      queries  MRR@10   p50 ms\n\
                     dojo           40   0.712       18\nSDL            40   0.655       22\n---------\n\
                     mean                0.680     21.5\n```\n";
        assert_eq!(found(bench), vec![("dojo".into(), CueClass::Testing), ("SDL".into(), CueClass::Testing)]);
        assert!(check(bench)[0].2.starts_with("results table (column \"repo\", line 3)"));
        // A listing of repos with counts, or of search hits with a score per file: no run.
        let listing =
            "```\n$ patina repo list\nNAME   PATH                  EVENTS\ndojo   ~/cache/repos/dojo    48,211\n```\n";
        assert!(found(listing).iter().all(|(_, class)| *class == CueClass::Plain), "{:?}", found(listing));
        let hits = "```\n score  repo    path\n 1.81   dojo    docs/events.md\n 1.12   SDL     src/replay.rs\n```\n";
        assert_eq!(found(hits), vec![("dojo".into(), CueClass::Plain), ("SDL".into(), CueClass::Plain)]);
        // The project's command given a repo path runs on it; `cd` or `ls` does not.
        let (_, class, cue) = check("```\n$ patina ingest ~/.patina/cache/repos/dojo --force\n```").remove(0);
        assert_eq!((class, cue.as_str()), (CueClass::Testing, "patina ingest ~/.patina/cache/repos/dojo"));
        assert_eq!(found("`cd ~/.patina/cache/repos/dojo`"), vec![("dojo".into(), CueClass::Plain)]);
        assert_eq!(
            found("- ran `patina ingest repos/codex`: it aborted on a symlink loop"),
            vec![("codex".into(), CueClass::Testing)]
        );
    }

    #[test]
    fn other_parties_rejections_quotes_and_absent_things_evidence_nothing() {
        let cue = cue_of;
        let reporter =
            "- Context from the reporter: their team runs contract tests with dojo; the client is built on SDL";
        assert_eq!(cue(reporter, "dojo").0, CueClass::Plain);
        assert!(cue(reporter, "SDL").1.starts_with("another party's \"the reporter\""), "{:?}", cue(reporter, "SDL"));
        assert_eq!(cue("The user's setup is built on dojo", "dojo").0, CueClass::Plain);
        // A rejection voids the whole item whose cue its lead-in gives.
        let compared = "**Prior art:**\n- dojo loads context through hooks. Not followed\n- SDL keeps it in a file\n";
        assert_eq!(
            cue(compared, "dojo"),
            (CueClass::Plain, "rejected: \"Not followed\": Prior art (lead-in \"Prior art:\", line 1)".into())
        );
        assert_eq!(cue(compared, "SDL").0, CueClass::Learning);
        // A quote is someone else's words.
        assert_eq!(cue("> dojo is built on top of SDL, using hooks", "SDL").0, CueClass::Plain);
        // "no X crate": not there, so not used (an ending); "not the X pipeline" voids it.
        assert_eq!(
            cue("It does not: no duckdb crate in Cargo.lock", "duckdb"),
            (CueClass::Ending, "no duckdb crate".into())
        );
        assert_eq!(cue("It was not the dagger pipeline that failed", "dagger").1, "negated: \"not dagger\"");
        assert_eq!(cue("Bumped the duckdb crate to 1.2", "duckdb").0, CueClass::Using);
        assert_eq!(cue("#232 asks whether patina uses duckdb under the hood", "duckdb").0, CueClass::Plain);
        assert_eq!(cue("The fixture script shelled out to the `duckdb` CLI", "duckdb").0, CueClass::Using);
        assert_eq!(cue("Removed the `duckdb` CLI from the tool list", "duckdb").0, CueClass::Ending);
    }

    #[test]
    fn a_cause_an_elaboration_and_the_projects_own_analysis_are_no_cue() {
        let cue = cue_of;
        // The failure's subject comes right after it; a mention after "due to" is a cause.
        assert_eq!(
            cue("Agent crashed on command execution due to dagger lazy evaluation", "dagger").0,
            CueClass::Plain
        );
        assert_eq!(cue("The scraper crashed on the dagger repo", "dagger").0, CueClass::Testing);
        // After a colon, an item starts the list or follows a separator; deep in an
        // elaboration it is no item.
        let vision = "Deep research into old sessions revealed the vision: a home with preferences as dojo facts";
        assert_eq!(cue(vision, "dojo").1, "research", "a weak phrase of its own, no inherited cue");
        assert_eq!(cue("Prior art: dojo (events) + duckdb", "duckdb").0, CueClass::Learning);
        // An analysis of the project's own state leads no learning list.
        assert_ne!(cue("**Current State Analysis:**\n- Patina has two dagger uses\n", "dagger").0, CueClass::Learning);
        // A migration away from a repo ends its use; the features used of a repo use it.
        assert_eq!(cue("Reviewed the SQLite migration from duckdb (PRs #31-32)", "duckdb").0, CueClass::Ending);
        assert_eq!(cue("duckdb-specific features used:", "duckdb").0, CueClass::Using);
    }

    #[test]
    fn a_changelog_removal_and_a_short_retraction_end_the_claim() {
        let cue = cue_of;
        let changelog =
            "### Added\n- Vector index through the SDL crate\n\n### Removed\n- The optional DuckDB scrape backend\n";
        assert_eq!(cue(changelog, "duckdb"), (CueClass::Ending, "Removed (lead-in \"Removed\", line 4)".into()));
        assert_ne!(cue(changelog, "SDL").0, CueClass::Ending);
        let retracted = "The note says the design was taken from dojo. It wasn't - nobody read it.";
        assert_eq!(cue(retracted, "dojo"), (CueClass::Ending, "it wasn't".into()));
        assert_ne!(cue("The scraper was tested on dojo. It wasn't clear why it hung.", "dojo").0, CueClass::Ending);
    }

    #[test]
    fn inline_lists_failure_subjects_and_fixes_are_testing() {
        let strong_testing = |text: &str| -> Vec<String> {
            check(text).into_iter().filter(|(_, class, _)| *class == CueClass::Testing).map(|(id, _, _)| id).collect()
        };
        // An inline list inherits the words before its colon.
        assert_eq!(
            strong_testing("- Tested edge-case repos: SDL (13%), duckdb (23%), dagger."),
            ["SDL", "duckdb", "dagger"]
        );
        // The words before a colon that say nothing give nothing; a repo inside a file
        // name is no item of the list.
        assert!(strong_testing("- Notes: SDL and duckdb look alike.").is_empty());
        assert!(strong_testing("- Renamed testing docs: `dagger-testing-notes.md`.").is_empty());
        // The repo right before a failure phrase is what failed; a phrase that points
        // forward still never reaches back past other words.
        assert_eq!(strong_testing("- SDL failed on the symbol step."), ["SDL"]);
        assert_eq!(strong_testing("- The duckdb repo crashed on startup."), ["duckdb"]);
        assert!(strong_testing("- SDL was fine, the parser failed on startup.").is_empty());
        assert_eq!(
            strong_testing("- SDL errored out during indexing; duckdb panicked while parsing a macro."),
            ["SDL", "duckdb"]
        );
        assert_eq!(strong_testing("- dagger failed with a stack overflow."), ["dagger"]);
        // Inline code does not hide the phrase around it: a command run on repos, a
        // command that does not work on one.
        assert_eq!(
            strong_testing("- Ran `patina scrape` on SDL, and on duckdb and dagger."),
            ["SDL", "duckdb", "dagger"]
        );
        assert_eq!(strong_testing("- Why doesn't `patina scry --all` work on duckdb?"), ["duckdb"]);
        // A fix made for repos: they were the test subjects; so are the repos the
        // project's tool ran on.
        assert_eq!(strong_testing("- Fixed the UTF-8 panic for SDL and duckdb."), ["SDL", "duckdb"]);
        assert_eq!(strong_testing("- Ran the scrape on SDL, and on duckdb and dagger."), ["SDL", "duckdb", "dagger"]);
    }

    #[test]
    fn dependency_lines_index_files_and_open_tasks() {
        // A manifest line pasted into a log declares the dependency; removing it ends it.
        assert_eq!(cue_of("- `Cargo.toml`: `duckdb = \"1.1.3\"` added", "duckdb").0, CueClass::Using);
        assert_eq!(cue_of("- bumped `dagger = { version = \"0.13\" }`", "dagger").0, CueClass::Using);
        assert_eq!(cue_of("- Removed `duckdb = \"1.1\"` from `Cargo.toml`", "duckdb").0, CueClass::Ending);
        assert_eq!(cue_of("- the duckdb = dagger mapping", "duckdb").0, CueClass::Plain);
        // The repo's index read again is no run.
        let (class, why) = cue_of("- Queried `SDL.db` again: 4,311 of its 28,940 symbols are generated.", "SDL");
        assert_eq!(class, CueClass::Plain);
        assert!(why.starts_with("reads the index `SDL.db`"), "{why}");
        assert_eq!(cue_of("- `patina scrape --repo SDL` wrote SDL.db", "SDL").0, CueClass::Testing);
        // An open task is a plan.
        let (class, why) = cue_of("- [ ] Benchmark dojo: 3 runs", "dojo");
        assert_eq!(class, CueClass::Plain);
        assert!(why.starts_with("an open task"), "{why}");
        assert_eq!(cue_of("- [x] Benchmarked dojo: 3,120 symbols in 2.1s", "dojo").0, CueClass::Testing);
        // A verb of study right before the repo, an article at most between, studies it;
        // a verb of taking needs the possessive ("adopted dagger" uses it).
        assert_eq!(cue_of("- Read the dojo design end to end", "dojo"), (CueClass::Learning, "Read the dojo".into()));
        assert_eq!(cue_of("### Reading dojoengine/dojo", "dojo").0, CueClass::Learning);
        assert_eq!(cue_of("- Adopted dagger for the builds", "dagger").1, "Adopted", "the weak phrase, no study");
        // A sentence may start with code: "…symbols. `x` is open; bumped it" is two.
        let two = "- Looked at dojo output: 2 files. `linguist` support is open; bumped it to next week.";
        assert_ne!(cue_of(two, "dojo").0, CueClass::Using);
    }

    #[test]
    fn package_names_dependency_trees_and_package_keys_name_a_use() {
        // A package name is the repo's name in a manifest, an import or a config.
        assert_eq!(
            cue_of("+libsql = \"0.9\"", "turso"),
            (CueClass::Using, "dependency line `libsql = \"0.9\"`".into())
        );
        // A branch of `cargo tree` or `npm ls` under the project.
        let tree = "```\n$ cargo tree --depth 1\n├── ort v2.0.0-rc.9\n│   └── scryer-prolog v0.9.4\n```\n";
        assert_eq!(
            cue_of(tree, "scryer-prolog"),
            (CueClass::Using, "dependency tree `│   └── scryer-prolog v0.9.4`".into())
        );
        assert_eq!(cue_of("└─┬ @google/gemini-cli@0.11.2", "gemini-cli").0, CueClass::Using);
        // A tree of something else, or a name without a version, is no dependency.
        assert_eq!(cue_of("├── dojo/ (an old folder)", "dojo").0, CueClass::Plain);
        // The value of a `package` key: an adapter's config, Cargo's rename.
        let config = "[adapters.gemini]\ncommand = \"gemini\"\npackage = \"@google/gemini-cli\"\n";
        assert_eq!(
            cue_of(config, "gemini-cli"),
            (CueClass::Using, "package key `package = \"@google/gemini-cli\"`".into())
        );
        assert_eq!(cue_of("sql = { package = \"libsql\", version = \"0.9\" }", "turso").0, CueClass::Using);
        assert_eq!(cue_of("subpackage = \"dojo\"", "dojo").0, CueClass::Plain);
    }

    #[test]
    fn a_skipped_item_a_phrase_about_another_repo_and_a_clause_ended_are_no_cue() {
        // A list of runs: the items that say they were left out take nothing from it.
        let bench = "## Bench (release, warm cache)\n- dojo: 0.2s, 41 chunks\n- memista — not cloned, skip\n\
                     - SDL: no panics, 47,660 chunks\n";
        assert_eq!(cue_of(bench, "dojo").0, CueClass::Testing);
        let (class, why) = cue_of(bench, "memista");
        assert_eq!((class, why.as_str()), (CueClass::Plain, "skipped: \"memista … not\""));
        assert_eq!(cue_of(bench, "SDL").0, CueClass::Testing, "a failure that did not happen is a result");
        // Only at an item's head: "ran it on dojo, not SDL" ran on dojo.
        assert_eq!(cue_of("- Ran the scraper on dojo not SDL", "dojo").0, CueClass::Testing);
        // A phrase with another repo in its gap is about that repo.
        let gap = "- Results: the test helpers in dojo lean on snforge, which memista also does.";
        assert_ne!(cue_of("- the test helpers in dojo lean on memista", "memista").0, CueClass::Testing);
        assert_ne!(cue_of(gap, "memista").0, CueClass::Testing);
        // A phrase pointing forward ends at its clause: ';', or the close of its parenthesis.
        let clause = "- rusqlite, duckdb — never in the running (it already lost on compile time); libsql only wins";
        assert_eq!(cue_of(clause, "turso").0, CueClass::Plain);
        // A verb of running a tool points forward only.
        let launch = "- a user runs patina beside memista and `patina launch dojo` fails";
        assert_eq!(cue_of(launch, "memista").0, CueClass::Plain);
        assert_eq!(cue_of(launch, "dojo").0, CueClass::Using);
        assert_eq!(cue_of("- `launch claude` still spawns dojo with the files in place", "dojo").0, CueClass::Using);
        // Its object is the first repo after it, or a list of them; `--repo` names the
        // repo the launched agent runs on.
        let flag = "$ patina launch codex --repo ~/.patina/cache/repos/dojo \"why does it fail?\"";
        assert_eq!(cue_of(flag, "codex").0, CueClass::Using);
        assert_eq!(cue_of(flag, "dojo").0, CueClass::Testing);
        let output = "[launch] adapter=codex  cwd=~/.patina/cache/repos/dojo";
        assert_ne!(cue_of(output, "dojo").0, CueClass::Using);
        assert_eq!(cue_of("- launched codex, gemini-cli and dagger", "dagger").0, CueClass::Using);
        assert_eq!(cue_of("- launched codex (openai/codex, v0.3) and dagger", "dagger").0, CueClass::Using);
        assert_eq!(cue_of("- launched the codex adapter and the dagger one", "dagger").0, CueClass::Using);
        let prose = "- built with the codex crate, rows sit in SQLite, and the report writes into a dagger file";
        assert_eq!(cue_of(prose, "dagger").0, CueClass::Plain);
        assert_ne!(cue_of("- `patina launch codex` in the dojo checkout", "dojo").0, CueClass::Using);
        assert_ne!(cue_of("- launched codex \u{2014} the dagger stack is unrelated", "dagger").1, "launched");
        assert_eq!(cue_of("- launched codex with `--yolo` in the dojo checkout", "dojo").0, CueClass::Plain);
    }

    #[test]
    fn an_ambiguous_name_with_a_counted_run_and_someone_elses_numbers() {
        // An ambiguous id is taken on a weak testing word with the run's counted result.
        assert_eq!(cue_of("- 20:04 loro rerun: 1,204 files, 9,877 chunks, no panic", "loro").0, CueClass::Testing);
        assert!(check("- the loro of it all").is_empty());
        // A version is no count: "v3.0 chunks" counted nothing, so this is no test run;
        // and SDL ships no package, so its index is patina's index of it, not a use
        // (stop 57; before, this read as the project's index built on SDL).
        assert_eq!(cue_of("- SDL index is still on v3.0 chunks", "SDL").0, CueClass::Plain);
        let scraped = "- Scraped SDL: 1,412 files.\n- SDL index is still on v3.0 chunks";
        let found = check(scraped);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|(id, class, _)| id == "SDL" && *class != CueClass::Using), "{found:?}");
        // Someone else's numbers and what a test subject holds.
        assert_eq!(cue_of("- Turso's blog post quotes ~1M vectors indexed in ~40s", "turso").0, CueClass::Plain);
        assert_eq!(cue_of("- someone says the chunker chokes on dojo's header", "dojo").0, CueClass::Plain);
        assert_eq!(cue_of("- Its tests lean on dojo cheatcodes, so it shows up", "dojo").0, CueClass::Plain);
        let table = "Table from a blog post (their chunker, their repos):\n\n| repo | Recall@5 |\n|---|---:|\n| duckdb | 0.48 |\n";
        assert_eq!(cue_of(table, "duckdb").0, CueClass::Plain);
        // A rerun heading leads its runs; a notes heading studies.
        assert_eq!(cue_of("### Re-ran chunker v3.1\n- dojo\n  - 4,812 chunks\n", "dojo").0, CueClass::Testing);
        assert_eq!(cue_of("## Notes on how [[dojoengine/dojo]] lays out a world", "dojo").0, CueClass::Learning);
        assert_eq!(cue_of("- Profiled the duckdb export on our own db (188 files)", "duckdb").0, CueClass::Using);
    }

    #[test]
    fn a_part_of_the_project_built_on_a_repo_is_a_strong_use_and_undoing_it_ends_it() {
        let (matcher, cues) = world();
        let strong = |text: &str, repo: &str| {
            let found = extract(text, &matcher, &cues, Some("patina"));
            let m = found.iter().find(|m| matcher.node_id(m.node) == repo).expect(repo);
            (m.cue_class, m.strong_cue)
        };
        assert_eq!(strong("- Rebuilt the index through the `duckdb` crate in 6.8s", "duckdb"), (CueClass::Using, true));
        assert_eq!(strong("- The dagger adapter wasn't idempotent; fixed", "dagger"), (CueClass::Using, true));
        // Not for an ambiguous name: "The Codex adapter" may be the product's.
        assert!(check("- The Codex adapter wasn't idempotent").is_empty());
        // A document about the part is no part of the project.
        assert_eq!(
            strong("- 7aa21f0 docs: dagger adapter design (layer/surface/)", "dagger"),
            (CueClass::Using, false)
        );
        // A weaker compound stays weak; a testing word keeps a crate a test subject's.
        assert_eq!(strong("- explored the duckdb integration", "duckdb"), (CueClass::Using, false));
        assert!(!strong("- Scraped the dojo crate: 367 chunks", "dojo").1);
        // Undone, or a credit denied.
        assert_eq!(
            cue_of("9c0d7e3 ci: back out dagger pipeline, cache volumes don't survive", "dagger").0,
            CueClass::Ending
        );
        assert_eq!(
            cue_of("- commit 3e1f07c refactor!: remove duckdb export (build cost 7m)", "duckdb").0,
            CueClass::Ending
        );
        assert_eq!(cue_of("- The dojo entry doesn't hold up: nothing came of it", "dojo").0, CueClass::Ending);
        assert_ne!(cue_of("- reverted to the duckdb backend", "duckdb").0, CueClass::Ending);
    }

    #[test]
    fn self_mentions_are_skipped() {
        assert!(check("patina is great, see NicabarNimble/patina").is_empty());
    }

    #[test]
    fn many_mentions_on_one_line_stay_linear() {
        let (matcher, cues) = world();
        let text = |n: usize| {
            let words = "Tested dojo and SDL, studied duckdb; scrape --repo dagger ";
            let path = "SDL/dust/repos/dojo/";
            // Inline lists, failure subjects and owner/name references, many per line.
            let lists = "Tested repos: duckdb, dagger failed on x, [[o/dojo]] ";
            // Dependency lines that never close, index files, a verb of study, names opening
            // sentences, quoted queries, cargo features.
            let manifest = "dojo = { version duckdb.db read the SDL ├── dojo v1 package = \"SDL\" tests in dojo lean on SDL; \
                 cargo add dojo --x no SDL dojo pulls in duckdb monorepo (dojo) green on the dagger store \
                 ok. dojo vs. SDL scry \"built on dojo\" --features dagger nothing from the SDL ";
            // An item about dojo whose sentences hold many cues and mentions.
            let item = "Read the code in the repo. dojo and dojo tested. Not studied. ";
            format!(
                "- {}\n{}\n- {}\n- {}\nPrior art:\n- dojo: slow. {}\n$ patina bench --repos {}\n$ {}\n",
                words.repeat(n),
                path.repeat(n),
                lists.repeat(n),
                manifest.repeat(n),
                item.repeat(n),
                // A flag's comma list, and `cd`s into repo folders with commands after.
                "dojo,SDL,".repeat(n),
                "cd fixtures/dojo && patina scrape; cd SDL; ".repeat(n)
            )
        };
        let found = extract(&text(10), &matcher, &cues, Some("patina"));
        assert_eq!(found.iter().filter(|m| m.line == 1).count(), 40);
        // The path line: its first `SDL` (a path rooted at the node) and every `repos/dojo`.
        assert_eq!(found.iter().filter(|m| m.line == 2).count(), 11);
        assert_eq!(found.iter().filter(|m| m.line == 3).count(), 30);
        crate::testing::assert_subquadratic("mentions on one line", 2_500, |n| {
            let text = text(n);
            assert!(extract(&text, &matcher, &cues, Some("patina")).len() >= 7 * n);
        });
    }

    /// The look-arounds as they were written before [`Layout`], [`sentence_breaks`] and
    /// [`CueIndex`]: a scan per mention. The indexed versions must agree with them.
    mod reference {
        use super::super::*;

        pub fn sentence_bounds(
            text: &str,
            line_start: usize,
            line_stop: usize,
            start: usize,
            end: usize,
        ) -> (usize, usize) {
            let bytes = text.as_bytes();
            let is_break = |i: usize| {
                matches!(bytes[i], b'.' | b'!' | b'?')
                    && i + 2 < line_stop
                    && bytes[i + 1] == b' '
                    && (bytes[i + 2].is_ascii_uppercase() || bytes[i + 2] == b'`')
                    && i > line_start
                    && (bytes[i - 1].is_ascii_lowercase()
                        || bytes[i - 1].is_ascii_digit()
                        || b")`\"'".contains(&bytes[i - 1]))
            };
            let mut s = start;
            while s > line_start && !is_break(s - 1) {
                s -= 1;
            }
            let mut e = end;
            while e < line_stop && !is_break(e) {
                e += 1;
            }
            if e < line_stop {
                e += 1;
            }
            (s, e)
        }

        pub fn token_and_segment(
            text: &str,
            start: usize,
            end: usize,
            line_start: usize,
            line_stop: usize,
        ) -> (usize, usize, bool, usize) {
            let bytes = text.as_bytes();
            let mut token_start = start;
            while token_start > line_start && is_token_byte(bytes[token_start - 1]) {
                token_start -= 1;
            }
            let mut token_end = end;
            while token_end < line_stop && is_token_byte(bytes[token_end]) {
                token_end += 1;
            }
            let has_slash = text[token_start..token_end].contains('/');
            let before = &text[token_start..start.max(token_start + 1) - 1];
            let segment_start = token_start + before.rfind('/').map_or(0, |i| i + 1);
            (token_start, token_end, has_slash, segment_start)
        }

        pub fn nearest_cue(hits: &[CueHit], s_start: usize, s_end: usize, start: usize, end: usize) -> Option<CueHit> {
            let first = hits.partition_point(|h| h.start < s_start);
            hits[first..]
                .iter()
                .take_while(|h| h.end <= s_end)
                .filter(|h| h.end <= start || h.start >= end)
                .min_by_key(|h| {
                    let distance = if h.end <= start { start - h.end } else { h.start - end };
                    (!h.strong, distance, h.class)
                })
                .copied()
        }
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn extraction_never_panics_on_text_of_cues_and_multibyte_characters(
            words in prop::collection::vec(
                "(dojo|SDL|not |don't |no |might |maybe |tested on |fixture |That was wrong|That\u{2019}s wrong|\
                 Next steps:|TODO|\u{2014} |\u{2013}|\u{2019}|é|日本|; | - |, but |\\. |: |\n|- |\\| |`|\\*\\*| |\
                 ```\n|\\$ patina ingest |repos/|> |  |repo  |12 ms|\u{2192}|'s |Adopted |read |due to |their team |\
                 Not followed|### Removed\n|It wasn't|\\+ |\\(|\\)|score  repo  path\n|launch |own |from |to |\
                 Plan: |```diff\n|- \\[x\\] |\u{2022} |their |removed|duckdb|turso)",
                0..40,
            ),
        ) {
            let (matcher, cues) = world();
            let text: String = words.concat();
            let found = extract(&text, &matcher, &cues, Some("patina"));
            prop_assert!(found.iter().all(|m| m.line as usize <= text.lines().count().max(1)));
        }

        #[test]
        fn indexed_look_arounds_match_the_scans(
            text in "[a-c .!?/A-C\\n\"`)1]{1,60}",
            at in 0usize..60,
            len in 1usize..4,
        ) {
            let bytes = text.as_bytes();
            let start = at.min(text.len() - 1);
            let end = (start + len).min(text.len());
            let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line_stop = bytes[start..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| start + i);
            prop_assume!(end <= line_stop);
            let breaks = sentence_breaks(bytes, line_start, line_stop);
            prop_assert_eq!(
                sentence_bounds(&breaks, line_start, line_stop, start, end),
                reference::sentence_bounds(&text, line_start, line_stop, start, end)
            );
            let layout = Layout::new(&text);
            let (token_start, token_end) = layout.token_around(start, end, line_start, line_stop);
            let (ref_start, ref_end, ref_slash, ref_segment) = reference::token_and_segment(&text, start, end, line_start, line_stop);
            prop_assert_eq!((token_start, token_end), (ref_start, ref_end));
            prop_assert_eq!(layout.has_slash(token_start, token_end), ref_slash);
            if start > token_start {
                prop_assert_eq!(layout.last_slash_before(token_start, start - 1), ref_segment);
            }
        }

        #[test]
        fn cue_index_matches_the_scan(
            spans in prop::collection::vec((1usize..4, 1usize..4, any::<bool>(), 0u8..3), 0..12),
            s_start in 0usize..20,
            s_len in 0usize..60,
            at in 0usize..60,
            len in 1usize..4,
        ) {
            // Non-overlapping hits in order, as the automaton gives them.
            let mut hits = Vec::new();
            let mut pos = 0;
            for (gap, width, strong, class) in spans {
                let class = [CueClass::Testing, CueClass::Learning, CueClass::Using][class as usize];
                hits.push(CueHit { start: pos + gap, end: pos + gap + width, class, strong, points_forward: false });
                pos += gap + width;
            }
            let (start, end) = (at, at + len);
            let s_end = (s_start + s_len).max(end);
            let s_start = s_start.min(start);
            prop_assert_eq!(
                CueIndex::new(hits.clone()).nearest(s_start, s_end, start, end),
                reference::nearest_cue(&hits, s_start, s_end, start, end)
            );
        }
    }
}
