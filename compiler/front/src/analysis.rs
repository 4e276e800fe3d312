//! Facts about a module that several later stages ask for (iteration outlining, the host backend, the device
//! backends): computed here once, so none of them imports another for them.

use crate::ir::{DeviceBlock, DeviceOp, Kernel, Module, StmtKind};
use std::collections::BTreeSet;

/// The worklists kernel `k` pushes to and retries into, by index, following calls into device functions.
pub fn kernel_effects(m: &Module, k: &Kernel) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let mut pushes = BTreeSet::new();
    let mut retries = BTreeSet::new();
    let mut seen = BTreeSet::new();
    effects(m, &k.body.block, &mut pushes, &mut retries, &mut seen);
    (pushes, retries)
}

fn effects(
    m: &Module,
    block: &DeviceBlock,
    pushes: &mut BTreeSet<usize>,
    retries: &mut BTreeSet<usize>,
    seen: &mut BTreeSet<usize>,
) {
    for s in block {
        match &s.kind {
            StmtKind::Op(DeviceOp::Push { worklist, .. }) => {
                pushes.insert(worklist.index());
            }
            StmtKind::Op(DeviceOp::Retry { worklist, .. }) => {
                retries.insert(worklist.index());
            }
            StmtKind::Op(DeviceOp::Call { function, .. }) if seen.insert(function.index()) => {
                effects(m, &m.functions[*function].body.block, pushes, retries, seen);
            }
            StmtKind::If { then, otherwise, .. } => {
                effects(m, then, pushes, retries, seen);
                effects(m, otherwise, pushes, retries, seen);
            }
            StmtKind::Loop { body, continuing, .. } => {
                effects(m, body, pushes, retries, seen);
                effects(m, continuing, pushes, retries, seen);
            }
            StmtKind::For { body, .. }
            | StmtKind::Op(DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. }) => {
                effects(m, body, pushes, retries, seen)
            }
            _ => {}
        }
    }
}
