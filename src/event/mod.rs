//! Events: the ground truth of Patina Mother.
//!
//! Everything the store knows arrives as an [`Event`] appended to the [`log::EventLog`].
//! The graph and the search indexes are derived from these events and can be rebuilt
//! from them at any time.
//!
//! Two families of events exist:
//! - **state events** ([`NodeRegistered`], [`NodeRemoved`], [`LinkAdded`], [`LinkRemoved`])
//!   describe the current value of an *identity* (a node id, a link triple). A newer
//!   event for the same identity supersedes the older one.
//! - **fact events** ([`Mention`], [`Import`], [`BenchRun`], [`RouteFeedback`], and the
//!   knowledge facts [`Belief`], [`Observation`], [`Relation`]) are observations. They
//!   stay live until a [`Retracted`] event names them.
//!
//! Architecture Invariant: events are never modified or deleted; a correction is a new
//! event. The content hash of an event ([`Event::content_hash`]) covers its kind, its
//! payload and, for fact events, the path of its source file; it never covers the
//! sequence number, the timestamp or the line span. Appending an event whose hash is
//! live is a no-op, which makes every ingest idempotent.

pub mod codec;
pub mod log;
pub mod nodes;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::InvalidInput;

/// The five relation types of the graph. Direction matters: `patina USES dojo` routes
/// queries from patina to dojo, not back.
// Serde renames affect JSON only: bincode writes variant indices, never names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EdgeType {
    Uses,
    LearnsFrom,
    TestsWith,
    Sibling,
    Domain,
}

impl EdgeType {
    pub const ALL: [EdgeType; 5] =
        [EdgeType::Uses, EdgeType::LearnsFrom, EdgeType::TestsWith, EdgeType::Sibling, EdgeType::Domain];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeType::Uses => "USES",
            EdgeType::LearnsFrom => "LEARNS_FROM",
            EdgeType::TestsWith => "TESTS_WITH",
            EdgeType::Sibling => "SIBLING",
            EdgeType::Domain => "DOMAIN",
        }
    }

    /// Parses an edge type case-insensitively; `-` is accepted for `_`.
    pub fn parse(given: &str) -> Result<EdgeType, InvalidInput> {
        let normal = given.trim().to_ascii_uppercase().replace('-', "_");
        EdgeType::ALL
            .into_iter()
            .find(|t| t.as_str() == normal)
            .ok_or_else(|| InvalidInput::UnknownEdgeType { given: given.to_string() })
    }
}

impl fmt::Display for EdgeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Whether a node is one of the user's own projects or a repo they learn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Project,
    Reference,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Project => "project",
            NodeKind::Reference => "reference",
        }
    }

    pub fn parse(given: &str) -> Option<NodeKind> {
        match given.trim().to_ascii_lowercase().as_str() {
            "project" => Some(NodeKind::Project),
            "reference" | "ref" => Some(NodeKind::Reference),
            _ => None,
        }
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What kind of relation a mention's wording evidences. The words themselves are data
/// (`rules/cues.toml`); the classes are fixed because rules are written against them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CueClass {
    /// A passing mention with no cue.
    Plain,
    /// Testing or benchmarking on the repo.
    Testing,
    /// Learning from the repo (studied, borrowed a pattern, inspired by).
    Learning,
    /// Depending on the repo (uses the crate, depends on).
    Using,
    /// The repo was removed, dropped or replaced, or an earlier claim about it is
    /// contradicted ("X was never added"): evidence that ends the project's edges to it.
    /// (Appended last: the encoding of the other classes is unchanged.)
    Ending,
}

impl CueClass {
    pub const ALL: [CueClass; 5] =
        [CueClass::Plain, CueClass::Testing, CueClass::Learning, CueClass::Using, CueClass::Ending];

    pub fn as_str(self) -> &'static str {
        match self {
            CueClass::Plain => "plain",
            CueClass::Testing => "testing",
            CueClass::Learning => "learning",
            CueClass::Using => "using",
            CueClass::Ending => "ending",
        }
    }

    pub fn parse(given: &str) -> Option<CueClass> {
        CueClass::ALL.into_iter().find(|c| c.as_str().eq_ignore_ascii_case(given.trim()))
    }
}

impl fmt::Display for CueClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where an event came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Source {
    /// Typed by a user at the command line.
    Cli,
    /// Read from a file; lines are 1-based and inclusive.
    File { path: String, start_line: u32, end_line: u32 },
    /// Sent by an agent through the MCP server.
    Mcp,
    /// Sent to the mother daemon (`patina serve`) over HTTP. (Appended last: the encoding
    /// of the other sources is unchanged.)
    Daemon,
}

impl Source {
    pub fn file(path: impl Into<String>, start_line: u32, end_line: u32) -> Source {
        Source::File { path: path.into(), start_line, end_line }
    }

    /// The source file's path, if the event came from a file.
    pub fn path(&self) -> Option<&str> {
        match self {
            Source::File { path, .. } => Some(path),
            Source::Cli | Source::Mcp | Source::Daemon => None,
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Cli => f.write_str("cli"),
            Source::Mcp => f.write_str("mcp"),
            Source::Daemon => f.write_str("daemon"),
            Source::File { path, start_line, end_line } if start_line == end_line => {
                write!(f, "{path}:{start_line}")
            }
            Source::File { path, start_line, end_line } => write!(f, "{path}:{start_line}-{end_line}"),
        }
    }
}

/// A node (project or reference repo) was registered, or its description changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRegistered {
    pub id: String,
    pub kind: NodeKind,
    pub path: Option<String>,
    pub domains: Vec<String>,
    pub summary: Option<String>,
    pub aliases: Vec<String>,
    /// Names under which the repo appears in manifests (crate, npm, PyPI, Go module).
    pub packages: Vec<String>,
}

/// A node was removed from the world (its earlier events stay in the log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRemoved {
    pub id: String,
    pub reason: Option<String>,
}

/// A session log of `project` mentions `repo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mention {
    pub project: String,
    pub repo: String,
    pub session_id: String,
    /// `YYYY-MM-DD`, when the session's date is known.
    pub session_date: Option<String>,
    pub cue_class: CueClass,
    /// The cue words that set `cue_class` (empty for a plain mention).
    pub cue: String,
    /// Whether the cue is a strong one (`phrases` of the vocabulary, or a testing
    /// command) rather than a weak one (`weak_phrases`).
    pub strong_cue: bool,
    /// The text that matched the node (its id, an alias, a path).
    pub matched: String,
    /// The sentence around the mention.
    pub sentence: String,
    /// Distinct nodes named on the same line (a bulk list or stats table names many).
    pub co_mentions: u32,
}

/// A manifest of `project` depends on `repo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub project: String,
    pub repo: String,
    pub manifest: String,
    pub dependency: String,
}

/// `project` ran a benchmark or test suite against `repo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchRun {
    pub project: String,
    pub repo: String,
    pub suite: String,
    pub command: Option<String>,
    /// When the run happened, as given by its producer (RFC 3339 or `YYYY-MM-DD`).
    pub when: String,
}

/// A user linked two nodes by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkAdded {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    pub evidence: Option<String>,
    pub weight: Option<f32>,
}

/// A user removed a link (and blocks re-derivation of that exact edge until re-linked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRemoved {
    pub from: String,
    pub edge_type: EdgeType,
    pub to: String,
    pub reason: Option<String>,
}

/// A search result routed through the graph was (not) useful.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteFeedback {
    pub query_id: String,
    pub project: Option<String>,
    pub repo: String,
    pub rank: u32,
    pub useful: bool,
}

/// An earlier fact event no longer holds (e.g. its line vanished from the session log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retracted {
    pub target_seq: u64,
    pub reason: String,
}

/// A belief (a design decision, convention or lesson) or a core pattern of `project`, as
/// a belief file states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    pub project: String,
    pub id: String,
    /// `belief`, or `pattern` for a core pattern file.
    pub kind: String,
    pub persona: Option<String>,
    pub facets: Vec<String>,
    /// 0..1.
    pub confidence: Option<f32>,
    pub entrenchment: Option<String>,
    /// `active`, `scoped`, `defeated`, …
    pub status: String,
    /// The one-line summary under the title.
    pub summary: String,
    pub statement: String,
    /// Links to sessions, specs and papers that support it.
    pub evidence: Vec<EvidenceLink>,
    pub implications: Vec<String>,
    /// `YYYY-MM-DD`.
    pub extracted: Option<String>,
    pub revised: Option<String>,
    /// Where it has been applied (the `## Applied-In` list: code, commands, decisions that
    /// follow it). Payload v2; a belief without applications is written at v1, as before.
    pub applied_in: Vec<String>,
}

/// One evidence item of a belief: `[[target]] - note (weight: w)`, or a plain item
/// (`session-…: note`, or a note alone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceLink {
    /// The linked session or document; empty for a plain note with no target.
    pub target: String,
    pub note: String,
    pub weight: Option<f32>,
}

impl EvidenceLink {
    /// How it is cited: `[[target]] note`, or the note alone when it has no target.
    pub fn cited(&self) -> String {
        match (self.target.is_empty(), self.note.is_empty()) {
            (true, _) => self.note.clone(),
            (false, true) => format!("[[{}]]", self.target),
            (false, false) => format!("[[{}]] {}", self.target, self.note),
        }
    }
}

/// A decision, lesson or pattern noted in passing (`patina observe`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub project: String,
    pub id: String,
    pub text: String,
    /// `decision`, `lesson`, `pattern`, …
    pub kind: String,
    pub facets: Vec<String>,
}

/// A typed relation between two beliefs or observations (`supports`, `attacks`,
/// `attacked_by`, `relates_to`, …: the set is data). `to` may name a position that has no
/// belief of its own (a counter-position under Attacks); it stays an unresolved reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relation {
    pub project: String,
    pub from: String,
    pub to: String,
    pub rel_type: String,
    /// What the link says about itself: `status: defeated, reason: loses history`.
    pub note: Option<String>,
}

/// A typed event. Adding a kind means adding a variant here, a tag in [`EventKind`] and a
/// decoder in [`codec`]; changing a payload means a new payload version in [`codec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Event {
    NodeRegistered(NodeRegistered),
    NodeRemoved(NodeRemoved),
    Mention(Mention),
    Import(Import),
    BenchRun(BenchRun),
    LinkAdded(LinkAdded),
    LinkRemoved(LinkRemoved),
    RouteFeedback(RouteFeedback),
    Retracted(Retracted),
    Belief(Belief),
    Observation(Observation),
    Relation(Relation),
}

/// What the graph's facts read of an evidence event, borrowed: from an owned [`Event`]
/// ([`EvidenceRef::of`]) or straight from a stored record without copying a string
/// ([`codec::decode_evidence`]), so a full derivation never allocates per event field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EvidenceRef<'a> {
    Mention {
        project: &'a str,
        repo: &'a str,
        session_id: &'a str,
        session_date: Option<&'a str>,
        cue_class: CueClass,
        cue: &'a str,
        strong_cue: bool,
    },
    Import {
        project: &'a str,
        repo: &'a str,
        manifest: &'a str,
    },
    BenchRun {
        project: &'a str,
        repo: &'a str,
        suite: &'a str,
        when: &'a str,
    },
    LinkAdded {
        from: &'a str,
        edge_type: EdgeType,
        to: &'a str,
        weight: Option<f32>,
    },
    LinkRemoved {
        from: &'a str,
        edge_type: EdgeType,
        to: &'a str,
    },
    RouteFeedback {
        project: Option<&'a str>,
        repo: &'a str,
        useful: bool,
    },
    /// A retraction: the graph reads those of imports (a manifest dropped a dependency).
    Retracted {
        target_seq: u64,
    },
}

impl<'a> EvidenceRef<'a> {
    /// The evidence view of an owned event (`None` for kinds that are not evidence).
    pub fn of(event: &'a Event) -> Option<EvidenceRef<'a>> {
        Some(match event {
            Event::Mention(m) => EvidenceRef::Mention {
                project: &m.project,
                repo: &m.repo,
                session_id: &m.session_id,
                session_date: m.session_date.as_deref(),
                cue_class: m.cue_class,
                cue: &m.cue,
                strong_cue: m.strong_cue,
            },
            Event::Import(i) => EvidenceRef::Import { project: &i.project, repo: &i.repo, manifest: &i.manifest },
            Event::BenchRun(b) => {
                EvidenceRef::BenchRun { project: &b.project, repo: &b.repo, suite: &b.suite, when: &b.when }
            }
            Event::LinkAdded(l) => {
                EvidenceRef::LinkAdded { from: &l.from, edge_type: l.edge_type, to: &l.to, weight: l.weight }
            }
            Event::LinkRemoved(l) => EvidenceRef::LinkRemoved { from: &l.from, edge_type: l.edge_type, to: &l.to },
            Event::RouteFeedback(f) => {
                EvidenceRef::RouteFeedback { project: f.project.as_deref(), repo: &f.repo, useful: f.useful }
            }
            Event::Retracted(r) => EvidenceRef::Retracted { target_seq: r.target_seq },
            Event::NodeRegistered(_)
            | Event::NodeRemoved(_)
            | Event::Belief(_)
            | Event::Observation(_)
            | Event::Relation(_) => return None,
        })
    }
}

/// The kind of an event; its `tag` is what the codec writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EventKind {
    NodeRegistered,
    NodeRemoved,
    Mention,
    Import,
    BenchRun,
    LinkAdded,
    LinkRemoved,
    RouteFeedback,
    Retracted,
    Belief,
    Observation,
    Relation,
}

impl EventKind {
    pub const ALL: [EventKind; 12] = [
        EventKind::NodeRegistered,
        EventKind::NodeRemoved,
        EventKind::Mention,
        EventKind::Import,
        EventKind::BenchRun,
        EventKind::LinkAdded,
        EventKind::LinkRemoved,
        EventKind::RouteFeedback,
        EventKind::Retracted,
        EventKind::Belief,
        EventKind::Observation,
        EventKind::Relation,
    ];

    /// The on-disk tag. Invariant: tags are never reused or renumbered.
    pub fn tag(self) -> u8 {
        match self {
            EventKind::NodeRegistered => 1,
            EventKind::NodeRemoved => 2,
            EventKind::Mention => 3,
            EventKind::Import => 4,
            EventKind::BenchRun => 5,
            EventKind::LinkAdded => 6,
            EventKind::LinkRemoved => 7,
            EventKind::RouteFeedback => 8,
            EventKind::Retracted => 9,
            EventKind::Belief => 10,
            EventKind::Observation => 11,
            EventKind::Relation => 12,
        }
    }

    pub fn from_tag(tag: u8) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.tag() == tag)
    }

    /// The kebab-case name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::NodeRegistered => "node-registered",
            EventKind::NodeRemoved => "node-removed",
            EventKind::Mention => "mention",
            EventKind::Import => "import",
            EventKind::BenchRun => "bench-run",
            EventKind::LinkAdded => "link-added",
            EventKind::LinkRemoved => "link-removed",
            EventKind::RouteFeedback => "route-feedback",
            EventKind::Retracted => "retracted",
            EventKind::Belief => "belief",
            EventKind::Observation => "observation",
            EventKind::Relation => "relation",
        }
    }

    /// Parses `link-added`, `link_added` or `LinkAdded`, case-insensitively.
    pub fn parse(given: &str) -> Result<EventKind, InvalidInput> {
        let normal: String =
            given.trim().chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect();
        EventKind::ALL.into_iter().find(|k| k.as_str().replace('-', "") == normal).ok_or_else(|| {
            InvalidInput::UnknownEventKind {
                given: given.to_string(),
                valid: EventKind::ALL.map(EventKind::as_str).join(", "),
            }
        })
    }

    /// Fact kinds stay live until retracted; state kinds are superseded by identity.
    pub fn is_fact(self) -> bool {
        matches!(
            self,
            EventKind::Mention
                | EventKind::Import
                | EventKind::BenchRun
                | EventKind::RouteFeedback
                | EventKind::Belief
                | EventKind::Observation
                | EventKind::Relation
        )
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A content hash (BLAKE3, 32 bytes) of an event's identity-relevant content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ContentHash(pub [u8; 32]);

impl ContentHash {
    pub fn to_hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }
}

impl Event {
    pub fn kind(&self) -> EventKind {
        match self {
            Event::NodeRegistered(_) => EventKind::NodeRegistered,
            Event::NodeRemoved(_) => EventKind::NodeRemoved,
            Event::Mention(_) => EventKind::Mention,
            Event::Import(_) => EventKind::Import,
            Event::BenchRun(_) => EventKind::BenchRun,
            Event::LinkAdded(_) => EventKind::LinkAdded,
            Event::LinkRemoved(_) => EventKind::LinkRemoved,
            Event::RouteFeedback(_) => EventKind::RouteFeedback,
            Event::Retracted(_) => EventKind::Retracted,
            Event::Belief(_) => EventKind::Belief,
            Event::Observation(_) => EventKind::Observation,
            Event::Relation(_) => EventKind::Relation,
        }
    }

    /// The node ids this event is about (for the by-node index).
    pub fn nodes(&self) -> Vec<&str> {
        match self {
            Event::NodeRegistered(e) => vec![&e.id],
            Event::NodeRemoved(e) => vec![&e.id],
            Event::Mention(e) => vec![&e.project, &e.repo],
            Event::Import(e) => vec![&e.project, &e.repo],
            Event::BenchRun(e) => vec![&e.project, &e.repo],
            Event::LinkAdded(e) => vec![&e.from, &e.to],
            Event::LinkRemoved(e) => vec![&e.from, &e.to],
            Event::RouteFeedback(e) => {
                let mut nodes = vec![e.repo.as_str()];
                nodes.extend(e.project.as_deref());
                nodes
            }
            Event::Retracted(_) => Vec::new(),
            Event::Belief(e) => vec![&e.project],
            Event::Observation(e) => vec![&e.project],
            Event::Relation(e) => vec![&e.project],
        }
    }

    /// The identity a state event describes; a later event with the same identity
    /// supersedes it. `None` for fact events.
    pub fn identity(&self) -> Option<String> {
        match self {
            Event::NodeRegistered(e) => Some(node_identity(&e.id)),
            Event::NodeRemoved(e) => Some(node_identity(&e.id)),
            Event::LinkAdded(e) => Some(link_identity(&e.from, e.edge_type, &e.to)),
            Event::LinkRemoved(e) => Some(link_identity(&e.from, e.edge_type, &e.to)),
            Event::Mention(_)
            | Event::Import(_)
            | Event::BenchRun(_)
            | Event::RouteFeedback(_)
            | Event::Retracted(_)
            | Event::Belief(_)
            | Event::Observation(_)
            | Event::Relation(_) => None,
        }
    }

    /// The content hash: kind tag, payload and, for fact events, the source file path.
    /// Timestamps, sequence numbers and line spans never enter it.
    pub fn content_hash(&self, source: &Source) -> ContentHash {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&[self.kind().tag()]);
        hasher.update(&codec::encode_payload(self));
        if self.kind().is_fact()
            && let Some(path) = source.path()
        {
            hasher.update(&[0xff]);
            hasher.update(path.as_bytes());
        }
        ContentHash(*hasher.finalize().as_bytes())
    }

    /// A one-line human description of the payload.
    pub fn summary(&self) -> String {
        match self {
            Event::NodeRegistered(e) => {
                let mut s = format!("{} ({})", e.id, e.kind);
                if !e.domains.is_empty() {
                    s.push_str(&format!(" domains={}", e.domains.join(",")));
                }
                if let Some(path) = &e.path {
                    s.push_str(&format!(" path={path}"));
                }
                s
            }
            Event::NodeRemoved(e) => e.id.clone(),
            Event::Mention(e) => format!(
                "{} mentions {} [{}{}] session {}: {}",
                e.project,
                e.repo,
                e.cue_class,
                if e.cue.is_empty() { String::new() } else { format!(": {}", e.cue) },
                e.session_id,
                e.sentence
            ),
            Event::Import(e) => format!("{} imports {} ({} in {})", e.project, e.repo, e.dependency, e.manifest),
            Event::BenchRun(e) => format!("{} bench {} on {} at {}", e.project, e.suite, e.repo, e.when),
            Event::LinkAdded(e) => {
                let mut s = format!("{} {} {}", e.from, e.edge_type, e.to);
                if let Some(w) = e.weight {
                    s.push_str(&format!(" weight={w}"));
                }
                if let Some(ev) = &e.evidence {
                    s.push_str(&format!(" \"{ev}\""));
                }
                s
            }
            Event::LinkRemoved(e) => match &e.reason {
                Some(reason) => format!("{} {} {} \"{reason}\"", e.from, e.edge_type, e.to),
                None => format!("{} {} {}", e.from, e.edge_type, e.to),
            },
            Event::RouteFeedback(e) => format!(
                "query {} rank {} repo {}: {}",
                e.query_id,
                e.rank,
                e.repo,
                if e.useful { "useful" } else { "not useful" }
            ),
            Event::Retracted(e) => format!("#{} ({})", e.target_seq, e.reason),
            Event::Belief(e) => format!("{} {} {} [{}]: {}", e.project, e.kind, e.id, e.status, e.summary),
            Event::Observation(e) => format!("{} {} {}: {}", e.project, e.kind, e.id, e.text),
            Event::Relation(e) => match &e.note {
                Some(note) => format!("{} {} {} ({note})", e.from, e.rel_type, e.to),
                None => format!("{} {} {}", e.from, e.rel_type, e.to),
            },
        }
    }
}

pub fn node_identity(id: &str) -> String {
    format!("node\u{0}{id}")
}

pub fn link_identity(from: &str, edge_type: EdgeType, to: &str) -> String {
    format!("link\u{0}{from}\u{0}{edge_type}\u{0}{to}")
}

/// An event as stored: with its sequence number, append time, source and hash.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Invariant: strictly increasing in append order, starting at 1, never reused.
    pub seq: u64,
    /// Milliseconds since the Unix epoch at append time.
    pub ts_ms: i64,
    pub source: Source,
    pub hash: ContentHash,
    pub event: Event,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_types_parse_case_insensitively() {
        assert_eq!(EdgeType::parse("uses").unwrap(), EdgeType::Uses);
        assert_eq!(EdgeType::parse("Learns-From").unwrap(), EdgeType::LearnsFrom);
        assert_eq!(EdgeType::parse("TESTS_WITH").unwrap(), EdgeType::TestsWith);
        let err = EdgeType::parse("LIKES").unwrap_err().to_string();
        assert!(err.contains("LIKES") && err.contains("SIBLING"), "{err}");
    }

    #[test]
    fn event_kinds_parse_in_every_spelling() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.as_str()).unwrap(), kind);
            assert_eq!(EventKind::parse(&format!("{kind:?}")).unwrap(), kind);
            assert_eq!(EventKind::from_tag(kind.tag()), Some(kind));
        }
        assert!(EventKind::parse("nope").is_err());
    }

    #[test]
    fn hash_ignores_line_span_but_not_fact_file() {
        let event = Event::Import(Import {
            project: "p".into(),
            repo: "r".into(),
            manifest: "Cargo.toml".into(),
            dependency: "r".into(),
        });
        let a = event.content_hash(&Source::file("/x/Cargo.toml", 3, 3));
        let b = event.content_hash(&Source::file("/x/Cargo.toml", 9, 9));
        let c = event.content_hash(&Source::file("/y/Cargo.toml", 3, 3));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
