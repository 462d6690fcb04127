//! Symbol extraction: finds item declarations in Rust-like source with the combinators.

use crate::combinators::{alt, identifier, pair, tag, whitespace};

/// The kind of a declared item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Struct,
    Enum,
    Trait,
}

/// A declaration found in source: its kind, name and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub kind: SymbolKind,
    pub name: String,
    pub line: usize,
}

/// Scans every line for `fn`, `struct`, `enum` or `trait` declarations (optionally `pub`)
/// and returns them in source order. Lines that do not start a declaration are skipped.
pub fn extract(source: &str) -> Vec<Symbol> {
    let keyword = alt(alt(tag("fn "), tag("struct ")), alt(tag("enum "), tag("trait ")));
    let declaration = pair(keyword, identifier);
    let mut symbols = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let (rest, _) = whitespace(line).unwrap_or((line, ""));
        let rest = rest.strip_prefix("pub ").unwrap_or(rest);
        if let Ok((_, (kw, name))) = declaration(rest) {
            symbols.push(Symbol { kind: kind_of(kw), name: name.to_string(), line: i + 1 });
        }
    }
    symbols
}

fn kind_of(keyword: &str) -> SymbolKind {
    match keyword.trim_end() {
        "fn" => SymbolKind::Function,
        "struct" => SymbolKind::Struct,
        "enum" => SymbolKind::Enum,
        _ => SymbolKind::Trait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_functions_and_types() {
        let found = extract("pub struct A;\nfn b() {}\n  enum C {}\n// fn not_me\n");
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["A", "b", "C"]);
        assert_eq!(found[1].line, 2);
    }
}
