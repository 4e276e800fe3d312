//! The package's exceptions, and which one each failure of the driver or runtime becomes: the class says what
//! went wrong (the program, the graph, a param, the run, the answer, the GPU), the message is the CLI's.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(irgc, IrgcError, PyException, "The base of every irgc error.");
create_exception!(
    irgc,
    CompileError,
    IrgcError,
    "The program does not compile; the message is the rendered diagnostics."
);
create_exception!(irgc, GraphError, IrgcError, "The graph cannot be read or built, or does not fit the program.");
create_exception!(irgc, RunError, IrgcError, "The run failed.");
create_exception!(irgc, ParamError, RunError, "A param is unknown, missing, or not a value of its type.");
create_exception!(irgc, VerificationError, RunError, "An output disagrees with the reference (verify=True).");
create_exception!(irgc, CudaError, RunError, "The GPU could not be opened, or the PTX not compiled or loaded.");

/// The exception for a runtime error, by kind.
pub fn from_run_error(e: &irgc_runtime::RunError) -> PyErr {
    use irgc_runtime::RunError as E;
    let msg = e.to_string();
    match e {
        E::Param(_) => ParamError::new_err(msg),
        E::Graph(_) => GraphError::new_err(msg),
        E::Verification { .. } => VerificationError::new_err(msg),
        E::Device(_) => CudaError::new_err(msg),
        _ => RunError::new_err(msg),
    }
}

/// The exception for an error of the driver: a runtime error by kind, anything else (the backends) as `fallback`.
pub fn from_anyhow(e: &anyhow::Error, fallback: fn(String) -> PyErr) -> PyErr {
    match e.downcast_ref::<irgc_runtime::RunError>() {
        Some(run) => from_run_error(run),
        None => fallback(format!("{e:#}")),
    }
}

/// A `GraphError` with `msg`.
pub fn graph(msg: String) -> PyErr {
    GraphError::new_err(msg)
}

/// A `RunError` with `msg`.
pub fn run(msg: String) -> PyErr {
    RunError::new_err(msg)
}

/// A `CudaError` with `msg`.
pub fn cuda(msg: String) -> PyErr {
    CudaError::new_err(msg)
}
