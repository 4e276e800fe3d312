//! Bounds-checked array and graph accesses (`--check-bounds`): before an access, the index is compared with its
//! array's bound; a bad one is reported to the bounds report (`irgc_artifact::BoundsReport`: the first bad access
//! of a launch claims it with a compare-and-swap) and the access goes to the report's scratch word instead, so the
//! process never touches memory outside its arrays. The runtime reads the report after the launch and stops the
//! run with the access site ([`BoundsSite`]), the index and the bound.
//!
//! Not checked: arrays passed to device functions (`a: array<T>` parameters carry no length) — their accesses are
//! as unchecked as without the flag.

use cranelift_codegen::ir::{condcodes::IntCC, types as t, InstBuilder, Value};
use irgc_artifact::{BoundsReport, Layout};
use irgc_front::Span;

use crate::abi;
use crate::lower::Lower;

/// One checked access of the program: where it is and what it indexes, for the message a bad index gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundsSite {
    /// The kernel or device function (`kernel \`bad\``).
    pub what: String,
    /// The array (or graph query: `G.dst`) indexed.
    pub array: String,
    /// The index expression in the source.
    pub span: Span,
}

/// What a check gives the access it guards.
pub(crate) struct Checked {
    /// Whether every index was in bounds (an `i8` 0/1).
    pub ok: Value,
    /// The report's scratch word: where a bad access goes instead.
    pub scratch: Value,
}

impl Lower<'_, '_> {
    /// Checks every `(index, bound)` (`index < bound`, unsigned: a negative index is huge) of one access to
    /// `array` at `span`, reporting the first failing pair at a new site; `None` without `--check-bounds`.
    pub(crate) fn check(&mut self, checks: &[(Value, Value)], array: String, span: Span) -> Option<Checked> {
        let sites = self.bounds.as_mut()?;
        let site = sites.len() as i64 + self.site_base as i64;
        sites.push(BoundsSite { what: self.what.clone(), array, span });
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

    /// `index` if `--check-bounds` found it below the graph's node (or edge) count, else 0 (after reporting it):
    /// a graph query then reads a valid element.
    pub(crate) fn checked_graph_index(&mut self, index: Value, edges: bool, query: &str, span: Span) -> Value {
        if self.bounds.is_none() {
            return index;
        }
        let bound = self.graph_bound(edges);
        match self.check(&[(index, bound)], query.to_string(), span) {
            Some(c) => {
                let zero = self.b.ins().iconst(t::I64, 0);
                self.b.ins().select(c.ok, index, zero)
            }
            None => index,
        }
    }
}
