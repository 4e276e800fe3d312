//! The crates `irgc run` needs that are written alongside it: the artifact lowering (`irgc_backend_host`), the
//! CPU backend (`irgc_backend_cpu`) and the PTX backend (`irgc_backend_ptx`). Every call into them is in this
//! file, so adapting to their final signatures touches nothing else.

use anyhow::{anyhow, Result};
use irgc_artifact::Artifact;
use irgc_front::ir::Module;

/// The runtime's view of a program (arrays, worklists, kernels, the host plan).
pub fn lower(module: &Module) -> Artifact {
    irgc_backend_host::lower(module)
}

/// A program compiled by the CPU backend, as the runtime's [`irgc_runtime::CpuKernels`].
pub struct CpuBackend(irgc_backend_cpu::CpuProgram);

/// Compiles every kernel of `module` to native code.
pub fn compile_cpu(module: &Module) -> Result<CpuBackend> {
    irgc_backend_cpu::compile(module).map(CpuBackend).map_err(|e| anyhow!("the CPU backend failed: {e}"))
}

/// Compiles every kernel of `module` to native code with every array and graph access bounds-checked.
pub fn compile_cpu_checked(module: &Module) -> Result<CpuBackend> {
    irgc_backend_cpu::compile_checked(module).map(CpuBackend).map_err(|e| anyhow!("the CPU backend failed: {e}"))
}

// `unsafe` is allowed here only to forward the backend's entry point: the runtime upholds `run`'s contract (the
// context is one it built for this program), which is exactly the backend's own.
#[allow(unsafe_code)]
impl irgc_runtime::CpuKernels for CpuBackend {
    unsafe fn space_size(&self, k: usize, ctx: &[u64]) -> u64 {
        // SAFETY: forwarded unchanged; see above.
        unsafe { self.0.space_size(k, ctx) }
    }

    unsafe fn run(&self, k: usize, ctx: &[u64], lo: u64, hi: u64) -> u64 {
        // SAFETY: forwarded unchanged; see above.
        unsafe { self.0.run(k, ctx, lo, hi) }
    }

    fn checks_bounds(&self) -> bool {
        self.0.checks_bounds()
    }

    fn reads_sources(&self) -> bool {
        self.0.reads_sources()
    }
}

/// Compiles every kernel of `module` to one PTX module for `arch` (e.g. `sm_90`), bounds-checked if asked.
pub fn compile_ptx(module: &Module, arch: &str, check_bounds: bool) -> Result<String> {
    let options = irgc_backend_ptx::Options { arch: arch.to_string(), check_bounds };
    irgc_backend_ptx::compile_parallel(module, &options)
        .map(|out| out.ptx)
        .map_err(|e| anyhow!("the PTX backend failed: {e}"))
}
