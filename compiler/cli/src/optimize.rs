//! The optimizer's flags (shared by `compile`, `run` and `bench`), running it between the front end and the
//! backends, and `irgc passes`.

use anyhow::{anyhow, Result};
use clap::Args;
use irgc_front::diag::SourceMap;
use irgc_front::ir::Module;
use std::process::ExitCode;

/// The pass names clap accepts (and lists in `--help`).
fn pass_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(irgc_opt::PASSES.iter().map(|p| p.name))
}

#[derive(Args, Clone, Default)]
pub struct OptArgs {
    /// Do not run this optimizer pass (repeatable; `irgc passes` lists them). `--disable-pass outline` compiles
    /// every pipe to run round by round from the host.
    #[arg(long = "disable-pass", value_name = "PASS", value_parser = pass_names())]
    disable: Vec<String>,
    /// Set a pass's parameter (repeatable; `irgc passes` lists them with their defaults and allowed values), e.g.
    /// `--pass-param interleave.factor=8`: to compare a pass's factors with one binary.
    #[arg(long = "pass-param", value_name = "PASS.NAME=N", value_parser = irgc_opt::parse_param)]
    pass_params: Vec<(String, u32)>,
    /// Print the IR after this pass, to stderr (repeatable).
    #[arg(long = "print-after", value_name = "PASS", value_parser = pass_names())]
    print_after: Vec<String>,
    /// Print how long each pass took, and what it changed, to stderr.
    #[arg(long)]
    time_passes: bool,
    /// Say for every place a pass considered what it decided and why (e.g. which inner loops `np` spreads over
    /// a warp or block, and why the others stay in their thread), to stderr.
    #[arg(long)]
    explain: bool,
}

impl OptArgs {
    /// Whether any flag but `--pass-param` was given (those that choose passes or print what they did).
    pub fn any_but_params(&self) -> bool {
        !self.disable.is_empty() || !self.print_after.is_empty() || self.time_passes || self.explain
    }

    /// The `--pass-param` settings (`PASS.NAME`, value).
    pub fn pass_params(&self) -> &[(String, u32)] {
        &self.pass_params
    }

    /// The optimizer's options; `no_outline` (the older `--no-outline`) disables the outlining pass too.
    fn options(&self, no_outline: bool) -> irgc_opt::Options {
        let mut o = irgc_opt::Options::default();
        o.disabled.extend(self.disable.iter().cloned());
        if no_outline {
            o.disabled.insert("outline".to_string());
        }
        o.print_after.extend(self.print_after.iter().cloned());
        o.params.extend(self.pass_params.iter().cloned());
        o
    }
}

/// The front end's module after every enabled pass; prints what `--print-after` and `--time-passes` asked for.
pub fn optimize(module: &Module, sources: &SourceMap, args: &OptArgs, no_outline: bool) -> Result<Module> {
    let mut m = module.clone();
    let report = irgc_opt::run(&mut m, &args.options(no_outline)).map_err(|e| anyhow!("{e}"))?;
    for p in &report.passes {
        if let Some(ir) = &p.printed {
            eprintln!("; IR after pass `{}`{}", p.name, if p.ran { "" } else { " (disabled)" });
            eprint!("{ir}");
        }
    }
    if args.explain {
        for p in &report.passes {
            for r in &p.remarks {
                let (line, col) = sources.line_col(r.span.file, r.span.start);
                eprintln!("{}:{line}:{col}: {}: {}", sources.name(r.span.file), p.name, r.message);
            }
        }
    }
    if args.time_passes {
        eprintln!("{:<12} {:>10} {:>8}", "pass", "ms", "changes");
        for p in &report.passes {
            let changes = if p.ran { p.changes.to_string() } else { "disabled".to_string() };
            eprintln!("{:<12} {:>10.3} {:>8}", p.name, p.time.as_secs_f64() * 1e3, changes);
        }
    }
    Ok(m)
}

/// `irgc passes`: every pass, in order, with its one-line summary and its parameters.
pub fn list() -> ExitCode {
    for p in irgc_opt::PASSES {
        println!("{:<12} {}", p.name, p.summary);
        for q in p.params {
            let allowed: Vec<String> = q.allowed.iter().map(u32::to_string).collect();
            let key = format!("{}.{}", p.name, q.name);
            println!(
                "{:<12}   --pass-param {key}=N: {} ({}; default {})",
                "",
                q.summary,
                allowed.join(", "),
                q.default
            );
        }
    }
    ExitCode::SUCCESS
}
