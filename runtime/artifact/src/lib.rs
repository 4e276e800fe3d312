//! The artifact: everything the runtime needs to run a compiled program, and nothing of the compiler.
//!
//! The compiler lowers a program's IR into an [`Artifact`] (see `irgc_backend_host`); a backend adds the kernel
//! code (native functions from Cranelift, or PTX). The runtime allocates the arrays and worklists the artifact
//! describes, interprets its [`plan`](Artifact::plan) on the host, and launches kernels through the
//! [`KernelContext`] slot layout below. The artifact is plain data (serde), so it can be written beside a PTX file.
//!
//!
//! The crate is split by job: [`program`] holds the artifact's data types (what a program declares and its kernels'
//! signatures), [`plan`] the host plan as data, [`abi`] the kernel ABI (the context's slot layout, worklist slots,
//! the outlined pipes' state area). The scalar types, operators and their semantics (`random`, reductions) are
//! `irgc-scalar`'s, re-exported here.

pub mod abi;
pub mod auto;
pub mod plan;
pub mod program;

pub use abi::{flat_entry, rolled_entry, skewed, BoundsReport, Layout, PipeState, Skew, WorklistSlot};
pub use auto::AutoHybrid;
pub use irgc_scalar::{random, reduce_combine, reduce_identity, BinaryOp, MathFn, ReduceOp, Scalar, UnaryOp, Value};
pub use plan::{HostExpr, HostExprKind, HostStmt, Plan};
pub use program::{
    Artifact, CheckDesc, GlobalDesc, GraphDesc, KernelDesc, MergeDesc, OutputDesc, ParamDesc, PipeDesc, Shape, Space,
    WorklistDesc,
};
