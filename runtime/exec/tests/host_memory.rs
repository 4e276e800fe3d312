//! Host access to device arrays: fills, one-element stores and loads of every element size, 2-D indexing, bounds
//! errors, and that kernels see exactly what the host wrote (and the reverse).

mod common;

use common::*;
use irgc_artifact::*;
use std::sync::atomic::Ordering::Relaxed;

use Scalar as T;

#[test]
fn fill_store_load_round_trip_through_kernels() {
    let g = graph(5, &[], false, 0);
    let mut a = artifact("mem", None);
    a.globals = vec![
        node_global("flag", T::Bool),
        node_global("small", T::I32),
        node_global("big", T::I64),
        GlobalDesc { name: "grid".into(), elem: T::F32, shape: Shape::Dense(vec![u32c(3), u32c(4)]) },
        node_global("seen", T::U64),
    ];
    a.kernels = vec![kdesc("observe", vec![], Space::Nodes)];
    a.plan.locals = vec![("x".into(), T::I32), ("y".into(), T::F32)];
    let neg = (-3i32) as u32 as u64;
    a.plan.body = vec![
        HostStmt::Fill { global: 0, value: lit(T::Bool, 1) },
        HostStmt::Store { global: 0, index: vec![lit(T::Node, 3)], value: lit(T::Bool, 0) },
        HostStmt::Fill { global: 1, value: lit(T::I32, neg) },
        HostStmt::Store { global: 1, index: vec![lit(T::Node, 4)], value: lit(T::I32, 77) },
        HostStmt::Fill { global: 2, value: lit(T::I64, 1 << 40) },
        HostStmt::Fill { global: 3, value: lit(T::F32, 0.25f32.to_bits() as u64) },
        HostStmt::Store { global: 3, index: vec![u32c(2), u32c(1)], value: lit(T::F32, 1.5f32.to_bits() as u64) },
        // x = small[4] + small[0] = 74; y = grid[2, 1]
        HostStmt::Assign {
            local: 0,
            value: bin(BinaryOp::Add, load(T::I32, 1, vec![lit(T::Node, 4)]), load(T::I32, 1, vec![lit(T::Node, 0)])),
        },
        HostStmt::Assign { local: 1, value: load(T::F32, 3, vec![u32c(2), u32c(1)]) },
        HostStmt::Store { global: 2, index: vec![lit(T::Node, 1)], value: cast(T::I64, local(T::I32, 0)) },
        HostStmt::Store { global: 3, index: vec![u32c(0), u32c(0)], value: local(T::F32, 1) },
        invoke(0, vec![], None),
    ];
    // The kernel records, per node, what it reads: flag | small << 1 (low byte) ... as one u64.
    let kernels = vec![kernel(|c, v| {
        let v = v as usize;
        let flag = c.g8(0)[v].load(Relaxed) as u64;
        let small = c.g32(1)[v].load(Relaxed) as i32;
        let big = c.g64(2)[v].load(Relaxed);
        assert_eq!(c.dims(3), (3, 4));
        let grid = f32::from_bits(c.g32(3)[2 * 4 + 1].load(Relaxed));
        assert_eq!(grid, 1.5);
        c.g64(4)[v].store(flag + ((small as i64 + 1000) as u64) * 10 + big * 100_000, Relaxed);
    })];
    let run = run(&a, &g, &[], kernels).unwrap();
    assert_eq!(run.global(0).unwrap(), vec![1, 1, 1, 0, 1]);
    assert_eq!(run.global(1).unwrap(), vec![neg, neg, neg, neg, 77]);
    assert_eq!(run.global(2).unwrap(), vec![1 << 40, 74, 1 << 40, 1 << 40, 1 << 40]);
    let grid = run.global(3).unwrap();
    assert_eq!(grid.len(), 12);
    assert_eq!(f32::from_bits(grid[0] as u32), 1.5);
    assert_eq!(f32::from_bits(grid[1] as u32), 0.25);
    let seen = run.global(4).unwrap();
    assert_eq!(seen[0], 1 + 997 * 10 + (1u64 << 40) * 100_000);
    assert_eq!(seen[1], 1 + 997 * 10 + 74 * 100_000);
    assert_eq!(seen[3], 997 * 10 + (1u64 << 40) * 100_000);
    assert_eq!(seen[4], 1 + 1077 * 10 + (1u64 << 40) * 100_000);
}

#[test]
fn out_of_bounds_store_and_load_are_errors() {
    let g = graph(4, &[], false, 0);
    let mut a = artifact("oob", None);
    a.globals = vec![
        node_global("level", T::U32),
        GlobalDesc { name: "m".into(), elem: T::U32, shape: Shape::Dense(vec![u32c(2), u32c(3)]) },
    ];
    a.plan.body = vec![HostStmt::Store { global: 0, index: vec![lit(T::Node, 4)], value: u32c(1) }];
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert_eq!(err.to_string(), "index 4 is out of bounds for array `level`, which has 4 elements there");

    a.plan.locals = vec![("x".into(), T::U32)];
    a.plan.body = vec![HostStmt::Assign { local: 0, value: load(T::U32, 1, vec![u32c(1), u32c(3)]) }];
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert_eq!(err.to_string(), "index 3 is out of bounds for array `m` (dimension 1), which has 3 elements there");
}

#[test]
fn edge_arrays_and_sources() {
    let g = graph(3, &[(0, 1), (0, 2), (2, 1)], false, 0);
    let mut a = artifact("edges", None);
    a.needs_sources = true;
    a.globals = vec![GlobalDesc { name: "w".into(), elem: T::U32, shape: Shape::Edge }];
    a.kernels = vec![kdesc("tag", vec![T::U32], Space::Edges)];
    a.plan.body = vec![invoke(0, vec![u32c(10)], None)];
    let kernels = vec![kernel(|c, e| {
        let e = e as usize;
        c.g32(0)[e].store(c.arg(0) as u32 * c.src()[e] + c.col()[e], Relaxed);
    })];
    let run = run(&a, &g, &[], kernels).unwrap();
    assert_eq!(run.global(0).unwrap(), vec![1, 2, 21]);
}
