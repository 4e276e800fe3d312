//! A kernel's description in the artifact: its signature, its space, the worklists it pushes to and retries
//! into, and the host expressions that size a range or tile launch.

use crate::{host_expr, local_scalar};
use irgc_artifact as art;
use irgc_front::analysis::kernel_effects;
use irgc_front::ir::{self, DeviceOp, Module, StmtKind};

pub(crate) fn kernel(m: &Module, k: &ir::Kernel) -> art::KernelDesc {
    let (pushes, retries) = kernel_effects(m, k);
    let dims = |s: &ir::Space| match s {
        ir::Space::Range2(_) => 2,
        _ => 1,
    };
    let ranges = |s: &ir::Space| match s {
        ir::Space::Range(a, b) => vec![(host_expr(&k.body, *a), host_expr(&k.body, *b))],
        ir::Space::Range2(r) => r.iter().map(|(a, b)| (host_expr(&k.body, *a), host_expr(&k.body, *b))).collect(),
        _ => Vec::new(),
    };
    let bounds = match k.body.block.first().map(|s| &s.kind) {
        Some(StmtKind::Op(DeviceOp::ForAll { space, .. })) => ranges(space),
        Some(StmtKind::Op(DeviceOp::ForTile { tiles, .. })) => ranges(tiles),
        _ => Vec::new(),
    };
    let space = match k.body.block.first().map(|s| &s.kind) {
        Some(StmtKind::Op(DeviceOp::ForAll { space, .. })) => match space {
            ir::Space::Nodes => art::Space::Nodes,
            ir::Space::Edges => art::Space::Edges,
            ir::Space::Worklist(w) => art::Space::Worklist(w.index()),
            s => art::Space::Range { dims: dims(s) },
        },
        Some(StmtKind::Op(DeviceOp::ForTile { tiles, threads, .. })) => {
            art::Space::Tiles { dims: dims(tiles), threads: threads.clone() }
        }
        // The validator guarantees one sweep per kernel; an empty body has an empty range.
        _ => art::Space::Range { dims: 1 },
    };
    art::KernelDesc {
        name: k.name.clone(),
        params: k.params.iter().map(|&p| local_scalar(k.body.locals[p].ty)).collect(),
        reduction: k.reduction,
        space,
        pushes: pushes.into_iter().collect(),
        retries: retries.into_iter().next(),
        bounds,
        deals: k.sweep_holds_block_loop(),
        waits: k.waits(),
    }
}
