//! irgc's one data-driven test harness.
//!
//! - **Stages** ([`stages`]): every `.irg` file under `programs/`, `tests/ui/ok`, `tests/ui/err` and
//!   `tests/conformance` goes through the pipeline once, and each stage's text is snapshotted
//!   (`tests/harness/snapshots/STAGE@PATH.snap`, `PATH` with `/` as `__`). The stages are a table
//!   ([`stages::STAGES`]): the AST, the IR, the IR after each optimizer pass, the artifact, the LLVM IR and the
//!   PTX (without its version banner); a file the front end refuses has one stage, its rendered diagnostics.
//! - **File checks** ([`filecheck`]): `.irg` files under `tests/filecheck/` carry `// CHECK:` lines (and
//!   `CHECK-NEXT:`, `CHECK-NOT:`, `CHECK-LLVM:` ...) that must match the code they compile to, as Cranelift's
//!   filetests and LLVM's FileCheck do.
//! - **The architecture doc** matches the crates and modules (`tests/architecture.rs`).
//!
//! Update snapshots with `INSTA_UPDATE=always cargo test -p irgc-filetests`, then review the diff.

pub mod filecheck;
pub mod stages;
