//! `--verify`: each output with an `as` check is compared against `irgc-verify`'s independent reference.
//!
//! The runtime's only job here is translation: from the artifact's typed bits to the forms the references take
//! (`inf` becomes "unreached" or "unmatched", signed values are sign-extended, floats widened), and the check's
//! source (a host expression, usually a param) evaluated exactly as the plan would. How each kind is judged:
//! - `bfs(s)`, `sssp(s)`: exact levels/distances (`sssp` within a relative 1e-9 for float weights), `inf` = unreached;
//! - `components`: the same partition as union-find;
//! - `coloring`: no edge joins two equal colours; `matching`: a valid matching (`inf` = unmatched), equal to the
//!   greedy one when all weights are distinct;
//! - `communities`: modularity is reported; only a malformed partition (wrong length) fails;
//! - `apsp`: the top-left `n × n` block of the dense array against Dijkstra from every node; a value at or above
//!   half the element type's largest value means unreached (see [`dense_unreached`]);
//! - `pagerank(d, ε)`: the L1 distance from the fixed point at most `d/(1-d) · ε` plus rounding (see
//!   [`irgc_verify::check_pagerank`]), GAP's residual reported;
//! - `triangles`: exact per-node triangle counts of the simple undirected graph, or its exact total (a one-element
//!   array);
//! - `bc(s)`: Brandes's dependencies of `s`, within a relative [`BC_F64_TOLERANCE`] (`f64`) or
//!   [`BC_F32_TOLERANCE`] (`f32`).
//!
//! Where many answers are right (colourings, matchings, partitions), a report also rates the one given
//! ([`Quality`]): a check that only says "valid" would let a faster, worse program look better.

use irgc_artifact::{Artifact, CheckDesc};
use irgc_graph::Csr;
use irgc_verify as v;
use serde::Serialize;

use crate::error::RunError;
use crate::eval::{eval, to_f64, to_i64, StaticEnv};
use crate::output::{dense_unreached, OutputData, OutputShape};

/// How far a `bc` check lets an `f64` value stray from the reference, relatively: the program adds the same
/// path counts and dependencies as the reference in another order, which changes the last bits and, over the
/// thousands of levels of a road network, a few more.
pub const BC_F64_TOLERANCE: f64 = 1e-9;
/// The same for `f32` values: single precision keeps about 7 digits and loses some in every level's sums.
pub const BC_F32_TOLERANCE: f64 = 1e-3;

/// The outcome of one successful check.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    pub output: String,
    /// Which reference ran, e.g. "BFS from node 6 (queue BFS)".
    pub reference: String,
    /// The reference's summary, e.g. "reached 5 nodes, max level 3".
    pub summary: String,
    /// How good the result is, where a check accepts more than one answer (colourings, matchings, partitions):
    /// the numbers the summary states, for scripts and for `irgc bench`'s quality column, so a faster but worse
    /// result shows. `None` for checks with exactly one right answer (BFS, SSSP, components, APSP).
    pub quality: Option<Quality>,
}

/// The quality of a result that is one of many right answers. Serialized without a tag, as the numbers it holds
/// (`{"colors": 27}`, `{"matched_pairs": 6450, "weight": 5166769527956.0}`, `{"modularity": 0.63,
/// "communities": 3656}`): each kind's field names are distinct, so a reader knows the kind by them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Quality {
    /// A proper colouring: fewer colours is better.
    Coloring { colors: u64 },
    /// A matching: more weight (and pairs) is better.
    Matching { matched_pairs: u64, weight: f64 },
    /// A partition into communities: higher modularity is better.
    Communities { modularity: f64, communities: u64 },
}

impl std::fmt::Display for Quality {
    /// The short form of a table cell: `27 colours`, `6450 pairs, w 5.167e12`, `Q 0.6312 (3656)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Quality::Coloring { colors } => write!(f, "{colors} colours"),
            Quality::Matching { matched_pairs, weight } => {
                if weight.abs() >= 1e6 {
                    write!(f, "{matched_pairs} pairs, w {weight:.4e}")
                } else {
                    write!(f, "{matched_pairs} pairs, w {weight}")
                }
            }
            Quality::Communities { modularity, communities } => write!(f, "Q {modularity:.4} ({communities})"),
        }
    }
}

/// Checks every output with a declared check. Fails with [`RunError::NothingToVerify`] when there is none, and with
/// [`RunError::Verification`] (carrying the reference's [`Mismatch`](irgc_verify::Mismatch)) at the first wrong one.
pub fn verify(
    artifact: &Artifact,
    graph: &Csr,
    params: &[u64],
    outputs: &[OutputData],
) -> Result<Vec<CheckReport>, RunError> {
    let checked: Vec<_> = artifact.outputs.iter().zip(outputs).filter(|(o, _)| o.check.is_some()).collect();
    if checked.is_empty() {
        return Err(RunError::NothingToVerify(format!(
            "--verify: program `{}` declares no checkable output (add e.g. `output level as bfs(source);`)",
            artifact.name
        )));
    }
    let env = StaticEnv { params, num_nodes: graph.num_nodes() as u64, num_edges: graph.num_edges() };
    let mut reports = Vec::new();
    for (desc, data) in checked {
        let Some(check) = &desc.check else { continue };
        reports.push(check_one(check, graph, data, &env)?);
    }
    Ok(reports)
}

fn check_one(check: &CheckDesc, g: &Csr, data: &OutputData, env: &StaticEnv<'_>) -> Result<CheckReport, RunError> {
    let ty = data.elem;
    let fail = |reference: &str, mismatch: v::Mismatch| RunError::Verification {
        output: data.name.clone(),
        reference: reference.to_string(),
        mismatch: Box::new(mismatch),
    };
    let report = |reference: String, summary: String| CheckReport {
        output: data.name.clone(),
        reference,
        summary,
        quality: None,
    };
    let rated = |reference: String, summary: String, quality: Quality| CheckReport {
        quality: Some(quality),
        ..report(reference, summary)
    };
    let need_node_shape = |kind: &str| -> Result<(), RunError> {
        if data.shape == OutputShape::Node {
            Ok(())
        } else {
            Err(RunError::plan(format!("output `{}` is checked as {kind} but is not a node array", data.name)))
        }
    };
    let source = |e| -> Result<u32, RunError> { Ok(eval(e, env)? as u32) };
    let label = |s: u32| if s < g.num_nodes() { g.labels.label(s).to_string() } else { format!("id {s}") };
    let none_if_inf = |b: u64| (b != ty.inf_bits()).then_some(b);

    Ok(match check {
        CheckDesc::Bfs { source: s } => {
            need_node_shape("bfs")?;
            let s = source(s)?;
            let reference = format!("BFS from node {} (queue BFS)", label(s));
            let cand: Vec<Option<u64>> =
                data.values.iter().map(|&b| none_if_inf(b).map(|b| to_i64(ty, b) as u64)).collect();
            let sum = v::check_bfs(g, s, &cand).map_err(|m| fail(&reference, m))?;
            report(reference, format!("reached {} nodes, max level {}", sum.reached, sum.max_level))
        }
        CheckDesc::Sssp { source: s } => {
            need_node_shape("sssp")?;
            let s = source(s)?;
            let reference = format!("SSSP from node {} (Dijkstra)", label(s));
            let sum = if ty.is_float() {
                let cand: Vec<Option<f64>> =
                    data.values.iter().map(|&b| none_if_inf(b).map(|b| to_f64(ty, b))).collect();
                v::check_sssp(g, s, &cand)
            } else {
                let cand: Vec<Option<i64>> =
                    data.values.iter().map(|&b| none_if_inf(b).map(|b| to_i64(ty, b))).collect();
                v::check_sssp(g, s, &cand)
            }
            .map_err(|m| fail(&reference, m))?;
            report(reference, format!("reached {} nodes, max distance {}", sum.reached, sum.max_distance))
        }
        CheckDesc::Components => {
            need_node_shape("components")?;
            let reference = "connected components (union-find)".to_string();
            let sum = v::check_components(g, &data.values).map_err(|m| fail(&reference, m))?;
            report(reference, format!("{} components, the largest of {} nodes", sum.components, sum.largest))
        }
        CheckDesc::Coloring => {
            need_node_shape("coloring")?;
            let reference = "colouring validity (every edge)".to_string();
            let sum = v::check_coloring(g, &data.values).map_err(|m| fail(&reference, m))?;
            rated(
                reference,
                format!("a proper colouring with {} colours", sum.colors),
                Quality::Coloring { colors: sum.colors },
            )
        }
        CheckDesc::Matching => {
            need_node_shape("matching")?;
            let reference = "matching validity (and the greedy matching when weights are distinct)".to_string();
            let cand: Vec<Option<u32>> = data.values.iter().map(|&b| none_if_inf(b).map(|b| b as u32)).collect();
            let sum = v::check_greedy_matching(g, &cand).map_err(|m| fail(&reference, m))?;
            let greedy = if sum.compared_with_greedy { ", equal to greedy" } else { "" };
            let maximal = if sum.maximal { "maximal" } else { "not maximal" };
            rated(
                reference,
                format!("{} pairs of total weight {}, {maximal}{greedy}", sum.pairs, sum.weight),
                Quality::Matching { matched_pairs: sum.pairs, weight: sum.weight },
            )
        }
        CheckDesc::Communities => {
            need_node_shape("communities")?;
            let reference = "modularity (Newman-Girvan)".to_string();
            let sum = v::modularity(g, &data.values).map_err(|m| fail(&reference, m))?;
            rated(
                reference,
                format!("{} communities, modularity {:.6}", sum.communities, sum.modularity),
                Quality::Communities { modularity: sum.modularity, communities: sum.communities },
            )
        }
        CheckDesc::Apsp => {
            let OutputShape::Dense { dims } = data.shape else {
                return Err(RunError::plan(format!(
                    "output `{}` is checked as apsp but is not a dense array",
                    data.name
                )));
            };
            let n = g.num_nodes() as u64;
            let reference = "APSP (Dijkstra from every node)".to_string();
            if dims[0] < n || dims[1] < n {
                let found = (dims[0] * dims[1]) as usize;
                let m = v::Mismatch::Length { what: "APSP matrix", expected: (n * n) as usize, found };
                return Err(fail(&reference, m));
            }
            let cols = dims[1] as usize;
            let block = (0..n as usize).flat_map(|u| (0..n as usize).map(move |w| u * cols + w));
            let sum = if ty.is_float() {
                let cand: Vec<Option<f64>> =
                    block.map(|i| data.values[i]).map(|b| (!dense_unreached(ty, b)).then(|| to_f64(ty, b))).collect();
                v::check_apsp(g, &cand)
            } else {
                let cand: Vec<Option<i64>> =
                    block.map(|i| data.values[i]).map(|b| (!dense_unreached(ty, b)).then(|| to_i64(ty, b))).collect();
                v::check_apsp(g, &cand)
            }
            .map_err(|m| fail(&reference, m))?;
            report(reference, format!("{} reachable pairs, diameter {}", sum.reachable_pairs, sum.diameter))
        }
        CheckDesc::PageRank { damping, tolerance } => {
            need_node_shape("pagerank")?;
            let (d, eps) = (f64::from_bits(eval(damping, env)?), f64::from_bits(eval(tolerance, env)?));
            let reference = format!("PageRank, damping {d}, tolerance {eps:e} (power iteration to its fixed point)");
            let roundoff =
                if ty == irgc_artifact::Scalar::F32 { f32::EPSILON as f64 / 2.0 } else { f64::EPSILON / 2.0 };
            let cand: Vec<f64> = data.values.iter().map(|&b| to_f64(ty, b)).collect();
            let sum = v::check_pagerank(g, d, eps, roundoff, &cand).map_err(|m| fail(&reference, m))?;
            report(
                reference,
                format!(
                    "L1 error {:.3e} (at most {:.3e} allowed), max relative error {:.3e}, GAP's residual {:.3e}; \
                     the ranks sum to {:.6} ({} reference steps)",
                    sum.l1_error, sum.allowed, sum.max_relative_error, sum.residual, sum.rank_sum, sum.reference_steps
                ),
            )
        }
        CheckDesc::Triangles => {
            let (what, sum) = match data.shape {
                OutputShape::Node => {
                    let cand: Vec<i64> = data.values.iter().map(|&b| to_i64(ty, b)).collect();
                    ("per node", v::check_triangles(g, &cand))
                }
                // GAP's result: the total alone, in a one-element array.
                OutputShape::Dense { dims } if dims.iter().product::<u64>() == 1 => {
                    ("in the graph", v::check_triangle_total(g, to_i64(ty, data.values[0])))
                }
                _ => {
                    return Err(RunError::plan(format!(
                        "output `{}` is checked as triangles but is neither a node array (per-node counts) nor a \
                         one-element array (the total)",
                        data.name
                    )))
                }
            };
            let reference = format!("triangles {what} (ordered forward algorithm, sorted merges)");
            let sum = sum.map_err(|m| fail(&reference, m))?;
            report(reference, format!("{} triangles, at most {} at one node", sum.triangles, sum.max_per_node))
        }
        CheckDesc::Bc { source: s } => {
            need_node_shape("bc")?;
            let s = source(s)?;
            let reference = format!("betweenness dependencies of node {} (Brandes)", label(s));
            let tol = if ty == irgc_artifact::Scalar::F32 { BC_F32_TOLERANCE } else { BC_F64_TOLERANCE };
            let cand: Vec<f64> = data.values.iter().map(|&b| to_f64(ty, b)).collect();
            let sum = v::check_bc(g, s, tol, &cand).map_err(|m| fail(&reference, m))?;
            report(
                reference,
                format!(
                    "reached {} nodes, max level {}, the largest dependency {:.6e} at node {}, max relative error \
                     {:.3e}",
                    sum.reached, sum.max_level, sum.max_dependency, sum.max_node, sum.max_relative_error
                ),
            )
        }
    })
}

/// The check kinds by name, for messages and summaries.
pub fn check_name(check: &CheckDesc) -> &'static str {
    match check {
        CheckDesc::Bfs { .. } => "bfs",
        CheckDesc::Sssp { .. } => "sssp",
        CheckDesc::Components => "components",
        CheckDesc::Coloring => "coloring",
        CheckDesc::Matching => "matching",
        CheckDesc::Communities => "communities",
        CheckDesc::Apsp => "apsp",
        CheckDesc::PageRank { .. } => "pagerank",
        CheckDesc::Triangles => "triangles",
        CheckDesc::Bc { .. } => "bc",
    }
}
