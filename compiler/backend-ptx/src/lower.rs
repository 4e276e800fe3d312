//! The state of lowering one IR body (a kernel or a device function) into one LLVM function: where each local
//! lives, the enclosing loops, the reduction accumulator, and the addressing of arrays.
//!
//! Every local is an `alloca` in the entry block, zeroed there (so a read before any write is 0 on every path,
//! as on the CPU); LLVM's SROA/mem2reg turns them into registers. Expressions ([`crate::expr`]), statements
//! ([`crate::stmt`]), atomics ([`crate::atomics`]) and spaces ([`crate::kernel`]) are methods on [`Lower`],
//! split by file.

use crate::helpers::Helpers;
use crate::types;
use crate::PtxError;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::Module as LModule;
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;
use irgc_artifact::Layout;
use irgc_front::ir::{ArrayRef, BodyView, Expr, GlobalKind, Handle, Local, LocalType, Module, ReduceOp, Scalar};

/// Which form of a kernel (or outlined pipe) an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// As the passes left it.
    Scheduled,
    /// Every nested-parallelism schedule in its thread ([`irgc_artifact::flat_entry`]): [`Lower::skewed`] is the
    /// constant `false`.
    Flat,
    /// Unrolled loops one iteration a turn, the body's and those of the functions it calls
    /// ([`irgc_artifact::rolled_entry`], [`Lower::unroll_of`]).
    Rolled,
}

impl Form {
    /// `Flat` for a flat entry, else `Scheduled` (outlined pipes have no rolled form).
    pub(crate) fn flat_if(flat: bool) -> Form {
        if flat {
            Form::Flat
        } else {
            Form::Scheduled
        }
    }
}

/// Global memory (device arrays, the context, worklists).
pub(crate) const GLOBAL: u16 = 1;
/// Block-shared memory (`shared` arrays of a tile).
pub(crate) const SHARED: u16 = 3;

/// A loop's targets for `continue` and `break`. `None` marks a boundary they must not cross (the body of a
/// nested `forall`, which runs sequentially inside its thread).
pub(crate) type LoopTargets<'c> = Option<(BasicBlock<'c>, BasicBlock<'c>)>;

/// Where an outlined pipe's current item count lives, for `worklist.size()` in its body (see
/// `Lower::pipe_worklist_size`).
#[derive(Clone, Copy)]
pub(crate) struct PipeCount<'c> {
    pub w: usize,
    /// The register holding the current count (see `WorklistRegs::count` in `pipe.rs`).
    pub current: PointerValue<'c>,
    pub cap: IntValue<'c>,
}

/// Where an outlined pipe's three rotating push counts live while the first cluster runs small rounds alone
/// (`crate::pipe_solo`, on targets with clusters): in block 0's shared memory, which every block of the cluster
/// reaches as distributed shared memory, instead of in the state area.
#[derive(Clone, Copy)]
pub(crate) struct SoloCounts<'c> {
    /// The register saying whether this block is running small rounds now.
    pub flag: PointerValue<'c>,
    /// Block 0's copy of the three counts (`[3 x i64]` in shared memory), in `PipeState::COUNTS` order.
    pub shared: PointerValue<'c>,
}

pub(crate) struct Lower<'c, 'a> {
    pub c: &'c Context,
    pub b: Builder<'c>,
    pub lm: &'a LModule<'c>,
    pub f: FunctionValue<'c>,
    pub m: &'a Module,
    pub body: BodyView<'a>,
    pub layout: Layout,
    /// What is being compiled, for error messages ("kernel `unite`").
    pub what: String,
    /// The context pointer (the first parameter of every generated function).
    pub ctx: PointerValue<'c>,
    /// The slot table as an LLVM struct of `i64`s, so that slot addresses are safe struct GEPs.
    pub ctx_ty: StructType<'c>,
    /// The entry block, holding the allocas.
    pub entry: BasicBlock<'c>,
    /// The alloca of each local.
    pub locals: Vec<PointerValue<'c>>,
    pub loops: Vec<LoopTargets<'c>>,
    /// The kernel's reduction and its accumulator.
    pub reduction: Option<(ReduceOp, Scalar, PointerValue<'c>)>,
    /// The device functions (index = function index).
    pub funcs: &'a [FunctionValue<'c>],
    /// Context slots whose values every call passes to `funcs` after its arguments (a step of an outlined pipe,
    /// and the functions it calls: their worklist slots; empty otherwise).
    pub fn_slots: Vec<usize>,
    /// Which form of its kernel the entry being lowered is ([`Form`]).
    pub form: Form,
    /// The body's shared arrays (tile kernels only): their address-space-3 globals.
    pub shared: Vec<PointerValue<'c>>,
    /// How many nested (sequential) `forall`s enclose the statement being lowered.
    pub nested_foralls: u32,
    /// Whether this is a `forall tile` kernel (where barriers are allowed).
    pub in_tile: bool,
    /// `Some(ret)` when lowering a device function returning `ret`.
    pub returns: Option<Option<Scalar>>,
    pub helpers: &'a mut Helpers,
    /// Context slots whose values come from elsewhere (a step of an outlined pipe gets its worklist buffers,
    /// counts and arguments as parameters): [`Lower::slot`] answers these instead of loading the table.
    pub overrides: Vec<(usize, IntValue<'c>)>,
    /// How the threads' partial reductions combine (the kernel's, set with `reduction`).
    pub reduce_coop: irgc_front::ir::Cooperation,
    /// Where the reduction combines, when not the context's reduction slot (a step of an outlined pipe).
    pub reduction_addr: Option<PointerValue<'c>>,
    /// Whether accesses are bounds-checked (`--check-bounds`, see [`crate::bounds`]).
    pub check_bounds: bool,
    /// Whether the target has thread-block clusters (`sm_90` on): see `crate::pipe_solo`.
    pub clusters: bool,
    /// Lowering an outlined pipe's entry: the context slots its own code has read, each loaded once at the top of
    /// the entry block ([`Lower::slot`]). The table does not change during a launch, and a load inside the
    /// persistent loop would be repeated every round, after the grid barrier's acquire has dropped the L1.
    pub slot_cache: Option<std::cell::RefCell<std::collections::BTreeMap<usize, IntValue<'c>>>>,
    /// The kernel or function being lowered, for numbering its access sites (`None` for the plan).
    pub site_body: Option<irgc_front::bounds::SiteBody>,
    /// Lowering an outlined pipe's entry: where its worklist's current count lives (for `w.size()`).
    pub pipe_count: Option<PipeCount<'c>>,
    /// Lowering an outlined pipe's entry with small rounds on a cluster: where its push counts live then.
    pub solo_counts: Option<SoloCounts<'c>>,
    /// Lowering the dealt round of a step of an outlined pipe or loop: `block` loops without combined locals
    /// share their longest ranges with the whole grid ([`crate::grid`]).
    pub grid_share: bool,
    /// Lowering a step of an outlined pipe: the blocks taking part in its launch (a parameter: the grid's, or 1
    /// in a round block 0 runs alone), which `%nctaid` reads answer instead.
    pub nctaid_override: Option<IntValue<'c>>,
    /// Lowering a dealt round: whether a block may hold more than one item (a uniform `i1`); `fine` loops deal
    /// their short ranges out only then (with one item a block there is nothing to balance, and the level's
    /// barriers cost JP-LDF's thousands of small rounds on kron22 5%).
    pub fine_gate: Option<IntValue<'c>>,
    /// The block-shared arrays of this function's `block` and `fine` loops, by name, element type, length and
    /// ordinal ([`Lower::pooled_slots`]): loops one after another reuse them, so a sweep of four block loops
    /// (Louvain's `move_large`) takes one loop's shared memory, not four (over the 48 KB a kernel may
    /// declare).
    /// (A `BTreeMap` by the type's name, as every map of the code generator: no hash order near generated code.)
    pub shared_pool: std::collections::BTreeMap<(&'static str, String, u32, usize), PointerValue<'c>>,
    /// The globals (by index) that a kernel whose sweep waits writes: every load of one is a strong GPU-scope
    /// load, so it reaches L2 each time (other items of the launch change them meanwhile).
    pub coherent: &'a std::collections::BTreeSet<usize>,
    /// Lowering the sweep of a kernel that waits: where `wait` goes ([`WaitTarget`]).
    pub wait: Option<WaitTarget<'c>>,
}

/// Where a `wait` statement of an asynchronous sweep goes: it sets `waited`, switches off every predicate in
/// `clear` (a predicated item, `crate::waiting`), and leaves for `end`: the block after the item's body, or after
/// the predicated statement it is in.
#[derive(Clone)]
pub(crate) struct WaitTarget<'c> {
    pub waited: PointerValue<'c>,
    pub end: BasicBlock<'c>,
    pub clear: Vec<PointerValue<'c>>,
}

impl<'c, 'a> Lower<'c, 'a> {
    pub fn unsupported<T>(&self, msg: impl std::fmt::Display) -> Result<T, PtxError> {
        Err(PtxError::Unsupported(format!("{}: {msg}", self.what)))
    }

    pub fn malformed<T>(&self, msg: impl std::fmt::Display) -> Result<T, PtxError> {
        Err(PtxError::Malformed(format!("{}: {msg}", self.what)))
    }

    pub fn expr_of(&self, e: Handle<Expr>) -> &'a Expr {
        &self.body.exprs[e]
    }

    /// The register type of a local (array references are global pointers).
    pub fn local_llvm(c: &'c Context, ty: LocalType) -> BasicTypeEnum<'c> {
        match ty {
            LocalType::Scalar(s) => types::reg(c, s),
            LocalType::ArrayRef(_) => c.ptr_type(AddressSpace::from(GLOBAL)).into(),
        }
    }

    /// A new alloca of `ty` at the top of the entry block (where SROA promotes it).
    pub fn alloca(&self, ty: BasicTypeEnum<'c>, name: &str) -> Result<PointerValue<'c>, PtxError> {
        Ok(self.entry_top().build_alloca(ty, name)?)
    }

    /// A builder at the top of the entry block, for what every path of the function needs defined first.
    pub fn entry_top(&self) -> Builder<'c> {
        let top = self.c.create_builder();
        match self.entry.get_first_instruction() {
            Some(i) => top.position_before(&i),
            None => top.position_at_end(self.entry),
        }
        top
    }

    pub fn read_local(&self, l: Handle<Local>) -> Result<BasicValueEnum<'c>, PtxError> {
        let ty = Self::local_llvm(self.c, self.body.locals[l].ty);
        Ok(self.b.build_load(ty, self.locals[l.index()], "")?)
    }

    pub fn write_local(&self, l: Handle<Local>, v: BasicValueEnum<'c>) -> Result<(), PtxError> {
        self.b.build_store(self.locals[l.index()], v)?;
        Ok(())
    }

    /// Ends the current block with a branch to `target` and continues in a fresh, unreachable block, so that
    /// statements after a `break`, `continue` or `return` still have somewhere to go.
    pub fn jump_away(&self, target: BasicBlock<'c>) -> Result<(), PtxError> {
        self.b.build_unconditional_branch(target)?;
        self.start_dead_block();
        Ok(())
    }

    pub fn start_dead_block(&self) {
        let dead = self.c.append_basic_block(self.f, "dead");
        self.b.position_at_end(dead);
    }

    pub fn block(&self, name: &str) -> BasicBlock<'c> {
        self.c.append_basic_block(self.f, name)
    }

    /// Whether `a` is read and written coherently ([`Lower::coherent_load`], [`Lower::coherent_store`]): a global
    /// a waiting kernel writes, or an array parameter of a function (it may be one) in a module where some kernel
    /// waits.
    pub fn coherent_array(&self, a: ArrayRef) -> bool {
        match a {
            ArrayRef::Global(g) => self.coherent.contains(&g.index()),
            ArrayRef::Param(_) => !self.coherent.is_empty(),
            ArrayRef::Shared(_) => false,
        }
    }

    /// The element type of an array.
    pub fn array_elem(&self, a: ArrayRef) -> Result<Scalar, PtxError> {
        Ok(match a {
            ArrayRef::Global(g) => self.m.globals[g].elem,
            ArrayRef::Shared(s) => self.body.shared[s].elem,
            ArrayRef::Param(l) => match self.body.locals[l].ty {
                LocalType::ArrayRef(s) => s,
                LocalType::Scalar(_) => return self.malformed("array access through a scalar local"),
            },
        })
    }

    /// The address space an array lives in.
    pub fn array_space(a: ArrayRef) -> u16 {
        match a {
            ArrayRef::Shared(_) => SHARED,
            ArrayRef::Global(_) | ArrayRef::Param(_) => GLOBAL,
        }
    }

    /// The address of an array's first element.
    pub fn array_base(&mut self, a: ArrayRef) -> Result<PointerValue<'c>, PtxError> {
        Ok(match a {
            ArrayRef::Global(g) => self.slot_ptr(self.layout.global(g.index()))?,
            ArrayRef::Shared(s) => self.shared[s.index()],
            ArrayRef::Param(l) => match self.read_local(l)? {
                BasicValueEnum::PointerValue(p) => p,
                _ => return self.malformed("an array reference through a scalar local"),
            },
        })
    }

    /// `&base[index]` for an array of `elem` in address space `space`.
    pub fn element(
        &mut self,
        base: PointerValue<'c>,
        index: IntValue<'c>,
        elem: Scalar,
        space: u16,
    ) -> Result<PointerValue<'c>, PtxError> {
        let f = self.helpers.element(self.c, self.lm, types::mem(self.c, elem), space);
        let call = self.b.build_call(f, &[base.into(), index.into()], "")?;
        match call.try_as_basic_value().basic() {
            Some(v) => Ok(v.into_pointer_value()),
            None => Err(PtxError::Llvm("element helper returned nothing".into())),
        }
    }

    /// The address of an element, and the element type and address space. Node and edge arrays take one id,
    /// dense globals one integer per dimension (row-major, the row length read from the global's `dim1` slot),
    /// shared arrays one per compile-time dimension, array references one index.
    pub fn array_addr(
        &mut self,
        a: ArrayRef,
        index: &[Handle<Expr>],
    ) -> Result<(PointerValue<'c>, Scalar, u16), PtxError> {
        let elem = self.array_elem(a)?;
        let mut idx = Vec::with_capacity(index.len());
        for &i in index {
            let ty = self.expr_of(i).ty;
            let v = self.expr(i)?;
            idx.push(self.to_i64(ty, v)?);
        }
        let dims: Vec<Option<u64>> = match a {
            ArrayRef::Global(g) => match &self.m.globals[g].kind {
                GlobalKind::Node | GlobalKind::Edge => vec![None],
                GlobalKind::Dense(d) if d.len() <= 2 => vec![None; d.len()],
                GlobalKind::Dense(_) => return self.unsupported("dense arrays of more than two dimensions"),
            },
            ArrayRef::Shared(s) => self.body.shared[s].dims.iter().map(|&d| Some(u64::from(d))).collect(),
            ArrayRef::Param(_) => vec![None],
        };
        if idx.len() != dims.len() || idx.is_empty() {
            return self.malformed(format!("{} indices for an array of {} dimensions", idx.len(), dims.len()));
        }
        let i64t = self.c.i64_type();
        let mut linear = idx[0];
        for (k, &i) in idx.iter().enumerate().skip(1) {
            let row = match (a, dims[k]) {
                (_, Some(d)) => i64t.const_int(d, false),
                // Only 2-D dense globals get here: the row length is `dim1`.
                (ArrayRef::Global(g), None) => self.slot(self.layout.global(g.index()) + 2)?,
                _ => return self.malformed("multi-dimensional index into a 1-D array"),
            };
            let scaled = self.b.build_int_mul(linear, row, "")?;
            linear = self.b.build_int_add(scaled, i, "")?;
        }
        let space = Self::array_space(a);
        let base = self.array_base(a)?;
        if !self.check_bounds {
            return Ok((self.element(base, linear, elem, space)?, elem, space));
        }
        // `--check-bounds`: every index below its dimension (an array parameter is a node array).
        let bounds: Vec<IntValue<'c>> = match a {
            ArrayRef::Param(_) => vec![self.slot(Layout::NUM_NODES)?],
            ArrayRef::Global(g) => match &self.m.globals[g].kind {
                GlobalKind::Node => vec![self.slot(Layout::NUM_NODES)?],
                GlobalKind::Edge => vec![self.slot(Layout::NUM_EDGES)?],
                GlobalKind::Dense(_) => {
                    let at = self.layout.global(g.index());
                    (1..=idx.len()).map(|k| self.slot(at + k)).collect::<Result<_, _>>()?
                }
            },
            _ => dims.iter().map(|d| i64t.const_int(d.unwrap_or(0), false)).collect(),
        };
        let checks: Vec<_> = idx.iter().copied().zip(bounds).collect();
        let checked = self.check(&checks, irgc_front::bounds::Indexed::Array(a), index[0])?;
        Ok(match (checked, space) {
            (Some(c), GLOBAL) => {
                let addr = self.element(base, linear, elem, space)?;
                (self.b.build_select(c.ok, addr, c.scratch, "")?.into_pointer_value(), elem, space)
            }
            // Shared memory cannot point at the scratch word: the access goes to element 0 instead.
            (Some(c), _) => {
                let safe = self.b.build_select(c.ok, linear, i64t.const_zero(), "")?.into_int_value();
                (self.element(base, safe, elem, space)?, elem, space)
            }
            (None, _) => (self.element(base, linear, elem, space)?, elem, space),
        })
    }
}
