//! Drives Cranelift: sets up the JIT for the host, declares one native function per device function and two per
//! kernel (entry and size), lowers each body, and links them.

use crate::call::{CpuProgram, KernelCode};
use crate::kernel;
use crate::lower::{Home, Lower, Tile};
use crate::types::{self, clif};
use crate::{layout_of, CpuError};
use cranelift_codegen::ir::{
    types as t, AbiParam, InstBuilder, Signature, StackSlotData, StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module as _};
use irgc_artifact::Layout;
use irgc_front::bounds::SiteBody;
use irgc_front::ir::{DeviceBody as Body, LocalType, Module, Scalar};

fn cl_err(e: impl std::fmt::Debug) -> CpuError {
    CpuError::Cranelift(format!("{e:?}"))
}

/// A JIT for the machine we run on.
fn jit() -> Result<JITModule, CpuError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(cl_err);
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    // Tile kernels keep per-thread locals in large stack frames: probe them page by page.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    let isa = cranelift_native::builder()
        .map_err(|e| CpuError::Unsupported(format!("this host is not supported by Cranelift: {e}")))?
        .finish(settings::Flags::new(flags))
        .map_err(cl_err)?;
    Ok(JITModule::new(JITBuilder::with_isa(isa, default_libcall_names())))
}

/// What to know about a body before lowering it: its name, return type and where its locals live.
struct Frame {
    /// What is being compiled, for error messages.
    what: String,
    /// `Some(ret)` for a device function.
    returns: Option<Option<Scalar>>,
    /// `Some(cell)` for the locals kept per tile thread.
    cells: Vec<Option<usize>>,
    /// `(threads, shape, per-thread cells)` of a tile kernel.
    tile: Option<(usize, Vec<u32>, usize)>,
    /// The body, for numbering bounds-checked access sites.
    site_body: SiteBody,
}

impl Frame {
    fn plain(what: String, body: &Body, site_body: SiteBody) -> Frame {
        Frame { what, returns: None, cells: vec![None; body.locals.len()], tile: None, site_body }
    }
}

struct Gen<'m> {
    m: &'m Module,
    layout: Layout,
    jit: JITModule,
    ctx: Context,
    fctx: FunctionBuilderContext,
    funcs: Vec<FuncId>,
    /// Whether accesses are bounds-checked (`--check-bounds`).
    check_bounds: bool,
    /// Whether any function reads the edge-source array.
    reads_sources: bool,
}

impl<'m> Gen<'m> {
    /// Declares a function taking the context pointer then `params`, returning `ret`.
    fn declare(
        &mut self,
        name: &str,
        params: &[t::Type],
        ret: Option<t::Type>,
    ) -> Result<(FuncId, Signature), CpuError> {
        let mut sig = self.jit.make_signature();
        sig.params.push(AbiParam::new(t::I64));
        sig.params.extend(params.iter().map(|&p| AbiParam::new(p)));
        sig.returns.extend(ret.map(AbiParam::new));
        let id = self.jit.declare_function(name, Linkage::Local, &sig).map_err(cl_err)?;
        Ok((id, sig))
    }

    /// Lowers one body into function `id`: `build` gets the lowering state and the function's parameters (the
    /// context first) and returns the values to return.
    fn define(
        &mut self,
        id: FuncId,
        sig: Signature,
        body: &'m Body,
        frame: Frame,
        build: impl FnOnce(&mut Lower<'m, '_>, &[Value]) -> Result<Vec<Value>, CpuError>,
    ) -> Result<(), CpuError> {
        self.jit.clear_context(&mut self.ctx);
        self.ctx.func.signature = sig;
        self.ctx.func.name = UserFuncName::user(0, id.as_u32());
        let funcs = self.funcs.iter().map(|&f| self.jit.declare_func_in_func(f, &mut self.ctx.func)).collect();
        let slot = |func: &mut cranelift_codegen::ir::Function, bytes: u64| {
            let size = u32::try_from(bytes.max(8)).expect("frame too large");
            func.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 3))
        };
        let shared = body
            .shared
            .iter()
            .map(|(_, a)| {
                let n: u64 = a.dims.iter().map(|&d| u64::from(d)).product();
                slot(&mut self.ctx.func, n * types::size(a.elem) as u64)
            })
            .collect();
        let tile_frame =
            frame.tile.as_ref().map(|(threads, _, cells)| slot(&mut self.ctx.func, (threads * cells * 8) as u64));

        let mut b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let mut homes = Vec::with_capacity(body.locals.len());
        for ((_, local), cell) in body.locals.iter().zip(&frame.cells) {
            homes.push(match cell {
                Some(i) => Home::Thread(*i),
                None => {
                    let (ty, zero) = match local.ty {
                        LocalType::Scalar(s) => (clif(s), s),
                        LocalType::ArrayRef(_) => (t::I64, Scalar::U64),
                    };
                    let v = b.declare_var(ty);
                    // Defined from the start, so a read before any write is 0 on every path.
                    let z = types::constant(&mut b, zero, 0);
                    b.def_var(v, z);
                    Home::Var(v)
                }
            });
        }
        let tile = match (frame.tile, tile_frame) {
            (Some((threads, shape, _)), Some(frame)) => {
                Some(Tile { threads, shape, frame, tid: b.declare_var(t::I64) })
            }
            _ => None,
        };
        let mut lw = Lower {
            b,
            m: self.m,
            body,
            layout: self.layout,
            what: frame.what,
            ctx: params[0],
            homes,
            loops: Vec::new(),
            reduction: None,
            funcs,
            shared,
            tile,
            returns: frame.returns,
            check_bounds: self.check_bounds,
            site_body: frame.site_body,
            edge_walk: None,
            reads_sources: false,
            push_buffers: Vec::new(),
            wait: None,
        };
        let results = build(&mut lw, &params)?;
        self.reads_sources |= lw.reads_sources;
        lw.b.ins().return_(&results);
        lw.b.seal_all_blocks();
        lw.b.finalize(self.jit.target_config());
        self.jit.define_function(id, &mut self.ctx).map_err(|e| match e {
            cranelift_module::ModuleError::Compilation(c) => {
                CpuError::Cranelift(format!("{c:?}\n{}", self.ctx.func.display()))
            }
            e => cl_err(e),
        })
    }
}

pub(crate) fn compile(m: &Module, check_bounds: bool) -> Result<CpuProgram, CpuError> {
    let mut g = Gen {
        check_bounds,
        reads_sources: false,
        m,
        layout: layout_of(m),
        jit: jit()?,
        ctx: Context::new(),
        fctx: FunctionBuilderContext::new(),
        funcs: vec![],
    };
    g.ctx = g.jit.make_context();

    // Declare every device function first: bodies call each other in any order.
    let mut fsigs = Vec::new();
    for (h, f) in m.functions.iter() {
        let params: Vec<t::Type> = f
            .params
            .iter()
            .map(|&p| match f.body.locals[p].ty {
                LocalType::Scalar(s) => clif(s),
                LocalType::ArrayRef(_) => t::I64,
            })
            .collect();
        let (id, sig) = g.declare(&format!("f{}_{}", h.index(), f.name), &params, f.ret.map(clif))?;
        g.funcs.push(id);
        fsigs.push(sig);
    }
    for ((h, f), sig) in m.functions.iter().zip(fsigs) {
        let id = g.funcs[h.index()];
        let what = format!("function `{}`", f.name);
        let frame = Frame { returns: Some(f.ret), ..Frame::plain(what, &f.body, SiteBody::Function(h)) };
        g.define(id, sig, &f.body, frame, |lw, params| {
            for (&p, &v) in f.params.iter().zip(&params[1..]) {
                lw.write_local(p, v);
            }
            lw.block(&f.body.block)?;
            // Falling off the end (the front end may not prove every path returns): return 0.
            Ok(match f.ret {
                Some(s) => vec![types::constant(&mut lw.b, s, 0)],
                None => vec![],
            })
        })?;
    }

    let mut code = Vec::new();
    for (h, k) in m.kernels.iter() {
        let what = format!("kernel `{}`", k.name);
        let frame = match kernel::tile_homes(k) {
            Some((threads, cells, homes)) => {
                let shape = match kernel::top_level(k) {
                    Some(irgc_front::ir::DeviceOp::ForTile { threads, .. }) => threads.clone(),
                    _ => vec![1],
                };
                Frame {
                    cells: homes,
                    tile: Some((threads, shape, cells)),
                    ..Frame::plain(what.clone(), &k.body, SiteBody::Kernel(h))
                }
            }
            None => Frame::plain(what.clone(), &k.body, SiteBody::Kernel(h)),
        };
        let (entry, sig) = g.declare(&format!("k{}_{}", h.index(), k.name), &[t::I64, t::I64], Some(t::I64))?;
        g.define(entry, sig, &k.body, frame, |lw, p| Ok(vec![lw.kernel_entry(k, p[1], p[2])?]))?;
        let (size, sig) = g.declare(&format!("k{}_{}_size", h.index(), k.name), &[], Some(t::I64))?;
        // The size function evaluates only the space's bounds: no tile frame needed.
        g.define(size, sig, &k.body, Frame::plain(what, &k.body, SiteBody::Kernel(h)), |lw, _| {
            Ok(vec![lw.kernel_size(k)?])
        })?;
        code.push((k.name.clone(), entry, size));
    }

    g.jit.finalize_definitions().map_err(cl_err)?;
    let kernels = code
        .into_iter()
        .map(|(name, entry, size)| KernelCode {
            name,
            entry: g.jit.get_finalized_function(entry),
            size: g.jit.get_finalized_function(size),
        })
        .collect();
    Ok(CpuProgram::new(g.jit, g.layout, kernels, g.check_bounds, g.reads_sources))
}
