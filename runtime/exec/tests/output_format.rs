//! The `--out` format (labels, `unreached`, several outputs, dense `u v d` lines, edge lines) and the result digest.

mod common;

use common::*;
use irgc_artifact::Scalar as T;
use irgc_runtime::{digest, format_value, write_outputs, OutputData, OutputShape};

fn text(g: &irgc_graph::Csr, outputs: &[OutputData]) -> String {
    let mut out = Vec::new();
    write_outputs(&mut out, g, outputs).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn bfs_levels_are_written_by_label_with_unreached_nodes_named() {
    let g = path_graph();
    let run = run(&bfs_artifact(), &g, &[0], bfs_kernels(false)).unwrap();
    assert_eq!(text(&g, run.outputs()), "1 0\n2 1\n3 2\n4 3\n5 4\n6 unreached\n");
}

#[test]
fn several_node_outputs_share_a_line_and_values_keep_their_type() {
    let g = graph(3, &[], false, 10);
    let outputs = vec![
        OutputData {
            absent: "inf",
            name: "d".into(),
            elem: T::I32,
            shape: OutputShape::Node,
            values: vec![(-2i32) as u32 as u64, 5, i32::MAX as u64],
        },
        OutputData {
            absent: "unreached",
            name: "x".into(),
            elem: T::F64,
            shape: OutputShape::Node,
            values: vec![0.5f64.to_bits(), f64::INFINITY.to_bits(), 3f64.to_bits()],
        },
        OutputData { absent: "inf", name: "b".into(), elem: T::Bool, shape: OutputShape::Node, values: vec![1, 0, 1] },
    ];
    assert_eq!(text(&g, &outputs), "10 -2 0.5 true\n11 5 unreached false\n12 inf 3 true\n");
    assert_eq!(format_value(T::F32, 0.1f32.to_bits() as u64, "inf"), "0.1");
    assert_eq!(format_value(T::Node, u32::MAX as u64, "unmatched"), "unmatched");
    assert_eq!(irgc_runtime::absent_word(Some(&irgc_artifact::CheckDesc::Apsp)), "unreached");
}

#[test]
fn dense_outputs_list_reachable_pairs_of_the_top_left_block() {
    // 2 nodes, a 3 x 3 all-pairs array (padded; checked as `apsp`, hence "unreached"): only the 2 x 2 block is
    // written, sentinel values skipped. Other dense arrays keep their own indices (unit tests of `output`).
    let g = graph(2, &[(0, 1)], false, 1);
    let unreached = 1_073_741_823u64; // i32::MAX / 2, the fw_blocked sentinel.
    let dist = OutputData {
        absent: "unreached",
        name: "dist".into(),
        elem: T::I32,
        shape: OutputShape::Dense { dims: [3, 3] },
        values: vec![0, 4, 9, unreached, 0, 9, 9, 9, 9],
    };
    assert_eq!(text(&g, &[dist]), "1 1 0\n1 2 4\n2 2 0\n");
}

#[test]
fn edge_outputs_are_written_per_edge() {
    let g = graph(3, &[(0, 1), (2, 0)], false, 0);
    let flow =
        OutputData { absent: "inf", name: "flow".into(), elem: T::U32, shape: OutputShape::Edge, values: vec![7, 8] };
    assert_eq!(text(&g, &[flow]), "0 1 7\n2 0 8\n");
}

#[test]
fn the_digest_covers_values_types_and_order() {
    let a = OutputData { absent: "inf", name: "a".into(), elem: T::U32, shape: OutputShape::Node, values: vec![1, 2] };
    let b = OutputData { absent: "inf", name: "b".into(), elem: T::U32, shape: OutputShape::Node, values: vec![2, 1] };
    let wide = OutputData { elem: T::U64, ..a.clone() };
    let d = digest(std::slice::from_ref(&a));
    assert_eq!(d, digest(std::slice::from_ref(&a)));
    assert_ne!(d, digest(std::slice::from_ref(&b)));
    assert_ne!(d, digest(&[wide]));
    assert_ne!(digest(&[a.clone(), b.clone()]), digest(&[b, a]));
    // FNV-1a of nothing is the offset basis.
    assert_eq!(digest(&[]), 0xCBF2_9CE4_8422_2325);
}
