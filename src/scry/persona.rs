//! `scry --persona`: local first, and the mother only when local knowledge is weak.
//!
//! 1. Search the local project alone (its files and its own beliefs).
//! 2. When that finds nothing, or its best fused score is below the threshold
//!    ([`DEFAULT_THRESHOLD`], `--persona-threshold`), or with `--persona-only`: ask the
//!    mother: the graph-routed repos' files, and *persona* knowledge, the beliefs that are
//!    not the project's own (the routed projects' beliefs and the user's cross-project
//!    beliefs in `$PATINA_HOME/persona/`).
//! 3. One list: non-local scores × [`NON_LOCAL_FACTOR`], the local project first on ties.
//!    Tags: `PROJECT` for local; `PERSONA-<DOMAIN>` when the result's facets (a belief's
//!    facets, a repo's registry domains) meet one of the project's domains; `PERSONA`
//!    otherwise. Each belief or observation from elsewhere is checked for adoptability
//!    (`knowledge::persona::check`).
//!
//! Invariant: the answer is recorded under one query id like any scry, so `--detail`,
//! feedback and the daemon work on it unchanged.

use std::collections::BTreeSet;

use super::route::{Route, Routed};
use super::{Query, RouteChoice, Scry, ScryError, World};
use crate::home::PatinaHome;
use crate::knowledge::persona::{self, PERSONA};
use crate::search::{Hit, HitKind, Searcher};

/// Below this best local fused score the mother is asked. Fused scores are comparable
/// across repos: ~1 when a file answers every query word well, under 0.3 for a file that
/// shares a word or two.
pub const DEFAULT_THRESHOLD: f32 = 0.4;

/// Scores of results from elsewhere are multiplied by this.
pub const NON_LOCAL_FACTOR: f32 = 0.9;

/// How to run a persona query.
#[derive(Debug, Clone)]
pub struct PersonaOptions {
    pub threshold: f32,
    /// Skip the local search.
    pub persona_only: bool,
}

impl Default for PersonaOptions {
    fn default() -> Self {
        PersonaOptions { threshold: DEFAULT_THRESHOLD, persona_only: false }
    }
}

/// The tag of a result from elsewhere: `PERSONA-<DOMAIN>` for the first (sorted) of the
/// project's domains its facets name, else `PERSONA`.
pub fn persona_tag(project_domains: &[String], facets: &[String]) -> String {
    let mine: BTreeSet<String> = project_domains.iter().map(|d| d.to_lowercase()).collect();
    let theirs: BTreeSet<String> = facets.iter().map(|d| d.to_lowercase()).collect();
    match mine.intersection(&theirs).next() {
        Some(domain) => format!("PERSONA-{}", domain.to_uppercase()),
        None => "PERSONA".to_string(),
    }
}

/// Runs `query` local first, with the mother as the fallback. `query.choice` must name or
/// imply a project.
pub fn run(
    home: &PatinaHome,
    searcher: &mut Searcher,
    world: &World,
    query: &Query,
    options: &PersonaOptions,
) -> Result<Scry, ScryError> {
    let project = query.choice.project_id(world).ok_or_else(|| {
        ScryError::Route(
            "--persona searches a project first: pass --project ID or run it inside a registered repo".into(),
        )
    })?;
    let quiet = |choice: RouteChoice, knowledge: bool| Query {
        choice,
        record: false,
        knowledge,
        limit: query.limit,
        ..query.clone()
    };
    // 1. Local: the project's files and its own beliefs.
    let local = if options.persona_only {
        None
    } else {
        let choice = RouteChoice { project: Some(project.clone()), repos: vec![project.clone()], all: false };
        Some(super::run(home, searcher, world, &quiet(choice, true))?)
    };
    let best = local.as_ref().and_then(|l| l.result.hits.iter().map(|h| h.fused_score).reduce(f32::max));
    let mut channels = local.as_ref().map_or(crate::search::Channels::LexicalOnly, |l| l.result.channels);
    let why = match (options.persona_only, best) {
        (true, _) => Some("--persona-only".to_string()),
        (false, None) => Some("the local project has no result".to_string()),
        (false, Some(b)) if b < options.threshold => {
            Some(format!("the local best score {b:.2} is below {:.2}", options.threshold))
        }
        (false, Some(_)) => None,
    };
    let mut route = local.as_ref().map(|l| l.route.clone()).unwrap_or(Route {
        project: Some(project.clone()),
        searched: Vec::new(),
        skipped: Vec::new(),
    });
    let mut warnings = local.as_ref().map(|l| l.result.warnings.clone()).unwrap_or_default();
    let mut coverage = local.as_ref().map(|l| l.result.coverage.clone()).unwrap_or_default();
    let had_local = local.is_some();
    let mut rows: Vec<(Hit, String, Option<persona::Adoptability>, bool)> = local
        .map(|l| l.result.hits.into_iter().map(|h| (h, "PROJECT".to_string(), None, true)).collect())
        .unwrap_or_default();
    if let Some(why) = &why {
        // 2. The mother: the graph-routed repos' files, and persona knowledge.
        let choice = RouteChoice { project: Some(project.clone()), repos: Vec::new(), all: false };
        let mother = super::run(home, searcher, world, &quiet(choice, false))?;
        if !had_local || mother.result.channels == crate::search::Channels::Fused {
            channels = mother.result.channels;
        }
        for warning in mother.result.warnings {
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        }
        for covered in mother.result.coverage {
            if !coverage.iter().any(|c| c.repo == covered.repo) {
                coverage.push(covered);
            }
        }
        let project_domains = world.nodes.get(&project).map(|n| n.domains.clone()).unwrap_or_default();
        for routed in mother.route.searched {
            if !route.searched.iter().any(|r| r.repo == routed.repo) {
                route
                    .searched
                    .push(Routed { reason: format!("persona fallback ({why}); {}", routed.reason), ..routed });
            }
        }
        route.skipped.extend(mother.route.skipped);
        for mut hit in mother.result.hits.into_iter().filter(|h| h.repo != project) {
            let domains = world.nodes.get(&hit.repo).map(|n| n.domains.clone()).unwrap_or_default();
            hit.fused_score *= NON_LOCAL_FACTOR;
            rows.push((hit, persona_tag(&project_domains, &domains), None, false));
        }
        let mut sources: Vec<String> = route.repos().into_iter().filter(|r| *r != project).collect();
        sources.push(PERSONA.to_string());
        // By words and, with the model, by meaning, like the project's own channel.
        let vectors =
            if query.semantic { super::knowledge_vectors(home, searcher, world, &sources, &query.text) } else { None };
        let semantic =
            vectors.as_ref().map(|(q, items)| crate::knowledge::search::Semantic { query: q.as_slice(), items });
        let found = crate::knowledge::search::search_with(
            &world.knowledge,
            &sources,
            &query.text,
            super::MAX_KNOWLEDGE_HITS,
            semantic.as_ref(),
        );
        for (rank, k) in found.into_iter().enumerate() {
            let facets = world.knowledge.get(&k.id).map(|e| e.item.facets().to_vec()).unwrap_or_default();
            let mut hit = super::knowledge_hit(world, &k, rank);
            hit.fused_score *= NON_LOCAL_FACTOR;
            let verdict = persona::check(&world.knowledge, &k.id, &project);
            rows.push((hit, persona_tag(&project_domains, &facets), Some(verdict), false));
        }
    }
    // 3. One list: by score, the local project first on ties.
    rows.sort_by(|a, b| b.0.fused_score.total_cmp(&a.0.fused_score).then(b.3.cmp(&a.3)));
    rows.truncate(query.limit);
    let hits: Vec<Hit> = rows.iter().map(|r| r.0.clone()).collect();
    let result = crate::search::SearchResult { hits, channels, warnings, coverage };
    let mut answer = super::finish(home, query, route, result)?;
    answer.tags = rows.iter().map(|r| r.1.clone()).collect();
    answer.adoptability = rows.into_iter().map(|r| r.2).collect();
    answer.persona = Some(match why {
        Some(why) => format!("asked the mother: {why}"),
        None => {
            format!("local only: the local best score {:.2} reaches {:.2}", best.unwrap_or(0.0), options.threshold)
        }
    });
    Ok(answer)
}

/// Whether a hit is a belief or observation (adoptability applies to those only).
pub fn is_knowledge(hit: &Hit) -> bool {
    hit.kind != HitKind::Code
}

#[cfg(test)]
mod tests {
    use super::persona_tag;

    #[test]
    fn tags_name_a_shared_domain() {
        let mine = vec!["rust".to_string(), "search".to_string()];
        assert_eq!(persona_tag(&mine, &["Search".into(), "ml".into()]), "PERSONA-SEARCH");
        assert_eq!(persona_tag(&mine, &["go".into()]), "PERSONA");
        assert_eq!(persona_tag(&mine, &[]), "PERSONA");
    }
}
