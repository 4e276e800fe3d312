//! Expressions: pure trees, each evaluated where it is used.
//!
//! Signedness comes from the operand type: `i32`/`i64` divide, shift right and compare signed; `u32`/`u64`, ids
//! and bool unsigned; floats compare ordered (IEEE: false with NaN, except `!=`).

use crate::abi;
use crate::lower::Lower;
use crate::types::{self, clif};
use crate::CpuError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types as t, InstBuilder, Value};
use irgc_artifact::Layout;
use irgc_front::ir::{BinaryOp, Expr, ExprKind, GraphQuery, Handle, Literal, MathFn, Scalar, UnaryOp};

impl Lower<'_, '_> {
    pub fn expr(&mut self, h: Handle<Expr>) -> Result<Value, CpuError> {
        let e = self.expr_of(h);
        let ty = e.ty;
        Ok(match &e.kind {
            ExprKind::Literal(lit) => self.literal(*lit, ty),
            ExprKind::Local(l) => self.read_local(*l),
            ExprKind::Param(p) => {
                let slot = self.layout.param(p.index());
                abi::scalar_slot(&mut self.b, self.ctx, slot, ty)
            }
            ExprKind::Load { array, index } => {
                let (addr, elem) = self.array_addr(*array, index)?;
                self.b.ins().load(clif(elem), abi::flags(), addr, 0)
            }
            ExprKind::Unary { op, arg } => {
                let v = self.expr(*arg)?;
                match op {
                    UnaryOp::Neg if ty.is_float() => self.b.ins().fneg(v),
                    UnaryOp::Neg => self.b.ins().ineg(v),
                    UnaryOp::Not => self.b.ins().bxor_imm_s(v, 1),
                    UnaryOp::BitNot => self.b.ins().bnot(v),
                }
            }
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or), left, right } => {
                self.short_circuit(*op == BinaryOp::And, *left, *right)?
            }
            ExprKind::Binary { op, left, right } => {
                let lt = self.expr_of(*left).ty;
                let l = self.expr(*left)?;
                let r = self.expr(*right)?;
                self.binary(*op, lt, l, r)
            }
            ExprKind::Cast { arg } => {
                let from = self.expr_of(*arg).ty;
                let v = self.expr(*arg)?;
                self.cast(v, from, ty)
            }
            ExprKind::Math { fun, args } => self.math(*fun, args, ty)?,
            ExprKind::Graph(q) => self.graph(*q, ty)?,
            ExprKind::WorklistSize(_) | ExprKind::HostLoad { .. } | ExprKind::DeviceThreads => {
                return self.malformed("a host-only expression in device code")
            }
        })
    }

    /// `l && r` / `l || r` evaluating `r` only when needed, so that a guard like `v < n && a[v] == x` never
    /// reads out of bounds.
    fn short_circuit(&mut self, and: bool, l: Handle<Expr>, r: Handle<Expr>) -> Result<Value, CpuError> {
        let lv = self.expr(l)?;
        let (rhs, join) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(join, t::I8);
        if and {
            self.b.ins().brif(lv, rhs, &[], join, &[lv.into()]);
        } else {
            self.b.ins().brif(lv, join, &[lv.into()], rhs, &[]);
        }
        self.b.switch_to_block(rhs);
        let rv = self.expr(r)?;
        self.b.ins().jump(join, &[rv.into()]);
        self.b.switch_to_block(join);
        Ok(self.b.block_params(join)[0])
    }

    fn literal(&mut self, lit: Literal, ty: Scalar) -> Value {
        let bits = match lit {
            Literal::Bool(b) => u64::from(b),
            Literal::Int(i) => i,
            Literal::Float(f) if ty == Scalar::F32 => u64::from((f as f32).to_bits()),
            Literal::Float(f) => f.to_bits(),
            Literal::Inf => ty.inf_bits(),
        };
        types::constant(&mut self.b, ty, bits)
    }

    /// A binary operation on operands of type `ty`.
    pub fn binary(&mut self, op: BinaryOp, ty: Scalar, l: Value, r: Value) -> Value {
        let b = &mut self.b;
        let float = ty.is_float();
        let signed = ty.is_signed();
        match op {
            BinaryOp::Add if float => b.ins().fadd(l, r),
            BinaryOp::Add => b.ins().iadd(l, r),
            BinaryOp::Sub if float => b.ins().fsub(l, r),
            BinaryOp::Sub => b.ins().isub(l, r),
            BinaryOp::Mul if float => b.ins().fmul(l, r),
            BinaryOp::Mul => b.ins().imul(l, r),
            BinaryOp::Div if float => b.ins().fdiv(l, r),
            BinaryOp::Rem if float => {
                let q = b.ins().fdiv(l, r);
                let q = b.ins().trunc(q);
                let p = b.ins().fmul(q, r);
                b.ins().fsub(l, p)
            }
            BinaryOp::Div | BinaryOp::Rem => self.int_division(op == BinaryOp::Div, signed, l, r),
            BinaryOp::BitAnd | BinaryOp::And => b.ins().band(l, r),
            BinaryOp::BitOr | BinaryOp::Or => b.ins().bor(l, r),
            BinaryOp::BitXor => b.ins().bxor(l, r),
            BinaryOp::Shl => b.ins().ishl(l, r),
            BinaryOp::Shr if signed => b.ins().sshr(l, r),
            BinaryOp::Shr => b.ins().ushr(l, r),
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                if float {
                    let cc = match op {
                        BinaryOp::Eq => FloatCC::Equal,
                        BinaryOp::Ne => FloatCC::NotEqual,
                        BinaryOp::Lt => FloatCC::LessThan,
                        BinaryOp::Le => FloatCC::LessThanOrEqual,
                        BinaryOp::Gt => FloatCC::GreaterThan,
                        _ => FloatCC::GreaterThanOrEqual,
                    };
                    b.ins().fcmp(cc, l, r)
                } else {
                    let cc = match (op, signed) {
                        (BinaryOp::Eq, _) => IntCC::Equal,
                        (BinaryOp::Ne, _) => IntCC::NotEqual,
                        (BinaryOp::Lt, true) => IntCC::SignedLessThan,
                        (BinaryOp::Lt, false) => IntCC::UnsignedLessThan,
                        (BinaryOp::Le, true) => IntCC::SignedLessThanOrEqual,
                        (BinaryOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
                        (BinaryOp::Gt, true) => IntCC::SignedGreaterThan,
                        (BinaryOp::Gt, false) => IntCC::UnsignedGreaterThan,
                        (_, true) => IntCC::SignedGreaterThanOrEqual,
                        (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                    };
                    b.ins().icmp(cc, l, r)
                }
            }
        }
    }

    /// Integer `/` or `%` that never traps: by zero gives 0, and signed `MIN / -1` wraps (remainder 0).
    fn int_division(&mut self, div: bool, signed: bool, l: Value, r: Value) -> Value {
        let b = &mut self.b;
        let ty = b.func.dfg.value_type(l);
        let zero = b.ins().iconst(ty, 0);
        let one = b.ins().iconst(ty, 1);
        let is_zero = b.ins().icmp_imm_s(IntCC::Equal, r, 0);
        if signed {
            let is_m1 = b.ins().icmp_imm_s(IntCC::Equal, r, -1);
            let bad = b.ins().bor(is_zero, is_m1);
            let safe = b.ins().select(bad, one, r);
            let q = if div { b.ins().sdiv(l, safe) } else { b.ins().srem(l, safe) };
            // x / -1 = -x (wrapping), x % -1 = 0.
            let by_m1 = if div { b.ins().ineg(l) } else { zero };
            let q = b.ins().select(is_m1, by_m1, q);
            b.ins().select(is_zero, zero, q)
        } else {
            let safe = b.ins().select(is_zero, one, r);
            let q = if div { b.ins().udiv(l, safe) } else { b.ins().urem(l, safe) };
            b.ins().select(is_zero, zero, q)
        }
    }

    /// Converts `v` from `from` to `to`: integers extend by the source's signedness and truncate to narrower
    /// types; integer↔float conversions use the integer's signedness; float→integer saturates.
    pub fn cast(&mut self, v: Value, from: Scalar, to: Scalar) -> Value {
        let b = &mut self.b;
        let (ft, tt) = (clif(from), clif(to));
        if to == Scalar::Bool {
            // Not produced by the front end; defined as "non-zero" for completeness.
            return if from.is_float() {
                let z = types::constant(b, from, 0);
                b.ins().fcmp(FloatCC::NotEqual, v, z)
            } else {
                b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
            };
        }
        match (from.is_float(), to.is_float()) {
            (true, true) if ft == tt => v,
            (true, true) if tt == t::F64 => b.ins().fpromote(t::F64, v),
            (true, true) => b.ins().fdemote(t::F32, v),
            (true, false) if to.is_signed() => b.ins().fcvt_to_sint_sat(tt, v),
            (true, false) => b.ins().fcvt_to_uint_sat(tt, v),
            (false, true) if from.is_signed() => b.ins().fcvt_from_sint(tt, v),
            (false, true) => b.ins().fcvt_from_uint(tt, v),
            (false, false) => {
                if ft == tt {
                    v
                } else if ft.bits() > tt.bits() {
                    b.ins().ireduce(tt, v)
                } else if from.is_signed() {
                    b.ins().sextend(tt, v)
                } else {
                    b.ins().uextend(tt, v)
                }
            }
        }
    }

    fn math(&mut self, fun: MathFn, args: &[Handle<Expr>], ty: Scalar) -> Result<Value, CpuError> {
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
        let b = &mut self.b;
        let float = arg_ty.is_float();
        let signed = arg_ty.is_signed();
        Ok(match fun {
            MathFn::Min | MathFn::Max if float => {
                // Select on an ordered comparison (not fmin/fmax, which propagate NaN): min(a, b) = a < b ? a : b.
                let cc = if fun == MathFn::Min { FloatCC::LessThan } else { FloatCC::GreaterThan };
                let c = b.ins().fcmp(cc, v[0], v[1]);
                b.ins().select(c, v[0], v[1])
            }
            MathFn::Min if signed => b.ins().smin(v[0], v[1]),
            MathFn::Min => b.ins().umin(v[0], v[1]),
            MathFn::Max if signed => b.ins().smax(v[0], v[1]),
            MathFn::Max => b.ins().umax(v[0], v[1]),
            MathFn::Abs if float => b.ins().fabs(v[0]),
            MathFn::Abs if signed => b.ins().iabs(v[0]),
            MathFn::Abs => v[0],
            MathFn::Ctz | MathFn::Clz | MathFn::Popcount => {
                let r = match fun {
                    MathFn::Ctz => b.ins().ctz(v[0]),
                    MathFn::Clz => b.ins().clz(v[0]),
                    _ => b.ins().popcnt(v[0]),
                };
                // The count has the operand's width; the result type (u32) may differ.
                let (rt, tt) = (clif(arg_ty), clif(ty));
                if rt == tt {
                    r
                } else if rt.bits() > tt.bits() {
                    b.ins().ireduce(tt, r)
                } else {
                    b.ins().uextend(tt, r)
                }
            }
            MathFn::Sqrt => b.ins().sqrt(v[0]),
            MathFn::Select => b.ins().select(v[0], v[1], v[2]),
            MathFn::Random => {
                let seed = types::to_i64(b, arg_ty, v[0]);
                let i_ty = self.expr_of(args[1]).ty;
                let i = types::to_i64(&mut self.b, i_ty, v[1]);
                self.random(seed, i)
            }
        })
    }

    /// [`crate::random`] in Cranelift IR: both operands `i64`.
    fn random(&mut self, seed: Value, i: Value) -> Value {
        let b = &mut self.b;
        let i1 = b.ins().iadd_imm_s(i, 1);
        let g = b.ins().imul_imm_s(i1, 0x9E37_79B9_7F4A_7C15u64 as i64);
        let mut z = b.ins().iadd(seed, g);
        for (shift, mul) in [(30, 0xBF58_476D_1CE4_E5B9u64), (27, 0x94D0_49BB_1331_11EBu64)] {
            let s = b.ins().ushr_imm_s(z, shift);
            let x = b.ins().bxor(z, s);
            z = b.ins().imul_imm_s(x, mul as i64);
        }
        let s = b.ins().ushr_imm_s(z, 31);
        b.ins().bxor(z, s)
    }

    fn graph(&mut self, q: GraphQuery, ty: Scalar) -> Result<Value, CpuError> {
        let ctx = self.ctx;
        let wide = match q {
            GraphQuery::NumNodes => abi::slot(&mut self.b, ctx, Layout::NUM_NODES),
            GraphQuery::NumEdges => abi::slot(&mut self.b, ctx, Layout::NUM_EDGES),
            GraphQuery::Src(e) if self.walked_edge(e) => {
                let (_, source) = self.edge_walk.expect("walked_edge checked it");
                return Ok(self.b.use_var(source));
            }
            GraphQuery::Src(e) | GraphQuery::Dst(e) => {
                self.reads_sources |= matches!(q, GraphQuery::Src(_));
                let query = if matches!(q, GraphQuery::Src(_)) { "G.src" } else { "G.dst" };
                let index = self.edge_index(e)?;
                let e = self.checked_graph_index(index, true, query, e);
                let slot = if matches!(q, GraphQuery::Src(_)) { Layout::SRC } else { Layout::COL };
                let base = abi::slot(&mut self.b, ctx, slot);
                let addr = abi::element(&mut self.b, base, e, Scalar::Node);
                return Ok(self.b.ins().load(t::I32, abi::flags(), addr, 0));
            }
            GraphQuery::Weight(e) => {
                let w = match self.m.graph.as_ref().and_then(|g| g.weight) {
                    Some(w) => w,
                    None => return self.malformed("G.weight in an unweighted program"),
                };
                let index = self.edge_index(e)?;
                let e = self.checked_graph_index(index, true, "G.weight", e);
                let base = abi::slot(&mut self.b, ctx, Layout::WEIGHTS);
                let addr = abi::element(&mut self.b, base, e, w);
                let v = self.b.ins().load(clif(w), abi::flags(), addr, 0);
                return Ok(if w == ty { v } else { self.cast(v, w, ty) });
            }
            GraphQuery::Degree(v) | GraphQuery::FirstEdge(v) | GraphQuery::EndEdge(v) => {
                let expr = v;
                let v = self.expr(v)?;
                let v = if self.check_bounds {
                    let wide = self.b.ins().uextend(t::I64, v);
                    let query = match q {
                        GraphQuery::Degree(_) => "G.degree",
                        GraphQuery::FirstEdge(_) => "G.first_edge",
                        _ => "G.end_edge",
                    };
                    let checked = self.checked_graph_index(wide, false, query, expr);
                    self.b.ins().ireduce(t::I32, checked)
                } else {
                    v
                };
                match q {
                    GraphQuery::FirstEdge(_) => abi::row_start(&mut self.b, ctx, v, 0),
                    GraphQuery::EndEdge(_) => abi::row_start(&mut self.b, ctx, v, 1),
                    _ => {
                        let s = abi::row_start(&mut self.b, ctx, v, 0);
                        let e = abi::row_start(&mut self.b, ctx, v, 1);
                        self.b.ins().isub(e, s)
                    }
                }
            }
        };
        // Sizes and offsets are u64 in the context; narrow to the expression's type.
        Ok(if clif(ty) == t::I64 { wide } else { self.b.ins().ireduce(clif(ty), wide) })
    }

    /// Whether `e` is the edge variable of the kernel's row-by-row walk over `G.edges`.
    fn walked_edge(&self, e: Handle<Expr>) -> bool {
        matches!((self.edge_walk, &self.expr_of(e).kind), (Some((var, _)), ExprKind::Local(l)) if var == *l)
    }

    /// An edge id expression as an `i64` index.
    fn edge_index(&mut self, e: Handle<Expr>) -> Result<Value, CpuError> {
        let ty = self.expr_of(e).ty;
        let v = self.expr(e)?;
        Ok(types::to_i64(&mut self.b, ty, v))
    }
}
