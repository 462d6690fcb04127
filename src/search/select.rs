//! Resource selection: how likely each repo is to hold answers to a query, judged
//! without scoring a document. Two rules, one per channel:
//!
//! **By words: CORI** (Callan, Lu & Croft, "Searching distributed collections with
//! inference networks", SIGIR 1995), the classic selection rule of distributed retrieval,
//! over the repos' lexical indexes. Per query term `t` and repo `c`:
//!
//! ```text
//! T = df / (df + 50 + 150 · cw / avg_cw)        df: chunks of c holding t, cw: tokens of c
//! I = ln((C + 0.5) / cf) / ln(C + 1)            C: repos compared, cf: repos holding t
//! belief(t, c) = 0.4 + 0.6 · T · I
//! ```
//!
//! and a repo's belief is the mean over the query's terms. Unlike the best BM25 score of
//! each index, it is comparable across repos of very different sizes: a term found in
//! one repo only (`hnsw`) weighs far more than one found in all of them (`index`), and a
//! big repo does not win by size alone.
//!
//! **By meaning: the nearest chunks** ([`semantic_strength`]): the mean cosine of the
//! query's [`NEAREST_CHUNKS`] nearest chunk vectors in the repo. CORI favours repos with
//! many chunks holding the query's words; a descriptive query ("pick the native binary
//! for the OS and CPU") whose answer sits in a small repo in other words is found by
//! meaning. Used when every repo compared has vectors of the query's model. The best of
//! many chunks is near almost any query by chance, so a repo's cosines are discounted
//! by its size (logarithmically, [`SIZE_DISCOUNT`]): otherwise the biggest trees lead
//! for queries they do not answer.
//!
//! Invariants: beliefs lie in [0.4, 1]; 0.4 means "no query term here" (and is what every
//! repo gets when no repo holds any term). Strengths lie in [0, 1]. The results are
//! deterministic for given stats and cosines.

use super::text::TermStats;

/// The belief of a repo holding none of the query's terms.
pub const BASE_BELIEF: f64 = 0.4;

/// CORI beliefs of `collections` (repo, statistics of the same analysed query terms), in
/// input order.
pub fn cori<'a>(collections: &[(&'a str, &TermStats)]) -> Vec<(&'a str, f64)> {
    let live: Vec<&(&str, &TermStats)> = collections.iter().filter(|(_, s)| s.docs > 0).collect();
    let c = live.len() as f64;
    let n_terms = collections.iter().map(|(_, s)| s.doc_freqs.len()).max().unwrap_or(0);
    if c == 0.0 || n_terms == 0 {
        return collections.iter().map(|(r, _)| (*r, BASE_BELIEF)).collect();
    }
    let avg_cw = live.iter().map(|(_, s)| s.tokens as f64).sum::<f64>() / c;
    let cf: Vec<f64> = (0..n_terms)
        .map(|t| live.iter().filter(|(_, s)| s.doc_freqs.get(t).copied().unwrap_or(0) > 0).count() as f64)
        .collect();
    collections
        .iter()
        .map(|(repo, s)| {
            let size = if avg_cw > 0.0 { s.tokens as f64 / avg_cw } else { 1.0 };
            let total: f64 = (0..n_terms)
                .map(|t| {
                    let df = s.doc_freqs.get(t).copied().unwrap_or(0) as f64;
                    if df == 0.0 || cf[t] == 0.0 {
                        return BASE_BELIEF;
                    }
                    let tf_part = df / (df + 50.0 + 150.0 * size);
                    let idf_part = ((c + 0.5) / cf[t]).ln() / (c + 1.0).ln();
                    BASE_BELIEF + (1.0 - BASE_BELIEF) * tf_part * idf_part
                })
                .sum();
            (*repo, total / n_terms as f64)
        })
        .collect()
}

/// A belief rescaled to 0..1 (0: no query term in the repo).
pub fn strength(belief: f64) -> f64 {
    ((belief - BASE_BELIEF) / (1.0 - BASE_BELIEF)).clamp(0.0, 1.0)
}

/// How many of a repo's chunks nearest to the query make its semantic strength.
pub const NEAREST_CHUNKS: usize = 5;
/// A mean cosine (all-MiniLM-L6-v2) at or below this says nothing about the repo ...
pub const COSINE_FLOOR: f64 = 0.4;
/// ... and at this the repo holds the query fully.
///
/// Chosen with [`NEAREST_CHUNKS`] on the fit routing querysets (shared, eval/world,
/// eval/world/fit2; `patina bench retrieval --routing graph`, eval world embedded):
/// routing recall is flat for floors 0.3–0.45 at 3–5 chunks and falls at 0.5 (fit2 0.963
/// → 0.838), while waste falls as the floor rises (fit2 2.23 at 0.2, 1.85 at 0.3, 1.00
/// at 0.4); 0.4 sits inside the flat part. The full point hardly matters (0.55–0.7 give
/// the same recall).
pub const COSINE_FULL: f64 = 0.6;

/// The query's nearest chunks in one repo, and how many chunks they were drawn from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nearest {
    /// Cosines to the nearest chunks, best first.
    pub cosines: Vec<f32>,
    /// The repo's chunks the nearest were drawn from (those with a vector), near or not.
    pub chunks: u64,
}

/// The cosine a repo's nearest chunks lose per e-fold of its size above
/// [`REFERENCE_CHUNKS`] (and gain per e-fold below it). The best of many chunks is near
/// almost any query by chance, so without it a big tree (11,610 chunks of
/// documentation) leads by size: on the four fit routing querysets (108 queries) the
/// two big documentation trees (openclaw, gemini-cli) had the nearest chunks of 29
/// queries and held the answer of 13.
/// The expected best of `n` chance cosines grows with `ln n`, hence the logarithm.
/// Chosen with [`REFERENCE_CHUNKS`] on those sets (shared, eval/world, fit2, fit3;
/// `patina bench retrieval --routing graph`, eval world embedded): fit3's routing recall
/// 0.787 → 0.912 at waste 1.65 → 1.35, flat (0.900–0.912) at 0.02 with the reference
/// at 2,000–5,000 chunks (0.86–0.91 at 0.015) and falling beyond (0.838 at 0.02 and
/// 10,000, at most 0.875 at 0.03); the answer repos' rank by content alone, mean
/// reciprocal, 0.81 → 0.86. ARCHITECTURE.md (Measurements) has the sweep.
pub const SIZE_DISCOUNT: f64 = 0.02;
/// The size at which a repo's nearest cosines count as they are.
pub const REFERENCE_CHUNKS: f64 = 3000.0;

/// A repo's strength by meaning (0..1): the mean of the query's cosines to its
/// [`NEAREST_CHUNKS`] nearest chunks (any order; all of them in a repo with fewer
/// chunks), less [`SIZE_DISCOUNT`] per e-fold of the repo's chunks above
/// [`REFERENCE_CHUNKS`] (plus as much per e-fold below), mapped from [`COSINE_FLOOR`]
/// (0) to [`COSINE_FULL`] (1). 0 without a cosine.
pub fn semantic_strength(nearest: &Nearest) -> f64 {
    let mut best: Vec<f64> = nearest.cosines.iter().map(|&c| f64::from(c)).filter(|c| c.is_finite()).collect();
    if best.is_empty() {
        return 0.0;
    }
    best.sort_by(|a, b| b.total_cmp(a));
    best.truncate(NEAREST_CHUNKS);
    let mean = best.iter().sum::<f64>() / best.len() as f64;
    let size = SIZE_DISCOUNT * (nearest.chunks.max(1) as f64 / REFERENCE_CHUNKS).ln();
    ((mean - size - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(docs: u64, tokens: u64, doc_freqs: &[u64]) -> TermStats {
        TermStats { docs, tokens, doc_freqs: doc_freqs.to_vec() }
    }

    #[test]
    fn hand_computed_beliefs() {
        // Two equal-sized repos; term 0 only in `a`, term 1 in both.
        let a = stats(100, 1000, &[50, 10]);
        let b = stats(100, 1000, &[0, 10]);
        let beliefs = cori(&[("a", &a), ("b", &b)]);
        // C = 2, avg_cw = 1000. Term 0 in a: T = 50 / 250 = 0.2, I = ln(2.5) / ln(3).
        let i0 = (2.5f64).ln() / 3f64.ln();
        // Term 1: T = 10 / 210, I = ln(1.25) / ln(3).
        let i1 = (1.25f64).ln() / 3f64.ln();
        let t1 = 0.4 + 0.6 * (10.0 / 210.0) * i1;
        let expect_a = ((0.4 + 0.6 * 0.2 * i0) + t1) / 2.0;
        let expect_b = (0.4 + t1) / 2.0;
        assert!((beliefs[0].1 - expect_a).abs() < 1e-12, "{beliefs:?}");
        assert!((beliefs[1].1 - expect_b).abs() < 1e-12, "{beliefs:?}");
        assert!(beliefs[0].1 > beliefs[1].1);
    }

    #[test]
    fn a_rare_term_beats_size() {
        // `big` holds the common term many times; `small` holds the rare one a few times.
        let big = stats(10_000, 1_000_000, &[5_000, 0]);
        let small = stats(100, 10_000, &[5, 8]);
        let other = stats(500, 50_000, &[200, 0]);
        let b = cori(&[("big", &big), ("small", &small), ("other", &other)]);
        assert!(b[1].1 > b[0].1, "{b:?}");
    }

    #[test]
    fn nothing_matches_means_base_belief() {
        let a = stats(10, 100, &[0, 0]);
        let empty = stats(0, 0, &[0, 0]);
        let b = cori(&[("a", &a), ("empty", &empty)]);
        assert!(b.iter().all(|(_, v)| *v == BASE_BELIEF));
        assert_eq!(strength(BASE_BELIEF), 0.0);
        assert_eq!(cori(&[]), vec![]);
    }

    /// Nearest chunks of a repo of the reference size, where cosines count as they are.
    fn at_reference(cosines: &[f32]) -> f64 {
        semantic_strength(&Nearest { cosines: cosines.to_vec(), chunks: REFERENCE_CHUNKS as u64 })
    }

    #[test]
    fn semantic_strength_is_the_mean_of_the_nearest_chunks() {
        // Mean of the best five: (0.7 + 0.6 + 0.5 + 0.5 + 0.5) / 5 = 0.56 → (0.56 - 0.4) / 0.2.
        let s = at_reference(&[0.5, 0.7, 0.1, 0.5, 0.6, 0.5, 0.2]);
        assert!((s - 0.8).abs() < 1e-6, "{s}");
        // Fewer chunks than five: the mean of those there are; none: nothing.
        assert!((at_reference(&[0.5, 0.45]) - 0.375).abs() < 1e-6);
        assert_eq!(at_reference(&[0.3, 0.2, 0.1]), 0.0);
        assert_eq!(at_reference(&[]), 0.0);
        // Far above the full point, or a broken cosine: clamped, never NaN.
        assert_eq!(at_reference(&[1.0; 5]), 1.0);
        assert_eq!(at_reference(&[f32::NAN, 1.0, 1.0, 1.0, 1.0, 1.0]), 1.0);
    }

    #[test]
    fn the_same_cosines_say_more_in_a_smaller_repo() {
        let cosines = vec![0.5, 0.5, 0.5, 0.5, 0.5];
        let of_size = |chunks| semantic_strength(&Nearest { cosines: cosines.clone(), chunks });
        // e-fold bigger: 0.02 less cosine, 0.1 less strength; e-fold smaller: as much more.
        let e = std::f64::consts::E;
        assert!((of_size((REFERENCE_CHUNKS * e).round() as u64) - 0.4).abs() < 1e-3);
        assert!((of_size((REFERENCE_CHUNKS / e).round() as u64) - 0.6).abs() < 1e-3);
        // A tree of 11,610 documentation chunks against one of 420 with nearer chunks by
        // less than the chance advantage of its size: the small one leads.
        let big = semantic_strength(&Nearest { cosines: vec![0.53; 5], chunks: 11_610 });
        let small = semantic_strength(&Nearest { cosines: vec![0.5; 5], chunks: 420 });
        assert!(small > big, "{small} vs {big}");
        // No chunk count (an empty meta) is taken as one chunk, never a NaN.
        assert!(semantic_strength(&Nearest { cosines: cosines.clone(), chunks: 0 }).is_finite());
    }
}
