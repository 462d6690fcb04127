//! Cues by meaning: a mention that no strong cue phrase classifies is compared, with the
//! embedding model, to labelled exemplar sentences (`rules/exemplars.toml`), and takes
//! the class its nearest exemplars vote for.
//!
//! The phrase vocabulary (`cues.rs`) is precise but literal: "ran the extractor over X,
//! 3k symbols" says testing without any of its phrases. Exemplars generalise by meaning.
//! Phrases still decide first: a strong phrase, a testing command, a strong lead-in and
//! an ending are never overridden, nor is a weak cue bound to the mention's own noun phrase
//! (a compound: "the Dagger-based setup"); exemplars classify what is left plain or weak.
//! A class by resemblance is a strong cue only when another sentence of the file says the same
//! of the repo; alone in its log it is weak (ingest's `second_exemplar_cues`).
//!
//! Before comparing, the mention in its sentence is replaced by `REPO` (exemplars are
//! written with `REPO` too), and a short list item or table row is prefixed by its
//! block's lead-in, so what is compared is what the text says about a repo.
//!
//! Without the model, nothing here runs and phrases alone classify (ingest says so once).
//!
//! Invariant: the decision is a pure function of (exemplar file, model, text): vectors
//! are cached by (model id, text) in `$PATINA_HOME/cache/cue-vectors.bin`, which is
//! derived state (deleting it only costs embedding again).
//! Invariant: the exemplars, their settings and the model id are part of the ingest cache
//! key (`Cues::fingerprint`), so a changed file or a newly fetched model reads the logs
//! again.
//! Invariant: a model that fails to load or run never fails an ingest: the mentions keep
//! their phrase cues and the failure is one warning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use crate::event::CueClass;
use crate::search::embed::{EmbedError, Embedder};

/// The built-in exemplars.
pub const DEFAULT_EXEMPLARS: &str = include_str!("../../rules/exemplars.toml");

/// What stands for the mentioned repo in exemplars and in the compared sentence.
pub const PLACEHOLDER: &str = "REPO";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExemplars {
    #[serde(default)]
    settings: RawSettings,
    #[serde(default)]
    testing: RawClass,
    #[serde(default)]
    learning: RawClass,
    #[serde(default)]
    using: RawClass,
    #[serde(default)]
    none: RawClass,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    k: Option<usize>,
    min_similarity: Option<f32>,
    min_share: Option<f32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClass {
    #[serde(default)]
    sentences: Vec<String>,
}

/// How the nearest exemplars decide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// How many nearest exemplars vote, each with its similarity.
    pub k: usize,
    /// The least similarity of the winning class's nearest exemplar.
    pub min_similarity: f32,
    /// The least share of the votes the winning class must hold.
    pub min_share: f32,
}

/// The labelled sentences: `CueClass::Plain` is the `none` class.
#[derive(Debug, Clone)]
pub struct Exemplars {
    pub sentences: Vec<(CueClass, String)>,
    pub settings: Settings,
    /// A hash of the files (part of the ingest cache key).
    pub fingerprint: [u8; 32],
}

impl Exemplars {
    /// The built-in exemplars, extended by `extra` TOML texts (each labelled for errors):
    /// sentences are added, settings replace.
    pub fn load(extra: &[(String, String)]) -> Result<Exemplars, String> {
        let mut merged: RawExemplars =
            toml::from_str(DEFAULT_EXEMPLARS).map_err(|e| format!("built-in exemplars: {e}"))?;
        let mut fingerprint = blake3::Hasher::new();
        fingerprint.update(DEFAULT_EXEMPLARS.as_bytes());
        for (label, text) in extra {
            let raw: RawExemplars = toml::from_str(text).map_err(|e| format!("{label}: {e}"))?;
            fingerprint.update(text.as_bytes());
            merged.testing.sentences.extend(raw.testing.sentences);
            merged.learning.sentences.extend(raw.learning.sentences);
            merged.using.sentences.extend(raw.using.sentences);
            merged.none.sentences.extend(raw.none.sentences);
            let s = raw.settings;
            merged.settings.k = s.k.or(merged.settings.k);
            merged.settings.min_similarity = s.min_similarity.or(merged.settings.min_similarity);
            merged.settings.min_share = s.min_share.or(merged.settings.min_share);
        }
        let mut sentences = Vec::new();
        for (class, raw) in [
            (CueClass::Testing, merged.testing),
            (CueClass::Learning, merged.learning),
            (CueClass::Using, merged.using),
            (CueClass::Plain, merged.none),
        ] {
            for sentence in raw.sentences {
                let sentence = sentence.trim().to_string();
                if !sentence.is_empty() && !sentences.iter().any(|(_, s)| *s == sentence) {
                    sentences.push((class, sentence));
                }
            }
        }
        let s = merged.settings;
        let settings = Settings {
            k: s.k.unwrap_or(5).clamp(1, 50),
            min_similarity: s.min_similarity.unwrap_or(0.65),
            min_share: s.min_share.unwrap_or(0.6),
        };
        if !(0.0..=1.0).contains(&settings.min_similarity) || !(0.0..=1.0).contains(&settings.min_share) {
            return Err("exemplar settings: similarities and min_share must lie in 0..1".into());
        }
        Ok(Exemplars { sentences, settings, fingerprint: *fingerprint.finalize().as_bytes() })
    }

    /// The built-in exemplars plus the user's file, if it exists.
    pub fn load_with_user_file(user: Option<&Path>) -> Result<Exemplars, String> {
        Exemplars::load(&super::cues::user_file(user)?)
    }

    /// The class the nearest exemplars vote for, given the compared text's similarity to
    /// every exemplar (in `sentences` order). `None`: no class wins clearly, or `none` wins.
    pub fn decide(&self, similarities: &[f32]) -> Option<ExemplarCue> {
        let mut order: Vec<usize> = (0..similarities.len().min(self.sentences.len())).collect();
        order.sort_by(|&a, &b| similarities[b].total_cmp(&similarities[a]).then(a.cmp(&b)));
        order.truncate(self.settings.k);
        let mut votes: Vec<(CueClass, f32)> = Vec::new();
        for &i in &order {
            let class = self.sentences[i].0;
            let vote = similarities[i].max(0.0);
            match votes.iter_mut().find(|(c, _)| *c == class) {
                Some((_, v)) => *v += vote,
                None => votes.push((class, vote)),
            }
        }
        let total: f32 = votes.iter().map(|(_, v)| v).sum();
        // The winner: most votes; at a tie the class that came first among the nearest.
        let (class, vote) = votes.iter().copied().fold(None, |best: Option<(CueClass, f32)>, (c, v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((c, v)),
        })?;
        if class == CueClass::Plain || total <= 0.0 || vote / total < self.settings.min_share {
            return None;
        }
        let nearest = *order.iter().find(|&&i| self.sentences[i].0 == class)?;
        let similarity = similarities[nearest];
        if similarity < self.settings.min_similarity {
            return None;
        }
        Some(ExemplarCue { class, exemplar: self.sentences[nearest].1.clone(), similarity })
    }
}

/// What the exemplars decided for one mention. Ingest makes it a strong cue only when
/// another sentence of the file says the same of the repo (`second_exemplar_cues`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExemplarCue {
    pub class: CueClass,
    /// The nearest exemplar of the class.
    pub exemplar: String,
    pub similarity: f32,
}

impl ExemplarCue {
    /// The cue text a mention event records (`explain` shows it).
    pub fn describe(&self) -> String {
        format!("exemplar \"{}\" ({:.2})", self.exemplar, self.similarity)
    }
}

/// Words a list item or table row may hold (besides the repo) and still be compared
/// with its lead-in: `| SDL | 3,878 | 2.1 s |` says nothing without its heading, while a
/// full sentence is diluted by a generic "Work completed:".
const SHORT_ITEM_WORDS: usize = 5;

/// The text compared for a mention: its sentence with the matched text replaced by
/// [`PLACEHOLDER`], after its block's lead-in when it has one and the sentence is short.
pub fn compared_text(sentence: &str, matched: &str, lead_in: Option<&str>) -> String {
    let masked = replace_ignore_ascii_case(sentence, matched, PLACEHOLDER);
    let words =
        masked.split(|c: char| !c.is_alphabetic()).filter(|w| w.chars().count() >= 2 && *w != PLACEHOLDER).count();
    match lead_in {
        Some(lead) if !lead.is_empty() && words < SHORT_ITEM_WORDS => format!("{lead} — {masked}"),
        _ => masked,
    }
}

fn replace_ignore_ascii_case(text: &str, needle: &str, with: &str) -> String {
    if needle.is_empty() {
        return text.to_string();
    }
    let lower = text.to_ascii_lowercase();
    let needle = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(&needle) {
        // ASCII lower-casing keeps byte offsets, so `i` is a char boundary of `text` too.
        if i < last || !super::cues::is_word_boundary(text.as_bytes(), i, i + needle.len()) {
            continue;
        }
        out.push_str(&text[last..i]);
        out.push_str(with);
        last = i + needle.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Loads an embedder when first needed.
pub type EmbedderLoader = Box<dyn FnOnce() -> Result<Box<dyn Embedder>, EmbedError> + Send>;

/// The exemplars with the model that compares texts to them, shared by every ingest of a
/// process (a watch keeps one). Loads the model only when a text is not in the cache.
pub struct ExemplarModel {
    pub exemplars: Exemplars,
    model_id: String,
    state: Mutex<ModelState>,
}

struct ModelState {
    loader: Option<EmbedderLoader>,
    embedder: Option<Box<dyn Embedder>>,
    /// Why the model could not be used (reported once).
    failed: Option<String>,
    exemplar_vectors: Option<Vec<Vec<f32>>>,
    cache: HashMap<[u8; 32], Vec<f32>>,
    /// Keys this process used (kept when the cache is trimmed).
    used: std::collections::HashSet<[u8; 32]>,
    cache_path: Option<PathBuf>,
    cache_dirty: bool,
}

impl std::fmt::Debug for ExemplarModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExemplarModel").field("model_id", &self.model_id).finish_non_exhaustive()
    }
}

/// Most bytes the vector cache file may hold (a larger file is ignored and rebuilt).
const MAX_CACHE_BYTES: usize = 256 * 1024 * 1024;
/// Most vectors the cache keeps (~60 MiB); past it, a save keeps only those this process
/// used (a file read again later is embedded again).
const MAX_CACHED_VECTORS: usize = 40_000;

impl ExemplarModel {
    /// `cache_path`: where vectors are kept between runs (`None`: in memory only).
    pub fn new(
        exemplars: Exemplars,
        model_id: &str,
        loader: EmbedderLoader,
        cache_path: Option<PathBuf>,
    ) -> Arc<ExemplarModel> {
        let config = bincode::config::standard().with_limit::<MAX_CACHE_BYTES>();
        let cache = cache_path
            .as_deref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| bincode::serde::decode_from_slice(&bytes, config).ok().map(|(c, _)| c))
            .unwrap_or_default();
        Arc::new(ExemplarModel {
            exemplars,
            model_id: model_id.to_string(),
            state: Mutex::new(ModelState {
                loader: Some(loader),
                embedder: None,
                failed: None,
                exemplar_vectors: None,
                cache,
                used: Default::default(),
                cache_path,
                cache_dirty: false,
            }),
        })
    }

    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// A hash of the exemplars and the model (part of the ingest cache key).
    pub fn fingerprint(&self) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(&self.exemplars.fingerprint);
        h.update(self.model_id.as_bytes());
        *h.finalize().as_bytes()
    }

    /// The decision for each text. `Err` says why the model cannot be used (the caller
    /// keeps the phrase cues); after one failure every call fails the same way at once.
    pub fn classify(&self, texts: &[String]) -> Result<Vec<Option<ExemplarCue>>, String> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(why) = &state.failed {
            return Err(why.clone());
        }
        if state.exemplar_vectors.is_none() {
            let sentences: Vec<String> = self.exemplars.sentences.iter().map(|(_, s)| s.clone()).collect();
            let vectors = self.vectors(&mut state, &sentences)?;
            state.exemplar_vectors = Some(vectors);
        }
        let vectors = self.vectors(&mut state, texts)?;
        let exemplar_vectors = state.exemplar_vectors.as_deref().unwrap_or_default();
        Ok(vectors
            .iter()
            .map(|v| {
                let similarities: Vec<f32> =
                    exemplar_vectors.iter().map(|e| crate::search::embed::cosine(v, e)).collect();
                self.exemplars.decide(&similarities)
            })
            .collect())
    }

    fn vectors(&self, state: &mut ModelState, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let key = |text: &str| *blake3::hash(format!("{}\0{text}", self.model_id).as_bytes()).as_bytes();
        let mut missing: Vec<&str> =
            texts.iter().map(String::as_str).filter(|t| !state.cache.contains_key(&key(t))).collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            if state.embedder.is_none() {
                let loader = state.loader.take().ok_or_else(|| "the embedding model is not available".to_string());
                match loader.and_then(|load| load().map_err(|e| e.to_string())) {
                    Ok(embedder) => state.embedder = Some(embedder),
                    Err(why) => {
                        state.failed = Some(why.clone());
                        return Err(why);
                    }
                }
            }
            let embedder = state.embedder.as_mut().expect("loaded above");
            match embedder.embed(&missing) {
                Ok(vectors) => {
                    for (text, vector) in missing.iter().zip(vectors) {
                        state.cache.insert(key(text), vector);
                    }
                    state.cache_dirty = true;
                }
                Err(why) => {
                    let why = why.to_string();
                    state.failed = Some(why.clone());
                    return Err(why);
                }
            }
        }
        let keys: Vec<[u8; 32]> = texts.iter().map(|t| key(t)).collect();
        state.used.extend(keys.iter().copied());
        Ok(keys.iter().map(|k| state.cache.get(k).cloned().unwrap_or_default()).collect())
    }

    #[cfg(test)]
    fn cached(&self) -> usize {
        self.state.lock().unwrap().cache.len()
    }

    /// Writes the vector cache if it gained vectors (best effort: a cache that cannot be
    /// written is embedded again next time).
    pub fn save_cache(&self) {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !state.cache_dirty {
            return;
        }
        let Some(path) = state.cache_path.clone() else { return };
        if state.cache.len() > MAX_CACHED_VECTORS {
            let ModelState { cache, used, .. } = &mut *state;
            cache.retain(|k, _| used.contains(k));
        }
        let config = bincode::config::standard().with_limit::<MAX_CACHE_BYTES>();
        if let Ok(bytes) = bincode::serde::encode_to_vec(&state.cache, config) {
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let tmp = path.with_extension("tmp");
            if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, &path).is_ok() {
                state.cache_dirty = false;
            }
        }
    }
}

/// Set to `off` to classify mentions by phrases alone even with the model present.
pub const ENV_SWITCH: &str = "PATINA_EXEMPLARS";

/// `cues` with the home's exemplars (built-in + `$PATINA_HOME/rules/exemplars.toml`) and
/// the embedding model attached, when the model is present and `PATINA_EXEMPLARS` is not
/// `off`. The second value, when there is one, says once why phrases alone classify.
pub fn attach(
    cues: super::cues::Cues,
    home: &crate::home::PatinaHome,
) -> Result<(super::cues::Cues, Option<String>), String> {
    if std::env::var(ENV_SWITCH).is_ok_and(|v| v.eq_ignore_ascii_case("off")) {
        return Ok((cues, Some(format!("{ENV_SWITCH}=off: mention cues come from phrases alone"))));
    }
    let exemplars = Exemplars::load_with_user_file(Some(&home.root().join("rules").join("exemplars.toml")))?;
    let dir = crate::models::models_dir(home);
    let Some(paths) = crate::models::locate(&dir) else {
        return Ok((
            cues,
            Some(format!(
                "no embedding model in {} (`patina models fetch` gets it): mention cues come from phrases alone",
                dir.display()
            )),
        ));
    };
    let loader: EmbedderLoader =
        Box::new(move || crate::search::embed::OnnxEmbedder::load(&paths).map(|e| Box::new(e) as Box<dyn Embedder>));
    let cache = home.root().join("cache").join("cue-vectors.bin");
    let model = ExemplarModel::new(exemplars, crate::models::MODEL_ID, loader, Some(cache));
    Ok((cues.with_exemplar_model(model), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exemplars() -> Exemplars {
        Exemplars::load(&[]).unwrap()
    }

    #[test]
    fn built_in_exemplars_parse_and_cover_every_class() {
        let e = exemplars();
        for class in [CueClass::Testing, CueClass::Learning, CueClass::Using, CueClass::Plain] {
            assert!(e.sentences.iter().filter(|(c, _)| *c == class).count() >= 10, "{class:?}");
        }
        assert!(e.sentences.iter().all(|(_, s)| s.contains(PLACEHOLDER)), "every exemplar names REPO");
    }

    #[test]
    fn a_user_file_adds_sentences_and_replaces_settings() {
        let user = "[settings]\nk = 3\n[testing]\nsentences = [\"Fuzzed REPO overnight.\"]\n".to_string();
        let e = Exemplars::load(&[("user.toml".into(), user)]).unwrap();
        assert_eq!(e.settings.k, 3);
        assert!(e.sentences.iter().any(|(c, s)| *c == CueClass::Testing && s == "Fuzzed REPO overnight."));
        assert_ne!(e.fingerprint, exemplars().fingerprint);
        let err = Exemplars::load(&[("user.toml".into(), "[testin]\n".into())]).unwrap_err();
        assert!(err.starts_with("user.toml:"), "{err}");
        let err = Exemplars::load(&[("u.toml".into(), "[settings]\nmin_share = 2.0\n".into())]).unwrap_err();
        assert!(err.contains("0..1"), "{err}");
    }

    /// Similarities for a vote: `near` gets `sim` at the first `n` exemplars of `class`.
    fn sims(e: &Exemplars, picks: &[(CueClass, usize, f32)]) -> Vec<f32> {
        let mut s = vec![0.1; e.sentences.len()];
        for &(class, n, sim) in picks {
            for i in e.sentences.iter().enumerate().filter(|(_, (c, _))| *c == class).map(|(i, _)| i).take(n) {
                s[i] = sim;
            }
        }
        s
    }

    #[test]
    fn the_nearest_exemplars_vote_and_a_threshold_decides() {
        let e = exemplars();
        let k = e.settings.k;
        assert_eq!(k, 5, "the split vote below is written for k = 5");
        let cue = e.decide(&sims(&e, &[(CueClass::Testing, k, 0.9)])).unwrap();
        assert_eq!((cue.class, cue.similarity), (CueClass::Testing, 0.9));
        assert!(cue.describe().starts_with("exemplar \"") && cue.describe().ends_with("(0.90)"), "{}", cue.describe());
        let near = e.settings.min_similarity + 0.01;
        assert_eq!(e.decide(&sims(&e, &[(CueClass::Learning, k, near)])).unwrap().class, CueClass::Learning);
        // Too far from everything: nothing.
        assert_eq!(e.decide(&sims(&e, &[(CueClass::Using, k, e.settings.min_similarity - 0.05)])), None);
        // The `none` class wins: nothing.
        assert_eq!(e.decide(&sims(&e, &[(CueClass::Plain, k, 0.9)])), None);
        // A split vote: no class holds the share.
        let split = sims(&e, &[(CueClass::Testing, 2, 0.8), (CueClass::Learning, 2, 0.8), (CueClass::Using, 1, 0.8)]);
        assert_eq!(e.decide(&split), None);
    }

    fn hash_model(cache: &Path) -> Arc<ExemplarModel> {
        let loader: EmbedderLoader = Box::new(|| Ok(Box::new(crate::search::embed::HashEmbedder) as Box<dyn Embedder>));
        ExemplarModel::new(exemplars(), "hash", loader, Some(cache.to_path_buf()))
    }

    #[test]
    fn the_vector_cache_is_kept_between_runs_and_trimmed_past_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache").join("cue-vectors.bin");
        let n_exemplars = exemplars().sentences.len();
        let many: Vec<String> = (0..MAX_CACHED_VECTORS).map(|i| format!("Ran check {i} on REPO.")).collect();
        let first = hash_model(&file);
        first.classify(&many).unwrap();
        first.save_cache();
        assert_eq!(hash_model(&file).cached(), MAX_CACHED_VECTORS + n_exemplars, "read back whole");
        // Past the size, a save keeps what this process used.
        let second = hash_model(&file);
        second.classify(&["A new sentence about REPO.".to_string()]).unwrap();
        second.save_cache();
        assert_eq!(hash_model(&file).cached(), n_exemplars + 1);
        // A cache file that is garbage is an empty cache, never an error.
        std::fs::write(&file, b"not a cache").unwrap();
        assert_eq!(hash_model(&file).cached(), 0);
        assert!(hash_model(&file).classify(&["Tested REPO.".to_string()]).is_ok());
    }

    #[test]
    fn the_mention_is_masked_and_the_lead_in_leads() {
        assert_eq!(compared_text("Ran it on sdl and SDL2", "SDL", None), "Ran it on REPO and SDL2");
        assert_eq!(compared_text("SDL: 12 symbols", "SDL", Some("Results")), "Results — REPO: 12 symbols");
        let long = "Ran the new extractor on SDL and it found everything";
        assert_eq!(compared_text(long, "SDL", Some("Work completed:")), long.replace("SDL", "REPO"));
        assert_eq!(compared_text("naïve dojo", "dojo", None), "naïve REPO");
    }
}
