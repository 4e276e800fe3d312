//! `--param` values: parsed by declared type, node ids mapped through the input's labels, clear errors for
//! unknown, missing, duplicate and malformed values.

mod common;

use common::*;
use irgc_artifact::{ParamDesc, Scalar as T, Value};
use irgc_graph::{Csr, NodeLabels};
use irgc_runtime::{resolve_params, split_param};

fn p(name: &str, ty: T, default: Option<u64>) -> ParamDesc {
    ParamDesc { name: name.into(), ty, default: default.map(|bits| Value { ty, bits }) }
}

fn given(args: &[&str]) -> Vec<(String, String)> {
    args.iter().map(|a| split_param(a).unwrap()).collect()
}

fn program() -> irgc_artifact::Artifact {
    let mut a = artifact("prog", None);
    a.params = vec![
        p("source", T::Node, Some(0)),
        p("H", T::F64, Some(0.6f64.to_bits())),
        p("q", T::I32, None),
        p("on", T::Bool, Some(0)),
        p("e", T::Edge, Some(0)),
    ];
    a
}

#[test]
fn values_parse_by_type_and_nodes_by_label() {
    // Labels 1..=6 (a 1-based file): `source=6` is internal node 5.
    let g = path_graph();
    let a = program();
    let v = resolve_params(&a, &g, &given(&["source=6", "q=-12", "on=true", "H=0.25", "e=7"])).unwrap();
    assert_eq!(v, vec![5, 0.25f64.to_bits(), (-12i32) as u32 as u64, 1, 7]);
    // Defaults fill in; `inf` is the type's largest value.
    let v = resolve_params(&a, &g, &given(&["q = inf"])).unwrap();
    assert_eq!(v, vec![0, 0.6f64.to_bits(), i32::MAX as u64, 0, 0]);
}

#[test]
fn explicit_labels_are_looked_up() {
    let mut g: Csr = graph(3, &[(0, 1)], false, 0);
    g.labels = NodeLabels::Explicit(vec![40, 10, 99]);
    let v = resolve_params(&program(), &g, &given(&["source=99", "q=1"])).unwrap();
    assert_eq!(v[0], 2);
    let err = resolve_params(&program(), &g, &given(&["source=3", "q=1"])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "param `source`: the graph has no node 3 (node ids are those of the input file, which are sparse here; \
         write `source=#3` for the node at position 3 counting from 0)"
    );
    // `#i` is a position, whatever the labels.
    let v = resolve_params(&program(), &g, &given(&["source=#1", "q=1"])).unwrap();
    assert_eq!(v[0], 1);
    let err = resolve_params(&program(), &g, &given(&["source=#3", "q=1"])).unwrap_err();
    assert_eq!(err.to_string(), "bad value `#3` for param `source`: expected a node position #0 to #2 after `#`");
}

#[test]
fn errors_name_the_param_and_what_is_accepted() {
    let g = path_graph();
    let a = program();
    let msg = |args: &[&str]| resolve_params(&a, &g, &given(args)).unwrap_err().to_string();
    assert_eq!(msg(&[]), "missing value for param(s) without a default: `q: i32`; give each with --param NAME=VALUE");
    assert_eq!(msg(&["q=1", "sauce=2"]), "unknown param `sauce`: program `prog` has params source, H, q, on, e");
    assert_eq!(msg(&["q=1", "q=2"]), "param `q` is given twice");
    assert_eq!(msg(&["q=3000000000"]), "bad value `3000000000` for param `q`: expected an i32");
    assert_eq!(msg(&["q=1", "on=yes"]), "bad value `yes` for param `on`: expected true or false");
    assert_eq!(msg(&["q=1", "H=fast"]), "bad value `fast` for param `H`: expected a number");
    assert_eq!(
        msg(&["q=1", "source=0"]),
        "param `source`: the graph has no node 0 (node ids are those of the input file: 1 to 6; \
         write `source=#0` for the node at position 0 counting from 0)"
    );
    assert_eq!(
        msg(&["q=1", "e=8"]),
        "bad value `8` for param `e`: expected an edge index below 8 (the graph's edge count)"
    );
    assert_eq!(split_param("novalue").unwrap_err().to_string(), "`--param novalue` is not NAME=VALUE");
    let none = artifact("bare", None);
    assert_eq!(
        resolve_params(&none, &g, &given(&["x=1"])).unwrap_err().to_string(),
        "unknown param `x`: program `bare` has no params"
    );
}

#[test]
fn float_params_must_be_finite_unless_given_as_inf() {
    let g = path_graph();
    let a = program();
    let msg = |args: &[&str]| resolve_params(&a, &g, &given(args)).unwrap_err().to_string();
    for bad in ["nan", "NaN", "infinity", "-inf", "1e400"] {
        let m = msg(&["q=1", &format!("H={bad}")]);
        assert!(m.starts_with(&format!("bad value `{bad}` for param `H`: expected a finite number")), "{m}");
    }
    // The word `inf` is the type's infinity, as for every other type.
    let v = resolve_params(&a, &g, &given(&["q=1", "H=inf"])).unwrap();
    assert_eq!(v[1], f64::INFINITY.to_bits());
}
