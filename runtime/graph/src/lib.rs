//! Graphs for irgc.
//!
//! Every loader, generator and reference works on one representation, [`Csr`]: compressed sparse rows with 32-bit
//! node ids and 64-bit edge offsets (so graphs with more than 2^32 edges are representable), optional per-edge
//! weights, and the node ids as written in the input file (kept so results can be written back in the user's ids).
//! Graphs are assembled from an [`EdgeList`] through [`EdgeList::into_csr`], which applies the [`BuildOptions`]
//! (symmetrize, drop self loops, dedupe) the same way for every input.
//!
//! Files are read by [`load_graph`] (every format in [`Format`], compressed with xz, gzip or bzip2 or not), written
//! by [`write_graph`], and kept as a binary CSR cache by [`load_graph_cached`] so large text inputs are parsed once.
//! [`GraphStats`] describes a loaded graph (`irgc info`).

pub mod cache;
mod csr;
mod error;
pub mod load;
pub mod memory;
pub mod partition;
mod renumber;
mod rows;
mod shared;
mod simple;
pub mod stats;
mod symmetry;
pub mod write;

pub use cache::{load_cache, load_graph_cached, save_cache, CacheOutcome};
pub use csr::{BuildOptions, Csr, EdgeList, NodeLabels, Weights};
pub use error::{LoadError, WriteError};
pub use load::{detect_format, load_edge_list, load_graph, Column, Columns, Format, LoadOptions, WeightSpec};
pub use partition::Partition;
pub use renumber::Renumbered;
pub use shared::Shared;
pub use stats::GraphStats;
pub use write::write_graph;
