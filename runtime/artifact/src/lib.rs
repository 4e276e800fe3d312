//! The artifact: everything the runtime needs to run a compiled program, and nothing of the compiler.
//!
//! The compiler lowers a program's IR into an [`Artifact`] (see `irgc_backend_host`); a backend adds the kernel
//! code (native functions from Cranelift, or PTX). The runtime allocates the arrays and worklists the artifact
//! describes, interprets its [`plan`](Artifact::plan) on the host, and launches kernels through the
//! [`KernelContext`] slot layout below. The artifact is plain data (serde), so it can be written beside a PTX file.
//!
//! # Kernel ABI
//! Every kernel is entered with a pointer to a table of `u64` slots (the context), and processes the iterations
//! `lo..hi` of its parallel space, linearised (see [`Space`]). The slot layout ([`Layout`]) is:
//!
//! | slots | meaning |
//! |---|---|
//! | 0 | `row_start`: pointer to `num_nodes + 1` `u64` offsets |
//! | 1 | `col`: pointer to `num_edges` `u32` destinations |
//! | 2 | `weights`: pointer to `num_edges` weights of the graph's weight type (0 if unweighted) |
//! | 3 | `src`: pointer to `num_edges` `u32` sources (0 unless [`Artifact::needs_sources`]) |
//! | 4, 5 | `num_nodes`, `num_edges` |
//! | per global g: 3 slots | data pointer, `dim0`, `dim1` (elements per dimension; node/edge arrays: length, 1) |
//! | per worklist w: 9 slots | see [`WorklistSlot`] |
//! | per param p: 1 slot | the value's bits (zero-extended; floats as IEEE bits; bool as 0/1) |
//! | per kernel argument i: 1 slot | the value's bits, as for params |
//! | 1 slot | the reduction result: written by the kernel (see below) |
//!
//! Element storage: `bool` is one byte (0/1), `node`/`u32`/`i32`/`f32` four bytes, `edge`/`u64`/`i64`/`f64`
//! eight, little-endian, dense arrays row-major.
//!
//! Worklist pushes: `i = atomic_add(*out_count, 1)`; if `i < out_capacity` store the item at `out_items[i]`,
//! else set `*overflow = 1` (the runtime then fails the run with a clear message). Retries go the same way to the
//! retry buffer, sharing its capacity and overflow flag.
//!
//! Push counters come in pairs that alternate, so no launch or copy is spent resetting them: a kernel that pushes
//! to a worklist counts its pushes in `*out_count`, and its first iteration (index 0 of its space; every launch
//! has one) zeroes `*spent_count`, the other counter of the pair, which holds the previous pushing kernel's count
//! and which the runtime has already read. After the launch the runtime reads `*out_count` and, if the kernel ran,
//! swaps the pair's roles, so the next pushing kernel counts from zero. (GPU kernels may push before the zeroing
//! thread runs: that is harmless, as nobody pushes into `*spent_count`.)
//!
//! Reductions: a CPU kernel entry combines its chunk's `reduce` values, starting from the identity, and returns
//! the partial result's bits; the runtime combines partials ([`ReduceOp`]).

use serde::{Deserialize, Serialize};

/// Scalar types as stored in device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarType {
    Bool,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Node,
    Edge,
}

impl ScalarType {
    /// Bytes per element in memory.
    pub fn size(self) -> usize {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 | ScalarType::Node => 4,
            _ => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Node => "node",
            ScalarType::Edge => "edge",
        }
    }

    /// The bits of `inf` for this type: the largest value (+∞ for floats).
    pub fn inf_bits(self) -> u64 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I32 => i32::MAX as u64,
            ScalarType::U32 | ScalarType::Node => u32::MAX as u64,
            ScalarType::I64 => i64::MAX as u64,
            ScalarType::U64 | ScalarType::Edge => u64::MAX,
            ScalarType::F32 => f32::INFINITY.to_bits() as u64,
            ScalarType::F64 => f64::INFINITY.to_bits(),
        }
    }
}

/// A typed value as bits: integers zero-extended (signed ones as their two's complement in the type's width),
/// floats as IEEE bits (f32 in the low 32 bits), bool as 0/1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Value {
    pub ty: ScalarType,
    pub bits: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReduceOp {
    Any,
    All,
    Sum,
    Min,
    Max,
}

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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphDesc {
    pub weight: Option<ScalarType>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamDesc {
    pub name: String,
    pub ty: ScalarType,
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
    pub elem: ScalarType,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorklistDesc {
    pub name: String,
    pub elem: ScalarType,
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
    pub params: Vec<ScalarType>,
    pub reduction: Option<(ReduceOp, ScalarType)>,
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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CheckDesc {
    Bfs { source: HostExpr },
    Sssp { source: HostExpr },
    Components,
    Coloring,
    Matching,
    Communities,
    Apsp,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputDesc {
    pub global: usize,
    pub check: Option<CheckDesc>,
}

/// The host program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Host locals: name and type, indexed by [`HostExpr::Local`] and assignments.
    pub locals: Vec<(String, ScalarType)>,
    pub body: Vec<HostStmt>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MathFn {
    Min,
    Max,
    Abs,
    Ctz,
    Clz,
    Popcount,
    Sqrt,
    Random,
    Select,
}

/// A host expression; `ty` is the result type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostExpr {
    pub ty: ScalarType,
    pub kind: HostExprKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HostExprKind {
    Literal(u64),
    Local(usize),
    Param(usize),
    Unary(UnaryOp, Box<HostExpr>),
    /// Operands share a type (the comparison's operand type is the left operand's `ty`).
    Binary(BinaryOp, Box<HostExpr>, Box<HostExpr>),
    /// Conversion of the operand to `ty`.
    Cast(Box<HostExpr>),
    Math(MathFn, Vec<HostExpr>),
    NumNodes,
    NumEdges,
    WorklistSize(usize),
    /// One element of a global.
    Load {
        global: usize,
        index: Vec<HostExpr>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HostStmt {
    Assign {
        local: usize,
        value: HostExpr,
    },
    Store {
        global: usize,
        index: Vec<HostExpr>,
        value: HostExpr,
    },
    Fill {
        global: usize,
        value: HostExpr,
    },
    /// Appends to the worklist's current contents.
    Push {
        worklist: usize,
        value: HostExpr,
    },
    Clear {
        worklist: usize,
    },
    Invoke {
        kernel: usize,
        args: Vec<HostExpr>,
        result: Option<usize>,
    },
    If {
        cond: HostExpr,
        then: Vec<HostStmt>,
        otherwise: Vec<HostStmt>,
    },
    /// Runs `body`, then `continuing`, then leaves if `break_if` holds; `Continue` jumps to `continuing`.
    /// `outlined` indexes [`Artifact::pipes`] when the whole loop can run on the device as one kernel.
    Loop {
        body: Vec<HostStmt>,
        continuing: Vec<HostStmt>,
        break_if: Option<HostExpr>,
        #[serde(default)]
        outlined: Option<usize>,
    },
    For {
        var: usize,
        start: HostExpr,
        end: HostExpr,
        body: Vec<HostStmt>,
    },
    Break,
    Continue,
    /// Repeats `body` while the worklist is not empty. `outlined` indexes [`Artifact::pipes`] when the whole
    /// loop can run on the device as one persistent kernel.
    Pipe {
        worklist: usize,
        body: Vec<HostStmt>,
        #[serde(default)]
        outlined: Option<usize>,
    },
    /// `dense` when the worklist holds more than `threshold × num_nodes` items, else `sparse`.
    Hybrid {
        worklist: usize,
        threshold: HostExpr,
        dense: Vec<HostStmt>,
        sparse: Vec<HostStmt>,
    },
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
    /// Kernel launches per round: the runtime's launch limit counts them.
    pub launches_per_round: u64,
    /// Launches of reducing kernels per round: each has three words of the state area.
    #[serde(default)]
    pub reductions: usize,
}

/// The state area of an outlined pipe's entry, `u64` words: `.entry irgc_pipe_<i>(ctx, state)`.
///
/// The kernel runs on a grid whose blocks are all resident at once (a cooperative launch), starting from the
/// context's worklist slots (`InItems` holds the current items, `OutItems` the other buffer) and the counts below.
/// Each round it reads the current count; it leaves when the count is 0 or a loop breaks (status
/// [`PipeState::DONE`]), when a push overflowed ([`PipeState::OVERFLOW`]) or when `MAX_ROUNDS` rounds ran
/// ([`PipeState::LIMIT`]). Each reducing launch `j` of a round combines into one of its three words at
/// `reduction(locals, j)`, rotating by round, the kernel itself writing the identity a round ahead. Push counts rotate through three words: a pushing pass reads the current count, pushes
/// into the next and zeroes the third, which every thread finished reading before the previous grid barrier. The
/// thread with global index 0 writes `ROUNDS`, `STATUS` and the final host locals before the kernel ends.
pub struct PipeState;

impl PipeState {
    /// Grid-barrier arrivals (`u32` in the low half); the runtime writes 0.
    pub const BARRIER_COUNT: usize = 0;
    /// Grid-barrier generation (`u32` in the low half), bumped by the last arrival.
    pub const BARRIER_GEN: usize = 1;
    /// In: the most rounds the kernel may run.
    pub const MAX_ROUNDS: usize = 2;
    /// Out: the rounds it ran.
    pub const ROUNDS: usize = 3;
    /// Out: why it stopped.
    pub const STATUS: usize = 4;
    /// In: three rotating push counts; the first holds the worklist's current count, the second 0.
    pub const COUNTS: usize = 5;
    /// In and out: the plan's host locals, as bits.
    pub const LOCALS: usize = 8;

    /// The worklist ran empty.
    pub const DONE: u64 = 0;
    /// `MAX_ROUNDS` rounds ran and the worklist is not empty.
    pub const LIMIT: u64 = 1;
    /// A push found the buffer full.
    pub const OVERFLOW: u64 = 2;

    /// Words of the state area of a plan with `locals` host locals and pipes of at most `reductions` reducing
    /// launches per round.
    pub fn words(locals: usize, reductions: usize) -> usize {
        Self::LOCALS + locals + 3 * reductions
    }

    /// The first of the three words of reducing launch `j`.
    pub fn reduction(locals: usize, j: usize) -> usize {
        Self::LOCALS + locals + 3 * j
    }
}

/// The 9 slots of a worklist in the kernel context, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorklistSlot {
    /// Pointer to the current items.
    InItems = 0,
    /// Number of current items.
    InCount = 1,
    /// Pointer to the buffer pushes go to.
    OutItems = 2,
    /// Pointer to the `u64` push counter.
    OutCount = 3,
    /// Capacity of the push buffer, in items (the retry buffer has the same capacity).
    Capacity = 4,
    /// Pointer to the retry buffer.
    RetryItems = 5,
    /// Pointer to the `u64` retry counter.
    RetryCount = 6,
    /// Pointer to a `u64` set to 1 when a push or retry found its buffer full.
    Overflow = 7,
    /// Pointer to the other push counter of the pair: zeroed by the first iteration of a pushing kernel.
    SpentCount = 8,
}

impl WorklistSlot {
    /// Slots per worklist.
    pub const COUNT: usize = 9;
}

/// The slot indices of a program's kernel context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub globals: usize,
    pub worklists: usize,
    pub params: usize,
    /// The largest number of arguments any kernel takes.
    pub max_args: usize,
}

impl Layout {
    pub const ROW_START: usize = 0;
    pub const COL: usize = 1;
    pub const WEIGHTS: usize = 2;
    pub const SRC: usize = 3;
    pub const NUM_NODES: usize = 4;
    pub const NUM_EDGES: usize = 5;
    const FIXED: usize = 6;

    pub fn of(a: &Artifact) -> Layout {
        Layout {
            globals: a.globals.len(),
            worklists: a.worklists.len(),
            params: a.params.len(),
            max_args: a.kernels.iter().map(|k| k.params.len()).max().unwrap_or(0),
        }
    }

    /// Data pointer of global `g`; `+1` and `+2` hold its dimensions.
    pub fn global(&self, g: usize) -> usize {
        Self::FIXED + 3 * g
    }

    pub fn worklist(&self, w: usize, slot: WorklistSlot) -> usize {
        Self::FIXED + 3 * self.globals + WorklistSlot::COUNT * w + slot as usize
    }

    pub fn param(&self, p: usize) -> usize {
        Self::FIXED + 3 * self.globals + WorklistSlot::COUNT * self.worklists + p
    }

    pub fn arg(&self, i: usize) -> usize {
        self.param(self.params) + i
    }

    /// The slot a kernel writes its reduction result to (GPU backends; CPU kernels return it).
    pub fn reduction(&self) -> usize {
        self.arg(self.max_args)
    }

    /// Total number of slots.
    pub fn len(&self) -> usize {
        self.reduction() + 1
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The `random(seed, i)` built-in: a splitmix64-style hash of two `u64`s, with wrapping arithmetic:
///
/// ```text
/// z = seed + 0x9E3779B97F4A7C15 * (i + 1)
/// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
/// z = (z ^ (z >> 27)) * 0x94D049BB133111EB
/// z ^ (z >> 31)
/// ```
///
/// The host (plan interpreter) and every backend must produce exactly these values; the backends' generated
/// code is tested against this function.
pub fn random(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i.wrapping_add(1)));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The identity of a reduction in `ty`, as bits.
pub fn reduce_identity(op: ReduceOp, ty: ScalarType) -> u64 {
    match op {
        ReduceOp::Any => 0,
        ReduceOp::All => 1,
        ReduceOp::Sum => match ty {
            ScalarType::F32 => 0f32.to_bits() as u64,
            ScalarType::F64 => 0f64.to_bits(),
            _ => 0,
        },
        ReduceOp::Min => ty.inf_bits(),
        ReduceOp::Max => match ty {
            ScalarType::I32 => i32::MIN as u32 as u64,
            ScalarType::I64 => i64::MIN as u64,
            ScalarType::F32 => f32::NEG_INFINITY.to_bits() as u64,
            ScalarType::F64 => f64::NEG_INFINITY.to_bits(),
            _ => 0,
        },
    }
}

/// Combines two partial reductions (bits of `ty`).
pub fn reduce_combine(op: ReduceOp, ty: ScalarType, a: u64, b: u64) -> u64 {
    use ScalarType as T;
    let pick = |take_a: bool| if take_a { a } else { b };
    match op {
        ReduceOp::Any => ((a != 0) || (b != 0)) as u64,
        ReduceOp::All => ((a != 0) && (b != 0)) as u64,
        ReduceOp::Sum => match ty {
            T::F32 => (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64,
            T::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
            T::I32 | T::U32 | T::Node => (a as u32).wrapping_add(b as u32) as u64,
            _ => a.wrapping_add(b),
        },
        ReduceOp::Min | ReduceOp::Max => {
            let a_less = match ty {
                T::F32 => f32::from_bits(a as u32) < f32::from_bits(b as u32),
                T::F64 => f64::from_bits(a) < f64::from_bits(b),
                T::I32 => (a as u32 as i32) < (b as u32 as i32),
                T::I64 => (a as i64) < (b as i64),
                _ => a < b,
            };
            pick(if op == ReduceOp::Min { a_less } else { !a_less })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_combine_by_type() {
        let t = ScalarType::I32;
        let neg = (-5i32) as u32 as u64;
        assert_eq!(reduce_combine(ReduceOp::Min, t, neg, 3), neg);
        assert_eq!(reduce_combine(ReduceOp::Max, t, reduce_identity(ReduceOp::Max, t), neg), neg);
        let f = ScalarType::F64;
        let s = reduce_combine(ReduceOp::Sum, f, 1.5f64.to_bits(), 2.25f64.to_bits());
        assert_eq!(f64::from_bits(s), 3.75);
        assert_eq!(reduce_combine(ReduceOp::Any, ScalarType::Bool, 0, 1), 1);
        assert_eq!(reduce_combine(ReduceOp::All, ScalarType::Bool, 1, 0), 0);
    }

    #[test]
    fn layout_slots_do_not_overlap() {
        let l = Layout { globals: 2, worklists: 1, params: 3, max_args: 2 };
        assert_eq!(l.global(0), 6);
        assert_eq!(l.global(1), 9);
        assert_eq!(l.worklist(0, WorklistSlot::InItems), 12);
        assert_eq!(l.worklist(0, WorklistSlot::Overflow), 19);
        assert_eq!(l.worklist(0, WorklistSlot::SpentCount), 20);
        assert_eq!(l.param(0), 21);
        assert_eq!(l.arg(0), 24);
        assert_eq!(l.reduction(), 26);
        assert_eq!(l.len(), 27);
    }
}
