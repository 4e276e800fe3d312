//! The functions irgc's fuzzers call with arbitrary bytes, one per input surface a user controls: a program's
//! text, a graph file in each format, a `gen:` spec, a `--param` value, a `--weights` or `--columns` spec.
//!
//! The property is the same for all: the function returns (an error is a fine answer), it never panics, aborts or
//! hangs. `fuzz/` (cargo fuzz, libFuzzer) runs them for minutes with coverage guidance; `tests/smoke.rs` runs them
//! on random and hand-picked inputs in every `cargo test`, so a regression shows up in CI without a fuzzer.

use std::io::Write;
use std::path::PathBuf;

use irgc_artifact::{ParamDesc, Scalar};
use irgc_graph::{BuildOptions, EdgeList, Format, LoadOptions, WeightSpec};

/// The front end (lex, parse, check, lower to IR, validate), then the optimizer with the validator after every
/// pass, then the artifact lowering: everything `irgc check` and `irgc compile --emit artifact` do.
pub fn front(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let c = irgc_front::compile_source("fuzz.irg", text);
    let _ = c.sources.render(&c.diagnostics, false);
    if let Some(mut m) = c.module {
        let options = irgc_opt::Options { validate: true, ..irgc_opt::Options::default() };
        // A pass that leaves a checked program's IR invalid is a compiler bug, as much as a panic is.
        if let Err(e) = irgc_opt::run(&mut m, &options) {
            panic!("{e}");
        }
        let _ = irgc_backend_host::lower(&m);
    }
}

/// A graph file: the first byte picks the format (its name's extension and `--format`), the rest is the file,
/// loaded as given and symmetrized. Graph files are read from disk, so each input is written to a file first.
pub fn graph_file(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else { return };
    let format = Format::ALL[pick as usize % Format::ALL.len()];
    let symmetrize = pick as usize / Format::ALL.len() % 2 == 1;
    let path = scratch(format);
    if std::fs::File::create(&path).and_then(|mut f| f.write_all(body)).is_err() {
        return;
    }
    let opts = LoadOptions {
        format: Some(format),
        build: BuildOptions { symmetrize, drop_self_loops: symmetrize, dedupe: symmetrize },
        weights: WeightSpec::default(),
        columns: None,
    };
    if let Ok(g) = irgc_graph::load_graph(&path, &opts, &mut |_, _| {}) {
        assert!(g.check_invariants().is_ok(), "a loader built an invalid CSR: {:?}", g.check_invariants());
    }
}

/// A `gen:` spec: parsed, and generated when its estimated size is small.
pub fn gen_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(spec) = irgc_gen::GenSpec::parse(text) {
        if spec.estimated_bytes() < 4 << 20 {
            if let Ok(g) = irgc_gen::generate(&spec) {
                assert!(g.check_invariants().is_ok(), "{text}: {:?}", g.check_invariants());
            }
        }
    }
}

/// `--param NAME=VALUE`: split, then the value parsed as each scalar type (nodes against a small graph with ids
/// written from 1).
pub fn param(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok((_, value)) = irgc_runtime::split_param(text) else { return };
    let mut el = EdgeList::new(3);
    el.src.extend([0, 1]);
    el.dst.extend([1, 2]);
    el.labels = irgc_graph::NodeLabels::Offset(1);
    let graph = el.into_csr(BuildOptions::default());
    for ty in Scalar::ALL {
        let desc = ParamDesc { name: "p".into(), ty, default: None };
        let _ = irgc_runtime::parse_param(&desc, &graph, &value);
    }
}

/// `--weights SPEC` and `--columns SPEC`.
pub fn specs(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = text.parse::<WeightSpec>();
    let _ = text.parse::<irgc_graph::load::Columns>();
}

/// A file for `format` private to this process (fuzzers run one input at a time per process).
fn scratch(format: Format) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irgc-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ext = match format {
        Format::MatrixMarket => "mtx",
        Format::Dimacs => "gr",
        Format::Pace => "pace",
        Format::Metis => "graph",
        Format::EdgeList => "txt",
        Format::Csv => "csv",
        Format::WebGraphAscii => "graph-txt",
        Format::Ldbc => "e",
        Format::GaloisBinary => "gr",
    };
    dir.join(format!("input.{ext}"))
}
