//! The embedded standard library parses cleanly, and programs compile to the same IR every time. (Every shipped
//! program's stages, from the AST on, are snapshotted by the stage harness, `tests/harness`.)

use irgc_front::driver::STDLIB;
use irgc_front::span::FileId;

/// `(display name, text)` for every shipped program, sorted by path.
fn programs() -> Vec<(String, String)> {
    let files = irgc_test_support::irg_files(&irgc_test_support::root().join("programs"));
    assert!(!files.is_empty(), "no .irg programs found");
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (irgc_test_support::display_name(&p), text)
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
    for (name, text) in programs() {
        let a = irgc_front::compile_source(&name, &text);
        let b = irgc_front::compile_source(&name, &text);
        let print = |c: &irgc_front::Compilation| c.module.as_ref().map(irgc_front::ir::print::print_module);
        assert_eq!(print(&a), print(&b), "{name}: IR differs between two compilations");
    }
}
