//! `irgc._native`: the Rust half of the irgc Python package. It holds compiled programs and graphs and runs one
//! on the other through `irgc-driver`, the code `irgc run` uses; `irgc/__init__.py` turns Python inputs (NetworkX,
//! SciPy, NumPy) into the flat little-endian buffers taken here and the buffers returned into NumPy arrays, so
//! this crate needs no NumPy bindings.
//!
//! Every failure is raised as one of the exceptions below, never a panic; the GIL is released while compiling,
//! building or loading a graph, and running.

use pyo3::prelude::*;

mod errors;
mod graph;
mod outputs;
mod program;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("IrgcError", py.get_type::<errors::IrgcError>())?;
    m.add("CompileError", py.get_type::<errors::CompileError>())?;
    m.add("GraphError", py.get_type::<errors::GraphError>())?;
    m.add("RunError", py.get_type::<errors::RunError>())?;
    m.add("ParamError", py.get_type::<errors::ParamError>())?;
    m.add("VerificationError", py.get_type::<errors::VerificationError>())?;
    m.add("CudaError", py.get_type::<errors::CudaError>())?;
    m.add_class::<program::Program>()?;
    m.add_class::<graph::Graph>()?;
    Ok(())
}
