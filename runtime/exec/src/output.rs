//! A run's results: the output arrays read back as typed values, written as text, and summarised by a digest.
//!
//! The `--out` format is meant for people and for `diff`:
//! - node outputs: one line per node, its label as written in the input file, then the value of each node output
//!   in declaration order, separated by spaces; a value equal to its type's `inf` means "no value" and is written
//!   as a word ([`OutputData::absent`]): `unreached` for distances and levels, `unmatched` for mates, else `inf`;
//! - a value of type `node` (a mate, a parent, a component's representative) is written as that node's label, as
//!   the input file wrote it, like the first column (a node value outside the graph is written as the number);
//! - all-pairs outputs (checked as `apsp`): a line `u v d` per reachable pair, `u` and `v` labels, in row-major
//!   order, over the top-left `num_nodes × num_nodes` block (programs may pad to a tile multiple); a value counts
//!   as unreached as described at [`dense_unreached`];
//! - other dense outputs: a line `i value` (1-D) or `i j value` (2-D) per element, with the array's own indices
//!   from 0 and over its whole length;
//! - edge outputs: a line `u v x...` per edge (its endpoints' labels, then each edge output's value).
//!
//! Sections come in that order, so a program with only node outputs (the common case) gets exactly one line per
//! node.

use std::io::{self, Write};

use irgc_artifact::{Artifact, CheckDesc, Scalar};
use irgc_graph::Csr;
use serde::Serialize;

use crate::device::Device;
use crate::error::RunError;
use crate::eval::{to_f64, to_i64};
use crate::memory::{GlobalShape, Memory};

/// What an output array is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputShape {
    Node,
    Edge,
    /// A dense array of `dims[0] × dims[1]` elements (`dims[1]` is 1 for a 1-D array).
    Dense {
        dims: [u64; 2],
    },
}

/// One output array, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputData {
    pub name: String,
    pub elem: Scalar,
    pub shape: OutputShape,
    /// What a value equal to the type's `inf` is written as: the output's meaning decides (see [`absent_word`]).
    pub absent: &'static str,
    /// One value per element, as normalized bits of `elem`.
    pub values: Vec<u64>,
}

impl OutputData {
    /// Element `i` formatted for people (a `node` value as its number inside the program).
    pub fn show(&self, i: usize) -> String {
        format_value(self.elem, self.values[i], self.absent)
    }

    /// Element `i` as `--out` writes it: a `node` value as that node's label in `graph` (the file's id).
    pub fn show_in(&self, graph: &Csr, i: usize) -> String {
        let bits = self.values[i];
        if self.elem == Scalar::Node && bits != Scalar::Node.inf_bits() && bits < u64::from(graph.num_nodes()) {
            return graph.labels.label(bits as u32).to_string();
        }
        self.show(i)
    }

    /// Whether this is an all-pairs array (rows and columns are nodes), written as labelled pairs: a 2-D dense
    /// output checked `as apsp`, the only dense kind [`absent_word`] gives `unreached`.
    fn all_pairs(&self) -> bool {
        matches!(self.shape, OutputShape::Dense { dims } if dims[1] > 1) && self.absent == "unreached"
    }
}

/// The word for "no value" in an output checked as `check`: a BFS level or distance of `inf` means the node was
/// not reached, a mate of `inf` that the node is unmatched; other outputs keep `inf`.
pub fn absent_word(check: Option<&CheckDesc>) -> &'static str {
    match check {
        Some(CheckDesc::Bfs { .. } | CheckDesc::Sssp { .. } | CheckDesc::Apsp) => "unreached",
        Some(CheckDesc::Matching) => "unmatched",
        _ => "inf",
    }
}

/// Reads every output of `artifact` from `mem`, held by `dev`.
pub(crate) fn read_outputs<D: Device>(
    artifact: &Artifact,
    dev: &D,
    mem: &Memory<D::Buffer>,
) -> Result<Vec<OutputData>, RunError> {
    artifact
        .outputs
        .iter()
        .filter_map(|o| mem.globals.get(o.global).map(|g| (o, g)))
        .map(|(o, g)| {
            Ok(OutputData {
                absent: absent_word(o.check.as_ref()),
                name: g.name.clone(),
                elem: g.elem,
                shape: match g.shape {
                    GlobalShape::Node => OutputShape::Node,
                    GlobalShape::Edge => OutputShape::Edge,
                    GlobalShape::Dense => OutputShape::Dense { dims: g.dims },
                },
                values: dev.read(&g.buf, g.elem.size(), 0, g.len())?,
            })
        })
        .collect()
}

/// A value of type `ty` as text: `absent` for the type's largest value, floats in Rust's shortest round-trip form,
/// signed integers with their sign, bools as `true`/`false`.
pub fn format_value(ty: Scalar, bits: u64, absent: &str) -> String {
    if ty != Scalar::Bool && bits == ty.inf_bits() {
        return absent.to_string();
    }
    match ty {
        Scalar::Bool => (bits != 0).to_string(),
        Scalar::F32 => f32::from_bits(bits as u32).to_string(),
        Scalar::F64 => f64::from_bits(bits).to_string(),
        Scalar::I32 | Scalar::I64 => to_i64(ty, bits).to_string(),
        _ => bits.to_string(),
    }
}

/// Whether a dense (all-pairs) distance means "no path": integer programs cannot store `inf` and then add to it,
/// so they use a large sentinel instead (`fw_blocked.irg` uses `i32::MAX / 2`, so that adding two never
/// overflows). The rule: a value at or above half the type's largest value is unreached; for floats also any
/// infinity or NaN. Negative values of signed types are reachable (negative distances are a program's business).
pub fn dense_unreached(ty: Scalar, bits: u64) -> bool {
    match ty {
        Scalar::F32 | Scalar::F64 => {
            let x = to_f64(ty, bits);
            let half = if ty == Scalar::F32 { f32::MAX as f64 / 2.0 } else { f64::MAX / 2.0 };
            !x.is_finite() || x >= half
        }
        Scalar::I32 | Scalar::I64 => to_i64(ty, bits) >= to_i64(ty, ty.inf_bits()) / 2,
        _ => bits >= ty.inf_bits() / 2,
    }
}

/// Writes `outputs` in the `--out` format (see the module documentation).
pub fn write_outputs(out: &mut dyn Write, graph: &Csr, outputs: &[OutputData]) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 20, out);
    let n = graph.num_nodes() as usize;
    let nodes: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Node).collect();
    if !nodes.is_empty() {
        for v in 0..n {
            write!(out, "{}", graph.labels.label(v as u32))?;
            for o in &nodes {
                write!(out, " {}", o.show_in(graph, v))?;
            }
            writeln!(out)?;
        }
    }
    for o in outputs {
        let OutputShape::Dense { dims } = o.shape else { continue };
        let (rows, cols) = (dims[0] as usize, dims[1] as usize);
        if !o.all_pairs() {
            for i in 0..rows {
                for j in 0..cols {
                    let at = i * cols + j;
                    if cols == 1 {
                        writeln!(out, "{i} {}", o.show_in(graph, at))?;
                    } else {
                        writeln!(out, "{i} {j} {}", o.show_in(graph, at))?;
                    }
                }
            }
            continue;
        }
        for u in 0..rows.min(n) {
            for v in 0..cols.min(n) {
                let bits = o.values[u * cols + v];
                if !dense_unreached(o.elem, bits) {
                    let (lu, lv) = (graph.labels.label(u as u32), graph.labels.label(v as u32));
                    writeln!(out, "{lu} {lv} {}", format_value(o.elem, bits, o.absent))?;
                }
            }
        }
    }
    let edges: Vec<&OutputData> = outputs.iter().filter(|o| o.shape == OutputShape::Edge).collect();
    if !edges.is_empty() {
        for u in 0..graph.num_nodes() {
            for e in graph.edge_range(u) {
                write!(out, "{} {}", graph.labels.label(u), graph.labels.label(graph.col[e]))?;
                for o in &edges {
                    write!(out, " {}", o.show_in(graph, e))?;
                }
                writeln!(out)?;
            }
        }
    }
    out.flush()
}

/// A 64-bit FNV-1a hash over every output's elements as stored (little-endian, the element's size), in
/// declaration order: two runs with the same digest produced the same bytes.
pub fn digest(outputs: &[OutputData]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for o in outputs {
        let size = o.elem.size();
        for &v in &o.values {
            for b in &v.to_le_bytes()[..size] {
                h = (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_graph::{BuildOptions, EdgeList, NodeLabels};

    /// A path 0 - 1 - 2 whose file wrote the nodes as 10, 20 and 30.
    fn graph() -> Csr {
        let mut el = EdgeList::new(3);
        for (a, b) in [(0, 1), (1, 0), (1, 2), (2, 1)] {
            el.src.push(a);
            el.dst.push(b);
        }
        el.labels = NodeLabels::Explicit(vec![10, 20, 30]);
        el.into_csr(BuildOptions::default())
    }

    fn written(outputs: &[OutputData]) -> String {
        let mut buf = Vec::new();
        write_outputs(&mut buf, &graph(), outputs).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn node_values_are_written_as_the_files_ids() {
        let mate = OutputData {
            name: "mate".into(),
            elem: Scalar::Node,
            shape: OutputShape::Node,
            absent: "unmatched",
            values: vec![1, 0, Scalar::Node.inf_bits()],
        };
        assert_eq!(written(&[mate]), "10 20\n20 10\n30 unmatched\n");
    }

    #[test]
    fn dense_arrays_are_written_with_their_own_indices_and_length() {
        let hist = OutputData {
            name: "hist".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [5, 1] },
            absent: "inf",
            values: vec![4, 3, 2, 1, 0],
        };
        assert_eq!(written(&[hist]), "0 4\n1 3\n2 2\n3 1\n4 0\n");
        let grid = OutputData {
            name: "grid".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [2, 2] },
            absent: "inf",
            values: vec![1, 2, 3, 4],
        };
        assert_eq!(written(&[grid]), "0 0 1\n0 1 2\n1 0 3\n1 1 4\n");
    }

    #[test]
    fn all_pairs_arrays_keep_their_labelled_pairs() {
        let d = Scalar::U32.inf_bits();
        let apsp = OutputData {
            name: "dist".into(),
            elem: Scalar::U32,
            shape: OutputShape::Dense { dims: [3, 3] },
            absent: "unreached",
            values: vec![0, 1, d, 1, 0, 1, d, 1, 0],
        };
        assert_eq!(written(&[apsp]), "10 10 0\n10 20 1\n20 10 1\n20 20 0\n20 30 1\n30 20 1\n30 30 0\n");
    }
}
