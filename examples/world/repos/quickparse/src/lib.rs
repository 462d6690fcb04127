//! quickparse: parser combinators over `&str`.
//!
//! A parser takes the remaining input and returns the rest and a value, or an error
//! saying where it failed.

pub mod combinators;
pub mod symbols;

pub use combinators::{alt, delimited, digits, identifier, many0, map, pair, tag, take_while, whitespace};

/// The result of a parser: the unconsumed input and the value, or an error.
pub type PResult<'a, T> = Result<(&'a str, T), ParseError>;

/// Where and why parsing failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Bytes of input that were left when the failing parser ran.
    pub remaining: usize,
    pub expected: &'static str,
}

impl ParseError {
    pub fn new(input: &str, expected: &'static str) -> ParseError {
        ParseError { remaining: input.len(), expected }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expected {} ({} bytes from the end)", self.expected, self.remaining)
    }
}
