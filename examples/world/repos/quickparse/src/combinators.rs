//! The combinators: small parsers and ways to combine them.

use crate::{PResult, ParseError};

/// Matches the exact string `expected`.
pub fn tag<'a>(expected: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |input: &'a str| match input.strip_prefix(expected) {
        Some(rest) => Ok((rest, &input[..expected.len()])),
        None => Err(ParseError::new(input, expected)),
    }
}

/// The longest prefix whose characters all satisfy `pred` (possibly empty).
pub fn take_while<'a>(pred: impl Fn(char) -> bool) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |input: &'a str| {
        let end = input.char_indices().find(|&(_, c)| !pred(c)).map_or(input.len(), |(i, _)| i);
        Ok((&input[end..], &input[..end]))
    }
}

/// One or more ASCII digits.
pub fn digits(input: &str) -> PResult<'_, &str> {
    let (rest, found) = take_while(|c| c.is_ascii_digit())(input)?;
    if found.is_empty() {
        return Err(ParseError::new(input, "a digit"));
    }
    Ok((rest, found))
}

/// Skips spaces, tabs and newlines.
pub fn whitespace(input: &str) -> PResult<'_, &str> {
    take_while(char::is_whitespace)(input)
}

/// A Rust-style identifier: a letter or `_`, then letters, digits or `_`.
pub fn identifier(input: &str) -> PResult<'_, &str> {
    let first = input.chars().next().filter(|c| c.is_alphabetic() || *c == '_');
    if first.is_none() {
        return Err(ParseError::new(input, "an identifier"));
    }
    take_while(|c| c.is_alphanumeric() || c == '_')(input)
}

/// Runs `first` then `second`, returning both values.
pub fn pair<'a, A, B>(
    first: impl Fn(&'a str) -> PResult<'a, A>,
    second: impl Fn(&'a str) -> PResult<'a, B>,
) -> impl Fn(&'a str) -> PResult<'a, (A, B)> {
    move |input| {
        let (rest, a) = first(input)?;
        let (rest, b) = second(rest)?;
        Ok((rest, (a, b)))
    }
}

/// Tries `first`; if it fails, tries `second` on the same input.
pub fn alt<'a, T>(
    first: impl Fn(&'a str) -> PResult<'a, T>,
    second: impl Fn(&'a str) -> PResult<'a, T>,
) -> impl Fn(&'a str) -> PResult<'a, T> {
    move |input| first(input).or_else(|_| second(input))
}

/// Applies `parser` as many times as it succeeds; never fails.
pub fn many0<'a, T>(parser: impl Fn(&'a str) -> PResult<'a, T>) -> impl Fn(&'a str) -> PResult<'a, Vec<T>> {
    move |mut input| {
        let mut out = Vec::new();
        while let Ok((rest, value)) = parser(input) {
            if rest.len() == input.len() {
                break; // no progress: stop instead of looping forever
            }
            out.push(value);
            input = rest;
        }
        Ok((input, out))
    }
}

/// Transforms the value of `parser` with `f`.
pub fn map<'a, A, B>(
    parser: impl Fn(&'a str) -> PResult<'a, A>,
    f: impl Fn(A) -> B,
) -> impl Fn(&'a str) -> PResult<'a, B> {
    move |input| parser(input).map(|(rest, a)| (rest, f(a)))
}

/// `open`, then `inner`, then `close`; keeps the value of `inner`.
pub fn delimited<'a, O, T, C>(
    open: impl Fn(&'a str) -> PResult<'a, O>,
    inner: impl Fn(&'a str) -> PResult<'a, T>,
    close: impl Fn(&'a str) -> PResult<'a, C>,
) -> impl Fn(&'a str) -> PResult<'a, T> {
    move |input| {
        let (rest, _) = open(input)?;
        let (rest, value) = inner(rest)?;
        let (rest, _) = close(rest)?;
        Ok((rest, value))
    }
}
