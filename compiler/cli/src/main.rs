//! `irgc`: check, compile and run graph programs written in the `.irg` language.
//!
//! The only crate that prints: libraries return data (diagnostics, reports, errors) and this one renders them.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod arch;
use irgc_driver::backend;
use std::io::Write;
mod bench;
mod check;
mod clobber;
mod compile;
mod crash;
mod devices;
mod gen;
mod graph_input;
mod info;
mod nccl_env;
mod optimize;
mod outlining;
mod plot;
mod run;
mod spinner;
mod watchdog;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const ABOUT: &str = "irgc compiles graph algorithms written in the .irg language (kernels that sweep nodes, edges or \
worklists, driven by a host plan) to GPU or CPU code, and runs them on real graphs.";

const EXAMPLES: &str = "\
Examples:
  irgc check programs/bfs/bfs_worklist.irg           Parse and type-check a program
  irgc check programs/**/*.irg                       Check many programs at once
  irgc compile programs/cc/rem.irg --emit ir         Print the typed IR
  irgc compile programs/cc/rem.irg --emit ast -o rem.ast

Learn the language: docs/language.md. Programs that ship with irgc: programs/.";

/// The environment knobs of the GPU runtime that `run` and `bench` read: each overrides a rule the runtime
/// applies by itself, for measuring that rule (docs/optimizer.md says where each was measured).
macro_rules! gpu_environment {
    () => {
        "GPU environment knobs (measurement aids; unset, the runtime decides):
  IRGC_SKEWED=0|1           class the graph as even or skewed for the nested-loop schedules
                            (`irgc info` shows the class the rule picks: even, wide or skewed)
  IRGC_PIPE_HEAVY_US=N      keep an outlined pipe on the host after a round over N µs
                            (default 300; 0: enter whatever the rounds cost)
  IRGC_SOLO_ITEMS=N         most items of a pipe round its first block runs alone (0: never)
  IRGC_PIPE_CLUSTER=N       outlined pipes in clusters of N (1-16) blocks (sm_90 and later)
  IRGC_PIPE_BLOCKS=N        at most N blocks in a persistent grid (for racecheck)
  IRGC_ENTER_PIPES_AT_ONCE  set: pipes enter their kernel at the first round (tests only)"
    };
}

#[derive(Parser)]
#[command(name = "irgc", version, about = ABOUT, after_help = EXAMPLES)]
struct Cli {
    /// When to colour diagnostics.
    #[arg(long, value_enum, default_value = "auto", global = true)]
    color: check::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check programs, reporting every error in each file.
    #[command(after_help = "Exit status: 0 when every file is clean, 1 when any has errors, 2 on a usage error.")]
    Check(check::CheckArgs),
    /// Compile a program and print or write one stage of the result.
    #[command(
        after_help = "Stages: `ast` (the syntax tree, as parsed), `ir` (the typed, validated IR), `ir-opt` (the \
IR after the optimizer's passes), `llvm`, `ptx`, `artifact`.\n\
Example: irgc compile programs/bfs/bfs_worklist.irg --emit ir-opt --disable-pass outline"
    )]
    Compile(compile::CompileArgs),
    /// Run a program on a graph: compile it, load the graph (a file or gen:SPEC), execute on the CPU or GPU, report.
    #[command(after_help = concat!(
        "Exit status: 0 on success, 1 on any error or a failed --verify.\n\
Example: irgc run programs/bfs/bfs_worklist.irg --graph road.mtx --param source=1 --verify --stats\n\n",
        gpu_environment!()
    ))]
    Run(run::RunArgs),
    /// Generate a graph from a spec (rmat, kron, er, rgg, delaunay, grid) and write it in any supported format.
    #[command(after_help = gen::after_help())]
    Gen(gen::GenArgs),
    /// Describe a graph: nodes, edges, direction, loops, duplicates, weights, degrees, components, diameter.
    #[command(after_help = "Loads the graph as `run` does (same options, same cache).\n\
Example: irgc info road.gr.xz --json")]
    Info(info::InfoArgs),
    /// Time programs on graphs (median of N runs, MTEPS, GB/s), verified, optionally beside hand-written Rust.
    #[command(
        after_help = concat!(
            "Exit status: 0 when every row verified (or has no check), 1 on a wrong answer or error.\n\
Example: irgc bench programs/cc/rem.irg programs/cc/shiloach_vishkin.irg --graph gen:kron:scale=20 --baseline\n\n",
            gpu_environment!()
        )
    )]
    Bench(bench::BenchArgs),
    /// Draw a run's rounds (time and worklist size per round, hybrid mode shaded) from its statistics.
    #[command(
        after_help = "Example:\n  irgc run programs/bfs/bfs_do.irg --graph road.gr --symmetrize --stats-out bfs.json\n  \
irgc plot bfs.json -o bfs-rounds.svg\n(or in one step: irgc run ... --plot bfs-rounds.svg)"
    )]
    Plot(plot::PlotArgs),
    /// List the optimizer's passes, in the order they run, with what each does.
    #[command(after_help = "Every pass can be switched off with --disable-pass NAME on compile, run and bench.")]
    Passes,
}

/// Exit status for output cut off by a closed pipe (`irgc run ... | head -1`): 128 + SIGPIPE, as a shell reports a
/// command killed by it.
pub(crate) const BROKEN_PIPE_EXIT: i32 = 141;

/// Output into a closed pipe ends the process quietly: `print!` panics on a write error, and a reader that has
/// gone (`| head`) is no error of the program's, so that one panic exits with [`BROKEN_PIPE_EXIT`] and no
/// message. Every other panic keeps the default report.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") && (msg.contains("failed printing to stdout") || msg.contains("stderr")) {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        // Any other failed write to standard output (a full disk, /dev/full): say so, without a panic report.
        if msg.contains("failed printing to stdout") {
            eprintln!("error: cannot write to standard output: {msg}");
            std::process::exit(1);
        }
        // A failed write to standard error cannot be reported anywhere: exit 1 without the (unwritable) report.
        if msg.contains("failed printing to stderr") {
            std::process::exit(1);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to standard output (exit 0), usage errors to standard error (exit 2); a failed
            // write of either is an error, not a success.
            let code = if e.use_stderr() { 2 } else { 0 };
            return match e.print() {
                Ok(()) => ExitCode::from(code),
                Err(err) => {
                    let _ = writeln!(std::io::stderr(), "error: cannot write to standard output: {err}");
                    ExitCode::from(1)
                }
            };
        }
    };
    let color = cli.color.enabled();
    let result = match cli.command {
        Command::Check(args) => check::run(&args, color),
        Command::Compile(args) => compile::run(&args, color),
        Command::Run(args) => run::run(&args, color),
        Command::Gen(args) => gen::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Bench(args) => bench::run(&args, color),
        Command::Plot(args) => plot::run(&args),
        Command::Passes => Ok(optimize::list()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
