//! `hybrid` switches between its branches by worklist size, both ways, and every launch records the branch.

mod common;

use common::*;
use irgc_artifact::*;
use irgc_runtime::{Execution, Mode};

/// `pipe wl { hybrid wl above 0.5 { dense { shrink(); } sparse { grow(); } } r += 1; if r == 4 { wl.clear(); } }`
/// on 16 nodes: shrink keeps the items below 4 (16 -> 4 items), grow pushes every node (4 -> 16).
fn shrink_grow(threshold: Option<HostExpr>) -> Execution {
    let g = graph(16, &[], false, 0);
    let mut a = artifact("hybrid", None);
    a.worklists = vec![WorklistDesc { name: "wl".into(), elem: Scalar::Node }];
    let mut shrink = kdesc("shrink", vec![], Space::Worklist(0));
    shrink.pushes = vec![0];
    let mut grow = kdesc("grow", vec![], Space::Nodes);
    grow.pushes = vec![0];
    a.kernels = vec![shrink, grow];
    let r = || local(Scalar::U32, 0);
    a.plan.locals = vec![("r".into(), Scalar::U32), ("v".into(), Scalar::U32)];
    a.plan.body = vec![
        HostStmt::For {
            var: 1,
            start: u32c(0),
            end: num_nodes(),
            body: vec![HostStmt::Push { worklist: 0, value: cast(Scalar::Node, local(Scalar::U32, 1)) }],
        },
        HostStmt::Pipe {
            worklist: 0,
            body: vec![
                HostStmt::Hybrid {
                    worklist: 0,
                    threshold,
                    dense: vec![invoke(0, vec![], None)],
                    sparse: vec![invoke(1, vec![], None)],
                },
                HostStmt::Assign { local: 0, value: bin(BinaryOp::Add, r(), u32c(1)) },
                HostStmt::If {
                    cond: bin(BinaryOp::Eq, r(), u32c(4)),
                    then: vec![HostStmt::Clear { worklist: 0 }],
                    otherwise: vec![],
                },
            ],
            outlined: None,
        },
    ];
    let kernels = vec![
        kernel(|c, i| {
            let v = c.items(0)[i as usize];
            if v < 4 {
                c.push(0, v);
            }
        }),
        kernel(|c, v| c.push(0, v as u32)),
    ];
    run(&a, &g, &[], kernels).unwrap()
}

#[test]
fn switches_dense_sparse_dense_sparse() {
    let run = shrink_grow(Some(lit(Scalar::F64, 0.5f64.to_bits())));
    let modes: Vec<Mode> = run.stats.hybrid.iter().map(|h| h.mode).collect();
    assert_eq!(modes, vec![Mode::Dense, Mode::Sparse, Mode::Dense, Mode::Sparse]);
    let sizes: Vec<u64> = run.stats.hybrid.iter().map(|h| h.size).collect();
    assert_eq!(sizes, vec![16, 4, 16, 4]);
    assert_eq!(run.stats.hybrid[0].above, Some(8.0));
    let launched: Vec<(&str, Option<Mode>)> = run.stats.launches.iter().map(|l| (l.kernel.as_str(), l.mode)).collect();
    assert_eq!(
        launched,
        vec![
            ("shrink", Some(Mode::Dense)),
            ("grow", Some(Mode::Sparse)),
            ("shrink", Some(Mode::Dense)),
            ("grow", Some(Mode::Sparse)),
        ]
    );
    assert_eq!(run.stats.pipe_rounds.len(), 4);
    assert!(run.worklist(0).unwrap().is_empty());
}

/// `above auto`: nothing is known at first, so the first round (16 of 16 nodes) runs sparse; then dense, not yet
/// measured, is tried (the worklist holds at least a sixteenth of the nodes). Later rounds follow the measured
/// times, which this test cannot fix; every round records its mode, without a threshold.
#[test]
fn auto_starts_sparse_then_tries_the_other_mode() {
    let run = shrink_grow(None);
    let modes: Vec<Mode> = run.stats.hybrid.iter().map(|h| h.mode).collect();
    assert_eq!(modes[..2], [Mode::Sparse, Mode::Dense]);
    assert_eq!(modes.len(), 4);
    assert!(run.stats.hybrid.iter().all(|h| h.above.is_none()));
    assert!(run.worklist(0).unwrap().is_empty());
}

/// Exactly at the threshold the sparse branch runs ("more than H × n" is dense).
#[test]
fn the_threshold_itself_is_sparse() {
    let g = graph(10, &[], false, 0);
    let mut a = artifact("edge", None);
    a.worklists = vec![WorklistDesc { name: "wl".into(), elem: Scalar::Node }];
    a.globals = vec![GlobalDesc { name: "which".into(), elem: Scalar::U32, shape: Shape::Dense(vec![u32c(2)]) }];
    a.plan.body = (0..5).map(|i| HostStmt::Push { worklist: 0, value: lit(Scalar::Node, i) }).collect();
    let mark = |i: u32| vec![HostStmt::Store { global: 0, index: vec![u32c(i)], value: u32c(1) }];
    a.plan.body.push(HostStmt::Hybrid {
        worklist: 0,
        threshold: Some(lit(Scalar::F64, 0.5f64.to_bits())),
        dense: mark(0),
        sparse: mark(1),
    });
    let run = run(&a, &g, &[], vec![]).unwrap();
    assert_eq!(run.global(0).unwrap(), vec![0, 1]);
    assert_eq!(run.worklist(0).unwrap(), vec![0, 1, 2, 3, 4]);
}
