//! Statements: structured control flow becomes Cranelift blocks; worklist pushes and reductions follow the
//! protocols of the kernel ABI.

use crate::abi;
use crate::lower::Lower;
use crate::types;
use crate::CpuError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types as t, Block, InstBuilder, Value};
use irgc_front::ir::{
    Arg, Combined, DeviceBlock, DeviceOp, DeviceStmt, Expr, ExprKind, Handle, Local, LocalType, ReduceOp, Scalar,
    StmtKind, UnaryOp,
};

impl Lower<'_, '_> {
    pub fn block(&mut self, stmts: &[DeviceStmt]) -> Result<(), CpuError> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    pub fn stmt(&mut self, s: &DeviceStmt) -> Result<(), CpuError> {
        match &s.kind {
            StmtKind::Assign { local, value } => {
                let v = self.expr(*value)?;
                self.write_local(*local, v);
            }
            StmtKind::If { cond, then, otherwise } => match self.test(*cond)? {
                (c, false) => self.if_else(c, |me| me.block(then), |me| me.block(otherwise))?,
                (c, true) => self.if_else(c, |me| me.block(otherwise), |me| me.block(then))?,
            },
            StmtKind::Loop { body, continuing, break_if } => {
                // A `while` loop (a body that starts `if c { break }`) is rotated: `c` is tested before the first
                // pass and again at the end of each, so a pass ends in one conditional branch back to its start.
                let (test, body) = match leading_break(body) {
                    Some(c) => (Some(c), &body[1..]),
                    None => (None, &body[..]),
                };
                let (head, cont, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                self.enter_unless(test, head, exit)?;
                self.b.switch_to_block(head);
                self.loops.push(Some((cont, exit)));
                let r = self.block(body);
                self.loops.pop();
                r?;
                self.b.ins().jump(cont, &[]);
                self.b.switch_to_block(cont);
                self.block(continuing)?;
                if let Some(c) = break_if {
                    let (c, negated) = self.test(*c)?;
                    let again = self.b.create_block();
                    let (yes, no) = if negated { (again, exit) } else { (exit, again) };
                    self.b.ins().brif(c, yes, &[], no, &[]);
                    self.b.switch_to_block(again);
                }
                self.enter_unless(test, head, exit)?;
                self.b.switch_to_block(exit);
            }
            StmtKind::For { var, start, end, body } => self.serial_for(*var, *start, *end, |me| me.block(body))?,
            StmtKind::Break | StmtKind::Continue => {
                let Some(Some((cont, exit))) = self.loops.last().copied() else {
                    return self.malformed("`break`/`continue` outside a loop of this thread");
                };
                self.jump_away(if matches!(s.kind, StmtKind::Break) { exit } else { cont });
            }
            StmtKind::Op(op) => self.device_op(op)?,
        }
        Ok(())
    }

    /// A device operation (what only kernels and functions do).
    fn device_op(&mut self, op: &DeviceOp) -> Result<(), CpuError> {
        match op {
            DeviceOp::Store { array, index, value } => {
                let v = self.expr(*value)?;
                let (addr, _) = self.array_addr(*array, index)?;
                self.b.ins().store(abi::flags(), v, addr, 0);
            }
            DeviceOp::Atomic { op, array, index, value, compare, result } => {
                let old = self.atomic(*op, *array, index, *value, *compare)?;
                if let Some(r) = result {
                    self.write_local(*r, old);
                }
            }
            DeviceOp::Call { function, args, result } => {
                let mut vals = vec![self.ctx];
                for a in args {
                    vals.push(match a {
                        Arg::Value(e) => self.expr(*e)?,
                        Arg::Array(r) => self.array_base(*r),
                    });
                }
                let f = self.funcs[function.index()];
                let call = self.b.ins().call(f, &vals);
                if let Some(r) = result {
                    let Some(&v) = self.b.inst_results(call).first() else {
                        return self.malformed("result of a call to a function returning nothing");
                    };
                    self.write_local(*r, v);
                }
            }
            DeviceOp::ForAll { vars, space, body, combine, stops, .. } => {
                // A nested parallel loop runs sequentially within its thread; one the `np` pass marked `stops`
                // leaves after the iteration that saturates its combined locals.
                let sp = self.prepare_space(space)?;
                let zero = self.b.ins().iconst(t::I64, 0);
                let stops = *stops;
                self.counted_loop(zero, sp.size, false, stops, |me, i| {
                    me.bind_space(&sp, vars, i)?;
                    me.block(body)?;
                    if stops {
                        me.stop_if_saturated(combine)?;
                    }
                    Ok(())
                })?;
            }
            DeviceOp::ForTile { .. } => return self.unsupported("`forall tile` nested in another statement"),
            DeviceOp::Return(v) => {
                let Some(ret) = self.returns else {
                    return self.malformed("`return` outside a function");
                };
                match (v, ret) {
                    (Some(e), Some(_)) => {
                        let v = self.expr(*e)?;
                        self.b.ins().return_(&[v]);
                    }
                    (None, None) => {
                        self.b.ins().return_(&[]);
                    }
                    _ => return self.malformed("`return` of the wrong arity"),
                }
                self.start_dead_block();
            }
            // Buffered in the kernel's frame (`push.rs`), whatever the GPU's cooperation.
            DeviceOp::Push { worklist, value, .. } => {
                let v = self.expr(*value)?;
                self.push(*worklist, v, false)?
            }
            DeviceOp::Retry { worklist, value, .. } => {
                let v = self.expr(*value)?;
                self.push(*worklist, v, true)?
            }
            DeviceOp::Reduce { value } => {
                let Some((op, ty, acc)) = self.reduction else {
                    return self.malformed("`reduce` in a kernel without a reduction");
                };
                let v = self.expr(*value)?;
                let a = self.b.use_var(acc);
                let c = self.combine(op, ty, a, v);
                self.b.def_var(acc, c);
            }
            DeviceOp::Barrier => return self.unsupported("a barrier inside a nested `forall` of a `forall tile`"),
            DeviceOp::Wait => {
                let Some((waited, end)) = self.wait else {
                    return self.malformed("`wait` outside the sweep of a kernel that waits");
                };
                let yes = self.b.ins().iconst(t::I8, 1);
                self.b.def_var(waited, yes);
                self.b.ins().jump(end, &[]);
                self.start_dead_block();
            }
        }
        Ok(())
    }

    /// Ends the current block by going to `exit` if `test` holds, else (or with no test) to `head`.
    fn enter_unless(&mut self, test: Option<Handle<Expr>>, head: Block, exit: Block) -> Result<(), CpuError> {
        match test {
            Some(c) => {
                let (c, negated) = self.test(c)?;
                let (yes, no) = if negated { (head, exit) } else { (exit, head) };
                self.b.ins().brif(c, yes, &[], no, &[]);
            }
            None => {
                self.b.ins().jump(head, &[]);
            }
        }
        Ok(())
    }

    /// A branch condition: the value of `e` with its leading `!`s peeled off, and whether an odd number was (the
    /// caller then swaps the branch's targets). A `while` loop's test reaches the IR negated (`if !c { break }`);
    /// branching on `c` itself lets Cranelift fuse the comparison into the branch instead of materialising a
    /// flag and flipping it.
    fn test(&mut self, mut e: Handle<Expr>) -> Result<(Value, bool), CpuError> {
        let mut negated = false;
        while let ExprKind::Unary { op: UnaryOp::Not, arg } = self.expr_of(e).kind {
            negated = !negated;
            e = arg;
        }
        Ok((self.expr(e)?, negated))
    }

    /// `if c { then } else { otherwise }`.
    pub fn if_else(
        &mut self,
        c: Value,
        then: impl FnOnce(&mut Self) -> Result<(), CpuError>,
        otherwise: impl FnOnce(&mut Self) -> Result<(), CpuError>,
    ) -> Result<(), CpuError> {
        let (bt, be, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().brif(c, bt, &[], be, &[]);
        self.b.switch_to_block(bt);
        then(self)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(be);
        otherwise(self)?;
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Runs `body(i)` for `i` in `lo..hi` (`i64`s compared signed or unsigned). With `targets`, `break` and
    /// `continue` inside `body` leave or advance this loop; without, they may not cross it.
    /// A sequential `for var in start..end`, its body lowered by `body` (the ordinary or the tile-phase lowering).
    pub fn serial_for(
        &mut self,
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        body: impl FnOnce(&mut Self) -> Result<(), CpuError>,
    ) -> Result<(), CpuError> {
        let ty = self.expr_of(start).ty;
        let lo = self.expr(start)?;
        let lo = types::to_i64(&mut self.b, ty, lo);
        let hi = self.expr(end)?;
        let hi = types::to_i64(&mut self.b, ty, hi);
        self.counted_loop(lo, hi, ty.is_signed(), true, |me, i| {
            let v = types::from_i64(&mut me.b, ty, i);
            me.write_local(var, v);
            body(me)
        })
    }

    pub fn counted_loop(
        &mut self,
        lo: Value,
        hi: Value,
        signed: bool,
        targets: bool,
        body: impl FnOnce(&mut Self, Value) -> Result<(), CpuError>,
    ) -> Result<(), CpuError> {
        // Rotated: the bound is tested before the first pass and at the end of each, so a pass ends in one
        // conditional branch back rather than a jump to a test at the top.
        let counter = self.b.declare_var(t::I64);
        self.b.def_var(counter, lo);
        let (blk, cont, exit): (Block, Block, Block) =
            (self.b.create_block(), self.b.create_block(), self.b.create_block());
        let cc = if signed { IntCC::SignedLessThan } else { IntCC::UnsignedLessThan };
        let go = self.b.ins().icmp(cc, lo, hi);
        self.b.ins().brif(go, blk, &[], exit, &[]);
        self.b.switch_to_block(blk);
        let i = self.b.use_var(counter);
        self.loops.push(if targets { Some((cont, exit)) } else { None });
        let r = body(self, i);
        self.loops.pop();
        r?;
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        let i = self.b.use_var(counter);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(counter, next);
        let again = self.b.ins().icmp(cc, next, hi);
        self.b.ins().brif(again, blk, &[], exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// Leaves the innermost loop (to its exit) when every local of `combine` holds its operator's absorbing value.
    fn stop_if_saturated(&mut self, combine: &[Combined]) -> Result<(), CpuError> {
        let Some(&Some((_, exit))) = self.loops.last() else {
            return self.malformed("a saturation test outside a loop that can be left");
        };
        let mut all = None;
        for c in combine {
            let LocalType::Scalar(ty) = self.body.locals[c.local].ty else {
                return self.malformed("a combined local that is not a scalar");
            };
            let Some(bits) = c.op.absorbing_bits(ty) else {
                return self
                    .malformed("a saturation test of a local combined by an operator without an absorbing value");
            };
            let v = self.read_local(c.local);
            let absorbing = types::constant(&mut self.b, ty, bits);
            let eq = self.b.ins().icmp(IntCC::Equal, v, absorbing);
            all = Some(match all {
                None => eq,
                Some(a) => self.b.ins().band(a, eq),
            });
        }
        let Some(all) = all else { return Ok(()) };
        let go_on = self.b.create_block();
        self.b.ins().brif(all, exit, &[], go_on, &[]);
        self.b.switch_to_block(go_on);
        Ok(())
    }

    /// Combines a reduction accumulator `a` with a value `v` of type `ty`, as `irgc_artifact::reduce_combine`.
    pub fn combine(&mut self, op: ReduceOp, ty: Scalar, a: Value, v: Value) -> Value {
        let b = &mut self.b;
        match op {
            ReduceOp::Any => b.ins().bor(a, v),
            ReduceOp::All => b.ins().band(a, v),
            ReduceOp::Sum if ty.is_float() => b.ins().fadd(a, v),
            ReduceOp::Sum => b.ins().iadd(a, v),
            ReduceOp::Min | ReduceOp::Max => {
                let min = op == ReduceOp::Min;
                let a_less = if ty.is_float() {
                    b.ins().fcmp(FloatCC::LessThan, a, v)
                } else {
                    let cc = if ty.is_signed() { IntCC::SignedLessThan } else { IntCC::UnsignedLessThan };
                    b.ins().icmp(cc, a, v)
                };
                let (x, y) = if min { (a, v) } else { (v, a) };
                b.ins().select(a_less, x, y)
            }
        }
    }

    /// The identity of the kernel's reduction, as a value of its type.
    pub fn reduce_identity(&mut self, op: ReduceOp, ty: Scalar) -> Value {
        let bits = irgc_artifact::reduce_identity(op, ty);
        types::constant(&mut self.b, ty, bits)
    }
}

/// The condition of a loop body's leading `if c { break }` (how a `while` loop reaches the IR), if it has one.
fn leading_break(body: &DeviceBlock) -> Option<Handle<Expr>> {
    match &body.first()?.kind {
        StmtKind::If { cond, then, otherwise }
            if otherwise.is_empty() && then.len() == 1 && matches!(then[0].kind, StmtKind::Break) =>
        {
            Some(*cond)
        }
        _ => None,
    }
}
