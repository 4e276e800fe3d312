//! The kernel context as generated code sees it: a table of `u64` slots in global memory (see the crate docs and
//! `irgc_artifact`'s kernel ABI), plus the GPU's special registers and LLVM intrinsics.
//!
//! Slots are read with `!invariant.load` loads: the runtime fills the table before a launch and nobody writes
//! it during one, so LLVM may hoist slot reads out of loops and NVPTX may read them through the read-only
//! (non-coherent) cache.

use crate::lower::{Lower, GLOBAL};
use crate::PtxError;
use inkwell::builder::Builder;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, IntType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue, IntValue, PointerValue,
};
use inkwell::AddressSpace;
use irgc_artifact::Layout;
use irgc_front::ir::Scalar;

impl<'c> Lower<'c, '_> {
    /// The address of slot `i` (also the address the reduction atomics update).
    pub fn slot_addr(&self, i: usize) -> Result<PointerValue<'c>, PtxError> {
        self.slot_addr_at(&self.b, i)
    }

    /// [`Lower::slot_addr`], computed where `b` stands.
    fn slot_addr_at(&self, b: &Builder<'c>, i: usize) -> Result<PointerValue<'c>, PtxError> {
        let idx = u32::try_from(i).map_err(|_| PtxError::Unsupported("a context of over 2^32 slots".into()))?;
        Ok(b.build_struct_gep(self.ctx_ty, self.ctx, idx, "")?)
    }

    /// Slot `i` of the context, as an `i64`. In an outlined pipe's entry ([`Lower::slot_cache`]) each slot is
    /// loaded once, at the top of the entry block.
    pub fn slot(&self, i: usize) -> Result<IntValue<'c>, PtxError> {
        if let Some(&(_, v)) = self.overrides.iter().find(|(slot, _)| *slot == i) {
            return Ok(v);
        }
        let Some(cache) = &self.slot_cache else {
            return self.invariant_slot(&self.b, i);
        };
        if let Some(&v) = cache.borrow().get(&i) {
            return Ok(v);
        }
        let v = self.invariant_slot(&self.entry_top(), i)?;
        cache.borrow_mut().insert(i, v);
        Ok(v)
    }

    /// An `!invariant.load` of slot `i` where `b` stands.
    fn invariant_slot(&self, b: &Builder<'c>, i: usize) -> Result<IntValue<'c>, PtxError> {
        let addr = self.slot_addr_at(b, i)?;
        let v = b.build_load(self.c.i64_type(), addr, &format!("slot{i}"))?;
        if let Some(inst) = v.as_instruction_value() {
            let md = self.c.metadata_node(&[]);
            inst.set_metadata(md, self.c.get_kind_id("invariant.load"))
                .map_err(|e| PtxError::Llvm(format!("invariant.load: {e:?}")))?;
        }
        self.int(v)
    }

    /// A pointer slot, as a global-memory pointer.
    pub fn slot_ptr(&self, i: usize) -> Result<PointerValue<'c>, PtxError> {
        let bits = self.slot(i)?;
        Ok(self.b.build_int_to_ptr(bits, self.c.ptr_type(AddressSpace::from(GLOBAL)), "")?)
    }

    /// A worklist count slot (`OutCount`, `SpentCount`, `RetryCount`) as a pointer: a generic one on a target with
    /// clusters, where a step of an outlined pipe may be handed a count in block 0's shared memory (a small round
    /// on the first cluster, `crate::pipe_solo`), else a global-memory one.
    pub fn count_ptr(&self, i: usize) -> Result<PointerValue<'c>, PtxError> {
        if !self.clusters {
            return self.slot_ptr(i);
        }
        let bits = self.slot(i)?;
        Ok(self.b.build_int_to_ptr(bits, self.c.ptr_type(AddressSpace::default()), "")?)
    }

    /// The value of a param or kernel-argument slot, as a value of type `s`.
    pub fn scalar_slot(&self, i: usize, s: Scalar) -> Result<BasicValueEnum<'c>, PtxError> {
        let bits = self.slot(i)?;
        self.bits_to_value(s, bits)
    }

    /// Reads `row_start[v + extra]` for `v` a node (`i32`), `extra` 0 or 1: an edge id.
    pub fn row_start(&mut self, v: IntValue<'c>, extra: u64) -> Result<IntValue<'c>, PtxError> {
        let base = self.slot_ptr(Layout::ROW_START)?;
        let i64t = self.c.i64_type();
        let mut i = self.b.build_int_z_extend(v, i64t, "")?;
        if extra != 0 {
            i = self.b.build_int_add(i, i64t.const_int(extra, false), "")?;
        }
        let addr = self.element(base, i, Scalar::Edge, GLOBAL)?;
        let v = self.b.build_load(i64t, addr, "")?;
        self.int(v)
    }

    /// An intrinsic (or any function LLVM knows by name), declared on first use.
    pub fn intrinsic(
        &self,
        name: &str,
        ret: Option<BasicTypeEnum<'c>>,
        params: &[BasicTypeEnum<'c>],
    ) -> FunctionValue<'c> {
        if let Some(f) = self.lm.get_function(name) {
            return f;
        }
        let params: Vec<BasicMetadataTypeEnum> = params.iter().map(|&p| p.into()).collect();
        let ty = match ret {
            Some(r) => r.fn_type(&params, false),
            None => self.c.void_type().fn_type(&params, false),
        };
        self.lm.add_function(name, ty, None)
    }

    /// Calls an intrinsic returning a value.
    pub fn call_intrinsic(
        &self,
        name: &str,
        ret: BasicTypeEnum<'c>,
        args: &[BasicValueEnum<'c>],
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let tys: Vec<BasicTypeEnum> = args.iter().map(|a| a.get_type()).collect();
        let f = self.intrinsic(name, Some(ret), &tys);
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        match self.b.build_call(f, &args, "")?.try_as_basic_value().basic() {
            Some(v) => Ok(v),
            None => Err(PtxError::Llvm(format!("{name} returned nothing"))),
        }
    }

    /// A piece of inline assembly returning `ret` (nothing: `None`), its `constraints` in LLVM's syntax (the
    /// result's first, then one per argument; `~{memory}` so nothing is moved across it), with side effects: the
    /// scoped loads, stores, atomics and fences of the memory model that LLVM 19's NVPTX backend does not emit,
    /// and forms no intrinsic has. Returns the call (for its value, or to add attributes to it).
    pub fn inline_asm(
        &self,
        ret: Option<IntType<'c>>,
        asm: &str,
        constraints: &str,
        args: &[BasicMetadataValueEnum<'c>],
        name: &str,
    ) -> Result<CallSiteValue<'c>, PtxError> {
        let mut params: Vec<BasicMetadataTypeEnum<'c>> = Vec::with_capacity(args.len());
        for a in args {
            params.push(match a {
                BasicMetadataValueEnum::PointerValue(p) => p.get_type().into(),
                BasicMetadataValueEnum::IntValue(i) => i.get_type().into(),
                _ => return Err(PtxError::Llvm("inline assembly takes integers and pointers".into())),
            });
        }
        let ty = match ret {
            Some(r) => r.fn_type(&params, false),
            None => self.c.void_type().fn_type(&params, false),
        };
        let asm = self.c.create_inline_asm(ty, asm.to_string(), constraints.to_string(), true, false, None, false);
        Ok(self.b.build_indirect_call(ty, asm, args, name)?)
    }

    /// [`Lower::inline_asm`] returning a `u64` (constraint `=l`).
    pub fn asm_u64(
        &self,
        asm: &str,
        constraints: &str,
        args: &[BasicMetadataValueEnum<'c>],
        name: &str,
    ) -> Result<IntValue<'c>, PtxError> {
        let call = self.inline_asm(Some(self.c.i64_type()), asm, constraints, args, name)?;
        match call.try_as_basic_value().basic() {
            Some(v) => Ok(v.into_int_value()),
            None => Err(PtxError::Llvm("inline assembly returned nothing".into())),
        }
    }

    /// A special register (`tid`, `ctaid`, `ntid`, `nctaid`), x component, widened to `i64` (`nctaid`: the blocks
    /// taking part, in a step of an outlined pipe).
    pub fn sreg(&self, which: &str) -> Result<IntValue<'c>, PtxError> {
        if let (Some(n), "nctaid") = (self.nctaid_override, which) {
            return Ok(n);
        }
        let name = format!("llvm.nvvm.read.ptx.sreg.{which}.x");
        let v = self.call_intrinsic(&name, self.c.i32_type().into(), &[])?;
        Ok(self.b.build_int_z_extend(self.int(v)?, self.c.i64_type(), which)?)
    }

    /// `bar.sync 0`: waits for every thread of the block.
    pub fn barrier(&self) -> Result<(), PtxError> {
        let f = self.intrinsic("llvm.nvvm.barrier0", None, &[]);
        self.b.build_call(f, &[], "")?;
        Ok(())
    }
}
