//! Tokens of the `.irg` language, recognised by a logos lexer.
//!
//! The lexer never fails outright: an unrecognised character or an unterminated block comment becomes a
//! [`LexError`] carrying its span, so the parser can report it and keep going.

use logos::Logos;
use std::fmt;

/// What went wrong while lexing; the span comes from the lexer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexError {
    #[default]
    UnexpectedChar,
    UnterminatedComment,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LexError::UnexpectedChar => write!(f, "unexpected character"),
            LexError::UnterminatedComment => write!(f, "unterminated block comment"),
        }
    }
}

/// Skips a block comment, nested ones included; fails if the input ends first.
fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> logos::FilterResult<(), LexError> {
    let rest = lex.remainder().as_bytes();
    let mut depth = 1usize;
    let mut i = 0;
    while i < rest.len() {
        if rest[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                lex.bump(i);
                return logos::FilterResult::Skip;
            }
        } else if rest[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    lex.bump(rest.len());
    logos::FilterResult::Error(LexError::UnterminatedComment)
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok<'s> {
    #[token("/*", block_comment)]
    BlockComment,
    /// Never produced by logos: the lexer adapter turns lexing errors into this token, which no grammar rule
    /// accepts, so the parser's error recovery handles it like any other unexpected token.
    Invalid(LexError),

    // Keywords.
    #[token("import")]
    Import,
    #[token("graph")]
    Graph,
    #[token("param")]
    Param,
    #[token("const")]
    Const,
    #[token("node")]
    Node,
    #[token("edge")]
    Edge,
    #[token("array")]
    Array,
    #[token("worklist")]
    Worklist,
    #[token("output")]
    Output,
    #[token("kernel")]
    Kernel,
    #[token("fn")]
    Fn,
    #[token("plan")]
    Plan,
    #[token("merge")]
    Merge,
    #[token("let")]
    Let,
    #[token("var")]
    Var,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("loop")]
    Loop,
    #[token("repeat")]
    Repeat,
    #[token("until")]
    Until,
    #[token("for")]
    For,
    #[token("forall")]
    Forall,
    #[token("tile")]
    Tile,
    #[token("threads")]
    Threads,
    #[token("in")]
    In,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("reduce")]
    Reduce,
    #[token("barrier")]
    Barrier,
    #[token("wait")]
    Wait,
    #[token("shared")]
    Shared,
    #[token("pipe")]
    Pipe,
    #[token("hybrid")]
    Hybrid,
    #[token("above")]
    Above,
    #[token("auto")]
    Auto,
    #[token("dense")]
    Dense,
    #[token("sparse")]
    Sparse,
    #[token("as")]
    As,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("inf")]
    Inf,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    /// Decimal or hexadecimal integer, `_` separators and an optional type suffix (`7u64`).
    #[regex(r"[0-9][0-9_]*([iu](32|64))?")]
    #[regex(r"0x[0-9a-fA-F][0-9a-fA-F_]*([iu](32|64))?")]
    Int(&'s str),
    /// A number with a fraction or exponent, optional `f32`/`f64` suffix; or an integer with a float suffix.
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?(f32|f64)?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9]+(f32|f64)?")]
    #[regex(r"[0-9][0-9_]*(f32|f64)")]
    Float(&'s str),

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("&=")]
    AmpAssign,
    #[token("|=")]
    PipeAssign,
    #[token("^=")]
    CaretAssign,
    #[token("<<=")]
    ShlAssign,
    #[token(">>=")]
    ShrAssign,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    PipeOp,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Int(s) | Tok::Float(s) => write!(f, "number `{s}`"),
            Tok::Invalid(e) => write!(f, "{e}"),
            other => write!(f, "`{}`", other.text()),
        }
    }
}

impl Tok<'_> {
    /// The source text of a fixed token (keywords and punctuation).
    pub fn text(&self) -> &'static str {
        match self {
            Tok::BlockComment => "/*",
            Tok::Invalid(_) => "invalid token",
            Tok::Import => "import",
            Tok::Graph => "graph",
            Tok::Param => "param",
            Tok::Const => "const",
            Tok::Node => "node",
            Tok::Edge => "edge",
            Tok::Array => "array",
            Tok::Worklist => "worklist",
            Tok::Output => "output",
            Tok::Kernel => "kernel",
            Tok::Fn => "fn",
            Tok::Plan => "plan",
            Tok::Merge => "merge",
            Tok::Let => "let",
            Tok::Var => "var",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::While => "while",
            Tok::Loop => "loop",
            Tok::Repeat => "repeat",
            Tok::Until => "until",
            Tok::For => "for",
            Tok::Forall => "forall",
            Tok::Tile => "tile",
            Tok::Threads => "threads",
            Tok::In => "in",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Reduce => "reduce",
            Tok::Barrier => "barrier",
            Tok::Wait => "wait",
            Tok::Shared => "shared",
            Tok::Pipe => "pipe",
            Tok::Hybrid => "hybrid",
            Tok::Above => "above",
            Tok::Auto => "auto",
            Tok::Dense => "dense",
            Tok::Sparse => "sparse",
            Tok::As => "as",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Inf => "inf",
            Tok::Ident(_) => "identifier",
            Tok::Int(_) => "integer",
            Tok::Float(_) => "float",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Arrow => "->",
            Tok::Assign => "=",
            Tok::PlusAssign => "+=",
            Tok::MinusAssign => "-=",
            Tok::StarAssign => "*=",
            Tok::SlashAssign => "/=",
            Tok::PercentAssign => "%=",
            Tok::AmpAssign => "&=",
            Tok::PipeAssign => "|=",
            Tok::CaretAssign => "^=",
            Tok::ShlAssign => "<<=",
            Tok::ShrAssign => ">>=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Amp => "&",
            Tok::PipeOp => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Bang => "!",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
        }
    }
}
