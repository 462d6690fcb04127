//! Manifests: `Cargo.toml`, `package.json`, `pyproject.toml`, `requirements*.txt`, `go.mod`.
//!
//! Each yields the names of the dependencies it declares, with the line that declares
//! them. Matching a name to a registered node (by id, alias or listed package name) is the
//! caller's job. A manifest that does not parse is a diagnostic, never a panic.

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
    let mut out: Vec<Dependency> = Vec::new();
    for name in names {
        if !out.iter().any(|d| d.name == name) {
            let line = declaration_line(text, &name);
            out.push(Dependency { name, line });
        }
    }
    Ok(out)
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
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('-') {
            continue;
        }
        if let Some(name) = requirement_name(line)
            && !out.iter().any(|d: &Dependency| d.name == name)
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

/// The first line that declares `name` (as a key or a quoted string), best effort.
fn declaration_line(text: &str, name: &str) -> u32 {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let quoted = format!("\"{name}");
        if t.starts_with(name) && t[name.len()..].trim_start().starts_with(['=', '.', ' ']) || t.starts_with(&quoted) {
            return i as u32 + 1;
        }
    }
    for (i, line) in text.lines().enumerate() {
        if line.contains(name) {
            return i as u32 + 1;
        }
    }
    0
}

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
}
