//! The on-disk record format of one event.
//!
//! ```text
//! record  = format:u8  kind_tag:u8  payload_version:u8  header  payload
//! header  = bincode(seq:u64, ts_ms:i64, source:Source, hash:[u8; 32])
//! payload = bincode(<kind's payload struct at payload_version>)
//! ```
//!
//! bincode 2 with the `standard` configuration (varint integers) and a 16 MiB limit, so a
//! corrupted length prefix becomes an error instead of a huge allocation.
//!
//! Architecture Invariant: decoding never panics. An unknown format, kind tag or payload
//! version is a [`DecodeError`]. Evolving a payload means adding a new version number
//! here, keeping the decoder of every older version, and upgrading old payloads to the
//! current struct on read: old logs stay readable forever.
//!
//! Versions: every kind is at v1, except a belief with applications (`applied_in`, a
//! trailing field), which is at v2. A belief without them is still written at v1, byte
//! for byte as before, so the content hash of every event written before v2 is unchanged
//! (ingest's dedup and `repair`'s hash check keep holding for old logs).

use serde::{Serialize, de::DeserializeOwned};

use super::{Belief, ContentHash, CueClass, EdgeType, Event, EventKind, EvidenceRef, Source, StoredEvent};
use crate::error::DecodeError;

/// The current record format.
pub const RECORD_FORMAT: u8 = 1;
/// The payload version every kind is written at, but a belief with applications.
const PAYLOAD_V1: u8 = 1;
/// A belief with applications: the v1 fields, then `applied_in`.
const PAYLOAD_V2: u8 = 2;
const LIMIT: usize = 16 * 1024 * 1024;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<LIMIT>()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    seq: u64,
    ts_ms: i64,
    source: Source,
    hash: [u8; 32],
}

fn to_bytes<T: Serialize>(value: &T, out: &mut Vec<u8>) {
    // Encoding plain structs into a Vec cannot fail except past the size limit, which
    // payload sizes (bounded by the ingest size cap) never reach.
    let bytes = bincode::serde::encode_to_vec(value, config()).expect("bincode encoding of an in-memory event");
    out.extend_from_slice(&bytes);
}

/// The payload bytes alone (what the content hash covers).
pub fn encode_payload(event: &Event) -> Vec<u8> {
    let mut out = Vec::new();
    match event {
        Event::NodeRegistered(e) => to_bytes(e, &mut out),
        Event::NodeRemoved(e) => to_bytes(e, &mut out),
        Event::Mention(e) => to_bytes(e, &mut out),
        Event::Import(e) => to_bytes(e, &mut out),
        Event::BenchRun(e) => to_bytes(e, &mut out),
        Event::LinkAdded(e) => to_bytes(e, &mut out),
        Event::LinkRemoved(e) => to_bytes(e, &mut out),
        Event::RouteFeedback(e) => to_bytes(e, &mut out),
        Event::Retracted(e) => to_bytes(e, &mut out),
        Event::Belief(e) if e.applied_in.is_empty() => to_bytes(&BeliefV1::from(e), &mut out),
        Event::Belief(e) => to_bytes(e, &mut out),
        Event::Observation(e) => to_bytes(e, &mut out),
        Event::Relation(e) => to_bytes(e, &mut out),
    }
    out
}

/// The payload version `event` is written at.
fn payload_version(event: &Event) -> u8 {
    match event {
        Event::Belief(b) if !b.applied_in.is_empty() => PAYLOAD_V2,
        _ => PAYLOAD_V1,
    }
}

/// A belief at payload v1: [`Belief`] without `applied_in`, its fields in the same order.
#[derive(serde::Serialize, serde::Deserialize)]
struct BeliefV1 {
    project: String,
    id: String,
    kind: String,
    persona: Option<String>,
    facets: Vec<String>,
    confidence: Option<f32>,
    entrenchment: Option<String>,
    status: String,
    summary: String,
    statement: String,
    evidence: Vec<super::EvidenceLink>,
    implications: Vec<String>,
    extracted: Option<String>,
    revised: Option<String>,
}

impl From<&Belief> for BeliefV1 {
    fn from(b: &Belief) -> BeliefV1 {
        let b = b.clone();
        BeliefV1 {
            project: b.project,
            id: b.id,
            kind: b.kind,
            persona: b.persona,
            facets: b.facets,
            confidence: b.confidence,
            entrenchment: b.entrenchment,
            status: b.status,
            summary: b.summary,
            statement: b.statement,
            evidence: b.evidence,
            implications: b.implications,
            extracted: b.extracted,
            revised: b.revised,
        }
    }
}

impl From<BeliefV1> for Belief {
    fn from(b: BeliefV1) -> Belief {
        Belief {
            project: b.project,
            id: b.id,
            kind: b.kind,
            persona: b.persona,
            facets: b.facets,
            confidence: b.confidence,
            entrenchment: b.entrenchment,
            status: b.status,
            summary: b.summary,
            statement: b.statement,
            evidence: b.evidence,
            implications: b.implications,
            extracted: b.extracted,
            revised: b.revised,
            applied_in: Vec::new(),
        }
    }
}

/// Encodes a stored event into one record.
pub fn encode(stored: &StoredEvent) -> Vec<u8> {
    let mut out = vec![RECORD_FORMAT, stored.event.kind().tag(), payload_version(&stored.event)];
    let header = Header { seq: stored.seq, ts_ms: stored.ts_ms, source: stored.source.clone(), hash: stored.hash.0 };
    to_bytes(&header, &mut out);
    out.extend_from_slice(&encode_payload(&stored.event));
    out
}

fn take<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), DecodeError> {
    bincode::serde::decode_from_slice(bytes, config()).map_err(|err| DecodeError::Malformed(err.to_string()))
}

/// The record's kind, payload version and the bytes after its prefix (format, kind tag,
/// payload version).
fn prefix(bytes: &[u8]) -> Result<(EventKind, u8, &[u8]), DecodeError> {
    let (&format, rest) = bytes.split_first().ok_or(DecodeError::Empty)?;
    if format != RECORD_FORMAT {
        return Err(DecodeError::UnknownFormat(format));
    }
    let [tag, version, rest @ ..] = rest else {
        return Err(DecodeError::Malformed("record shorter than its prefix".into()));
    };
    let kind = EventKind::from_tag(*tag).ok_or(DecodeError::UnknownKind(*tag))?;
    let known = *version == PAYLOAD_V1 || (*version == PAYLOAD_V2 && kind == EventKind::Belief);
    if !known {
        return Err(DecodeError::UnknownVersion { kind: kind.as_str(), version: *version });
    }
    Ok((kind, *version, rest))
}

/// Decodes one record; never panics, whatever the bytes.
pub fn decode(bytes: &[u8]) -> Result<StoredEvent, DecodeError> {
    let (kind, version, rest) = prefix(bytes)?;
    let (header, used) = take::<Header>(rest)?;
    let payload = &rest[used..];
    let (event, used) = match (kind, version) {
        (EventKind::Belief, PAYLOAD_V1) => {
            take::<BeliefV1>(payload).map(|(b, used)| (Event::Belief(b.into()), used))?
        }
        _ => decode_payload(kind, payload)?,
    };
    if used != payload.len() {
        return Err(DecodeError::TrailingBytes(payload.len() - used));
    }
    Ok(StoredEvent {
        seq: header.seq,
        ts_ms: header.ts_ms,
        source: header.source,
        hash: ContentHash(header.hash),
        event,
    })
}

/// The header, borrowed (the same fields as [`Header`]).
#[derive(serde::Deserialize)]
struct HeaderRef<'a> {
    #[allow(dead_code)]
    seq: u64,
    ts_ms: i64,
    #[serde(borrow)]
    #[allow(dead_code)]
    source: SourceRef<'a>,
    #[allow(dead_code)]
    hash: [u8; 32],
}

/// [`Source`], borrowed: the same variants in the same order.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
enum SourceRef<'a> {
    Cli,
    File { path: &'a str, start_line: u32, end_line: u32 },
    Mcp,
    Daemon,
}

// Leading fields of the payload structs, borrowed, in their order (bincode reads fields in
// order, so a prefix of a struct decodes the prefix of its record).
#[derive(serde::Deserialize)]
struct MentionRef<'a> {
    project: &'a str,
    repo: &'a str,
    session_id: &'a str,
    #[serde(borrow)]
    session_date: Option<&'a str>,
    cue_class: CueClass,
    cue: &'a str,
    strong_cue: bool,
}

#[derive(serde::Deserialize)]
struct ImportRef<'a> {
    project: &'a str,
    repo: &'a str,
    manifest: &'a str,
}

#[derive(serde::Deserialize)]
struct BenchRunRef<'a> {
    project: &'a str,
    repo: &'a str,
    suite: &'a str,
    #[serde(borrow)]
    #[allow(dead_code)]
    command: Option<&'a str>,
    when: &'a str,
}

#[derive(serde::Deserialize)]
struct LinkAddedRef<'a> {
    from: &'a str,
    edge_type: EdgeType,
    to: &'a str,
    #[serde(borrow)]
    #[allow(dead_code)]
    evidence: Option<&'a str>,
    weight: Option<f32>,
}

#[derive(serde::Deserialize)]
struct LinkRemovedRef<'a> {
    from: &'a str,
    edge_type: EdgeType,
    to: &'a str,
}

#[derive(serde::Deserialize)]
struct RouteFeedbackRef<'a> {
    #[allow(dead_code)]
    query_id: &'a str,
    #[serde(borrow)]
    project: Option<&'a str>,
    repo: &'a str,
    #[allow(dead_code)]
    rank: u32,
    useful: bool,
}

#[derive(serde::Deserialize)]
struct RetractedRef {
    target_seq: u64,
}

fn borrow<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Result<(T, usize), DecodeError> {
    bincode::serde::borrow_decode_from_slice(bytes, config()).map_err(|err| DecodeError::Malformed(err.to_string()))
}

/// Decodes what the graph's facts read of an evidence record, borrowing its strings:
/// `(ts_ms, evidence)`, or `None` for a record of another kind. Same errors as [`decode`]
/// for the parts it reads; never panics.
pub fn decode_evidence(bytes: &[u8]) -> Result<Option<(i64, EvidenceRef<'_>)>, DecodeError> {
    let (kind, _, rest) = prefix(bytes)?;
    let (header, used) = borrow::<HeaderRef<'_>>(rest)?;
    let payload = &rest[used..];
    let evidence = match kind {
        EventKind::Mention => {
            let m = borrow::<MentionRef<'_>>(payload)?.0;
            EvidenceRef::Mention {
                project: m.project,
                repo: m.repo,
                session_id: m.session_id,
                session_date: m.session_date,
                cue_class: m.cue_class,
                cue: m.cue,
                strong_cue: m.strong_cue,
            }
        }
        EventKind::Import => {
            let i = borrow::<ImportRef<'_>>(payload)?.0;
            EvidenceRef::Import { project: i.project, repo: i.repo, manifest: i.manifest }
        }
        EventKind::BenchRun => {
            let b = borrow::<BenchRunRef<'_>>(payload)?.0;
            EvidenceRef::BenchRun { project: b.project, repo: b.repo, suite: b.suite, when: b.when }
        }
        EventKind::LinkAdded => {
            let l = borrow::<LinkAddedRef<'_>>(payload)?.0;
            EvidenceRef::LinkAdded { from: l.from, edge_type: l.edge_type, to: l.to, weight: l.weight }
        }
        EventKind::LinkRemoved => {
            let l = borrow::<LinkRemovedRef<'_>>(payload)?.0;
            EvidenceRef::LinkRemoved { from: l.from, edge_type: l.edge_type, to: l.to }
        }
        EventKind::RouteFeedback => {
            let f = borrow::<RouteFeedbackRef<'_>>(payload)?.0;
            EvidenceRef::RouteFeedback { project: f.project, repo: f.repo, useful: f.useful }
        }
        EventKind::Retracted => EvidenceRef::Retracted { target_seq: borrow::<RetractedRef>(payload)?.0.target_seq },
        EventKind::NodeRegistered
        | EventKind::NodeRemoved
        | EventKind::Belief
        | EventKind::Observation
        | EventKind::Relation => {
            return Ok(None);
        }
    };
    Ok(Some((header.ts_ms, evidence)))
}

/// A payload at the version its kind is written at today (a belief: v2).
fn decode_payload(kind: EventKind, bytes: &[u8]) -> Result<(Event, usize), DecodeError> {
    fn wrap<T: DeserializeOwned>(bytes: &[u8], f: fn(T) -> Event) -> Result<(Event, usize), DecodeError> {
        take::<T>(bytes).map(|(v, used)| (f(v), used))
    }
    match kind {
        EventKind::NodeRegistered => wrap(bytes, Event::NodeRegistered),
        EventKind::NodeRemoved => wrap(bytes, Event::NodeRemoved),
        EventKind::Mention => wrap(bytes, Event::Mention),
        EventKind::Import => wrap(bytes, Event::Import),
        EventKind::BenchRun => wrap(bytes, Event::BenchRun),
        EventKind::LinkAdded => wrap(bytes, Event::LinkAdded),
        EventKind::LinkRemoved => wrap(bytes, Event::LinkRemoved),
        EventKind::RouteFeedback => wrap(bytes, Event::RouteFeedback),
        EventKind::Retracted => wrap(bytes, Event::Retracted),
        EventKind::Belief => wrap(bytes, Event::Belief),
        EventKind::Observation => wrap(bytes, Event::Observation),
        EventKind::Relation => wrap(bytes, Event::Relation),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::event::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![".{0,24}", "[a-zA-Z0-9_/-]{1,12}"]
    }

    fn strings() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec(text(), 0..4)
    }

    fn edge_type() -> impl Strategy<Value = EdgeType> {
        prop::sample::select(EdgeType::ALL.to_vec())
    }

    fn source() -> impl Strategy<Value = Source> {
        prop_oneof![
            Just(Source::Cli),
            Just(Source::Mcp),
            Just(Source::Daemon),
            (text(), any::<u32>(), any::<u32>()).prop_map(|(p, a, b)| Source::file(p, a, b)),
        ]
    }

    pub(crate) fn event() -> impl Strategy<Value = Event> {
        prop_oneof![
            (
                text(),
                any::<bool>(),
                prop::option::of(text()),
                strings(),
                prop::option::of(text()),
                strings(),
                strings()
            )
                .prop_map(|(id, project, path, domains, summary, aliases, packages)| {
                    Event::NodeRegistered(NodeRegistered {
                        id,
                        kind: if project { NodeKind::Project } else { NodeKind::Reference },
                        path,
                        domains,
                        summary,
                        aliases,
                        packages,
                    })
                }),
            (text(), prop::option::of(text())).prop_map(|(id, reason)| Event::NodeRemoved(NodeRemoved { id, reason })),
            (
                text(),
                text(),
                text(),
                prop::option::of(text()),
                prop::sample::select(CueClass::ALL.to_vec()),
                text(),
                text(),
                text(),
                any::<u32>()
            )
                .prop_map(
                    |(project, repo, session_id, session_date, cue_class, cue, matched, sentence, co_mentions)| {
                        let strong_cue = co_mentions % 2 == 0;
                        Event::Mention(Mention {
                            project,
                            repo,
                            session_id,
                            session_date,
                            cue_class,
                            cue,
                            strong_cue,
                            matched,
                            sentence,
                            co_mentions,
                        })
                    }
                ),
            (text(), text(), text(), text()).prop_map(|(project, repo, manifest, dependency)| Event::Import(Import {
                project,
                repo,
                manifest,
                dependency
            })),
            (text(), text(), text(), prop::option::of(text()), text()).prop_map(
                |(project, repo, suite, command, when)| Event::BenchRun(BenchRun {
                    project,
                    repo,
                    suite,
                    command,
                    when
                })
            ),
            (text(), edge_type(), text(), prop::option::of(text()), prop::option::of(0.0f32..10.0)).prop_map(
                |(from, edge_type, to, evidence, weight)| Event::LinkAdded(LinkAdded {
                    from,
                    edge_type,
                    to,
                    evidence,
                    weight
                })
            ),
            (text(), edge_type(), text(), prop::option::of(text())).prop_map(|(from, edge_type, to, reason)| {
                Event::LinkRemoved(LinkRemoved { from, edge_type, to, reason })
            }),
            (text(), prop::option::of(text()), text(), any::<u32>(), any::<bool>()).prop_map(
                |(query_id, project, repo, rank, useful)| Event::RouteFeedback(RouteFeedback {
                    query_id,
                    project,
                    repo,
                    rank,
                    useful
                })
            ),
            (any::<u64>(), text()).prop_map(|(target_seq, reason)| Event::Retracted(Retracted { target_seq, reason })),
            (
                (text(), text(), text(), prop::option::of(text()), prop::collection::vec(text(), 0..3)),
                (prop::option::of(0.0f32..1.0), prop::option::of(text()), text(), text(), text()),
                (
                    prop::collection::vec((text(), text(), prop::option::of(0.0f32..1.0)), 0..3),
                    prop::option::of(text()),
                    strings(),
                ),
            )
                .prop_map(
                    |(
                        (project, id, kind, persona, facets),
                        (confidence, entrenchment, status, summary, statement),
                        (evidence, extracted, applied_in),
                    )| {
                        Event::Belief(Belief {
                            project,
                            id,
                            kind,
                            persona,
                            facets,
                            confidence,
                            entrenchment,
                            status,
                            summary,
                            statement,
                            evidence: evidence
                                .into_iter()
                                .map(|(target, note, weight)| EvidenceLink { target, note, weight })
                                .collect(),
                            implications: vec![],
                            revised: extracted.clone(),
                            extracted,
                            applied_in,
                        })
                    }
                ),
            (text(), text(), text(), text(), prop::collection::vec(text(), 0..3)).prop_map(
                |(project, id, text, kind, facets)| Event::Observation(Observation { project, id, text, kind, facets })
            ),
            (text(), text(), text(), text(), prop::option::of(text())).prop_map(
                |(project, from, to, rel_type, note)| Event::Relation(Relation { project, from, to, rel_type, note })
            ),
        ]
    }

    proptest! {
        #[test]
        fn every_event_kind_round_trips(event in event(), source in source(), seq in 1u64.., ts_ms in any::<i64>()) {
            let hash = event.content_hash(&source);
            let stored = StoredEvent { seq, ts_ms, source, hash, event };
            let bytes = encode(&stored);
            prop_assert_eq!(decode(&bytes).unwrap(), stored);
        }

        /// The borrowed evidence view of a record is the view of the event it decodes to.
        #[test]
        fn evidence_views_borrow_what_decoding_gives(event in event(), source in source(), seq in 1u64.., ts_ms in any::<i64>()) {
            let hash = event.content_hash(&source);
            let stored = StoredEvent { seq, ts_ms, source, hash, event };
            let bytes = encode(&stored);
            let view = decode_evidence(&bytes).unwrap();
            prop_assert_eq!(view, EvidenceRef::of(&stored.event).map(|e| (ts_ms, e)));
        }

        #[test]
        fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode(&bytes);
            let _ = decode_evidence(&bytes);
        }

        #[test]
        fn truncated_or_flipped_records_are_errors_or_decode(event in event(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>()) {
            let stored = StoredEvent { seq: 7, ts_ms: 1, source: Source::Cli, hash: event.content_hash(&Source::Cli), event };
            let bytes = encode(&stored);
            let cut_at = cut.index(bytes.len());
            prop_assert!(decode(&bytes[..cut_at]).is_err());
            let mut flipped = bytes.clone();
            let i = flip.index(flipped.len());
            flipped[i] ^= 0xa5;
            let _ = decode(&flipped);
        }
    }

    #[test]
    fn unknown_tags_and_versions_are_errors() {
        assert_eq!(decode(&[]), Err(DecodeError::Empty));
        assert_eq!(decode(&[9, 1, 1]), Err(DecodeError::UnknownFormat(9)));
        assert_eq!(decode(&[RECORD_FORMAT, 200, 1]), Err(DecodeError::UnknownKind(200)));
        assert!(matches!(
            decode(&[RECORD_FORMAT, 3, 9]),
            Err(DecodeError::UnknownVersion { kind: "mention", version: 9 })
        ));
        assert!(matches!(decode(&[RECORD_FORMAT, 3, 1, 0xff, 0xff]), Err(DecodeError::Malformed(_))));
    }

    /// A belief without applications is written at v1, byte for byte as before v2 (so its
    /// content hash is unchanged); one with them at v2; both decode to what was written.
    #[test]
    fn beliefs_without_applications_stay_at_payload_v1() {
        let mut belief = Belief {
            project: "p".into(),
            id: "eventlog-is-truth".into(),
            kind: "belief".into(),
            persona: Some("architect".into()),
            facets: vec!["persistence".into()],
            confidence: Some(0.9),
            entrenchment: None,
            status: "active".into(),
            summary: "The log is the truth.".into(),
            statement: "Tables are views.".into(),
            evidence: vec![EvidenceLink { target: "session-1".into(), note: "rebuilt".into(), weight: Some(0.5) }],
            implications: vec!["rebuildable".into()],
            extracted: Some("2026-01-14".into()),
            revised: None,
            applied_in: vec![],
        };
        let record = |b: &Belief| {
            let event = Event::Belief(b.clone());
            let hash = event.content_hash(&Source::Cli);
            encode(&StoredEvent { seq: 1, ts_ms: 2, source: Source::Cli, hash, event })
        };
        let v1 = record(&belief);
        assert_eq!(v1[2], PAYLOAD_V1);
        let mut old_layout = vec![RECORD_FORMAT, EventKind::Belief.tag(), PAYLOAD_V1];
        to_bytes(&Header { seq: 1, ts_ms: 2, source: Source::Cli, hash: decode(&v1).unwrap().hash.0 }, &mut old_layout);
        to_bytes(
            &(
                &belief.project,
                &belief.id,
                &belief.kind,
                &belief.persona,
                &belief.facets,
                &belief.confidence,
                &belief.entrenchment,
                &belief.status,
                &belief.summary,
                &belief.statement,
                &belief.evidence,
                &belief.implications,
                (&belief.extracted, &belief.revised),
            ),
            &mut old_layout,
        );
        assert_eq!(v1, old_layout);
        assert_eq!(decode(&v1).unwrap().event, Event::Belief(belief.clone()));
        belief.applied_in = vec!["`scrape` rebuilds the tables".into()];
        let v2 = record(&belief);
        assert_eq!(v2[2], PAYLOAD_V2);
        assert_eq!(decode(&v2).unwrap().event, Event::Belief(belief));
        // v2 is a belief's version only.
        let mention = [RECORD_FORMAT, EventKind::Mention.tag(), PAYLOAD_V2];
        assert!(matches!(decode(&mention), Err(DecodeError::UnknownVersion { kind: "mention", version: 2 })));
    }

    #[test]
    fn huge_length_prefix_is_an_error_not_an_allocation() {
        // A header claiming a 2^60-byte string.
        let mut bytes = vec![RECORD_FORMAT, 2, 1, 1, 1, 2];
        bytes.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0x10]);
        assert!(decode(&bytes).is_err());
    }
}
