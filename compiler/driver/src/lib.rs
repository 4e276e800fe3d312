//! The irgc pipeline as library code, so that the `irgc` command line and the Python package run programs through
//! one implementation: source text to an optimized module and its artifact (`compile`), the backends' kernels
//! (`backend`), a run on the CPU or a GPU (`execute`), one rank of a multi-process run (`ranks`), and the graph inputs both
//! read (`graph`).
//!
//! Nothing here prints: errors come back as values (diagnostics as rendered text), and each front end shows them
//! its own way.

pub mod backend;
pub mod compile;
pub mod execute;
pub mod graph;
pub mod ranks;
