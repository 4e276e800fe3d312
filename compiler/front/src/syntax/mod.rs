//! Source text to syntax tree: tokens ([`token`]), the lexer adapter ([`lexer`]), the grammar and its driver
//! ([`parse`]), and the tree itself ([`ast`]). [`limits`] bounds how deep the tree may be, before it is built.

pub mod ast;
pub mod lexer;
pub mod limits;
pub mod parse;
pub mod print;
pub mod token;

pub use parse::parse;
