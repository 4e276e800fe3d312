//! The irgc front end: `.irg` source → tokens → AST → typed IR.
//!
//! The pipeline is visible in the modules: [`syntax`] (lexer, grammar, AST), [`sema`] (name resolution, type
//! checking and lowering to IR, in one walk over the AST), [`ir`] (the arena-based typed IR, its validator and
//! printer). [`diag`] holds diagnostics as data; [`driver`] ties the stages together, loading imported modules.

pub mod artifact;
pub mod diag;
pub mod driver;
pub mod ir;
pub mod outline;
pub mod sema;
pub mod span;
pub mod syntax;

pub use diag::{Diagnostic, Severity, SourceMap};
pub use driver::{compile_file, compile_source, Compilation};
pub use span::{FileId, Span};
