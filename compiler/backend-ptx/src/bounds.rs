//! Bounds-checked accesses (`--check-bounds`), as in the CPU backend: before an array or graph access the index
//! is compared with its bound; a bad one is reported to the bounds report (`irgc_artifact::BoundsReport`: the
//! first bad access of a launch claims it with a compare-and-swap) and the access is redirected — a global array
//! access to the report's scratch word, a shared one (address space 3) to element 0, a graph query to index 0 —
//! so no thread touches memory outside its arrays. The runtime reads the report after each launch.
//!
//! Sites are numbered by `irgc_front::bounds::site`. An array passed to a device function (`a: [T]`) is a node
//! array, checked against the node count.

use inkwell::values::{IntValue, PointerValue};
use inkwell::{AddressSpace, AtomicOrdering, IntPredicate};
use irgc_artifact::{BoundsReport, Layout};
use irgc_front::bounds::{site, Indexed};
use irgc_front::ir::{Expr, Handle, Scalar};

use crate::lower::{Lower, GLOBAL};
use crate::PtxError;

/// What a check gives the access it guards.
pub(crate) struct Checked<'c> {
    /// Whether every index was in bounds (an `i1`).
    pub ok: IntValue<'c>,
    /// The report's scratch word (global memory): where a bad global access goes instead.
    pub scratch: PointerValue<'c>,
}

impl<'c> Lower<'c, '_> {
    /// The bounds report's address (the context slot after the table), as a global pointer.
    pub(crate) fn bounds_report(&mut self) -> Result<PointerValue<'c>, PtxError> {
        let bits = self.slot(self.layout.bounds_report())?;
        let ptr = self.c.ptr_type(AddressSpace::from(GLOBAL));
        Ok(self.b.build_int_to_ptr(bits, ptr, "bounds_report")?)
    }

    /// Checks every `(index, bound)` (`i64`s; unsigned, so a negative index is huge) of the access to `what` whose
    /// first index is `expr`, reporting the first failing pair; `None` without `--check-bounds` (or for an
    /// unchecked site).
    pub(crate) fn check(
        &mut self,
        checks: &[(IntValue<'c>, IntValue<'c>)],
        what: Indexed,
        expr: Handle<Expr>,
    ) -> Result<Option<Checked<'c>>, PtxError> {
        let Some(body) = self.site_body.filter(|_| self.check_bounds) else { return Ok(None) };
        let Some(site) = site(body, what, expr) else { return Ok(None) };
        let (c, i64t) = (self.c, self.c.i64_type());
        let mut ok = c.bool_type().const_int(1, false);
        // The first failing pair, found back to front so the earliest wins.
        let (mut bad_index, mut bad_bound) = (i64t.const_zero(), i64t.const_zero());
        for &(index, bound) in checks.iter().rev() {
            let fine = self.b.build_int_compare(IntPredicate::ULT, index, bound, "in_bounds")?;
            ok = self.b.build_and(ok, fine, "")?;
            bad_index = self.b.build_select(fine, bad_index, index, "")?.into_int_value();
            bad_bound = self.b.build_select(fine, bad_bound, bound, "")?.into_int_value();
        }
        let report = self.bounds_report()?;
        // Word `w` of the report, through the element helper (the backend builds no GEPs itself).
        let word = |lw: &mut Self, w: usize| lw.element(report, i64t.const_int(w as u64, false), Scalar::U64, GLOBAL);
        let scratch = word(self, BoundsReport::SCRATCH)?;
        let bad = c.append_basic_block(self.f, "out_of_bounds");
        let done = c.append_basic_block(self.f, "in_bounds");
        self.b.build_conditional_branch(ok, done, bad)?;
        self.b.position_at_end(bad);
        let claim = i64t.const_int(site + 1, false);
        let site_at = word(self, BoundsReport::SITE)?;
        let pair = self.b.build_cmpxchg(
            site_at,
            i64t.const_zero(),
            claim,
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        )?;
        let won = self.b.build_extract_value(pair, 1, "won")?.into_int_value();
        // Only the access that claimed the report writes its index and bound; the others write scratch.
        for (w, value) in [(BoundsReport::INDEX, bad_index), (BoundsReport::BOUND, bad_bound)] {
            let mine = word(self, w)?;
            let at = self.b.build_select(won, mine, scratch, "")?.into_pointer_value();
            self.b.build_store(at, value)?;
        }
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(done);
        Ok(Some(Checked { ok, scratch }))
    }

    /// `index` (an `i64`, of expression `expr`) if `--check-bounds` found it below the graph's node (or edge)
    /// count, else 0 (after reporting it): the graph query `query` then reads a valid element.
    pub(crate) fn checked_graph_index(
        &mut self,
        index: IntValue<'c>,
        edges: bool,
        query: &'static str,
        expr: Handle<Expr>,
    ) -> Result<IntValue<'c>, PtxError> {
        if !self.check_bounds {
            return Ok(index);
        }
        let bound = self.slot(if edges { Layout::NUM_EDGES } else { Layout::NUM_NODES })?;
        Ok(match self.check(&[(index, bound)], Indexed::Graph(query), expr)? {
            Some(c) => self.b.build_select(c.ok, index, self.c.i64_type().const_zero(), "")?.into_int_value(),
            None => index,
        })
    }
}
