//! **interleave** — where a thread runs a nested loop's range by itself, it runs four iterations at once,
//! statement by statement, when the body waits on an atomic, so that the iterations' loads and atomics are in
//! flight together instead of one after another.
//!
//! A BFS or SSSP edge loop (`w = G.dst(e); t = atomic_min(level[w], d); if t > d { push w }`) on a graph of
//! small degrees runs in the thread that holds the node (the flat entry, or the remainder of fewer than 32
//! iterations that no warp shares): each iteration loads a destination, waits, issues the atomic, waits for its
//! old value, and only then starts the next. That chain, a few round trips to memory per edge, is a level's
//! critical path on road networks and geometric graphs, where a level has few nodes. With `interleave 4` the
//! backend (`backend-ptx/src/interleave.rs`) lays out copy 0..3 of each statement in turn, each copy with its
//! own locals, so the four loads go out together, then the four atomics.
//!
//! What it transforms: every nested `forall` that `np` scheduled `warp` or `block` (its iterations are
//! independent, by np's rules) whose body performs an atomic update or a push (directly or in a function it
//! calls): an atomic's old value is waited for before anything that uses it, and LLVM keeps later loads behind
//! it, so only an explicit interleaving overlaps them. What it does not do: loops whose bodies only read (LLVM
//! unrolls a thread's read-only loop itself, and the `unroll` pass covers the shared strides), loops `np` left
//! serial, or anything on the CPU.

use crate::{Options, Remark};
use irgc_front::analysis::function_has;
use irgc_front::ir::{DeviceBlock, DeviceOp, DeviceStmt, Module, Schedule, StmtKind};

/// Whether a statement waits on an atomic: an atomic update, or a push (which takes its slot by one).
fn waits_on_atomic(s: &DeviceStmt) -> bool {
    matches!(&s.kind, StmtKind::Op(DeviceOp::Atomic { .. } | DeviceOp::Push { .. } | DeviceOp::Retry { .. }))
}

/// Interleaves every scheduled nested loop whose body waits on an atomic; returns how many it changed.
pub(super) fn run(m: &mut Module, opts: &Options, remarks: &mut Vec<Remark>) -> usize {
    let factor = opts.param("interleave", "factor");
    let atomic_fns: Vec<bool> = (0..m.functions.len()).map(|i| function_has(m, i, waits_on_atomic)).collect();
    let mut changed = 0;
    let kernels = m.kernels.iter_mut().map(|(_, k)| (format!("kernel `{}`", k.name), &mut k.body));
    let functions = m.functions.iter_mut().map(|(_, f)| (format!("function `{}`", f.name), &mut f.body));
    for (what, body) in kernels.chain(functions).collect::<Vec<_>>() {
        let mut block = std::mem::take(&mut body.block);
        let names: Vec<String> = body.locals.iter().map(|(_, l)| l.name.clone()).collect();
        changed += interleave_block(&mut block, factor, &atomic_fns, &names, &what, remarks);
        body.block = block;
    }
    changed
}

fn interleave_block(
    block: &mut DeviceBlock,
    factor: u32,
    atomic_fns: &[bool],
    names: &[String],
    what: &str,
    remarks: &mut Vec<Remark>,
) -> usize {
    let mut changed = 0;
    for s in block.iter_mut() {
        if let StmtKind::Op(DeviceOp::ForAll { vars, space, body, schedule, interleave, .. }) = &mut s.kind {
            if *schedule != Schedule::Thread && vars.len() == 1 && space.is_range() {
                let waits = body.iter().any(|s| {
                    let mut any = false;
                    s.visit(&mut |s| {
                        any |= waits_on_atomic(s)
                            || matches!(&s.kind, StmtKind::Op(DeviceOp::Call { function, .. }) if atomic_fns[function.index()]);
                    });
                    any
                });
                let name = &names[vars[0].index()];
                let message = if waits {
                    *interleave = factor;
                    changed += 1;
                    format!(
                        "the loop over `{name}` runs {factor} iterations at once where a thread runs its range \
                         alone: its body waits on atomics"
                    )
                } else {
                    format!("the loop over `{name}` is not interleaved: its body waits on no atomic")
                };
                remarks.push(Remark { span: s.span, message: format!("{what}: {message}") });
                continue;
            }
            changed += interleave_block(body, factor, atomic_fns, names, what, remarks);
            continue;
        }
        for b in s.kind.own_blocks_mut() {
            changed += interleave_block(b, factor, atomic_fns, names, what, remarks);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::Options;
    use irgc_front::ir::print::print_module;
    use irgc_front::ir::{DeviceOp, Module};

    const SRC: &str = "graph G;\nnode x: u32;\nnode y: u32;\nworklist w;\n\
        kernel reads() { forall v in G.nodes { var s: u32 = 0; for e in G.edges(v) { s = s + x[G.dst(e)]; } y[v] = s; } }\n\
        kernel relax() { forall v in w { for e in G.edges(v) { let u = G.dst(e); if atomic_min(x[u], 1u32) > 1u32 { w.push(u); } } } }\n\
        plan { reads(); w.push(0 as node); pipe w { relax(); } }";

    #[test]
    fn loops_that_wait_on_atomics_are_interleaved_and_read_only_ones_are_not() {
        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let report = crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        let pass = report.passes.iter().find(|p| p.name == "interleave").expect("the pass ran");
        assert_eq!(pass.changes, 1);
        let why: Vec<&str> = pass.remarks.iter().map(|r| r.message.as_str()).collect();
        assert!(why[0].contains("kernel `reads`") && why[0].contains("waits on no atomic"), "{why:?}");
        assert!(why[1].contains("kernel `relax`") && why[1].contains("4 iterations at once"), "{why:?}");
        let ir = print_module(&m);
        assert_eq!(ir.matches("interleave 4").count(), 1, "{ir}");

        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let opts = Options { validate: true, ..Options::default() }.without("interleave");
        crate::run(&mut m, &opts).expect("valid");
        assert!(!print_module(&m).contains("interleave"));
    }

    /// Kernel `relax`'s sweep's `interleave` field, or (with `nested`) that of the loop inside it.
    fn interleave_of(m: &mut Module, nested: bool) -> &mut u32 {
        match super::super::test_support::forall_of(m, 1, nested) {
            DeviceOp::ForAll { interleave, .. } => interleave,
            _ => unreachable!("forall_of returns a ForAll"),
        }
    }

    /// The validator checks the recorded decision: a factor of 1, 2, 4 or 8, and only on a nested loop.
    #[test]
    fn the_validator_rejects_interleaved_sweeps_and_odd_factors() {
        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        let errors = super::super::test_support::validation_errors;
        *interleave_of(&mut m, false) = 4;
        assert!(errors(&m).contains("interleave 4 on a loop that is not a nested loop over a range"), "{}", errors(&m));
        *interleave_of(&mut m, false) = 1;
        *interleave_of(&mut m, true) = 3;
        assert!(errors(&m).contains("interleave 3: a loop is interleaved by 1, 2, 4 or 8"), "{}", errors(&m));
    }
}
