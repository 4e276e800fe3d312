//! Drives LLVM: sets up the NVPTX target machine, declares one internal function per device function and one
//! `.entry` per kernel, lowers each body, links the helpers, verifies, optimises (`default<O3>`) and emits PTX.

use crate::helpers::Helpers;
use crate::kernel::top_level;
use crate::lower::{Form, Lower, GLOBAL, SHARED};
use crate::types::{self, reg};
use crate::{layout_of, Options, PtxError, PtxOutput, ARCHS};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module as LModule};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, StructType};
use inkwell::values::{BasicValueEnum, FunctionValue, PointerValue};
use inkwell::{AddressSpace, OptimizationLevel};
use irgc_artifact::{flat_entry, rolled_entry, Layout};
use irgc_front::ir::{BodyView, DeviceOp, Kernel, LocalType, Module, OutlinedLoop, Scalar};
use std::sync::Once;

/// The PTX ISA version asked of LLVM: 8.0 (CUDA 12.0) covers `sm_90a` and every driver of the last years.
const PTX_FEATURES: &str = "+ptx80";
/// Static shared memory a block may declare without opting in to more (CUDA's 48 KiB).
const MAX_STATIC_SHARED: u64 = 48 * 1024;
/// The most threads a block may have.
const MAX_BLOCK: u64 = 1024;

static INIT: Once = Once::new();

fn target_machine(arch: &str) -> Result<TargetMachine, PtxError> {
    if !ARCHS.contains(&arch) {
        return Err(PtxError::Options(format!(
            "unknown GPU architecture `{arch}` (expected one of {})",
            ARCHS.join(", ")
        )));
    }
    INIT.call_once(|| Target::initialize_nvptx(&InitializationConfig::default()));
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let target = Target::from_triple(&triple).map_err(|e| PtxError::Llvm(format!("NVPTX target: {e}")))?;
    target
        .create_target_machine(
            &triple,
            arch,
            PTX_FEATURES,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| PtxError::Llvm(format!("no NVPTX target machine for {arch}")))
}

/// What the lowering of one body needs to know beyond the body itself.
struct Frame<'c> {
    what: String,
    /// The kernel or function, for numbering bounds-checked access sites (`None`: the plan of an outlined pipe).
    site_body: Option<irgc_front::bounds::SiteBody>,
    returns: Option<Option<Scalar>>,
    in_tile: bool,
    shared: Vec<PointerValue<'c>>,
    /// Which form of its kernel the body is lowered for.
    form: Form,
    /// The device functions this body calls, when not the ordinary set (`funcs`/`flat_funcs`), with the context
    /// slots every call passes along after its arguments (see [`FnSet`]).
    fns: Option<FnSet<'c>>,
}

/// A set of device functions lowered for one outlined pipe's steps: a function that pushes to the pipe's
/// worklist must push where the step does (the persistent kernel's rotating buffers and counts, which are step
/// parameters, not the context's slots), so each function of the set takes those slots' values as extra
/// parameters after its own and passes them on to the functions it calls.
#[derive(Clone)]
struct FnSet<'c> {
    funcs: Vec<FunctionValue<'c>>,
    slots: Vec<usize>,
}

struct Gen<'c, 'm> {
    c: &'c Context,
    lm: LModule<'c>,
    m: &'m Module,
    layout: Layout,
    ctx_ty: StructType<'c>,
    funcs: Vec<FunctionValue<'c>>,
    /// The device functions the flat entries call: lowered again when some function schedules a loop, else
    /// the same as `funcs`.
    flat_funcs: Vec<FunctionValue<'c>>,
    /// The device functions the rolled entries call: lowered again one iteration a turn when some function holds
    /// an unrolled loop, else the same as `funcs`.
    rolled_funcs: Vec<FunctionValue<'c>>,
    /// Per device function: whether it (or a function it calls) holds a scheduled nested loop.
    fn_scheduled: Vec<bool>,
    /// Per device function: whether it (or a function it calls) holds an unrolled loop.
    fn_unrolled: Vec<bool>,
    helpers: Helpers,
    /// Whether accesses are bounds-checked (`--check-bounds`).
    check_bounds: bool,
    /// Whether the target has thread-block clusters (`sm_90` on): small rounds of an outlined pipe then run on
    /// the first cluster, not only block 0 (`crate::pipe_solo`).
    clusters: bool,
    /// The globals a waiting kernel writes ([`irgc_front::analysis::coherent_globals`]): read and written as
    /// [`Lower::coherent_load`] and [`Lower::coherent_store`] say.
    coherent: std::collections::BTreeSet<usize>,
}

impl<'c> Gen<'c, '_> {
    /// Lowers `body` into `f`: allocates and zeroes every local in the entry block, then runs `build`, then
    /// ends the function with `ret` (for a function that may fall off its end: the type's zero).
    fn define(
        &mut self,
        f: FunctionValue<'c>,
        body: BodyView<'_>,
        frame: Frame<'c>,
        build: impl FnOnce(&mut Lower<'c, '_>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let c = self.c;
        let b = c.create_builder();
        let entry = c.append_basic_block(f, "entry");
        b.position_at_end(entry);
        let Some(ctx) = f.get_first_param() else {
            return Err(PtxError::Llvm("generated function without a context parameter".into()));
        };
        let ctx = ctx.into_pointer_value();
        ctx.set_name("ctx");
        let mut locals = Vec::with_capacity(body.locals.len());
        for (_, local) in body.locals.iter() {
            let ty = Lower::local_llvm(c, local.ty);
            let slot = b.build_alloca(ty, &local.name)?;
            // Defined from the start, so a read before any write is 0 on every path.
            let zero: BasicValueEnum = match local.ty {
                LocalType::Scalar(s) => types::constant(c, s, 0),
                LocalType::ArrayRef(_) => c.ptr_type(AddressSpace::from(GLOBAL)).const_null().into(),
            };
            b.build_store(slot, zero)?;
            locals.push(slot);
        }
        let start = c.append_basic_block(f, "start");
        b.build_unconditional_branch(start)?;
        b.position_at_end(start);
        let returns = frame.returns;
        let mut lw = Lower {
            c,
            b,
            lm: &self.lm,
            f,
            m: self.m,
            body,
            layout: self.layout,
            what: frame.what,
            ctx,
            ctx_ty: self.ctx_ty,
            entry,
            locals,
            loops: Vec::new(),
            reduction: None,
            funcs: match &frame.fns {
                Some(set) => &set.funcs,
                None if frame.form == Form::Flat => &self.flat_funcs,
                None if frame.form == Form::Rolled => &self.rolled_funcs,
                None => &self.funcs,
            },
            fn_slots: frame.fns.as_ref().map(|set| set.slots.clone()).unwrap_or_default(),
            form: frame.form,
            shared: frame.shared,
            nested_foralls: 0,
            in_tile: frame.in_tile,
            returns,
            helpers: &mut self.helpers,
            overrides: Vec::new(),
            reduce_coop: irgc_front::ir::Cooperation::Thread,
            reduction_addr: None,
            pipe_count: None,
            solo_counts: None,
            grid_share: false,
            nctaid_override: None,
            fine_gate: None,
            shared_pool: Default::default(),
            check_bounds: self.check_bounds,
            clusters: self.clusters,
            slot_cache: None,
            site_body: frame.site_body,
            coherent: &self.coherent,
            wait: None,
        };
        build(&mut lw)?;
        match returns {
            Some(Some(s)) => {
                lw.b.build_return(Some(&types::constant(c, s, 0)))?;
            }
            _ => {
                lw.b.build_return(None)?;
            }
        }
        Ok(())
    }

    /// `nvvm.annotations` entry `!{ptr @k, !"key", i32 value}` (launch bounds, read by the NVPTX back end).
    fn annotate(&self, f: FunctionValue<'c>, key: &str, value: u64) -> Result<(), PtxError> {
        let node = self.c.metadata_node(&[
            f.as_global_value().as_pointer_value().into(),
            self.c.metadata_string(key).into(),
            self.c.i32_type().const_int(value, false).into(),
        ]);
        self.lm.add_global_metadata("nvvm.annotations", &node).map_err(|e| PtxError::Llvm(format!("{e}")))
    }
}

/// Whether device function `f` (or one it calls) pushes to worklist `w`.
fn function_pushes(m: &Module, f: usize, w: usize) -> bool {
    irgc_front::analysis::function_has(
        m,
        f,
        |s| matches!(&s.kind, irgc_front::ir::StmtKind::Op(irgc_front::ir::DeviceOp::Push { worklist, .. }) if worklist.index() == w),
    )
}

/// A kernel's entries: the one named as the kernel, and its twins where it has them.
struct Twins<'c> {
    entry: FunctionValue<'c>,
    flat: Option<FunctionValue<'c>>,
    rolled: Option<FunctionValue<'c>>,
}

/// Which entries one LLVM module holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// Every kernel and every outlined pipe.
    All,
    Kernel(usize),
    /// Outlined pipe `i` (`irgc_front::ir::OutlinedLoop`, decided by `irgc-opt`).
    Pipe(usize),
    /// The flat twin of outlined pipe `i`, if it has one: a module of its own, so that a parallel compile builds
    /// the pipe's two entries (each with every step inlined, the largest functions of a program) at once.
    PipeFlat(usize),
}

/// Compiles the entries of `m` chosen by `part`, with every device function, to one PTX module: kernel entries
/// are declared first (they keep their exact names), then device functions, kernel bodies and outlined pipes are
/// defined, and the module is optimised and emitted.
pub(crate) fn compile(m: &Module, opts: &Options, part: Part) -> Result<PtxOutput, PtxError> {
    let chosen = |i: usize| part == Part::All || part == Part::Kernel(i);
    let tm = target_machine(&opts.arch)?;
    let c = Context::create();
    let mut g = Gen::new(&c, m, &tm, opts.check_bounds);
    g.clusters = has_clusters(&opts.arch);
    let entries = g.declare_kernels(&chosen)?;
    g.funcs = g.function_set("", Form::Scheduled, &[])?;
    // Where no function schedules (unrolls) a loop, the flat (rolled) entries call the same functions.
    g.flat_funcs =
        if g.fn_scheduled.contains(&true) { g.function_set(".flat", Form::Flat, &[])? } else { g.funcs.clone() };
    g.rolled_funcs =
        if g.fn_unrolled.contains(&true) { g.function_set(".rolled", Form::Rolled, &[])? } else { g.funcs.clone() };
    let mut out = PtxOutput::default();
    for ((kh, k), twins) in m.kernels.iter().enumerate().filter(|(i, _)| chosen(*i)).map(|(_, k)| k).zip(entries) {
        let (threads, bytes) = g.define_kernel(kh, k, twins.entry, Form::Scheduled)?;
        if let Some(flat) = twins.flat {
            g.define_kernel(kh, k, flat, Form::Flat)?;
        }
        if let Some(rolled) = twins.rolled {
            g.define_kernel(kh, k, rolled, Form::Rolled)?;
        }
        out.kernels.push(k.name.clone());
        out.block_threads.push(threads);
        out.shared_bytes.push(bytes);
    }
    for pipe in irgc_front::analysis::outlined_loops(m) {
        if part == Part::All || part == Part::Pipe(pipe.index) {
            out.pipes.push(g.define_pipe(pipe, false)?);
        }
        if (part == Part::All || part == Part::PipeFlat(pipe.index)) && g.pipe_scheduled(pipe) {
            g.define_pipe(pipe, true)?;
        }
    }
    (out.llvm_ir, out.ptx) = g.emit(&tm)?;
    Ok(out)
}

/// Whether GPUs of `arch` have thread-block clusters (compute capability 9.0 on).
fn has_clusters(arch: &str) -> bool {
    arch.starts_with("sm_90")
}

impl<'c, 'm> Gen<'c, 'm> {
    /// An empty LLVM module for `m` on the target, with the context struct type.
    fn new(c: &'c Context, m: &'m Module, tm: &TargetMachine, check_bounds: bool) -> Self {
        let lm = c.create_module(&m.name);
        lm.set_triple(&tm.get_triple());
        lm.set_data_layout(&tm.get_target_data().get_data_layout());
        let layout = layout_of(m);
        // With bounds checks the kernels also read the slot after the table (the bounds report's address); a
        // kernel whose sweep waits reads the one after that (the wait flags' address).
        let waits = m.kernels.iter().any(|(_, k)| k.waits());
        let slots = if check_bounds || waits { layout.context_len() } else { layout.len() };
        let slot_types: Vec<BasicTypeEnum> = vec![c.i64_type().into(); slots];
        let ctx_ty = c.opaque_struct_type("irgc.ctx");
        ctx_ty.set_body(&slot_types, false);
        let fn_scheduled = crate::nested::scheduled_functions(m);
        let fn_unrolled = crate::nested::unrolled_functions(m);
        Gen {
            c,
            lm,
            m,
            layout,
            ctx_ty,
            funcs: Vec::new(),
            flat_funcs: Vec::new(),
            rolled_funcs: Vec::new(),
            fn_scheduled,
            fn_unrolled,
            helpers: Helpers::default(),
            check_bounds,
            clusters: false,
            coherent: irgc_front::analysis::coherent_globals(m),
        }
    }

    /// Whether kernel `k` gets a flat entry: a `forall` kernel holding a scheduled nested loop (directly or
    /// through a call). Tile kernels are never scheduled by the nested-parallelism pass.
    fn kernel_scheduled(&self, k: &Kernel) -> bool {
        !matches!(top_level(k), Some(DeviceOp::ForTile { .. }))
            && crate::nested::holds_schedule(&k.body.block, &self.fn_scheduled)
    }

    /// Whether kernel `k` gets a rolled entry: its body, or a function it calls, holds a loop the `unroll` pass
    /// unrolled. Unrolled loops in functions raise the registers of every kernel that inlines them (`louvain_local`'s
    /// `move_small`: 112 against 64, half the resident blocks), and the runtime keeps whichever entry is faster.
    fn kernel_unrolled(&self, k: &Kernel) -> bool {
        crate::nested::holds_unrolled(&k.body.block, &self.fn_unrolled)
    }

    /// Whether an outlined pipe gets a flat entry: one of the kernels it runs does.
    fn pipe_scheduled(&self, pipe: &OutlinedLoop) -> bool {
        crate::pipe::pipe_kernels(pipe).into_iter().any(|kh| self.kernel_scheduled(&self.m.kernels[kh]))
    }

    fn global_ptr(&self) -> inkwell::types::PointerType<'c> {
        self.c.ptr_type(AddressSpace::from(GLOBAL))
    }

    fn always_inline(&self) -> Attribute {
        self.c.create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0)
    }

    /// Declares the chosen kernels' entries first: they own their exact names (LLVM renames a later symbol that
    /// collides, and the runtime looks entries up by name). Device functions and helpers have dotted names, which
    /// no IR identifier has.
    /// A kernel with a scheduled loop also owns its flat entry's name ([`irgc_artifact::flat_entry`]), and one
    /// with an unrolled loop its rolled entry's ([`irgc_artifact::rolled_entry`]).
    fn declare_kernels(&mut self, chosen: &dyn Fn(usize) -> bool) -> Result<Vec<Twins<'c>>, PtxError> {
        let c = self.c;
        let mut entries = Vec::new();
        for (i, (_, k)) in self.m.kernels.iter().enumerate() {
            if !chosen(i) {
                continue;
            }
            let ty = c.void_type().fn_type(&[self.global_ptr().into(), c.i64_type().into()], false);
            let declare = |name: &str| {
                let fv = self.lm.add_function(name, ty, None);
                if fv.get_name().to_bytes() != name.as_bytes() {
                    return Err(PtxError::Malformed(format!("two kernels named `{name}`")));
                }
                fv.set_call_conventions(71); // ptx_kernel: an `.entry`
                Ok(fv)
            };
            let entry = declare(&k.name)?;
            let flat = if self.kernel_scheduled(k) { Some(declare(&flat_entry(&k.name))?) } else { None };
            let rolled = if self.kernel_unrolled(k) { Some(declare(&rolled_entry(&k.name))?) } else { None };
            entries.push(Twins { entry, flat, rolled });
        }
        Ok(entries)
    }

    /// Declares every device function under names ending in `suffix` before any body (bodies call each other in
    /// any order), then defines them, lowered for entries of `form`, each taking the values of context `slots` as
    /// extra parameters (see [`FnSet`]; none for the ordinary sets).
    fn function_set(&mut self, suffix: &str, form: Form, slots: &[usize]) -> Result<Vec<FunctionValue<'c>>, PtxError> {
        let (c, m) = (self.c, self.m);
        let mut funcs = Vec::new();
        for (h, f) in m.functions.iter() {
            let mut params: Vec<BasicMetadataTypeEnum> = vec![self.global_ptr().into()];
            params.extend(
                f.params.iter().map(|&p| BasicMetadataTypeEnum::from(Lower::local_llvm(c, f.body.locals[p].ty))),
            );
            params.extend(slots.iter().map(|_| BasicMetadataTypeEnum::from(c.i64_type())));
            let ty = match f.ret {
                Some(s) => reg(c, s).fn_type(&params, false),
                None => c.void_type().fn_type(&params, false),
            };
            let name = format!("irgc.fn.{}.{}{suffix}", h.index(), f.name);
            let fv = self.lm.add_function(&name, ty, Some(Linkage::Internal));
            fv.add_attribute(AttributeLoc::Function, self.always_inline());
            funcs.push(fv);
        }
        for (h, f) in m.functions.iter() {
            let fv = funcs[h.index()];
            let frame = Frame {
                what: format!("function `{}`", f.name),
                site_body: Some(irgc_front::bounds::SiteBody::Function(h)),
                returns: Some(f.ret),
                in_tile: false,
                shared: vec![],
                form,
                fns: Some(FnSet { funcs: funcs.clone(), slots: slots.to_vec() }),
            };
            self.define(fv, f.body.view(), frame, |lw| {
                for (k, &p) in f.params.iter().enumerate() {
                    let Some(v) = fv.get_nth_param(k as u32 + 1) else {
                        return lw.malformed("missing parameter");
                    };
                    lw.write_local(p, v)?;
                }
                for (n, &slot) in slots.iter().enumerate() {
                    let Some(v) = fv.get_nth_param((f.params.len() + n) as u32 + 1) else {
                        return lw.malformed("missing worklist parameter");
                    };
                    lw.overrides.push((slot, v.into_int_value()));
                }
                lw.block_of(&f.body.block)
            })?;
        }
        Ok(funcs)
    }

    /// Defines kernel `k`'s entry `fv` in `form`; returns its exact block size (tile kernels) and its
    /// shared-memory bytes.
    fn define_kernel(
        &mut self,
        kh: irgc_front::ir::Handle<Kernel>,
        k: &'m Kernel,
        fv: FunctionValue<'c>,
        form: Form,
    ) -> Result<(Option<u32>, u64), PtxError> {
        let what = format!("kernel `{}`", k.name);
        let tile = match top_level(k) {
            Some(DeviceOp::ForTile { threads, .. }) => {
                let n: u64 = threads.iter().map(|&t| u64::from(t)).product();
                if n == 0 || n > MAX_BLOCK {
                    return Err(PtxError::Unsupported(format!("{what}: a tile of {n} threads (1 to {MAX_BLOCK})")));
                }
                Some(n)
            }
            _ => None,
        };
        let (shared, bytes) = self.shared_arrays(k, &what)?;
        match tile {
            Some(n) => self.annotate(fv, "reqntidx", n)?,
            None => self.annotate(fv, "maxntidx", u64::from(crate::FORALL_MAX_THREADS))?,
        }
        let site_body = Some(irgc_front::bounds::SiteBody::Kernel(kh));
        let frame = Frame { what, site_body, returns: None, in_tile: tile.is_some(), shared, form, fns: None };
        self.define(fv, k.body.view(), frame, |lw| {
            let Some(size) = fv.get_nth_param(1) else {
                return lw.malformed("missing size parameter");
            };
            let size = size.into_int_value();
            size.set_name("size");
            lw.kernel_entry(k, Some(size))
        })?;
        Ok((tile.map(|n| n as u32), bytes))
    }

    /// The address-space-3 globals of kernel `k`'s shared arrays, and their total bytes (within the static limit).
    fn shared_arrays(&mut self, k: &Kernel, what: &str) -> Result<(Vec<PointerValue<'c>>, u64), PtxError> {
        let mut shared = Vec::new();
        let mut bytes = 0;
        for (_, a) in k.body.shared.iter() {
            let n: u64 = a.dims.iter().map(|&d| u64::from(d)).product();
            let elem = types::mem(self.c, a.elem);
            let Ok(len) = u32::try_from(n) else {
                return Err(PtxError::Unsupported(format!("{what}: shared array `{}` too large", a.name)));
            };
            let aty = elem.array_type(len);
            let gv = self.lm.add_global(aty, Some(AddressSpace::from(SHARED)), &format!("{}__{}", k.name, a.name));
            gv.set_linkage(Linkage::Internal);
            gv.set_initializer(&aty.get_undef());
            gv.set_alignment(16);
            bytes += n * u64::from(a.elem.bits() / 8);
            shared.push(gv.as_pointer_value());
        }
        if bytes > MAX_STATIC_SHARED {
            return Err(PtxError::Unsupported(format!(
                "{what}: {bytes} bytes of shared arrays (static shared memory holds {MAX_STATIC_SHARED})"
            )));
        }
        Ok((shared, bytes))
    }

    /// Defines an outlined pipe's entry: one inlined step function per kernel it launches (the kernel's
    /// grid-stride loop with its worklist slots and reduction address passed in), then the persistent loop that
    /// calls them. Returns the entry's name.
    /// `flat`: its flat entry ([`irgc_artifact::flat_entry`]).
    fn define_pipe(&mut self, pipe: &'m OutlinedLoop, flat: bool) -> Result<String, PtxError> {
        let (c, m) = (self.c, self.m);
        let gptr = self.global_ptr();
        let name = if flat { flat_entry(&pipe.entry()) } else { pipe.entry() };
        let what = match pipe.worklist {
            Some(w) => format!("the pipe over `{}`", m.worklists[w].name),
            None => "an outlined loop".to_string(),
        };
        let ty = c.void_type().fn_type(&[gptr.into(), crate::pipe::state_type(c).into()], false);
        let fv = self.lm.add_function(&name, ty, None);
        if fv.get_name().to_bytes() != name.as_bytes() {
            return Err(PtxError::Unsupported(format!("a kernel is named `{name}`, the name of the entry of {what}")));
        }
        fv.set_call_conventions(71);
        self.annotate(fv, "maxntidx", u64::from(crate::FORALL_MAX_THREADS))?;
        // The steps' own device functions, where one of them pushes to the pipe's worklist (see `FnSet`).
        let fns = match pipe.worklist {
            Some(w) if m.functions.iter().any(|(h, _)| function_pushes(m, h.index(), w.index())) => {
                let slots = crate::pipe::step_slots(&self.layout, Some(w.index()), &[]);
                let suffix = format!(".pipe{}{}", pipe.index, if flat { ".flat" } else { "" });
                Some(FnSet { funcs: self.function_set(&suffix, Form::flat_if(flat), &slots)?, slots })
            }
            _ => None,
        };
        let mut steps = Vec::new();
        for kh in crate::pipe::pipe_kernels(pipe) {
            let k = &m.kernels[kh];
            let slots = crate::pipe::step_slots(&self.layout, pipe.worklist.map(|w| w.index()), &k.params);
            let mut params: Vec<BasicMetadataTypeEnum> = vec![gptr.into()];
            params.extend(slots.iter().map(|_| BasicMetadataTypeEnum::from(c.i64_type())));
            // The blocks taking part in the launch: the grid's, or 1 in a round block 0 runs alone.
            params.push(c.i64_type().into());
            if k.reduction.is_some() {
                params.push(gptr.into());
            }
            let sty = c.void_type().fn_type(&params, false);
            let sv = self.lm.add_function(&crate::pipe::step_name(pipe.index, kh, m), sty, Some(Linkage::Internal));
            sv.add_attribute(AttributeLoc::Function, self.always_inline());
            let frame = Frame {
                what: format!("kernel `{}` in {what}", k.name),
                site_body: Some(irgc_front::bounds::SiteBody::Kernel(kh)),
                returns: None,
                in_tile: false,
                shared: vec![],
                form: Form::flat_if(flat),
                fns: fns.clone(),
            };
            self.define(sv, k.body.view(), frame, |lw| {
                for (n, &slot) in slots.iter().enumerate() {
                    let Some(v) = sv.get_nth_param(n as u32 + 1) else {
                        return lw.malformed("missing step parameter");
                    };
                    lw.overrides.push((slot, v.into_int_value()));
                }
                let Some(blocks) = sv.get_nth_param(slots.len() as u32 + 1) else {
                    return lw.malformed("missing block count parameter");
                };
                lw.nctaid_override = Some(blocks.into_int_value());
                if k.reduction.is_some() {
                    let Some(addr) = sv.get_nth_param(slots.len() as u32 + 2) else {
                        return lw.malformed("missing reduction address parameter");
                    };
                    lw.reduction_addr = Some(addr.into_pointer_value());
                }
                lw.kernel_entry(k, None)
            })?;
            steps.push((kh, sv));
        }
        let frame = Frame {
            what,
            site_body: None,
            returns: None,
            in_tile: false,
            shared: vec![],
            form: Form::flat_if(flat),
            fns: None,
        };
        self.define(fv, m.plan.view(), frame, |lw| {
            let Some(state) = fv.get_nth_param(1) else {
                return lw.malformed("missing state parameter");
            };
            let state = state.into_pointer_value();
            state.set_name("state");
            lw.slot_cache = Some(Default::default());
            lw.pipe_entry(pipe, state, &steps)
        })?;
        Ok(name)
    }

    /// Links the helpers, verifies, keeps the LLVM IR as generated, optimises (O3) and emits PTX.
    fn emit(self, tm: &TargetMachine) -> Result<(String, String), PtxError> {
        self.helpers.link(self.c, &self.lm)?;
        let llvm_ir = self.lm.print_to_string().to_string();
        self.lm.verify().map_err(|e| PtxError::Llvm(format!("invalid module: {e}")))?;
        self.lm
            .run_passes("default<O3>", tm, PassBuilderOptions::create())
            .map_err(|e| PtxError::Llvm(format!("optimisation: {e}")))?;
        let buf = tm
            .write_to_memory_buffer(&self.lm, FileType::Assembly)
            .map_err(|e| PtxError::Llvm(format!("PTX emission: {e}")))?;
        Ok((llvm_ir, String::from_utf8_lossy(buf.as_slice()).into_owned()))
    }
}
