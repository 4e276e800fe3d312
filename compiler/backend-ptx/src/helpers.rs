//! Tiny LLVM functions written as textual IR, for the instructions inkwell can only build through `unsafe` (a
//! `getelementptr` with a dynamic index) or not at all (`atomicrmw fadd`).
//!
//! The crate has no `unsafe` code, so instead of building those instructions directly, the generated code calls
//! a helper (declared on first use); at the end, the helpers used are parsed from text into a module of the same
//! context, linked in, and made internal. They are `alwaysinline`, so the optimiser replaces every call by the
//! instruction itself and the PTX is the same as if it had been built inline; only the pre-optimisation IR shows
//! the calls.

use crate::PtxError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;
use std::collections::BTreeMap;

/// The helpers used so far: name and definition.
#[derive(Default)]
pub(crate) struct Helpers {
    defs: BTreeMap<String, String>,
}

impl Helpers {
    /// `ptr elem(ptr p, i64 i)`: the address of element `i` of an array of `elem` in address space `space`
    /// (`getelementptr inbounds`: indices are in bounds by the language's contract, as on the CPU).
    pub fn element<'c>(
        &mut self,
        c: &'c Context,
        m: &Module<'c>,
        elem: BasicTypeEnum<'c>,
        space: u16,
    ) -> FunctionValue<'c> {
        let t = type_name(elem);
        let name = format!("irgc.elem.{t}.as{space}");
        let p = format!("ptr addrspace({space})");
        let def = format!(
            "define {p} @\"{name}\"({p} %p, i64 %i) #0 {{\n  %q = getelementptr inbounds {t}, {p} %p, i64 %i\n  \
             ret {p} %q\n}}\n"
        );
        let ptr = c.ptr_type(AddressSpace::from(space));
        let ty = ptr.fn_type(&[ptr.into(), c.i64_type().into()], false);
        self.declare(m, name, ty, def)
    }

    /// `f old = fadd(ptr p, f v)`: a relaxed `atomicrmw fadd` on a float (`atom.add.f32`/`.f64`).
    pub fn atomic_fadd<'c>(
        &mut self,
        c: &'c Context,
        m: &Module<'c>,
        ft: BasicTypeEnum<'c>,
        space: u16,
    ) -> FunctionValue<'c> {
        let t = type_name(ft);
        let name = format!("irgc.atomic.fadd.{t}.as{space}");
        let p = format!("ptr addrspace({space})");
        let align = if t == "float" { 4 } else { 8 };
        let def = format!(
            "define {t} @\"{name}\"({p} %p, {t} %v) #0 {{\n  %r = atomicrmw fadd {p} %p, {t} %v monotonic, align \
             {align}\n  ret {t} %r\n}}\n"
        );
        let ptr = c.ptr_type(AddressSpace::from(space));
        let ty = ft.fn_type(&[ptr.into(), ft.into()], false);
        self.declare(m, name, ty, def)
    }

    fn declare<'c>(
        &mut self,
        m: &Module<'c>,
        name: String,
        ty: inkwell::types::FunctionType<'c>,
        def: String,
    ) -> FunctionValue<'c> {
        if let Some(f) = m.get_function(&name) {
            return f;
        }
        let f = m.add_function(&name, ty, None);
        self.defs.insert(name, def);
        f
    }

    /// Parses the helpers used, links them into `m` and makes them internal (so they vanish once inlined).
    pub fn link<'c>(&self, c: &'c Context, m: &Module<'c>) -> Result<(), PtxError> {
        if self.defs.is_empty() {
            return Ok(());
        }
        let layout = m.get_data_layout().as_str().to_string_lossy().into_owned();
        let triple = m.get_triple().as_str().to_string_lossy().into_owned();
        let mut text = format!("target datalayout = \"{layout}\"\ntarget triple = \"{triple}\"\n\n");
        for def in self.defs.values() {
            text.push_str(def);
            text.push('\n');
        }
        text.push_str("attributes #0 = { alwaysinline nounwind }\n");
        let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "irgc_helpers");
        let hm = c.create_module_from_ir(buf).map_err(|e| PtxError::Llvm(format!("helpers: {e}")))?;
        m.link_in_module(hm).map_err(|e| PtxError::Llvm(format!("linking helpers: {e}")))?;
        for name in self.defs.keys() {
            match m.get_function(name) {
                Some(f) => f.set_linkage(Linkage::Internal),
                None => return Err(PtxError::Llvm(format!("helper `{name}` lost in linking"))),
            }
        }
        Ok(())
    }
}

/// The textual IR name of a type (`i32`, `float`...).
fn type_name(t: BasicTypeEnum) -> String {
    t.print_to_string().to_string()
}
