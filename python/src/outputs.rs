//! Output arrays as NumPy wants them: each element in its own type's little-endian bytes (the runtime keeps
//! normalized `u64` bits), and a mask of the elements that hold the type's `inf` ("no value": unreached,
//! unmatched). A `node` or `edge` value becomes an `int64` index, -1 for none; the Python layer maps node indices
//! to the caller's ids.

use irgc_artifact::Scalar;
use irgc_runtime::{OutputData, OutputShape};

use crate::graph::encode;

/// One output, converted.
pub struct Converted {
    pub name: String,
    /// The irgc type (`u32`, `node`, ...).
    pub ty: &'static str,
    /// The NumPy dtype of `data`.
    pub dtype: &'static str,
    /// `node`, `edge` or `dense`.
    pub kind: &'static str,
    /// The array's shape: `[n]`, `[m]`, or the dense dims (`[d0]` for a 1-D array).
    pub shape: Vec<u64>,
    pub data: Vec<u8>,
    /// One byte per element: 1 where the value is the type's `inf`.
    pub absent: Vec<u8>,
    /// What "no value" means for this output (`unreached`, `unmatched`, `inf`).
    pub absent_word: &'static str,
}

/// Converts `o`; a node value that is neither `inf` nor a node of the graph's `num_nodes` is an error.
pub fn convert(o: &OutputData, num_nodes: u32) -> Result<Converted, String> {
    let ty = o.elem;
    let absent: Vec<u8> = o.values.iter().map(|&b| u8::from(ty != Scalar::Bool && b == ty.inf_bits())).collect();
    let index = |b: u64| if b == ty.inf_bits() { -1 } else { b as i64 };
    let (dtype, data) = match ty {
        Scalar::Bool => ("bool", o.values.iter().map(|&b| u8::from(b != 0)).collect()),
        Scalar::I32 => ("int32", encode(&o.values, |b| (b as u32 as i32).to_le_bytes())),
        Scalar::U32 => ("uint32", encode(&o.values, |b| (b as u32).to_le_bytes())),
        Scalar::I64 => ("int64", encode(&o.values, |b| (b as i64).to_le_bytes())),
        Scalar::U64 => ("uint64", encode(&o.values, u64::to_le_bytes)),
        Scalar::F32 => ("float32", encode(&o.values, |b| f32::from_bits(b as u32).to_le_bytes())),
        Scalar::F64 => ("float64", encode(&o.values, |b| f64::from_bits(b).to_le_bytes())),
        Scalar::Node => {
            if let Some((i, b)) =
                o.values.iter().enumerate().find(|(_, &b)| b != ty.inf_bits() && b >= u64::from(num_nodes))
            {
                return Err(format!(
                    "output `{}`: element {i} holds node {b}, which the graph of {num_nodes} nodes does not have",
                    o.name
                ));
            }
            ("int64", o.values.iter().flat_map(|&b| index(b).to_le_bytes()).collect())
        }
        Scalar::Edge => ("int64", o.values.iter().flat_map(|&b| index(b).to_le_bytes()).collect()),
    };
    let (kind, shape) = match o.shape {
        OutputShape::Node => ("node", vec![o.values.len() as u64]),
        OutputShape::Edge => ("edge", vec![o.values.len() as u64]),
        OutputShape::Dense { dims: [d0, 1] } => ("dense", vec![d0]),
        OutputShape::Dense { dims } => ("dense", dims.to_vec()),
    };
    Ok(Converted { name: o.name.clone(), ty: ty.name(), dtype, kind, shape, data, absent, absent_word: o.absent })
}
