//! Invariant 5: device functions do not call themselves, directly or indirectly.

use super::*;
use std::collections::BTreeSet;

/// The functions that lie on a cycle of calls (sema reports these to the user; the validator re-checks).
pub fn recursive_functions(m: &Module) -> Vec<Handle<Function>> {
    let calls: Vec<BTreeSet<usize>> = m
        .functions
        .iter()
        .map(|(_, f)| {
            let mut out = BTreeSet::new();
            collect_calls(&f.body.block, &mut out);
            out
        })
        .collect();
    // f is recursive when f is reachable from one of its callees.
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; calls.len()];
        let mut stack = vec![from];
        while let Some(i) = stack.pop() {
            if i == to {
                return true;
            }
            if i < seen.len() && !seen[i] {
                seen[i] = true;
                stack.extend(calls[i].iter().copied());
            }
        }
        false
    };
    m.functions
        .iter()
        .filter(|(h, _)| calls[h.index()].iter().any(|&c| reaches(c, h.index())))
        .map(|(h, _)| h)
        .collect()
}

fn collect_calls(block: &DeviceBlock, out: &mut BTreeSet<usize>) {
    for s in block {
        match &s.kind {
            StmtKind::Op(DeviceOp::Call { function, .. }) => {
                out.insert(function.index());
            }
            StmtKind::If { then, otherwise, .. } => {
                collect_calls(then, out);
                collect_calls(otherwise, out);
            }
            StmtKind::Loop { body, continuing, .. } => {
                collect_calls(body, out);
                collect_calls(continuing, out);
            }
            StmtKind::For { body, .. }
            | StmtKind::Op(DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. }) => collect_calls(body, out),
            _ => {}
        }
    }
}
