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

/// The tokens of `src` as lalrpop wants them. Errors are yielded in place; the parser turns them into diagnostics.
pub fn lex(src: &str) -> impl Iterator<Item = Triple<'_>> {
    Tok::lexer(src).spanned().map(|(tok, span)| match tok {
        Ok(tok) => Ok((span.start, tok, span.end)),
        Err(error) => Err(LexErrorAt { error, start: span.start, end: span.end }),
    })
}
