//! What irgc's tests share: where the repository's programs and test files are, compiling them the way `irgc`
//! does (the front end, then every optimizer pass, with the validator after each), `ptxas`, and normalising
//! generated code for snapshots.
//!
//! One job per helper, in one place: the backends' tests, the stage harness (`tests/harness`) and the file checks
//! all use these (the runtime's tests use hand-built artifacts instead, in `runtime/exec/tests/common`, so the
//! runtime is tested without the compiler).

// The notes (a skipped ptxas) are for whoever reads the test output.
#![allow(clippy::print_stderr)]

use irgc_front::ir::Module;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.irg` file under `dir` (recursively), sorted; empty if `dir` does not exist.
pub fn irg_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "irg") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// `a/b/c.irg` under the root → `a__b__c` (a snapshot-friendly name).
pub fn snap_name(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path).with_extension("");
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.join("__")
}

/// The path relative to the root, with `/` (what diagnostics and snapshots show: never an absolute path).
pub fn display_name(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

/// A shipped program, compiled: `snap` is `DIR__NAME`, `name` its path under the repository.
pub struct Program {
    pub snap: String,
    pub name: String,
    pub module: Module,
}

/// Every program under `programs/`, sorted by path, compiled as `irgc` compiles it.
pub fn programs() -> Vec<Program> {
    let dir = root().join("programs");
    let paths = irg_files(&dir);
    assert!(!paths.is_empty(), "no .irg programs found under {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&dir).expect("under programs/").to_path_buf();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let name = format!("programs/{}", display_name(&rel));
            let snap = snap_name(&root().join(rel));
            Program { module: module_named(&name, &text), snap, name }
        })
        .collect()
}

/// The module of `src` after the front end and every optimizer pass (the validator runs after each); panics
/// with the rendered diagnostics if the front end refuses it.
pub fn module_named(name: &str, src: &str) -> Module {
    let mut m = front_module(name, src);
    optimize(&mut m, name);
    m
}

/// [`module_named`] for a snippet.
pub fn module(src: &str) -> Module {
    module_named("test.irg", src)
}

/// The module as the front end made it, before the optimizer.
pub fn front_module(name: &str, src: &str) -> Module {
    let c = irgc_front::compile_source(name, src);
    match c.module {
        Some(m) => m,
        None => panic!("{name}: front end errors:\n{}", c.sources.render(&c.diagnostics, false)),
    }
}

/// Runs every optimizer pass over `m`, validating after each.
pub fn optimize(m: &mut Module, name: &str) {
    let options = irgc_opt::Options { validate: true, ..irgc_opt::Options::default() };
    irgc_opt::run(m, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// The program at `path` (relative to the root), compiled as `irgc` compiles it.
pub fn program_module(path: &str) -> Module {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    module_named(path, &text)
}

/// A program of the backends' shared conformance set, `tests/conformance/NAME.irg` (see its README).
pub fn conformance(name: &str) -> String {
    let path = root().join(format!("tests/conformance/{name}.irg"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What `ptxas` said of `ptx` for `arch`, or `None` when no `ptxas` is configured.
///
/// `IRGC_PTXAS` names a `ptxas` binary; without it the check is skipped (with a note), unless
/// `IRGC_REQUIRE_PTXAS=1`, which makes a missing `ptxas` a failure (for CI machines that must have one).
pub fn ptxas(label: &str, ptx: &str, arch: &str) -> Option<Result<(), String>> {
    let Some(bin) = std::env::var_os("IRGC_PTXAS").filter(|v| !v.is_empty()) else {
        let required = std::env::var("IRGC_REQUIRE_PTXAS").is_ok_and(|v| v == "1");
        assert!(!required, "IRGC_REQUIRE_PTXAS=1 but IRGC_PTXAS does not name a ptxas binary");
        eprintln!("note: IRGC_PTXAS is not set; skipping the ptxas check of {label}");
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

/// LLVM IR without the `; ModuleID` line, and without the padding LLVM puts before a block label's `; preds`
/// comment (to column 50: a tenth of the LLVM snapshots' bytes).
pub fn normalise_ir(ir: &str) -> String {
    ir.lines()
        .filter(|l| !l.starts_with("; ModuleID"))
        .map(|l| match l.find("; preds = ") {
            Some(i) => format!("{} {}", l[..i].trim_end(), &l[i..]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
