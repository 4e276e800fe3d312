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
///
/// Statements where an item belongs (`let x = 1;` at top level) are reported and set aside before parsing, one
/// diagnostic each (see [`stray_statements`]); the parser sees the rest.
pub fn parse(file: FileId, src: &str) -> (SourceFile, Vec<Diagnostic>) {
    if let Some(d) = limits::check_depth(file, src) {
        return (SourceFile { items: Vec::new() }, vec![d]);
    }
    let tokens: Vec<(usize, Tok<'_>, usize)> = lex(src).filter_map(Result::ok).collect();
    let (keep, stray) = stray_statements(file, &tokens);
    let kept = tokens.iter().zip(&keep).filter(|(_, k)| **k).map(|(t, _)| Ok::<_, LexErrorAt>(*t));
    let mut recovered = Vec::new();
    let result = grammar::SourceFileParser::new().parse(file, &mut recovered, kept);
    let mut diags: Vec<Diagnostic> =
        recovered.into_iter().map(|r: ErrorRecovery<_, _, _>| convert(file, src, r.error)).collect();
    let tree = match result {
        Ok(tree) => tree,
        Err(e) => {
            diags.push(convert(file, src, e));
            SourceFile { items: Vec::new() }
        }
    };
    // The parser's diagnostics are in source order; the stray statements' go in among them.
    for d in stray {
        let at = diags.iter().position(|p| p.primary.0.start > d.primary.0.start).unwrap_or(diags.len());
        diags.insert(at, d);
    }
    // Recovery can report the same place twice (once when it starts, once when it gives up).
    diags.dedup_by(|a, b| a.primary.0 == b.primary.0 && a.message == b.message);
    (tree, diags)
}

/// Finds the statements that stand where an item should start (at top level, after a `;` or a closing `}`, or at
/// the start of the file): a statement keyword, or a name, literal, `(` or unary operator (an expression or
/// assignment, or a misspelt item keyword). Each gets one diagnostic at its first token, and its tokens (up to its
/// `;`, or its last block's `}`) are marked to be left out of the parse. Without this, the parser's recovery would
/// skip everything up to the next item keyword, so that of two stray statements in a row only the first was
/// reported.
///
/// Returns, per token, whether the parser gets it, and the diagnostics.
fn stray_statements(file: FileId, tokens: &[(usize, Tok<'_>, usize)]) -> (Vec<bool>, Vec<Diagnostic>) {
    let mut keep = vec![true; tokens.len()];
    let mut diags = Vec::new();
    let mut depth = 0usize;
    let mut item_start = true;
    let mut i = 0;
    while i < tokens.len() {
        let (l, tok, r) = tokens[i];
        if depth == 0 && item_start && starts_statement(tok) {
            let end = stray_end(tokens, i);
            keep[i..end].iter_mut().for_each(|k| *k = false);
            let mut d = Diagnostic::error(Span::new(file, l, r), format!("unexpected {tok}")).label(ITEM_EXPECTED);
            if !matches!(tok, Tok::Ident(_) | Tok::Int(_) | Tok::Float(_) | Tok::True | Tok::False | Tok::Inf)
                && !matches!(tok, Tok::LParen | Tok::Minus | Tok::Bang | Tok::Tilde)
            {
                d = d.note("statements belong in the body of a `kernel`, `fn` or the `plan`");
            }
            diags.push(d);
            i = end;
            continue;
        }
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            // An unmatched closer is the parser's to report.
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
            _ => {}
        }
        item_start = depth == 0 && matches!(tok, Tok::Semi | Tok::RBrace);
        i += 1;
    }
    (keep, diags)
}

/// Where a stray statement starting at `tokens[start]` ends (exclusive): after its `;` or its last block's `}` at
/// its own level (an `else` or `until` after a block continues it), before an item keyword at its own level, or
/// before a closer it did not open.
fn stray_end(tokens: &[(usize, Tok<'_>, usize)], start: usize) -> usize {
    let mut depth = 0usize;
    for j in start..tokens.len() {
        let tok = tokens[j].1;
        let after_type_colon = j > start && matches!(tokens[j - 1].1, Tok::Colon | Tok::As | Tok::Arrow);
        if j > start && depth == 0 && starts_item(tok) && !after_type_colon {
            return j;
        }
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
                let continued = matches!(tokens.get(j + 1), Some((_, Tok::Else | Tok::Until, _)));
                if depth == 0 && tok == Tok::RBrace && !continued {
                    return j + 1;
                }
            }
            Tok::Semi if depth == 0 => return j + 1,
            _ => {}
        }
    }
    tokens.len()
}

/// Tokens that can start a statement (and no item).
fn starts_statement(tok: Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Let
            | Tok::Var
            | Tok::If
            | Tok::While
            | Tok::Loop
            | Tok::Repeat
            | Tok::For
            | Tok::Forall
            | Tok::Break
            | Tok::Continue
            | Tok::Return
            | Tok::Reduce
            | Tok::Barrier
            | Tok::Wait
            | Tok::Shared
            | Tok::Pipe
            | Tok::Hybrid
            | Tok::Ident(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::True
            | Tok::False
            | Tok::Inf
            | Tok::LParen
            | Tok::Minus
            | Tok::Bang
            | Tok::Tilde
    )
}

/// Tokens that start an item.
fn starts_item(tok: Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::Import
            | Tok::Graph
            | Tok::Param
            | Tok::Const
            | Tok::Node
            | Tok::Edge
            | Tok::Array
            | Tok::Worklist
            | Tok::Output
            | Tok::Kernel
            | Tok::Fn
            | Tok::Plan
            | Tok::Merge
    )
}

/// What the parser says it expected where an item should start (see [`describe_expected`]).
const ITEM_EXPECTED: &str = "expected an item (`graph`, `param`, `node`, `kernel`, `fn`, `plan`, ...)";

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
                ITEM_EXPECTED.trim_start_matches("expected ").to_string()
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
