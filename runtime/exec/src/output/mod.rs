//! A run's results: the output arrays read back as typed values, written to a file, and summarised by a digest.
//!
//! Every writer keys rows by the input file's node ids, never by internal positions: node labels (the first
//! column) and node-typed values (a mate, a parent, a component's representative) are written as the file wrote
//! them. The formats, chosen by [`OutputFormat::from_path`] from the file's extension:
//! - [`text`] (`.txt` and any other name): for people and `diff`, today's `--out` format;
//! - [`table`] (`.csv`, `.tsv`): one table with a header row, for pandas and spreadsheets;
//! - [`json`] (`.json`): every output with its type and shape, absent values as `null`;
//!
//! and any of them gzip-compressed when the name ends in `.gz` ([`OutputTarget`]); `-` is standard output.

use irgc_artifact::{Artifact, CheckDesc, Scalar};
use irgc_graph::Csr;
use serde::Serialize;

use crate::device::Device;
use crate::error::RunError;
use crate::eval::{to_f64, to_i64};
use crate::memory::{GlobalShape, Memory};

mod destination;
pub mod json;
pub mod table;
pub mod text;

pub use destination::{OutputFormat, OutputTarget};
pub use text::write_outputs;

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

    /// Whether element `i` means "no value": its type's `inf` (bools have none).
    pub fn is_absent(&self, i: usize) -> bool {
        self.elem != Scalar::Bool && self.values[i] == self.elem.inf_bits()
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
    // After `G.contract`: each input node's node (from the device that contracted, or the host), and each current
    // node's smallest input node, what a node value is written as.
    let from_device = match &mem.device_origin {
        Some((buf, inputs)) => Some(dev.read_u32(buf, 0, *inputs)?),
        None => None,
    };
    let origin = mem.origin.as_deref().or(from_device.as_deref());
    let representative = origin.map(|origin| {
        let mut rep = vec![u32::MAX; mem.num_nodes as usize];
        for (v, &c) in origin.iter().enumerate().rev() {
            rep[c as usize] = v as u32;
        }
        rep
    });
    artifact
        .outputs
        .iter()
        .filter_map(|o| mem.globals.get(o.global).map(|g| (o, g)))
        .map(|(o, g)| {
            // Read back, every element takes 8 bytes on the host: refuse what cannot fit rather than abort.
            let need = g.len().saturating_mul(8);
            if let Some(have) = crate::memory::available_memory().filter(|&have| need > have) {
                return Err(RunError::Memory(format!(
                    "reading output `{}` back needs {} of host memory, but only {} is left",
                    g.name,
                    crate::memory::show_bytes(need),
                    crate::memory::show_bytes(have)
                )));
            }
            let data = OutputData {
                absent: absent_word(o.check.as_ref()),
                name: g.name.clone(),
                elem: g.elem,
                shape: match g.shape {
                    GlobalShape::Node => OutputShape::Node,
                    GlobalShape::Edge => OutputShape::Edge,
                    GlobalShape::Dense => OutputShape::Dense { dims: g.dims },
                },
                values: dev.read(&g.buf, g.elem.size(), 0, g.len())?,
            };
            match (origin, &representative) {
                (Some(origin), Some(rep)) => in_input_nodes(data, origin, rep),
                _ => Ok(data),
            }
        })
        .collect()
}

/// An output of a contracted graph (`G.contract`) per node of the input: a node array gives each input node its
/// group's element, and a `node` value names its group by the group's smallest input node. Edge arrays have no
/// such mapping (the input's edges are gone) and are refused.
fn in_input_nodes(mut o: OutputData, origin: &[u32], rep: &[u32]) -> Result<OutputData, RunError> {
    if o.shape == OutputShape::Edge {
        return Err(RunError::BadOutput(format!(
            "output `{}` is an edge array, but the plan contracted the graph (`G.contract`): its edges are not the \
             input's, so it cannot be written per input edge",
            o.name
        )));
    }
    if o.elem == Scalar::Node {
        let inf = Scalar::Node.inf_bits();
        for (i, v) in o.values.iter_mut().enumerate().filter(|(_, v)| **v != inf) {
            *v = *rep.get(*v as usize).ok_or_else(|| {
                RunError::BadOutput(format!(
                    "output `{}` holds {v} at element {i}, which is not a node of the contracted graph (it has {})",
                    o.name,
                    rep.len()
                ))
            })? as u64;
        }
    }
    if o.shape == OutputShape::Node {
        o.values = origin.iter().map(|&c| o.values[c as usize]).collect();
    }
    Ok(o)
}

/// Refuses a `node`-typed output holding a value that is neither a node (below the node count) nor `inf`, when
/// the file names its nodes other than `0..n` (1-based, sparse, LDBC ids): no file id can be written for such a
/// value, and written as a number it could pass for some other node's id. (Where the ids are exactly `0..n`, the
/// number names no node and is written as it is: an `as node` cast of any integer is defined.) Only a program's
/// `x as node` cast makes such a value, so the message points there.
pub fn check_node_values(outputs: &[OutputData], graph: &Csr) -> Result<(), RunError> {
    if matches!(graph.labels, irgc_graph::NodeLabels::Offset(0)) {
        return Ok(());
    }
    let n = u64::from(graph.num_nodes());
    let inf = Scalar::Node.inf_bits();
    for o in outputs.iter().filter(|o| o.elem == Scalar::Node) {
        let bad: Vec<usize> = (0..o.values.len()).filter(|&i| o.values[i] != inf && o.values[i] >= n).collect();
        let Some(&first) = bad.first() else { continue };
        let at = match o.shape {
            OutputShape::Node => format!("node {} (#{first})", graph.labels.label(first as u32)),
            OutputShape::Edge => format!("edge #{first}"),
            OutputShape::Dense { .. } => format!("element {first}"),
        };
        return Err(RunError::BadOutput(format!(
            "output `{}` holds {} at {at}, which is not a node of the graph (it has {n}): {} element(s) hold no \
             node nor `inf`, so no file id can be written for them; the program casts a value that is not a node \
             with `as node`",
            o.name,
            o.values[first],
            bad.len()
        )));
    }
    Ok(())
}

/// A warning when a float output holds NaN: an undefined value (0/0, inf - inf, inf/inf) reached the answer, which
/// a file of numbers would otherwise pass on silently. Betweenness on long meshes is the classic case: its path
/// counts overflow `f64` and the dependencies become inf/inf. Names the output, how many, and the first one.
pub fn nan_warning(outputs: &[OutputData], graph: &Csr) -> Option<String> {
    outputs.iter().filter(|o| matches!(o.elem, Scalar::F32 | Scalar::F64)).find_map(|o| {
        let nan = |&b: &u64| crate::eval::to_f64(o.elem, b).is_nan();
        let first = o.values.iter().position(nan)?;
        let at = match o.shape {
            OutputShape::Node => format!("node {}", graph.labels.label(first as u32)),
            OutputShape::Edge => format!("edge #{first}"),
            OutputShape::Dense { .. } => format!("element {first}"),
        };
        Some(format!(
            "output `{}` holds {} NaN value(s), the first at {at}: an undefined operation (0/0, inf - inf, inf/inf: \
             e.g. path counts beyond the float's range) reached the answer",
            o.name,
            o.values.iter().filter(|b| nan(b)).count()
        ))
    })
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

/// The writers' tests' graph: a path 0 - 1 - 2 whose file wrote the nodes as 10, 20 and 30.
#[cfg(test)]
fn test_graph() -> Csr {
    let mut el = irgc_graph::EdgeList::new(3);
    for (a, b) in [(0, 1), (1, 0), (1, 2), (2, 1)] {
        el.src.push(a);
        el.dst.push(b);
    }
    el.labels = irgc_graph::NodeLabels::Explicit(vec![10, 20, 30]);
    el.into_csr(irgc_graph::BuildOptions::default())
}
