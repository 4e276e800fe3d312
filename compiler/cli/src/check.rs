//! `irgc check`: the front end over one or more files, diagnostics to stderr, a one-line summary per file.

use anyhow::Result;
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Clone, Copy, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }
}

#[derive(Args)]
pub struct CheckArgs {
    /// Program files (.irg), or standard-library-style module files (only `fn`, `const` and `import`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print how long each file took.
    #[arg(long)]
    time: bool,
}

/// Compiles a file and prints its diagnostics; `None` if the file could not be read (already reported).
pub fn front(path: &std::path::Path, color: bool) -> Option<irgc_front::Compilation> {
    front_with(path, color, irgc_front::compile_source)
}

/// Reads `path`, compiles its text with `compile` (given the name diagnostics use), prints the diagnostics, and
/// reports an unreadable file; `None` then.
fn front_with(
    path: &std::path::Path,
    color: bool,
    compile: impl FnOnce(&str, &str) -> irgc_front::Compilation,
) -> Option<irgc_front::Compilation> {
    match irgc_front::read_source(path) {
        Ok(text) => {
            let c = compile(&path.display().to_string(), &text);
            if !c.diagnostics.is_empty() {
                eprint!("{}", c.sources.render(&c.diagnostics, color));
            }
            Some(c)
        }
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            None
        }
    }
}

/// Checks one file: a program, or a module of the standard library's kind (only `fn`, `const` and `import`
/// items: no graph and no plan), which is checked as `import` would check it. Diagnostics go to stderr.
fn check_one(path: &std::path::Path, color: bool) -> bool {
    let c = front_with(path, color, |name, text| {
        if irgc_front::looks_like_module(text) {
            irgc_front::check_module_source(name, text)
        } else {
            irgc_front::compile_source(name, text)
        }
    });
    c.is_some_and(|c| !c.has_errors())
}

pub fn run(args: &CheckArgs, color: bool) -> Result<ExitCode> {
    let mut failed = 0;
    for path in &args.files {
        let start = Instant::now();
        let ok = check_one(path, color);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if !ok {
            failed += 1;
        }
        let status = if ok { "ok" } else { "FAILED" };
        if args.time {
            println!("{status:6} {:>8.2} ms  {}", ms, path.display());
        } else if !ok || args.files.len() > 1 {
            println!("{status:6} {}", path.display());
        }
    }
    if failed > 0 {
        eprintln!("{failed} of {} file(s) had errors", args.files.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
