//! The inverted index: word → postings (note, line, count), scored with TF-IDF.

use std::collections::HashMap;

use crate::notes::Note;

/// Where a word occurs.
#[derive(Debug, Clone)]
struct Posting {
    note: usize,
    line: usize,
    count: u32,
}

/// A ranked line.
#[derive(Debug, Clone)]
pub struct Hit {
    pub path: String,
    pub line: usize,
    pub score: f64,
}

/// Maps lower-cased words to their postings.
#[derive(Default)]
pub struct InvertedIndex {
    paths: Vec<String>,
    postings: HashMap<String, Vec<Posting>>,
}

/// Lower-cased alphanumeric words of a line.
pub fn words(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

impl InvertedIndex {
    /// Adds every line of a note's title and body.
    pub fn add(&mut self, note: &Note) {
        let id = self.paths.len();
        self.paths.push(note.path.display().to_string());
        let title = std::iter::once(note.title.as_str());
        for (line_no, line) in title.chain(note.body.lines()).enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            for word in words(line) {
                *counts.entry(word).or_default() += 1;
            }
            for (word, count) in counts {
                self.postings.entry(word).or_default().push(Posting { note: id, line: line_no, count });
            }
        }
    }

    /// The `limit` best lines for a query, scored by TF-IDF summed over query words.
    pub fn find(&self, query: &str, limit: usize) -> Vec<Hit> {
        let n_notes = self.paths.len().max(1) as f64;
        let mut scores: HashMap<(usize, usize), f64> = HashMap::new();
        for word in words(query) {
            let Some(postings) = self.postings.get(&word) else { continue };
            let idf = (n_notes / postings.len() as f64).ln() + 1.0;
            for p in postings {
                *scores.entry((p.note, p.line)).or_default() += f64::from(p.count) * idf;
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|((note, line), score)| Hit { path: self.paths[note].clone(), line, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)));
        hits.truncate(limit);
        hits
    }

    /// Number of notes indexed.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Number of distinct words.
    pub fn vocabulary(&self) -> usize {
        self.postings.len()
    }
}
