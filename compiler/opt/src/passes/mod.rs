//! The passes, one per file, in the order [`run`](crate::run) applies them.

mod coop;
mod interleave;
mod np;
mod outline;
mod unroll;

use crate::{Options, Remark};
use irgc_front::ir::{Module, LOOP_FACTORS};

/// What the passes' tests share: reaching a kernel's loops to corrupt a recorded decision, and the validator's
/// verdict on the result.
#[cfg(test)]
mod test_support {
    use irgc_front::ir::{DeviceOp, Module, StmtKind};

    /// Kernel number `k`'s sweep, or (with `nested`) the first `forall` directly inside it.
    pub fn forall_of(m: &mut Module, k: usize, nested: bool) -> &mut DeviceOp {
        let (_, kernel) = m.kernels.iter_mut().nth(k).expect("the kernel");
        let StmtKind::Op(sweep @ DeviceOp::ForAll { .. }) = &mut kernel.body.block[0].kind else { panic!("sweep") };
        if !nested {
            return sweep;
        }
        let DeviceOp::ForAll { body, .. } = sweep else { unreachable!() };
        body.iter_mut()
            .find_map(|s| match &mut s.kind {
                StmtKind::Op(inner @ DeviceOp::ForAll { .. }) => Some(inner),
                _ => None,
            })
            .expect("the nested loop")
    }

    /// The validator's messages for a module it must reject, joined by `; `.
    pub fn validation_errors(m: &Module) -> String {
        let errs = irgc_front::ir::validate::validate(m).expect_err("invalid");
        errs.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ")
    }
}

/// A pass: its stable name, a one-line summary, its parameters, and the function that runs it (returning how many
/// places it changed, and adding a remark for each decision worth explaining).
#[derive(Debug)]
pub struct Pass {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [Param],
    pub run: fn(&mut Module, &Options, &mut Vec<Remark>) -> usize,
}

/// A number a pass reads from [`Options::param`]: set with `--pass-param PASS.NAME=N`, so that one binary can
/// compare a pass's factors on the GPU (whose time is short), else its default.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub default: u32,
    /// The values the IR allows for what the parameter sets (the validator checks the same).
    pub allowed: &'static [u32],
    pub summary: &'static str,
}

/// The factor of `unroll` and `interleave`: iterations a turn, one of the IR's [`LOOP_FACTORS`] (1 is the pass off).
const FACTOR: &[Param] = &[Param { name: "factor", default: 4, allowed: &LOOP_FACTORS, summary: "iterations at once" }];

/// Every pass, in order.
pub static PASSES: &[Pass] = &[
    Pass {
        name: "np",
        summary: "nested parallelism: an inner loop over a node's edges (or any range) is spread over a warp or block",
        params: &[],
        run: np::run,
    },
    Pass {
        name: "unroll",
        summary:
            "a warp or block striding over a read-only loop runs `factor` iterations a turn (their loads in flight)",
        params: FACTOR,
        run: unroll::run,
    },
    Pass {
        name: "interleave",
        summary:
            "a thread running a loop's range alone runs `factor` iterations at once when the body waits on atomics",
        params: FACTOR,
        run: interleave::run,
    },
    Pass {
        name: "coop",
        summary: "cooperative conversion: a warp's pushes and reductions share one atomic on the counter or result",
        params: &[],
        run: coop::run,
    },
    Pass {
        name: "outline",
        summary:
            "iteration outlining: a pipe or loop of launches and host arithmetic runs as one persistent GPU kernel",
        params: &[],
        run: outline::run,
    },
];
