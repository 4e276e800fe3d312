//! Shared by the tests: the shipped programs, the front end, and `ptxas` (when the environment provides one).

#![allow(dead_code)]

use irgc_front::ir::Module;
use std::path::{Path, PathBuf};

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../programs")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|x| x == "irg") {
            out.push(path);
        }
    }
}

/// A shipped program: `snap` is `DIR__NAME`, `name` its path under the repository.
pub struct Program {
    pub snap: String,
    pub name: String,
    pub module: Module,
}

/// Every program under `programs/`, sorted by path, compiled by the front end.
pub fn programs() -> Vec<Program> {
    let root = programs_dir();
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    assert!(!paths.is_empty(), "no .irg programs found under {}", root.display());
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under programs/").with_extension("");
            let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let name = format!("programs/{}.irg", parts.join("/"));
            let module = module_named(&name, &text);
            Program { snap: parts.join("__"), name, module }
        })
        .collect()
}

pub fn module_named(name: &str, src: &str) -> Module {
    let c = irgc_front::compile_source(name, src);
    match c.module {
        Some(mut m) => {
            // What the backends get in `irgc`: the module after every optimizer pass (outlined pipes included).
            let options = irgc_opt::Options { validate: true, ..irgc_opt::Options::default() };
            irgc_opt::run(&mut m, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            m
        }
        None => panic!("{name}: front end errors:\n{}", c.sources.render(&c.diagnostics, false)),
    }
}

pub fn module(src: &str) -> Module {
    module_named("test.irg", src)
}

pub fn options(arch: &str) -> irgc_backend_ptx::Options {
    irgc_backend_ptx::Options { arch: arch.into() }
}

/// What `ptxas` said, or `None` when no `ptxas` is configured.
///
/// `IRGC_PTXAS` names a `ptxas` binary; without it the check is skipped (with a note), unless
/// `IRGC_REQUIRE_PTXAS=1`, which makes a missing `ptxas` a failure (for CI machines that must have one).
pub fn ptxas(label: &str, ptx: &str, arch: &str) -> Option<Result<(), String>> {
    let Some(bin) = std::env::var_os("IRGC_PTXAS").filter(|v| !v.is_empty()) else {
        let required = std::env::var("IRGC_REQUIRE_PTXAS").is_ok_and(|v| v == "1");
        assert!(!required, "IRGC_REQUIRE_PTXAS=1 but IRGC_PTXAS does not name a ptxas binary");
        return None;
    };
    // A directory per call: tests run in parallel threads.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("irgc-ptxas-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let stem: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let input = dir.join(format!("{stem}_{arch}.ptx"));
    let output = dir.join(format!("{stem}_{arch}.cubin"));
    std::fs::write(&input, ptx).expect("write ptx");
    let out = std::process::Command::new(&bin)
        .arg(format!("-arch={arch}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxas {}: {e}", Path::new(&bin).display()));
    let _ = std::fs::remove_dir_all(&dir);
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{label} ({arch}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    })
}

/// PTX without what may vary between LLVM builds: comment lines (the generator banner) and the `.version` line.
pub fn normalise_ptx(ptx: &str) -> String {
    ptx.lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.starts_with(".version"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// LLVM IR without the `; ModuleID` line.
pub fn normalise_ir(ir: &str) -> String {
    ir.lines().filter(|l| !l.starts_with("; ModuleID")).collect::<Vec<_>>().join("\n")
}

/// A program of the backends' shared conformance set, `tests/conformance/NAME.irg` (see its README).
pub fn conformance(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/conformance/{name}.irg"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
