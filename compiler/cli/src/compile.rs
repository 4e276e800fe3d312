//! `irgc compile`: run the front end and emit one stage (the AST or the IR) to stdout or a file.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum Emit {
    /// The syntax tree exactly as parsed, with byte spans.
    Ast,
    /// The typed intermediate representation, after validation.
    Ir,
}

#[derive(Args)]
pub struct CompileArgs {
    /// The program (.irg).
    file: PathBuf,
    /// Which stage to emit.
    #[arg(long, value_enum)]
    emit: Emit,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: &CompileArgs, color: bool) -> Result<ExitCode> {
    let Some(c) = crate::check::front(&args.file, color) else {
        return Ok(ExitCode::FAILURE);
    };
    let text = match args.emit {
        Emit::Ast => match c.files.first() {
            Some((_, ast)) if !c.has_errors() => irgc_front::syntax::print::print_ast(ast),
            _ => return Ok(ExitCode::FAILURE),
        },
        Emit::Ir => match &c.module {
            Some(m) => irgc_front::ir::print::print_module(m),
            None => return Ok(ExitCode::FAILURE),
        },
    };
    match &args.output {
        Some(path) => std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
