//! Interleaved iterations (`interleave k`, set by the `interleave` pass): a thread that runs a range of a nested
//! `forall` by itself — a `thread` schedule, the remainder a thread keeps after the warp and block levels, every
//! scheduled loop in a flat entry — runs `k` of its iterations at once, statement by statement: the first
//! statement of each copy, then the second of each, and so on.
//!
//! ```text
//! w0 = G.dst(e)    w1 = G.dst(e+1)    ...            (k loads in flight)
//! t0 = atomic_min(level[w0], d)    t1 = ...    ...   (k atomics in flight)
//! if t0 > d { push w0 }    if t1 > d { push w1 }     ...
//! ```
//!
//! One after another, each iteration waits for its load and then its atomic before the next starts: on a graph
//! of small degrees, where a frontier node's few edges are one thread's work, that chain is a BFS level's
//! critical path. Interleaved, copy `c` only waits for its own results. Each copy has its own slots for the locals
//! the body writes (the loop variable, private locals, and the partial value of each combined local, which starts
//! from the operator's identity and is combined into the thread's value after the loop); live-ins are shared.
//! Copies past the range's end are skipped statement by statement (no remainder loop).
//!
//! Legal because a nested `forall`'s iterations are independent (the `np` pass's rules, or the programmer's
//! `forall`): any interleaving of them computes what running them one after another does, just as running them
//! on different threads would; a combined float sum is added in another order, as every schedule may.

use crate::lower::Lower;
use crate::PtxError;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;
use irgc_front::ir::{Combined, DeviceStmt, Handle, LocalType};
use std::collections::BTreeSet;

impl<'c> Lower<'c, '_> {
    /// Runs iterations `0..n` of a loop with body `body`, `k` at a time, interleaved; `bind(i)` writes the loop
    /// variable `var` (and whatever else names iteration `i`) for iteration `i`, into the current copy's slots.
    pub(crate) fn interleaved(
        &mut self,
        var: Handle<irgc_front::ir::Local>,
        body: &[DeviceStmt],
        combine: &[Combined],
        k: u32,
        n: IntValue<'c>,
        bind: &dyn Fn(&mut Self, IntValue<'c>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        // The locals each copy needs its own of; copy 0 uses the locals' own slots.
        let mut written = BTreeSet::from([var]);
        for s in body {
            s.visit(&mut |s| written.extend(s.writes()));
        }
        let mut copies: Vec<Vec<(usize, PointerValue<'c>)>> = Vec::new();
        for _ in 1..k {
            let mut slots = Vec::new();
            for &l in &written {
                let ty = self.body.locals[l].ty;
                let slot = self.alloca(Lower::local_llvm(self.c, ty), "il")?;
                // As every local: defined from the start; a combined local's partial starts from the identity.
                let start = match (ty, combine.iter().find(|c| c.local == l)) {
                    (LocalType::Scalar(s), Some(c)) => self.identity(c.op, s),
                    _ => self.read_local(l)?,
                };
                self.b.build_store(slot, start)?;
                slots.push((l.index(), slot));
            }
            copies.push(slots);
        }
        let step = i64t.const_int(u64::from(k), false);
        self.nested_foralls += 1;
        let r = self.counted_loop(i64t.const_zero(), n, step, false, false, |me, i| {
            let mut valid = vec![me.c.bool_type().const_all_ones()];
            let mut at = vec![i];
            for c in 1..u64::from(k) {
                let ic = me.b.build_int_add(i, i64t.const_int(c, false), "")?;
                valid.push(me.b.build_int_compare(IntPredicate::ULT, ic, n, "")?);
                at.push(ic);
            }
            // The binding (`None`), then each statement: every copy's in turn, under `valid[c]` for c > 0.
            for s in std::iter::once(None).chain(body.iter().map(Some)) {
                for c in 0..k as usize {
                    swap_copy(&mut me.locals, &mut copies, c);
                    let run = |me: &mut Self| match s {
                        Some(s) => me.stmt(s),
                        None => bind(me, at[c]),
                    };
                    let r = if c == 0 { run(me) } else { me.if_then(valid[c], run) };
                    swap_copy(&mut me.locals, &mut copies, c);
                    r?;
                }
            }
            Ok(())
        });
        self.nested_foralls -= 1;
        r?;
        // Each copy's partials into the thread's combined locals.
        for slots in &copies {
            for c in combine {
                let Some(&(_, slot)) = slots.iter().find(|(l, _)| *l == c.local.index()) else { continue };
                let ty = self.scalar_of(c.local)?;
                let part = self.b.build_load(crate::types::reg(self.c, ty), slot, "")?;
                let own = self.read_local(c.local)?;
                let v = self.combine_values(c.op, ty, own, part)?;
                self.write_local(c.local, v)?;
            }
        }
        Ok(())
    }
}

/// Swaps copy `c`'s slots for its locals into `locals` (or back out again): a no-op for copy 0, which uses the
/// locals' own slots.
fn swap_copy<'c>(locals: &mut [PointerValue<'c>], copies: &mut [Vec<(usize, PointerValue<'c>)>], c: usize) {
    if c > 0 {
        for (l, slot) in copies[c - 1].iter_mut() {
            std::mem::swap(&mut locals[*l], slot);
        }
    }
}
