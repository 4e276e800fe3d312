//! Parsing: source text to [`SourceFile`] plus diagnostics. The parser recovers from errors, so one call reports
//! every syntax error in the file and still returns a (partial) tree.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use crate::syntax::ast::SourceFile;
use crate::syntax::lexer::{lex, LexErrorAt};
use crate::syntax::limits;
use crate::syntax::token::Tok;
use lalrpop_util::{lalrpop_mod, ErrorRecovery, ParseError};

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar,
    "/syntax/grammar.rs"
);

/// Parses one file. The tree is always returned; it contains `Error` nodes where recovery happened.
///
/// A program nested more deeply than [`limits::MAX_DEPTH`] is refused before parsing (its tree would overflow the
/// stack of the recursive stages after the parser): the result is then an empty tree and that one diagnostic.
pub fn parse(file: FileId, src: &str) -> (SourceFile, Vec<Diagnostic>) {
    if let Some(d) = limits::check_depth(file, src) {
        return (SourceFile { items: Vec::new() }, vec![d]);
    }
    let mut recovered = Vec::new();
    let result = grammar::SourceFileParser::new().parse(file, &mut recovered, lex(src));
    let mut diags: Vec<Diagnostic> =
        recovered.into_iter().map(|r: ErrorRecovery<_, _, _>| convert(file, src, r.error)).collect();
    let tree = match result {
        Ok(tree) => tree,
        Err(e) => {
            diags.push(convert(file, src, e));
            SourceFile { items: Vec::new() }
        }
    };
    // Recovery can report the same place twice (once when it starts, once when it gives up).
    diags.dedup_by(|a, b| a.primary.0 == b.primary.0 && a.message == b.message);
    (tree, diags)
}

fn convert(file: FileId, src: &str, e: ParseError<usize, Tok<'_>, LexErrorAt>) -> Diagnostic {
    match e {
        ParseError::InvalidToken { location } => {
            Diagnostic::error(Span::new(file, location, location + 1), "invalid token").label("not valid here")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(src.len());
            Diagnostic::error(Span::new(file, at, at), "unexpected end of file")
                .label(format!("expected {}", describe_expected(&expected)))
                .note("is a closing `}` or a `;` missing?")
        }
        ParseError::UnrecognizedToken { token: (l, Tok::Invalid(error), r), .. } => {
            Diagnostic::error(Span::new(file, l, r.max(l + 1).min(src.len().max(l))), error.to_string()).label(
                match error {
                    crate::syntax::token::LexError::UnterminatedComment => "this comment is never closed",
                    _ => "not part of the language",
                },
            )
        }
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => {
            Diagnostic::error(Span::new(file, l, r), format!("unexpected {tok}"))
                .label(format!("expected {}", describe_expected(&expected)))
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::error(Span::new(file, l, r), format!("unexpected {tok} after the end of the program"))
        }
        ParseError::User { error } => {
            let end = if error.end > error.start { error.end } else { error.start + 1 };
            Diagnostic::error(
                Span::new(file, error.start, end.min(src.len().max(error.start))),
                error.error.to_string(),
            )
            .label(match error.error {
                crate::syntax::token::LexError::UnterminatedComment => "this comment is never closed",
                _ => "not part of the language",
            })
        }
    }
}

/// Turns lalrpop's list of expected terminals into words, keeping it short: long lists are summarised.
fn describe_expected(expected: &[String]) -> String {
    let names: Vec<String> = expected.iter().map(|t| pretty_terminal(t)).collect();
    match names.len() {
        0 => "something else".to_string(),
        1 => names[0].clone(),
        2..=6 => {
            let (last, rest) = names.split_last().unwrap();
            format!("one of {}, or {last}", rest.join(", "))
        }
        _ => {
            if names.iter().any(|n| n == "`let`") {
                "a statement or `}`".to_string()
            } else if names.iter().any(|n| n == "an identifier") && names.iter().any(|n| n == "a number") {
                "an expression".to_string()
            } else if names.iter().any(|n| n == "`kernel`") {
                "an item (`graph`, `param`, `node`, `kernel`, `fn`, `plan`, ...)".to_string()
            } else {
                format!("one of {}, ...", names[..5].join(", "))
            }
        }
    }
}

fn pretty_terminal(t: &str) -> String {
    match t {
        "Ident" => "an identifier".to_string(),
        "Int" | "Float" => "a number".to_string(),
        quoted => format!("`{}`", quoted.trim_matches('"')),
    }
}
