//! `irgc gen`: generate a graph from a spec (`rmat:scale=20`, `grid:w=100,h=100`, ...) and write it to a file in any
//! supported format, so benchmark inputs can be made once and shared by name.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args;
use irgc_graph::Format;

#[derive(Args)]
pub struct GenArgs {
    /// The generator spec, e.g. `rmat:scale=16,ef=16,seed=1`, `er:n=1000,deg=8`, `grid:w=64,h=64,weights=int:1:100`.
    spec: String,
    /// The file to write (`.xz`, `.gz`, `.bz2` suffixes compress).
    #[arg(short, long)]
    output: PathBuf,
    /// The output format (default: from the file name): mtx, dimacs, pace, metis, edgelist, csv, graph-txt, ldbc,
    /// galois.
    #[arg(long, value_name = "F")]
    format: Option<Format>,
}

/// The text after `irgc gen --help`'s options: every generator with its keys and defaults, from the generators'
/// own catalog (so it lists exactly what the parser accepts).
pub fn after_help() -> String {
    format!("{}\nExample: irgc gen rmat:scale=16,ef=16,seed=1 -o rmat16.mtx", irgc_gen::catalog::help_text())
}

pub fn run(args: &GenArgs) -> Result<ExitCode> {
    let spec = args.spec.strip_prefix("gen:").unwrap_or(&args.spec);
    let format = match args.format.or_else(|| Format::from_file_name(&args.output)) {
        Some(f) => f,
        None => {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            return Err(anyhow!(
                "cannot tell the format of {} from its name; give --format ({})",
                args.output.display(),
                names.join(", ")
            ));
        }
    };
    let start = Instant::now();
    let parsed = irgc_gen::GenSpec::parse(spec).map_err(|e| anyhow!("bad generator spec `{spec}`: {e}"))?;
    crate::graph_input::fits_in_memory(spec, &parsed)?;
    let what = format!("generating {spec}");
    let spinner = crate::spinner::Spinner::start(Box::new(move || what.clone()));
    let g = irgc_gen::generate(&parsed).map_err(|e| anyhow!("cannot generate `{spec}`: {e}"))?;
    drop(spinner);
    let generated = start.elapsed();
    // The write error already names the file; anyhow's context chain would repeat its OS error.
    let what = format!("writing {}", args.output.display());
    let spinner = crate::spinner::Spinner::start(Box::new(move || what.clone()));
    irgc_graph::write_graph(&g, format, &args.output)
        .map_err(|e| anyhow!("cannot write the graph as {format}: {e}"))?;
    drop(spinner);
    println!(
        "{}: {} nodes, {} edges ({format}); generated in {:.2} s, written in {:.2} s",
        args.output.display(),
        g.num_nodes(),
        g.num_edges(),
        generated.as_secs_f64(),
        (start.elapsed() - generated).as_secs_f64()
    );
    let isolated = isolated_nodes(&g);
    if isolated > 0 && matches!(format, Format::EdgeList | Format::Csv) {
        eprintln!(
            "note: {isolated} node(s) without edges are not in {}: an edge list names only nodes that have edges, so \
             reading it back gives a graph without them; write .mtx, .gr or .graph to keep every node",
            args.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Nodes with no edge in either direction.
fn isolated_nodes(g: &irgc_graph::Csr) -> usize {
    let mut touched: Vec<bool> = g.row_start.windows(2).map(|r| r[1] > r[0]).collect();
    for &d in &g.col {
        touched[d as usize] = true;
    }
    touched.iter().filter(|&&t| !t).count()
}
