//! `--backend cuda` without a GPU: what can be checked on a machine with no CUDA driver.
//!
//! - The CLI refuses clearly (and exits 1) when there is no driver.
//! - Every shipped program compiles to PTX whose entries match its artifact (names; tile kernels' exact block
//!   size), and every range or tile kernel carries the host bounds the GPU runtime sizes its launches with.
//! - The device path of the runtime (`irgc_runtime::run_on`, the same interpreter the GPU uses) with launch sizes
//!   from those bounds gives, on the CPU, exactly the sizes the CPU backend computes itself and verified results:
//!   the GPU run differs from this one only in the device's memory and kernels.
#![allow(unsafe_code)] // Only to forward the CPU backend's entry points (see `Cranelift` below).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use irgc_artifact::{Artifact, KernelDesc, Space};
use irgc_graph::{Csr, Weights};
use irgc_runtime::{CpuDevice, CpuKernels, Device, DeviceRequest, Launched, RunError, RunOptions};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn irgc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irgc")).current_dir(root()).args(args).output().expect("irgc runs")
}

fn programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root().join("programs")).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "irg") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(!out.is_empty());
    out
}

fn module(path: &Path) -> irgc_front::ir::Module {
    let c = irgc_front::compile_file(path).unwrap();
    let mut m = c.module.unwrap_or_else(|| panic!("{} does not compile: {:?}", path.display(), c.diagnostics));
    let options = irgc_opt::Options { validate: true, ..irgc_opt::Options::default() };
    irgc_opt::run(&mut m, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    m
}

#[test]
fn no_driver_is_a_clear_error() {
    if irgc_cuda::driver_present() {
        return; // A machine with a driver: nothing to check here (scripts/gpu-check.sh runs the real thing).
    }
    let out = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", "gen:rmat:scale=6", "--backend", "cuda"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: no CUDA driver found (libcuda.so); run with --backend cpu"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn backend_specific_options_are_refused_on_the_other_backend() {
    let out = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", "gen:rmat:scale=6", "--arch", "sm_90"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--arch applies to --backend cuda only"));
    let args = ["run", "programs/bfs/bfs_worklist.irg", "--graph", "gen:rmat:scale=6", "--backend", "cuda"];
    let out = irgc(&[&args[..], &["--threads", "2"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads applies to --backend cpu only"));
}

/// The header of entry `name` in `ptx`: from `.entry name(` to its body's `{`.
fn entry_header<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let at = ptx.find(&format!(".entry {name}("))?;
    let rest = &ptx[at..];
    Some(&rest[..rest.find('{')?])
}

#[test]
fn every_program_compiles_to_ptx_matching_its_artifact() {
    for path in programs() {
        let m = module(&path);
        let artifact = irgc_backend_host::lower(&m);
        let out =
            irgc_backend_ptx::compile(&m, &irgc_backend_ptx::Options { arch: "sm_90".into(), check_bounds: false })
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for k in &artifact.kernels {
            let header = entry_header(&out.ptx, &k.name)
                .unwrap_or_else(|| panic!("{}: no `.entry {}` in the PTX", path.display(), k.name));
            let block = irgc_cuda::block_threads(&k.space).unwrap();
            match &k.space {
                Space::Tiles { dims, .. } => {
                    assert!(header.contains(&format!(".reqntid {block}")), "{}: {header}", k.name);
                    assert_eq!(k.bounds.len(), *dims, "{}: tile kernel `{}` lacks bounds", path.display(), k.name);
                }
                Space::Range { dims } => {
                    assert_eq!(k.bounds.len(), *dims, "{}: range kernel `{}` lacks bounds", path.display(), k.name);
                }
                _ => assert!(block <= irgc_backend_ptx::FORALL_MAX_THREADS),
            }
        }
        // Each outlined pipe has its entry, with the block size the runtime launches it with.
        let entries: Vec<&str> = artifact.pipes.iter().map(|p| p.entry.as_str()).collect();
        assert_eq!(out.pipes, entries, "{}", path.display());
        for name in entries {
            let header = entry_header(&out.ptx, name).unwrap_or_else(|| panic!("{}: no `{name}`", path.display()));
            assert!(header.contains(&format!(".maxntid {}", irgc_cuda::FORALL_BLOCK)), "{name}: {header}");
        }
    }
}

#[test]
fn pipes_and_reduction_loops_are_outlined() {
    let stems = |filter: fn(&Artifact) -> bool| -> Vec<String> {
        programs()
            .iter()
            .filter(|p| filter(&irgc_backend_host::lower(&module(p))))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        stems(|a| !a.pipes.is_empty()),
        [
            "apsp_batched",
            "bfs_chain",
            "bfs_do",
            "bfs_topology",
            "bfs_worklist",
            "cc_update",
            "shiloach_vishkin",
            "stages",
            "ipgc_data",
            "ipgc_hybrid",
            "ipgc_topology",
            "jp_ldf",
            "louvain_local",
            "suitor",
            "pagerank",
            "pagerank_pull",
            "pagerank_pull_f32",
            "sssp_atomic",
            "sssp_chain",
            "sssp_delta",
            "sssp_harish",
            "sssp_nearfar",
            "sssp_worklist"
        ]
    );
    let out = irgc(&["compile", "programs/bfs/bfs_worklist.irg", "--arch", "sm_90", "-o", "/dev/null"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(1 kernels, 1 outlined pipe, sm_90)"), "{out:?}");
}

/// The CPU backend's program as the runtime's kernels.
struct Cranelift(irgc_backend_cpu::CpuProgram);

impl CpuKernels for Cranelift {
    unsafe fn space_size(&self, k: usize, ctx: &[u64]) -> u64 {
        // SAFETY: forwarded unchanged; the runtime upholds the contract, which is the backend's own.
        unsafe { self.0.space_size(k, ctx) }
    }

    unsafe fn run(&self, k: usize, ctx: &[u64], lo: u64, hi: u64) -> u64 {
        // SAFETY: as above.
        unsafe { self.0.run(k, ctx, lo, hi) }
    }
}

/// The CPU, made to size range and tile launches from the artifact's bounds as the GPU does; every such launch
/// is checked against the size the compiled kernel computes itself.
struct BoundsSized<'a> {
    cpu: CpuDevice<'a>,
    checked: AtomicU64,
}

impl Device for BoundsSized<'_> {
    type Buffer = irgc_runtime::memory::Buffer;

    irgc_runtime::forward_device_basics!(cpu);

    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError> {
        if matches!(desc.space, Space::Range { .. } | Space::Tiles { .. }) {
            let own = self.cpu.space_size(k, ctx).unwrap();
            assert_eq!(size, own, "kernel `{}`: size from bounds {size}, from the kernel {own}", desc.name);
            self.checked.fetch_add(1, Relaxed);
        }
        self.cpu.launch(k, desc, ctx, size)
    }
}

fn weighted(spec: &str) -> Csr {
    let mut g = irgc_gen::generate(&irgc_gen::GenSpec::parse(spec).unwrap()).unwrap();
    let src = g.sources();
    // Symmetric weights in 1..=255, as `--weights random` gives.
    let w = (0..g.col.len()).map(|e| 1 + ((src[e] as i64 * 31 + g.col[e] as i64 * 31) % 255)).collect();
    g.weights = Some(Weights::Int(w));
    g
}

fn run_bounds_sized(artifact: &Artifact, kernels: &Cranelift, g: &Csr, name: &str) -> u64 {
    let params = irgc_runtime::resolve_params(artifact, g, &[]).unwrap();
    let options = RunOptions::default();
    let mut dev = BoundsSized { cpu: CpuDevice::new(kernels, &options).unwrap(), checked: AtomicU64::new(0) };
    let req = DeviceRequest { artifact, graph: g, graph_name: name, params: &params, options };
    let run = irgc_runtime::run_on(&mut dev, req).unwrap_or_else(|e| panic!("{} on {name}: {e}", artifact.name));
    if artifact.outputs.iter().any(|o| o.check.is_some()) {
        irgc_runtime::verify(artifact, g, &params, &run.outputs)
            .unwrap_or_else(|e| panic!("{} on {name}: {e}", artifact.name));
    }
    dev.checked.load(Relaxed)
}

#[test]
fn launch_sizes_from_bounds_equal_the_kernels_own_and_results_verify() {
    let mut checked = 0;
    for path in programs() {
        let m = module(&path);
        let artifact = irgc_backend_host::lower(&m);
        let kernels = Cranelift(irgc_backend_cpu::compile(&m).unwrap());
        let graphs: &[&str] = if path.ends_with("apsp/fw_blocked.irg") {
            &["er:n=70,deg=4,seed=3"]
        } else {
            &["rmat:scale=9,ef=8,seed=2", "grid:w=20,h=17,seed=1"]
        };
        for spec in graphs {
            checked += run_bounds_sized(&artifact, &kernels, &weighted(spec), spec);
        }
    }
    assert!(checked > 0, "no shipped program has a range or tile kernel any more: this test checks nothing");
}

/// A CPU device that records whether every device of a run was inside its plan at one time: `begin_compute`
/// waits (up to 20 s) for all of them to arrive, so it only sees them all when they run concurrently.
struct Rendezvous<'a> {
    cpu: CpuDevice<'a>,
    arrived: &'a AtomicU64,
    devices: u64,
    met: bool,
}

impl Device for Rendezvous<'_> {
    type Buffer = irgc_runtime::memory::Buffer;

    irgc_runtime::forward_device_basics!(cpu);

    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError> {
        self.cpu.launch(k, desc, ctx, size)
    }

    fn begin_compute(&mut self, time_launches: bool) -> Result<(), RunError> {
        if !self.met {
            self.arrived.fetch_add(1, Relaxed);
            let start = std::time::Instant::now();
            while self.arrived.load(Relaxed) < self.devices && start.elapsed().as_secs() < 20 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            self.met = self.arrived.load(Relaxed) >= self.devices;
        }
        self.cpu.begin_compute(time_launches)
    }
}

#[test]
fn the_gpus_concurrent_multi_device_schedule_runs_devices_at_once_and_merges_as_one_after_another_does() {
    use irgc_runtime::devices::{run_on_devices, Schedule};
    let g = irgc_gen::generate(&irgc_gen::GenSpec::parse("er:n=3000,deg=1,seed=7").unwrap()).unwrap();
    for program in ["programs/cc/ecl_cc.irg", "programs/cc/rem.irg"] {
        let m = module(&root().join(program));
        let artifact = irgc_backend_host::lower(&m);
        let kernels = Cranelift(irgc_backend_cpu::compile(&m).unwrap());
        let params = irgc_runtime::resolve_params(&artifact, &g, &[]).unwrap();
        let options = RunOptions { threads: Some(1), ..RunOptions::default() };
        let mut digests = Vec::new();
        for schedule in [Schedule::OneAfterAnother, Schedule::Concurrent] {
            let arrived = AtomicU64::new(0);
            let mut devices: Vec<_> = (0..4)
                .map(|_| Rendezvous {
                    cpu: CpuDevice::new(&kernels, &options).unwrap(),
                    arrived: &arrived,
                    devices: 4,
                    met: schedule == Schedule::OneAfterAnother,
                })
                .collect();
            let mut mover = irgc_runtime::devices::Receive { label: "host copies" };
            let run = run_on_devices(&mut devices, schedule, &mut mover, &artifact, &g, "er", &params, &options)
                .unwrap_or_else(|e| panic!("{program}, {schedule:?}: {e}"));
            assert!(devices.iter().all(|d| d.met), "{program}: the devices did not run at once");
            assert_eq!((run.devices.len(), run.merge_rounds), (4, 2));
            digests.push(irgc_runtime::digest(&run.outputs));
        }
        assert_eq!(digests[0], digests[1], "{program}: the schedules merged to different results");
    }
}
