//! Registered nodes as users name them: resolving an id, an alias or a near miss.
//!
//! Next to the node listing ([`super::log::EventLog::nodes`]); every command and tool that
//! takes a node from a user resolves it here, so they all accept the same names and
//! report the same hints.

use std::collections::BTreeMap;

use super::NodeRegistered;
use crate::error::InvalidInput;

/// Resolves a user-given node reference to a registered id: the exact id, else a unique
/// case-insensitive match of an id or an alias.
pub fn resolve_node(nodes: &BTreeMap<String, NodeRegistered>, given: &str) -> Result<String, InvalidInput> {
    let given = given.trim();
    if nodes.contains_key(given) {
        return Ok(given.to_string());
    }
    let lower = given.to_lowercase();
    let mut matches: Vec<&str> = nodes
        .values()
        .filter(|n| n.id.to_lowercase() == lower || n.aliases.iter().any(|a| a.to_lowercase() == lower))
        .map(|n| n.id.as_str())
        .collect();
    matches.dedup();
    if let [one] = matches.as_slice() {
        return Ok(one.to_string());
    }
    let hint = if nodes.is_empty() {
        " (no nodes are registered yet: run `patina mother sync` or `patina repo add`)".to_string()
    } else if matches.len() > 1 {
        format!(" (ambiguous: {})", matches.join(", "))
    } else {
        let mut ids: Vec<&str> = nodes.keys().map(String::as_str).collect();
        ids.sort_by_key(|id| (strsim_distance(&id.to_lowercase(), &lower), *id));
        let shown: Vec<&str> = ids.iter().take(8).copied().collect();
        let more =
            if ids.len() > shown.len() { format!(", … {} more", ids.len() - shown.len()) } else { String::new() };
        format!(" (registered: {}{more})", shown.join(", "))
    };
    Err(InvalidInput::UnknownNode { id: given.to_string(), hint })
}

/// Levenshtein distance, to list the closest ids first in an error.
fn strsim_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
