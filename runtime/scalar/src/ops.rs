//! The operators: one definition each, used by the AST, the IR and the artifact alike.

use serde::{Deserialize, Serialize};

/// `-x` (signed or float), `!b` (bool), `~x` (integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 3] = [UnaryOp::Neg, UnaryOp::Not, UnaryOp::BitNot];

    /// As written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

/// Binary operators; both operands have one type. `And`/`Or` are the short-circuit `&&`/`||` on bools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 18] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
    ];

    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }

    /// As written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MathFn {
    Min,
    Max,
    Abs,
    /// Count trailing zeros (the width of the type for zero).
    Ctz,
    /// Count leading zeros.
    Clz,
    Popcount,
    Sqrt,
    /// `random(seed, i)`: a deterministic 64-bit hash of two `u64`s (splitmix64-based); the same on every backend.
    Random,
    /// `select(c, a, b)`: `a` if `c` else `b`, both evaluated.
    Select,
}

impl MathFn {
    pub const ALL: [MathFn; 9] = [
        MathFn::Min,
        MathFn::Max,
        MathFn::Abs,
        MathFn::Ctz,
        MathFn::Clz,
        MathFn::Popcount,
        MathFn::Sqrt,
        MathFn::Random,
        MathFn::Select,
    ];

    /// How many arguments a call takes: what the type checker asks for and every backend expects.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Min | MathFn::Max | MathFn::Random => 2,
            MathFn::Select => 3,
            _ => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Abs => "abs",
            MathFn::Ctz => "ctz",
            MathFn::Clz => "clz",
            MathFn::Popcount => "popcount",
            MathFn::Sqrt => "sqrt",
            MathFn::Random => "random",
            MathFn::Select => "select",
        }
    }
}

/// How a kernel's per-thread `reduce` values combine into its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReduceOp {
    Any,
    All,
    Sum,
    Min,
    Max,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
            ReduceOp::Sum => "sum",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
        }
    }
}

/// Atomic read-modify-writes on an array element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    /// Compare and swap: stores `value` if the element equals `compare`.
    CompareExchange,
}

impl AtomicOp {
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Exchange => "atomic_exch",
            AtomicOp::CompareExchange => "atomic_cas",
        }
    }
}
