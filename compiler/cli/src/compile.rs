//! `irgc compile`: run the compiler and write its result — by default the GPU kernels (`X.ptx`) and the artifact
//! the runtime needs beside them (`X.artifact.json`: kernel signatures, the context layout, the host plan) — or
//! print one stage (`--emit ast|ir|llvm|ptx|artifact`).

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The syntax tree exactly as parsed, with byte spans.
    Ast,
    /// The typed intermediate representation, after validation (before the optimizer).
    Ir,
    /// The IR after the optimizer's passes: what the backends compile (shows which pipes are outlined).
    IrOpt,
    /// The LLVM IR of the GPU kernels, before optimisation.
    Llvm,
    /// The PTX of the GPU kernels.
    Ptx,
    /// The runtime artifact (JSON): kernel signatures and spaces, worklist effects, the host plan.
    Artifact,
}

#[derive(Args)]
pub struct CompileArgs {
    /// The program (.irg).
    file: PathBuf,
    /// Print one stage instead of writing X.ptx and X.artifact.json.
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// Write to this file (with --emit; `-` is standard output), or name the .ptx file (the artifact goes beside
    /// it).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// GPU architecture for PTX [default: the GPU in this machine, else sm_80].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(irgc_backend_ptx::ARCHS))]
    arch: Option<String>,
    /// Emit the bounds-checked form of the kernels (what `irgc run --check-bounds` runs), for `llvm` and `ptx`.
    #[arg(long)]
    check_bounds: bool,
    /// Print how long each stage took.
    #[arg(long)]
    time: bool,
    #[command(flatten)]
    opt: crate::optimize::OptArgs,
}

pub fn run(args: &CompileArgs, color: bool) -> Result<ExitCode> {
    let start = Instant::now();
    if let Some(out) = &args.output {
        crate::clobber::check(&[("-o", out.as_path())], std::slice::from_ref(&args.file))?;
    }
    let Some(c) = crate::check::front(&args.file, color) else {
        return Ok(ExitCode::FAILURE);
    };
    if c.has_errors() {
        return Ok(ExitCode::FAILURE);
    }
    let front_ms = start.elapsed().as_secs_f64() * 1e3;
    let front = c.module.as_ref().ok_or_else(|| anyhow!("the front end produced no module"))?;
    let optimized = crate::optimize::optimize(front, &c.sources, &args.opt, false)?;
    let module = &optimized;
    let arch = args.arch.clone().unwrap_or_else(crate::arch::default_arch);
    let options = irgc_backend_ptx::Options { arch: arch.clone(), check_bounds: args.check_bounds };
    let failed = |what: &str, e| anyhow!("the PTX backend failed ({what}): {e}");
    // PTX is compiled a kernel per thread; LLVM IR is shown as one module.
    let ptx = |what: &str| irgc_backend_ptx::compile_parallel(module, &options).map_err(|e| failed(what, e));
    let llvm = || irgc_backend_ptx::compile(module, &options).map_err(|e| failed("LLVM IR", e));
    let artifact_json = || -> Result<String> {
        let artifact = crate::backend::lower(module);
        Ok(serde_json::to_string_pretty(&artifact)? + "\n")
    };
    let Some(emit) = args.emit else {
        if args.output.as_deref().is_some_and(|p| p.as_os_str() == "-") {
            bail!("-o - needs --emit: without it, compile writes two files (the PTX and the artifact beside it)");
        }
        let out = ptx("kernels")?;
        let ptx_path = args.output.clone().unwrap_or_else(|| args.file.with_extension("ptx"));
        let artifact_path = artifact_path(&ptx_path);
        crate::clobber::check(
            &[("the PTX file", ptx_path.as_path()), ("the artifact file", artifact_path.as_path())],
            std::slice::from_ref(&args.file),
        )?;
        write(&ptx_path, &out.ptx)?;
        write(&artifact_path, &artifact_json()?)?;
        let pipes = match out.pipes.len() {
            0 => String::new(),
            1 => ", 1 outlined pipe".to_string(),
            n => format!(", {n} outlined pipes"),
        };
        println!(
            "wrote {} ({} kernels{pipes}, {}) and {}",
            ptx_path.display(),
            out.kernels.len(),
            arch,
            artifact_path.display()
        );
        if args.time {
            let total = start.elapsed().as_secs_f64() * 1e3;
            println!("front end {front_ms:.2} ms, total {total:.2} ms");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let text = match emit {
        Emit::Ast => irgc_front::syntax::print::print_ast(&c.files[0].1),
        Emit::Ir => irgc_front::ir::print::print_module(front),
        Emit::IrOpt => irgc_front::ir::print::print_module(module),
        Emit::Llvm => llvm()?.llvm_ir,
        Emit::Ptx => ptx("PTX")?.ptx,
        Emit::Artifact => artifact_json()?,
    };
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => write(path, &text)?,
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|e| match e.kind() {
                // A reader that went away (`| head`) is no error of ours: end quietly, as a shell expects.
                std::io::ErrorKind::BrokenPipe => std::process::exit(crate::BROKEN_PIPE_EXIT),
                _ => anyhow!("cannot write to standard output: {e}"),
            })?;
        }
    }
    if args.time {
        eprintln!("front end {front_ms:.2} ms, total {:.2} ms", start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(ExitCode::SUCCESS)
}

/// `X.ptx` → `X.artifact.json`.
fn artifact_path(ptx: &Path) -> PathBuf {
    ptx.with_extension("artifact.json")
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
