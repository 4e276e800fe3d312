//! Adapts the logos token stream to the `(start, token, end)` triples lalrpop expects.

use crate::syntax::token::{LexError, Tok};
use logos::Logos;

/// A lexing error and the byte range it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct LexErrorAt {
    pub error: LexError,
    pub start: usize,
    pub end: usize,
}

pub type Triple<'s> = Result<(usize, Tok<'s>, usize), LexErrorAt>;

/// The tokens of `src` as lalrpop wants them. A lexing error becomes a [`Tok::Invalid`] token in place, so the
/// parser recovers from it and keeps reporting later errors.
pub fn lex(src: &str) -> impl Iterator<Item = Triple<'_>> {
    Tok::lexer(src).spanned().map(|(tok, span)| match tok {
        Ok(tok) => Ok((span.start, tok, span.end)),
        Err(error) => Ok((span.start, Tok::Invalid(error), span.end)),
    })
}
