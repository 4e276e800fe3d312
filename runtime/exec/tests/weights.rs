//! Edge weights reach kernels in the program's declared type; a graph without weights, or with weights that do
//! not convert exactly, is refused with a message saying how to fix the run.

mod common;

use common::*;
use irgc_artifact::Scalar as T;
use irgc_graph::Weights;
use irgc_runtime::memory::{convert_weights, convert_weights_u32};

#[test]
fn missing_weights_suggest_a_flag() {
    let g = path_graph();
    let err = convert_weights(&g, "road.mtx", T::U32).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the program reads edge weights (`graph G(weight: u32)`) but road.mtx has none; add `--weights random:1:255` \
         or `--weights const:1`"
    );
    // The same through a run: the weighted program fails before any launch.
    let a = artifact("sssp", Some(T::U32));
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert!(err.to_string().contains("but test.el has none"), "{err}");
}

#[test]
fn weights_convert_to_the_declared_type() {
    let g = weighted(3, &[(0, 1, 5), (1, 2, -3)], false);
    assert_eq!(convert_weights(&g, "g", T::I32).unwrap(), vec![5, (-3i32) as u32 as u64]);
    assert_eq!(convert_weights(&g, "g", T::F64).unwrap(), vec![5f64.to_bits(), (-3f64).to_bits()]);
    assert_eq!(convert_weights(&g, "g", T::F32).unwrap(), vec![5f32.to_bits() as u64, (-3f32).to_bits() as u64]);
    let err = convert_weights(&g, "g", T::U32).unwrap_err();
    assert_eq!(err.to_string(), "edge 1 -> 2 of g has weight -3, which does not fit the program's weight type u32");
    // The 4-byte path the runtime stores from gives the same bits and the same refusal.
    assert_eq!(convert_weights_u32(&g, "g", T::I32).unwrap(), vec![5, (-3i32) as u32]);
    assert_eq!(convert_weights_u32(&g, "g", T::F32).unwrap(), vec![5f32.to_bits(), (-3f32).to_bits()]);
    assert_eq!(convert_weights_u32(&g, "g", T::U32).unwrap_err().to_string(), err.to_string());
    // The first bad edge is named, wherever the parallel check found one.
    let many: Vec<(u32, u32, i64)> = (0..100_000).map(|v| (v, v + 1, if v % 7 == 6 { -1 } else { 1 })).collect();
    let g = weighted(100_001, &many, false);
    let err = convert_weights_u32(&g, "g", T::U32).unwrap_err();
    assert_eq!(err.to_string(), "edge 6 -> 7 of g has weight -1, which does not fit the program's weight type u32");
}

#[test]
fn float_weights_become_integers_only_when_integral() {
    let mut g = weighted(3, &[(0, 1, 0), (1, 2, 0)], false);
    g.weights = Some(Weights::Float(vec![2.0, 7.0].into()));
    assert_eq!(convert_weights(&g, "g", T::U64).unwrap(), vec![2, 7]);
    g.weights = Some(Weights::Float(vec![2.0, 7.5].into()));
    let err = convert_weights(&g, "g.mtx", T::U32).unwrap_err();
    assert_eq!(
        err.to_string(),
        "edge 1 -> 2 of g.mtx has weight 7.5, but the program reads u32 weights; only integral float weights convert \
         (declare `graph G(weight: f64)` or load integer weights)"
    );
}

#[test]
fn kernels_read_weights_through_the_context() {
    use irgc_artifact::{HostStmt, Shape, Space};
    use std::sync::atomic::Ordering::Relaxed;
    let g = weighted(3, &[(0, 1, 5), (1, 2, 6), (0, 2, 9)], false);
    let mut a = artifact("sum", Some(T::U32));
    a.globals = vec![irgc_artifact::GlobalDesc { name: "w".into(), elem: T::U32, shape: Shape::Edge }];
    a.kernels = vec![kdesc("copy", vec![], Space::Edges)];
    a.plan.body = vec![HostStmt::Invoke { kernel: 0, args: vec![], result: None }];
    let run = run(&a, &g, &[], vec![kernel(|c, e| c.g32(0)[e as usize].store(c.weights_u32()[e as usize], Relaxed))])
        .unwrap();
    // CSR order: 0->1 (5), 0->2 (9), 1->2 (6).
    assert_eq!(run.global(0).unwrap(), vec![5, 9, 6]);
}

#[test]
fn narrow_weights_are_read_in_place() {
    use irgc_artifact::{HostStmt, Shape, Space};
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use std::sync::Arc;
    // Weights as a Galois file with 4-byte edge data leaves them: CSR order 0->1 (5), 0->2 (9), 1->2 (6).
    let mut g = weighted(3, &[(0, 1, 5), (1, 2, 6), (0, 2, 9)], false);
    let narrow: irgc_graph::Shared<u32> = vec![5u32, 9, 6].into();
    g.weights = Some(Weights::U32(narrow.clone()));
    let run_as = |ty: T, g: &irgc_graph::Csr| {
        let seen = Arc::new(AtomicU64::new(0));
        let mut a = artifact("sum", Some(ty));
        a.globals = vec![irgc_artifact::GlobalDesc { name: "w".into(), elem: ty, shape: Shape::Edge }];
        a.kernels = vec![kdesc("copy", vec![], Space::Edges)];
        a.plan.body = vec![HostStmt::Invoke { kernel: 0, args: vec![], result: None }];
        let at = seen.clone();
        let copy = kernel(move |c, e| {
            at.store(c.weights_u32().as_ptr() as u64, Relaxed);
            c.g32(0)[e as usize].store(c.weights_u32()[e as usize], Relaxed)
        });
        run(&a, g, &[], vec![copy]).map(|r| (r.global(0).unwrap(), seen.load(Relaxed)))
    };
    // A `u32` program reads the graph's own array: no conversion, no copy.
    let (w, at) = run_as(T::U32, &g).unwrap();
    assert_eq!((w, at), (vec![5, 9, 6], narrow.as_ptr() as u64));
    // So does an `i32` one while every weight fits `i32`.
    assert_eq!(run_as(T::I32, &g).unwrap().1, narrow.as_ptr() as u64);
    // Other types convert, as from 8-byte weights.
    let (w, at) = run_as(T::F32, &g).unwrap();
    assert_eq!(w, [5f32, 9.0, 6.0].map(|x| x.to_bits() as u64).to_vec());
    assert_ne!(at, narrow.as_ptr() as u64);
    // A weight above `i32::MAX` is refused for `i32`, by its edge, but read as it is for `u32`.
    g.weights = Some(Weights::U32(vec![5u32, 9, 3_000_000_000].into()));
    let err = run_as(T::I32, &g).unwrap_err();
    assert!(err.to_string().contains("edge 1 -> 2 of test.el has weight 3000000000, which does not fit"), "{err}");
    assert_eq!(run_as(T::U32, &g).unwrap().0, vec![5, 9, 3_000_000_000]);
}
