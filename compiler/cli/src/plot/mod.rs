//! Figures, drawn as SVG with plotters: a run's rounds (`irgc run --plot`, `irgc plot STATS.json`). The bench
//! table's bars (`irgc bench --plot`) live with the bench, in `bench/bars.rs`.

pub mod rounds;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use irgc_runtime::Stats;

#[derive(Args)]
pub struct PlotArgs {
    /// A run's statistics: a file written by `irgc run --stats-out FILE.json`, or the output of
    /// `irgc run --json --stats`.
    stats: PathBuf,
    /// The figure to write (SVG). Default: the statistics file's name with `.svg`.
    #[arg(short, long, value_name = "FILE.svg")]
    output: Option<PathBuf>,
    /// The figure's title (default: the statistics file's name).
    #[arg(long)]
    title: Option<String>,
}

/// `irgc plot`.
pub fn run(args: &PlotArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.stats).with_context(|| format!("cannot read {}", args.stats.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", args.stats.display()))?;
    // A `run --json --stats` summary holds the statistics under `stats`; a --stats-out file is them.
    let (stats, title) = match value.get("stats") {
        Some(inner) => {
            let program = value.get("program").and_then(|p| p.as_str()).unwrap_or("run");
            let graph = value.pointer("/graph/name").and_then(|g| g.as_str()).unwrap_or("");
            (inner.clone(), format!("{program} on {graph}"))
        }
        None => (value, args.stats.display().to_string()),
    };
    let stats: Stats = serde_json::from_value(stats).map_err(|e| {
        anyhow!(
            "{} holds no run statistics ({e}); write them with `irgc run ... --stats-out FILE.json`",
            args.stats.display()
        )
    })?;
    let out = args.output.clone().unwrap_or_else(|| args.stats.with_extension("svg"));
    check_svg(&out)?;
    crate::clobber::check(&[("-o", out.as_path())], std::slice::from_ref(&args.stats))?;
    rounds::draw(&rounds::Series::of(&stats), args.title.as_deref().unwrap_or(&title), &out)?;
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Figures are SVG: a path that names another format is refused before any work is done.
pub fn check_svg(path: &Path) -> Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(()),
        _ => bail!("{}: figures are written as SVG; name the file *.svg", path.display()),
    }
}
