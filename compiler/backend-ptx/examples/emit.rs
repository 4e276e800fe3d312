//! Prints the PTX (or, with `--ir`, the unoptimised LLVM IR) of an `.irg` program:
//! `cargo run -p irgc-backend-ptx --example emit -- FILE.irg [--ir] [--arch sm_90]`.

// A command-line tool: its diagnostics go to stderr.
#![allow(clippy::print_stderr)]

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--") && !a.starts_with("sm_")) else {
        eprintln!("usage: emit FILE.irg [--ir] [--arch sm_XX]");
        std::process::exit(2);
    };
    let arch = args.iter().position(|a| a == "--arch").and_then(|i| args.get(i + 1)).cloned();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let c = irgc_front::compile_source(path, &text);
    let Some(m) = c.module else {
        eprintln!("{}", c.sources.render(&c.diagnostics, false));
        std::process::exit(1);
    };
    let opts = irgc_backend_ptx::Options { arch: arch.unwrap_or_else(|| "sm_80".into()), check_bounds: false };
    let out = irgc_backend_ptx::compile(&m, &opts).unwrap_or_else(|e| panic!("{e}"));
    let text = if args.iter().any(|a| a == "--ir") { out.llvm_ir } else { out.ptx };
    std::io::stdout().write_all(text.as_bytes()).expect("stdout");
}
