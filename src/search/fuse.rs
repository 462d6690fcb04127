//! Reciprocal rank fusion of the lexical and semantic result lists.
//!
//! `fused(d) = Σ_channels 1 / (K + rank_c(d))` with ranks from 1 and `K = 60` (Cormack et
//! al. 2009). Only ranks enter the fused score, so BM25 scores and cosines, which live on
//! different scales, never need calibrating; each hit still carries both raw scores.
//!
//! Invariant: the output is sorted by fused score (descending), ties broken by the
//! better single-channel rank, then by key, so fusing the same lists always gives the
//! same order.

/// The RRF constant.
pub const K: f32 = 60.0;

/// One channel's opinion of a document: 1-based rank and raw score.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChannelScore {
    pub rank: u32,
    pub score: f32,
}

/// A fused document.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused<Key> {
    pub key: Key,
    pub score: f32,
    pub lexical: Option<ChannelScore>,
    pub semantic: Option<ChannelScore>,
}

/// Fuses two ranked lists (best first) of `(key, raw score)`; duplicates within a list
/// keep their first (best) position.
pub fn rrf<Key: Clone + Ord>(lexical: &[(Key, f32)], semantic: &[(Key, f32)]) -> Vec<Fused<Key>> {
    let mut by_key: std::collections::BTreeMap<Key, Fused<Key>> = std::collections::BTreeMap::new();
    for (channel, list) in [(0, lexical), (1, semantic)] {
        let mut rank = 0u32;
        for (key, score) in list {
            let entry = by_key.entry(key.clone()).or_insert_with(|| Fused {
                key: key.clone(),
                score: 0.0,
                lexical: None,
                semantic: None,
            });
            let slot = if channel == 0 { &mut entry.lexical } else { &mut entry.semantic };
            if slot.is_some() {
                continue;
            }
            rank += 1;
            *slot = Some(ChannelScore { rank, score: *score });
            entry.score += 1.0 / (K + rank as f32);
        }
    }
    let mut fused: Vec<Fused<Key>> = by_key.into_values().collect();
    let best_rank =
        |f: &Fused<Key>| f.lexical.map_or(u32::MAX, |c| c.rank).min(f.semantic.map_or(u32::MAX, |c| c.rank));
    fused.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then_with(|| best_rank(a).cmp(&best_rank(b))).then_with(|| a.key.cmp(&b.key))
    });
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_in_both_lists_beats_one_in_one() {
        let fused = rrf(&[("a", 9.0), ("b", 5.0)], &[("b", 0.9), ("c", 0.8)]);
        let keys: Vec<&str> = fused.iter().map(|f| f.key).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        let b = &fused[0];
        assert_eq!(b.lexical, Some(ChannelScore { rank: 2, score: 5.0 }));
        assert_eq!(b.semantic, Some(ChannelScore { rank: 1, score: 0.9 }));
        assert!((b.score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-6);
        assert!(fused[1].semantic.is_none() && fused[2].lexical.is_none());
    }

    #[test]
    fn ties_are_deterministic_and_duplicates_ignored() {
        let fused = rrf(&[("x", 1.0), ("x", 0.5)], &[("y", 0.7)]);
        assert_eq!(fused.len(), 2);
        assert_eq!(fused[0].key, "x", "same score and rank: key order");
        assert_eq!(fused[0].lexical.unwrap().rank, 1);
        assert!(rrf::<u32>(&[], &[]).is_empty());
    }
}
