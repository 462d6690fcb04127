//! Belief files and core pattern files: markdown with YAML front matter, read into a
//! [`Belief`] and its typed [`Relation`]s.
//!
//! A belief file's front matter has `type: belief` (`id`, `persona`, `facets`,
//! `confidence.score`, `entrenchment`, `status`, `extracted`, `revised`); its sections are a
//! one-line summary under the title, `## Statement`, `## Evidence` (wiki links with
//! weights), `## Supports` / `## Attacks` / `## Attacked-By` (wiki links to other beliefs,
//! each with an optional `(status: …, reason: …)`), `## Implications` and `## Applied-In`
//! (where the belief has been applied, one list item each). A core pattern
//! file is a markdown file in a directory named `core`, or one whose front matter says
//! `layer: core` (`id`, `status`, `created`, `tags`, `references`, all optional); its
//! statement is `## Core Principle` (else its summary), its summary the `**Purpose:**` line
//! (else the first line of text), and each reference a `relates_to` relation (a path like
//! `core/constraints.md` names `constraints`).
//!
//! Invariant: parsing never fails and never panics. Malformed front matter is one warning
//! naming the file and line; the id then comes from the file name and the sections still
//! count. A link to a belief that has no file stays a relation to an unresolved position
//! (its status and reason in the relation's note); nothing is dropped silently.

use crate::event::{Belief, EvidenceLink, Relation};

/// A parsed belief or pattern file.
#[derive(Debug, Clone, PartialEq)]
pub struct BeliefDoc {
    pub belief: Belief,
    /// Each relation with its 1-based line.
    pub relations: Vec<(Relation, u32)>,
    /// The file's last line (the belief's source span is 1..=this).
    pub lines: u32,
    pub warnings: Vec<String>,
}

/// Section names whose wiki links are typed relations, and the relation type.
const RELATION_SECTIONS: [(&str, &str); 3] =
    [("supports", "supports"), ("attacks", "attacks"), ("attacked-by", "attacked_by")];

/// What kind of knowledge file a markdown file is, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Belief,
    Pattern,
}

/// Whether the markdown file at `path` with `text` is a belief file (front matter
/// `type: belief`) or a core pattern file (in a `core` directory, or `layer: core`).
pub fn file_kind(path: &std::path::Path, text: &str) -> Option<FileKind> {
    let front = front_matter(text).map(|(front, _, _)| front).unwrap_or("");
    let has = |line: &str| front.lines().any(|l| l.trim() == line);
    if has("type: belief") {
        Some(FileKind::Belief)
    } else if has("layer: core")
        || has("type: pattern")
        || path.parent().and_then(|p| p.file_name()).is_some_and(|n| n == "core")
    {
        Some(FileKind::Pattern)
    } else {
        None
    }
}

/// The front matter block (without the `---` lines), the 1-based line after it, and the
/// body.
fn front_matter(text: &str) -> Option<(&str, u32, &str)> {
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if matches!(line.trim_end(), "---" | "...") {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((front, i as u32 + 3, body));
        }
        offset += line.len();
    }
    None
}

/// Parses a belief or pattern file of `project`; `path` names it in warnings, `stem` (the
/// file name without extension) is the id when the front matter has none.
pub fn parse(project: &str, path: &str, stem: &str, kind: FileKind, text: &str) -> BeliefDoc {
    let mut warnings = Vec::new();
    let (front, body_line, body) = front_matter(text).unwrap_or(("", 1, text));
    let meta: serde_yaml_ng::Value = if front.trim().is_empty() {
        serde_yaml_ng::Value::Null
    } else {
        match serde_yaml_ng::from_str(front) {
            Ok(v) => v,
            Err(e) => {
                let line = e.location().map_or(2, |l| l.line() as u32 + 1);
                warnings.push(format!(
                    "{path}:{line}: front matter is not valid YAML ({e}); the id comes from the file name and the sections still count"
                ));
                serde_yaml_ng::Value::Null
            }
        }
    };
    let field = |key: &str| -> Option<String> {
        match meta.get(key)? {
            serde_yaml_ng::Value::String(s) => Some(s.trim().to_string()),
            serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
            serde_yaml_ng::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    let list = |key: &str| -> Vec<String> {
        match meta.get(key) {
            Some(serde_yaml_ng::Value::Sequence(items)) => {
                items.iter().filter_map(|v| v.as_str().map(|s| s.trim().to_string())).collect()
            }
            Some(serde_yaml_ng::Value::String(s)) => {
                s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()
            }
            _ => Vec::new(),
        }
    };
    let is_pattern = kind == FileKind::Pattern;
    let id = field("id").filter(|id| !id.is_empty()).unwrap_or_else(|| stem.to_string());
    let confidence = meta
        .get("confidence")
        .and_then(|c| c.get("score").or(Some(c)))
        .and_then(serde_yaml_ng::Value::as_f64)
        .map(|c| c.clamp(0.0, 1.0) as f32);

    let sections = sections(body, body_line);
    let section = |name: &str| sections.iter().find(|s| s.name == name);
    let mut summary = String::new();
    let mut statement = String::new();
    let mut evidence = Vec::new();
    let mut implications = Vec::new();
    let mut applied_in = Vec::new();
    let mut relations = Vec::new();
    // The summary: the first text line under the title (or the `**Purpose:**` line).
    if let Some(intro) = sections.first().filter(|s| s.name.is_empty() || s.level == 1) {
        for (_, line) in &intro.lines {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line == "---" {
                continue;
            }
            summary = line.strip_prefix("**Purpose:**").map(str::trim).unwrap_or(line).to_string();
            if !line.starts_with("**") || line.starts_with("**Purpose:**") {
                break;
            }
        }
    }
    let statement_section = if is_pattern { "core principle" } else { "statement" };
    if let Some(s) = section(statement_section) {
        statement = paragraph_text(&s.lines);
    }
    if statement.is_empty() {
        statement = summary.clone();
    }
    if let Some(s) = section("evidence") {
        for (_, line) in &s.lines {
            if let Some(link) = evidence_link(line) {
                evidence.push(link);
            }
        }
    }
    for (name, items) in [("implications", &mut implications), ("applied-in", &mut applied_in)] {
        let Some(s) = section(name) else { continue };
        for (_, line) in &s.lines {
            if let Some(item) = line.trim().strip_prefix("- ").or_else(|| line.trim().strip_prefix("* ")) {
                items.push(item.trim().to_string());
            }
        }
    }
    for (section_name, rel_type) in RELATION_SECTIONS {
        let Some(s) = section(section_name) else { continue };
        for (line_no, line) in &s.lines {
            let Some((target, after)) = wiki_link(line) else { continue };
            if target == id {
                warnings.push(format!("{path}:{line_no}: `{target}` links to itself; left out"));
                continue;
            }
            let note = after
                .trim()
                .strip_prefix('(')
                .and_then(|n| n.rfind(')').map(|end| n[..end].trim().to_string()))
                .filter(|n| !n.is_empty());
            relations.push((
                Relation {
                    project: project.to_string(),
                    from: id.clone(),
                    to: target,
                    rel_type: rel_type.into(),
                    note,
                },
                *line_no,
            ));
        }
    }
    if is_pattern {
        for reference in list("references") {
            // `core/constraints.md` → `constraints`.
            let target = reference.rsplit('/').next().unwrap_or(&reference).trim_end_matches(".md").to_string();
            if !target.is_empty() && target != id {
                relations.push((
                    Relation {
                        project: project.to_string(),
                        from: id.clone(),
                        to: target,
                        rel_type: "relates_to".into(),
                        note: None,
                    },
                    2,
                ));
            }
        }
    }
    let mut facets = list("facets");
    if facets.is_empty() {
        facets = list("tags");
    }
    let belief = Belief {
        project: project.to_string(),
        id,
        kind: if is_pattern { "pattern".into() } else { "belief".into() },
        persona: field("persona").or_else(|| is_pattern.then(|| "core".to_string())),
        facets,
        confidence,
        entrenchment: field("entrenchment"),
        status: field("status").unwrap_or_else(|| "active".into()),
        summary,
        statement,
        evidence,
        implications,
        extracted: field("extracted").or_else(|| field("created")),
        revised: field("revised"),
        applied_in,
    };
    BeliefDoc { belief, relations, lines: text.lines().count().max(1) as u32, warnings }
}

/// A markdown section: its heading (lower-cased, `""` before the first heading), level and
/// lines with their 1-based numbers.
struct Section<'a> {
    name: String,
    level: usize,
    lines: Vec<(u32, &'a str)>,
}

fn sections(body: &str, first_line: u32) -> Vec<Section<'_>> {
    let mut out = vec![Section { name: String::new(), level: 0, lines: Vec::new() }];
    let mut in_fence = false;
    for (i, line) in body.lines().enumerate() {
        let line_no = first_line + i as u32;
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && trimmed.starts_with('#') {
            let level = trimmed.chars().take_while(|c| *c == '#').count();
            let title = trimmed[level..].trim();
            if level >= 1 && trimmed[level..].starts_with(' ') {
                if level == 1 {
                    // The title: its text belongs to the intro.
                    if let Some(s) = out.last_mut() {
                        s.level = 1;
                    }
                    continue;
                }
                out.push(Section { name: title.to_lowercase(), level, lines: Vec::new() });
                continue;
            }
        }
        if let Some(s) = out.last_mut() {
            s.lines.push((line_no, line));
        }
    }
    out
}

/// The text of a section's paragraphs, joined by spaces (fenced blocks left out).
fn paragraph_text(lines: &[(u32, &str)]) -> String {
    let mut words = Vec::new();
    let mut in_fence = false;
    for (_, line) in lines {
        let t = line.trim();
        if t.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence && !t.is_empty() && t != "---" {
            words.push(t);
        }
    }
    words.join(" ")
}

/// `[[target]]` in a line: the target (lower-cased, trimmed) and the text after the link.
fn wiki_link(line: &str) -> Option<(String, &str)> {
    let start = line.find("[[")?;
    let end = start + 2 + line[start + 2..].find("]]")?;
    let target = line[start + 2..end].split('|').next().unwrap_or("").trim();
    (!target.is_empty()).then(|| (target.to_string(), &line[end + 2..]))
}

/// An evidence item: `- [[target]] - note (weight: 0.95)`, or a plain list item without a
/// wiki link, `- session-20260129-084757: note (weight: 0.9)` (its leading `session-…:`
/// is the target) or `- Prior art: … (weight: 0.7)` (no target: `target` is empty). Plain
/// items are a third of the real files' evidence; dropping them lost what those sessions
/// said.
fn evidence_link(line: &str) -> Option<EvidenceLink> {
    let (target, note) = match wiki_link(line) {
        Some((target, after)) => (target, after.trim().trim_start_matches(['-', '–', ':']).trim()),
        None => {
            let item = line.trim();
            let item = item.strip_prefix("- ").or_else(|| item.strip_prefix("* "))?.trim();
            let first = item.split_whitespace().next().unwrap_or("");
            match first.strip_suffix(':') {
                Some(session) if session.starts_with("session-") && session.len() > "session-".len() => {
                    (session.to_string(), item[first.len()..].trim())
                }
                _ => (String::new(), item),
            }
        }
    };
    let mut note = note.to_string();
    let mut weight = None;
    if let Some(at) = note.rfind("(weight:") {
        let inner = note[at + "(weight:".len()..].trim_end().trim_end_matches(')').trim().to_string();
        weight = inner.parse::<f32>().ok().map(|w| w.clamp(0.0, 1.0));
        note.truncate(at);
    }
    let note = note.trim().trim_matches('"').trim().to_string();
    if target.is_empty() && note.is_empty() {
        return None;
    }
    Some(EvidenceLink { target, note, weight })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BELIEF: &str = "---\ntype: belief\nid: eventlog-is-truth\npersona: architect\nfacets: [data-architecture, persistence]\nconfidence:\n  score: 0.92\nentrenchment: very-high\nstatus: active\nextracted: 2026-01-14\nrevised: 2026-01-16\n---\n\n# eventlog-is-truth\n\nEventlog is source of truth; tables are materialized views.\n\n## Statement\n\nThe append-only eventlog is the canonical source of truth.\n\n## Evidence\n\n- [[session-20260115-121358]] - \"L2 eventlog captures surface decisions\" (weight: 0.95)\n- [[helland-paper]] - Academic grounding (weight: 0.80)\n\n## Verification\n\n```verify type=\"sql\"\n## not a heading\nSELECT 1\n```\n\n## Supports\n\n- [[rebuild-from-source]]\n\n## Attacks\n\n- [[mutable-state-simpler]] (status: defeated, reason: loses history)\n\n## Attacked-By\n\n- [[storage-overhead]] (status: scoped, scope: \"ref repos use lean storage\")\n\n## Implications\n\n- L1 eventlog: rebuildable\n\n## Applied-In\n\n- `scrape` rebuilds the tables from the log\n<!-- a comment -->\n";

    #[test]
    fn plain_evidence_items_keep_their_notes() {
        let linked = evidence_link("- [[session-1]] - \"said so\" (weight: 0.9)").unwrap();
        assert_eq!((linked.target.as_str(), linked.note.as_str(), linked.weight), ("session-1", "said so", Some(0.9)));
        let session =
            evidence_link("- session-20260129-084757: Bug discovery — pruning used file stems (weight: 0.95)").unwrap();
        assert_eq!(session.target, "session-20260129-084757");
        assert_eq!(session.note, "Bug discovery — pruning used file stems");
        assert_eq!(session.weight, Some(0.95));
        assert_eq!(session.cited(), "[[session-20260129-084757]] Bug discovery — pruning used file stems");
        let plain = evidence_link("* Prior art: PostgreSQL defaults to a Unix socket (weight: 0.7)").unwrap();
        assert_eq!((plain.target.as_str(), plain.weight), ("", Some(0.7)));
        assert_eq!(plain.note, "Prior art: PostgreSQL defaults to a Unix socket");
        assert_eq!(plain.cited(), plain.note);
        assert_eq!(evidence_link("- session-x: note").unwrap().target, "session-x");
        assert_eq!(evidence_link("- session-: note").unwrap().target, "");
        for nothing in ["", "prose, not an item", "-", "- ", "- (weight: 0.5)"] {
            assert_eq!(evidence_link(nothing), None, "{nothing:?}");
        }
    }

    #[test]
    fn a_belief_file_with_its_sections_and_links() {
        assert_eq!(file_kind(std::path::Path::new("beliefs/b.md"), BELIEF), Some(FileKind::Belief));
        let doc = parse("patina", "b.md", "b", FileKind::Belief, BELIEF);
        let b = &doc.belief;
        assert_eq!((b.id.as_str(), b.kind.as_str(), b.status.as_str()), ("eventlog-is-truth", "belief", "active"));
        assert_eq!(b.persona.as_deref(), Some("architect"));
        assert_eq!(b.facets, ["data-architecture", "persistence"]);
        assert_eq!(b.confidence, Some(0.92));
        assert_eq!(b.summary, "Eventlog is source of truth; tables are materialized views.");
        assert_eq!(b.statement, "The append-only eventlog is the canonical source of truth.");
        assert_eq!(b.evidence.len(), 2);
        assert_eq!(b.evidence[0].target, "session-20260115-121358");
        assert_eq!(b.evidence[0].weight, Some(0.95));
        assert_eq!(b.evidence[0].note, "L2 eventlog captures surface decisions");
        assert_eq!(b.implications, ["L1 eventlog: rebuildable"]);
        assert_eq!(b.applied_in, ["`scrape` rebuilds the tables from the log"]);
        let rels: Vec<(&str, &str, Option<&str>)> =
            doc.relations.iter().map(|(r, _)| (r.rel_type.as_str(), r.to.as_str(), r.note.as_deref())).collect();
        assert_eq!(
            rels,
            [
                ("supports", "rebuild-from-source", None),
                ("attacks", "mutable-state-simpler", Some("status: defeated, reason: loses history")),
                ("attacked_by", "storage-overhead", Some("status: scoped, scope: \"ref repos use lean storage\"")),
            ]
        );
        // Lines point into the file.
        let supports_line = BELIEF.lines().position(|l| l == "- [[rebuild-from-source]]").unwrap() as u32 + 1;
        assert_eq!(doc.relations[0].1, supports_line);
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    #[test]
    fn malformed_front_matter_is_one_warning_and_the_rest_still_counts() {
        let text = BELIEF.replace("facets: [data-architecture, persistence]", "facets: [unclosed");
        let doc = parse("patina", "dir/b.md", "from-file-name", FileKind::Belief, &text);
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert!(doc.warnings[0].starts_with("dir/b.md:"), "{:?}", doc.warnings);
        assert_eq!(doc.belief.id, "from-file-name");
        assert_eq!(doc.relations.len(), 3, "the sections still count");
        assert!(!doc.belief.statement.is_empty());
    }

    #[test]
    fn a_core_pattern_file() {
        let text = "---\nid: adapter-pattern\nlayer: core\nstatus: active\ncreated: 2025-08-02\ntags: [architecture, adapters]\nreferences: [dependable-rust, core/unix-philosophy.md]\n---\n\n# Adapter Pattern\n\n**Purpose:** Use trait-based adapters to remain agnostic.\n\n---\n\n## Core Principle\n\nPatina uses trait-based adapters.\n";
        assert_eq!(file_kind(std::path::Path::new("x/p.md"), text), Some(FileKind::Pattern));
        let doc = parse("patina", "p.md", "p", FileKind::Pattern, text);
        assert_eq!((doc.belief.kind.as_str(), doc.belief.id.as_str()), ("pattern", "adapter-pattern"));
        assert_eq!(doc.belief.summary, "Use trait-based adapters to remain agnostic.");
        assert_eq!(doc.belief.statement, "Patina uses trait-based adapters.");
        assert_eq!(doc.belief.facets, ["architecture", "adapters"]);
        let to: Vec<&str> = doc.relations.iter().map(|(r, _)| r.to.as_str()).collect();
        assert_eq!(to, ["dependable-rust", "unix-philosophy"]);
        assert!(doc.relations.iter().all(|(r, _)| r.rel_type == "relates_to"));
    }

    #[test]
    fn session_logs_are_not_beliefs_and_garbage_never_panics() {
        let session = std::path::Path::new("sessions/20250801.md");
        assert_eq!(file_kind(session, "---\nid: 20250801\ndate: 2025-08-01\n---\n# Session\n"), None);
        assert_eq!(file_kind(session, "# Session: x\n**ID**: 1\n"), None);
        // A file in a `core` directory is a pattern, front matter or not; its id is its name.
        let build = "# Build Recipe\n\n**Status:** v1.0 roadmap crystallized.\n";
        assert_eq!(file_kind(std::path::Path::new("beliefs/core/build.md"), build), Some(FileKind::Pattern));
        let doc = parse("p", "core/build.md", "build", FileKind::Pattern, build);
        assert_eq!(
            (doc.belief.id.as_str(), doc.belief.summary.as_str()),
            ("build", "**Status:** v1.0 roadmap crystallized.")
        );
        for text in ["", "---", "---\n", "---\ntype: belief\n", "# [[", "## Supports\n- [[]]\n- [[x", "\u{0}\u{1}"] {
            let _ = parse("p", "f", "f", FileKind::Belief, text);
        }
    }
}
