//! The abstract syntax tree: what the parser builds, exactly as written, with a span on every node.
//!
//! Nothing here is resolved or typed; names are strings. The same statement and expression types serve kernels,
//! device functions and the host plan: which constructs are allowed where is decided by semantic analysis
//! (`sema`), so that a misplaced construct gets a precise error instead of a parse error.

use crate::span::{Ident, Span, Spanned};

/// One `.irg` file.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFile {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

/// One property in `graph G(...)`: `undirected`, or `weight: T` with an optional `= default` (semantic analysis
/// decides which names mean something).
#[derive(Clone, Debug, PartialEq)]
pub struct GraphProp {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    /// `import std.unionfind;`
    Import(Vec<Ident>),
    /// `graph G;`, `graph G(weight: u32);`, `graph G(undirected, weight: f64 = 1.0);`
    Graph {
        name: Ident,
        props: Vec<GraphProp>,
    },
    /// `param source: node = 0;` — a host scalar given on the command line.
    Param {
        name: Ident,
        ty: TypeExpr,
        default: Option<Expr>,
    },
    /// `const TILE: u32 = 32;` — a compile-time constant.
    Const {
        name: Ident,
        ty: TypeExpr,
        value: Expr,
    },
    /// `node level: u32 = inf;`, `edge w: f64;`, `array dist: i32[n, n];` — device arrays.
    Array {
        name: Ident,
        kind: ArrayKind,
        elem: TypeExpr,
        init: Option<Expr>,
    },
    /// `worklist frontier;` or `worklist frontier: edge;`
    Worklist {
        name: Ident,
        elem: Option<TypeExpr>,
    },
    /// `output level as bfs(source), parent;`
    Output(Vec<OutputDecl>),
    Kernel(Kernel),
    Function(Function),
    /// `plan { ... }`: the host program.
    Plan(Block),
    /// `merge parent -> theirs { ... }`: how two devices' results combine in a multi-device run — the partner's
    /// `parent` is copied into this device's `theirs`, then the block runs here.
    Merge {
        from: Ident,
        into: Ident,
        body: Block,
    },
    /// An item the parser could not make sense of; already reported.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArrayKind {
    /// One element per node.
    Node,
    /// One element per edge.
    Edge,
    /// A dense array with the given dimensions (one or two).
    Dense(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputDecl {
    pub name: Ident,
    /// What the output is, for `--verify`: `bfs(source)`, `components`, ...
    pub check: Option<(Ident, Vec<Expr>)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: Ident,
    pub params: Vec<Param>,
    pub reduction: Option<Reduction>,
    pub body: Block,
}

/// `-> any`, `-> all`, `-> sum u64`, `-> min f64`, `-> max i32`: what a kernel reports back to the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub op: Ident,
    pub ty: Option<TypeExpr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<TypeExpr>,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// A type as written: a scalar name (`u32`, `node`, ...) or an array reference `[T]` (function parameters only).
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    Named(String),
    ArrayRef(Box<TypeExpr>),
}

pub type TypeExpr = Spanned<TypeExprKind>;

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let x: T = e;` (immutable) or `var x: T = e;` (mutable).
    Let {
        name: Ident,
        mutable: bool,
        ty: Option<TypeExpr>,
        value: Expr,
    },
    /// `place = e;` or `place op= e;`
    Assign {
        place: Expr,
        op: Option<BinaryOp>,
        value: Expr,
    },
    /// An expression evaluated for its effect: a call, an atomic, a push.
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        otherwise: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Loop(Block),
    /// `repeat { ... } until e;` — the condition sees the body's bindings.
    Repeat {
        body: Block,
        until: Expr,
    },
    /// A sequential loop.
    For {
        pat: Pattern,
        space: Space,
        body: Block,
    },
    /// A parallel loop.
    ForAll {
        pat: Pattern,
        space: Space,
        body: Block,
    },
    /// `forall tile (bi, bj) in (0..n, 0..n) threads (ti, tj) in (0..16, 0..16) { ... }`: one thread block per
    /// tile, with block-shared memory and barriers.
    ForTile(Box<ForTile>),
    Break,
    Continue,
    Return(Option<Expr>),
    /// `reduce e;` — contribute to the kernel's reduction.
    Reduce(Expr),
    /// `barrier;` — all threads of the tile wait.
    Barrier,
    /// `wait;` — the item of an asynchronous sweep stops here and runs again later in the same launch.
    Wait,
    /// `shared name: T[d1, d2];`
    Shared {
        name: Ident,
        elem: TypeExpr,
        dims: Vec<Expr>,
    },
    /// `pipe wl { ... }`: repeat the body while `wl` is not empty.
    Pipe {
        worklist: Ident,
        body: Block,
    },
    /// `hybrid wl above H { dense { ... } sparse { ... } }`, or `above auto` (no threshold: the runtime picks the
    /// mode from what each cost in earlier rounds).
    Hybrid {
        worklist: Ident,
        threshold: Option<Expr>,
        dense: Block,
        sparse: Block,
    },
    /// A statement the parser could not make sense of; already reported.
    Error,
}

/// The parts of a `forall tile` statement (boxed in [`StmtKind`] to keep statements small).
#[derive(Clone, Debug, PartialEq)]
pub struct ForTile {
    pub tile: Pattern,
    pub tiles: Space,
    pub thread: Pattern,
    pub threads: Space,
    pub body: Block,
}

/// What a loop binds: one name or a pair for 2-D spaces.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    One(Ident),
    Two(Ident, Ident),
}

/// What a loop iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum Space {
    /// `a..b`
    Range(Expr, Expr),
    /// `(a..b, c..d)`
    Range2([(Expr, Expr); 2]),
    /// Anything else, e.g. `G.nodes`, `G.edges`, `G.edges(n)` or a worklist name: resolved by `sema`.
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(String),
    Float(String),
    Bool(bool),
    /// `inf`: the largest value of the expected type (+∞ for floats).
    Inf,
    Name(String),
    /// `a[i]` or `a[i, j]`
    Index(Box<Expr>, Vec<Expr>),
    /// `G.num_nodes`
    Field(Box<Expr>, Ident),
    /// `f(a, b)` (free function) — the callee is a name.
    Call(Ident, Vec<Expr>),
    /// `x.m(a, b)`
    Method(Box<Expr>, Ident, Vec<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, TypeExpr),
    /// An expression the parser could not make sense of; already reported.
    Error,
}

/// The operators are the IR's (one definition, in `irgc-scalar`): the AST names them as written.
pub use irgc_scalar::{BinaryOp, UnaryOp};
