//! The state of lowering one IR body (a kernel or a device function) into one Cranelift function: where each
//! local lives, the enclosing loops, the reduction accumulator, and the addressing of arrays.
//!
//! Expressions ([`crate::expr`]), statements ([`crate::stmt`]) and atomics ([`crate::atomics`]) are methods on
//! [`Lower`], split by file.

use crate::abi;
use crate::types;
use crate::CpuError;
use cranelift_codegen::ir::{types as t, Block, FuncRef, InstBuilder, StackSlot, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use irgc_artifact::Layout;
use irgc_front::ir::{
    ArrayRef, DeviceBody as Body, Expr, GlobalKind, Handle, Local, LocalType, Module, ReduceOp, Scalar,
};

/// Where a local's value lives.
#[derive(Clone, Copy)]
pub(crate) enum Home {
    /// A Cranelift variable (SSA-constructed): every local outside `forall tile` kernels, and the locals of a
    /// tile that all its threads share (kernel params, tile and thread indices, loop variables of loops that
    /// contain barriers).
    Var(Variable),
    /// One 8-byte cell per tile thread in the tile's local frame: cell `index * threads + tid`.
    Thread(usize),
}

/// The state of a `forall tile` whose threads are run in lockstep phases (see [`crate::kernel`]).
pub(crate) struct Tile {
    /// Threads per tile.
    pub threads: usize,
    /// The block shape (one or two dimensions).
    pub shape: Vec<u32>,
    /// Per-thread cells of the locals with a [`Home::Thread`].
    pub frame: StackSlot,
    /// The thread whose locals are being read and written (an `i64`).
    pub tid: Variable,
}

/// A kernel's pending pushes to one worklist (`push.rs`): `count` items in `slot`.
#[derive(Clone, Copy)]
pub(crate) struct PushBuffer {
    pub slot: StackSlot,
    pub count: Variable,
}

/// A loop's targets for `continue` and `break`. `None` marks a boundary they must not cross (the per-thread
/// phase of a tile, which runs inside a loop over the tile's threads).
pub(crate) type LoopTargets = Option<(Block, Block)>;

pub(crate) struct Lower<'a, 'f> {
    pub b: FunctionBuilder<'f>,
    pub m: &'a Module,
    pub body: &'a Body,
    pub layout: Layout,
    /// What is being compiled, for error messages ("kernel `unite`").
    pub what: String,
    /// The context pointer (a parameter of every generated function).
    pub ctx: Value,
    pub homes: Vec<Home>,
    pub loops: Vec<LoopTargets>,
    /// The kernel's reduction and its accumulator.
    pub reduction: Option<(ReduceOp, Scalar, Variable)>,
    /// The device functions, as callable from this function (index = function index).
    pub funcs: Vec<FuncRef>,
    /// The storage of the body's shared arrays (tile kernels only).
    pub shared: Vec<StackSlot>,
    /// Whether accesses are bounds-checked (`--check-bounds`, see [`crate::bounds`]).
    pub check_bounds: bool,
    /// The body being lowered, for numbering its access sites.
    pub site_body: irgc_front::bounds::SiteBody,
    pub tile: Option<Tile>,
    /// `Some(ret)` when lowering a device function returning `ret`.
    pub returns: Option<Option<Scalar>>,
    /// In a kernel over `G.edges` walked row by row ([`crate::kernel`]): the edge variable, and the variable
    /// holding the node whose row the current edge is in, which `G.src` of that edge reads.
    pub edge_walk: Option<(Handle<Local>, Variable)>,
    /// Whether the body reads the runtime's edge-source array (`G.src` of any other edge).
    pub reads_sources: bool,
    /// Per worklist, the kernel's buffer of pushes not yet handed to the worklist (`push.rs`).
    pub push_buffers: Vec<Option<PushBuffer>>,
    /// Lowering the sweep of a kernel that waits: the variable `wait` sets and the block after the item.
    pub wait: Option<(cranelift_frontend::Variable, cranelift_codegen::ir::Block)>,
}

impl<'a, 'f> Lower<'a, 'f> {
    pub fn unsupported<T>(&self, msg: impl std::fmt::Display) -> Result<T, CpuError> {
        Err(CpuError::Unsupported(format!("{}: {msg}", self.what)))
    }

    pub fn malformed<T>(&self, msg: impl std::fmt::Display) -> Result<T, CpuError> {
        Err(CpuError::Malformed(format!("{}: {msg}", self.what)))
    }

    pub fn expr_of(&self, e: Handle<Expr>) -> &'a Expr {
        &self.body.exprs[e]
    }

    pub fn local_type(&self, l: Handle<Local>) -> LocalType {
        self.body.locals[l].ty
    }

    /// The Cranelift type a local is held in (array references are pointers).
    pub fn local_clif(&self, l: Handle<Local>) -> t::Type {
        match self.local_type(l) {
            LocalType::Scalar(s) => types::clif(s),
            LocalType::ArrayRef(_) => t::I64,
        }
    }

    /// The address of thread-local cell `index` of the current tile thread.
    fn thread_cell(&mut self, index: usize) -> Value {
        let tile = self.tile.as_ref().expect("thread-local home outside a tile");
        let (threads, frame, tid) = (tile.threads, tile.frame, tile.tid);
        let base = self.b.ins().stack_addr(t::I64, frame, (index * threads * 8) as i32);
        let tid = self.b.use_var(tid);
        let off = self.b.ins().imul_imm_s(tid, 8);
        self.b.ins().iadd(base, off)
    }

    pub fn read_local(&mut self, l: Handle<Local>) -> Value {
        match self.homes[l.index()] {
            Home::Var(v) => self.b.use_var(v),
            Home::Thread(i) => {
                let ty = self.local_clif(l);
                let addr = self.thread_cell(i);
                self.b.ins().load(ty, abi::flags(), addr, 0)
            }
        }
    }

    pub fn write_local(&mut self, l: Handle<Local>, v: Value) {
        match self.homes[l.index()] {
            Home::Var(var) => self.b.def_var(var, v),
            Home::Thread(i) => {
                let addr = self.thread_cell(i);
                self.b.ins().store(abi::flags(), v, addr, 0);
            }
        }
    }

    /// Ends the current block with a jump to `target` and continues in a fresh, unreachable block, so that
    /// statements after a `break`, `continue` or `return` still have somewhere to go (Cranelift drops them).
    pub fn jump_away(&mut self, target: Block) {
        self.b.ins().jump(target, &[]);
        self.start_dead_block();
    }

    pub fn start_dead_block(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }

    /// The element type of an array.
    pub fn array_elem(&self, a: ArrayRef) -> Result<Scalar, CpuError> {
        Ok(match a {
            ArrayRef::Global(g) => self.m.globals[g].elem,
            ArrayRef::Shared(s) => self.body.shared[s].elem,
            ArrayRef::Param(l) => match self.local_type(l) {
                LocalType::ArrayRef(s) => s,
                LocalType::Scalar(_) => return self.malformed("array access through a scalar local"),
            },
        })
    }

    /// The address of an array's first element.
    pub fn array_base(&mut self, a: ArrayRef) -> Value {
        match a {
            ArrayRef::Global(g) => {
                let slot = self.layout.global(g.index());
                abi::slot(&mut self.b, self.ctx, slot)
            }
            ArrayRef::Shared(s) => self.b.ins().stack_addr(t::I64, self.shared[s.index()], 0),
            ArrayRef::Param(l) => self.read_local(l),
        }
    }

    /// The address of an element, and the element type. Node and edge arrays take one id, dense globals one
    /// integer per dimension (row-major, the row length read from the global's `dim1` slot), shared arrays one
    /// per compile-time dimension, array references one index.
    pub fn array_addr(&mut self, a: ArrayRef, index: &[Handle<Expr>]) -> Result<(Value, Scalar), CpuError> {
        let elem = self.array_elem(a)?;
        let mut idx = Vec::with_capacity(index.len());
        for &i in index {
            let ty = self.expr_of(i).ty;
            let v = self.expr(i)?;
            idx.push(types::to_i64(&mut self.b, ty, v));
        }
        let dims: Vec<Option<i64>> = match a {
            ArrayRef::Global(g) => match &self.m.globals[g].kind {
                GlobalKind::Node | GlobalKind::Edge => vec![None],
                GlobalKind::Dense(d) if d.len() <= 2 => vec![None; d.len()],
                GlobalKind::Dense(_) => return self.unsupported("dense arrays of more than two dimensions"),
            },
            ArrayRef::Shared(s) => self.body.shared[s].dims.iter().map(|&d| Some(i64::from(d))).collect(),
            ArrayRef::Param(_) => vec![None],
        };
        if idx.len() != dims.len() || idx.is_empty() {
            return self.malformed(format!("{} indices for an array of {} dimensions", idx.len(), dims.len()));
        }
        let mut linear = idx[0];
        for (k, &i) in idx.iter().enumerate().skip(1) {
            let row = match (a, dims[k]) {
                (_, Some(d)) => self.b.ins().iconst(t::I64, d),
                (ArrayRef::Global(g), None) => {
                    // Only 2-D dense globals get here: the row length is `dim1`.
                    let slot = self.layout.global(g.index()) + 2;
                    abi::slot(&mut self.b, self.ctx, slot)
                }
                _ => return self.malformed("multi-dimensional index into a 1-D array"),
            };
            let scaled = self.b.ins().imul(linear, row);
            linear = self.b.ins().iadd(scaled, i);
        }
        let base = self.array_base(a);
        let addr = abi::element(&mut self.b, base, linear, elem);
        if !self.check_bounds {
            return Ok((addr, elem));
        }
        // `--check-bounds`: every index below its dimension (an array parameter is a node array).
        let bounds: Vec<Value> = match a {
            ArrayRef::Param(_) => vec![abi::slot(&mut self.b, self.ctx, Layout::NUM_NODES)],
            ArrayRef::Global(g) => match &self.m.globals[g].kind {
                GlobalKind::Node => vec![abi::slot(&mut self.b, self.ctx, Layout::NUM_NODES)],
                GlobalKind::Edge => vec![abi::slot(&mut self.b, self.ctx, Layout::NUM_EDGES)],
                GlobalKind::Dense(_) => {
                    let at = self.layout.global(g.index());
                    (1..=idx.len()).map(|k| abi::slot(&mut self.b, self.ctx, at + k)).collect()
                }
            },
            ArrayRef::Shared(s) => {
                let dims = self.body.shared[s].dims.clone();
                dims.iter().map(|&d| self.b.ins().iconst(t::I64, i64::from(d))).collect()
            }
        };
        let site = irgc_front::bounds::site(self.site_body, irgc_front::bounds::Indexed::Array(a), index[0]);
        let checks: Vec<(Value, Value)> = idx.iter().copied().zip(bounds).collect();
        Ok(match self.check(&checks, site) {
            Some(c) => (self.b.ins().select(c.ok, addr, c.scratch), elem),
            None => (addr, elem),
        })
    }
}
