//! The lexical channel: a tantivy (BM25) index of chunks with a code-aware tokenizer.
//!
//! The `code` tokenizer splits text into identifiers, then each identifier into its
//! `snake_case` / `camelCase` / path parts, keeping the whole identifier too:
//! `spawnEntity`, `spawn_entity` and "spawn entity" all produce `spawn` and `entity`.
//! Parts are lower-cased, English stop words dropped and stemmed, so "spawning entities"
//! also meets `spawn_entity`.
//!
//! Invariant: the same analyzer tokenises documents and queries, and queries are built
//! from its tokens as a disjunction of term queries: user text is never parsed as query
//! syntax, so no query string can fail to parse or panic.
//! Invariant: each tantivy document carries the `chunk_id` of its chunk (a fast field)
//! and the `file` it belongs to (the id of the file's first chunk, indexed); the chunk
//! itself lives in the chunk store, not here. A file-level index holds one document per
//! file with the same schema (`chunk_id` = `file` = its first chunk).
//! Invariant: scores from several indexes are comparable when they are computed with one
//! [`CorpusStats`] gathered over all of them (BM25 with combined document counts, token
//! totals and document frequencies: "DFS query then fetch").

use std::path::Path;

use std::collections::HashMap;

use tantivy::collector::TopDocs;
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::{
    Language, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term, doc};

const TOKENIZER: &str = "code";
/// Boosts of a chunk's fields: a match in the item's name counts more than one in its body.
const SYMBOL_BOOST: f32 = 2.0;
const PATH_BOOST: f32 = 0.5;
/// The path's boost when ranking whole files. A file's names are already in its body,
/// and a short path field gets a large BM25 weight per matching word: measured on the
/// eval world's non-held-out querysets (28 queries), name boosts of 0.3–2 and path boosts
/// of 0.5 let files whose path merely holds a query word (`docs/…/sqlite-maintenance.md`)
/// outrank the answer; body plus path at 0.1 did best (ARCHITECTURE.md, "Search").
const FILE_PATH_BOOST: f32 = 0.1;

/// Which fields a query scores, and how much each counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// A chunk: body, item name (boosted), path (damped).
    Chunk,
    /// A whole file: body and a lightly weighted path.
    File,
    /// A whole file for a query written as code: item names count too.
    FileByName,
    /// The body alone (the plain BM25 baseline).
    Body,
}

/// Splits code into identifier parts (see the module docs). Lower-cased, unfiltered.
pub fn code_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_code(text, |_, _, token| out.push(token));
    out
}

/// Calls `emit(start, end, token)` for each identifier part and compound identifier.
fn split_code(text: &str, mut emit: impl FnMut(usize, usize, String)) {
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if !(c.is_alphanumeric() || c == '_') {
            chars.next();
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_alphanumeric() || c == '_' {
                end = i + c.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let word = &text[start..end];
        let parts = identifier_parts(word);
        if parts.len() > 1 {
            let whole = word.trim_matches('_').to_lowercase();
            if whole.chars().count() >= 2 {
                emit(start, end, whole);
            }
        }
        for (from, to) in parts {
            let part = word[from..to].to_lowercase();
            if part.chars().count() >= 2 {
                emit(start + from, start + to, part);
            }
        }
    }
}

/// Byte ranges of the parts of one identifier: split at `_`, at lower→upper changes and
/// before the last capital of an acronym (`HTTPServer` → `HTTP`, `Server`).
fn identifier_parts(word: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = chars[k - 1].1;
            let next = chars.get(k + 1).map(|&(_, n)| n);
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase));
            if boundary {
                parts.push((s, i));
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// The tantivy tokenizer over [`split_code`].
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    tokens: Vec<Token>,
}

pub struct CodeTokenStream<'a> {
    tokens: &'a mut [Token],
    index: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.tokens.clear();
        let tokens = &mut self.tokens;
        split_code(text, |offset_from, offset_to, text| {
            let position = tokens.len();
            tokens.push(Token { offset_from, offset_to, position, text, position_length: 1 });
        });
        CodeTokenStream { tokens: &mut self.tokens, index: usize::MAX }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.index = self.index.wrapping_add(1);
        self.index < self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.index]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index]
    }
}

/// The analyzer used for documents and queries.
pub fn analyzer() -> TextAnalyzer {
    thread_local! {
        static ANALYZER: TextAnalyzer = build_analyzer();
    }
    ANALYZER.with(TextAnalyzer::clone)
}

fn build_analyzer() -> TextAnalyzer {
    let builder = TextAnalyzer::builder(CodeTokenizer::default()).filter(RemoveLongFilter::limit(48));
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder.filter(stop).filter(Stemmer::new(Language::English)).build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
}

/// Whether a query is written as code: it holds an identifier with `_`, a camelCase one
/// that starts lower-case (`spawnEntity`; `HashMap` reads like a product name, `LiveStore`),
/// letters and digits in one word (`many0`, `vec3`), `::`, `.` between words, or call
/// parentheses.
pub fn looks_like_code(query: &str) -> bool {
    query.split_whitespace().any(|word| {
        let w = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        let inner_capital = w.chars().next().is_some_and(char::is_lowercase) && w.chars().any(char::is_uppercase);
        let dotted =
            w.split('.').filter(|p| !p.is_empty()).count() > 1 && !w.chars().all(|c| c.is_ascii_digit() || c == '.');
        let letters_and_digits = w.chars().any(char::is_alphabetic) && w.chars().any(|c| c.is_ascii_digit());
        (w.contains('_') && w.chars().any(char::is_alphanumeric))
            || letters_and_digits
            || inner_capital
            || word.contains("::")
            || word.contains("()")
            || dotted
    })
}

/// The analysed terms of a query, deduplicated, in order of first appearance.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(query);
    let mut terms: Vec<String> = Vec::new();
    while stream.advance() {
        let text = &stream.token().text;
        if !terms.contains(text) {
            terms.push(text.clone());
        }
    }
    terms
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    chunk_id: Field,
    file: Field,
    text: Field,
    symbol: Field,
    path: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let indexed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(TOKENIZER).set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        chunk_id: builder.add_u64_field("chunk_id", FAST),
        file: builder.add_u64_field("file", INDEXED),
        text: builder.add_text_field("text", indexed.clone()),
        symbol: builder.add_text_field("symbol", indexed.clone()),
        path: builder.add_text_field("path", indexed),
    };
    (builder.build(), fields)
}

fn fields_of(schema: &Schema) -> tantivy::Result<Fields> {
    Ok(Fields {
        chunk_id: schema.get_field("chunk_id")?,
        file: schema.get_field("file")?,
        text: schema.get_field("text")?,
        symbol: schema.get_field("symbol")?,
        path: schema.get_field("path")?,
    })
}

/// Writes a new lexical index into an empty directory.
pub struct TextIndexWriter {
    writer: IndexWriter,
    fields: Fields,
}

impl TextIndexWriter {
    pub fn create(dir: &Path) -> tantivy::Result<TextIndexWriter> {
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        index.tokenizers().register(TOKENIZER, analyzer());
        let writer = index.writer_with_num_threads(1, 64_000_000)?;
        Ok(TextIndexWriter { writer, fields })
    }

    /// Adds one document: a chunk (`file`: its file's first chunk id) or a whole file
    /// (`chunk_id` = `file` = the file's first chunk id).
    pub fn add(&mut self, chunk_id: u64, file: u64, path: &str, symbol: &str, text: &str) -> tantivy::Result<()> {
        let f = self.fields;
        self.writer.add_document(
            doc!(f.chunk_id => chunk_id, f.file => file, f.path => path, f.symbol => symbol, f.text => text),
        )?;
        Ok(())
    }

    /// Commits and waits for merges, so the directory is complete when this returns.
    pub fn finish(mut self) -> tantivy::Result<()> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()
    }
}

/// An open lexical index.
pub struct TextIndex {
    reader: IndexReader,
    fields: Fields,
}

impl TextIndex {
    /// A small index in memory (beliefs and observations): `(id, path, symbol, text)`
    /// documents, each its own "file".
    pub fn in_ram<'a>(docs: impl IntoIterator<Item = (u64, &'a str, &'a str, &'a str)>) -> tantivy::Result<TextIndex> {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        index.tokenizers().register(TOKENIZER, analyzer());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
        for (id, path, symbol, text) in docs {
            writer.add_document(
                doc!(fields.chunk_id => id, fields.file => id, fields.path => path, fields.symbol => symbol, fields.text => text),
            )?;
        }
        writer.commit()?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(TextIndex { reader, fields })
    }

    pub fn open(dir: &Path) -> tantivy::Result<TextIndex> {
        let index = Index::open_in_dir(dir)?;
        index.tokenizers().register(TOKENIZER, analyzer());
        let fields = fields_of(&index.schema())?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(TextIndex { reader, fields })
    }

    /// The query of analysed `terms`: a disjunction over the fields `weights` names.
    fn terms_query(&self, terms: &[String], weights: Weights) -> BooleanQuery {
        let f = self.fields;
        let fields: &[(Field, f32)] = match weights {
            Weights::Chunk => &[(f.text, 1.0), (f.symbol, SYMBOL_BOOST), (f.path, PATH_BOOST)],
            Weights::File => &[(f.text, 1.0), (f.path, FILE_PATH_BOOST)],
            Weights::FileByName => &[(f.text, 1.0), (f.symbol, 1.0), (f.path, FILE_PATH_BOOST)],
            Weights::Body => &[(f.text, 1.0)],
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in terms {
            for &(field, boost) in fields {
                let query = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(query), boost))));
            }
        }
        BooleanQuery::new(clauses)
    }

    /// BM25 top `limit` documents for the analysed `terms`: `(chunk_id, score)`, best
    /// first, scored with this index's own statistics.
    pub fn search(&self, terms: &[String], limit: usize) -> tantivy::Result<Vec<(u64, f32)>> {
        let searcher = self.reader.searcher();
        self.search_scored(terms, limit, &searcher, Weights::Chunk)
    }

    /// Like [`TextIndex::search`], scored with `stats` (gathered over several indexes, so
    /// that the scores compare across them).
    pub fn search_with_stats(
        &self,
        terms: &[String],
        limit: usize,
        stats: &CorpusStats,
        weights: Weights,
    ) -> tantivy::Result<Vec<(u64, f32)>> {
        self.search_scored(terms, limit, stats, weights)
    }

    fn search_scored(
        &self,
        terms: &[String],
        limit: usize,
        stats: &dyn Bm25StatisticsProvider,
        weights: Weights,
    ) -> tantivy::Result<Vec<(u64, f32)>> {
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let query = self.terms_query(terms, weights);
        let searcher = self.reader.searcher();
        let top =
            searcher.search_with_statistics_provider(&query, &TopDocs::with_limit(limit).order_by_score(), stats)?;
        self.chunk_ids(&searcher, top)
    }

    /// BM25 scores of the chunks of one file (`file`: its first chunk id) that hold any of
    /// the `terms`, scored with `stats`: `(chunk_id, score)`, best first.
    pub fn file_chunks(
        &self,
        terms: &[String],
        file: u64,
        limit: usize,
        stats: &CorpusStats,
    ) -> tantivy::Result<Vec<(u64, f32)>> {
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let only_file = TermQuery::new(Term::from_field_u64(self.fields.file, file), IndexRecordOption::Basic);
        let query = BooleanQuery::new(vec![
            (Occur::Must, Box::new(ConstScoreQuery::new(Box::new(only_file), 0.0)) as Box<dyn Query>),
            (Occur::Must, Box::new(self.terms_query(terms, Weights::Chunk))),
        ]);
        let searcher = self.reader.searcher();
        let top =
            searcher.search_with_statistics_provider(&query, &TopDocs::with_limit(limit).order_by_score(), stats)?;
        self.chunk_ids(&searcher, top)
    }

    fn chunk_ids(
        &self,
        searcher: &tantivy::Searcher,
        top: Vec<(f32, tantivy::DocAddress)>,
    ) -> tantivy::Result<Vec<(u64, f32)>> {
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let column = searcher.segment_reader(address.segment_ord).fast_fields().u64("chunk_id")?;
            if let Some(chunk_id) = column.first(address.doc_id) {
                hits.push((chunk_id, score));
            }
        }
        Ok(hits)
    }

    /// Adds this index's statistics for the analysed `terms` (every field a query
    /// touches) to `stats`.
    pub fn add_stats(&self, terms: &[String], stats: &mut CorpusStats) -> tantivy::Result<()> {
        let searcher = self.reader.searcher();
        stats.docs += searcher.num_docs();
        let f = self.fields;
        stats.body = Some(f.text);
        for field in [f.text, f.symbol, f.path] {
            let mut tokens = 0u64;
            for segment in searcher.segment_readers() {
                tokens += segment.inverted_index(field)?.total_num_tokens();
            }
            *stats.tokens.entry(field).or_default() += tokens;
            for term in terms {
                let term = Term::from_field_text(field, term);
                let df = searcher.doc_freq(&term)?;
                *stats.doc_freqs.entry(term).or_default() += df;
            }
        }
        Ok(())
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Collection statistics of the analysed `terms` in the body field: how many chunks
    /// hold each term, and the index's size. What resource selection ([`super::select`])
    /// compares across repos; no document is scored.
    pub fn term_stats(&self, terms: &[String]) -> tantivy::Result<TermStats> {
        let searcher = self.reader.searcher();
        let field = self.fields.text;
        let mut tokens = 0u64;
        for segment in searcher.segment_readers() {
            tokens += segment.inverted_index(field)?.total_num_tokens();
        }
        let mut doc_freqs = Vec::with_capacity(terms.len());
        for term in terms {
            doc_freqs.push(searcher.doc_freq(&Term::from_field_text(field, term))?);
        }
        Ok(TermStats { docs: searcher.num_docs(), tokens, doc_freqs })
    }
}

/// BM25 statistics of several indexes together (see the module docs): the sum of their
/// document counts, token totals per field and document frequencies of the query's terms.
/// A term it has not seen counts as in no document.
#[derive(Debug, Clone, Default)]
pub struct CorpusStats {
    pub docs: u64,
    tokens: HashMap<Field, u64>,
    doc_freqs: HashMap<Term, u64>,
    /// The body field (set by [`TextIndex::add_stats`]).
    body: Option<Field>,
}

impl CorpusStats {
    /// The BM25 score of a body of average length holding each of `terms` once: the sum
    /// of their idfs (a term no document holds counts as held by none: the highest idf).
    /// A yardstick for how much of the query a document matches: one holding one common
    /// word of the query scores a small share of it.
    pub fn ideal_body_score(&self, terms: &[String]) -> f32 {
        let Some(field) = self.body else { return 0.0 };
        let n = self.docs as f32;
        terms
            .iter()
            .map(|t| {
                let df = self.doc_freqs.get(&Term::from_field_text(field, t)).copied().unwrap_or(0) as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .sum()
    }
}

impl Bm25StatisticsProvider for CorpusStats {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        Ok(self.tokens.get(&field).copied().unwrap_or(0))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self.doc_freqs.get(term).copied().unwrap_or(0))
    }
}

/// How often query terms occur in one index (see [`TextIndex::term_stats`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TermStats {
    /// Chunks in the index.
    pub docs: u64,
    /// Tokens in the body field of all chunks.
    pub tokens: u64,
    /// Per query term (in order): chunks holding it.
    pub doc_freqs: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_parts_and_keep_the_whole() {
        assert_eq!(code_tokens("spawn_entity"), ["spawn_entity", "spawn", "entity"]);
        assert_eq!(code_tokens("spawnEntity"), ["spawnentity", "spawn", "entity"]);
        assert_eq!(code_tokens("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(code_tokens("src/world.rs"), ["src", "world", "rs"]);
        assert_eq!(code_tokens("a + b_"), Vec::<String>::new());
        assert_eq!(code_tokens("Vec3 __init__"), ["vec3", "init"]);
        assert_eq!(code_tokens("größe_über"), ["größe_über", "größe", "über"]);
    }

    #[test]
    fn code_queries_are_told_from_prose() {
        for code in
            ["spawn_entity", "HashMap::new", "spawnEntity", "many0()", "many0", "self.world", "use SDL_CreateWindow"]
        {
            assert!(looks_like_code(code), "{code}");
        }
        for prose in
            ["spawn an entity", "How does SDL open a window?", "version 2.26.6", "USearch and LiveStore", "tokenizer"]
        {
            assert!(!looks_like_code(prose), "{prose}");
        }
    }

    #[test]
    fn query_and_identifier_meet_after_analysis() {
        let from_code = query_terms("fn spawn_entity(&mut self)");
        for term in query_terms("spawning entities") {
            assert!(from_code.contains(&term), "{term} not in {from_code:?}");
        }
        assert!(query_terms("the of and").is_empty(), "stop words are dropped");
    }

    #[test]
    fn bm25_finds_the_chunk_by_split_identifier() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = TextIndexWriter::create(dir.path()).unwrap();
        writer.add(7, 7, "src/world.rs", "spawn_entity", "pub fn spawn_entity(&mut self) -> Entity {}").unwrap();
        writer.add(9, 9, "src/query.rs", "iter", "pub fn iter(&self) -> QueryIter {}").unwrap();
        writer.finish().unwrap();
        let index = TextIndex::open(dir.path()).unwrap();
        assert_eq!(index.num_docs(), 2);
        let hits = index.search(&query_terms("spawn entity"), 10).unwrap();
        assert_eq!(hits.first().map(|h| h.0), Some(7));
        assert_eq!(hits.len(), 1);
        let hits = index.search(&query_terms("QueryIter"), 10).unwrap();
        assert_eq!(hits.first().map(|h| h.0), Some(9));
        assert!(index.search(&query_terms("!!! ((("), 10).unwrap().is_empty());
    }
}
