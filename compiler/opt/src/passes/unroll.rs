//! **unroll** — a scheduled nested loop whose body only reads memory runs four iterations a turn where several
//! threads share a range, so that each thread has four iterations' loads in flight instead of one.
//!
//! A warp or block striding over a hub's edges is latency-bound: each lane loads an edge's destination, then
//! that node's state, then compares, and only then moves on to its next iteration. With `unroll 4` the backend
//! lays out four iterations back to back (iterations `j, j + s, j + 2s, j + 3s` of the lane's stride `s`, while
//! all four are in the range; the rest one at a time), and since their bodies write nothing, the loads of all
//! four can be issued before the first is used. Measured on an H100 (kron22): `jp_ldf` 204 → 149 ms,
//! `pagerank_pull` 34.3 → 15.8 ms, `ipgc_hybrid` 176 → 159 ms; other classes mostly within noise.
//!
//! Where it hurts, and the rule for it: the unrolled form takes registers (`pagerank_pull_f32`'s `pull`: 48
//! against 32, so 5 blocks an SM instead of 8), and on a graph whose work is mostly short ranges (rmatg22) the
//! lost occupancy costs more than the unrolled hubs save (21% slower, measured with Nsight Compute: achieved
//! occupancy 52% against 84%). No compile-time rule tells those graphs apart, so a kernel with an unrolled loop of
//! its own or in a function it calls also gets a *rolled* entry (`irgc_artifact::rolled_entry`), and on a skewed
//! graph the runtime times one launch of each (two launches of equal size) and keeps the faster. Outlined pipes
//! have no rolled form yet.
//!
//! What it transforms: every nested `forall` that `np` scheduled `warp` or `block` whose body has no store,
//! atomic, push, retry, reduction or barrier and calls no function that has one (transitively). A body that
//! writes would keep its loads behind the stores (they may alias), so unrolling would only grow the code.
//! What it does not do: unroll a range's remainder that its own thread runs (fewer than 32 iterations; a stride of
//! one there may run once per call of a function in a serial loop, where the extra branch cost more than it
//! saved: `louvain_local` +10% when tried), loops `np` left in their thread, or anything on the CPU.

use crate::{Options, Remark};
use irgc_front::analysis::function_has;
use irgc_front::ir::{DeviceBlock, DeviceBody, DeviceOp, DeviceStmt, Module, Schedule, StmtKind};

/// Unrolls every scheduled read-only nested loop; returns how many it changed.
pub(super) fn run(m: &mut Module, opts: &Options, remarks: &mut Vec<Remark>) -> usize {
    let factor = opts.param("unroll", "factor");
    let writes = |s: &DeviceStmt| matches!(&s.kind, StmtKind::Op(op) if op.writes_or_waits());
    let write_fns: Vec<bool> = (0..m.functions.len()).map(|i| function_has(m, i, writes)).collect();
    let fn_names: Vec<String> = m.functions.iter().map(|(_, f)| f.name.clone()).collect();
    let mut changed = 0;
    let mut bodies: Vec<(String, &mut DeviceBody)> = Vec::new();
    for (_, k) in m.kernels.iter_mut() {
        bodies.push((format!("kernel `{}`", k.name), &mut k.body));
    }
    for (_, f) in m.functions.iter_mut() {
        bodies.push((format!("function `{}`", f.name), &mut f.body));
    }
    for (what, body) in bodies {
        let mut block = std::mem::take(&mut body.block);
        let cx = Cx { body: &*body, factor, write_fns: &write_fns, fn_names: &fn_names, what: &what };
        changed += cx.block(&mut block, remarks);
        body.block = block;
    }
    changed
}

struct Cx<'a> {
    body: &'a DeviceBody,
    /// Iterations a turn for the loops this pass unrolls.
    factor: u32,
    write_fns: &'a [bool],
    fn_names: &'a [String],
    what: &'a str,
}

impl Cx<'_> {
    fn block(&self, block: &mut DeviceBlock, remarks: &mut Vec<Remark>) -> usize {
        let mut changed = 0;
        for s in block.iter_mut() {
            if let StmtKind::Op(DeviceOp::ForAll { vars, body, schedule, unroll, .. }) = &mut s.kind {
                if *schedule != Schedule::Thread && *unroll == 1 {
                    let name = &self.body.locals[vars[0]].name;
                    let message = match self.writer(body) {
                        None => {
                            *unroll = self.factor;
                            changed += 1;
                            format!(
                                "the loop over `{name}` runs {} iterations a turn: its body only reads memory",
                                self.factor
                            )
                        }
                        Some(why) => format!("the loop over `{name}` is not unrolled: its body {why}"),
                    };
                    remarks.push(Remark { span: s.span, message: format!("{}: {message}", self.what) });
                    continue;
                }
                changed += self.block(body, remarks);
                continue;
            }
            for b in s.kind.own_blocks_mut() {
                changed += self.block(b, remarks);
            }
        }
        changed
    }

    /// What in `block` writes memory (the first such statement), if anything does. Whether an operation writes is
    /// [`DeviceOp::writes_or_waits`]'s answer (the same test `np` uses); the match below only words the reason.
    fn writer(&self, block: &DeviceBlock) -> Option<String> {
        let mut why = None;
        for s in block {
            s.visit(&mut |s| {
                let StmtKind::Op(op) = &s.kind else { return };
                if why.is_some() {
                    return;
                }
                why = match op {
                    DeviceOp::Call { function, .. } if self.write_fns[function.index()] => {
                        Some(format!("calls `{}`, which writes memory", self.fn_names[function.index()]))
                    }
                    op if op.writes_or_waits() => Some(
                        match op {
                            DeviceOp::Store { .. } => "stores to an array",
                            DeviceOp::Atomic { .. } => "updates an array atomically",
                            DeviceOp::Push { .. } | DeviceOp::Retry { .. } => "pushes to a worklist",
                            DeviceOp::Reduce { .. } => "contributes to a reduction",
                            DeviceOp::Barrier => "waits at a barrier",
                            _ => "writes memory",
                        }
                        .to_string(),
                    ),
                    _ => None,
                };
            });
        }
        why
    }
}

#[cfg(test)]
mod tests {
    use crate::Options;
    use irgc_front::ir::print::print_module;
    use irgc_front::ir::{DeviceOp, Module};

    const SRC: &str = "graph G;\nnode x: u32;\nnode y: u32;\n\
        kernel k() { forall v in G.nodes { var s: u32 = 0; for e in G.edges(v) { s = s + x[G.dst(e)]; } y[v] = s; } }\n\
        kernel w() { forall v in G.nodes { for e in G.edges(v) { atomic_add(y[G.dst(e)], 1u32); } } }\n\
        plan { k(); w(); }";

    #[test]
    fn read_only_scheduled_loops_are_unrolled_and_writing_ones_are_not() {
        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let report = crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        let pass = report.passes.iter().find(|p| p.name == "unroll").expect("the pass ran");
        assert_eq!(pass.changes, 1);
        let why: Vec<&str> = pass.remarks.iter().map(|r| r.message.as_str()).collect();
        assert!(why[0].contains("kernel `k`") && why[0].contains("only reads memory"), "{why:?}");
        assert!(why[1].contains("kernel `w`") && why[1].contains("updates an array atomically"), "{why:?}");
        let ir = print_module(&m);
        assert_eq!(ir.matches("unroll 4").count(), 1, "{ir}");

        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let report =
            crate::run(&mut m, &Options { validate: true, ..Options::default() }.without("unroll")).expect("valid");
        assert!(!report.passes.iter().find(|p| p.name == "unroll").unwrap().ran);
        assert!(!print_module(&m).contains("unroll"));
    }

    /// Kernel `k`'s sweep's `unroll` field, or (with `nested`) that of the loop inside it.
    fn unroll_of(m: &mut Module, nested: bool) -> &mut u32 {
        match super::super::test_support::forall_of(m, 0, nested) {
            DeviceOp::ForAll { unroll, .. } => unroll,
            _ => unreachable!("forall_of returns a ForAll"),
        }
    }

    /// The validator checks the recorded decision: a factor of 1, 2, 4 or 8, and only on a scheduled loop.
    #[test]
    fn the_validator_rejects_unrolled_thread_loops_and_odd_factors() {
        let errors = super::super::test_support::validation_errors;
        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        *unroll_of(&mut m, false) = 4;
        assert!(errors(&m).contains("unroll 4 on a loop scheduled `thread`"), "{}", errors(&m));
        *unroll_of(&mut m, false) = 1;
        *unroll_of(&mut m, true) = 3;
        assert!(errors(&m).contains("unroll 3: a loop is unrolled by 1, 2, 4 or 8"), "{}", errors(&m));
    }
}
