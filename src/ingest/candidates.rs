//! Repos the registry does not know: `owner/name` references in session logs that name
//! no registered node, for `patina mother candidates`.
//!
//! Only forms that say "this is a repository" count, because a bare `a/b` in a log is
//! far more often a path (`layer/core`, `src/scry`):
//! - a GitHub or GitLab URL, `github.com/owner/name`;
//! - a wiki link, `[[owner/name]]`;
//! - `owner/name` right after a command that takes a repo (`git clone`, `repo add`, `gh repo`),
//!   or right before a repo word ("the sst/opencode repo").
//!
//! Architecture Invariant: a pure function of (text, known names); it never adds a node.
//! `mother sync` adds nodes from the registry only: a candidate is a suggestion for the
//! user to register.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

/// One reference to an unregistered repo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `owner/name` as written (case kept).
    pub name: String,
    /// 1-based line.
    pub line: u32,
    /// Which form it took: `url`, `wiki-link`, `command`, `repo-word`.
    pub form: &'static str,
    pub text: String,
}

const SEGMENT: &str = r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9])?";

static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:github|gitlab|codeberg)\.(?:com|org)/({SEGMENT})/({SEGMENT})")).unwrap()
});
static WIKI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\[\[\s*({SEGMENT})/({SEGMENT})\s*(?:\|[^\]]*)?\]\]")).unwrap());
static COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:git clone|repo add|gh repo clone|gh repo view|clone)\s+`?({SEGMENT})/({SEGMENT})\b"))
        .unwrap()
});
static REPO_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?:^|[\s(`*])({SEGMENT})/({SEGMENT})`?\*{{0,2}}\s+(?:repo|repos|repository|codebase|project)\b"
    ))
    .unwrap()
});

/// Owners that are really path roots or placeholders in these logs (also read by
/// `mention.rs`: `docs/dojo` is a folder, `someorg/dojo` the repo).
pub(crate) const NOT_OWNERS: &[&str] =
    &["src", "layer", "docs", "tests", "target", "owner", "user", "org", "your-org", "example", "foo", "path", "repos"];

/// The references in `text` to `owner/name` repos for which `known` is false (`known`
/// gets the lower-cased `owner/name` and the lower-cased name alone).
pub fn find(text: &str, known: impl Fn(&str) -> bool) -> Vec<Reference> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if !line.contains('/') {
            continue;
        }
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for (re, form) in [(&*URL, "url"), (&*WIKI, "wiki-link"), (&*COMMAND, "command"), (&*REPO_WORD, "repo-word")] {
            for c in re.captures_iter(line) {
                let owner = &c[1];
                let name = c[2].trim_end_matches(".git");
                if name.contains('.')
                    && !name.ends_with(".js")
                    && name.rsplit('.').next().is_some_and(|ext| ext.len() <= 4)
                {
                    continue; // a file name, not a repo
                }
                let lower = format!("{}/{}", owner.to_lowercase(), name.to_lowercase());
                if NOT_OWNERS.contains(&owner.to_lowercase().as_str()) || known(&lower) || known(&name.to_lowercase()) {
                    continue;
                }
                if seen.insert(lower) {
                    out.push(Reference {
                        name: format!("{owner}/{name}"),
                        line: i as u32 + 1,
                        form,
                        text: line.trim().chars().take(200).collect(),
                    });
                }
            }
        }
    }
    out
}

/// Candidates gathered over many files: per `owner/name` (lower-cased), the references.
#[derive(Debug, Default)]
pub struct Candidates {
    pub by_name: BTreeMap<String, Vec<(String, Reference)>>,
}

impl Candidates {
    pub fn add(&mut self, file: &str, refs: Vec<Reference>) {
        for r in refs {
            self.by_name.entry(r.name.to_lowercase()).or_default().push((file.to_string(), r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, &'static str)> {
        find(text, |n| n == "dojoengine/dojo" || n == "dojo").into_iter().map(|r| (r.name, r.form)).collect()
    }

    #[test]
    fn repository_forms_count_and_paths_do_not() {
        assert_eq!(names("see https://github.com/sst/opencode for the agent"), vec![("sst/opencode".into(), "url")]);
        assert_eq!(names("Studied [[steveyegge/beads]] today"), vec![("steveyegge/beads".into(), "wiki-link")]);
        assert_eq!(names("ran `git clone tursodatabase/turso`"), vec![("tursodatabase/turso".into(), "command")]);
        assert_eq!(names("the anthropics/skills repo has examples"), vec![("anthropics/skills".into(), "repo-word")]);
        assert!(names("edited layer/core/patterns.md and src/scry/route.rs").is_empty());
        assert!(names("moved notes to layer/dust repo folder").is_empty(), "layer/ is a path root");
        assert!(names("https://github.com/dojoengine/dojo and [[dojoengine/dojo]]").is_empty(), "registered");
        assert!(names("see github.com/user/README.md").is_empty());
    }

    #[test]
    fn one_reference_per_name_and_line() {
        let refs = find("[[a-b/c_d]] and github.com/a-b/c_d", |_| false);
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].line, 1);
    }
}
