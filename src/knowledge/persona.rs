//! The user's persona: cross-project beliefs in `$PATINA_HOME/persona/*.md`, and whether a
//! belief from elsewhere can be adopted by a project.
//!
//! Persona files are belief files (the format of `ingest/belief.rs`) that belong to no
//! project; they are read when the routing world is loaded (project [`PERSONA`]), never
//! appended to the log: they are the user's, beside the home, like a config file.
//!
//! Adoptability ([`check`]) is explainable and lexical: a belief from another project (or
//! the persona) *may conflict* with the project's own belief when a live relation says one
//! attacks the other, or when both speak to a shared facet and one negates the other's
//! claim (the same content words, within [`SAME_CLAIM`], and exactly one of them negated).
//! Otherwise it is adoptable. Semantic contradiction is not judged: the shipped model's
//! cosine does not separate opposite claims from agreeing ones (ARCHITECTURE.md, figures).

use std::collections::BTreeSet;
use std::path::Path;

use super::{Entry, Item, Knowledge, Link};
use crate::event::Source;
use crate::ingest::belief::{self, FileKind};
use crate::search::text::query_terms;

/// The project name of persona items.
pub const PERSONA: &str = "persona";

/// Share of content words two statements must have in common to be "the same claim".
pub const SAME_CLAIM: f64 = 0.5;

/// Adds the persona's beliefs and their relations to `knowledge` (an id the log already
/// has stays the log's). Returns warnings (unreadable or malformed files).
pub fn load(dir: &Path, knowledge: &mut Knowledge) -> Vec<String> {
    let mut warnings = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return warnings };
    let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    files.sort();
    for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let shown = path.display().to_string();
        let text = match crate::safe_read::read_regular(&path, 1024 * 1024) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                warnings.push(format!("{shown}: {e}"));
                continue;
            }
        };
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let kind = belief::file_kind(&path, &text).unwrap_or(FileKind::Belief);
        let doc = belief::parse(PERSONA, &shown, &stem, kind, &text);
        warnings.extend(doc.warnings);
        let source = Source::file(shown.clone(), 1, doc.lines);
        if knowledge.items.contains_key(&doc.belief.id) {
            continue;
        }
        knowledge.items.insert(doc.belief.id.clone(), Entry { item: Item::Belief(doc.belief), seq: 0, source });
        for (relation, line) in doc.relations {
            knowledge.links.push(Link { relation, seq: 0, source: Source::file(shown.clone(), line, line) });
        }
    }
    knowledge.index();
    warnings
}

/// Can the project adopt an item from elsewhere?
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Adoptability {
    Adoptable { why: String },
    Reference { conflicts_with: String, why: String },
}

impl Adoptability {
    pub fn tag(&self) -> &'static str {
        match self {
            Adoptability::Adoptable { .. } => "ADOPTABLE",
            Adoptability::Reference { .. } => "REFERENCE",
        }
    }
}

const NEGATIONS: [&str; 12] =
    ["not", "never", "no", "don't", "dont", "avoid", "without", "nor", "cannot", "can't", "shouldn't", "mustn't"];

fn negated(text: &str) -> bool {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NEGATIONS.contains(&w) || w.ends_with("n't"))
}

fn statement(item: &Item) -> String {
    match item {
        Item::Belief(b) if !b.statement.trim().is_empty() => b.statement.clone(),
        Item::Belief(b) => b.summary.clone(),
        Item::Observation(o) => o.text.clone(),
    }
}

/// Content words (the index analyser's terms, negations dropped by its stop words).
fn content(text: &str) -> BTreeSet<String> {
    query_terms(text).into_iter().collect()
}

/// Whether `project` can adopt the item `id` (a belief or observation from elsewhere).
pub fn check(knowledge: &Knowledge, id: &str, project: &str) -> Adoptability {
    let Some(entry) = knowledge.get(id) else {
        return Adoptability::Adoptable { why: "not a known belief or observation".into() };
    };
    let own = |other: &str| knowledge.get(other).is_some_and(|e| e.item.project() == project);
    // An explicit relation either way.
    for link in knowledge.outgoing(id) {
        if matches!(link.relation.rel_type.as_str(), "attacks" | "attacked_by") && own(&link.relation.to) {
            return Adoptability::Reference {
                conflicts_with: link.relation.to.clone(),
                why: format!("{id} {} {} (relation at {})", link.relation.rel_type, link.relation.to, link.source),
            };
        }
    }
    for link in knowledge.incoming(id) {
        if matches!(link.relation.rel_type.as_str(), "attacks" | "attacked_by") && own(&link.relation.from) {
            return Adoptability::Reference {
                conflicts_with: link.relation.from.clone(),
                why: format!("{} {} {id} (relation at {})", link.relation.from, link.relation.rel_type, link.source),
            };
        }
    }
    // The same claim on a shared facet, negated by one side.
    let facets: BTreeSet<String> = entry.item.facets().iter().map(|f| f.to_lowercase()).collect();
    let text = statement(&entry.item);
    let words = content(&text);
    for other in knowledge.items.values().filter(|e| e.item.project() == project) {
        let shared: Vec<&String> = other.item.facets().iter().filter(|f| facets.contains(&f.to_lowercase())).collect();
        if shared.is_empty() {
            continue;
        }
        let other_text = statement(&other.item);
        let other_words = content(&other_text);
        let union = words.union(&other_words).count();
        let overlap = if union == 0 { 0.0 } else { words.intersection(&other_words).count() as f64 / union as f64 };
        if overlap >= SAME_CLAIM && negated(&text) != negated(&other_text) {
            return Adoptability::Reference {
                conflicts_with: other.item.id().to_string(),
                why: format!(
                    "same claim on facet {} ({:.0}% of content words shared), and one of them negates it",
                    shared[0],
                    overlap * 100.0
                ),
            };
        }
    }
    let why = if facets.is_empty() {
        "no relation to the project's beliefs, and no facets to compare".to_string()
    } else {
        "no attacks relation, and no belief of the project on a shared facet negates it".to_string()
    };
    Adoptability::Adoptable { why }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Belief, Relation};

    fn belief(project: &str, id: &str, facets: &[&str], statement: &str) -> Entry {
        Entry {
            item: Item::Belief(Belief {
                project: project.into(),
                id: id.into(),
                kind: "belief".into(),
                persona: None,
                facets: facets.iter().map(|s| s.to_string()).collect(),
                confidence: None,
                entrenchment: None,
                status: "active".into(),
                summary: statement.into(),
                statement: statement.into(),
                evidence: vec![],
                implications: vec![],
                applied_in: vec![],
                extracted: None,
                revised: None,
            }),
            seq: 1,
            source: Source::Cli,
        }
    }

    fn world() -> Knowledge {
        let mut k = Knowledge::default();
        for e in [
            belief(
                "patina",
                "eventlog-is-truth",
                &["storage"],
                "Tables are rebuilt from the event log; the log is the truth.",
            ),
            belief("patina", "errors-typed", &["errors"], "Library errors are typed enums, one per module."),
            belief(PERSONA, "log-truth", &["storage"], "The event log is the truth and tables are rebuilt from it."),
            belief(
                PERSONA,
                "no-log-truth",
                &["storage"],
                "Tables are not rebuilt from the event log; the log is not the truth.",
            ),
            belief(PERSONA, "tabs", &["style"], "Indent with tabs."),
            belief("other", "mutable-state", &["storage"], "Mutable state is simpler than an event log."),
        ] {
            k.items.insert(e.item.id().to_string(), e);
        }
        k.links.push(Link {
            relation: Relation {
                project: "other".into(),
                from: "mutable-state".into(),
                to: "eventlog-is-truth".into(),
                rel_type: "attacks".into(),
                note: None,
            },
            seq: 2,
            source: Source::Cli,
        });
        k.index();
        k
    }

    #[test]
    fn agreeing_contradicting_unrelated_and_attacking_pairs() {
        let k = world();
        let agree = check(&k, "log-truth", "patina");
        assert_eq!(agree.tag(), "ADOPTABLE", "{agree:?}");
        let contradict = check(&k, "no-log-truth", "patina");
        assert_eq!(
            contradict,
            Adoptability::Reference {
                conflicts_with: "eventlog-is-truth".into(),
                why: match &contradict {
                    Adoptability::Reference { why, .. } => why.clone(),
                    _ => String::new(),
                }
            }
        );
        assert!(format!("{contradict:?}").contains("negates"), "{contradict:?}");
        assert_eq!(check(&k, "tabs", "patina").tag(), "ADOPTABLE", "unrelated facet");
        let attacks = check(&k, "mutable-state", "patina");
        assert!(
            matches!(&attacks, Adoptability::Reference { conflicts_with, why } if conflicts_with == "eventlog-is-truth" && why.contains("attacks")),
            "{attacks:?}"
        );
    }

    #[test]
    fn persona_files_load_as_items_of_the_persona() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("small-commits.md"),
            "---\ntype: belief\nid: small-commits\nfacets: [git]\n---\n# Small commits\n\nCommit small.\n\n## Statement\n\nKeep commits small and focused.\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not markdown").unwrap();
        let mut k = Knowledge::default();
        let warnings = load(dir.path(), &mut k);
        assert!(warnings.is_empty(), "{warnings:?}");
        let e = k.get("small-commits").expect("loaded");
        assert_eq!(e.item.project(), PERSONA);
        assert_eq!(e.item.facets(), ["git".to_string()]);
    }
}
