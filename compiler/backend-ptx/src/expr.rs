//! Expressions: pure trees, each evaluated where it is used (LLVM's GVN removes the repeats).
//!
//! Signedness comes from the operand type: `i32`/`i64` divide, shift right and compare signed; `u32`/`u64`, ids
//! and bool unsigned; floats compare ordered (IEEE: false with NaN, except `!=`, which is unordered-or-unequal).
//! Every operation is chosen to give bit-for-bit the CPU backend's result (see the crate docs).

use crate::lower::{Lower, GLOBAL};
use crate::types::{self, reg};
use crate::PtxError;
use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use irgc_artifact::Layout;
use irgc_front::ir::{BinaryOp, Expr, ExprKind, GraphQuery, Handle, Literal, MathFn, Scalar, UnaryOp};

impl<'c> Lower<'c, '_> {
    pub fn expr(&mut self, h: Handle<Expr>) -> Result<BasicValueEnum<'c>, PtxError> {
        let e = self.expr_of(h);
        let ty = e.ty;
        Ok(match &e.kind {
            ExprKind::Literal(lit) => self.literal(*lit, ty),
            ExprKind::Local(l) => self.read_local(*l)?,
            ExprKind::Param(p) => self.scalar_slot(self.layout.param(p.index()), ty)?,
            ExprKind::Load { array, index } => {
                let (addr, elem, _) = self.array_addr(*array, index)?;
                let v = if self.coherent_array(*array) {
                    self.coherent_load(addr, elem)?
                } else {
                    self.b.build_load(types::mem(self.c, elem), addr, "")?
                };
                self.mem_to_reg(elem, v)?
            }
            ExprKind::Unary { op, arg } => {
                let v = self.expr(*arg)?;
                match op {
                    UnaryOp::Neg if ty.is_float() => self.b.build_float_neg(self.float(v)?, "")?.into(),
                    UnaryOp::Neg => self.b.build_int_neg(self.int(v)?, "")?.into(),
                    UnaryOp::Not | UnaryOp::BitNot => self.b.build_not(self.int(v)?, "")?.into(),
                }
            }
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), left, right } => {
                self.short_circuit(*op == BinaryOp::And, *left, *right)?
            }
            ExprKind::Binary { op, left, right } => {
                let lt = self.expr_of(*left).ty;
                let l = self.expr(*left)?;
                let r = self.expr(*right)?;
                self.binary(*op, lt, l, r)?
            }
            ExprKind::Cast { arg } => {
                let from = self.expr_of(*arg).ty;
                let v = self.expr(*arg)?;
                self.cast(v, from, ty)?
            }
            ExprKind::Math { fun, args } => self.math(*fun, args, ty)?,
            ExprKind::Graph(q) => self.graph(*q, ty)?,
            // Inside an outlined pipe, its own worklist's size is the count the persistent kernel keeps.
            ExprKind::WorklistSize(w) => match self.pipe_worklist_size(w.index())? {
                Some(count) => count.into(),
                None => return self.malformed("a host-only expression in device code"),
            },
            ExprKind::HostLoad { .. } | ExprKind::DeviceThreads => {
                return self.malformed("a host-only expression in device code")
            }
        })
    }

    /// `l && r` / `l || r` evaluating `r` only when needed, so that a guard like `v < n && a[v] == x` never
    /// reads out of bounds.
    fn short_circuit(&mut self, and: bool, l: Handle<Expr>, r: Handle<Expr>) -> Result<BasicValueEnum<'c>, PtxError> {
        let lv = self.expr(l)?;
        let lv = self.int(lv)?;
        let from = self.current_block()?;
        let (rhs, join) = (self.block("sc.rhs"), self.block("sc.join"));
        if and {
            self.b.build_conditional_branch(lv, rhs, join)?;
        } else {
            self.b.build_conditional_branch(lv, join, rhs)?;
        }
        self.b.position_at_end(rhs);
        let rv = self.expr(r)?;
        let rhs_end = self.current_block()?;
        self.b.build_unconditional_branch(join)?;
        self.b.position_at_end(join);
        let phi = self.b.build_phi(self.c.bool_type(), "")?;
        phi.add_incoming(&[(&lv, from), (&rv, rhs_end)]);
        Ok(phi.as_basic_value())
    }

    pub fn current_block(&self) -> Result<inkwell::basic_block::BasicBlock<'c>, PtxError> {
        self.b.get_insert_block().ok_or_else(|| PtxError::Llvm("builder has no block".into()))
    }

    fn literal(&self, lit: Literal, ty: Scalar) -> BasicValueEnum<'c> {
        let bits = match lit {
            Literal::Bool(b) => u64::from(b),
            Literal::Int(i) => i,
            Literal::Float(f) if ty == Scalar::F32 => u64::from((f as f32).to_bits()),
            Literal::Float(f) => f.to_bits(),
            Literal::Inf => ty.inf_bits(),
        };
        types::constant(self.c, ty, bits)
    }

    /// A binary operation on operands of type `ty` (not `&&`/`||`, which short-circuit).
    pub fn binary(
        &mut self,
        op: BinaryOp,
        ty: Scalar,
        l: BasicValueEnum<'c>,
        r: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let b = &self.b;
        if ty.is_float() {
            let (l, r) = (self.float(l)?, self.float(r)?);
            return Ok(match op {
                BinaryOp::Add => b.build_float_add(l, r, "")?.into(),
                BinaryOp::Sub => b.build_float_sub(l, r, "")?.into(),
                BinaryOp::Mul => b.build_float_mul(l, r, "")?.into(),
                BinaryOp::Div => b.build_float_div(l, r, "")?.into(),
                BinaryOp::Rem => {
                    // x - trunc(x / y) * y, as on the CPU (not LLVM's frem, which is fmod).
                    let q = b.build_float_div(l, r, "")?;
                    let name = if ty == Scalar::F32 { "llvm.trunc.f32" } else { "llvm.trunc.f64" };
                    let q = self.call_intrinsic(name, q.get_type().into(), &[q.into()])?;
                    let p = self.b.build_float_mul(self.float(q)?, r, "")?;
                    self.b.build_float_sub(l, p, "")?.into()
                }
                BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                    let p = match op {
                        BinaryOp::Eq => FloatPredicate::OEQ,
                        BinaryOp::Ne => FloatPredicate::UNE,
                        BinaryOp::Lt => FloatPredicate::OLT,
                        BinaryOp::Le => FloatPredicate::OLE,
                        BinaryOp::Gt => FloatPredicate::OGT,
                        _ => FloatPredicate::OGE,
                    };
                    b.build_float_compare(p, l, r, "")?.into()
                }
                _ => return self.malformed(format!("{op:?} on floats")),
            });
        }
        let signed = ty.is_signed();
        let (l, r) = (self.int(l)?, self.int(r)?);
        Ok(match op {
            BinaryOp::Add => b.build_int_add(l, r, "")?.into(),
            BinaryOp::Sub => b.build_int_sub(l, r, "")?.into(),
            BinaryOp::Mul => b.build_int_mul(l, r, "")?.into(),
            BinaryOp::Div | BinaryOp::Rem => self.int_division(op == BinaryOp::Div, signed, l, r)?.into(),
            BinaryOp::BitAnd | BinaryOp::And => b.build_and(l, r, "")?.into(),
            BinaryOp::BitOr | BinaryOp::Or => b.build_or(l, r, "")?.into(),
            BinaryOp::BitXor => b.build_xor(l, r, "")?.into(),
            BinaryOp::Shl | BinaryOp::Shr => {
                // The amount modulo the width (LLVM's shifts by >= the width are poison).
                let t = l.get_type();
                let mask = t.const_int(u64::from(t.get_bit_width() - 1), false);
                let amount = b.build_and(r, mask, "")?;
                if op == BinaryOp::Shl {
                    b.build_left_shift(l, amount, "")?.into()
                } else {
                    b.build_right_shift(l, amount, signed, "")?.into()
                }
            }
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                let p = match (op, signed) {
                    (BinaryOp::Eq, _) => IntPredicate::EQ,
                    (BinaryOp::Ne, _) => IntPredicate::NE,
                    (BinaryOp::Lt, true) => IntPredicate::SLT,
                    (BinaryOp::Lt, false) => IntPredicate::ULT,
                    (BinaryOp::Le, true) => IntPredicate::SLE,
                    (BinaryOp::Le, false) => IntPredicate::ULE,
                    (BinaryOp::Gt, true) => IntPredicate::SGT,
                    (BinaryOp::Gt, false) => IntPredicate::UGT,
                    (_, true) => IntPredicate::SGE,
                    (_, false) => IntPredicate::UGE,
                };
                b.build_int_compare(p, l, r, "")?.into()
            }
        })
    }

    /// Integer `/` or `%` without undefined behaviour: by zero gives 0, and signed `MIN / -1` wraps (remainder
    /// 0). The divisor is replaced by 1 in those cases, and the result selected afterwards.
    fn int_division(
        &self,
        div: bool,
        signed: bool,
        l: IntValue<'c>,
        r: IntValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        let b = &self.b;
        let t = l.get_type();
        let (zero, one) = (t.const_zero(), t.const_int(1, false));
        let is_zero = b.build_int_compare(IntPredicate::EQ, r, zero, "")?;
        Ok(if signed {
            let is_m1 = b.build_int_compare(IntPredicate::EQ, r, t.const_all_ones(), "")?;
            let bad = b.build_or(is_zero, is_m1, "")?;
            let safe = b.build_select(bad, one, r, "")?.into_int_value();
            let q = if div { b.build_int_signed_div(l, safe, "")? } else { b.build_int_signed_rem(l, safe, "")? };
            // x / -1 = -x (wrapping), x % -1 = 0.
            let by_m1 = if div { b.build_int_neg(l, "")? } else { zero };
            let q = b.build_select(is_m1, by_m1, q, "")?.into_int_value();
            b.build_select(is_zero, zero, q, "")?.into_int_value()
        } else {
            let safe = b.build_select(is_zero, one, r, "")?.into_int_value();
            let q = if div { b.build_int_unsigned_div(l, safe, "")? } else { b.build_int_unsigned_rem(l, safe, "")? };
            b.build_select(is_zero, zero, q, "")?.into_int_value()
        })
    }

    /// Converts `v` from `from` to `to`: integers extend by the source's signedness and truncate to narrower
    /// types; integer↔float conversions use the integer's signedness; float→integer saturates (NaN → 0).
    pub fn cast(&mut self, v: BasicValueEnum<'c>, from: Scalar, to: Scalar) -> Result<BasicValueEnum<'c>, PtxError> {
        let c = self.c;
        let tt = reg(c, to);
        if to == Scalar::Bool {
            // Not produced by the front end; defined as "non-zero" for completeness, as on the CPU.
            return Ok(if from.is_float() {
                let f = self.float(v)?;
                self.b.build_float_compare(FloatPredicate::UNE, f, f.get_type().const_zero(), "")?.into()
            } else {
                let i = self.int(v)?;
                self.b.build_int_compare(IntPredicate::NE, i, i.get_type().const_zero(), "")?.into()
            });
        }
        Ok(match (from.is_float(), to.is_float()) {
            (true, true) if from == to => v,
            (true, true) if to == Scalar::F64 => self.b.build_float_ext(self.float(v)?, c.f64_type(), "")?.into(),
            (true, true) => self.b.build_float_trunc(self.float(v)?, c.f32_type(), "")?.into(),
            (true, false) => {
                let sign = if to.is_signed() { "fptosi" } else { "fptoui" };
                let name = format!("llvm.{sign}.sat.i{}.{}", to.bits(), float_suffix(from));
                self.call_intrinsic(&name, tt, &[v])?
            }
            (false, true) if from.is_signed() => {
                self.b.build_signed_int_to_float(self.int(v)?, tt.into_float_type(), "")?.into()
            }
            (false, true) => self.b.build_unsigned_int_to_float(self.int(v)?, tt.into_float_type(), "")?.into(),
            (false, false) => {
                let i = self.int(v)?;
                let (fw, tw) = (i.get_type().get_bit_width(), tt.into_int_type().get_bit_width());
                if fw == tw {
                    v
                } else if fw > tw {
                    self.b.build_int_truncate(i, tt.into_int_type(), "")?.into()
                } else if from.is_signed() {
                    self.b.build_int_s_extend(i, tt.into_int_type(), "")?.into()
                } else {
                    self.b.build_int_z_extend(i, tt.into_int_type(), "")?.into()
                }
            }
        })
    }

    fn math(&mut self, fun: MathFn, args: &[Handle<Expr>], ty: Scalar) -> Result<BasicValueEnum<'c>, PtxError> {
        let arg_ty = match args.first() {
            Some(&a) => self.expr_of(a).ty,
            None => return self.malformed(format!("{} without arguments", fun.name())),
        };
        let mut v = Vec::with_capacity(args.len());
        for &a in args {
            v.push(self.expr(a)?);
        }
        if v.len() != fun.arity() {
            return self.malformed(format!("{} with {} arguments", fun.name(), v.len()));
        }
        let float = arg_ty.is_float();
        let signed = arg_ty.is_signed();
        let at = reg(self.c, arg_ty);
        Ok(match fun {
            MathFn::Min | MathFn::Max if float => {
                // Select on an ordered comparison (not fmin/fmax, which treat NaN differently): min(a, b) = a < b
                // ? a : b.
                let p = if fun == MathFn::Min { FloatPredicate::OLT } else { FloatPredicate::OGT };
                let c = self.b.build_float_compare(p, self.float(v[0])?, self.float(v[1])?, "")?;
                self.b.build_select(c, v[0], v[1], "")?
            }
            MathFn::Min | MathFn::Max => {
                let p = match (fun == MathFn::Min, signed) {
                    (true, true) => IntPredicate::SLT,
                    (true, false) => IntPredicate::ULT,
                    (false, true) => IntPredicate::SGT,
                    (false, false) => IntPredicate::UGT,
                };
                let c = self.b.build_int_compare(p, self.int(v[0])?, self.int(v[1])?, "")?;
                self.b.build_select(c, v[0], v[1], "")?
            }
            MathFn::Abs if float => self.call_intrinsic(&format!("llvm.fabs.{}", float_suffix(arg_ty)), at, &v)?,
            MathFn::Abs if signed => {
                // Wrapping at MIN, as Cranelift's iabs.
                let no_poison = self.c.bool_type().const_zero().into();
                self.call_intrinsic(&format!("llvm.abs.i{}", arg_ty.bits()), at, &[v[0], no_poison])?
            }
            MathFn::Abs => v[0],
            MathFn::Ctz | MathFn::Clz | MathFn::Popcount => {
                let w = arg_ty.bits();
                let r = match fun {
                    MathFn::Popcount => self.call_intrinsic(&format!("llvm.ctpop.i{w}"), at, &v)?,
                    _ => {
                        // `false`: a zero operand gives the width, not poison.
                        let name = if fun == MathFn::Ctz { "cttz" } else { "ctlz" };
                        let zero_ok = self.c.bool_type().const_zero().into();
                        self.call_intrinsic(&format!("llvm.{name}.i{w}"), at, &[v[0], zero_ok])?
                    }
                };
                // The count has the operand's width; the result type (u32) may differ.
                let r = self.int(r)?;
                let tt = reg(self.c, ty).into_int_type();
                let (rw, tw) = (r.get_type().get_bit_width(), tt.get_bit_width());
                if rw == tw {
                    r.into()
                } else if rw > tw {
                    self.b.build_int_truncate(r, tt, "")?.into()
                } else {
                    self.b.build_int_z_extend(r, tt, "")?.into()
                }
            }
            MathFn::Sqrt => self.call_intrinsic(&format!("llvm.sqrt.{}", float_suffix(arg_ty)), at, &v)?,
            MathFn::Select => self.b.build_select(self.int(v[0])?, v[1], v[2], "")?,
            MathFn::Random => {
                let seed = self.to_i64(arg_ty, v[0])?;
                let i_ty = self.expr_of(args[1]).ty;
                let i = self.to_i64(i_ty, v[1])?;
                self.random(seed, i)?.into()
            }
        })
    }

    /// `irgc_scalar::random` in LLVM IR: both operands `i64`, wrapping arithmetic.
    fn random(&self, seed: IntValue<'c>, i: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let b = &self.b;
        let t = self.c.i64_type();
        let k = |x: u64| t.const_int(x, false);
        let i1 = b.build_int_add(i, k(1), "")?;
        let g = b.build_int_mul(i1, k(0x9E37_79B9_7F4A_7C15), "")?;
        let mut z = b.build_int_add(seed, g, "")?;
        for (shift, mul) in [(30, 0xBF58_476D_1CE4_E5B9u64), (27, 0x94D0_49BB_1331_11EBu64)] {
            let s = b.build_right_shift(z, k(shift), false, "")?;
            let x = b.build_xor(z, s, "")?;
            z = b.build_int_mul(x, k(mul), "")?;
        }
        let s = b.build_right_shift(z, k(31), false, "")?;
        Ok(b.build_xor(z, s, "random")?)
    }

    pub(crate) fn graph(&mut self, q: GraphQuery, ty: Scalar) -> Result<BasicValueEnum<'c>, PtxError> {
        let wide = match q {
            GraphQuery::NumNodes => self.slot(Layout::NUM_NODES)?,
            GraphQuery::NumEdges => self.slot(Layout::NUM_EDGES)?,
            GraphQuery::Src(e) | GraphQuery::Dst(e) => {
                let query = if matches!(q, GraphQuery::Src(_)) { "G.src" } else { "G.dst" };
                let index = self.edge_index(e)?;
                let e = self.checked_graph_index(index, true, query, e)?;
                let slot = if matches!(q, GraphQuery::Src(_)) { Layout::SRC } else { Layout::COL };
                let base = self.slot_ptr(slot)?;
                let addr = self.element(base, e, Scalar::Node, GLOBAL)?;
                return Ok(self.b.build_load(self.c.i32_type(), addr, "")?);
            }
            GraphQuery::Weight(e) => {
                let Some(w) = self.m.graph.as_ref().and_then(|g| g.weight) else {
                    return self.malformed("G.weight in an unweighted program");
                };
                let index = self.edge_index(e)?;
                let e = self.checked_graph_index(index, true, "G.weight", e)?;
                let base = self.slot_ptr(Layout::WEIGHTS)?;
                let addr = self.element(base, e, w, GLOBAL)?;
                let v = self.b.build_load(types::mem(self.c, w), addr, "")?;
                let v = self.mem_to_reg(w, v)?;
                return if w == ty { Ok(v) } else { self.cast(v, w, ty) };
            }
            GraphQuery::Degree(v) | GraphQuery::FirstEdge(v) | GraphQuery::EndEdge(v) => {
                let expr = v;
                let v = self.expr(v)?;
                let mut v = self.int(v)?;
                if self.check_bounds {
                    let query = match q {
                        GraphQuery::Degree(_) => "G.degree",
                        GraphQuery::FirstEdge(_) => "G.first_edge",
                        _ => "G.end_edge",
                    };
                    let wide = self.b.build_int_z_extend(v, self.c.i64_type(), "")?;
                    let checked = self.checked_graph_index(wide, false, query, expr)?;
                    v = self.b.build_int_truncate(checked, self.c.i32_type(), "")?;
                }
                match q {
                    GraphQuery::FirstEdge(_) => self.row_start(v, 0)?,
                    GraphQuery::EndEdge(_) => self.row_start(v, 1)?,
                    _ => {
                        let s = self.row_start(v, 0)?;
                        let e = self.row_start(v, 1)?;
                        self.b.build_int_sub(e, s, "")?
                    }
                }
            }
        };
        // Sizes and offsets are u64 in the context; narrow to the expression's type.
        self.narrow_i64(ty, wide)
    }

    /// An edge id expression as an `i64` index.
    fn edge_index(&mut self, e: Handle<Expr>) -> Result<IntValue<'c>, PtxError> {
        let ty = self.expr_of(e).ty;
        let v = self.expr(e)?;
        self.to_i64(ty, v)
    }
}

/// The suffix LLVM's overloaded float intrinsics take.
pub(crate) fn float_suffix(s: Scalar) -> &'static str {
    if s == Scalar::F32 {
        "f32"
    } else {
        "f64"
    }
}
