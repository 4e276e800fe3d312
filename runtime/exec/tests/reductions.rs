//! Kernel reductions: partial results combined across parallel chunks, and a reduction driving a host loop
//! (label propagation until nothing changes).

mod common;

use common::*;
use irgc_artifact::*;
use irgc_runtime::RunOptions;
use std::sync::atomic::Ordering::Relaxed;

/// One kernel per reduction op over all nodes of a large graph, so many chunks are combined.
#[test]
fn reductions_combine_across_chunks() {
    let n = 20_000u32;
    let g = graph(n, &[], false, 0);
    let mut a = artifact("reduce", None);
    let specs = [
        (ReduceOp::Sum, Scalar::U64),
        (ReduceOp::Min, Scalar::I32),
        (ReduceOp::Max, Scalar::F64),
        (ReduceOp::Any, Scalar::Bool),
        (ReduceOp::All, Scalar::Bool),
        (ReduceOp::Sum, Scalar::U32),
    ];
    for (i, &(op, ty)) in specs.iter().enumerate() {
        let mut k = kdesc(&format!("k{i}"), vec![], Space::Nodes);
        k.reduction = Some((op, ty));
        a.kernels.push(k);
    }
    a.plan.locals = specs.iter().enumerate().map(|(i, &(_, ty))| (format!("r{i}"), ty)).collect();
    a.plan.body = (0..specs.len()).map(|i| invoke(i, vec![], Some(i))).collect();
    // Results land in locals; store them in a global to read them back.
    a.globals =
        vec![GlobalDesc { name: "out".into(), elem: Scalar::U64, shape: Shape::Dense(vec![lit(Scalar::U64, 6)]) }];
    for (i, &(_, ty)) in specs.iter().enumerate() {
        // A cast keeps the value (19999.5 -> 19999, -7000 sign-extended), not the bits.
        let value = if ty == Scalar::U64 { local(ty, i) } else { cast(Scalar::U64, local(ty, i)) };
        a.plan.body.push(HostStmt::Store { global: 0, index: vec![lit(Scalar::U64, i as u64)], value });
    }
    let kernels = vec![
        reducing(ReduceOp::Sum, Scalar::U64, |_, v| Some(v)),
        reducing(ReduceOp::Min, Scalar::I32, |_, v| Some((v as i32 - 7000) as u32 as u64)),
        reducing(ReduceOp::Max, Scalar::F64, |_, v| Some((v as f64 + 0.5).to_bits())),
        reducing(ReduceOp::Any, Scalar::Bool, |_, v| (v == 12_345).then_some(1)),
        reducing(ReduceOp::All, Scalar::Bool, |_, v| Some((v != 19_000) as u64)),
        // Wraps at 32 bits: 20000 * 300000 = 6e9.
        reducing(ReduceOp::Sum, Scalar::U32, |_, _| Some(300_000)),
    ];
    let run = run_with(&a, &g, &[], kernels, RunOptions { threads: Some(3), ..Default::default() }).unwrap();
    let out = run.global(0).unwrap();
    assert_eq!(out[0], (n as u64 - 1) * n as u64 / 2);
    // -7000 as i32, cast to u64: sign-extended.
    assert_eq!(out[1] as i64, -7000);
    assert_eq!(out[2], 19_999);
    assert_eq!(out[3], 1);
    assert_eq!(out[4], 0);
    assert_eq!(out[5], (20_000u64 * 300_000) % (1 << 32));
}

/// A kernel without any `reduce` executed gives the identity.
#[test]
fn empty_space_gives_the_identity() {
    let g = graph(0, &[], false, 0);
    let mut a = artifact("empty", None);
    let mut k = kdesc("k", vec![], Space::Nodes);
    k.reduction = Some((ReduceOp::Min, Scalar::U32));
    a.kernels = vec![k];
    a.plan.locals = vec![("r".into(), Scalar::U32)];
    a.plan.body = vec![invoke(0, vec![], Some(0))];
    a.globals = vec![GlobalDesc { name: "out".into(), elem: Scalar::U32, shape: Shape::Dense(vec![u32c(1)]) }];
    a.plan.body.push(HostStmt::Store { global: 0, index: vec![u32c(0)], value: local(Scalar::U32, 0) });
    let run = run(&a, &g, &[], vec![reducing(ReduceOp::Min, Scalar::U32, |_, _| Some(0))]).unwrap();
    assert_eq!(run.global(0).unwrap(), vec![u32::MAX as u64]);
}

/// Min-label propagation over edges: `loop { let changed = propagate(); } until !changed`, checked as components.
#[test]
fn an_any_reduction_drives_a_loop() {
    let g = graph(7, &[(0, 1), (1, 2), (3, 4), (5, 6), (6, 4)], true, 0);
    let mut a = artifact("cc", None);
    a.needs_sources = true;
    a.globals = vec![node_global("label", Scalar::Node)];
    let mut init = kdesc("init", vec![], Space::Nodes);
    init.params = vec![];
    let mut prop = kdesc("propagate", vec![], Space::Edges);
    prop.reduction = Some((ReduceOp::Any, Scalar::Bool));
    a.kernels = vec![init, prop];
    a.plan.locals = vec![("changed".into(), Scalar::Bool), ("rounds".into(), Scalar::U32)];
    a.plan.body = vec![
        invoke(0, vec![], None),
        HostStmt::Loop {
            body: vec![
                invoke(1, vec![], Some(0)),
                HostStmt::Assign { local: 1, value: bin(BinaryOp::Add, local(Scalar::U32, 1), u32c(1)) },
            ],
            continuing: vec![],
            break_if: Some(not(local(Scalar::Bool, 0))),
            outlined: None,
        },
    ];
    a.outputs = vec![OutputDesc { global: 0, check: Some(CheckDesc::Components) }];
    let kernels = vec![
        kernel(|c, v| c.g32(0)[v as usize].store(v as u32, Relaxed)),
        reducing(ReduceOp::Any, Scalar::Bool, |c, e| {
            let (s, d) = (c.src()[e as usize] as usize, c.col()[e as usize] as usize);
            let label = c.g32(0);
            let ls = label[s].load(Relaxed);
            (label[d].fetch_min(ls, Relaxed) > ls).then_some(1)
        }),
    ];
    let run = run(&a, &g, &[], kernels).unwrap();
    assert_eq!(run.outputs()[0].values, vec![0, 0, 0, 3, 3, 3, 3]);
    let reports = irgc_runtime::verify(&a, &g, &[], run.outputs()).unwrap();
    assert_eq!(reports[0].summary, "2 components, the largest of 4 nodes");
    assert!(run.launches >= 3, "init, at least one changing round, one quiet round");
}
