//! Fusion of the lexical and semantic result lists into one ranked list.
//!
//! Each channel's scores are divided by a scale, so both lie in about 0..1 (BM25's
//! theoretical minimum is 0; a cosine below 0 counts as 0), and the fused score is their
//! convex combination:
//! `fused(d) = α · bm25(d) / scale_l + (1 − α) · cos(d) / scale_s`, with `α` = [`ALPHA`]
//! when both channels ran and the single channel's share otherwise. A document a channel
//! did not return scores 0 there. A scale is the channel's best score in the list, or the
//! given floor if that is higher: for BM25 the score of a document holding every query
//! term once ([`super::text::CorpusStats::ideal_body_score`]), so that when nothing
//! matches more than one common word of the query, that match stays a small share
//! instead of becoming 1. This is the "TM2C2" fusion that Bruch, Gai & Ingber
//! ("An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023) found to beat
//! reciprocal rank fusion: unlike ranks, scores keep their magnitudes, so a strong match
//! stays ahead of a weak one even when each is the best of its own list, and a prior that
//! multiplies the fused score means what it says.
//!
//! Invariant: the output is sorted by fused score (descending), ties broken by the
//! better single-channel rank, then by key, so fusing the same lists always gives the
//! same order. Every fused document carries both raw scores and ranks.

/// The lexical channel's weight when both channels ran.
pub const ALPHA: f32 = 0.5;

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

impl<Key> Fused<Key> {
    /// The better of the two channel ranks.
    pub fn best_rank(&self) -> u32 {
        self.lexical.map_or(u32::MAX, |c| c.rank).min(self.semantic.map_or(u32::MAX, |c| c.rank))
    }
}

/// Fuses two ranked lists (best first) of `(key, raw score)`; duplicates within a list
/// keep their first (best) position. Either list may be empty (that channel did not run).
pub fn fuse<Key: Clone + Ord>(lexical: &[(Key, f32)], semantic: &[(Key, f32)], lexical_floor: f32) -> Vec<Fused<Key>> {
    let alpha = match (lexical.is_empty(), semantic.is_empty()) {
        (false, false) => ALPHA,
        (false, true) => 1.0,
        (true, _) => 0.0,
    };
    let mut by_key: std::collections::BTreeMap<Key, Fused<Key>> = std::collections::BTreeMap::new();
    for (channel, list, weight, floor) in [(0, lexical, alpha, lexical_floor), (1, semantic, 1.0 - alpha, 0.0)] {
        let max = list.iter().map(|(_, s)| *s).fold(floor.max(0.0), f32::max);
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
            if max > 0.0 {
                entry.score += weight * (score.max(0.0) / max);
            }
        }
    }
    let mut fused: Vec<Fused<Key>> = by_key.into_values().collect();
    fused.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then_with(|| a.best_rank().cmp(&b.best_rank())).then_with(|| a.key.cmp(&b.key))
    });
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_keep_their_magnitudes() {
        let fused = fuse(&[("a", 10.0), ("b", 5.0)], &[("b", 0.8), ("c", 0.4)], 0.0);
        let keys: Vec<&str> = fused.iter().map(|f| f.key).collect();
        // b: 0.5·0.5 + 0.5·1 = 0.75; a: 0.5; c: 0.5·0.5 = 0.25.
        assert_eq!(keys, ["b", "a", "c"]);
        assert!((fused[0].score - 0.75).abs() < 1e-6 && (fused[1].score - 0.5).abs() < 1e-6);
        assert_eq!(fused[0].lexical, Some(ChannelScore { rank: 2, score: 5.0 }));
        assert_eq!(fused[0].semantic, Some(ChannelScore { rank: 1, score: 0.8 }));
        assert!(fused[1].semantic.is_none() && fused[2].lexical.is_none());
        // A weak second best stays far below the best, whatever its rank.
        let fused = fuse(&[("strong", 14.0), ("weak", 2.0)], &[], 0.0);
        assert!((fused[0].score - 1.0).abs() < 1e-6 && fused[1].score < 0.15, "{fused:?}");
        // The floor: a best match far below a full match of the query stays small.
        let fused = fuse(&[("one-word", 2.0)], &[("other", 0.4)], 8.0);
        // other: 0.5 · 0.4 / 0.4 = 0.5; one-word: 0.5 · 2 / 8 = 0.125.
        assert_eq!(fused[0].key, "other");
        assert!((fused[0].score - 0.5).abs() < 1e-6 && (fused[1].score - 0.125).abs() < 1e-6, "{fused:?}");
    }

    #[test]
    fn one_channel_alone_and_ties() {
        let fused = fuse(&[], &[("y", 0.5), ("z", -0.2)], 0.0);
        assert_eq!((fused[0].key, fused[0].score), ("y", 1.0));
        assert_eq!(fused[1].score, 0.0, "a negative cosine counts as 0");
        let fused = fuse(&[("x", 1.0), ("x", 0.5), ("w", 1.0)], &[], 0.0);
        assert_eq!(fused.len(), 2);
        assert_eq!(fused[0].key, "x", "same score: the better rank first");
        assert!(fuse::<u32>(&[], &[], 1.0).is_empty());
    }
}
