//! Manifests: `Cargo.toml`, `package.json`, `pyproject.toml`, `requirements*.txt`, `go.mod`.
//!
//! Each yields the names of the dependencies it declares, with the line that declares
//! them. Matching a name to a registered node (by id, alias or listed package name) is the
//! caller's job. A manifest that does not parse is a diagnostic, never a panic.
//!
//! Invariant: linear in the manifest (parsers, a hash set to dedupe, one pass to find
//! declaration lines); a 6 MB Cargo.toml, a 7.6 MB package.json or a 6.1 MB
//! requirements.txt each took over 60 s when every name rescanned the text.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A dependency declared by a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    /// 1-based line of the declaration (0 if not found).
    pub line: u32,
}

/// Which manifest format a file is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestKind {
    Cargo,
    Npm,
    Pyproject,
    Requirements,
    GoMod,
}

pub fn kind_of(path: &Path) -> Option<ManifestKind> {
    let name = path.file_name()?.to_str()?;
    match name {
        "Cargo.toml" => Some(ManifestKind::Cargo),
        "package.json" => Some(ManifestKind::Npm),
        "pyproject.toml" => Some(ManifestKind::Pyproject),
        "go.mod" => Some(ManifestKind::GoMod),
        _ if name.starts_with("requirements") && name.ends_with(".txt") => Some(ManifestKind::Requirements),
        _ => None,
    }
}

/// The dependencies declared in `text`, or an error message.
pub fn dependencies(kind: ManifestKind, text: &str) -> Result<Vec<Dependency>, String> {
    let names = match kind {
        ManifestKind::Cargo => cargo(text)?,
        ManifestKind::Npm => npm(text)?,
        ManifestKind::Pyproject => pyproject(text)?,
        ManifestKind::Requirements => return Ok(requirements(text)),
        ManifestKind::GoMod => return Ok(go_mod(text)),
    };
    let mut seen: HashSet<String> = HashSet::with_capacity(names.len());
    let names: Vec<String> = names.into_iter().filter(|n| seen.insert(n.clone())).collect();
    let lines = declaration_lines(text, &seen);
    Ok(names
        .into_iter()
        .map(|name| {
            let line = lines.get(name.as_str()).copied().unwrap_or(0);
            Dependency { name, line }
        })
        .collect())
}

fn cargo(text: &str) -> Result<Vec<String>, String> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    let mut take = |table: Option<&toml::Value>| {
        let Some(table) = table.and_then(toml::Value::as_table) else { return };
        for (key, spec) in table {
            // `foo = { package = "real-name" }` depends on `real-name`.
            let real = spec.get("package").and_then(toml::Value::as_str).unwrap_or(key);
            names.push(real.to_string());
        }
    };
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        take(doc.get(section));
        take(doc.get("workspace").and_then(|w| w.get(section)));
    }
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
                take(target.get(section));
            }
        }
    }
    Ok(names)
}

fn npm(text: &str) -> Result<Vec<String>, String> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    for section in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
        if let Some(deps) = doc.get(section).and_then(|v| v.as_object()) {
            names.extend(deps.keys().cloned());
        }
    }
    Ok(names)
}

fn pyproject(text: &str) -> Result<Vec<String>, String> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    let project = doc.get("project");
    let requirement_list = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .map(|a| a.iter().filter_map(|s| s.as_str()).filter_map(requirement_name).collect())
            .unwrap_or_default()
    };
    names.extend(requirement_list(project.and_then(|p| p.get("dependencies"))));
    if let Some(optional) = project.and_then(|p| p.get("optional-dependencies")).and_then(toml::Value::as_table) {
        for list in optional.values() {
            names.extend(requirement_list(Some(list)));
        }
    }
    if let Some(groups) = doc.get("dependency-groups").and_then(toml::Value::as_table) {
        for list in groups.values() {
            names.extend(requirement_list(Some(list)));
        }
    }
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    for section in ["dependencies", "dev-dependencies"] {
        if let Some(deps) = poetry.and_then(|p| p.get(section)).and_then(toml::Value::as_table) {
            names.extend(deps.keys().filter(|k| *k != "python").cloned());
        }
    }
    if let Some(groups) = poetry.and_then(|p| p.get("group")).and_then(toml::Value::as_table) {
        for group in groups.values() {
            if let Some(deps) = group.get("dependencies").and_then(toml::Value::as_table) {
                names.extend(deps.keys().cloned());
            }
        }
    }
    Ok(names)
}

/// The project name of a PEP 508 requirement (`foo[extra]>=1; python_version<"3.9"`).
fn requirement_name(req: &str) -> Option<String> {
    let req = req.trim();
    let end = req.find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(req.len());
    let name = &req[..end];
    (!name.is_empty()).then(|| name.to_string())
}

fn requirements(text: &str) -> Vec<Dependency> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('-') {
            continue;
        }
        if let Some(name) = requirement_name(line)
            && seen.insert(name.clone())
        {
            out.push(Dependency { name, line: i as u32 + 1 });
        }
    }
    out
}

fn go_mod(text: &str) -> Vec<Dependency> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("").trim();
        let module = if in_block {
            if line == ")" {
                in_block = false;
                continue;
            }
            line.split_whitespace().next()
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
                continue;
            }
            rest.split_whitespace().next()
        } else {
            None
        };
        if let Some(module) = module.filter(|m| !m.is_empty()) {
            out.push(Dependency { name: module.to_string(), line: i as u32 + 1 });
        }
    }
    out
}

/// The first line that declares each of `names`, best effort, in one pass over the text
/// (a name not found has no entry). A line declares a name as a key (`name = …`,
/// `name.workspace = true`), a table header (`[dependencies.name]`) or a quoted string
/// (`"name": …`, `"name>=1.0"`, `package = "name"`).
///
/// Invariant: linear in the text (each line is cut into at most [`MAX_KEY_CUTS`] + 1 key
/// candidates and its quoted strings, each looked up once); it used to scan the text once
/// per name, 76.5 s for a Cargo.toml of 40,000 dependencies.
fn declaration_lines<'a>(text: &str, names: &'a HashSet<String>) -> HashMap<&'a str, u32> {
    // A name declared as a key (or a string opening its line) anywhere beats a name
    // quoted inside a line (`package = "name"`, an inline list).
    let mut keys: HashMap<&'a str, u32> = HashMap::new();
    let mut inline: HashMap<&'a str, u32> = HashMap::new();
    let mut note = |candidate: &str, line: u32, as_key: bool| {
        if let Some(name) = names.get(candidate) {
            let found = if as_key { &mut keys } else { &mut inline };
            found.entry(name.as_str()).or_insert(line);
        }
    };
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let t = line.trim_start();
        // A key: `name = …` or a dotted key `name.workspace = true` (names may hold dots).
        let key_len = t
            .find(|c: char| c.is_whitespace() || matches!(c, '=' | '"' | '\'' | '[' | ']' | '{' | '}' | ','))
            .unwrap_or(t.len());
        let key = &t[..key_len];
        if !key.is_empty() && t[key_len..].trim_start().starts_with('=') {
            note(key, line_no, true);
            for (cut, _) in key.match_indices('.').take(MAX_KEY_CUTS) {
                note(&key[..cut], line_no, true);
            }
        }
        // A table header: the last dotted part, unquoted.
        if let Some(header) = t.strip_prefix('[').and_then(|h| h.trim_end().strip_suffix(']')) {
            let last = header.rsplit('.').next().unwrap_or("").trim().trim_matches(['"', '\'']);
            note(last, line_no, true);
        }
        // Quoted strings: the name at the start of each (`"name"`, `"name>=1"`).
        let mut rest = t;
        while let Some(open) = rest.find('"') {
            let opens_line = rest.len() == t.len() && open == 0;
            let inside = &rest[open + 1..];
            let close = inside.find('"').unwrap_or(inside.len());
            let quoted = &inside[..close];
            note(quoted, line_no, opens_line);
            if let Some(name) = requirement_name(quoted) {
                note(&name, line_no, opens_line);
            }
            rest = inside.get(close + 1..).unwrap_or("");
        }
    }
    for (name, line) in inline {
        keys.entry(name).or_insert(line);
    }
    keys
}

/// How many dotted prefixes of a key are tried as names (`a.b.c` → `a`, `a.b`).
const MAX_KEY_CUTS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    fn names(kind: ManifestKind, text: &str) -> Vec<(String, u32)> {
        dependencies(kind, text).unwrap().into_iter().map(|d| (d.name, d.line)).collect()
    }

    #[test]
    fn cargo_sections_and_renames() {
        let text = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\nvs = { package = \"usearch\", version = \"2\" }\n\n[dev-dependencies]\nloro.workspace = true\n\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(
            names(ManifestKind::Cargo, text),
            vec![("serde".into(), 5), ("usearch".into(), 6), ("loro".into(), 9), ("libc".into(), 12)]
        );
        assert!(dependencies(ManifestKind::Cargo, "[dependencies\n").is_err());
    }

    #[test]
    fn npm_pyproject_requirements_go() {
        let npm = "{\n  \"dependencies\": {\n    \"@livestore/livestore\": \"^0.3\"\n  },\n  \"devDependencies\": {\"vitest\": \"1\"}\n}";
        assert_eq!(names(ManifestKind::Npm, npm), vec![("@livestore/livestore".into(), 3), ("vitest".into(), 5)]);
        let py = "[project]\nname = \"x\"\ndependencies = [\n  \"duckdb>=1.0\",\n  \"vectorlite[fast]; python_version>'3.9'\",\n]\n[tool.poetry.dependencies]\npython = \"^3.11\"\ncuti = \"*\"\n";
        let got: Vec<String> = names(ManifestKind::Pyproject, py).into_iter().map(|d| d.0).collect();
        assert_eq!(got, vec!["duckdb", "vectorlite", "cuti"]);
        let req = "# comment\nduckdb==1.1  # pinned\n-r other.txt\n\nusearch>=2\n";
        assert_eq!(names(ManifestKind::Requirements, req), vec![("duckdb".into(), 2), ("usearch".into(), 5)]);
        let go = "module x\n\nrequire dagger.io/dagger v0.9.0\nrequire (\n\tgithub.com/urfave/cli/v2 v2.27.1 // indirect\n)\n";
        assert_eq!(
            names(ManifestKind::GoMod, go),
            vec![("dagger.io/dagger".into(), 3), ("github.com/urfave/cli/v2".into(), 5)]
        );
    }

    #[test]
    fn manifest_kinds_by_name() {
        assert_eq!(kind_of(Path::new("/a/Cargo.toml")), Some(ManifestKind::Cargo));
        assert_eq!(kind_of(Path::new("/a/requirements-dev.txt")), Some(ManifestKind::Requirements));
        assert_eq!(kind_of(Path::new("/a/notes.txt")), None);
    }

    #[test]
    fn declaration_lines_prefer_keys_and_know_table_headers() {
        let text = "[package]\nname = \"foo\"\n\n[dependencies]\nbar = { package = \"foo\" }\nfoo = \"1\"\n\n[dependencies.baz]\nversion = \"1\"\n";
        assert_eq!(names(ManifestKind::Cargo, text), vec![("foo".into(), 6), ("baz".into(), 8)]);
        let inline = "[project]\ndependencies = [\"duckdb>=1\", \"usearch\"]\n";
        assert_eq!(names(ManifestKind::Pyproject, inline), vec![("duckdb".into(), 2), ("usearch".into(), 2)]);
    }

    #[test]
    fn big_manifests_stay_linear() {
        let cargo = |n: usize| {
            let deps: String = (0..n).map(|i| format!("dep{i:06} = \"1\"\n")).collect();
            format!("[package]\nname = \"x\"\n\n[dependencies]\n{deps}")
        };
        let found = names(ManifestKind::Cargo, &cargo(3));
        assert_eq!(found, vec![("dep000000".into(), 5), ("dep000001".into(), 6), ("dep000002".into(), 7)]);
        crate::testing::assert_subquadratic("Cargo.toml", 2_000, |n| {
            assert_eq!(dependencies(ManifestKind::Cargo, &cargo(n)).unwrap().len(), n);
        });
        let npm = |n: usize| {
            let deps: Vec<String> = (0..n).map(|i| format!("    \"dep{i:06}\": \"^1\"")).collect();
            format!("{{\n  \"dependencies\": {{\n{}\n  }}\n}}\n", deps.join(",\n"))
        };
        assert_eq!(names(ManifestKind::Npm, &npm(2))[1], ("dep000001".into(), 4));
        crate::testing::assert_subquadratic("package.json", 5_000, |n| {
            assert_eq!(dependencies(ManifestKind::Npm, &npm(n)).unwrap().len(), n);
        });
        let requirements = |n: usize| (0..n).map(|i| format!("dep{i:06}==1.0\n")).collect::<String>();
        crate::testing::assert_subquadratic("requirements.txt", 20_000, |n| {
            assert_eq!(dependencies(ManifestKind::Requirements, &requirements(n)).unwrap().len(), n);
        });
    }
}
