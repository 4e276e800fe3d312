//! The scalar types.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The scalar types. `Node` and `Edge` are ids: a node id is 32-bit, an edge id 64-bit (graphs may have more than
/// 2^32 edges); they compare like unsigned integers but take no arithmetic without a cast. In memory `bool` is one
/// byte (0/1), `node`/`u32`/`i32`/`f32` four bytes, `edge`/`u64`/`i64`/`f64` eight, little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scalar {
    Bool,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Node,
    Edge,
}

impl Scalar {
    /// Every scalar type, in declaration order.
    pub const ALL: [Scalar; 9] = [
        Scalar::Bool,
        Scalar::I32,
        Scalar::U32,
        Scalar::I64,
        Scalar::U64,
        Scalar::F32,
        Scalar::F64,
        Scalar::Node,
        Scalar::Edge,
    ];

    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Node => "node",
            Scalar::Edge => "edge",
        }
    }

    /// Plain integers (not ids, not bool).
    pub fn is_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }

    pub fn is_id(self) -> bool {
        matches!(self, Scalar::Node | Scalar::Edge)
    }

    /// Size in bits as stored in device memory.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool => 8,
            Scalar::I32 | Scalar::U32 | Scalar::F32 | Scalar::Node => 32,
            Scalar::I64 | Scalar::U64 | Scalar::F64 | Scalar::Edge => 64,
        }
    }

    /// Bytes per element in memory.
    pub fn size(self) -> usize {
        self.bits() as usize / 8
    }

    /// The width arithmetic wraps at and shifts count modulo (1 for bool).
    pub fn width(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            s => s.bits(),
        }
    }

    /// The bits of `inf` for this type: the largest value (+∞ for floats).
    pub fn inf_bits(self) -> u64 {
        match self {
            Scalar::Bool => 1,
            Scalar::I32 => i32::MAX as u64,
            Scalar::U32 | Scalar::Node => u32::MAX as u64,
            Scalar::I64 => i64::MAX as u64,
            Scalar::U64 | Scalar::Edge => u64::MAX,
            Scalar::F32 => f32::INFINITY.to_bits() as u64,
            Scalar::F64 => f64::INFINITY.to_bits(),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
