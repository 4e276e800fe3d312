//! The irgc front end: `.irg` source → tokens → AST → typed IR.
//!
//! The pipeline is visible in the modules: [`syntax`] (lexer, grammar, AST), [`sema`] (name resolution, type
//! checking and lowering to IR, in one walk over the AST), [`ir`] (the arena-based typed IR, its validator and
//! printer). [`diag`] holds diagnostics as data; [`driver`] ties the stages together, loading imported modules.
//! [`analysis`] holds facts about a module that later stages share, and [`abi`] how the IR maps onto the
//! runtime's kernel ABI. The optimizer (`irgc-opt`) transforms the IR next; lowering to the runtime's artifact
//! is the host backend's job (`irgc-backend-host`).

pub mod abi;
pub mod analysis;
pub mod bounds;
pub mod diag;
pub mod driver;
pub mod ir;
pub mod sema;
pub mod span;
pub mod syntax;

pub use diag::{Diagnostic, Severity, SourceMap};
pub use driver::{check_module_source, compile_file, compile_source, looks_like_module, read_source, Compilation};
pub use span::{FileId, Span};
