//! The embedded standard library parses cleanly, and programs compile to the same IR every time. (Every shipped
//! program's stages, from the AST on, are snapshotted by the stage harness, `tests/harness`.)

use irgc_front::driver::STDLIB;
use irgc_front::span::FileId;
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

/// `(snapshot name, display name, text)` for every program, sorted by path.
fn programs() -> Vec<(String, String, String)> {
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
            (parts.join("__"), format!("programs/{}.irg", parts.join("/")), text)
        })
        .collect()
}

#[test]
fn stdlib_modules_parse_cleanly() {
    assert!(!STDLIB.is_empty(), "the driver embeds no standard modules");
    for (name, text) in STDLIB {
        let (ast, diags) = irgc_front::syntax::parse(FileId(0), text);
        assert!(diags.is_empty(), "std.{name} has syntax errors: {diags:#?}");
        assert!(!ast.items.is_empty(), "std.{name} is empty");
    }
}

/// Programs compile to the same IR every time (no hash-order or address-dependent output).
#[test]
fn compilation_is_deterministic() {
    for (_, name, text) in programs() {
        let a = irgc_front::compile_source(&name, &text);
        let b = irgc_front::compile_source(&name, &text);
        let print = |c: &irgc_front::Compilation| c.module.as_ref().map(irgc_front::ir::print::print_module);
        assert_eq!(print(&a), print(&b), "{name}: IR differs between two compilations");
    }
}
