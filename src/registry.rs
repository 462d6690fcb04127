//! The registry file: the user's description of their world (projects and reference repos).
//!
//! ```yaml
//! nodes:
//!   - id: patina            # required, unique (case-insensitively)
//!     kind: project         # required: project | reference
//!     path: ~/projects/patina
//!     domains: [rust]
//!     summary: "Context orchestration for AI-assisted development"
//!     aliases: ["NicabarNimble/patina"]
//!     packages: ["patina-ai"]
//! ```
//!
//! Parsing never panics and never half-succeeds: a file either yields every node or one
//! error naming the file, the line and the problem.
//!
//! Invariant: parsing is linear in the file: flow collections nested deeper than
//! [`MAX_FLOW_DEPTH`] are refused (file, line, column) before the YAML parser sees them,
//! and lists are deduplicated through a hash set. Unknown fields are kept out of the
//! nodes and reported as warnings, so a newer registry still loads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::RegistryError;
use crate::event::{NodeKind, NodeRegistered};

/// A parsed registry.
#[derive(Debug, Clone)]
pub struct Registry {
    pub path: PathBuf,
    pub nodes: Vec<RegistryNode>,
    pub warnings: Vec<String>,
}

/// One node and the lines of the file it came from (1-based, inclusive; 0 if unknown).
#[derive(Debug, Clone)]
pub struct RegistryNode {
    pub node: NodeRegistered,
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    nodes: Option<Vec<RawNode>>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_yaml_ng::Value>,
}

#[derive(Deserialize)]
struct RawNode {
    id: Option<String>,
    kind: Option<String>,
    path: Option<String>,
    #[serde(default)]
    domains: Vec<String>,
    summary: Option<String>,
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    packages: Vec<String>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_yaml_ng::Value>,
}

/// Checks a node id: non-empty, at most 200 bytes, no whitespace or control characters.
pub fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("id is empty".into());
    }
    if id.len() > 200 {
        return Err(format!("id '{}…' is longer than 200 bytes", &id[..id.floor_char_boundary(40)]));
    }
    if let Some(c) = id.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("id {id:?} contains {c:?} (ids have no whitespace or control characters)"));
    }
    Ok(())
}

/// The shortest name part of an `owner/name` id or alias that names its node by itself.
const MIN_NAME_PART: usize = 4;
/// A name part of at most this many letters, letters only, may be an ordinary word.
const MAX_WORD_LIKE: usize = 6;

/// A node's other name: the name part of one of its `owner/name` ids or aliases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePart<'a> {
    /// The node's index in the nodes given, and its id.
    pub index: usize,
    pub node: &'a str,
    /// The name part, lower-cased.
    pub name: String,
    /// It may be an ordinary word ("tools"): at most 6 letters and nothing else.
    pub word_like: bool,
}

/// The distinctive name parts of the nodes' `owner/name` ids and aliases, in node order:
/// a repo goes by its name ("someorg/vectorlite" is "vectorlite"), and a renamed repo
/// listed with its old `owner/name`s by its old names. A name part counts when it has at
/// least 4 characters, belongs to one node only ("skills" of `anthropics/skills` and
/// `huggingface/skills` names neither) and is no node's id or alias. Linear in the nodes.
pub fn name_parts<'a>(nodes: &[&'a NodeRegistered]) -> Vec<NamePart<'a>> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut parts: Vec<(usize, String)> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        for name in std::iter::once(&node.id).chain(&node.aliases) {
            taken.insert(name.trim().to_lowercase());
            if let Some((_, part)) = name.trim().rsplit_once('/') {
                parts.push((i, part.to_lowercase()));
            }
        }
    }
    let mut owner: HashMap<&str, Option<usize>> = HashMap::new();
    for (i, part) in &parts {
        owner.entry(part.as_str()).and_modify(|o| *o = o.filter(|o| o == i)).or_insert(Some(*i));
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for (i, part) in &parts {
        let length = part.chars().count();
        if length < MIN_NAME_PART || taken.contains(part) || owner.get(part.as_str()) != Some(&Some(*i)) {
            continue;
        }
        if seen.insert(part.as_str()) {
            let word_like = length <= MAX_WORD_LIKE && part.chars().all(|c| c.is_ascii_lowercase());
            out.push(NamePart { index: *i, node: nodes[*i].id.as_str(), name: part.clone(), word_like });
        }
    }
    out
}

/// Reads and validates a registry file.
pub fn load(path: &Path) -> Result<Registry, RegistryError> {
    let bytes = std::fs::read(path).map_err(|source| RegistryError::Io { path: path.to_path_buf(), source })?;
    let text = String::from_utf8(bytes).map_err(|err| RegistryError::Syntax {
        path: path.to_path_buf(),
        message: format!("not valid UTF-8 (at byte {})", err.utf8_error().valid_up_to()),
    })?;
    parse(path, &text)
}

/// Parses registry text; `path` names the file in errors and resolves relative node paths.
pub fn parse(path: &Path, text: &str) -> Result<Registry, RegistryError> {
    let syntax = |message: String| RegistryError::Syntax { path: path.to_path_buf(), message };
    let raw: RawFile = if text.trim().is_empty() {
        return Err(syntax("file is empty (expected a `nodes:` list)".into()));
    } else {
        if let Err((line, column)) = check_flow_depth(text) {
            return Err(RegistryError::Invalid {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "`[` or `{{` at column {column} nests flow collections deeper than {MAX_FLOW_DEPTH} \
                     (a registry needs 2: `domains: [rust]` inside the `nodes:` list)"
                ),
            });
        }
        serde_yaml_ng::from_str(text).map_err(|err| syntax(err.to_string()))?
    };
    let Some(raw_nodes) = raw.nodes else {
        return Err(syntax("no `nodes:` list at the top level".into()));
    };
    let mut warnings: Vec<String> =
        raw.extra.keys().map(|k| format!("{}: unknown top-level field `{k}` ignored", path.display())).collect();
    let starts = node_start_lines(text, raw_nodes.len());
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let mut seen: HashMap<String, (String, u32)> = HashMap::new();
    let mut nodes = Vec::with_capacity(raw_nodes.len());
    for (index, raw) in raw_nodes.into_iter().enumerate() {
        let start_line = starts.get(index).copied().unwrap_or(0);
        let end_line = starts.get(index + 1).map(|next| next.saturating_sub(1)).unwrap_or_else(|| last_line(text));
        let invalid =
            |message: String| RegistryError::Invalid { path: path.to_path_buf(), line: start_line as usize, message };
        let id = raw.id.ok_or_else(|| invalid(format!("node #{} has no `id`", index + 1)))?;
        let id = id.trim().to_string();
        validate_id(&id).map_err(&invalid)?;
        let kind_text = raw.kind.ok_or_else(|| invalid(format!("node '{id}' has no `kind` (project or reference)")))?;
        let kind = NodeKind::parse(&kind_text)
            .ok_or_else(|| invalid(format!("node '{id}' has kind '{kind_text}' (valid: project, reference)")))?;
        if let Some((first, line)) = seen.get(&id.to_lowercase()) {
            return Err(invalid(format!("duplicate id '{id}' (first defined as '{first}' at line {line})")));
        }
        seen.insert(id.to_lowercase(), (id.clone(), start_line));
        for key in raw.extra.keys() {
            warnings.push(format!("{}:{start_line}: node '{id}': unknown field `{key}` ignored", path.display()));
        }
        let path = raw.path.map(|p| resolve_node_path(base_dir, p.trim()));
        nodes.push(RegistryNode {
            node: NodeRegistered {
                id,
                kind,
                path,
                domains: clean_list(raw.domains, true),
                summary: raw.summary.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
                aliases: clean_list(raw.aliases, false),
                packages: clean_list(raw.packages, false),
            },
            start_line,
            end_line: end_line.max(start_line),
        });
    }
    Ok(Registry { path: path.to_path_buf(), nodes, warnings })
}

fn clean_list(items: Vec<String>, lowercase: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    for item in items {
        let item = item.trim();
        let item = if lowercase { item.to_lowercase() } else { item.to_string() };
        if !item.is_empty() && seen.insert(item.clone()) {
            out.push(item);
        }
    }
    out
}

/// The deepest nesting of flow collections (`[…]`, `{…}`) a registry may have.
pub const MAX_FLOW_DEPTH: usize = 64;

/// Checks, in one linear pass, that flow collections nest at most [`MAX_FLOW_DEPTH`] deep;
/// `Err((line, column))` (1-based) of the bracket that goes deeper.
///
/// Why: the YAML parser's time grows with the flow depth at every token (40,000 nested
/// brackets took 2.9 s, 1 MB over 60 s), so a deep file is refused before it is parsed.
/// This is a scanner, not a parser: it skips comments, quoted scalars and block scalars
/// (`|`, `>`), and counts a `[` or `{` where a value can start (after `: `, `- `, `? `,
/// at a line's start, inside a flow collection); elsewhere it is text (`a [b]`). Where it
/// could misjudge, it errs towards counting.
fn check_flow_depth(text: &str) -> Result<(), (usize, usize)> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    // Lines more indented than this are a block scalar's content.
    let mut block_scalar_parent: Option<usize> = None;
    let mut value_start = true;
    for (line_idx, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        if let Some(parent) = block_scalar_parent {
            if indent == bytes.len() || indent > parent {
                continue;
            }
            block_scalar_parent = None;
        }
        if depth == 0 && quote.is_none() {
            value_start = true;
        }
        // The column where the latest node of this line began (a key or an entry).
        let mut node_col = indent;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let next_is_space = bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
            match quote {
                Some(b'"') => {
                    if b == b'\\' {
                        i += 1;
                    } else if b == b'"' {
                        quote = None;
                    }
                    i += 1;
                    continue;
                }
                Some(_) => {
                    if b == b'\'' {
                        if bytes.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = None;
                        }
                    }
                    i += 1;
                    continue;
                }
                None => {}
            }
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => break,
                b'"' | b'\'' if value_start => {
                    quote = Some(b);
                    value_start = false;
                }
                b'[' | b'{' if value_start || depth > 0 => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Err((line_idx + 1, line[..i].chars().count() + 1));
                    }
                    value_start = true;
                }
                b']' | b'}' if depth > 0 => {
                    depth -= 1;
                    value_start = false;
                }
                b',' if depth > 0 => value_start = true,
                b':' if next_is_space || depth > 0 => value_start = true,
                b'-' | b'?' if value_start && next_is_space => {
                    node_col = i;
                    value_start = true;
                }
                b'|' | b'>' if value_start && depth == 0 => {
                    block_scalar_parent = Some(node_col);
                    break;
                }
                _ => {
                    if value_start && depth == 0 {
                        node_col = i;
                    }
                    value_start = false;
                }
            }
            i += 1;
        }
    }
    Ok(())
}

/// Relative paths are relative to the registry file; `~` stays as written (it is expanded
/// where the path is used, so one registry serves every machine of its owner).
fn resolve_node_path(base_dir: &Path, path: &str) -> String {
    if path.starts_with('~') || Path::new(path).is_absolute() {
        return path.to_string();
    }
    let joined = base_dir.join(path);
    std::path::absolute(&joined).unwrap_or(joined).to_string_lossy().into_owned()
}

fn last_line(text: &str) -> u32 {
    text.lines().count() as u32
}

/// The 1-based line where each entry of the `nodes:` list starts (`- ` at the list's
/// indentation), in order. Best effort: used for error messages and event sources.
fn node_start_lines(text: &str, expected: usize) -> Vec<u32> {
    let mut starts = Vec::with_capacity(expected);
    let mut in_nodes = false;
    let mut item_indent: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if indent == 0 && !trimmed.starts_with('-') {
            in_nodes = trimmed.starts_with("nodes:");
            item_indent = None;
            continue;
        }
        if in_nodes && (trimmed.starts_with("- ") || trimmed == "-") {
            let at = *item_indent.get_or_insert(indent);
            if indent == at {
                starts.push(i as u32 + 1);
            }
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Registry, RegistryError> {
        parse(Path::new("/reg/registry.yaml"), text)
    }

    #[test]
    fn name_parts_are_distinctive_names_of_one_node() {
        let reg = parse_str(
            "nodes:\n  - id: someorg/vectorlite\n    kind: reference\n  - id: openclaw\n    kind: reference\n    \
             aliases: [clawdbot/clawdbot, moltbot/moltbot, openclaw/openclaw]\n  - id: urfave-cli\n    kind: reference\n    \
             aliases: [urfave/cli]\n  - id: a-skills\n    kind: reference\n    aliases: [a/skills]\n  - id: b-skills\n    \
             kind: reference\n    aliases: [b/skills]\n  - id: acme-tools\n    kind: reference\n    aliases: [acme/tools]\n",
        )
        .unwrap();
        let nodes: Vec<&NodeRegistered> = reg.nodes.iter().map(|n| &n.node).collect();
        let parts: Vec<(usize, &str, String, bool)> =
            name_parts(&nodes).into_iter().map(|p| (p.index, p.node, p.name, p.word_like)).collect();
        assert_eq!(
            parts,
            [
                (0, "someorg/vectorlite", "vectorlite".to_string(), false),
                (1, "openclaw", "clawdbot".to_string(), false),
                (1, "openclaw", "moltbot".to_string(), false),
                (5, "acme-tools", "tools".to_string(), true),
            ],
            "\"openclaw\" is its id already, \"cli\" is too short, \"skills\" belongs to two nodes"
        );
    }

    #[test]
    fn parses_nodes_with_line_spans() {
        let reg = parse_str(
            "# world\nnodes:\n  - id: a\n    kind: project\n    path: repos/a\n  - id: b\n    kind: Reference\n    domains: [Rust, rust]\n",
        )
        .unwrap();
        assert_eq!(reg.nodes.len(), 2);
        assert_eq!((reg.nodes[0].start_line, reg.nodes[0].end_line), (3, 5));
        assert_eq!((reg.nodes[1].start_line, reg.nodes[1].end_line), (6, 8));
        assert_eq!(reg.nodes[0].node.path.as_deref(), Some("/reg/repos/a"));
        assert_eq!(reg.nodes[1].node.kind, NodeKind::Reference);
        assert_eq!(reg.nodes[1].node.domains, vec!["rust"]);
    }

    #[test]
    fn duplicate_ids_name_both_lines() {
        let err = parse_str("nodes:\n  - id: a\n    kind: project\n  - id: A\n    kind: reference\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("registry.yaml:4") && msg.contains("duplicate id 'A'") && msg.contains("line 2"), "{msg}");
    }

    #[test]
    fn syntax_errors_and_missing_fields_are_clear() {
        let msg = parse_str("nodes:\n  - id: a\n    kind: [unclosed\n").unwrap_err().to_string();
        assert!(msg.starts_with("/reg/registry.yaml: "), "{msg}");
        let msg = parse_str("nodes:\n  - id: a\n").unwrap_err().to_string();
        assert!(msg.contains("no `kind`"), "{msg}");
        let msg = parse_str("nodes:\n  - id: a\n    kind: library\n").unwrap_err().to_string();
        assert!(msg.contains("library") && msg.contains("project, reference"), "{msg}");
        let msg = parse_str("nodes:\n  - id: has space\n    kind: project\n").unwrap_err().to_string();
        assert!(msg.contains("whitespace"), "{msg}");
        assert!(parse_str("").is_err());
        assert!(parse_str("other: 1\n").is_err());
    }

    #[test]
    fn unknown_fields_are_warnings() {
        let reg = parse_str("nodes:\n  - id: a\n    kind: project\n    colour: red\n").unwrap();
        assert_eq!(reg.warnings.len(), 1);
        assert!(reg.warnings[0].contains("colour"));
    }

    #[test]
    fn real_registry_parses() {
        let dir = std::env::var_os("PATINA_SHARED_DATA")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
        let path = dir.join("patina-registry.yaml");
        let reg = load(&path).unwrap_or_else(|e| panic!("the shared registry: {e}"));
        assert_eq!(reg.nodes.len(), 32);
        assert!(reg.warnings.is_empty(), "{:?}", reg.warnings);
        assert!(reg.nodes.iter().all(|n| n.start_line > 0));
    }

    #[test]
    fn deep_flow_nesting_is_refused_with_file_line_and_column() {
        let deep = format!("# world\nnodes: {}{}\n", "[".repeat(40_000), "]".repeat(40_000));
        let msg = parse_str(&deep).unwrap_err().to_string();
        assert!(msg.starts_with("/reg/registry.yaml:2: "), "{msg}");
        assert!(msg.contains("column 72") && msg.contains("deeper than 64"), "{msg}");
        let braces = format!("nodes:\n  - id: a\n    kind: project\n    x: {}\n", "{a: ".repeat(100));
        assert!(parse_str(&braces).unwrap_err().to_string().contains("registry.yaml:4: "));
        // At the limit the YAML parser has its say.
        let at_limit = format!("nodes: {}{}\n", "[".repeat(MAX_FLOW_DEPTH), "]".repeat(MAX_FLOW_DEPTH));
        assert!(!parse_str(&at_limit).unwrap_err().to_string().contains("deeper than"));
    }

    #[test]
    fn brackets_in_text_quotes_comments_and_block_scalars_do_not_nest() {
        let many = "[".repeat(100);
        let text = format!(
            "nodes:\n  - id: a\n    kind: project\n    domains: [rust, search]\n    extra: [rust, {{x: [search]}}]\n    summary: a {many} b\n  # {many}\n  - id: b\n    kind: reference\n    summary: \"{many}\"\n    aliases: ['{many}', \"x\\\"{many}\"]\n  - id: c\n    kind: reference\n    summary: |\n      {many}\n       {many}\n\n      {many}\n  - id: d\n    kind: reference\n"
        );
        let reg = parse_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reg.nodes.len(), 4);
        assert!(reg.nodes[2].node.summary.as_deref().unwrap().starts_with("[[["));
    }

    #[test]
    fn big_registries_parse_in_linear_time() {
        let registry = |n: usize| {
            let domains: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
            format!("nodes:\n  - id: a\n    kind: project\n    domains: [{}]\n", domains.join(", "))
        };
        crate::testing::assert_subquadratic("one node with many domains", 20_000, |n| {
            assert_eq!(parse_str(&registry(n)).unwrap().nodes[0].node.domains.len(), n);
        });
    }
}
