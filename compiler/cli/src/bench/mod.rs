//! `irgc bench`: time programs on graphs, and optionally hand-written Rust baselines beside them.
//!
//! For every graph (loaded once) and every program (compiled once, before any graph is loaded, so a typo fails in
//! a second rather than after a ten-second load): `--warmup` runs, then `--runs` timed runs of
//! `irgc_runtime::execute`. The table reports compute time only (the runtime's `compute_time`: the plan, not the
//! allocation and initialisation of arrays, which is the separate setup column, nor the graph load). The first run
//! is verified against the program's declared check: a fast wrong answer is worth nothing, so any failure makes
//! the exit status 1.
//!
//! Benchmarks are not tests: this prints numbers for people (a table) or scripts (`--json`) and asserts nothing
//! about them. Progress goes to stderr, one line per row, because a large graph takes minutes.

mod ablation;
mod ablation_plot;
mod bars;
mod baseline;
mod table;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use irgc_artifact::{Artifact, Scalar};
use irgc_runtime::{RunOptions, DEFAULT_MAX_LAUNCHES};

use crate::graph_input::{self, GraphArgs, LoadedGraph};
use crate::run::Backend;
use baseline::Algo;
use table::{Row, Verified};

#[derive(Args)]
pub struct BenchArgs {
    /// The programs (.irg); each runs on every graph.
    #[arg(required = true, value_name = "PROGRAM")]
    programs: Vec<PathBuf>,
    /// An input graph: a file in any supported format, or `gen:SPEC`. Repeatable; each is loaded once.
    #[arg(long = "graph", required = true, value_name = "FILE|gen:SPEC")]
    graphs: Vec<String>,
    /// Where kernels run: `cpu`, or `cuda` (timed with CUDA events; a fresh device per run, the PTX compiled once
    /// and loaded untimed).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// Timed runs per program and graph (the table shows their median, min and max).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
    /// Untimed runs before the timed ones (page faults, caches, thread start-up).
    #[arg(long, value_name = "W", default_value_t = 1)]
    warmup: u64,
    /// Set a param: NAME=VALUE (a node as written in the graph file, or `#i` by position). Repeatable. Each program gets the params
    /// it declares; a param that no program declares is an error (it is probably a typo).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Also time a hand-written Rust implementation of the same algorithm (bfs_worklist, bfs_topology, rem,
    /// shiloach_vishkin, sssp_worklist; matched by file stem) with the same threads; shown as backend `rust`.
    #[arg(long)]
    baseline: bool,
    /// Print the rows as a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Also draw the table as bars (median compute time per program and graph, min-max whiskers) into FILE.svg;
    /// with `--ablation`, the ablation table as a heat map (each configuration's time against every pass on).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Worker threads, for irgc and the baselines alike (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Stop a run after this many kernel launches (a guard against plans that never terminate).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LAUNCHES)]
    max_launches: u64,
    /// Stop the whole benchmark after this many seconds, whatever it is doing, with exit status 124.
    #[arg(long, value_name = "SECONDS", value_parser = crate::watchdog::parse_timeout)]
    timeout: Option<std::time::Duration>,
    #[command(flatten)]
    outlining: crate::outlining::OutlineArgs,
    /// The optimizer's ablation table: run each program with every pass, with each pass disabled and with none
    /// (only the configurations that change its optimized IR; `irgc passes` lists them), and print a column per
    /// configuration, flagging a program more than 10% slower with every pass than with none. A run whose output
    /// is identical to a verified run's is verified by that, without recomputing the reference.
    #[arg(long, conflicts_with_all = ["baseline", "no_outline"])]
    ablation: bool,
    /// With `--ablation`: once every program has run, run each flagged one again in every configuration with N
    /// timed runs (after the same warm-up) and keep those rows, marked ↻. One run a cell keeps a large table
    /// cheap; a flag that survives N runs is a cost, not a noisy run.
    #[arg(long, value_name = "N", requires = "ablation", value_parser = clap::value_parser!(u64).range(1..))]
    recheck: Option<u64>,
    /// With `--ablation`: flag a program whose time with every pass is more than RATIO times its time with none
    /// (default 1.10: issue #11's rule, every pass at most 10% slower than none anywhere).
    #[arg(long, value_name = "RATIO", requires = "ablation", default_value_t = ablation::SLOWER, allow_negative_numbers = true)]
    flag_above: f64,
    #[command(flatten)]
    multi: crate::devices::DeviceArgs,
    #[command(flatten)]
    opt: crate::optimize::OptArgs,
    #[command(flatten)]
    input: GraphArgs,
}

/// A program compiled once for every graph.
struct Program {
    /// The file stem: the row's name and the key of its baseline.
    stem: String,
    /// With `--ablation`, its optimizer configuration (see [`ablation::configs`]).
    config: Option<String>,
    artifact: Artifact,
    /// The IR, compiled again to PTX for each GPU run (`--backend cuda`).
    module: irgc_front::ir::Module,
    /// Its CPU code (`--backend cpu` only: a GPU bench, whose `--ablation` may compile a program seven ways, does
    /// not pay for code it never runs).
    kernels: Option<crate::backend::CpuBackend>,
    /// The `--param` values this program declares.
    params: Vec<(String, String)>,
}

/// What the loop has found so far: the rows, and whether anything failed (a wrong answer or an error).
#[derive(Default)]
struct Results {
    rows: Vec<Row>,
    failed: bool,
    /// The verdicts of outputs that verified, by program, graph and output digest: an identical output from
    /// another configuration or run is right for the same reason, so its reference is not computed again.
    known: std::collections::HashMap<(String, String, u64), Verdict>,
}

/// A row's verdict: whether it verified, the check's summary (or the mismatch), and the qualities it rated.
type Verdict = (Verified, String, Vec<irgc_runtime::Quality>);

pub fn run(args: &BenchArgs, color: bool) -> Result<ExitCode> {
    crate::watchdog::arm(args.timeout, "bench");
    if let Some(path) = &args.plot {
        crate::plot::check_svg(path)?;
        let mut inputs: Vec<std::path::PathBuf> =
            args.graphs.iter().flat_map(|g| crate::clobber::graph_files(g)).collect();
        inputs.extend(args.programs.iter().cloned());
        crate::clobber::check(&[("--plot", path.as_path())], &inputs)?;
    }
    if args.backend == Backend::Cuda && args.threads.is_some() {
        bail!("--threads sets the CPU thread count; it does not apply to --backend cuda");
    }
    args.multi.check(args.backend == Backend::Cuda)?;
    if args.multi.rank.is_some() {
        bail!("bench times one process; time the ranks of a multi-process run with `irgc run --ranks ... --json`");
    }
    if args.multi.may_use_nccl(args.backend == Backend::Cuda) {
        crate::nccl_env::ensure_loadable()?;
    }
    if args.backend == Backend::Cuda {
        // Fail at once on a machine without a GPU (or without the GPUs asked for), before any graph is loaded.
        crate::run::execute::open_gpus(&args.multi.gpu_ordinals())?;
    }
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    if args.ablation && args.opt.any_but_params() {
        bail!(
            "--ablation runs every pass configuration itself; leave out --disable-pass, --print-after, --time-passes \
             and --explain (--pass-param applies to every configuration)"
        );
    }
    if !(args.flag_above.is_finite() && args.flag_above >= 0.0) {
        bail!(
            "--flag-above {}: give a ratio of 0 or more (1.10 flags every pass more than 10% slower than none)",
            args.flag_above
        );
    }
    if let Some(t) = args.threads.filter(|&t| t > crate::run::MAX_THREADS) {
        bail!("--threads {t} is more than irgc allows ({})", crate::run::MAX_THREADS);
    }
    let given = args.params.iter().map(|p| irgc_runtime::split_param(p)).collect::<Result<Vec<_>, _>>()?;
    let programs = compile_all(args, &given, color)?;
    let Some(programs) = programs else { return Ok(ExitCode::FAILURE) };

    // One pool for every baseline, sized as the runtime sizes its own (`--threads`, else one per core).
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        builder = builder.num_threads(t);
    }
    let pool = builder.build().context("cannot start the baseline thread pool")?;

    let mut results = Results::default();
    for spec in &args.graphs {
        let graph = graph_input::load(spec, &args.input)?;
        eprintln!(
            "loaded {}: {} nodes, {} edges in {:.2} s",
            graph.name,
            graph.csr.num_nodes(),
            graph.csr.num_edges(),
            graph.load_time.as_secs_f64()
        );
        // A program that cannot run on this graph (weights it lacks, a directed graph) says so once, not once per
        // `--ablation` configuration.
        let mut refused: BTreeSet<&str> = BTreeSet::new();
        for program in &programs {
            if refused.contains(program.stem.as_str()) {
                continue;
            }
            if let Err(e) = bench_program(args, program, &graph, args.runs, &mut results) {
                eprintln!("error: {} on {}: {e:#}", program.stem, graph.name);
                results.failed = true;
                refused.insert(&program.stem);
                continue;
            }
            if args.baseline {
                match Algo::for_stem(&program.stem) {
                    Some(algo) => {
                        if let Err(e) = bench_baseline(args, algo, program, &graph, &pool, &mut results) {
                            eprintln!("error: the {} baseline on {}: {e:#}", program.stem, graph.name);
                            results.failed = true;
                        }
                    }
                    None => eprintln!("note: no Rust baseline for {}", program.stem),
                }
            }
        }
        if let Some(n) = args.recheck {
            recheck(args, &programs, &graph, n, &mut results);
        }
    }

    if let Some(path) = &args.plot {
        if args.ablation {
            ablation_plot::draw(&results.rows, path)?;
        } else {
            bars::draw(&results.rows, path)?;
        }
        eprintln!("wrote {}", path.display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results.rows).context("cannot encode the rows")?);
    } else {
        let on = match (args.backend, results.rows.first()) {
            (Backend::Cuda, _) => "on the GPU (CUDA events)".to_string(),
            (_, Some(r)) => format!("on {} thread(s)", r.threads),
            (_, None) => "on the CPU".to_string(),
        };
        println!(
            "{} timed run(s) after {} warm-up, {on}; times are compute only (ms), median of the timed runs",
            args.runs, args.warmup
        );
        if args.ablation {
            print!("{}", ablation::text(&results.rows, args.flag_above));
            return Ok(if results.failed { ExitCode::FAILURE } else { ExitCode::SUCCESS });
        }
        print!("{}", table::text(&results.rows));
        println!("MTEPS = m / median; GB/s = (8(n+1) + 4m [+ weights]) / median: the CSR read once");
        if args.backend == Backend::Cuda {
            println!(
                "one-pass floor: the CSR read once at the measured device copy rate (3.0 TB/s on an H100, 4.3 on an \
                 H200); GB/s / 3000 is the fraction of it reached"
            );
        }
    }
    Ok(if results.failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Compiles every program (diagnostics rendered as `irgc check` does) and splits `--param` among them. `None`
/// when a program has errors (already reported).
fn compile_all(args: &BenchArgs, given: &[(String, String)], color: bool) -> Result<Option<Vec<Program>>> {
    let mut programs = Vec::new();
    for path in &args.programs {
        let Some(compilation) = crate::check::front(path, color) else { return Ok(None) };
        let Some(module) = &compilation.module else { return Ok(None) };
        if compilation.has_errors() {
            return Ok(None);
        }
        let configs = if args.ablation {
            ablation::configs(module, args.opt.pass_params())?.into_iter().map(|(name, m)| (Some(name), m)).collect()
        } else {
            vec![(None, crate::optimize::optimize(module, &compilation.sources, &args.opt, args.outlining.no_outline)?)]
        };
        for (config, module) in configs {
            let artifact = crate::backend::lower(&module);
            let kernels = match args.backend {
                Backend::Cpu => Some(crate::backend::compile_cpu(&module)?),
                Backend::Cuda => None,
            };
            let stem = path.file_stem().map_or_else(|| artifact.name.clone(), |s| s.to_string_lossy().into_owned());
            let params = given.iter().filter(|(k, _)| artifact.params.iter().any(|p| &p.name == k)).cloned().collect();
            programs.push(Program { stem, config, artifact, module, kernels, params });
        }
    }
    let declared: BTreeSet<&str> =
        programs.iter().flat_map(|p| p.artifact.params.iter().map(|d| d.name.as_str())).collect();
    if let Some((k, _)) = given.iter().find(|(k, _)| !declared.contains(k.as_str())) {
        let known = if declared.is_empty() {
            "none".to_string()
        } else {
            declared.iter().copied().collect::<Vec<_>>().join(", ")
        };
        bail!("--param {k}: no program declares a param `{k}` (declared: {known})");
    }
    Ok(Some(programs))
}

/// Prints one progress line for a finished row.
fn progress(row: &Row) {
    let name = match &row.config {
        Some(c) => format!("{} [{c}]", row.program),
        None => row.program.clone(),
    };
    eprintln!(
        "  {:<18} {:<8} median {:.3} ms ({} launches), verified {:?}{}",
        name,
        row.backend,
        row.median_ms,
        row.launches,
        row.verified,
        row.quality.iter().map(|q| format!(", {q}")).collect::<String>()
    );
}

/// `--ablation --recheck N`: each program flagged on `graph` after one pass is run again in every configuration
/// with `n` timed runs; the new rows take the old ones' places.
fn recheck(args: &BenchArgs, programs: &[Program], graph: &LoadedGraph, n: u64, results: &mut Results) {
    let flagged: Vec<(String, f64)> = ablation::flagged(&results.rows, args.flag_above)
        .into_iter()
        .filter(|&((_, g), _)| g == graph.name)
        .map(|((program, _), ratio)| (program.to_string(), ratio))
        .collect();
    for (stem, ratio) in flagged {
        eprintln!(
            "recheck {stem} on {}: every pass {ratio:.2}× none at first; again with {n} timed runs a configuration",
            graph.name
        );
        let start = results.rows.len();
        for program in programs.iter().filter(|p| p.stem == stem) {
            if let Err(e) = bench_program(args, program, graph, n, results) {
                eprintln!("error: {} on {} (recheck): {e:#}", program.stem, graph.name);
                results.failed = true;
            }
        }
        for mut row in results.rows.split_off(start) {
            row.rechecked = true;
            let old = results
                .rows
                .iter_mut()
                .find(|r| r.program == row.program && r.graph == row.graph && r.config == row.config && !r.rechecked);
            match old {
                Some(old) => *old = row,
                None => results.rows.push(row),
            }
        }
    }
}

/// The warm-up and `runs` timed runs of one program on one graph.
fn bench_program(
    args: &BenchArgs,
    program: &Program,
    graph: &LoadedGraph,
    runs: u64,
    results: &mut Results,
) -> Result<()> {
    let artifact = &program.artifact;
    let fitted = irgc_runtime::fit_graph(artifact, &graph.csr, &graph.name, args.backend != Backend::Cuda);
    let (fitted_csr, notes) = fitted.map_or((None, Vec::new()), |f| (f.csr, f.notes));
    for note in &notes {
        eprintln!("note: {} on {}: {note}", program.stem, graph.name);
    }
    let fitted_graph;
    let graph = match fitted_csr {
        Some(csr) => {
            fitted_graph =
                LoadedGraph { csr, name: graph.name.clone(), load_time: graph.load_time, cache: graph.cache };
            &fitted_graph
        }
        None => graph,
    };
    if let Some(w) = irgc_runtime::overflow_warning(artifact, &graph.csr) {
        eprintln!("warning: {} on {}: {w}", program.stem, graph.name);
    }
    let params = irgc_runtime::resolve_params(artifact, &graph.csr, &program.params)?;
    let options = RunOptions {
        threads: args.threads,
        max_launches: args.max_launches,
        // Per-launch records cost time inside the timed region; the table does not need them.
        collect_stats: false,
        outline: !args.outlining.no_outline,
        outline_loops: args.outlining.loops(),
        memory_limit: None,
        partition: args.multi.partition(),
    };
    let mut verdict = None;
    let (mut compute, mut setup, mut launches) = (Vec::new(), Vec::new(), Vec::new());
    let (mut threads, mut devices, mut merges, mut moved_by) = (0, 1, Vec::new(), None);
    // Compiled at the first GPU run; later runs load the same text.
    let ptx = crate::run::execute::PtxCache::default();
    for i in 0..args.warmup + runs {
        // On the GPU each run gets a fresh device (PTX loaded, outside the timed region; compiled once for all the
        // runs); compute time is measured with CUDA events around the plan, excluding the graph upload.
        let exec = match args.backend {
            Backend::Cpu => {
                let kernels = program.kernels.as_ref().ok_or_else(|| anyhow!("{} has no CPU code", program.stem))?;
                crate::crash::arm();
                crate::run::execute::on_cpu(
                    kernels,
                    artifact,
                    &graph.csr,
                    &graph.name,
                    &params,
                    options.clone(),
                    args.multi.cpu_devices(),
                )?
            }
            Backend::Cuda => {
                let gpus = crate::run::execute::open_gpus(&args.multi.gpu_ordinals())?;
                let arch = crate::run::execute::cuda_arch(&gpus, None)?;
                let text = ptx.get(&program.module, &arch, false)?;
                let prepared = crate::run::execute::load_cuda(gpus, &text, arch, artifact, false)?
                    .one_after_another(args.multi.one_after_another)
                    .merging_by(args.multi.comm())?;
                crate::run::execute::on_cuda(prepared, artifact, &graph.csr, &graph.name, &params, options.clone())?
            }
        };
        if i == 0 {
            verdict = Some(verdict_of(program, graph, &params, &exec.outputs, results));
        }
        if i >= args.warmup {
            compute.push(exec.compute_time);
            setup.push(exec.setup_time);
            launches.push(exec.launches);
            if let Some(d) = &exec.devices {
                merges.push(d.merge_time);
            }
        }
        devices = exec.devices.as_ref().map_or(1, |d| d.runs.len());
        moved_by = exec.devices.as_ref().map(|d| d.moved_by.clone());
        threads = match exec.target {
            crate::run::execute::Target::Cpu { threads } => threads,
            crate::run::execute::Target::Cuda { .. } => 0,
        };
        // `exec` (the run's memory) is dropped here, before the next run allocates its own.
    }
    let (verified, detail, quality) = verdict.ok_or_else(|| anyhow!("no run was made"))?;
    let weight_size = artifact.graph.as_ref().and_then(|g| g.weight).map(Scalar::size);
    let backend = match (args.backend, devices) {
        (Backend::Cuda, 1) => "cuda".to_string(),
        (Backend::Cpu, 1) => "cpu".to_string(),
        (Backend::Cuda, n) => format!("cuda×{n}"),
        (Backend::Cpu, n) => format!("cpu×{n}"),
    };
    let mut row =
        make_row(args, &program.stem, graph, &backend, threads, Timings { compute, setup, launches }, weight_size);
    row.config = program.config.clone();
    row.quality = quality;
    row.devices = devices;
    row.merge_ms = (!merges.is_empty()).then(|| table::summarize(&merges).median.as_secs_f64() * 1e3);
    row.moved_by = moved_by;
    finish_row(row, verified, detail, results);
    Ok(())
}

/// The verdict on a run's outputs: its program's check, or the verdict of an identical output that verified before
/// (same program and graph: another configuration of `--ablation`).
fn verdict_of(
    program: &Program,
    graph: &LoadedGraph,
    params: &[u64],
    outputs: &[irgc_runtime::OutputData],
    results: &mut Results,
) -> Verdict {
    let digest = irgc_runtime::digest(outputs);
    let key = (program.stem.clone(), graph.name.clone(), digest);
    if let Some((v, detail, quality)) = results.known.get(&key) {
        return (
            v.clone(),
            format!("{detail} (the same output as a verified run, digest {digest:016x})"),
            quality.clone(),
        );
    }
    let verdict = match irgc_runtime::verify(&program.artifact, &graph.csr, params, outputs) {
        Ok(reports) => (
            Verified::Ok,
            reports.iter().map(|r| format!("{}: {}", r.output, r.summary)).collect::<Vec<_>>().join("; "),
            reports.into_iter().filter_map(|r| r.quality).collect(),
        ),
        Err(irgc_runtime::RunError::NothingToVerify(msg)) => (Verified::None, msg, Vec::new()),
        Err(e) => (Verified::Failed, e.to_string(), Vec::new()),
    };
    if verdict.0 == Verified::Ok {
        results.known.insert(key, verdict.clone());
    }
    verdict
}

/// The baseline of `program` on `graph`, with the same source node and the same runs.
fn bench_baseline(
    args: &BenchArgs,
    algo: Algo,
    program: &Program,
    graph: &LoadedGraph,
    pool: &rayon::ThreadPool,
    results: &mut Results,
) -> Result<()> {
    let g = &graph.csr;
    let source = if algo.needs_source() { source_of(program, g)? } else { 0 };
    // Converted once, outside any timing, as the runtime converts them in its setup.
    let weights: Option<Vec<u32>> = if algo.reads_weights() {
        let bits = irgc_runtime::memory::convert_weights(g, &graph.name, Scalar::U32)?;
        Some(bits.into_iter().map(|b| b as u32).collect())
    } else {
        None
    };
    let input = baseline::Input { graph: g, source, weights: weights.as_deref() };
    let (mut compute, mut setup, mut launches) = (Vec::new(), Vec::new(), Vec::new());
    let mut verdict = None;
    for i in 0..args.warmup + args.runs {
        let trial = baseline::run(algo, &input, pool);
        if i == 0 {
            verdict = Some(match baseline::verify(algo, &input, &trial.output) {
                Ok(summary) => (Verified::Ok, summary),
                Err(mismatch) => (Verified::Failed, mismatch),
            });
        }
        if i >= args.warmup {
            compute.push(trial.compute);
            setup.push(trial.setup);
            launches.push(trial.launches);
        }
    }
    let (verified, detail) = verdict.ok_or_else(|| anyhow!("no run was made"))?;
    let weight_size = algo.reads_weights().then_some(4);
    let timings = Timings { compute, setup, launches };
    let row = make_row(args, &program.stem, graph, "rust", pool.current_num_threads(), timings, weight_size);
    finish_row(row, verified, detail, results);
    Ok(())
}

/// The source node of a program's run, as an internal id: the resolved value of its `source` param (or, failing
/// that name, its first node param), so the baseline starts where the program did.
fn source_of(program: &Program, g: &irgc_graph::Csr) -> Result<u32> {
    let params = irgc_runtime::resolve_params(&program.artifact, g, &program.params)?;
    let descs = &program.artifact.params;
    let i = descs
        .iter()
        .position(|p| p.name == "source" && p.ty == Scalar::Node)
        .or_else(|| descs.iter().position(|p| p.ty == Scalar::Node))
        .ok_or_else(|| anyhow!("program `{}` has no node param to start the baseline from", program.stem))?;
    Ok(params[i] as u32)
}

/// The measurements of the timed runs, in run order.
struct Timings {
    compute: Vec<Duration>,
    setup: Vec<Duration>,
    launches: Vec<u64>,
}

fn make_row(
    args: &BenchArgs,
    program: &str,
    graph: &LoadedGraph,
    backend: &str,
    threads: usize,
    t: Timings,
    weight_size: Option<usize>,
) -> Row {
    let (n, m) = (u64::from(graph.csr.num_nodes()), graph.csr.num_edges());
    let c = table::summarize(&t.compute);
    let s = table::summarize(&t.setup);
    let bytes = table::csr_bytes(n, m, weight_size);
    let (mteps, gbps) = table::rates(m, bytes, c.median);
    let msf = |d: Duration| d.as_secs_f64() * 1e3;
    Row {
        program: program.to_string(),
        config: None,
        graph: graph.name.clone(),
        n,
        m,
        backend: backend.to_string(),
        devices: 1,
        merge_ms: None,
        moved_by: None,
        threads,
        runs: t.compute.len(),
        warmup: args.warmup as usize,
        median_ms: msf(c.median),
        min_ms: msf(c.min),
        max_ms: msf(c.max),
        setup_ms: msf(s.median),
        load_s: graph.load_time.as_secs_f64(),
        launches: t.launches[c.median_index],
        mteps,
        gbps,
        bytes,
        verified: Verified::None,
        quality: Vec::new(),
        verify_detail: String::new(),
        rechecked: false,
    }
}

fn finish_row(mut row: Row, verified: Verified, detail: String, results: &mut Results) {
    if verified == Verified::Failed {
        eprintln!("error: {} ({}) on {} gave a wrong answer: {detail}", row.program, row.backend, row.graph);
        results.failed = true;
    }
    row.verified = verified;
    row.verify_detail = detail;
    progress(&row);
    results.rows.push(row);
}
