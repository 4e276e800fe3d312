//! The artifact's data types: what a compiled program declares (params, arrays, worklists, outputs) and its
//! kernels' signatures, spaces and worklist effects.

use crate::plan::{HostExpr, Plan};
use irgc_scalar::{ReduceOp, Scalar, Value};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    pub name: String,
    /// Whether the program has a graph, and its weight type.
    pub graph: Option<GraphDesc>,
    /// Whether any kernel reads `G.src(e)`: the runtime then provides slot 3.
    pub needs_sources: bool,
    pub params: Vec<ParamDesc>,
    pub globals: Vec<GlobalDesc>,
    pub worklists: Vec<WorklistDesc>,
    pub kernels: Vec<KernelDesc>,
    /// The pipes a GPU may run as one persistent kernel each (iteration outlining), indexed by
    /// [`HostStmt::Pipe::outlined`]. A backend without such entries (the CPU) runs them round by round.
    #[serde(default)]
    pub pipes: Vec<PipeDesc>,
    pub plan: Plan,
    pub outputs: Vec<OutputDesc>,
    /// How two devices' results combine in a multi-device run (`merge from -> into { ... }`), if the program
    /// says: the partner's global `from` is copied into this device's global `into`, then `body` (plan code over
    /// the plan's locals) runs here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeDesc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergeDesc {
    pub from: usize,
    pub into: usize,
    pub body: Vec<crate::plan::HostStmt>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphDesc {
    pub weight: Option<Scalar>,
    /// Bits of `weight`'s type given to every edge of a graph without weights (`graph G(weight: T = D)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_weight: Option<u64>,
    /// The program needs a symmetric graph (`graph G(undirected)`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undirected: bool,
    /// The program needs a simple graph, without self loops or duplicate edges (`graph G(simple)`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub simple: bool,
    /// The program wants its nodes numbered by decreasing degree where degrees are skewed (`graph
    /// G(degree_ordered)`); node outputs are given back per input node.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub degree_ordered: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamDesc {
    pub name: String,
    pub ty: Scalar,
    pub default: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    Node,
    Edge,
    /// Dimensions, evaluated on the host before the plan runs.
    Dense(Vec<HostExpr>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlobalDesc {
    pub name: String,
    pub elem: Scalar,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorklistDesc {
    pub name: String,
    pub elem: Scalar,
}

/// A kernel's parallel space, linearised to `0..size`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Space {
    /// Iteration i is node i; size `num_nodes`.
    Nodes,
    /// Iteration i is edge i; size `num_edges`.
    Edges,
    /// Iteration i is the worklist's `in_items[i]`; size `in_count`.
    Worklist(usize),
    /// A 1-D or 2-D range whose bounds the kernel computes from its arguments; the backend provides the size.
    Range { dims: usize },
    /// One iteration per tile of a `forall tile`; `threads` is the block shape.
    Tiles { dims: usize, threads: Vec<u32> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelDesc {
    pub name: String,
    pub params: Vec<Scalar>,
    pub reduction: Option<(ReduceOp, Scalar)>,
    pub space: Space,
    /// Worklists the kernel pushes to: after a launch, each one's contents become what was pushed.
    pub pushes: Vec<usize>,
    /// The worklist the kernel retries into, if any: the runtime relaunches it over the retried items.
    pub retries: Option<usize>,
    /// For `Range` and `Tiles` spaces, each dimension's `(start, end)`, as host expressions over the launch
    /// arguments (`Local(i)` is argument `i`), params and graph sizes: the host computes the launch size from them
    /// without a device round trip. Empty for the other spaces.
    #[serde(default)]
    pub bounds: Vec<(HostExpr, HostExpr)>,
    /// The sweep holds `block`-scheduled nested loops: on a skewed graph the GPU kernel deals a round no larger
    /// than its grid out block by block, so the runtime gives such a round a block per item (up to its usual cap)
    /// and a few heavy items each get a whole block.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deals: bool,
    /// The sweep is asynchronous (`wait;`): an item may end unfinished and run again in the same launch. The
    /// runtime gives the launch per-item flags ([`crate::Layout::wait_flags`], zero at its start and cleared
    /// after it), and the GPU runs it on a grid whose threads are all resident at once (each thread runs its
    /// items again until none waits, so one that never started would stall the others).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waits: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CheckDesc {
    Bfs {
        source: HostExpr,
    },
    Sssp {
        source: HostExpr,
    },
    Components,
    Coloring,
    Matching,
    Communities,
    Apsp,
    /// PageRank scores from `damping` (`f64`), stopped at an L1 change below `tolerance` (`f64`).
    PageRank {
        damping: HostExpr,
        tolerance: HostExpr,
    },
    /// Triangles per node.
    Triangles,
    /// Betweenness-centrality dependencies of `source`.
    Bc {
        source: HostExpr,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputDesc {
    pub global: usize,
    pub check: Option<CheckDesc>,
}

/// A `pipe` or loop outlined into one persistent GPU kernel (IrGL's iteration outlining).
///
/// Its body only launches kernels (top-level `forall`, no `retry`; a pipe's push to no worklist but the pipe's,
/// a loop's to none), assigns host locals from arithmetic on locals, params and graph sizes, and (a loop) leaves
/// with `if cond { break }`. So the device can run the whole loop: every thread keeps the host locals in
/// registers (all compute the same values), each kernel launch becomes a grid-stride pass over its space, a grid
/// barrier separates the passes, and a reduction's result is read by every thread after the barrier. See
/// [`PipeState`] for the entry's ABI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipeDesc {
    /// The entry's name (`irgc_pipe_<index>`).
    pub entry: String,
    /// The worklist the pipe drains; `None` for an outlined loop.
    pub worklist: Option<usize>,
    /// The most kernel launches one round makes: the runtime bounds the rounds it lets the entry run by it.
    pub launches_per_round: u64,
    /// Launches of reducing kernels per round: each has three words of the state area.
    #[serde(default)]
    pub reductions: usize,
    /// The `hybrid` statements in a round: each has two bits and a word in the per-round records
    /// ([`PipeState::record_words`](crate::PipeState::record_words)).
    #[serde(default)]
    pub hybrids: usize,
}
