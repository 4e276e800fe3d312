//! `irgc run`: compile a program, load a graph, run the program on it, and report.
//!
//! The pipeline: front end (diagnostics rendered like `irgc check`) → artifact + kernels (`backend.rs`: Cranelift
//! for the CPU, PTX for CUDA) → graph (`graph_input.rs`) → params → the run (`run/execute.rs`) → results (`--out`),
//! digest, `--verify`. The summary goes to stdout, as text or as one JSON object (`--json`), so scripts can
//! compare digests and timings without parsing prose; notes and errors go to stderr.
//!
//! With `--backend cuda` the GPU is opened first of all, so a machine without a CUDA driver says so at once.

pub use irgc_driver::execute;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use irgc_runtime::{CheckReport, RunOptions, RunStep, Stats, DEFAULT_MAX_LAUNCHES};
use serde_json::json;

use crate::graph_input::{self, GraphArgs, LoadedGraph};
use execute::{Finished, Target};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// Native code through Cranelift, run on all cores.
    Cpu,
    /// NVIDIA GPUs through PTX (GPU 0, or the GPUs of --devices/--gpus; needs the CUDA driver).
    Cuda,
}

#[derive(Args)]
pub struct RunArgs {
    /// The program (.irg).
    program: PathBuf,
    /// The input graph: a file in any supported format (compressed or not), or `gen:SPEC` to generate one (e.g.
    /// `gen:rmat:scale=16`).
    #[arg(long, value_name = "FILE|gen:SPEC")]
    graph: String,
    /// Set a param: NAME=VALUE (a node as written in the graph file, or `#i` for the node at position i). Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Where kernels run.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// Write the outputs to FILE, in the format its extension names: `.txt` (or any other name: one line per node,
    /// its id as in the input, then each output's value, `unreached`/`unmatched` for none; `u v d` lines for
    /// all-pairs outputs), `.csv`/`.tsv` (a header row `node,level`; empty fields for none), `.json` (every
    /// output with its type, `null` for none); a final `.gz` compresses; `-` writes to standard output (the
    /// summary then goes to standard error). Node-valued outputs (mates, parents) are written as the file's ids.
    #[arg(long, value_name = "FILE|-")]
    out: Option<PathBuf>,
    /// The format of --out, whatever its name says: txt, csv, tsv, json.
    #[arg(long, value_name = "FORMAT", value_parser = parse_out_format, requires = "out")]
    out_format: Option<irgc_runtime::OutputFormat>,
    /// Check the outputs against independent reference implementations (per the program's `output ... as`).
    #[arg(long)]
    verify: bool,
    /// Check every array and graph index in the kernels: the first bad one stops the run with the kernel, the
    /// array, the index, its bound and the source line, instead of a crash or a silent wrong answer. On by
    /// default on the CPU backend, and on the GPU with --verify (there it runs every pipe round by round, no
    /// outlining); what it costs: docs/results.md.
    #[arg(long, conflicts_with = "no_check_bounds")]
    check_bounds: bool,
    /// Run without the bounds checks that the CPU backend and --verify make by default: fastest, and a bad index is
    /// undefined.
    #[arg(long)]
    no_check_bounds: bool,
    /// Print a table of every kernel launch (round, kernel, items, pushed, hybrid mode, reduction value, time),
    /// and the set-up split into its parts (device, graph, renumbering, weights, sources, arrays, worklists). A
    /// pipe the GPU runs as one kernel records each of its rounds itself (worklist size, hybrid mode, the round's
    /// time by the GPU clock): a line per round, marked `(in kernel)`, so statistics do not change what runs.
    #[arg(long)]
    stats: bool,
    /// Write the statistics of --stats to FILE: `.csv` (one row per launch: round, kernel, retry, items, pushed,
    /// mode, reduced value, ms) or `.json` (also the pipe rounds and hybrid decisions; `irgc plot` reads it).
    /// Implies the recording of --stats, without printing its table.
    #[arg(long, value_name = "FILE")]
    stats_out: Option<PathBuf>,
    /// Draw the run's rounds into FILE.svg: kernel time and worklist size per round, the rounds where a `hybrid`
    /// ran dense shaded (a loop without a pipe: one point per launch, with its reduction value). Implies the
    /// recording of --stats.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    outlining: crate::outlining::OutlineArgs,
    /// Print the summary (and the statistics, with --stats) as one JSON object; unless --out takes them, it holds
    /// the outputs' values too (`values`: the node ids and each output, encoded as a `.json` --out file is).
    #[arg(long)]
    json: bool,
    /// Worker threads (default: one per core). CPU only.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The PTX target for --backend cuda, e.g. sm_80 or sm_90 (default: the GPU's own, capped at sm_90).
    #[arg(long, value_name = "sm_XX")]
    arch: Option<String>,
    /// Stop a run after this many kernel launches (a guard against plans that never terminate).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LAUNCHES)]
    max_launches: u64,
    /// Stop the whole command after this many seconds, whatever it is doing (loading, compiling, a plan that
    /// loops without launching anything), with exit status 124.
    #[arg(long, value_name = "SECONDS", value_parser = crate::watchdog::parse_timeout)]
    timeout: Option<std::time::Duration>,
    #[command(flatten)]
    multi: crate::devices::DeviceArgs,
    #[command(flatten)]
    opt: crate::optimize::OptArgs,
    #[command(flatten)]
    input: GraphArgs,
}

/// What verification found: nothing asked, every check passed, or the first failure.
enum Verdict {
    NotAsked,
    Passed(Vec<CheckReport>),
    Failed(String),
}

/// The compiled kernels, for the backend asked for.
enum Kernels {
    Cpu(Box<crate::backend::CpuBackend>),
    Cuda(execute::CudaProgram),
}

/// The most worker threads `--threads` may ask for: far above any machine's cores, far below what would exhaust
/// the process's thread or memory limits.
pub const MAX_THREADS: usize = 4096;

/// Runs `f` with a crash from here on reported as a probable bad index (see `crate::crash`).
fn run_guarded<T>(f: impl FnOnce() -> T) -> T {
    crate::crash::arm();
    f()
}

/// A bad index found by a bounds-checked kernel, shown as a diagnostic at its source line (as compile errors
/// are); any other error unchanged.
pub(crate) fn out_of_bounds(
    e: anyhow::Error,
    module: &irgc_front::ir::Module,
    sources: &irgc_front::SourceMap,
    color: bool,
) -> anyhow::Error {
    let Some(run_error) = e.downcast_ref::<irgc_runtime::RunError>() else { return e };
    let Some(text) = irgc_driver::compile::render_out_of_bounds(run_error, module, sources, color) else { return e };
    eprint!("{text}");
    match run_error {
        irgc_runtime::RunError::OutOfBounds { kernel, .. } => {
            anyhow!("kernel `{kernel}` indexed out of bounds (--check-bounds)")
        }
        _ => e,
    }
}

/// The two forms of --stats-out.
#[derive(Clone, Copy)]
enum StatsFormat {
    Csv,
    Json,
}

/// The --stats-out format its extension names; anything else is refused before the run.
fn stats_format(path: &std::path::Path) -> Result<StatsFormat> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => Ok(StatsFormat::Csv),
        Some("json") => Ok(StatsFormat::Json),
        _ => bail!("--stats-out {}: name a .csv or a .json file", path.display()),
    }
}

fn write_stats(path: &std::path::Path, format: StatsFormat, stats: &Stats) -> Result<()> {
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
    );
    let written = match format {
        StatsFormat::Csv => stats.write_csv(&mut file).map_err(anyhow::Error::from),
        StatsFormat::Json => serde_json::to_writer_pretty(&mut file, stats).map_err(anyhow::Error::from),
    };
    written
        .and_then(|()| std::io::Write::flush(&mut file).map_err(anyhow::Error::from))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Parses `--out-format`.
fn parse_out_format(s: &str) -> Result<irgc_runtime::OutputFormat, String> {
    irgc_runtime::OutputFormat::named(s).ok_or_else(|| {
        let names: Vec<&str> = irgc_runtime::OutputFormat::ALL.iter().map(|(_, n)| *n).collect();
        format!("unknown output format `{s}`: expected one of {}", names.join(", "))
    })
}

/// This machine's cores, for messages.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn run(args: &RunArgs, color: bool) -> Result<ExitCode> {
    crate::watchdog::arm(args.timeout, "run");
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    if let Some(t) = args.threads.filter(|&t| t > MAX_THREADS) {
        bail!("--threads {t} is more than irgc allows ({MAX_THREADS}); this machine has {} core(s)", cores());
    }
    let stats_format = args.stats_out.as_deref().map(stats_format).transpose()?;
    if let Some(path) = &args.plot {
        crate::plot::check_svg(path)?;
    }
    let mut inputs = crate::clobber::graph_files(&args.graph);
    inputs.push(args.program.clone());
    let outputs: Vec<(&str, &std::path::Path)> =
        [("--out", &args.out), ("--stats-out", &args.stats_out), ("--plot", &args.plot)]
            .into_iter()
            .filter_map(|(flag, p)| p.as_deref().map(|p| (flag, p)))
            .collect();
    crate::clobber::check(&outputs, &inputs)?;
    let out = match &args.out {
        Some(path) => Some(irgc_runtime::OutputTarget::new(path, args.out_format).map_err(|e| anyhow!("--out: {e}"))?),
        None => None,
    };
    match args.backend {
        Backend::Cpu if args.arch.is_some() => bail!("--arch applies to --backend cuda only"),
        Backend::Cuda if args.threads.is_some() => bail!("--threads applies to --backend cpu only"),
        _ => {}
    }
    let cuda = args.backend == Backend::Cuda;
    args.multi.check(cuda)?;
    if args.multi.may_use_nccl(cuda) {
        crate::nccl_env::ensure_loadable()?;
    }
    let rank = args.multi.rank_spec(cuda)?.map(|(spec, note)| {
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        spec
    });
    let gpu = match args.backend {
        Backend::Cuda => Some(execute::open_gpus(&args.multi.gpu_ordinals())?),
        Backend::Cpu => None,
    };
    let given = args.params.iter().map(|p| irgc_runtime::split_param(p)).collect::<Result<Vec<_>, _>>()?;

    let Some(compilation) = crate::check::front(&args.program, color) else {
        return Ok(ExitCode::FAILURE);
    };
    let Some(module) = &compilation.module else {
        return Ok(ExitCode::FAILURE);
    };
    let module = &crate::optimize::optimize(module, &compilation.sources, &args.opt, args.outlining.no_outline)?;
    let artifact = crate::backend::lower(module);
    // Checked unless asked not to on the CPU (its kernels share the process: an unchecked bad index can corrupt
    // it); on the GPU when asked or verifying (checks there also give up outlining).
    let checking = !args.no_check_bounds && (args.check_bounds || args.verify || gpu.is_none());
    let kernels = match gpu {
        None if checking => Kernels::Cpu(Box::new(crate::backend::compile_cpu_checked(module)?)),
        None => Kernels::Cpu(Box::new(crate::backend::compile_cpu(module)?)),
        Some(gpu) => {
            let program = execute::prepare_cuda(gpu, module, &artifact, args.arch.as_deref(), checking)?
                .one_after_another(args.multi.one_after_another)
                .merging_by(args.multi.comm())?;
            Kernels::Cuda(program)
        }
    };

    let mut graph = graph_input::load(&args.graph, &args.input)?;
    // A program that declares `graph G(undirected)` or a default weight gets a graph that fits (and is told).
    let adjusted = match irgc_runtime::fit_graph(&artifact, &graph.csr, &graph.name, args.backend != Backend::Cuda) {
        Some(fitted) => {
            if let Some(csr) = fitted.csr {
                graph.csr = csr;
            }
            fitted.notes
        }
        None => Vec::new(),
    };
    if let Some(w) = irgc_runtime::overflow_warning(&artifact, &graph.csr) {
        eprintln!("warning: {w}");
    }
    let params = irgc_runtime::resolve_params(&artifact, &graph.csr, &given)?;
    let recording = args.stats || args.stats_out.is_some() || args.plot.is_some();
    let options = RunOptions {
        threads: args.threads,
        max_launches: args.max_launches,
        // Per-launch records (and, on the GPU, a wait for every launch to time it) only when they are shown:
        // `--json` without `--stats` reports the same compute time as the plain summary.
        collect_stats: recording,
        // A checked run reports per launch: an outlined pipe would run its rounds without the host looking. With
        // statistics an outlined pipe's kernel records each round itself (size, mode, the GPU clock's time).
        outline: !(args.outlining.no_outline || checking),
        outline_loops: args.outlining.loops(),
        memory_limit: None,
        partition: args.multi.partition(),
    };
    let (csr, name) = (&graph.csr, graph.name.as_str());
    let first = irgc_runtime::progress::launches_so_far();
    let what = format!("running {} on {}", artifact.name, graph.name);
    let spinner = crate::spinner::Spinner::start(Box::new(move || {
        format!("{what}: {} launches", irgc_runtime::progress::launches_so_far() - first)
    }));
    let devices = args.multi.cpu_devices();
    let req =
        irgc_runtime::DeviceRequest { artifact: &artifact, graph: csr, graph_name: name, params: &params, options };
    let finished = match (kernels, &rank) {
        (Kernels::Cpu(k), None) => {
            run_guarded(|| execute::on_cpu(&k, &artifact, csr, name, &params, req.options, devices))
        }
        (Kernels::Cpu(k), Some(spec)) => run_guarded(|| irgc_driver::ranks::on_cpu_rank(&k, req, spec)),
        (Kernels::Cuda(program), None) => execute::on_cuda(program, &artifact, csr, name, &params, req.options),
        (Kernels::Cuda(program), Some(spec)) => irgc_driver::ranks::on_cuda_rank(program, req, spec),
    };
    drop(spinner);
    let exec = finished.map_err(|e| out_of_bounds(e, module, &compilation.sources, color))?;
    // A rank other than 0 ends here: rank 0 holds the answer, writes it and checks it.
    if let Some(report) = exec.rank.as_ref().filter(|r| r.rank.rank != 0) {
        let text = if args.json {
            serde_json::to_string_pretty(&rank_json(report, &exec)).context("cannot encode the summary")? + "\n"
        } else {
            format!("program   {} ({})\n{}", artifact.name, args.program.display(), rank_text(report, &exec))
        };
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    irgc_runtime::output::check_node_values(&exec.outputs, &graph.csr)?;
    if let Some(w) = irgc_runtime::output::nan_warning(&exec.outputs, &graph.csr) {
        eprintln!("warning: {w}");
    }
    if let Some(target) = &out {
        let name = target.path.as_ref().map_or("standard output".to_string(), |p| p.display().to_string());
        target.write(&graph.csr, &exec.outputs).with_context(|| format!("cannot write the outputs to {name}"))?;
    }
    if let (Some(path), Some(format)) = (&args.stats_out, stats_format) {
        write_stats(path, format, &exec.stats)?;
    }
    if let Some(path) = &args.plot {
        let title = format!("{} on {}", artifact.name, graph.name);
        crate::plot::rounds::draw(&crate::plot::rounds::Series::of(&exec.stats), &title, path)?;
    }
    let verdict = if args.verify {
        match irgc_runtime::verify(&artifact, &graph.csr, &params, &exec.outputs) {
            Ok(reports) => Verdict::Passed(reports),
            Err(e @ irgc_runtime::RunError::Verification { .. }) => Verdict::Failed(e.to_string()),
            Err(e) => return Err(e.into()),
        }
    } else {
        Verdict::NotAsked
    };

    // Node params as the file names them, so a default of `0` on a file whose ids start at 1 is not silent.
    let node_params: Vec<String> = artifact
        .params
        .iter()
        .zip(&params)
        .filter(|(p, _)| p.ty == irgc_artifact::Scalar::Node)
        .map(|(p, &v)| {
            let by = if given.iter().any(|(n, _)| n == &p.name) { "" } else { ", the default" };
            format!("{} = {} (node #{v}{by})", p.name, graph.csr.labels.label(v as u32))
        })
        .collect();
    let summary = Summary {
        args,
        program: &artifact.name,
        graph: &graph,
        adjusted: &adjusted,
        node_params: &node_params,
        exec: &exec,
        verdict: &verdict,
    };
    let report = if args.json {
        serde_json::to_string_pretty(&summary.json()).context("cannot encode the summary")? + "\n"
    } else {
        let table = if args.stats { stats_table(&exec.stats) } else { String::new() };
        table + &summary.text()
    };
    // With `--out -` the outputs own standard output (a pipe into another tool); the summary steps aside.
    if out.as_ref().is_some_and(|t| t.is_stdout()) {
        eprint!("{report}");
    } else {
        print!("{report}");
    }
    match verdict {
        Verdict::Failed(msg) if !args.json => Err(anyhow!(msg)),
        Verdict::Failed(_) => Ok(ExitCode::FAILURE),
        _ => Ok(ExitCode::SUCCESS),
    }
}

struct Summary<'a> {
    args: &'a RunArgs,
    program: &'a str,
    graph: &'a LoadedGraph,
    /// What was changed to fit the graph to the program (`irgc_runtime::fit_graph`).
    adjusted: &'a [String],
    /// `source = 1 (node #0, the default)`: each node param as the file's id.
    node_params: &'a [String],
    exec: &'a Finished,
    verdict: &'a Verdict,
}

fn cache_word(g: &LoadedGraph) -> &'static str {
    match g.cache {
        Some(irgc_graph::CacheOutcome::Hit) => "cache hit",
        Some(irgc_graph::CacheOutcome::Built) => "cache written",
        Some(irgc_graph::CacheOutcome::Rebuilt) => "cache rebuilt",
        None if g.name.starts_with("gen:") => "generated",
        None => "no cache",
    }
}

impl Summary<'_> {
    fn text(&self) -> String {
        let (g, e) = (self.graph, self.exec);
        let mut s = String::new();
        s += &format!("program   {} ({})\n", self.program, self.args.program.display());
        s += &format!(
            "graph     {}: {} nodes, {} edges, loaded in {:.3} s ({})\n",
            g.name,
            g.csr.num_nodes(),
            g.csr.num_edges(),
            g.load_time.as_secs_f64(),
            cache_word(g)
        );
        for note in self.adjusted {
            s += &format!("graph     {note}\n");
        }
        for p in self.node_params {
            s += &format!("param     {p}\n");
        }
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        s += &match &e.target {
            Target::Cpu { threads } => format!(
                "compute   {:.3} ms on {threads} thread(s) (setup {:.3} ms)\n",
                ms(e.compute_time),
                ms(e.setup_time)
            ),
            Target::Cuda { device, arch, upload, upload_bytes, readback } => format!(
                "compute   {:.3} ms on {device} ({arch}) (setup {:.3} ms, of which graph upload {:.3} ms for {:.1} \
                 MiB; readback {:.3} ms)\n",
                ms(e.compute_time),
                ms(e.setup_time),
                ms(*upload),
                *upload_bytes as f64 / (1u64 << 20) as f64,
                ms(*readback)
            ),
        };
        if self.args.stats {
            let parts: Vec<String> =
                e.setup_parts.named().iter().map(|(name, d)| format!("{name} {:.3}", ms(*d))).collect();
            s += &format!("setup     {:.3} ms: {} (ms)\n", ms(e.setup_time), parts.join(", "));
        }
        s += &format!("launches  {}\n", e.launches);
        if let Some(r) = &e.rank {
            s += &rank_text(r, e);
        }
        if let Some(d) = &e.devices {
            let each: Vec<String> = d
                .runs
                .iter()
                .enumerate()
                .map(|(i, r)| format!("#{i} {} edges {:.3} ms", r.edges, ms(r.compute_time)))
                .collect();
            let how = match (&e.target, d.at_once) {
                (Target::Cpu { .. }, _) => "CPU devices, one after another",
                (Target::Cuda { .. }, true) => "GPU devices, at once",
                (Target::Cuda { .. }, false) => "GPU devices, one after another (compute: the slowest part + merges)",
            };
            s += &format!("devices   {} {how}: {}\n", d.runs.len(), each.join(", "));
            s += &format!(
                "merge     {} round(s), {:.3} ms, {} launch(es), arrays moved by {}\n",
                d.merge_rounds,
                ms(d.merge_time),
                d.merge_launches,
                d.moved_by
            );
        }
        for o in &e.stats.outlined {
            s += &match o.worklist.as_str() {
                "" => format!("outlined  loop: {} rounds in one GPU kernel\n", o.rounds),
                w => format!(
                    "outlined  pipe over `{w}`: {} rounds in one GPU kernel (from {} items)\n",
                    o.rounds, o.size
                ),
            };
        }
        for c in &e.stats.loop_choices {
            s += &loop_line(c);
        }
        for u in &e.stats.unroll_choices {
            s += &unroll_line(u);
        }
        for c in &e.stats.contractions {
            s += &format!(
                "contract  {} nodes, {} edges -> {} nodes, {} edges in {:.3} ms (labels {:.1}, quotient {:.1} on the \
                 {}, upload {:.1}, reset {:.1})\n",
                c.nodes,
                c.edges,
                c.groups,
                c.new_edges,
                c.seconds * 1e3,
                c.phases.labels * 1e3,
                c.phases.quotient * 1e3,
                if c.phases.on_device { "device" } else { "host" },
                c.phases.upload * 1e3,
                c.phases.reset * 1e3,
            );
        }
        s += &printed_lines(&e.stats.printed);
        s += &format!("digest    {:016x}\n", irgc_runtime::digest(&e.outputs));
        if let Some(path) = &self.args.out {
            s += &format!("output    {}\n", path.display());
        }
        match self.verdict {
            Verdict::NotAsked => {}
            Verdict::Passed(reports) => {
                for r in reports {
                    s += &format!("verify    {}: ok against {}: {}\n", r.output, r.reference, r.summary);
                }
            }
            Verdict::Failed(_) => s += "verify    FAILED (see the error below)\n",
        }
        s
    }

    fn json(&self) -> serde_json::Value {
        let (g, e) = (self.graph, self.exec);
        let verification = match self.verdict {
            Verdict::NotAsked => serde_json::Value::Null,
            Verdict::Passed(reports) => json!({ "ok": true, "checks": reports }),
            Verdict::Failed(msg) => json!({ "ok": false, "error": msg }),
        };
        let outputs: Vec<_> =
            e.outputs.iter().map(|o| json!({ "name": o.name, "type": o.elem.name(), "shape": o.shape })).collect();
        let threads = match &e.target {
            Target::Cpu { threads } => Some(*threads),
            Target::Cuda { .. } => None,
        };
        let mut v = json!({
            "program": self.program,
            "source": self.args.program.display().to_string(),
            "graph": {
                "name": g.name,
                "nodes": g.csr.num_nodes(),
                "edges": g.csr.num_edges(),
                "load_seconds": g.load_time.as_secs_f64(),
                "cache": cache_word(g),
                "adjusted": self.adjusted,
            },
            "backend": match e.target { Target::Cpu { .. } => "cpu", Target::Cuda { .. } => "cuda" },
            "threads": threads,
            "setup_seconds": e.setup_time.as_secs_f64(),
            "setup_parts_seconds": e.setup_parts.named().iter().map(|(name, d)| (name.to_string(), json!(d.as_secs_f64()))).collect::<serde_json::Map<_, _>>(),
            "compute_seconds": e.compute_time.as_secs_f64(),
            "launches": e.launches,
            "devices": e.devices.as_ref().map(|d| json!({
                "parts": d.runs.iter().map(|r| json!({
                    "edges": r.edges,
                    "setup_seconds": r.setup_time.as_secs_f64(),
                    "compute_seconds": r.compute_time.as_secs_f64(),
                    "launches": r.launches,
                })).collect::<Vec<_>>(),
                "merge_rounds": d.merge_rounds,
                "merge_seconds": d.merge_time.as_secs_f64(),
                "merge_launches": d.merge_launches,
                "at_once": d.at_once,
                "moved_by": d.moved_by,
            })),
            "rank": e.rank.as_ref().map(|r| rank_json(r, e)),
            "printed": e.stats.printed,
            "unroll_choices": e.stats.unroll_choices,
            "digest": format!("{:016x}", irgc_runtime::digest(&e.outputs)),
            "outputs": outputs,
            "out_file": self.args.out.as_ref().map(|p| p.display().to_string()),
            "verification": verification,
        });
        // The values themselves, unless --out holds them: encoded as a `.json` output file is.
        if self.args.out.is_none() {
            let mut buf = Vec::new();
            if irgc_runtime::output::json::write_json(&mut buf, &g.csr, &e.outputs).is_ok() {
                v["values"] = serde_json::from_slice(&buf).unwrap_or(serde_json::Value::Null);
            }
        }
        if let Target::Cuda { device, arch, upload, upload_bytes, readback } = &e.target {
            v["device"] = json!(device);
            v["arch"] = json!(arch);
            v["upload_seconds"] = json!(upload.as_secs_f64());
            v["upload_bytes"] = json!(upload_bytes);
            v["readback_seconds"] = json!(readback.as_secs_f64());
        }
        if self.args.stats {
            v["stats"] = serde_json::to_value(&e.stats).unwrap_or(serde_json::Value::Null);
        }
        v
    }
}

/// The summary lines of one rank of a multi-process run.
fn rank_text(r: &execute::RankReport, e: &Finished) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mut s = format!(
        "rank      {} of {} over {}: part of {} edges, plan {:.3} ms (setup {:.3} ms); joined in {:.3} ms, waited \
         {:.3} ms at the barrier for the others' set-up\n",
        r.rank.rank,
        r.rank.ranks,
        r.link,
        r.part.edges,
        ms(r.part.compute_time),
        ms(r.part.setup_time),
        ms(r.join_time),
        ms(r.barrier_time)
    );
    let sent = r.sent_to.map_or(String::new(), |to| format!(", then sent its array to rank {to}"));
    s += &format!(
        "merge     received {} of {} round(s) in {:.3} ms (waiting for partners included), {} launch(es){sent}\n",
        r.merges_received,
        r.rank.rounds(),
        ms(r.merge_time),
        r.merge_launches
    );
    if r.rank.rank != 0 {
        s += &format!("compute   {:.3} ms from the barrier to its last merge step\n", ms(e.compute_time));
    }
    s
}

/// One rank's part of the `--json` summary (on a rank other than 0, the whole of it).
fn rank_json(r: &execute::RankReport, e: &Finished) -> serde_json::Value {
    json!({
        "rank": r.rank.rank,
        "ranks": r.rank.ranks,
        "link": r.link,
        "join_seconds": r.join_time.as_secs_f64(),
        "barrier_seconds": r.barrier_time.as_secs_f64(),
        "part": {
            "edges": r.part.edges,
            "setup_seconds": r.part.setup_time.as_secs_f64(),
            "compute_seconds": r.part.compute_time.as_secs_f64(),
            "launches": r.part.launches,
        },
        "merge_rounds": r.rank.rounds(),
        "merges_received": r.merges_received,
        "merge_seconds": r.merge_time.as_secs_f64(),
        "merge_launches": r.merge_launches,
        "sent_to": r.sent_to,
        "compute_seconds": e.compute_time.as_secs_f64(),
    })
}

/// The plan's `print`s for the summary: every one when there are few, else the first and last ten (a print in a
/// pipe of 2,000 rounds should not bury the summary; --json and --stats-out keep them all).
fn printed_lines(printed: &[irgc_runtime::Printed]) -> String {
    const SHOWN: usize = 10;
    let line = |p: &irgc_runtime::Printed| {
        let round = if p.round > 0 { format!("  (round {})", p.round) } else { String::new() };
        format!("print     {} = {}{round}\n", p.label, p.text)
    };
    if printed.len() <= 2 * SHOWN + 1 {
        return printed.iter().map(line).collect();
    }
    let mut s: String = printed[..SHOWN].iter().map(line).collect();
    s += &format!("print     ... {} more (all of them in --json)\n", printed.len() - 2 * SHOWN);
    s + &printed[printed.len() - SHOWN..].iter().map(line).collect::<String>()
}

/// The `--stats` table: one line per launch, then the pipe rounds in brief.
fn stats_table(stats: &Stats) -> String {
    let mut s = format!(
        "{:>6}  {:<24} {:>12}  {:<24} {:<6} {:>14} {:>10}\n",
        "round", "kernel", "items", "pushed", "mode", "reduced", "ms"
    );
    // Launch rows and the rows of rounds run inside an outlined pipe's or loop's kernel, sorted by pipe round,
    // then by place: launches and loops' kernel rounds in run order, a pipe's kernel rounds after the launches of
    // their round.
    let mut rows: Vec<((u64, u64), String)> = Vec::new();
    let row = |key: (u64, u64), kernel: &str, items: &str, pushed: &str, mode: &str, reduced: &str, ms: f64| {
        let round = key.0;
        (key, format!("{round:>6}  {kernel:<24} {items:>12}  {pushed:<24} {mode:<6} {reduced:>14} {ms:>10.3}\n"))
    };
    let number = |r: Option<f64>| r.map_or("-".to_string(), |r| r.to_string());
    for (i, step) in stats.in_run_order().enumerate() {
        let l = match step {
            RunStep::Launch(l) => l,
            RunStep::LoopRound(r) => {
                rows.push(row((r.round, i as u64), "(in kernel) loop", "-", "-", "-", &number(r.reduced), r.ms));
                continue;
            }
        };
        let kernel = if l.retry > 0 { format!("{} (retry {})", l.kernel, l.retry) } else { l.kernel.clone() };
        let pushed: Vec<String> = l.pushed.iter().map(|p| format!("{}:{}", p.worklist, p.items)).collect();
        let pushed = if pushed.is_empty() { "-".to_string() } else { pushed.join(" ") };
        let mode = l.mode.map_or("-", |m| m.name());
        let key = (l.round, i as u64);
        rows.push(row(key, &kernel, &l.items.to_string(), &pushed, mode, &number(l.reduced), l.seconds * 1e3));
    }
    for r in &stats.pipe_rounds {
        if let Some(ms) = r.ms {
            let mode = match r.dense {
                Some(true) => "dense",
                Some(false) => "sparse",
                None => "-",
            };
            let (key, kernel) = ((r.round, u64::MAX), format!("(in kernel) {}", r.worklist));
            rows.push(row(key, &kernel, &r.size.to_string(), "-", mode, "-", ms));
        }
    }
    rows.sort_by_key(|(key, _)| *key);
    s += &rows.into_iter().map(|(_, row)| row).collect::<String>();
    if !stats.pipe_rounds.is_empty() {
        let max = stats.pipe_rounds.iter().map(|r| r.size).max().unwrap_or(0);
        s += &format!("pipe rounds: {}, largest worklist {} items\n", stats.pipe_rounds.len(), max);
    }
    if !stats.loop_rounds.is_empty() {
        let ms: f64 = stats.loop_rounds.iter().map(|r| r.ms).sum();
        s += &format!(
            "loop rounds in a GPU kernel: {}, {ms:.3} ms by the GPU's clock (grid barriers included)\n",
            stats.loop_rounds.len()
        );
    }
    if stats.dropped > 0 {
        s += &format!("({} records not kept)\n", stats.dropped);
    }
    s
}

/// The summary's line for an outlined loop's trial in its kernel (`irgc_runtime::loop_gate`).
fn loop_line(c: &irgc_runtime::LoopChoice) -> String {
    let rest = if c.kept_kernel { "the rest ran in the kernel" } else { "the rest ran from the host" };
    format!(
        "loop      trial of {} rounds in one GPU kernel: {:.1} µs a round there, {:.1} µs from the host; {rest}\n",
        c.trial_rounds, c.kernel_us, c.host_us
    )
}

/// The summary's line for a kernel whose unrolled and rolled forms the GPU timed (`irgc_artifact::rolled_entry`).
fn unroll_line(u: &irgc_runtime::UnrollChoice) -> String {
    let kept = if u.kept_unrolled { "unrolled" } else { "rolled" };
    format!(
        "unroll    kernel `{}`: keeps its {kept} form ({:.3} ms unrolled, {:.3} ms rolled, one launch each)\n",
        u.kernel, u.unrolled_ms, u.rolled_ms
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_loop_line_gives_both_times_and_where_the_rest_ran() {
        let c = irgc_runtime::LoopChoice { host_us: 26.04, kernel_us: 8.0, trial_rounds: 20, kept_kernel: true };
        assert_eq!(
            super::loop_line(&c),
            "loop      trial of 20 rounds in one GPU kernel: 8.0 µs a round there, 26.0 µs from the host; the rest \
             ran in the kernel\n"
        );
        let c = irgc_runtime::LoopChoice { kept_kernel: false, ..c };
        assert!(super::loop_line(&c).ends_with("the rest ran from the host\n"));
    }

    #[test]
    fn the_stats_table_puts_a_loops_kernel_rounds_between_its_launches() {
        use irgc_runtime::{LaunchRecord, LoopRound, Stats};
        let launch = |kernel: &str, reduced: f64| LaunchRecord {
            round: 0,
            kernel: kernel.into(),
            items: 100,
            pushed: vec![],
            retry: 0,
            mode: None,
            reduced: Some(reduced),
            seconds: 1e-3,
        };
        // Two host rounds of `relax`, two rounds in the kernel, one more from the host.
        let in_kernel = |iteration: u64, reduced: Option<f64>| LoopRound {
            round: 0,
            iteration,
            after_launches: 2,
            reduced,
            ms: 0.25,
        };
        let stats = Stats {
            launches: vec![launch("relax", 9.0), launch("relax", 5.0), launch("relax", 0.0)],
            loop_rounds: vec![in_kernel(3, Some(2.0)), in_kernel(4, None)],
            ..Stats::default()
        };
        let table = super::stats_table(&stats);
        let lines: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
        let kernels: Vec<String> = lines.iter().take(5).map(|l| l[1..l.len() - 5].join(" ")).collect();
        assert_eq!(kernels, ["relax", "relax", "(in kernel) loop", "(in kernel) loop", "relax"]);
        let reduced: Vec<&str> = lines.iter().take(5).map(|l| l[l.len() - 2]).collect();
        assert_eq!(reduced, ["9", "5", "2", "-", "0"]);
        assert!(
            table.ends_with("loop rounds in a GPU kernel: 2, 0.500 ms by the GPU's clock (grid barriers included)\n")
        );
    }

    #[test]
    fn the_unroll_line_names_the_kernel_the_kept_form_and_both_times() {
        let u = irgc_runtime::UnrollChoice {
            kernel: "pull".into(),
            unrolled_ms: 1.27,
            rolled_ms: 1.03,
            kept_unrolled: false,
        };
        assert_eq!(
            super::unroll_line(&u),
            "unroll    kernel `pull`: keeps its rolled form (1.270 ms unrolled, 1.030 ms rolled, one launch each)\n"
        );
    }
}
