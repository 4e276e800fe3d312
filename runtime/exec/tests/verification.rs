//! `--verify` against the references: success summaries, a deliberate failure naming the node, every check kind's
//! translation (inf as unreached/unmatched, signed and float values, dense APSP with a sentinel), and the error for
//! a program with nothing to check.

mod common;

use common::*;
use irgc_artifact::*;
use irgc_runtime::{verify, OutputData, OutputShape, RunError};

use Scalar as T;

#[test]
fn a_correct_bfs_verifies() {
    let g = path_graph();
    let a = bfs_artifact();
    let run = run(&a, &g, &[1], bfs_kernels(false)).unwrap();
    let reports = verify(&a, &g, &[1], run.outputs()).unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].output, "level");
    assert_eq!(reports[0].reference, "BFS from node 2 (queue BFS)");
    assert_eq!(reports[0].summary, "reached 5 nodes, max level 3");
}

#[test]
fn a_wrong_bfs_fails_naming_the_node() {
    let g = path_graph();
    let a = bfs_artifact();
    let run = run(&a, &g, &[0], bfs_kernels(true)).unwrap();
    let err = verify(&a, &g, &[0], run.outputs()).unwrap_err();
    let RunError::Verification { ref mismatch, .. } = err else { panic!("{err}") };
    // Internal node 2 is label 3.
    assert_eq!(mismatch.node(), Some(3));
    assert_eq!(
        err.to_string(),
        "verification of output `level` against the reference BFS from node 1 (queue BFS) failed: BFS level of node 3: \
         expected 2, found 3"
    );
}

/// An artifact whose outputs are the given node/dense globals with checks; the values are checked directly.
fn checked(check: CheckDesc, elem: T) -> Artifact {
    let mut a = artifact("p", None);
    a.globals = vec![node_global("x", elem)];
    a.outputs = vec![OutputDesc { global: 0, check: Some(check) }];
    a
}

fn node_out(elem: T, values: Vec<u64>) -> Vec<OutputData> {
    vec![OutputData { absent: "inf", name: "x".into(), elem, shape: OutputShape::Node, values }]
}

#[test]
fn sssp_with_integer_and_float_weights() {
    let g = weighted(3, &[(0, 1, 4), (1, 2, 1), (0, 2, 7)], false);
    let src = || lit(T::Node, 0);
    let a = checked(CheckDesc::Sssp { source: src() }, T::U32);
    let ok = verify(&a, &g, &[], &node_out(T::U32, vec![0, 4, 5])).unwrap();
    assert_eq!(ok[0].summary, "reached 3 nodes, max distance 5");
    let err = verify(&a, &g, &[], &node_out(T::U32, vec![0, 4, 7])).unwrap_err();
    assert!(err.to_string().ends_with("distance of node 2: expected 5, found 7"), "{err}");

    let a = checked(CheckDesc::Sssp { source: src() }, T::F64);
    let f = |x: f64| x.to_bits();
    verify(&a, &g, &[], &node_out(T::F64, vec![f(0.0), f(4.0), f(5.0)])).unwrap();
    // Unreached as inf.
    let g2 = weighted(3, &[(0, 1, 2)], false);
    verify(&a, &g2, &[], &node_out(T::F64, vec![f(0.0), f(2.0), f64::INFINITY.to_bits()])).unwrap();
}

#[test]
fn components_coloring_matching_communities() {
    let g = graph(4, &[(0, 1), (2, 3)], true, 0);
    let a = checked(CheckDesc::Components, T::Node);
    assert_eq!(
        verify(&a, &g, &[], &node_out(T::Node, vec![0, 0, 2, 2])).unwrap()[0].summary,
        "2 components, the largest of 2 nodes"
    );
    assert!(verify(&a, &g, &[], &node_out(T::Node, vec![0, 0, 0, 2])).is_err());

    let a = checked(CheckDesc::Coloring, T::I32);
    let neg = (-1i32) as u32 as u64;
    assert_eq!(
        verify(&a, &g, &[], &node_out(T::I32, vec![neg, 1, neg, 1])).unwrap()[0].summary,
        "a proper colouring with 2 colours"
    );
    let err = verify(&a, &g, &[], &node_out(T::I32, vec![1, 1, 0, 1])).unwrap_err();
    assert!(err.to_string().ends_with("colouring conflict at edge 0 -> 1: both ends have colour 1"), "{err}");

    let a = checked(CheckDesc::Matching, T::Node);
    let inf = u32::MAX as u64;
    let ok = verify(&a, &g, &[], &node_out(T::Node, vec![1, 0, 3, 2])).unwrap();
    assert!(ok[0].summary.starts_with("2 pairs of total weight 2, maximal"), "{}", ok[0].summary);
    let err = verify(&a, &g, &[], &node_out(T::Node, vec![1, 0, 3, inf])).unwrap_err();
    assert!(err.to_string().contains("mate of node 2"), "{err}");

    let a = checked(CheckDesc::Communities, T::U32);
    let ok = verify(&a, &g, &[], &node_out(T::U32, vec![5, 5, 9, 9])).unwrap();
    assert_eq!(ok[0].summary, "2 communities, modularity 0.500000");
    // A poor partition is reported, not failed.
    verify(&a, &g, &[], &node_out(T::U32, vec![1, 2, 3, 4])).unwrap();
    // A malformed one (wrong length) fails.
    assert!(verify(&a, &g, &[], &node_out(T::U32, vec![1, 2])).is_err());
}

#[test]
fn apsp_reads_the_top_left_block_and_the_sentinel() {
    let g = weighted(2, &[(0, 1, 3)], false);
    let mut a = artifact("fw", Some(T::I32));
    a.globals = vec![GlobalDesc { name: "dist".into(), elem: T::I32, shape: Shape::Dense(vec![u32c(3), u32c(3)]) }];
    a.outputs = vec![OutputDesc { global: 0, check: Some(CheckDesc::Apsp) }];
    let sentinel = 1_073_741_823u64;
    let out = |d10: u64| {
        vec![OutputData {
            absent: "inf",
            name: "dist".into(),
            elem: T::I32,
            shape: OutputShape::Dense { dims: [3, 3] },
            values: vec![0, 3, 77, d10, 0, 77, 77, 77, 77],
        }]
    };
    let ok = verify(&a, &g, &[], &out(sentinel)).unwrap();
    assert_eq!(ok[0].summary, "3 reachable pairs, diameter 3");
    let err = verify(&a, &g, &[], &out(5)).unwrap_err();
    assert!(err.to_string().ends_with("distance from node 1 to node 0: expected unreached, found 5"), "{err}");
}

#[test]
fn nothing_to_verify_is_an_error() {
    let g = path_graph();
    let mut a = bfs_artifact();
    a.outputs[0].check = None;
    let err = verify(&a, &g, &[0], &node_out(T::U32, vec![0; 6])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--verify: program `bfs_worklist` declares no checkable output (add e.g. `output level as bfs(source);`)"
    );
}
