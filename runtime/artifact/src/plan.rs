//! The host plan as data: statements and expressions the runtime interprets between kernel launches.

use irgc_scalar::{BinaryOp, MathFn, Scalar, UnaryOp};
use serde::{Deserialize, Serialize};

/// The host program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Host locals: name and type, indexed by [`HostExpr::Local`] and assignments.
    pub locals: Vec<(String, Scalar)>,
    pub body: Vec<HostStmt>,
}

impl Plan {
    /// Whether the plan contracts its graph (`G.contract`) anywhere.
    pub fn contracts(&self) -> bool {
        fn any(stmts: &[HostStmt]) -> bool {
            stmts.iter().any(|s| match s {
                HostStmt::Contract { .. } => true,
                HostStmt::If { then, otherwise, .. } => any(then) || any(otherwise),
                HostStmt::Loop { body, continuing, .. } => any(body) || any(continuing),
                HostStmt::For { body, .. } | HostStmt::Pipe { body, .. } => any(body),
                HostStmt::Hybrid { dense, sparse, .. } => any(dense) || any(sparse),
                _ => false,
            })
        }
        any(&self.body)
    }
}

/// A host expression; `ty` is the result type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostExpr {
    pub ty: Scalar,
    pub kind: HostExprKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HostExprKind {
    Literal(u64),
    Local(usize),
    Param(usize),
    Unary(UnaryOp, Box<HostExpr>),
    /// Operands share a type (the comparison's operand type is the left operand's `ty`).
    Binary(BinaryOp, Box<HostExpr>, Box<HostExpr>),
    /// Conversion of the operand to `ty`.
    Cast(Box<HostExpr>),
    Math(MathFn, Vec<HostExpr>),
    NumNodes,
    NumEdges,
    WorklistSize(usize),
    /// `device_threads()`: the threads the run's device spreads a kernel's iterations over at once.
    DeviceThreads,
    /// One element of a global.
    Load {
        global: usize,
        index: Vec<HostExpr>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum HostStmt {
    Assign {
        local: usize,
        value: HostExpr,
    },
    Store {
        global: usize,
        index: Vec<HostExpr>,
        value: HostExpr,
    },
    Fill {
        global: usize,
        value: HostExpr,
    },
    /// Appends to the worklist's current contents.
    Push {
        worklist: usize,
        value: HostExpr,
    },
    Clear {
        worklist: usize,
    },
    /// Replaces the graph by its quotient under node array `label` (see the IR's `PlanOp::Contract`): node and
    /// edge arrays take the new sizes, zeroed; worklists are emptied.
    Contract {
        label: usize,
    },
    /// Records each value under its label (the expression as the program wrote it) for the run's summary.
    Print {
        items: Vec<(String, HostExpr)>,
    },
    Invoke {
        kernel: usize,
        args: Vec<HostExpr>,
        result: Option<usize>,
    },
    If {
        cond: HostExpr,
        then: Vec<HostStmt>,
        otherwise: Vec<HostStmt>,
    },
    /// Runs `body`, then `continuing`, then leaves if `break_if` holds; `Continue` jumps to `continuing`.
    /// `outlined` indexes [`Artifact::pipes`] when the whole loop can run on the device as one kernel.
    Loop {
        body: Vec<HostStmt>,
        continuing: Vec<HostStmt>,
        break_if: Option<HostExpr>,
        #[serde(default)]
        outlined: Option<usize>,
    },
    For {
        var: usize,
        start: HostExpr,
        end: HostExpr,
        body: Vec<HostStmt>,
    },
    Break,
    Continue,
    /// Repeats `body` while the worklist is not empty. `outlined` indexes [`Artifact::pipes`] when the whole
    /// loop can run on the device as one persistent kernel.
    Pipe {
        worklist: usize,
        body: Vec<HostStmt>,
        #[serde(default)]
        outlined: Option<usize>,
    },
    /// `dense` when the worklist holds more than `threshold × num_nodes` items, else `sparse`; without a threshold
    /// (`above auto`), the mode [`crate::AutoHybrid`] predicts cheaper from the earlier rounds' times.
    Hybrid {
        worklist: usize,
        threshold: Option<HostExpr>,
        dense: Vec<HostStmt>,
        sparse: Vec<HostStmt>,
    },
}
