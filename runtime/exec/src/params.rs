//! Param values from the command line (`--param k=v`), parsed by each param's declared type.
//!
//! Node ids are given as the user knows them, the ids written in the input file, and mapped to internal ids
//! through the graph's labels: on a 1-based file `--param source=1` is internal node 0. Every failure names the
//! param and says what would be accepted, since a typo here otherwise shows up as a wrong answer much later.

use irgc_artifact::{Artifact, ParamDesc, Scalar};
use irgc_graph::{Csr, NodeLabels};

use crate::error::RunError;
use crate::eval::{from_f64, normalize};

/// The bits of every param of `artifact`, in order: the given values (`name`, `text`) or the defaults.
pub fn resolve_params(artifact: &Artifact, graph: &Csr, given: &[(String, String)]) -> Result<Vec<u64>, RunError> {
    let mut values: Vec<Option<u64>> = artifact.params.iter().map(|p| p.default.map(|v| v.bits)).collect();
    let mut seen = vec![false; artifact.params.len()];
    for (name, text) in given {
        let Some(p) = artifact.params.iter().position(|p| &p.name == name) else {
            let known: Vec<&str> = artifact.params.iter().map(|p| p.name.as_str()).collect();
            let known = if known.is_empty() { "no params".to_string() } else { format!("params {}", known.join(", ")) };
            return Err(RunError::Param(format!("unknown param `{name}`: program `{}` has {known}", artifact.name)));
        };
        if std::mem::replace(&mut seen[p], true) {
            return Err(RunError::Param(format!("param `{name}` is given twice")));
        }
        values[p] = Some(parse_param(&artifact.params[p], graph, text)?);
    }
    let missing: Vec<String> = artifact
        .params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| format!("`{}: {}`", p.name, p.ty.name()))
        .collect();
    if !missing.is_empty() {
        return Err(RunError::Param(format!(
            "missing value for param(s) without a default: {}; give each with --param NAME=VALUE",
            missing.join(", ")
        )));
    }
    // A node param's default (`param source: node = 0`) must name a node too: on an empty graph, or a default past
    // the last node, say so here rather than as a bad index in the first kernel.
    for ((p, v), given) in artifact.params.iter().zip(&values).zip(&seen) {
        if p.ty == Scalar::Node && !given && v.is_some_and(|v| v >= u64::from(graph.num_nodes())) {
            return Err(RunError::Param(format!(
                "param `{}` defaults to node #{}, but the graph has {} node(s); give one with --param {}=ID",
                p.name,
                v.unwrap_or(0),
                graph.num_nodes(),
                p.name
            )));
        }
    }
    Ok(values.into_iter().map(|v| v.unwrap_or(0)).collect())
}

/// Splits `k=v` (the form of `--param`).
pub fn split_param(arg: &str) -> Result<(String, String), RunError> {
    match arg.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(RunError::Param(format!("`--param {arg}` is not NAME=VALUE"))),
    }
}

/// Parses one value of `p`'s type. `inf` is accepted for every numeric type (its largest value).
pub fn parse_param(p: &ParamDesc, graph: &Csr, text: &str) -> Result<u64, RunError> {
    let bad =
        |expected: &str| RunError::Param(format!("bad value `{text}` for param `{}`: expected {expected}", p.name));
    let t = text.trim();
    if t == "inf" && p.ty != Scalar::Bool && p.ty != Scalar::Node {
        return Ok(p.ty.inf_bits());
    }
    let int = |lo: i128, hi: i128, what: &str| -> Result<u64, RunError> {
        let v = parse_int(t).filter(|v| (lo..=hi).contains(v)).ok_or_else(|| bad(what))?;
        Ok(normalize(p.ty, v as i64 as u64))
    };
    match p.ty {
        Scalar::Bool => match t {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => Err(bad("true or false")),
        },
        Scalar::I32 => int(i32::MIN as i128, i32::MAX as i128, "an i32"),
        Scalar::U32 => int(0, u32::MAX as i128, "a u32"),
        Scalar::I64 => int(i64::MIN as i128, i64::MAX as i128, "an i64"),
        Scalar::U64 => int(0, u64::MAX as i128, "a u64"),
        Scalar::F32 | Scalar::F64 => {
            // Only the word `inf` (above) gives infinity: `nan`, `infinity` and numbers beyond the type's range
            // are mistakes, not values a program's arithmetic is written for.
            let x = t.parse::<f64>().map_err(|_| bad("a number"))?;
            let max = if p.ty == Scalar::F32 { f32::MAX as f64 } else { f64::MAX };
            if !x.is_finite() || x.abs() > max {
                return Err(bad(&format!("a finite number (at most {max:e} in size; `inf` for infinity)")));
            }
            Ok(from_f64(p.ty, x))
        }
        Scalar::Edge => {
            let m = graph.num_edges();
            let e = parse_int(t).ok_or_else(|| bad("an edge index"))?;
            if e < 0 || e >= m as i128 {
                return Err(bad(&format!("an edge index below {m} (the graph's edge count)")));
            }
            Ok(e as u64)
        }
        Scalar::Node => {
            // `#i`: the node at position i (0-based) in the graph, whatever the file calls it.
            if let Some(index) = t.strip_prefix('#') {
                let n = graph.num_nodes() as i128;
                return match parse_int(index) {
                    Some(i) if (0..n).contains(&i) => Ok(i as u64),
                    _ => Err(bad(&format!("a node position #0 to #{} after `#`", n - 1))),
                };
            }
            // Ids in files are below 2^64; a larger number must not wrap around onto some real node's id.
            let label = parse_int(t)
                .filter(|&v| (0..=u64::MAX as i128).contains(&v))
                .ok_or_else(|| bad("a node id as written in the graph file (0 to 2^64 - 1)"))?;
            node_of_label(graph, label as u64).ok_or_else(|| {
                RunError::Param(format!(
                    "param `{}`: the graph has no node {label} (node ids are those of the input file{}; \
                     write `{}=#{label}` for the node at position {label} counting from 0)",
                    p.name,
                    describe_labels(graph),
                    p.name
                ))
            })
        }
    }
}

/// The internal id of the node written as `label` in the input.
pub fn node_of_label(graph: &Csr, label: u64) -> Option<u64> {
    let n = graph.num_nodes() as u64;
    match &graph.labels {
        NodeLabels::Offset(base) => label.checked_sub(*base).filter(|&v| v < n),
        NodeLabels::Explicit(ids) => ids.iter().position(|&x| x == label).map(|v| v as u64),
    }
}

fn describe_labels(graph: &Csr) -> String {
    let n = graph.num_nodes() as u64;
    match &graph.labels {
        NodeLabels::Offset(base) if n > 0 => format!(": {base} to {}", base + n - 1),
        NodeLabels::Offset(_) => ": the graph is empty".to_string(),
        NodeLabels::Explicit(_) => ", which are sparse here".to_string(),
    }
}

/// A decimal or `0x` hexadecimal integer, optionally negative; `_` separators allowed.
fn parse_int(t: &str) -> Option<i128> {
    let t: String = t.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.as_str()),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => body.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}
