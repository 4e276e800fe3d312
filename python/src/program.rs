//! `irgc._native.Program`: a compiled program, and its runs on a graph through `irgc_driver::execute` (the code
//! `irgc run` runs), with params resolved and outputs verified by the runtime exactly as the CLI does.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use irgc_driver::backend::CpuBackend;
use irgc_driver::compile::{CompileError, Compiled};
use irgc_driver::execute::{self, Finished, Target};
use irgc_runtime::{CheckReport, RunOptions, DEFAULT_MAX_LAUNCHES};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::{errors, graph::Graph, outputs};

/// The most worker threads a run may ask for, as `irgc run --threads` allows.
const MAX_THREADS: usize = 4096;

#[pyclass(frozen, module = "irgc._native")]
pub struct Program {
    compiled: Compiled,
    /// The CPU kernels, compiled on first use and kept for the next run: `[unchecked, bounds-checked]`.
    cpu: Mutex<[Option<Arc<CpuBackend>>; 2]>,
    /// The PTX, compiled on first use for each architecture and bounds-check setting, and kept.
    ptx: execute::PtxCache,
}

fn compile_error(e: CompileError) -> PyErr {
    errors::CompileError::new_err(e.to_string())
}

/// The optimizer's options with the named passes off and the pass parameters set (`PASS.NAME=N`, as
/// `--pass-param` takes them); an unknown name or a value the parameter does not allow is an error.
fn opt_options(disable: Vec<String>, params: Vec<String>) -> PyResult<irgc_opt::Options> {
    let mut o = irgc_opt::Options::default();
    for name in disable {
        if !irgc_opt::PASSES.iter().any(|p| p.name == name) {
            let known: Vec<&str> = irgc_opt::PASSES.iter().map(|p| p.name).collect();
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "no optimizer pass `{name}` (passes: {})",
                known.join(", ")
            )));
        }
        o.disabled.insert(name);
    }
    for setting in params {
        o.set_param(&setting).map_err(pyo3::exceptions::PyValueError::new_err)?;
    }
    Ok(o)
}

/// Which devices a run uses: `devices` CPU devices, or one device on each of `gpus`.
struct Placement {
    devices: usize,
    gpus: Vec<usize>,
}

/// What a run produced, before it becomes Python objects (built while the GIL is released).
struct RunOutput {
    finished: Finished,
    outputs: Vec<outputs::Converted>,
    verification: Option<Vec<CheckReport>>,
    stats_json: String,
    digest: u64,
    /// What was changed to fit the graph to the program (`irgc_runtime::fit_graph`).
    adjusted: Vec<String>,
    /// Warnings about the answer's trust (`irgc_runtime::overflow_warning`), raised as Python warnings.
    warnings: Vec<String>,
}

impl Program {
    fn new(compiled: Compiled) -> Self {
        Program { compiled, cpu: Mutex::new([None, None]), ptx: execute::PtxCache::default() }
    }

    fn cpu_kernels(&self, check_bounds: bool) -> PyResult<Arc<CpuBackend>> {
        let mut slots = self.cpu.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let slot = &mut slots[usize::from(check_bounds)];
        if let Some(k) = slot.as_ref() {
            return Ok(k.clone());
        }
        let compiled = match check_bounds {
            true => irgc_driver::backend::compile_cpu_checked(&self.compiled.module),
            false => irgc_driver::backend::compile_cpu(&self.compiled.module),
        };
        let k = Arc::new(compiled.map_err(|e| errors::run(format!("{e:#}")))?);
        *slot = Some(k.clone());
        Ok(k)
    }

    /// The exception for a failed run: a bad index as the diagnostic at its source line, else by kind.
    fn run_error(&self, e: &anyhow::Error, fallback: fn(String) -> PyErr) -> PyErr {
        let c = &self.compiled;
        match e.downcast_ref().and_then(|r| irgc_driver::compile::render_out_of_bounds(r, &c.module, &c.sources, false))
        {
            Some(text) => errors::run(text.trim_end().to_string()),
            None => errors::from_anyhow(e, fallback),
        }
    }

    /// The whole run without the GIL: kernels, params, the plan, verification, conversion.
    #[allow(clippy::too_many_arguments)]
    fn run_detached(
        &self,
        graph: &Graph,
        backend: &str,
        given: &[(String, String)],
        verify: bool,
        check_bounds: bool,
        options: RunOptions,
        arch: Option<&str>,
        placement: &Placement,
    ) -> PyResult<RunOutput> {
        let artifact = &self.compiled.artifact;
        // As `irgc run`: a program that declares `graph G(undirected)` or a default weight gets a graph that fits.
        let fitted = irgc_runtime::fit_graph(artifact, &graph.csr, &graph.name, backend != "cuda");
        let csr = fitted.as_ref().and_then(|f| f.csr.as_ref()).unwrap_or(&graph.csr);
        // As `irgc run`: the GPU is opened first, so a machine without one says so before any other work.
        let gpu = match backend {
            "cuda" => Some(execute::open_gpus(&placement.gpus).map_err(|e| errors::cuda(format!("{e:#}")))?),
            _ => None,
        };
        let params = irgc_runtime::resolve_params(artifact, csr, given).map_err(|e| errors::from_run_error(&e))?;
        let finished = match gpu {
            None => {
                let kernels = self.cpu_kernels(check_bounds)?;
                execute::on_cpu(&kernels, artifact, csr, &graph.name, &params, options, placement.devices)
                    .map_err(|e| self.run_error(&e, errors::run))?
            }
            Some(gpu) => {
                let arch = execute::cuda_arch(&gpu, arch).map_err(|e| errors::from_anyhow(&e, errors::cuda))?;
                let ptx = self
                    .ptx
                    .get(&self.compiled.module, &arch, check_bounds)
                    .map_err(|e| errors::from_anyhow(&e, errors::cuda))?;
                let program = execute::load_cuda(gpu, &ptx, arch, artifact, check_bounds)
                    .map_err(|e| errors::from_anyhow(&e, errors::cuda))?;
                execute::on_cuda(program, artifact, csr, &graph.name, &params, options)
                    .map_err(|e| self.run_error(&e, errors::cuda))?
            }
        };
        let verification = if verify {
            let reports = irgc_runtime::verify(artifact, csr, &params, &finished.outputs)
                .map_err(|e| errors::from_run_error(&e))?;
            Some(reports)
        } else {
            None
        };
        let outputs = finished
            .outputs
            .iter()
            .map(|o| outputs::convert(o, csr.num_nodes()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(errors::run)?;
        let stats_json = serde_json::to_string(&finished.stats).map_err(|e| errors::run(e.to_string()))?;
        let digest = irgc_runtime::digest(&finished.outputs);
        let warnings = irgc_runtime::overflow_warning(artifact, csr)
            .into_iter()
            .chain(irgc_runtime::output::nan_warning(&finished.outputs, csr))
            .collect();
        let adjusted = fitted.map(|f| f.notes).unwrap_or_default();
        Ok(RunOutput { finished, outputs, verification, stats_json, digest, adjusted, warnings })
    }
}

#[pymethods]
impl Program {
    /// Compiles the program in the file at `path`, with the optimizer's passes named in `disable` off and the
    /// pass parameters `params` (`PASS.NAME=N`) set.
    #[staticmethod]
    #[pyo3(signature = (path, disable=Vec::new(), params=Vec::new()))]
    fn compile_file(py: Python<'_>, path: PathBuf, disable: Vec<String>, params: Vec<String>) -> PyResult<Program> {
        let options = opt_options(disable, params)?;
        let compiled = py.detach(|| irgc_driver::compile::compile_file(&path, &options)).map_err(compile_error)?;
        Ok(Program::new(compiled))
    }

    /// Compiles the program `text`; diagnostics call it `name`.
    #[staticmethod]
    #[pyo3(signature = (name, text, disable=Vec::new(), params=Vec::new()))]
    fn compile_source(
        py: Python<'_>,
        name: &str,
        text: &str,
        disable: Vec<String>,
        params: Vec<String>,
    ) -> PyResult<Program> {
        let options = opt_options(disable, params)?;
        let compiled =
            py.detach(|| irgc_driver::compile::compile_source(name, text, &options)).map_err(compile_error)?;
        Ok(Program::new(compiled))
    }

    /// The program's name (its `program` declaration, else the file's stem).
    #[getter]
    fn name(&self) -> &str {
        &self.compiled.artifact.name
    }

    /// Rendered warnings of the front end ("" when none).
    #[getter]
    fn warnings(&self) -> &str {
        &self.compiled.warnings
    }

    /// Every param: `(name, type, default as text or None)`.
    #[getter]
    fn params(&self) -> Vec<(String, &'static str, Option<String>)> {
        let a = &self.compiled.artifact;
        a.params
            .iter()
            .map(|p| {
                let default = p.default.map(|v| irgc_runtime::format_value(v.ty, v.bits, "inf"));
                (p.name.clone(), p.ty.name(), default)
            })
            .collect()
    }

    /// Every output: `(name, type)`.
    #[getter]
    fn outputs(&self) -> Vec<(String, &'static str)> {
        let a = &self.compiled.artifact;
        a.outputs.iter().filter_map(|o| a.globals.get(o.global)).map(|g| (g.name.clone(), g.elem.name())).collect()
    }

    /// Runs the program on `graph`. `params` are `(name, value)` texts as `--param` takes them (node values as the
    /// graph's ids, or `#i` for index i); returns a dict the Python layer turns into a `Result`.
    #[pyo3(signature = (graph, backend="cpu", params=Vec::new(), verify=false, threads=None,
                        max_launches=DEFAULT_MAX_LAUNCHES, arch=None, check_bounds=None, devices=1, gpus=None,
                        partition="edges", stats=true))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        graph: &Bound<'py, Graph>,
        backend: &str,
        params: Vec<(String, String)>,
        verify: bool,
        threads: Option<usize>,
        max_launches: u64,
        arch: Option<String>,
        check_bounds: Option<bool>,
        devices: usize,
        gpus: Option<Vec<usize>>,
        partition: &str,
        stats: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        // As `irgc run`: checked by default on the CPU, and on the GPU when verifying.
        let check_bounds = check_bounds.unwrap_or(verify || backend != "cuda");
        let bad = |msg: String| pyo3::exceptions::PyValueError::new_err(msg);
        match backend {
            "cpu" if arch.is_some() => return Err(bad("arch applies to backend=\"cuda\" only".into())),
            "cuda" if threads.is_some() => return Err(bad("threads applies to backend=\"cpu\" only".into())),
            "cpu" | "cuda" => {}
            other => return Err(bad(format!("backend must be \"cpu\" or \"cuda\", not {other:?}"))),
        }
        // As `irgc run --devices N --gpus LIST` (see `compiler/cli/src/devices.rs`).
        match (&gpus, backend) {
            (Some(_), "cpu") => return Err(bad("gpus applies to backend=\"cuda\" only".into())),
            (Some(g), _) if g.is_empty() => return Err(bad("gpus must name at least one GPU".into())),
            (Some(g), _) if devices > 1 && g.len() != devices => {
                return Err(bad(format!("devices={devices} but gpus names {} GPU(s): give one of them", g.len())))
            }
            _ if devices == 0 || devices > 1024 => {
                return Err(bad(format!("devices must be 1 to 1024, not {devices}")))
            }
            _ => {}
        }
        // As `irgc run --partition`.
        let partition = match partition {
            "edges" => irgc_graph::Partition::Edges,
            "lower-edges" => irgc_graph::Partition::LowerEdges,
            other => return Err(bad(format!("partition must be \"edges\" or \"lower-edges\", not {other:?}"))),
        };
        let placement = Placement { devices, gpus: gpus.unwrap_or_else(|| (0..devices).collect()) };
        match threads {
            Some(0) => return Err(bad("threads must be at least 1".into())),
            Some(t) if t > MAX_THREADS => {
                return Err(bad(format!("threads={t} is more than irgc allows ({MAX_THREADS})")))
            }
            _ => {}
        }
        let options = RunOptions {
            threads,
            max_launches,
            // As `irgc run --stats` (the per-launch records, each GPU launch waited for and timed; outlined pipes
            // and loops record their rounds in their kernels), or, without, as `irgc run`.
            collect_stats: stats,
            // A checked run reports per launch: an outlined pipe would run its rounds unseen.
            outline: !check_bounds,
            outline_loops: irgc_runtime::LoopOutlining::Auto,
            memory_limit: None,
            partition,
        };
        let g = graph.get();
        let out = py.detach(|| {
            self.run_detached(g, backend, &params, verify, check_bounds, options, arch.as_deref(), &placement)
        })?;
        to_dict(py, out, backend)
    }
}

/// The run as a dict of plain Python values and `bytes`.
fn to_dict<'py>(py: Python<'py>, out: RunOutput, backend: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let f = &out.finished;
    let outs = PyList::empty(py);
    for o in &out.outputs {
        let item = PyDict::new(py);
        item.set_item("name", &o.name)?;
        item.set_item("type", o.ty)?;
        item.set_item("dtype", o.dtype)?;
        item.set_item("kind", o.kind)?;
        item.set_item("shape", &o.shape)?;
        item.set_item("data", PyBytes::new(py, &o.data))?;
        item.set_item("absent", PyBytes::new(py, &o.absent))?;
        item.set_item("absent_word", o.absent_word)?;
        outs.append(item)?;
    }
    d.set_item("outputs", outs)?;
    d.set_item("backend", backend)?;
    d.set_item("setup_seconds", f.setup_time.as_secs_f64())?;
    let parts = PyDict::new(py);
    for (name, t) in f.setup_parts.named() {
        parts.set_item(name, t.as_secs_f64())?;
    }
    d.set_item("setup_parts_seconds", parts)?;
    d.set_item("compute_seconds", f.compute_time.as_secs_f64())?;
    d.set_item("launches", f.launches)?;
    d.set_item("digest", format!("{:016x}", out.digest))?;
    d.set_item("stats_json", &out.stats_json)?;
    d.set_item("adjusted", &out.adjusted)?;
    for w in &out.warnings {
        let text = std::ffi::CString::new(w.as_str()).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), &text, 1)?;
    }
    match &f.devices {
        None => d.set_item("devices", py.None())?,
        Some(m) => {
            let parts = PyList::empty(py);
            for r in &m.runs {
                let p = PyDict::new(py);
                p.set_item("edges", r.edges)?;
                p.set_item("setup_seconds", r.setup_time.as_secs_f64())?;
                p.set_item("compute_seconds", r.compute_time.as_secs_f64())?;
                p.set_item("launches", r.launches)?;
                parts.append(p)?;
            }
            let md = PyDict::new(py);
            md.set_item("parts", parts)?;
            md.set_item("merge_rounds", m.merge_rounds)?;
            md.set_item("merge_seconds", m.merge_time.as_secs_f64())?;
            md.set_item("merge_launches", m.merge_launches)?;
            md.set_item("at_once", m.at_once)?;
            d.set_item("devices", md)?;
        }
    }
    match &f.target {
        Target::Cpu { threads } => d.set_item("threads", threads)?,
        Target::Cuda { device, arch, upload, upload_bytes, readback } => {
            d.set_item("device", device)?;
            d.set_item("arch", arch)?;
            d.set_item("upload_seconds", upload.as_secs_f64())?;
            d.set_item("upload_bytes", upload_bytes)?;
            d.set_item("readback_seconds", readback.as_secs_f64())?;
        }
    }
    match &out.verification {
        None => d.set_item("verification", py.None())?,
        Some(reports) => {
            let list = PyList::empty(py);
            for r in reports {
                let item = PyDict::new(py);
                item.set_item("output", &r.output)?;
                item.set_item("reference", &r.reference)?;
                item.set_item("summary", &r.summary)?;
                list.append(item)?;
            }
            d.set_item("verification", list)?;
        }
    }
    Ok(d)
}
