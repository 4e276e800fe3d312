//! UI tests: small programs under `tests/ui/` (at the repository root). The stage harness (`tests/harness`)
//! snapshots them: every stage of `tests/ui/ok/*.irg` (which must compile), and the rendered diagnostics of
//! `tests/ui/err/*.irg` (which must be refused). These tests check what a snapshot cannot: that no error case
//! reaches the validator, that independent errors are all reported, that spans are in bounds, and that imported
//! modules may hold only functions and constants.

use irgc_front::{compile_source, Compilation};
use std::path::{Path, PathBuf};

fn ui_dir(kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui").join(kind)
}

/// The `.irg` files of `tests/ui/KIND`, sorted; panics if there are none.
fn cases(kind: &str) -> Vec<(String, String)> {
    let dir = ui_dir(kind);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "irg"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .irg files found in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).expect("UTF-8 file name").to_string();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (stem, text)
        })
        .collect()
}

/// Compiles one case; a panic in the front end fails the test with the case's name instead of a bare backtrace.
fn compile(kind: &str, stem: &str, text: &str) -> Compilation {
    let name = format!("ui/{kind}/{stem}.irg");
    match std::panic::catch_unwind(|| compile_source(&name, text)) {
        Ok(c) => c,
        Err(e) => {
            let msg = e.downcast_ref::<String>().map(String::as_str).or(e.downcast_ref::<&str>().copied());
            panic!("the front end panicked on {name}: {}", msg.unwrap_or("(no message)"))
        }
    }
}

/// `file:line:col: message` for every diagnostic's primary location.
fn locations(c: &Compilation) -> Vec<(usize, usize, String)> {
    c.diagnostics
        .iter()
        .map(|d| {
            let (line, col) = c.sources.line_col(d.primary.0.file, d.primary.0.start);
            (line, col, format!("{}:{line}:{col}: {}", c.sources.name(d.primary.0.file), d.message))
        })
        .collect()
}

/// No error case may reach the IR validator: an "internal compiler error" means sema let a bad program through.
#[test]
fn err_programs_are_caught_before_the_validator() {
    let mut ice = Vec::new();
    for (stem, text) in cases("err") {
        let c = compile("err", &stem, &text);
        if c.diagnostics.iter().any(|d| d.message.contains("internal compiler error")) {
            ice.push(stem);
        }
    }
    assert!(ice.is_empty(), "internal compiler errors for: {ice:?}");
}

#[test]
fn three_independent_errors_are_all_reported() {
    let text = std::fs::read_to_string(ui_dir("err").join("three_independent_errors.irg")).expect("test file");
    let c = compile("err", "three_independent_errors", &text);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    let locs = locations(&c);
    let rendered: Vec<&str> = locs.iter().map(|(_, _, s)| s.as_str()).collect();
    assert_eq!(errors.len(), 3, "expected exactly 3 errors, got:\n{}", rendered.join("\n"));
    let mut lines: Vec<usize> = locs.iter().map(|(l, _, _)| *l).collect();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), 3, "the 3 errors must be on distinct lines:\n{}", rendered.join("\n"));
    assert_eq!(lines, vec![8, 15, 22], "unexpected error lines:\n{}", rendered.join("\n"));
}

/// Every diagnostic span of every UI case lies inside its file, on character boundaries.
#[test]
fn diagnostic_spans_are_in_bounds() {
    for kind in ["ok", "err"] {
        for (stem, text) in cases(kind) {
            let c = compile(kind, &stem, &text);
            for d in &c.diagnostics {
                for (span, _) in std::iter::once(&d.primary).chain(&d.secondary) {
                    let src = c.sources.source(span.file);
                    assert!(
                        span.start <= span.end && (span.end as usize) <= src.len(),
                        "ui/{kind}/{stem}.irg: span {span:?} out of bounds for `{}`",
                        d.message
                    );
                    assert!(
                        src.is_char_boundary(span.start as usize) && src.is_char_boundary(span.end as usize),
                        "ui/{kind}/{stem}.irg: span {span:?} splits a character"
                    );
                }
            }
        }
    }
}

/// An imported module may hold only functions and constants. Imports resolve to the embedded standard library
/// only, so this is exercised through `sema::lower` with a hand-made module file.
#[test]
fn module_with_kernel_is_rejected() {
    use irgc_front::sema::{lower, ParsedFile};
    let main = "graph G;\nnode level: u32 = 0;\n\nplan {\n    helper();\n}\n";
    let module = "fn twice(x: u32) -> u32 {\n    return 2 * x;\n}\n\nkernel helper() {\n    forall v in G.nodes {\n    }\n}\n\nnode extra: u32 = 0;\n";
    let mut sources = irgc_front::SourceMap::new();
    let main_id = sources.add("ui/module_with_kernel.irg", main);
    let module_id = sources.add("std/fake.irg", module);
    let (main_ast, d1) = irgc_front::syntax::parse(main_id, main);
    let (module_ast, d2) = irgc_front::syntax::parse(module_id, module);
    assert!(d1.is_empty() && d2.is_empty(), "both files parse");
    let files = [
        ParsedFile { file: main_id, ast: &main_ast, text: main, is_main: true },
        ParsedFile { file: module_id, ast: &module_ast, text: module, is_main: false },
    ];
    let (ir, diags) = lower("module_with_kernel", &files);
    assert!(ir.is_none());
    let in_module: Vec<_> = diags.iter().filter(|d| d.primary.0.file == module_id).collect();
    let rendered = sources.render(&diags, false);
    assert_eq!(in_module.len(), 2, "the kernel and the node array are both rejected:\n{rendered}");
    for d in &in_module {
        assert_eq!(d.message, "an imported module may only define functions and constants", "{rendered}");
    }
    assert!(rendered.contains("std/fake.irg:5:1") && rendered.contains("std/fake.irg:10:1"), "{rendered}");
}
