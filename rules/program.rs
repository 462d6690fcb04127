//! The rule program: Datalog (crepe) that derives the typed graph from facts.
//!
//! Included into the crate as `graph::program`. Rules do no I/O and see only facts: the
//! fact loader (`src/graph/facts.rs`) turns live events into the input relations below,
//! interning every string to a `u32` and aggregating what Datalog cannot count (distinct
//! sessions per evidence group, shared domains). Weights are computed in Rust after the
//! run (`src/graph/weight.rs`, formula in `rules/README.md`).
//!
//! Every rule has a stable name and a one-line description in [`RULES`]; the provenance
//! relation `Why` records, for every derived edge, which rule fired and which evidence
//! groups (sets of events) it used.

use crepe::crepe;

/// Edge type codes (the order of `EdgeType::ALL`).
pub const USES: u8 = 0;
pub const LEARNS_FROM: u8 = 1;
pub const TESTS_WITH: u8 = 2;
pub const SIBLING: u8 = 3;
pub const DOMAIN: u8 = 4;

/// Node kinds.
pub const PROJECT: u8 = 0;
pub const REFERENCE: u8 = 1;

/// Evidence group kinds: a group is every live event of one kind from one node to another.
pub const G_TESTING: u8 = 0;
pub const G_LEARNING: u8 = 1;
pub const G_USING: u8 = 2;
pub const G_PLAIN: u8 = 3;
/// Mentions whose cue is a testing command naming the repo (`scrape --repo X`).
pub const G_COMMAND: u8 = 4;
pub const G_IMPORT: u8 = 5;
pub const G_BENCH: u8 = 6;
/// The registrations of two nodes (evidence for domain rules).
pub const G_REGISTRATION: u8 = 7;
/// A live manual link.
pub const G_LINK: u8 = 8;
/// Mentions that end the pair's USES edge (a removal): read by no rule, but by the
/// validity pass after the run (`src/graph/derive.rs`).
pub const G_ENDING: u8 = 9;
/// Learning mentions whose cue says a pattern was taken from the repo (`borrowing_cues`
/// in `rules/graph.toml`); they are in the `G_LEARNING` group too.
pub const G_BORROWING: u8 = 10;
/// Ending mentions that contradict a claim (`contradiction_cues`): they end USES and
/// LEARNS_FROM edges (validity pass).
pub const G_CONTRADICTION: u8 = 11;
/// Imports a manifest no longer has: it was read again without the dependency and the
/// import was retracted. The edge they made stays as history (`manifest-import` fires on
/// them too) and the validity pass ends it at the drop, unless a live import, a bench
/// run, a link or newer text holds it. Each unit's date is the day of its retraction.
pub const G_DROPPED_IMPORT: u8 = 12;

/// Rule codes, in the order of [`RULES`].
pub const R_MANUAL_LINK: u8 = 0;
pub const R_MANIFEST_IMPORT: u8 = 1;
pub const R_BENCH_RUN: u8 = 2;
pub const R_TESTING_COMMAND: u8 = 3;
pub const R_TESTING_CUES: u8 = 4;
pub const R_LEARNING_CUES: u8 = 5;
pub const R_USING_CUES: u8 = 6;
pub const R_SIBLING_DOMAIN: u8 = 7;
pub const R_SHARED_DOMAIN: u8 = 8;

/// A rule's stable name, the edge type it derives, and what it says.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub code: u8,
    pub name: &'static str,
    pub edge_type: Option<u8>,
    pub description: &'static str,
}

pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        code: R_MANUAL_LINK,
        name: "manual-link",
        edge_type: None,
        description: "a live `mother link` always makes its edge (and its weight, if given, overrides)",
    },
    RuleInfo {
        code: R_MANIFEST_IMPORT,
        name: "manifest-import",
        edge_type: Some(USES),
        description: "a manifest of the project depends on the repo: project USES repo (a dependency the manifest \
                      dropped ends the edge; history keeps it)",
    },
    RuleInfo {
        code: R_BENCH_RUN,
        name: "bench-run",
        edge_type: Some(TESTS_WITH),
        description: "the project ran a benchmark or test suite against the repo: project TESTS_WITH repo",
    },
    RuleInfo {
        code: R_TESTING_COMMAND,
        name: "testing-command",
        edge_type: Some(TESTS_WITH),
        description: "a session log shows a testing command naming the repo (`scrape --repo X`): TESTS_WITH",
    },
    RuleInfo {
        code: R_TESTING_CUES,
        name: "testing-cues",
        edge_type: Some(TESTS_WITH),
        description: "testing cues (\"tested on\", \"stress test\", a failure on it, a testing lead-in) near the repo \
                      in a session with a strong cue (one session is enough; it weighs less than two)",
    },
    RuleInfo {
        code: R_LEARNING_CUES,
        name: "learning-cues",
        edge_type: Some(LEARNS_FROM),
        description: "learning cues (\"studied\", \"inspired by\", …) in a session with a strong cue (one deep session is \
                      enough), and in no fewer sessions than testing cues (a repo we mostly test on is analysed, not \
                      learned from) unless a pattern was taken from it (\"pattern from\", \"borrowed from\")",
    },
    RuleInfo {
        code: R_USING_CUES,
        name: "using-cues",
        edge_type: Some(USES),
        description: "using cues (\"depends on\", \"integrated\", …) near the repo in at least 2 different sessions, or \
                      in one with a strong cue",
    },
    RuleInfo {
        code: R_SIBLING_DOMAIN,
        name: "sibling-domain",
        edge_type: Some(SIBLING),
        description: "a project and a reference share a specific (non-language) domain, e.g. `search`",
    },
    RuleInfo {
        code: R_SHARED_DOMAIN,
        name: "shared-domain",
        edge_type: Some(DOMAIN),
        description: "a project and another node share at least one domain (languages included)",
    },
];

/// Thresholds of the rules (see `rules/README.md`): sessions with cues of a class, and
/// of them, sessions with a strong cue. Either threshold met is enough.
pub const MIN_CUE_SESSIONS: u32 = 2;
pub const MIN_STRONG_SESSIONS: u32 = 1;

crepe! {
    // A registered node and its kind.
    @input
    #[derive(Debug)]
    pub struct NodeIs(pub u32, pub u8);

    // Evidence group `g` of kind `k` from node `a` to node `b` with `n` distinct units
    // (sessions for mentions, manifests for imports, runs for bench runs), `s` of them
    // with a strong cue (every unit of a non-mention group is strong).
    @input
    #[derive(Debug)]
    pub struct Group(pub u32, pub u32, pub u32, pub u8, pub u32, pub u32);

    // A live manual link (group `g`): `a t b`.
    @input
    #[derive(Debug)]
    pub struct Linked(pub u32, pub u32, pub u8, pub u32);

    // A live unlink: `a t b` must not be derived.
    @input
    #[derive(Debug)]
    pub struct Unlinked(pub u32, pub u8, pub u32);

    // Nodes `a` and `b` share `n` domains, `s` of them specific (not a language); `g` is
    // the group of their registrations.
    @input
    #[derive(Debug)]
    pub struct SharedDomains(pub u32, pub u32, pub u32, pub u32, pub u32);

    // Derived before unlinks apply: `a t b` by rule `r`.
    struct Candidate(u32, u8, u32, u8);

    struct Blocked(u32, u8, u32);

    // The graph: edge `a t b` derived by rule `r`. One row per rule that fired.
    @output
    pub struct Edge(pub u32, pub u8, pub u32, pub u8);

    // Provenance: rule `r` derived `a t b` using evidence group `g`.
    @output
    pub struct Why(pub u8, pub u32, pub u8, pub u32, pub u32);

    // Evidence groups that exist between two nodes but made no edge (for `explain`).
    @output
    pub struct Unused(pub u32, pub u32, pub u32);

    // edge(a, t, b, manual-link) :- linked(g, a, t, b).
    Edge(a, t, b, R_MANUAL_LINK) <- Linked(_, a, t, b);
    Why(R_MANUAL_LINK, a, t, b, g) <- Linked(g, a, t, b);

    // candidate(p, USES, r, manifest-import) :- group(g, p, r, IMPORT, n), n >= 1.
    Candidate(p, USES, r, R_MANIFEST_IMPORT) <- Group(_, p, r, k, n, _), (k == G_IMPORT && n >= 1);
    // An import that was dropped still made its edge (history; the validity pass ends it).
    Candidate(p, USES, r, R_MANIFEST_IMPORT) <- Group(_, p, r, k, n, _), (k == G_DROPPED_IMPORT && n >= 1);
    // candidate(p, TESTS_WITH, r, bench-run) :- group(g, p, r, BENCH, n, _), n >= 1.
    Candidate(p, TESTS_WITH, r, R_BENCH_RUN) <- Group(_, p, r, k, n, _), (k == G_BENCH && n >= 1);
    // candidate(p, TESTS_WITH, r, testing-command) :- group(g, p, r, COMMAND, n, _), n >= 1.
    Candidate(p, TESTS_WITH, r, R_TESTING_COMMAND) <- Group(_, p, r, k, n, _), (k == G_COMMAND && n >= 1);
    // candidate(p, TESTS_WITH, r, testing-cues) :- group(g, p, r, TESTING, n, s), s >= 1.
    Candidate(p, TESTS_WITH, r, R_TESTING_CUES) <-
        Group(_, p, r, k, _, s), (k == G_TESTING && s >= MIN_STRONG_SESSIONS);
    // candidate(p, LEARNS_FROM, r, learning-cues) :-
    //     group(_, p, r, LEARNING, nl, sl), sl >= 1, group(_, p, r, TESTING, nt, _), nl >= nt.
    Candidate(p, LEARNS_FROM, r, R_LEARNING_CUES) <-
        Group(_, p, r, k, nl, sl), (k == G_LEARNING && sl >= MIN_STRONG_SESSIONS),
        Group(_, p, r, kt, nt, _), (kt == G_TESTING && nl >= nt);
    Candidate(p, LEARNS_FROM, r, R_LEARNING_CUES) <-
        Group(_, p, r, k, _, sl), (k == G_LEARNING && sl >= MIN_STRONG_SESSIONS),
        !TestedAtAll(p, r);
    // candidate(p, LEARNS_FROM, r, learning-cues) :- group(_, p, r, BORROWING, n, _), n >= 1.
    Candidate(p, LEARNS_FROM, r, R_LEARNING_CUES) <- Group(_, p, r, k, n, _), (k == G_BORROWING && n >= 1);
    // candidate(p, USES, r, using-cues) :- group(g, p, r, USING, n, s), n >= 2 or s >= 1.
    Candidate(p, USES, r, R_USING_CUES) <- Group(_, p, r, k, n, _), (k == G_USING && n >= MIN_CUE_SESSIONS);
    Candidate(p, USES, r, R_USING_CUES) <- Group(_, p, r, k, _, s), (k == G_USING && s >= MIN_STRONG_SESSIONS);
    // candidate(p, SIBLING, r, sibling-domain) :- project(p), reference(r), shared(p, r, _, s), s >= 1.
    Candidate(p, SIBLING, r, R_SIBLING_DOMAIN) <-
        NodeIs(p, kp), (kp == PROJECT), NodeIs(r, kr), (kr == REFERENCE), SharedDomains(p, r, _, s, _), (s >= 1);
    // candidate(p, DOMAIN, b, shared-domain) :- project(p), shared(p, b, n, _), n >= 1.
    Candidate(p, DOMAIN, b, R_SHARED_DOMAIN) <- NodeIs(p, kp), (kp == PROJECT), SharedDomains(p, b, n, _, _), (n >= 1);

    struct TestedAtAll(u32, u32);
    TestedAtAll(p, r) <- Group(_, p, r, k, _, _), (k == G_TESTING);

    // An unlink blocks exactly its edge; a manual link in force is never blocked (only
    // one of link/unlink is live for a triple).
    Blocked(a, t, b) <- Unlinked(a, t, b);
    Edge(a, t, b, rule) <- Candidate(a, t, b, rule), !Blocked(a, t, b);

    // Provenance of derived edges: the groups whose kind the rule reads.
    Why(rule, p, t, r, g) <- Edge(p, t, r, rule), Group(g, p, r, k, _, _), (rule_reads(rule, k));
    Why(rule, p, t, r, g) <- Edge(p, t, r, rule), SharedDomains(p, r, _, _, g), (rule == R_SIBLING_DOMAIN || rule == R_SHARED_DOMAIN);

    // Groups that support no edge of their pair (for "closest rules" in explain).
    struct Used(u32);
    Used(g) <- Why(_, _, _, _, g);
    Unused(g, a, b) <- Group(g, a, b, _, _, _), !Used(g);
}

/// Which evidence group kinds a rule's provenance lists.
pub fn rule_reads(rule: u8, kind: u8) -> bool {
    match rule {
        R_MANIFEST_IMPORT => kind == G_IMPORT || kind == G_DROPPED_IMPORT,
        R_BENCH_RUN => kind == G_BENCH,
        R_TESTING_COMMAND => kind == G_COMMAND,
        R_TESTING_CUES => kind == G_TESTING,
        R_LEARNING_CUES => kind == G_LEARNING,
        R_USING_CUES => kind == G_USING,
        _ => false,
    }
}

/// Whether any rule reads groups of this kind (plain mentions and endings are read by
/// none: they are kept for `explain` and the validity pass, and left out of the run that
/// derives edges).
pub fn kind_is_read(kind: u8) -> bool {
    !matches!(kind, G_PLAIN | G_ENDING | G_CONTRADICTION)
}

/// The input of one run.
#[derive(Debug, Default, Clone)]
pub struct RuleInput {
    pub nodes: Vec<NodeIs>,
    pub groups: Vec<Group>,
    pub linked: Vec<Linked>,
    pub unlinked: Vec<Unlinked>,
    pub shared_domains: Vec<SharedDomains>,
}

/// The output of one run, sorted (crepe returns hash sets).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RuleOutput {
    /// (from, type, to, rule), sorted.
    pub edges: Vec<(u32, u8, u32, u8)>,
    /// (rule, from, type, to, group), sorted.
    pub why: Vec<(u8, u32, u8, u32, u32)>,
    /// (group, from, to), sorted.
    pub unused: Vec<(u32, u32, u32)>,
}

/// Runs the rule program. Pure: no I/O, deterministic output order.
pub fn run(input: &RuleInput) -> RuleOutput {
    let mut runtime = Crepe::new();
    runtime.extend(input.nodes.iter().copied());
    runtime.extend(input.groups.iter().copied());
    runtime.extend(input.linked.iter().copied());
    runtime.extend(input.unlinked.iter().copied());
    runtime.extend(input.shared_domains.iter().copied());
    let (edges, why, unused) = runtime.run();
    let mut edges: Vec<_> = edges.into_iter().map(|Edge(a, t, b, r)| (a, t, b, r)).collect();
    let mut why: Vec<_> = why.into_iter().map(|Why(r, a, t, b, g)| (r, a, t, b, g)).collect();
    let mut unused: Vec<_> = unused.into_iter().map(|Unused(g, a, b)| (g, a, b)).collect();
    edges.sort_unstable();
    why.sort_unstable();
    unused.sort_unstable();
    RuleOutput { edges, why, unused }
}

#[cfg(test)]
mod tests {
    //! Differential test: the crepe program against a naive reference of the same rules.

    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    fn reference(input: &RuleInput) -> BTreeSet<(u32, u8, u32, u8)> {
        let mut candidates = BTreeSet::new();
        let group = |p: u32, r: u32, kind: u8| input.groups.iter().find(|g| g.1 == p && g.2 == r && g.3 == kind);
        for g in &input.groups {
            let Group(_, p, r, k, n, s) = *g;
            match k {
                G_IMPORT | G_DROPPED_IMPORT if n >= 1 => {
                    candidates.insert((p, USES, r, R_MANIFEST_IMPORT));
                }
                G_BENCH if n >= 1 => {
                    candidates.insert((p, TESTS_WITH, r, R_BENCH_RUN));
                }
                G_COMMAND if n >= 1 => {
                    candidates.insert((p, TESTS_WITH, r, R_TESTING_COMMAND));
                }
                G_TESTING if s >= MIN_STRONG_SESSIONS => {
                    candidates.insert((p, TESTS_WITH, r, R_TESTING_CUES));
                }
                G_BORROWING if n >= 1 => {
                    candidates.insert((p, LEARNS_FROM, r, R_LEARNING_CUES));
                }
                G_LEARNING if s >= MIN_STRONG_SESSIONS => {
                    let tested = group(p, r, G_TESTING).map(|g| g.4);
                    if tested.is_none_or(|nt| n >= nt) {
                        candidates.insert((p, LEARNS_FROM, r, R_LEARNING_CUES));
                    }
                }
                G_USING if n >= MIN_CUE_SESSIONS || s >= MIN_STRONG_SESSIONS => {
                    candidates.insert((p, USES, r, R_USING_CUES));
                }
                _ => {}
            }
        }
        let kind = |n: u32| input.nodes.iter().find(|x| x.0 == n).map(|x| x.1);
        for sd in &input.shared_domains {
            let SharedDomains(a, b, n, s, _) = *sd;
            if kind(a) == Some(PROJECT) && kind(b) == Some(REFERENCE) && s >= 1 {
                candidates.insert((a, SIBLING, b, R_SIBLING_DOMAIN));
            }
            if kind(a) == Some(PROJECT) && n >= 1 {
                candidates.insert((a, DOMAIN, b, R_SHARED_DOMAIN));
            }
        }
        let blocked: BTreeSet<(u32, u8, u32)> = input.unlinked.iter().map(|u| (u.0, u.1, u.2)).collect();
        let mut edges: BTreeSet<_> =
            candidates.into_iter().filter(|(a, t, b, _)| !blocked.contains(&(*a, *t, *b))).collect();
        for l in &input.linked {
            edges.insert((l.1, l.2, l.3, R_MANUAL_LINK));
        }
        edges
    }

    fn input() -> impl Strategy<Value = RuleInput> {
        let nodes = prop::collection::vec(0u8..2, 2..6);
        nodes.prop_flat_map(|kinds| {
            let n = kinds.len() as u32;
            let group_kinds = prop::sample::select(vec![
                G_TESTING,
                G_LEARNING,
                G_USING,
                G_PLAIN,
                G_COMMAND,
                G_IMPORT,
                G_BENCH,
                G_ENDING,
                G_BORROWING,
                G_DROPPED_IMPORT,
            ]);
            let group = (0..n, 0..n, group_kinds, 0u32..4, 0u32..3);
            let link = (0..n, 0u8..5, 0..n);
            let shared = (0..n, 0..n, 1u32..3, 0u32..2);
            (
                Just(kinds),
                prop::collection::vec(group, 0..12),
                prop::collection::vec(link.clone(), 0..3),
                prop::collection::vec(link, 0..3),
                prop::collection::vec(shared, 0..4),
            )
                .prop_map(|(kinds, groups, links, unlinks, shared)| {
                    let mut input = RuleInput {
                        nodes: kinds.iter().enumerate().map(|(i, k)| NodeIs(i as u32, *k)).collect(),
                        ..RuleInput::default()
                    };
                    let mut seen = BTreeSet::new();
                    for (i, (a, b, k, n, s)) in groups.into_iter().enumerate() {
                        // One group per (from, to, kind), as the fact loader guarantees.
                        if a != b && seen.insert((a, b, k)) {
                            input.groups.push(Group(i as u32, a, b, k, n, s.min(n)));
                        }
                    }
                    // Borrowing mentions are learning mentions too: a borrowing group comes
                    // with a learning group of at least as many (strong) units.
                    let borrowing: Vec<Group> = input.groups.iter().copied().filter(|g| g.3 == G_BORROWING).collect();
                    for (i, g) in borrowing.into_iter().enumerate() {
                        if seen.insert((g.1, g.2, G_LEARNING)) {
                            input.groups.push(Group(50 + i as u32, g.1, g.2, G_LEARNING, g.4.max(1), g.4.max(1)));
                        }
                    }
                    for (i, (a, t, b)) in links.into_iter().enumerate() {
                        input.linked.push(Linked(100 + i as u32, a, t, b));
                    }
                    // A triple is linked or unlinked, never both (only one is live).
                    for (a, t, b) in unlinks {
                        if !input.linked.iter().any(|l| (l.1, l.2, l.3) == (a, t, b)) {
                            input.unlinked.push(Unlinked(a, t, b));
                        }
                    }
                    let mut pairs = BTreeSet::new();
                    for (i, (a, b, n, s)) in shared.into_iter().enumerate() {
                        if a != b && pairs.insert((a, b)) {
                            input.shared_domains.push(SharedDomains(a, b, n, s.min(n), 200 + i as u32));
                        }
                    }
                    input
                })
        })
    }

    proptest! {
        #[test]
        fn crepe_program_matches_the_naive_reference(input in input()) {
            let output = run(&input);
            let got: BTreeSet<_> = output.edges.iter().copied().collect();
            prop_assert_eq!(got, reference(&input));
            // Every derived edge has provenance, and provenance names only derived edges.
            for &(a, t, b, r) in &output.edges {
                prop_assert!(output.why.iter().any(|w| (w.0, w.1, w.2, w.3) == (r, a, t, b)), "no why for {:?}", (a, t, b, r));
            }
            for w in &output.why {
                prop_assert!(output.edges.contains(&(w.1, w.2, w.3, w.0)));
            }
        }

        /// Leaving out the groups no rule reads changes no edge and no provenance.
        #[test]
        fn unread_groups_change_nothing(input in input()) {
            let full = run(&input);
            let read = RuleInput {
                groups: input.groups.iter().copied().filter(|g| kind_is_read(g.3)).collect(),
                ..input.clone()
            };
            let lean = run(&read);
            prop_assert_eq!(full.edges, lean.edges);
            prop_assert_eq!(full.why, lean.why);
        }
    }
}
