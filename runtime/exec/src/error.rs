//! The one error type of the runtime.
//!
//! Every variant carries a complete sentence for the user: the CLI prints `error: {e}` and exits, so a message must
//! name the thing it is about (the array, the worklist, the kernel, the param, the file) and, where there is one,
//! say what to do about it. Nothing in the runtime panics on bad input; it returns one of these.

use irgc_verify::Mismatch;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RunError {
    /// The graph does not fit the program (missing weights, weights that do not convert to the declared type).
    #[error("{0}")]
    Graph(String),
    /// A `--param` is unknown, missing, given twice or not a value of its type.
    #[error("{0}")]
    Param(String),
    /// An array or worklist is too large for this machine.
    #[error("{0}")]
    Memory(String),
    /// The host plan did something undefined: division by zero, an index out of bounds, an ill-formed artifact.
    #[error("{0}")]
    Plan(String),
    /// A worklist received more items than its capacity.
    #[error("{0}")]
    Overflow(String),
    /// The `--max-launches` safety limit was reached.
    #[error(
        "stopped after {limit} kernel launches (the last one: `{kernel}`): the plan looks like it does not terminate; \
         raise the limit with --max-launches if it is just long"
    )]
    LaunchLimit { limit: u64, kernel: String },
    /// `--verify` was asked of a program with no checkable output.
    #[error("{0}")]
    NothingToVerify(String),
    /// A result disagrees with the reference. (Boxed: a `Mismatch` is large, and every `Result` here carries this.)
    #[error("verification of output `{output}` against the reference {reference} failed: {mismatch}")]
    Verification { output: String, reference: String, mismatch: Box<Mismatch> },
    /// An output holds a value its type cannot mean: a `node` value that is no node of the graph (nor `inf`).
    /// Written out, it would pass for some file id, so the run stops instead.
    #[error("{0}")]
    BadOutput(String),
    /// The device failed: a driver call, a kernel fault, a module that does not load.
    #[error("{0}")]
    Device(String),
    /// A bounds-checked kernel indexed outside an array (or the graph): `site` numbers the access among the
    /// program's checked sites (the backend's table says where it is in the source).
    #[error("kernel `{kernel}` indexed out of bounds: index {index} at access site #{site}, whose bound is {bound}")]
    OutOfBounds { kernel: String, site: u64, index: u64, bound: u64 },
    /// The ranks of a multi-process run could not meet or exchange arrays (`crate::ranks`).
    #[error("{0}")]
    Ranks(String),
    /// The thread pool could not be built.
    #[error("cannot start {threads} worker threads: {msg}")]
    Threads { threads: usize, msg: String },
}

impl RunError {
    pub(crate) fn plan(msg: impl Into<String>) -> Self {
        RunError::Plan(msg.into())
    }

    /// A multi-process run's failure to meet or exchange arrays (for the links other crates implement).
    pub fn ranks(msg: impl Into<String>) -> Self {
        RunError::Ranks(msg.into())
    }
}
