//! Atomic read-modify-writes on array elements, as real hardware atomics (sequentially consistent), so that
//! kernel chunks running on several CPU threads at once see the same guarantees as GPU threads.
//!
//! Integer operations map to Cranelift's `atomic_rmw` and `atomic_cas`; `min`, `max` and `exchange` first read
//! the element and write only when they change it (`rmw_unless_unchanged`).
//! Float `add`/`sub`/`min`/`max` have no native instruction: they are compare-and-swap loops on the value's bits.
//! A float `atomic_cas` compares bits (so `-0.0` differs from `0.0`, and a NaN can match itself).

use crate::abi;
use crate::lower::Lower;
use crate::types::clif;
use crate::CpuError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types as t, AtomicRmwOp, InstBuilder, MemFlagsData, Type, Value};
use irgc_front::ir::{ArrayRef, AtomicOp, Expr, Handle, Scalar};

impl Lower<'_, '_> {
    /// Performs the atomic and returns the element's old value.
    pub fn atomic(
        &mut self,
        op: AtomicOp,
        array: ArrayRef,
        index: &[Handle<Expr>],
        value: Handle<Expr>,
        compare: Option<Handle<Expr>>,
    ) -> Result<Value, CpuError> {
        let v = self.expr(value)?;
        let cmp = match compare {
            Some(c) => Some(self.expr(c)?),
            None => None,
        };
        let (addr, elem) = self.array_addr(array, index)?;
        let f = abi::flags();
        if op == AtomicOp::CompareExchange {
            let Some(expected) = cmp else {
                return self.malformed("atomic_cas without a compare operand");
            };
            return Ok(if elem.is_float() {
                let (e, n) = (self.float_bits(expected), self.float_bits(v));
                let old = self.b.ins().atomic_cas(f, addr, e, n);
                self.b.ins().bitcast(clif(elem), MemFlagsData::new(), old)
            } else {
                self.b.ins().atomic_cas(f, addr, expected, v)
            });
        }
        if elem.is_float() {
            return self.float_atomic(op, elem, addr, v);
        }
        let signed = elem.is_signed();
        if matches!(op, AtomicOp::Min | AtomicOp::Max | AtomicOp::Exchange) {
            return Ok(self.rmw_unless_unchanged(op, signed, clif(elem), addr, v));
        }
        let rmw = match op {
            AtomicOp::Add => AtomicRmwOp::Add,
            AtomicOp::Sub => AtomicRmwOp::Sub,
            AtomicOp::And => AtomicRmwOp::And,
            AtomicOp::Or => AtomicRmwOp::Or,
            AtomicOp::Xor => AtomicRmwOp::Xor,
            AtomicOp::Exchange => AtomicRmwOp::Xchg,
            AtomicOp::Min if signed => AtomicRmwOp::Smin,
            AtomicOp::Min => AtomicRmwOp::Umin,
            AtomicOp::Max if signed => AtomicRmwOp::Smax,
            AtomicOp::Max => AtomicRmwOp::Umax,
            AtomicOp::CompareExchange => return self.malformed("unreachable atomic_cas"),
        };
        Ok(self.b.ins().atomic_rmw(clif(elem), f, rmw, addr, v))
    }

    /// An integer `min`, `max` or `exchange` that writes only when it changes the element: the element is read
    /// first, and an operation that would leave it as it is (a `min` by a value not below it, an `exchange` with
    /// the value it holds) returns what was read, which is a correct answer for the atomic at the moment of the
    /// read. Only a change takes the locked instruction (a compare-and-swap loop for `min`/`max`, `xchg`). Most of
    /// SSSP's relaxations and CC's hooks change nothing; as locked writes, every one of them took the element's
    /// cache line from the other threads.
    fn rmw_unless_unchanged(&mut self, op: AtomicOp, signed: bool, ty: Type, addr: Value, v: Value) -> Value {
        let f = abi::flags();
        let (head, swap, done) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.append_block_param(head, ty);
        self.b.append_block_param(done, ty);
        let first = self.b.ins().atomic_load(ty, f, addr);
        self.b.ins().jump(head, &[first.into()]);

        self.b.switch_to_block(head);
        let old = self.b.block_params(head)[0];
        let cc = match (op, signed) {
            (AtomicOp::Min, true) => IntCC::SignedLessThan,
            (AtomicOp::Min, false) => IntCC::UnsignedLessThan,
            (AtomicOp::Max, true) => IntCC::SignedGreaterThan,
            (AtomicOp::Max, false) => IntCC::UnsignedGreaterThan,
            _ => IntCC::NotEqual,
        };
        let changes = self.b.ins().icmp(cc, v, old);
        self.b.ins().brif(changes, swap, &[], done, &[old.into()]);

        self.b.switch_to_block(swap);
        if op == AtomicOp::Exchange {
            let was = self.b.ins().atomic_rmw(ty, f, AtomicRmwOp::Xchg, addr, v);
            self.b.ins().jump(done, &[was.into()]);
        } else {
            let seen = self.b.ins().atomic_cas(f, addr, old, v);
            let won = self.b.ins().icmp(IntCC::Equal, seen, old);
            self.b.ins().brif(won, done, &[old.into()], head, &[seen.into()]);
        }

        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    fn float_bits(&mut self, v: Value) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        let it = if ty == t::F32 { t::I32 } else { t::I64 };
        self.b.ins().bitcast(it, MemFlagsData::new(), v)
    }

    /// A float read-modify-write as a compare-and-swap loop: read the element, compute the new value, swap it in
    /// if the element still holds what was read, else retry from what the swap found. `min`/`max` skip the swap
    /// when the element is already no larger/smaller (IEEE comparison, so a NaN operand never replaces anything).
    fn float_atomic(&mut self, op: AtomicOp, elem: Scalar, addr: Value, v: Value) -> Result<Value, CpuError> {
        let it = int_of(elem);
        let ft = clif(elem);
        let f = abi::flags();
        if op == AtomicOp::Exchange {
            let bits = self.float_bits(v);
            let old = self.b.ins().atomic_rmw(it, f, AtomicRmwOp::Xchg, addr, bits);
            return Ok(self.b.ins().bitcast(ft, MemFlagsData::new(), old));
        }
        if !matches!(op, AtomicOp::Add | AtomicOp::Sub | AtomicOp::Min | AtomicOp::Max) {
            return self.malformed(format!("{} on a float array", op.name()));
        }
        let head = self.b.create_block();
        let swap = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(head, it);
        self.b.append_block_param(done, it);
        let first = self.b.ins().atomic_load(it, f, addr);
        self.b.ins().jump(head, &[first.into()]);

        self.b.switch_to_block(head);
        let old_bits = self.b.block_params(head)[0];
        let old = self.b.ins().bitcast(ft, MemFlagsData::new(), old_bits);
        let new = match op {
            AtomicOp::Add => self.b.ins().fadd(old, v),
            AtomicOp::Sub => self.b.ins().fsub(old, v),
            _ => v,
        };
        if matches!(op, AtomicOp::Min | AtomicOp::Max) {
            let cc = if op == AtomicOp::Min { FloatCC::LessThan } else { FloatCC::GreaterThan };
            let better = self.b.ins().fcmp(cc, v, old);
            self.b.ins().brif(better, swap, &[], done, &[old_bits.into()]);
        } else {
            self.b.ins().jump(swap, &[]);
        }

        self.b.switch_to_block(swap);
        let new_bits = self.b.ins().bitcast(it, MemFlagsData::new(), new);
        let seen = self.b.ins().atomic_cas(f, addr, old_bits, new_bits);
        let won = self.b.ins().icmp(IntCC::Equal, seen, old_bits);
        self.b.ins().brif(won, done, &[old_bits.into()], head, &[seen.into()]);

        self.b.switch_to_block(done);
        let result = self.b.block_params(done)[0];
        Ok(self.b.ins().bitcast(ft, MemFlagsData::new(), result))
    }
}

/// The integer type holding a float's bits.
fn int_of(s: Scalar) -> cranelift_codegen::ir::Type {
    if s == Scalar::F32 {
        t::I32
    } else {
        t::I64
    }
}
