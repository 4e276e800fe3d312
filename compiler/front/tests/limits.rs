//! Limits and robustness of the front end: no crash, no silent wrong answer.
//!
//! - Nesting: every program shape that once overflowed the stack (a flat chain of 10,000 `+`, 30,000 unary
//!   operators, thousands of `else if`s, 50,000 nested blocks, and their bracket cousins) is refused with one
//!   diagnostic that points into the program; the largest program of each shape that the nesting limit accepts
//!   compiles, all the way to the printed IR, in a thread with a small (2 MiB) stack as well as with the main
//!   thread's 8 MiB.
//! - Literals: integer literals at the edges of every type, float literals that overflow their type.
//! - Error recovery: every stray statement at top level gets its own diagnostic.
//! - Modules (`stdlib/*.irg`) checked on their own with `check_module_source`.

use irgc_front::syntax::limits::{check_depth, MAX_DEPTH};
use irgc_front::{compile_source, Compilation, FileId};

/// A thread with the stack of a spawned thread (2 MiB: cargo test's, and Rust's default for `thread::spawn`).
const SMALL_STACK: usize = 2 << 20;
/// The main thread's usual stack (8 MiB on Linux).
const MAIN_STACK: usize = 8 << 20;

/// Runs `f` on a thread with `stack` bytes of stack; a stack overflow aborts the whole test binary, so reaching the
/// end is the proof that there was none.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(stack).spawn(f).expect("spawn").join().expect("no panic")
}

/// Compiles and, when it succeeds, prints the AST and the IR (both recursive walks too).
fn compile_all(src: String) -> (bool, Vec<String>, String) {
    let c = compile_source("deep.irg", &src);
    let ok = !c.has_errors();
    if ok {
        let ast = irgc_front::syntax::print::print_ast(&c.files[0].1);
        assert!(!ast.is_empty());
        let ir = irgc_front::ir::print::print_module(c.module.as_ref().expect("module without errors"));
        assert!(!ir.is_empty());
    }
    (ok, c.diagnostics.iter().map(|d| d.message.clone()).collect(), render(&c))
}

fn render(c: &Compilation) -> String {
    c.sources.render(&c.diagnostics, false)
}

/// A program with `body` as the statements of a kernel over the nodes, `x` a node array of `ty`.
fn kernel(ty: &str, body: &str) -> String {
    format!(
        "graph G;\nnode x: {ty} = 0;\noutput x;\n\nkernel k() {{\n    forall v in G.nodes {{\n        {body}\n    }}\n}}\n\nplan {{\n    k();\n}}\n"
    )
}

/// The program shapes, as a function of their size.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// `x[v] = 1 + x[v] + x[v] + ...;`
    AddChain,
    /// `let y = 1 + 1 + ...;`
    LiteralChain,
    /// `x[v] = - - - x[v];`
    Negations,
    /// `let b = !!!!true;`
    Nots,
    /// `x[v] = (1 + (1 + (... x[v])));`
    Parens,
    /// `x[v] = f(f(f(...)))` with a device function `f`.
    Calls,
    /// `if true { if true { ... } }`
    NestedIfs,
    /// `if .. { } else if .. { } else if ...`
    ElseIfs,
    /// `{ { { ... } } }` (not valid syntax: a block is not a statement)
    BareBlocks,
    /// `x[v] = x[x[x[...]]]` with a u32 array used as index
    Indexes,
    /// `const C: u32 = 1 + 1 + ...;` (folded at compile time)
    ConstChain,
}

impl Shape {
    const ALL: [Shape; 11] = [
        Shape::AddChain,
        Shape::LiteralChain,
        Shape::Negations,
        Shape::Nots,
        Shape::Parens,
        Shape::Calls,
        Shape::NestedIfs,
        Shape::ElseIfs,
        Shape::BareBlocks,
        Shape::Indexes,
        Shape::ConstChain,
    ];

    fn program(self, n: usize) -> String {
        match self {
            Shape::AddChain => kernel("u32", &format!("x[v] = 1{};", " + x[v]".repeat(n))),
            Shape::LiteralChain => kernel("u32", &format!("let y: u32 = 1{};\n        x[v] = y;", " + 1".repeat(n))),
            Shape::Negations => kernel("i32", &format!("x[v] = {}x[v];", "- ".repeat(n))),
            Shape::Nots => kernel("u32", &format!("let b = {}true;\n        if b {{ x[v] = 1; }}", "!".repeat(n))),
            Shape::Parens => kernel("u32", &format!("x[v] = {}x[v]{};", "(1 + ".repeat(n), ")".repeat(n))),
            Shape::Calls => {
                let prog = kernel("u32", &format!("x[v] = {}x[v]{};", "f(".repeat(n), ")".repeat(n)));
                format!("fn f(a: u32) -> u32 {{\n    return a + 1;\n}}\n\n{prog}")
            }
            Shape::NestedIfs => kernel("u32", &format!("{}x[v] = 1;{}", "if x[v] == 0 { ".repeat(n), " }".repeat(n))),
            Shape::ElseIfs => kernel(
                "u32",
                &format!(
                    "if x[v] == 0 {{ x[v] = 1; }}{} else {{ x[v] = 3; }}",
                    " else if x[v] == 1 { x[v] = 2; }".repeat(n)
                ),
            ),
            Shape::BareBlocks => kernel("u32", &format!("{}x[v] = 1;{}", "{ ".repeat(n), " }".repeat(n))),
            Shape::Indexes => kernel("u32", &format!("x[v] = {}v{};", "x[".repeat(n), " as node]".repeat(n))),
            Shape::ConstChain => {
                let prog = kernel("u32", "x[v] = C;");
                format!("const C: u32 = 1{};\n{prog}", " + 1".repeat(n))
            }
        }
    }

    /// Whether the program is valid when within the limit.
    fn valid(self) -> bool {
        !matches!(self, Shape::BareBlocks)
    }

    /// The largest size the nesting limit accepts (found by bisection over the pre-pass alone).
    fn largest_accepted(self) -> usize {
        let accepted = |n: usize| check_depth(FileId(0), &self.program(n)).is_none();
        assert!(accepted(1), "{self:?} of size 1 must be accepted");
        let (mut lo, mut hi) = (1, 4 * MAX_DEPTH as usize);
        assert!(!accepted(hi), "{self:?} of size {hi} must be refused");
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if accepted(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The smallest limit case that real programs must be able to reach.
    fn must_reach(self) -> usize {
        match self {
            Shape::NestedIfs | Shape::ElseIfs | Shape::BareBlocks => 100,
            Shape::Indexes | Shape::Calls => 120,
            _ => 200,
        }
    }
}

/// The huge programs of the issue: refused with one clear diagnostic, on a small stack and on the main one.
#[test]
fn huge_programs_are_refused_not_crashed() {
    let cases: [(Shape, usize); 11] = [
        (Shape::AddChain, 10_000),
        (Shape::LiteralChain, 10_000),
        (Shape::Negations, 30_000),
        (Shape::Nots, 30_000),
        (Shape::Parens, 20_000),
        (Shape::Calls, 20_000),
        (Shape::NestedIfs, 20_000),
        (Shape::ElseIfs, 5_000),
        (Shape::BareBlocks, 50_000),
        (Shape::Indexes, 20_000),
        (Shape::ConstChain, 10_000),
    ];
    for (shape, n) in cases {
        for stack in [SMALL_STACK, MAIN_STACK] {
            let src = shape.program(n);
            let (ok, messages, rendered) = on_stack(stack, move || compile_all(src));
            assert!(!ok, "{shape:?} x {n} must be refused");
            assert_eq!(messages.len(), 1, "{shape:?} x {n}: one diagnostic:\n{rendered}");
            assert!(
                messages[0].contains(&format!("(more than {MAX_DEPTH} levels)")),
                "{shape:?} x {n}: {}",
                messages[0]
            );
            assert!(rendered.contains("deep.irg:"), "{shape:?}: the diagnostic points into the file:\n{rendered}");
        }
    }
}

/// The labels name what went too far and point at it.
#[test]
fn the_diagnostic_names_the_cause_and_place() {
    let expect = [
        (Shape::AddChain, "expression too long", "+"),
        (Shape::Negations, "too many unary operators in a row", "-"),
        (Shape::Nots, "too many unary operators in a row", "!"),
        (Shape::ElseIfs, "`else if` chain too long", "else"),
        (Shape::BareBlocks, "blocks nested too deeply", "{"),
        (Shape::NestedIfs, "blocks nested too deeply", "{"),
        (Shape::Parens, "expression too long", "+"),
    ];
    for (shape, message, token) in expect {
        let src = shape.program(2_000);
        let c = compile_source("deep.irg", &src);
        assert_eq!(c.diagnostics.len(), 1, "{shape:?}:\n{}", render(&c));
        let d = &c.diagnostics[0];
        assert_eq!(d.message, format!("{message} (more than {MAX_DEPTH} levels)"), "{shape:?}");
        let at = &src[d.primary.0.range()];
        assert_eq!(at, token, "{shape:?}: the label is on the offending token");
        assert!(c.module.is_none());
    }
}

/// At the limit: the largest accepted program of each shape compiles (or, for the invalid shape, gets only syntax
/// errors) in a 2 MiB thread, printing included; one size more is refused.
#[test]
fn the_limit_cases_compile_on_a_small_stack() {
    for shape in Shape::ALL {
        let n = shape.largest_accepted();
        assert!(n >= shape.must_reach(), "{shape:?}: only {n} accepted, real programs need {}", shape.must_reach());
        let src = shape.program(n);
        let (ok, messages, rendered) = on_stack(SMALL_STACK, move || compile_all(src));
        assert!(messages.iter().all(|m| !m.contains("levels)")), "{shape:?} x {n}:\n{rendered}");
        assert!(messages.iter().all(|m| !m.contains("internal compiler error")), "{shape:?} x {n}:\n{rendered}");
        if shape.valid() {
            assert!(ok, "{shape:?} x {n} compiles:\n{rendered}");
        } else {
            assert!(!ok && !messages.is_empty(), "{shape:?} x {n} is a syntax error");
        }
        let src = shape.program(n + 1);
        let (ok, messages, rendered) = on_stack(SMALL_STACK, move || compile_all(src));
        assert!(!ok && messages.len() == 1 && messages[0].contains("levels)"), "{shape:?} x {}:\n{rendered}", n + 1);
    }
}

/// Long but flat programs are not limited: many statements, many items, long argument lists.
#[test]
fn long_flat_programs_compile_on_a_small_stack() {
    let stmts = "x[v] = x[v] + 1;\n        ".repeat(5_000);
    let consts: String = (0..2_000).map(|i| format!("const C{i}: u32 = {i} + 1;\n")).collect();
    let lets: String = (0..3_000).map(|i| format!("let y{i} = x[v] * 2 + {i};\n        ")).collect();
    let elses = "if x[v] == 0 { x[v] = 1; } else { x[v] = 2; }\n        ".repeat(2_000);
    for src in [
        kernel("u32", &stmts),
        format!("{consts}{}", kernel("u32", "x[v] = C1999;")),
        kernel("u32", &lets),
        kernel("u32", &elses),
    ] {
        let (ok, _, rendered) = on_stack(SMALL_STACK, move || compile_all(src));
        assert!(ok, "{rendered}");
    }
}

/// Deeply nested brackets in types and unbalanced brackets are bounded too (the parser reports the syntax errors).
#[test]
fn broken_deep_programs_are_refused() {
    let cases = [
        format!("fn f(a: {}u32{}) {{ }}\nplan {{ }}\n", "[".repeat(10_000), "]".repeat(10_000)),
        format!("plan {{ let y = {}1;\n}}\n", "(".repeat(50_000)),
        format!("plan {{ {}", "{".repeat(50_000)),
        format!("plan {{ {} }}", "( }".repeat(20_000)),
        "}".repeat(50_000),
        format!("const C: u32 = x{};\n", ".a".repeat(50_000)),
        format!("const C: u32 = x{};\n", " as u32".repeat(50_000)),
        format!("plan {{ {}; }}\n", "f().".repeat(50_000)),
        ")".repeat(50_000),
    ];
    for src in cases {
        let (ok, messages, rendered) = on_stack(SMALL_STACK, move || compile_all(src));
        assert!(!ok && !messages.is_empty(), "{rendered}");
    }
}

/// Real programs are far from the limit: every shipped program, UI case and standard module nests less than a
/// quarter of it.
#[test]
fn shipped_programs_are_far_from_the_limit() {
    use irgc_front::syntax::limits::check_depth_with;
    let root = irgc_test_support::root();
    let mut files = Vec::new();
    for dir in ["programs", "tests/ui", "tests/conformance", "stdlib"] {
        files.extend(irgc_test_support::irg_files(&root.join(dir)));
    }
    assert!(files.len() > 20, "found only {} .irg files", files.len());
    let mut deepest = (0, String::new());
    for p in files {
        let text = std::fs::read_to_string(&p).expect("readable");
        let bound = (0..=MAX_DEPTH).find(|&l| check_depth_with(FileId(0), &text, l).is_none());
        let bound = bound.unwrap_or_else(|| panic!("{} is refused", p.display()));
        if bound > deepest.0 {
            deepest = (bound, irgc_test_support::display_name(&p));
        }
    }
    assert!(deepest.0 <= MAX_DEPTH / 4, "{deepest:?} is near the limit");
}

/// Compiles `ty`-typed literal `lit` in a kernel, a plan `let`, a `const` and a `param` default; returns the error
/// messages (empty when all four compile).
fn literal_errors(ty: &str, lit: &str) -> Vec<String> {
    let src = format!(
        "graph G;\nnode x: {ty} = 0;\nconst C: {ty} = {lit};\nparam p: {ty} = {lit};\noutput x;\n\nkernel k() {{\n    forall v in G.nodes {{\n        let y: {ty} = {lit};\n        x[v] = y;\n    }}\n}}\n\nplan {{\n    let z: {ty} = {lit};\n    k();\n}}\n"
    );
    let c = compile_source("lit.irg", &src);
    assert_eq!(c.has_errors(), c.module.is_none());
    c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

#[track_caller]
fn accepted(ty: &str, lit: &str) {
    let errors = literal_errors(ty, lit);
    assert!(errors.is_empty(), "`{lit}` as {ty} must be accepted: {errors:?}");
}

/// Refused in all four places, each time with a message containing `what`.
#[track_caller]
fn refused(ty: &str, lit: &str, what: &str) {
    let errors = literal_errors(ty, lit);
    assert_eq!(errors.len(), 4, "`{lit}` as {ty} must be refused in all four places: {errors:?}");
    for e in &errors {
        assert!(e.contains(what), "`{lit}` as {ty}: `{e}` does not say `{what}`");
    }
}

#[test]
fn integer_literals_are_range_checked_at_the_edges() {
    accepted("u32", "4294967295");
    accepted("u32", "0xffff_ffff");
    accepted("u32", "4294967295u32");
    refused("u32", "4294967296", "does not fit in u32");
    refused("u32", "0x1_0000_0000", "does not fit in u32");
    refused("u32", "-1", "cannot negate a value of");
    accepted("i32", "2147483647");
    accepted("i32", "-2147483648");
    accepted("i32", "-2147483648i32");
    refused("i32", "2147483648", "does not fit in i32");
    refused("i32", "-2147483649", "does not fit in i32");
    accepted("u64", "18446744073709551615");
    accepted("u64", "0xffffffffffffffffu64");
    refused("u64", "18446744073709551616", "does not fit in 64 bits");
    accepted("i64", "9223372036854775807");
    accepted("i64", "-9223372036854775808");
    refused("i64", "9223372036854775808", "does not fit in i64");
    refused("i64", "-9223372036854775809", "does not fit in i64");
    accepted("node", "4294967295");
    refused("node", "4294967296", "does not fit in node");
    accepted("edge", "18446744073709551615");
}

#[test]
fn float_literals_that_overflow_their_type_are_refused() {
    accepted("f32", "3.4028235e38");
    accepted("f32", "-3.4028235e38");
    accepted("f32", "3.4028235e38f32");
    accepted("f32", "1e-50"); // rounds to zero, like in any IEEE language
    refused(
        "f32",
        "3.4028236e38",
        "float literal `3.4028236e38` is too large for f32 (the largest f32 is 3.4028235e38)",
    );
    refused("f32", "1e39", "too large for f32");
    refused("f32", "-1e39", "too large for f32");
    refused("f32", "1e400", "too large for f32");
    refused("f32", "1e39f32", "too large for f32");
    accepted("f64", "1e39");
    accepted("f64", "1.7976931348623157e308");
    accepted("f64", "-1.7976931348623157e308");
    refused(
        "f64",
        "1.8e308",
        "float literal `1.8e308` is too large for f64 (the largest f64 is 1.7976931348623157e308)",
    );
    refused("f64", "1e400", "too large for f64");
    refused("f64", "1_000e400f64", "too large for f64");
    // `inf` is still how infinity is written.
    accepted("f32", "inf");
    accepted("f64", "inf");
    accepted("f32", "-inf");
    accepted("f64", "-inf");
    accepted("i32", "-inf");
}

/// `-inf` in a constant is minus infinity, as at run time.
#[test]
fn minus_inf_constants_fold() {
    let src = format!("const A: f32 = -inf;\nconst B: i32 = -inf;\n{}", kernel("f32", "x[v] = A;"));
    let c = compile_source("inf.irg", &src);
    assert!(!c.has_errors(), "{}", render(&c));
    let ir = irgc_front::ir::print::print_module(c.module.as_ref().expect("compiles"));
    assert!(ir.contains("-inff32"), "{ir}");
}

/// The check also covers literals whose type comes from a cast or an operation, and reports each one where it is.
#[test]
fn float_overflow_is_reported_at_the_literal() {
    let src =
        kernel("f32", "x[v] = x[v] + 1e39;\n        let d = 1e39 as f32;\n        let e = 2e308;\n        x[v] = d;");
    let c = compile_source("lit.irg", &src);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 3, "{}", render(&c));
    for (d, lit) in errors.iter().zip(["1e39", "1e39", "2e308"]) {
        assert_eq!(&src[d.primary.0.range()], lit, "{}", render(&c));
    }
    assert!(errors[2].message.contains("too large for f64"), "{}", render(&c));
}

/// The limits refuse nothing that is meant to compile: every shipped program, `tests/ui/ok` case and conformance
/// program still compiles.
#[test]
fn shipped_programs_still_compile() {
    let root = irgc_test_support::root();
    let mut files = Vec::new();
    for dir in ["programs", "tests/ui/ok", "tests/conformance"] {
        files.extend(irgc_test_support::irg_files(&root.join(dir)));
    }
    for p in files {
        let text = std::fs::read_to_string(&p).expect("readable");
        let name = irgc_test_support::display_name(&p);
        let c = compile_source(&name, &text);
        assert!(!c.has_errors(), "{name}:\n{}", render(&c));
    }
}

// ---- Error recovery: every stray statement at top level is reported ----

/// `(line, message)` of every diagnostic.
fn lines(c: &Compilation) -> Vec<(usize, String)> {
    c.diagnostics
        .iter()
        .map(|d| (c.sources.line_col(d.primary.0.file, d.primary.0.start).0, d.message.clone()))
        .collect()
}

#[test]
fn two_stray_lets_in_a_row_get_two_diagnostics() {
    let src = "graph G;\nnode x: u32 = 0;\nlet a = 1;\nlet b = 2;\noutput x;\nplan {\n}\n";
    let c = compile_source("stray.irg", src);
    assert_eq!(
        lines(&c),
        vec![(3, "unexpected `let`".to_string()), (4, "unexpected `let`".to_string())],
        "{}",
        render(&c)
    );
    for d in &c.diagnostics {
        assert_eq!(d.primary.1, "expected an item (`graph`, `param`, `node`, `kernel`, `fn`, `plan`, ...)");
        assert!(d.notes.iter().any(|n| n.contains("statements belong in the body")), "{}", render(&c));
    }
}

#[test]
fn every_kind_of_stray_statement_is_reported_once() {
    let src = "\
graph G;
let a = 1;
var n: node = 4;
x = 3;
k();
if a { x = 1; } else if b { } else { }
while true { b = 1; }
repeat { b = 2; } until b;
for i in 0..3 { }
forall v in G.nodes { x[v] = 1; }
return;
(1 + 2);
-a;
node x: u32 = 0;
kernel k() {
    forall v in G.nodes {
        x[v] = true;
    }
}
let late = 1
plan {
    k();
}
";
    let c = compile_source("stray.irg", src);
    let expected: Vec<(usize, String)> = [
        (2, "unexpected `let`"),
        (3, "unexpected `var`"),
        (4, "unexpected identifier `x`"),
        (5, "unexpected identifier `k`"),
        (6, "unexpected `if`"),
        (7, "unexpected `while`"),
        (8, "unexpected `repeat`"),
        (9, "unexpected `for`"),
        (10, "unexpected `forall`"),
        (11, "unexpected `return`"),
        (12, "unexpected `(`"),
        (13, "unexpected `-`"),
        (20, "unexpected `let`"),
    ]
    .into_iter()
    .map(|(l, m)| (l, m.to_string()))
    .collect();
    // The real items between and after them are parsed and checked: the kernel's type error is reported (and the
    // plan found: no "no plan" error).
    let got = lines(&c);
    assert_eq!(&got[..expected.len()], &expected[..], "{}", render(&c));
    assert_eq!(got.len(), expected.len() + 1, "{}", render(&c));
    let (line, message) = &got[expected.len()];
    assert!(*line == 17 && message.contains("mismatched types"), "{}", render(&c));
    assert!(c.module.is_none());
}

#[test]
fn a_misspelt_item_keyword_is_one_error() {
    let src =
        "graph G;\nnode x: u32 = 0;\nkernal k() {\n    forall v in G.nodes {\n        x[v] = 1;\n    }\n}\nplan {\n}\n";
    let c = compile_source("typo.irg", src);
    assert_eq!(lines(&c), vec![(3, "unexpected identifier `kernal`".to_string())], "{}", render(&c));
}

/// Syntax errors elsewhere still recover as before, and what follows a stray statement is still checked.
#[test]
fn stray_statements_do_not_hide_later_errors() {
    let src = "graph G;\nlet a = 1;\nnode x: u32 = ;\nlet b = 2;\nplan {\n    let c = ;\n}\n";
    let c = compile_source("stray.irg", src);
    let got = lines(&c);
    assert_eq!(got.iter().map(|(l, _)| *l).collect::<Vec<_>>(), vec![2, 3, 4, 6], "{}", render(&c));
}

// ---- Modules checked on their own ----

#[test]
fn standard_modules_check_as_modules() {
    let root = irgc_test_support::root();
    let files = irgc_test_support::irg_files(&root.join("stdlib"));
    assert!(!files.is_empty());
    for p in files {
        let text = std::fs::read_to_string(&p).expect("readable");
        let name = irgc_test_support::display_name(&p);
        assert!(irgc_front::looks_like_module(&text), "{name}");
        let c = irgc_front::check_module_source(&name, &text);
        assert!(c.diagnostics.is_empty(), "{name}:\n{}", render(&c));
        let m = c.module.as_ref().expect("a module");
        assert!(!m.functions.is_empty() && m.kernels.is_empty() && m.graph.is_none(), "{name}");
        // As a program, the same file is refused (it has no plan).
        assert!(compile_source(&name, &text).has_errors(), "{name}");
    }
    for (name, text) in irgc_front::driver::STDLIB {
        let c = irgc_front::check_module_source(&format!("std/{name}.irg"), text);
        assert!(c.diagnostics.is_empty(), "std.{name}:\n{}", render(&c));
    }
}

#[test]
fn programs_do_not_look_like_modules() {
    for p in irgc_test_support::irg_files(&irgc_test_support::root().join("programs")) {
        let text = std::fs::read_to_string(&p).expect("readable");
        assert!(!irgc_front::looks_like_module(&text), "{}", p.display());
    }
    assert!(!irgc_front::looks_like_module(""));
    assert!(!irgc_front::looks_like_module("fn f() { let x = ; }"));
}

#[test]
fn module_errors_are_reported() {
    let src = "import std.random;\n\nconst K: u32 = 4294967296;\n\nfn f(x: u32) -> u64 {\n    return node_priority(7u64, x);\n}\n\nfn g(seed: u64) -> f64 {\n    return uniform(seed, 1u64) + 1e400;\n}\n\nkernel k() {\n}\n\nnode level: u32 = 0;\n";
    let c = irgc_front::check_module_source("stdlib/mine.irg", src);
    let got = lines(&c);
    assert!(c.module.is_none());
    let has = |line: usize, what: &str| got.iter().any(|(l, m)| *l == line && m.contains(what));
    assert!(has(3, "does not fit in u32"), "{}", render(&c));
    assert!(has(6, "mismatched types"), "{}", render(&c));
    assert!(has(10, "too large for f64"), "{}", render(&c));
    assert!(has(13, "may only define functions and constants"), "{}", render(&c));
    assert!(has(16, "may only define functions and constants"), "{}", render(&c));
    assert!(!got.iter().any(|(_, m)| m.contains("plan")), "no plan is required:\n{}", render(&c));
    assert!(c.diagnostics.iter().all(|d| d.primary.0.file == FileId(0)), "{}", render(&c));
}

#[test]
fn a_module_that_imports_another_checks() {
    let src = "import std.random;\nimport std.unionfind;\n\nfn pick(seed: u64, v: node) -> u64 {\n    return node_priority(seed, v) + 1u64;\n}\n";
    let c = irgc_front::check_module_source("stdlib/pick.irg", src);
    assert!(!c.has_errors(), "{}", render(&c));
    assert!(irgc_front::looks_like_module(src));
    assert_eq!(c.files.len(), 3, "the module and its two imports");
}
