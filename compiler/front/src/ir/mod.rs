//! The typed intermediate representation: what the front end produces and the backends consume.
//!
//! This rustdoc is the IR's specification; [`validate`](crate::ir::validate) checks every invariant listed here.
//!
//! # Shape
//! A [`Module`] holds program-wide entities in [`Arena`]s: `params` (host scalars from the command line),
//! `globals` (device arrays: per node, per edge, dense), `worklists`, device `functions`, `kernels` (device entry
//! points) and one host `plan`. Kernels and the plan are different entities, with different statement types: the
//! statements of kernels and functions are [`DeviceStmt`]s, whose own operations are [`DeviceOp`]s (`ForAll`,
//! `Push`, atomics, `Reduce`, `Barrier`, ...), and the plan's are [`PlanStmt`]s, whose own operations are
//! [`PlanOp`]s (`Invoke`, `Pipe`, `Hybrid`, `Fill`, `Clear`, ...). Both share the control flow of [`StmtKind`].
//! A plan statement cannot be put into a kernel: that is a type error, not a validator check (see [`Statement`]).
//!
//! Every function, kernel and the plan own a [`Body`]: a `locals` arena (parameters first), an `exprs` arena and a
//! statement tree. Expressions are pure trees (no side effects, every node typed); side effects — stores,
//! atomics, calls, pushes, invokes — are statements, and an effect that produces a value writes it to a local.
//!
//! # Scalar semantics
//! The scalar types ([`Scalar`]) and the operators ([`UnaryOp`], [`BinaryOp`], [`MathFn`], [`ReduceOp`],
//! [`AtomicOp`]) are [`irgc_scalar`]'s, re-exported here, and so are their semantics: what every operator computes
//! on every type, including the points this IR leaves open elsewhere (division by zero, `MIN / -1`, shifts by the
//! width or more, overflow, float `%`, `min`/`max` with NaN, float-to-integer casts, atomics, reductions) is
//! specified in [`irgc_scalar`]'s crate documentation and implemented by its evaluator. Every consumer of this
//! IR — constant folding, the host plan, both device backends — computes exactly those values.
//!
//! # Invariants (checked by the validator)
//! 1. Every handle points into the arena it names; expressions refer only to expressions and locals of their own
//!    body, and an expression's operands are earlier in the arena than the expression itself (no cycles).
//! 2. Every expression's `ty` agrees with its operands (see [`ExprKind`] for each rule); conditions are `bool`.
//! 3. `Break` and `Continue` appear only inside `Loop` or `For`; `Return` only in functions, with the declared type.
//! 4. Device-only statements appear only in kernels and functions and host-only statements only in the plan (by
//!    construction: [`DeviceOp`] and [`PlanOp`] are different types); the plan-only expressions (`WorklistSize`,
//!    `DeviceThreads`, `HostLoad`) only in the plan; a `ForAll`/`ForTile` only in kernels, and not inside a serial loop; `Barrier`
//!    and shared arrays only inside a `ForTile`; `Reduce` only in a kernel that declares a reduction, with its
//!    type.
//! 5. Device functions do not call themselves, directly or indirectly.
//! 6. Dense-array dimensions and output-check arguments are expressions of the plan's arena that use only
//!    params, literals and graph sizes.
//! 7. `Wait` appears only in a kernel's top-level `ForAll` (not in a nested one, a `ForTile` or a function); a
//!    kernel that waits has no reduction, does not retry and holds no `block`-scheduled loop.

pub mod arena;
pub mod print;
pub mod validate;
pub mod walk;

pub use arena::{Arena, Handle};
/// The scalar types and operators are defined once, with their semantics, in `irgc-scalar`.
pub use irgc_scalar::{AtomicOp, BinaryOp, MathFn, ReduceOp, Scalar, UnaryOp};

use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: String,
    /// The input graph, if the program declares one.
    pub graph: Option<GraphDecl>,
    pub params: Arena<Param>,
    pub globals: Arena<Global>,
    pub worklists: Arena<Worklist>,
    pub functions: Arena<Function>,
    pub kernels: Arena<Kernel>,
    pub plan: PlanBody,
    pub outputs: Vec<Output>,
    /// How two devices' results combine in a multi-device run (`merge FROM -> INTO { ... }`), if the program
    /// says; its block lives in the plan's body (its expressions and locals are the plan's).
    pub merge: Option<Merge>,
}

/// `merge from -> into { body }`: in a multi-device run, the partner device's `from` array is copied into this
/// device's `into` array (two node arrays of one element type), then `body` runs here, as plan code.
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub from: Handle<Global>,
    pub into: Handle<Global>,
    pub body: PlanBlock,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GraphDecl {
    pub name: String,
    /// The type edge weights are read as; `None` for an unweighted program.
    pub weight: Option<Scalar>,
    /// The weight of every edge of a graph that has none (`graph G(weight: f64 = 1.0)`); without it such a graph
    /// is refused.
    pub default_weight: Option<Literal>,
    /// The program needs every edge's reverse (`graph G(undirected)`): the runtime symmetrizes a graph that
    /// lacks some, and says so.
    pub undirected: bool,
    /// The program needs a simple graph (`graph G(simple)`): no self loops and no two edges joining the same pair
    /// in the same direction. The runtime drops them from a graph that has some, and says so.
    pub simple: bool,
    /// The program wants its graph's nodes numbered by decreasing degree where degrees are skewed
    /// (`graph G(degree_ordered)`, GAP's relabelling): the runtime renumbers them for the run and gives node
    /// outputs back per input node.
    pub degree_ordered: bool,
    pub span: Span,
}

/// A host scalar given on the command line (`--param name=value`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Scalar,
    pub default: Option<Literal>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum GlobalKind {
    /// One element per node.
    Node,
    /// One element per edge.
    Edge,
    /// Dense, row-major; dimensions are expressions of the plan's arena (invariant 6).
    Dense(Vec<Handle<Expr>>),
}

/// A device array.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    pub kind: GlobalKind,
    pub elem: Scalar,
    pub span: Span,
}

/// A worklist: a device buffer of items plus counters. Items pushed during one kernel launch become the list's
/// contents when the launch ends (the runtime swaps in and out buffers).
#[derive(Clone, Debug, PartialEq)]
pub struct Worklist {
    pub name: String,
    pub elem: Scalar,
    pub span: Span,
}

/// A program result, written by `irgc run --out`; `check` says how `--verify` checks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub global: Handle<Global>,
    pub check: Option<Check>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// BFS levels from a source node.
    Bfs { source: Handle<Expr> },
    /// Shortest-path distances from a source node, using the graph's weights.
    Sssp { source: Handle<Expr> },
    /// A component label per node (compared as a partition).
    Components,
    /// A colour per node.
    Coloring,
    /// The mate of each node (or `inf` for unmatched).
    Matching,
    /// A community per node (checked by modularity).
    Communities,
    /// All-pairs distances in a dense n×n array.
    Apsp,
    /// PageRank scores (floats) computed with a damping factor and stopped at an L1 change below a tolerance.
    PageRank { damping: Handle<Expr>, tolerance: Handle<Expr> },
    /// The number of triangles each node is a corner of (integers).
    Triangles,
    /// Betweenness-centrality dependencies (floats) of a source node (Brandes, unweighted).
    Bc { source: Handle<Expr> },
}

impl Check {
    pub fn name(&self) -> &'static str {
        match self {
            Check::Bfs { .. } => "bfs",
            Check::Sssp { .. } => "sssp",
            Check::Components => "components",
            Check::Coloring => "coloring",
            Check::Matching => "matching",
            Check::Communities => "communities",
            Check::Apsp => "apsp",
            Check::PageRank { .. } => "pagerank",
            Check::Triangles => "triangles",
            Check::Bc { .. } => "bc",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// The first locals of the body, in order.
    pub params: Vec<Handle<Local>>,
    pub ret: Option<Scalar>,
    pub body: DeviceBody,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    /// Scalar parameters: the first locals of the body.
    pub params: Vec<Handle<Local>>,
    /// What every thread's `Reduce` values combine into, returned to the host by `Invoke`.
    pub reduction: Option<(ReduceOp, Scalar)>,
    /// How the threads' partial reductions reach the result at the end of a launch.
    pub reduce_coop: Cooperation,
    pub body: DeviceBody,
    pub span: Span,
}

/// How the GPU threads that update one shared word at the same time (a worklist's push counter, a kernel's
/// reduction result) combine their updates: the front end says `Thread` (every thread does its own atomic);
/// the cooperative-conversion pass (`coop` in `irgc-opt`) chooses `Warp`. The CPU backend runs either the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Cooperation {
    /// One atomic per thread.
    #[default]
    Thread,
    /// The lanes of a warp that arrive together combine first (`activemask`, then a prefix count and `shfl` for
    /// pushes, `redux.sync` for reductions), and one lane does the atomic.
    Warp,
}

impl Kernel {
    /// The kernel's top-level operation: its one parallel sweep (`ForAll` or `ForTile`) in a validated module.
    pub fn sweep(&self) -> Option<&DeviceOp> {
        match self.body.block.as_slice() {
            [Statement { kind: StmtKind::Op(op), .. }] => Some(op),
            _ => None,
        }
    }

    /// Whether the sweep holds a `block`-scheduled nested loop on its predicated path: such a kernel deals a small
    /// round out a block per item on the GPU, and the runtime launches it with a block per item to match
    /// (`KernelDesc::deals`), so both read this one answer.
    pub fn sweep_holds_block_loop(&self) -> bool {
        matches!(self.sweep(), Some(DeviceOp::ForAll { body, .. }) if body.iter().any(DeviceStmt::holds_block_loop))
    }

    /// Whether the sweep is *asynchronous*: an item may `wait` ([`DeviceOp::Wait`]) and run again in the same
    /// launch. Such a launch needs all its threads running at once (each runs its items again until none waits,
    /// reading what the others write meanwhile), and its reads of arrays that any waiting kernel writes must
    /// reach memory every time ([`coherent_globals`](crate::analysis::coherent_globals)).
    pub fn waits(&self) -> bool {
        let mut found = false;
        for s in &self.body.block {
            s.visit(&mut |s| found |= matches!(s.kind, StmtKind::Op(DeviceOp::Wait)));
        }
        found
    }
}

/// A function, kernel or plan body, generic over the operations of its place: [`DeviceBody`] for functions and
/// kernels, [`PlanBody`] for the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Body<Op> {
    pub locals: Arena<Local>,
    pub exprs: Arena<Expr>,
    /// Block-shared arrays (kernels only, declared inside a `ForTile`).
    pub shared: Arena<SharedArray>,
    pub block: Block<Op>,
}

impl<Op> Default for Body<Op> {
    fn default() -> Self {
        Body { locals: Arena::default(), exprs: Arena::default(), shared: Arena::default(), block: Vec::new() }
    }
}

impl<Op> Body<Op> {
    /// The body's arenas without its statements: what code that reads expressions and locals needs, whichever
    /// place the body belongs to (the PTX backend lowers an outlined plan loop's host arithmetic with it).
    pub fn view(&self) -> BodyView<'_> {
        BodyView { locals: &self.locals, exprs: &self.exprs, shared: &self.shared }
    }
}

/// The arenas of a [`Body`] of either place.
#[derive(Clone, Copy, Debug)]
pub struct BodyView<'a> {
    pub locals: &'a Arena<Local>,
    pub exprs: &'a Arena<Expr>,
    pub shared: &'a Arena<SharedArray>,
}

/// The body of a device function or kernel.
pub type DeviceBody = Body<DeviceOp>;
/// The plan's body.
pub type PlanBody = Body<PlanOp>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalType {
    Scalar(Scalar),
    /// A reference to a 1-D array of this element type (function parameters only).
    ArrayRef(Scalar),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: LocalType,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SharedArray {
    pub name: String,
    pub elem: Scalar,
    /// Compile-time dimensions.
    pub dims: Vec<u32>,
    pub span: Span,
}

/// A statement list of one place.
pub type Block<Op> = Vec<Statement<Op>>;
/// Device statements: the body of a kernel or function.
pub type DeviceBlock = Block<DeviceOp>;
/// Plan statements.
pub type PlanBlock = Block<PlanOp>;
/// A statement of device code.
pub type DeviceStmt = Statement<DeviceOp>;
/// A statement of the plan.
pub type PlanStmt = Statement<PlanOp>;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// The bits of an integer or id, zero-extended (negative values as two's complement of the expression type).
    Int(u64),
    Float(f64),
    /// The largest value of the type (+∞ for floats).
    Inf,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Scalar,
    pub span: Span,
}

/// Which array a load, store or atomic touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArrayRef {
    Global(Handle<Global>),
    Shared(Handle<SharedArray>),
    /// An array-reference parameter of a function.
    Param(Handle<Local>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphQuery {
    NumNodes,
    NumEdges,
    /// Source node of an edge.
    Src(Handle<Expr>),
    /// Destination node of an edge.
    Dst(Handle<Expr>),
    Weight(Handle<Expr>),
    Degree(Handle<Expr>),
    /// The first out-edge of a node.
    FirstEdge(Handle<Expr>),
    /// One past the last out-edge of a node.
    EndEdge(Handle<Expr>),
}

/// Expression kinds and their typing rules (invariant 2).
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Typed by the expression's `ty`.
    Literal(Literal),
    /// The value of a scalar local.
    Local(Handle<Local>),
    /// The value of a program parameter (readable everywhere).
    Param(Handle<Param>),
    /// An element: node arrays take a `node`, edge arrays an `edge`, dense and shared arrays one integer per
    /// dimension. `ty` is the element type.
    Load {
        array: ArrayRef,
        index: Vec<Handle<Expr>>,
    },
    /// `Neg`: signed or float; `Not`: bool; `BitNot`: integer. Same type as the operand.
    Unary {
        op: UnaryOp,
        arg: Handle<Expr>,
    },
    /// Operands of one type. Arithmetic: numeric types (ids take none); bit operations and shifts: integers;
    /// `And`/`Or`: bool; comparisons: any two equal types (ordering ones not on bool), result `bool`.
    Binary {
        op: BinaryOp,
        left: Handle<Expr>,
        right: Handle<Expr>,
    },
    /// Conversion to `ty` between numeric and id types (and from bool to integers).
    Cast {
        arg: Handle<Expr>,
    },
    Math {
        fun: MathFn,
        args: Vec<Handle<Expr>>,
    },
    Graph(GraphQuery),
    /// The number of items in a worklist (plan only), `u64`.
    WorklistSize(Handle<Worklist>),
    /// `device_threads()` (plan only), `u64`: how many threads the run's device spreads a kernel's iterations over
    /// at once (`irgc_exec::Device::parallel_threads`), for a program to choose between strategies whose costs differ by
    /// that much (one thread per hub against a sweep of every edge).
    DeviceThreads,
    /// An element of a device array read by the host (plan only).
    HostLoad {
        global: Handle<Global>,
        index: Vec<Handle<Expr>>,
    },
}

/// A function argument: a value, or an array passed by reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Value(Handle<Expr>),
    Array(ArrayRef),
}

/// A parallel iteration space.
#[derive(Clone, Debug, PartialEq)]
pub enum Space {
    /// Every node.
    Nodes,
    /// Every edge (the edge-list view: `G.src(e)`, `G.dst(e)`).
    Edges,
    /// The out-edges of a node (nested parallelism).
    OutEdges(Handle<Expr>),
    /// The items of a worklist.
    Worklist(Handle<Worklist>),
    /// `[start, end)` over an integer or id type.
    Range(Handle<Expr>, Handle<Expr>),
    /// Two ranges: a 2-D index space.
    Range2([(Handle<Expr>, Handle<Expr>); 2]),
}

/// A statement of one place: the control flow device code and the plan share, or an operation only that place has
/// (`Op` is [`DeviceOp`] or [`PlanOp`]). The two op types are disjoint, so a plan-only statement cannot be built
/// into a kernel's body, nor a device-only one into the plan's (invariant 4 holds by construction):
///
/// ```
/// use irgc_front::ir::{DeviceOp, DeviceStmt, StmtKind};
/// use irgc_front::span::Span;
/// let barrier = DeviceStmt { kind: StmtKind::Op(DeviceOp::Barrier), span: Span::default() };
/// # let _ = barrier;
/// ```
///
/// ```compile_fail
/// use irgc_front::ir::{DeviceStmt, PlanOp, StmtKind};
/// use irgc_front::span::Span;
/// let clear = irgc_front::ir::Handle::<irgc_front::ir::Worklist>::new(0);
/// // `Clear` is a plan operation; a kernel's statements take only `DeviceOp`s.
/// let s = DeviceStmt { kind: StmtKind::Op(PlanOp::Clear { worklist: clear }), span: Span::default() };
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Statement<Op> {
    pub kind: StmtKind<Op>,
    pub span: Span,
}

/// The statements every place has: locals and structured control flow, plus `Op`, the place's own operations.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind<Op> {
    /// Sets a scalar local (a `let`, a `var` or an assignment).
    Assign {
        local: Handle<Local>,
        value: Handle<Expr>,
    },
    If {
        cond: Handle<Expr>,
        then: Block<Op>,
        otherwise: Block<Op>,
    },
    /// Runs `body`, then `continuing`; leaves when `break_if` (evaluated after `continuing`) holds, or on `Break`.
    /// `Continue` jumps to `continuing`.
    Loop {
        body: Block<Op>,
        continuing: Block<Op>,
        break_if: Option<Handle<Expr>>,
    },
    /// A sequential loop of `var` over `[start, end)`.
    For {
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        body: Block<Op>,
    },
    Break,
    Continue,
    /// An operation of this place.
    Op(Op),
}

/// The factors a [`DeviceOp::ForAll`] may be unrolled or interleaved by (1: neither), which the validator checks
/// and the `unroll` and `interleave` passes' `factor` parameters offer.
pub const LOOP_FACTORS: [u32; 3] = [2, 4, 8];

/// What only device code (kernels and functions) does.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceOp {
    /// Writes an array element.
    Store { array: ArrayRef, index: Vec<Handle<Expr>>, value: Handle<Expr> },
    /// An atomic read-modify-write on an array element, returning the old value into `result`.
    Atomic {
        op: AtomicOp,
        array: ArrayRef,
        index: Vec<Handle<Expr>>,
        value: Handle<Expr>,
        compare: Option<Handle<Expr>>,
        result: Option<Handle<Local>>,
    },
    /// Calls a device function.
    Call { function: Handle<Function>, args: Vec<Arg>, result: Option<Handle<Local>> },
    /// A parallel loop: one logical thread per point of `space`, bound to `vars` (two for 2-D spaces). A kernel's
    /// top-level `ForAll` is its sweep over the grid; a nested one (written `forall` in a sweep, or a serial `for`
    /// that the nested-parallelism pass proved parallel) is spread over GPU threads as `schedule` says, and the
    /// locals named in `combine` (declared outside the loop, updated inside only as `x = x op value`) receive the
    /// combination of every iteration's updates. `unroll` is how many iterations a thread runs per turn where
    /// several threads stride over one range (set by the `unroll` pass; 1 otherwise). `interleave` is how many
    /// iterations a thread runs at once, statement by statement, where it runs a range alone (set by the
    /// `interleave` pass; 1 otherwise). `stops`: the iterations a thread runs alone may stop once every combined
    /// local holds its absorbing value ([`CombineOp::absorbing_bits`]; set by the `np` pass for read-only loops
    /// that combine only found flags).
    ForAll {
        vars: Vec<Handle<Local>>,
        space: Space,
        body: DeviceBlock,
        schedule: Schedule,
        combine: Vec<Combined>,
        unroll: u32,
        interleave: u32,
        stops: bool,
    },
    /// One thread block per tile; `threads` is the compile-time block shape. Shared arrays and barriers live here.
    ForTile {
        tile_vars: Vec<Handle<Local>>,
        tiles: Space,
        thread_vars: Vec<Handle<Local>>,
        threads: Vec<u32>,
        body: DeviceBlock,
    },
    /// Leaves a function (functions only), with its value.
    Return(Option<Handle<Expr>>),
    /// Appends an item to a worklist's next contents.
    Push { worklist: Handle<Worklist>, value: Handle<Expr>, coop: Cooperation },
    /// Re-queues an item: the runtime relaunches the kernel over retried items until there are none.
    Retry { worklist: Handle<Worklist>, value: Handle<Expr>, coop: Cooperation },
    /// Contributes to the kernel's reduction.
    Reduce { value: Handle<Expr> },
    /// Waits for every thread of the tile.
    Barrier,
    /// Ends the current item of an *asynchronous sweep* without finishing it: the item runs again, from the
    /// start, later in the same launch, and the launch ends once every item has run to its end without waiting.
    /// Only in a kernel's top-level `ForAll` (not nested in another `ForAll`, not in a function, a `ForTile`, a
    /// kernel with a reduction or one that retries). See [`Kernel::waits`].
    Wait,
}

/// How the GPU runs a nested `ForAll`'s iterations (decided by the nested-parallelism pass, `np` in `irgc-opt`;
/// the front end says `Thread`). Every schedule computes what `Thread` computes (up to the order of the
/// iterations, which a parallel loop leaves open); the CPU backend runs them all as `Thread`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// The thread that reaches the loop runs all of its iterations, in order.
    #[default]
    Thread,
    /// The lanes of a warp that reach the loop together (`activemask`) run each other's ranges of 32 or more
    /// iterations one range at a time, all lanes striding over it; shorter ranges stay in their thread. Valid
    /// anywhere in device code (functions and serial loops included): it needs no block-wide barrier.
    Warp,
    /// Merrill et al.'s TWC schedule, at a point every thread of the block reaches (the kernel's sweep, under
    /// `if`s only; the sweep's grid-stride loop runs the same number of times for the whole block): ranges of at
    /// least the block's size are run by the whole block, ranges of at least 32 by their warp, shorter ones by
    /// their thread.
    Block,
    /// [`Schedule::Block`] with TWC's third level: the ranges left to their threads (shorter than 32) are dealt out
    /// iteration by iteration over the whole block by a prefix sum (Merrill et al.'s scan-based gathering).
    Fine,
}

impl Schedule {
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Thread => "thread",
            Schedule::Warp => "warp",
            Schedule::Block => "block",
            Schedule::Fine => "fine",
        }
    }

    /// Whether the loop runs at a point the whole block reaches, with block-wide barriers (`block` or `fine`).
    pub fn is_block(self) -> bool {
        matches!(self, Schedule::Block | Schedule::Fine)
    }
}

/// A local that a nested `ForAll`'s iterations update by an associative, commutative operator (`x = x op v`):
/// each helping thread combines its own iterations' updates, and the owner of the range combines those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combined {
    pub local: Handle<Local>,
    pub op: CombineOp,
}

/// The operators a nested loop's escaping locals may be combined by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombineOp {
    /// `+` (integers wrap; floats are added in an order the schedule chooses).
    Sum,
    Min,
    Max,
    /// `|` on integers, `||` on bool.
    Or,
    /// `&` on integers, `&&` on bool.
    And,
}

impl CombineOp {
    pub fn name(self) -> &'static str {
        match self {
            CombineOp::Sum => "sum",
            CombineOp::Min => "min",
            CombineOp::Max => "max",
            CombineOp::Or => "or",
            CombineOp::And => "and",
        }
    }

    /// Whether locals of type `ty` may be combined by this operator: sums of numbers, minima and maxima of
    /// numbers and ids, `|`/`&` of integers and bools.
    pub fn takes(self, ty: Scalar) -> bool {
        match self {
            CombineOp::Sum => ty != Scalar::Bool && !ty.is_id(),
            CombineOp::Min | CombineOp::Max => ty != Scalar::Bool,
            CombineOp::Or | CombineOp::And => ty == Scalar::Bool || ty.is_int(),
        }
    }

    /// The value that leaves any `x` unchanged when combined with it, as the ABI bits of type `ty`.
    pub fn identity_bits(self, ty: Scalar) -> u64 {
        match self {
            CombineOp::Sum | CombineOp::Or => 0,
            CombineOp::And => {
                if ty == Scalar::Bool {
                    1
                } else {
                    u64::MAX >> (64 - ty.bits())
                }
            }
            CombineOp::Min => irgc_scalar::reduce_identity(ReduceOp::Min, ty),
            CombineOp::Max => irgc_scalar::reduce_identity(ReduceOp::Max, ty),
        }
    }

    /// The value that combining anything with leaves unchanged, as bits of `ty`, where there is one a loop may
    /// stop at (`DeviceOp::ForAll`'s `stops`): `true` or all ones for `or`, `false` or zero for `and`.
    pub fn absorbing_bits(self, ty: Scalar) -> Option<u64> {
        match self {
            CombineOp::Or => Some(if ty == Scalar::Bool { 1 } else { u64::MAX >> (64 - ty.bits()) }),
            CombineOp::And => Some(0),
            CombineOp::Sum | CombineOp::Min | CombineOp::Max => None,
        }
    }
}

/// What only the plan (host code) does.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanOp {
    /// Writes one element of a device array from the host.
    Store { global: Handle<Global>, index: Vec<Handle<Expr>>, value: Handle<Expr> },
    /// Launches a kernel; a kernel with a reduction returns its result into `result`.
    Invoke { kernel: Handle<Kernel>, args: Vec<Handle<Expr>>, result: Option<Handle<Local>> },
    /// Repeats `body` while the worklist is not empty (checked before each round).
    Pipe { worklist: Handle<Worklist>, body: PlanBlock },
    /// Runs `dense` when the worklist holds more than `threshold` × nodes items, `sparse` otherwise; without a
    /// threshold (`above auto`) the runtime picks the mode it predicts cheaper from what each cost in earlier
    /// rounds (`irgc_artifact::AutoHybrid`).
    Hybrid { worklist: Handle<Worklist>, threshold: Option<Handle<Expr>>, dense: PlanBlock, sparse: PlanBlock },
    /// Sets every element of a global.
    Fill { global: Handle<Global>, value: Handle<Expr> },
    /// Empties a worklist.
    Clear { worklist: Handle<Worklist> },
    /// `G.contract(label)`: replaces the graph by its quotient under the node array `label` (a `node` per node):
    /// one node per distinct label, an edge between two groups where some edge joined their members, with the
    /// weights of the edges it replaces summed (a group's inner edges become a self loop). Node and edge arrays
    /// take the new graph's sizes and are zeroed (the `Fill`s that follow restore declared initial values);
    /// worklists are emptied. See `docs/language.md`, "Contracting the graph".
    Contract { label: Handle<Global> },
    /// Pushes an item from the host.
    HostPush { worklist: Handle<Worklist>, value: Handle<Expr> },
    /// `print(a, b)`: records each value under its label (the expression as written) for the run's summary.
    Print { items: Vec<(String, Handle<Expr>)> },
    /// A `pipe` or loop that the iteration-outlining pass decided a GPU runs as one persistent kernel. Where that
    /// kernel cannot run (the CPU, a GPU without cooperative launches, `--stats`) it runs round by round, exactly
    /// as the pipe or loop it replaced.
    Outlined(OutlinedLoop),
}

/// An outlined pipe or loop (see [`PlanOp::Outlined`]): its body holds only kernel launches, assignments to plan
/// locals, `if` statements and (in a pipe) `hybrid` switches over the pipe's worklist whose branches hold the same,
/// and (in a loop, at the top level) `if cond { break }` exits; every way through a round launches at least one
/// kernel. Its entry is `irgc_pipe_<index>`, and the indices count the outlined loops of the plan from 0 in a
/// pre-order walk.
#[derive(Clone, Debug, PartialEq)]
pub struct OutlinedLoop {
    pub index: usize,
    /// The pipe's worklist; `None` for a loop.
    pub worklist: Option<Handle<Worklist>>,
    pub body: PlanBlock,
    /// A loop's `break_if`, checked after the body (always `None` for a pipe).
    pub break_if: Option<Handle<Expr>>,
}

impl OutlinedLoop {
    /// The GPU entry that runs this pipe or loop.
    pub fn entry(&self) -> String {
        outlined_entry_name(self.index)
    }

    /// The most kernel launches one round can make (the branches of an `if` or `hybrid` launch different
    /// kernels): the runtime bounds the rounds it lets the entry run by it.
    pub fn launches_per_round(&self) -> u64 {
        launches_through(&self.body, u64::max)
    }

    /// The launches of the body, in the order the backends number them (pre-order: an `if`'s `then` before its
    /// `otherwise`, a `hybrid`'s `dense` before its `sparse`).
    pub fn launch_sites(&self) -> Vec<&PlanStmt> {
        let mut out = Vec::new();
        self.each_stmt(&mut |s| {
            if matches!(s.kind, StmtKind::Op(PlanOp::Invoke { .. })) {
                out.push(s);
            }
        });
        out
    }

    /// The `hybrid` statements of the body (each gets two bits and a word of the per-round records), numbered in
    /// pre-order as [`OutlinedLoop::launch_sites`] numbers launches.
    pub fn hybrids(&self) -> usize {
        self.auto_hybrids().len()
    }

    /// For each `hybrid` statement of the body, in [`OutlinedLoop::hybrids`] order: whether it is `above auto`.
    pub fn auto_hybrids(&self) -> Vec<bool> {
        let mut out = Vec::new();
        self.each_stmt(&mut |s| {
            if let StmtKind::Op(PlanOp::Hybrid { threshold, .. }) = &s.kind {
                out.push(threshold.is_none());
            }
        });
        out
    }

    /// Every statement of the body in pre-order (an `if` before its `then` and `otherwise`, a `hybrid` before its
    /// `dense` and `sparse`): the order the backends number launches and `hybrid`s in.
    fn each_stmt<'b>(&'b self, f: &mut impl FnMut(&'b PlanStmt)) {
        fn walk<'b>(block: &'b PlanBlock, f: &mut impl FnMut(&'b PlanStmt)) {
            for s in block {
                f(s);
                match &s.kind {
                    StmtKind::If { then, otherwise, .. } => {
                        walk(then, f);
                        walk(otherwise, f);
                    }
                    StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                        walk(dense, f);
                        walk(sparse, f);
                    }
                    _ => {}
                }
            }
        }
        walk(&self.body, f);
    }

    /// Launch sites of reducing kernels (each gets three words of the state area).
    pub fn reductions(&self, m: &Module) -> usize {
        self.launch_sites()
            .iter()
            .filter(
                |s| matches!(s.kind, StmtKind::Op(PlanOp::Invoke { kernel, .. }) if m.kernels[kernel].reduction.is_some()),
            )
            .count()
    }
}

/// The kernel launches of a way through `block` (no loops: an outlined body), taking at each `if` and `hybrid` the
/// branch `pick` chooses by its count (`u64::max`: the most any way makes; `u64::min`: the fewest).
pub fn launches_through(block: &PlanBlock, pick: fn(u64, u64) -> u64) -> u64 {
    block
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Op(PlanOp::Invoke { .. }) => 1,
            StmtKind::If { then, otherwise, .. } => {
                pick(launches_through(then, pick), launches_through(otherwise, pick))
            }
            StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                pick(launches_through(dense, pick), launches_through(sparse, pick))
            }
            _ => 0,
        })
        .sum()
}

/// The entry name of outlined pipe or loop `index`.
pub fn outlined_entry_name(index: usize) -> String {
    format!("irgc_pipe_{index}")
}

impl PlanStmt {
    /// The condition of an `if cond { break }` (a loop's exit), by shape alone.
    pub fn as_exit(&self) -> Option<Handle<Expr>> {
        match &self.kind {
            StmtKind::If { cond, then, otherwise }
                if otherwise.is_empty() && matches!(then.as_slice(), [b] if matches!(b.kind, StmtKind::Break)) =>
            {
                Some(*cond)
            }
            _ => None,
        }
    }
}
