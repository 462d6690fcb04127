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
//! Invariant: each tantivy document carries the `chunk_id` of its chunk (a fast field);
//! the chunk itself lives in the chunk store, not here.

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::{
    Language, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term, doc};

const TOKENIZER: &str = "code";
/// Boosts: a match in the item's name counts more than one in its body.
const SYMBOL_BOOST: f32 = 2.0;
const PATH_BOOST: f32 = 0.5;

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
    let builder = TextAnalyzer::builder(CodeTokenizer::default()).filter(RemoveLongFilter::limit(48));
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder.filter(stop).filter(Stemmer::new(Language::English)).build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
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
        text: builder.add_text_field("text", indexed.clone()),
        symbol: builder.add_text_field("symbol", indexed.clone()),
        path: builder.add_text_field("path", indexed),
    };
    (builder.build(), fields)
}

fn fields_of(schema: &Schema) -> tantivy::Result<Fields> {
    Ok(Fields {
        chunk_id: schema.get_field("chunk_id")?,
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

    pub fn add(&mut self, chunk_id: u64, path: &str, symbol: &str, text: &str) -> tantivy::Result<()> {
        let f = self.fields;
        self.writer.add_document(doc!(f.chunk_id => chunk_id, f.path => path, f.symbol => symbol, f.text => text))?;
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
    pub fn open(dir: &Path) -> tantivy::Result<TextIndex> {
        let index = Index::open_in_dir(dir)?;
        index.tokenizers().register(TOKENIZER, analyzer());
        let fields = fields_of(&index.schema())?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(TextIndex { reader, fields })
    }

    /// BM25 top `limit` chunks for the analysed `terms`: `(chunk_id, score)`, best first.
    pub fn search(&self, terms: &[String], limit: usize) -> tantivy::Result<Vec<(u64, f32)>> {
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in terms {
            for (field, boost) in [(f.text, 1.0), (f.symbol, SYMBOL_BOOST), (f.path, PATH_BOOST)] {
                let query = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(query), boost))));
            }
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let column = searcher.segment_reader(address.segment_ord).fast_fields().u64("chunk_id")?;
            if let Some(chunk_id) = column.first(address.doc_id) {
                hits.push((chunk_id, score));
            }
        }
        Ok(hits)
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
        writer.add(7, "src/world.rs", "spawn_entity", "pub fn spawn_entity(&mut self) -> Entity {}").unwrap();
        writer.add(9, "src/query.rs", "iter", "pub fn iter(&self) -> QueryIter {}").unwrap();
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
