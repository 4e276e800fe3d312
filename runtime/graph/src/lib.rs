//! Graphs for irgc.
//!
//! Every loader, generator and reference works on one representation, [`Csr`]: compressed sparse rows with 32-bit
//! node ids and 64-bit edge offsets (so graphs with more than 2^32 edges are representable), optional per-edge
//! weights, and the node ids as written in the input file (kept so results can be written back in the user's ids).
//! Graphs are assembled from an [`EdgeList`] through [`EdgeList::into_csr`], which applies the [`BuildOptions`]
//! (symmetrize, drop self loops, dedupe) the same way for every input.

mod csr;

pub use csr::{BuildOptions, Csr, EdgeList, NodeLabels, Weights};
