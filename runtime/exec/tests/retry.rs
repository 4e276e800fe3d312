//! `wl.retry(x)`: the kernel is relaunched over the retried items until none are left, reductions include the
//! relaunches, and the worklist's own contents are left as they were.

mod common;

use common::*;
use irgc_artifact::*;
use std::sync::atomic::Ordering::Relaxed;

#[test]
fn relaunches_until_no_retries_then_restores_the_worklist() {
    let g = graph(8, &[], false, 0);
    let mut a = artifact("retry", None);
    a.globals = vec![node_global("visits", Scalar::U32)];
    a.worklists = vec![WorklistDesc { name: "wl".into(), elem: Scalar::Node }];
    let mut k = kdesc("work", vec![], Space::Worklist(0));
    k.retries = Some(0);
    k.reduction = Some((ReduceOp::Sum, Scalar::U64));
    a.kernels = vec![k];
    a.plan.locals = vec![("total".into(), Scalar::U64)];
    a.plan.body = (0..8).map(|i| HostStmt::Push { worklist: 0, value: lit(Scalar::Node, i) }).collect();
    a.plan.body.push(invoke(0, vec![], Some(0)));
    a.globals.push(GlobalDesc { name: "total".into(), elem: Scalar::U64, shape: Shape::Dense(vec![u32c(1)]) });
    a.plan.body.push(HostStmt::Store { global: 1, index: vec![u32c(0)], value: local(Scalar::U64, 0) });
    // Node v is processed max(v, 1) times: each visit below v retries it.
    let kernels = vec![reducing(ReduceOp::Sum, Scalar::U64, |c, i| {
        let v = c.items(0)[i as usize];
        let seen = c.g32(0)[v as usize].fetch_add(1, Relaxed) + 1;
        if seen < v {
            c.retry(0, v);
        }
        Some(1)
    })];
    let run = run(&a, &g, &[], kernels).unwrap();
    let visits = run.global(0).unwrap();
    assert_eq!(visits, vec![1, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(run.global(1).unwrap(), vec![visits.iter().sum::<u64>()]);
    // One launch plus six retry rounds (node 7 needs seven visits); round k retries the nodes above k + 1.
    assert_eq!(run.launches, 7);
    let items: Vec<(u32, u64)> = run.stats.launches.iter().map(|l| (l.retry, l.items)).collect();
    assert_eq!(items, vec![(0, 8), (1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 1)]);
    // The kernel only reads `wl`, so its contents are unchanged.
    assert_eq!(run.worklist(0).unwrap(), (0..8).collect::<Vec<u64>>());
}

#[test]
fn retry_from_a_kernel_that_does_not_sweep_the_worklist_is_refused() {
    let g = graph(2, &[], false, 0);
    let mut a = artifact("bad", None);
    a.worklists = vec![WorklistDesc { name: "wl".into(), elem: Scalar::Node }];
    let mut k = kdesc("k", vec![], Space::Nodes);
    k.retries = Some(0);
    a.kernels = vec![k];
    a.plan.body = vec![invoke(0, vec![], None)];
    let err = run(&a, &g, &[], vec![kernel(|c, v| c.retry(0, v as u32))]).err().unwrap();
    assert_eq!(
        err.to_string(),
        "kernel `k` retries into worklist `wl` but does not sweep it; retry needs `forall x in wl`"
    );
}
