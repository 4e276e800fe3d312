//! Errors of the CUDA runtime, as sentences for the user (the CLI prints `error: {e}`).

use cudarc::driver::DriverError;
use irgc_runtime::RunError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CudaError {
    /// `libcuda.so` is not on this machine: no NVIDIA driver.
    #[error("no CUDA driver found (libcuda.so); run with --backend cpu")]
    NoDriver,
    /// The driver is there but gives no usable GPU (none installed, none visible, a broken install).
    #[error("the CUDA driver found no usable GPU: {0}; run with --backend cpu")]
    NoDevice(String),
    /// A GPU ordinal beyond the machine's GPUs was asked for.
    #[error(
        "GPU {asked} was asked for, but the machine has {count} GPU(s); name GPUs it has with --gpus (ordinals \
         from 0; one named twice holds two devices, e.g. --gpus 0,0)"
    )]
    MissingGpu { asked: usize, count: usize },
    /// The GPU cannot run irgc's code (too old).
    #[error("{0}")]
    Unsupported(String),
    /// The PTX does not fit the artifact, or the driver would not load it.
    #[error("{0}")]
    Module(String),
    /// A driver call failed.
    #[error("{what}: {msg}")]
    Driver { what: String, msg: String },
}

impl CudaError {
    pub(crate) fn driver(what: impl Into<String>, e: DriverError) -> CudaError {
        CudaError::Driver { what: what.into(), msg: describe(&e) }
    }
}

impl From<CudaError> for RunError {
    fn from(e: CudaError) -> RunError {
        RunError::Device(e.to_string())
    }
}

/// A driver error as `CUDA_ERROR_NAME (what the driver says)`.
pub fn describe(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    match e.error_string() {
        Ok(s) => format!("{name} ({})", s.to_string_lossy()),
        Err(_) => name,
    }
}

/// A failed driver call during a run, as the runtime's error.
pub(crate) fn device_error(what: impl std::fmt::Display, e: DriverError) -> RunError {
    RunError::Device(format!("{what}: {}", describe(&e)))
}
