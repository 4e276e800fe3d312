//! Bounds-checked array and graph accesses (`--check-bounds`): before an access, the index is compared with its
//! array's bound; a bad one is reported to the bounds report (`irgc_artifact::BoundsReport`: the first bad access
//! of a launch claims it with a compare-and-swap) and the access goes to the report's scratch word instead, so the
//! process never touches memory outside its arrays. The runtime reads the report after the launch and stops the
//! run with the access site ([`BoundsSite`]), the index and the bound.
//!
//! Sites are numbered by `irgc_front::bounds::site` (the runtime's error carries the number; the front end's
//! `describe` turns it into the message). An array passed to a device function (`a: [T]`) is a node array,
//! checked against the node count.

use cranelift_codegen::ir::{condcodes::IntCC, types as t, InstBuilder, Value};
use irgc_artifact::{BoundsReport, Layout};

use crate::abi;
use crate::lower::Lower;

/// What a check gives the access it guards.
pub(crate) struct Checked {
    /// Whether every index was in bounds (an `i8` 0/1).
    pub ok: Value,
    /// The report's scratch word: where a bad access goes instead.
    pub scratch: Value,
}

impl Lower<'_, '_> {
    /// Checks every `(index, bound)` (`index < bound`, unsigned: a negative index is huge) of the access at
    /// `site`, reporting the first failing pair; `None` without `--check-bounds` (or for an unchecked site).
    pub(crate) fn check(&mut self, checks: &[(Value, Value)], site: Option<u64>) -> Option<Checked> {
        let site = site.filter(|_| self.check_bounds)? as i64;
        let b = &mut self.b;
        let mut ok = b.ins().iconst(t::I8, 1);
        // The first failing pair, found back to front so the earliest wins.
        let (mut bad_index, mut bad_bound) = (b.ins().iconst(t::I64, 0), b.ins().iconst(t::I64, 0));
        for &(index, bound) in checks.iter().rev() {
            let fine = b.ins().icmp(IntCC::UnsignedLessThan, index, bound);
            ok = b.ins().band(ok, fine);
            bad_index = b.ins().select(fine, bad_index, index);
            bad_bound = b.ins().select(fine, bad_bound, bound);
        }
        let report = abi::slot(b, self.ctx, self.layout.bounds_report());
        let scratch = b.ins().iadd_imm_s(report, (BoundsReport::SCRATCH * 8) as i64);
        let bad = b.create_block();
        let done = b.create_block();
        b.ins().brif(ok, done, &[], bad, &[]);
        b.switch_to_block(bad);
        let (zero, claim) = (b.ins().iconst(t::I64, 0), b.ins().iconst(t::I64, site + 1));
        let site_at = b.ins().iadd_imm_s(report, (BoundsReport::SITE * 8) as i64);
        let old = b.ins().atomic_cas(abi::flags(), site_at, zero, claim);
        let won = b.ins().icmp_imm_u(IntCC::Equal, old, 0);
        // Only the access that claimed the report writes its index and bound; the others write scratch.
        for (word, value) in [(BoundsReport::INDEX, bad_index), (BoundsReport::BOUND, bad_bound)] {
            let mine = b.ins().iadd_imm_s(report, (word * 8) as i64);
            let at = b.ins().select(won, mine, scratch);
            b.ins().store(abi::flags(), value, at, 0);
        }
        b.ins().jump(done, &[]);
        b.switch_to_block(done);
        Some(Checked { ok, scratch })
    }

    /// The graph's node count or edge count, for checking a node or edge index.
    pub(crate) fn graph_bound(&mut self, edges: bool) -> Value {
        let slot = if edges { Layout::NUM_EDGES } else { Layout::NUM_NODES };
        abi::slot(&mut self.b, self.ctx, slot)
    }

    /// `index` (of expression `expr`) if `--check-bounds` found it below the graph's node (or edge) count, else
    /// 0 (after reporting it): the graph query `query` then reads a valid element.
    pub(crate) fn checked_graph_index(
        &mut self,
        index: Value,
        edges: bool,
        query: &'static str,
        expr: irgc_front::ir::Handle<irgc_front::ir::Expr>,
    ) -> Value {
        if !self.check_bounds {
            return index;
        }
        let bound = self.graph_bound(edges);
        let site = irgc_front::bounds::site(self.site_body, irgc_front::bounds::Indexed::Graph(query), expr);
        match self.check(&[(index, bound)], site) {
            Some(c) => {
                let zero = self.b.ins().iconst(t::I64, 0);
                self.b.ins().select(c.ok, index, zero)
            }
            None => index,
        }
    }
}
