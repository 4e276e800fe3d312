//! Robustness smoke tests: the front end must never panic, whatever it is given.
//!
//! Inputs: (a) arbitrary strings and token soup, (b) prefixes of every shipped program, (c) programs with one
//! character or token deleted, inserted or replaced. For every input: `compile_source` returns, a module exists
//! exactly when there are no errors, every diagnostic span lies inside its file on character boundaries, and the
//! diagnostics render. Cases per property: 256, or `IRGC_FUZZ_CASES`.

use irgc_front::syntax::lexer::lex;
use irgc_front::{compile_source, Compilation};
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Fragments to build or insert: every keyword and punctuation token, plus names, numbers and odd characters.
const TOKENS: &[&str] = &[
    "import",
    "graph",
    "param",
    "const",
    "node",
    "edge",
    "array",
    "worklist",
    "output",
    "kernel",
    "fn",
    "plan",
    "let",
    "var",
    "if",
    "else",
    "while",
    "loop",
    "repeat",
    "until",
    "for",
    "forall",
    "tile",
    "threads",
    "in",
    "break",
    "continue",
    "return",
    "reduce",
    "barrier",
    "wait",
    "shared",
    "pipe",
    "hybrid",
    "above",
    "dense",
    "sparse",
    "as",
    "true",
    "false",
    "inf",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ":",
    ".",
    "..",
    "->",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "&=",
    "|=",
    "^=",
    "<<=",
    ">>=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "~",
    "!",
    "<<",
    ">>",
    "&&",
    "||",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "G",
    "v",
    "e",
    "x",
    "G.nodes",
    "G.edges",
    "u32",
    "u64",
    "i32",
    "i64",
    "f32",
    "f64",
    "bool",
    "0",
    "1",
    "4294967296",
    "0xffu64",
    "1.5f32",
    "2e9",
    "-1",
    "std",
    "std.unionfind",
    "min",
    "max",
    "ctz",
    "select",
    "atomic_min",
    "atomic_cas",
    "/*",
    "*/",
    "//",
    "@",
    "$",
    "\"",
    "é",
    "\u{0}",
    "\n",
];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|x| x == "irg") {
            out.push(path);
        }
    }
}

/// Every shipped program and UI case: `(name, text)`.
fn corpus() -> &'static [(String, String)] {
    static CORPUS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut paths = Vec::new();
        walk(&root.join("programs"), &mut paths);
        let shipped = paths.len();
        assert!(shipped > 0, "no programs found under {}", root.join("programs").display());
        for dir in ["tests/ui/ok", "tests/ui/err"] {
            if root.join(dir).is_dir() {
                walk(&root.join(dir), &mut paths);
            }
        }
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
                let rel = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().replace('\\', "/");
                (rel, text)
            })
            .collect()
    })
}

/// The `(start, end)` byte ranges of a text's tokens (lexing errors included).
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    lex(text)
        .map(|t| match t {
            Ok((l, _, r)) => (l, r),
            Err(e) => (e.start, e.end),
        })
        .collect()
}

/// The largest character boundary at or before `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Compiles `text` and checks the invariants every compilation must keep.
fn check(name: &str, text: &str) -> Compilation {
    let c = compile_source(name, text);
    assert_eq!(
        c.module.is_some(),
        !c.has_errors(),
        "a module must exist exactly when there are no errors; diagnostics:\n{}",
        c.sources.render(&c.diagnostics, false)
    );
    for d in &c.diagnostics {
        for (span, _) in std::iter::once(&d.primary).chain(&d.secondary) {
            let src = c.sources.source(span.file);
            assert!(
                span.start <= span.end && span.end as usize <= src.len(),
                "span {span:?} of `{}` is outside its file ({} bytes)",
                d.message,
                src.len()
            );
            assert!(
                src.is_char_boundary(span.start as usize) && src.is_char_boundary(span.end as usize),
                "span {span:?} of `{}` splits a character",
                d.message
            );
            let _ = c.sources.line_col(span.file, span.start);
        }
    }
    let _ = c.sources.render(&c.diagnostics, false);
    if let Some(m) = &c.module {
        let _ = irgc_front::ir::print::print_module(m);
    }
    c
}

fn config() -> ProptestConfig {
    let cases = std::env::var("IRGC_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_strings_do_not_panic(text in any::<String>()) {
        check("fuzz.irg", &text);
    }

    #[test]
    fn token_soup_does_not_panic(text in token_soup()) {
        check("fuzz.irg", &text);
    }

    /// An item-shaped prefix followed by soup: gets the parser past the first token more often.
    #[test]
    fn soup_inside_a_kernel_does_not_panic(text in token_soup()) {
        let program = format!("graph G; node a: u32 = 0; kernel k() {{ forall v in G.nodes {{ {text} }} }} plan {{ k(); }}");
        check("fuzz.irg", &program);
    }

    #[test]
    fn prefixes_of_programs_do_not_panic(which in any::<Index>(), at in any::<Index>()) {
        let (name, text) = which.get(corpus());
        let cut = floor_boundary(text, at.index(text.len() + 1));
        check(name, &text[..cut]);
    }

    #[test]
    fn character_edits_do_not_panic(
        which in any::<Index>(),
        at in any::<Index>(),
        delete in any::<bool>(),
        ch in prop_oneof![any::<char>(), prop::sample::select(vec!['{', '}', '(', ')', ';', ',', '.', '=', '/', '*', '"', '0', 'x', '\n'])],
    ) {
        let (name, text) = which.get(corpus());
        let mut edited = text.clone();
        let pos = floor_boundary(text, at.index(text.len() + 1));
        if delete && pos < text.len() {
            edited.remove(pos);
        } else {
            edited.insert(pos, ch);
        }
        check(name, &edited);
    }

    #[test]
    fn token_edits_do_not_panic(
        which in any::<Index>(),
        at in any::<Index>(),
        other in any::<Index>(),
        op in 0..3u8,
        inserted in prop::sample::select(TOKENS),
    ) {
        let (name, text) = which.get(corpus());
        let spans = token_spans(text);
        prop_assume!(!spans.is_empty());
        let (l, r) = *at.get(&spans);
        let edited = match op {
            // Delete one token.
            0 => format!("{}{}", &text[..l], &text[r..]),
            // Insert a token before it.
            1 => format!("{} {inserted} {}", &text[..l], &text[l..]),
            // Replace it with another token of the same program (keeps the syntax plausible, stresses sema).
            _ => {
                let (ol, or) = *other.get(&spans);
                format!("{}{}{}", &text[..l], &text[ol..or], &text[r..])
            }
        };
        check(name, &edited);
    }
}

/// Every prefix at a token boundary of the smallest shipped program (exhaustive, not sampled).
#[test]
fn every_token_prefix_of_the_smallest_program() {
    let (name, text) =
        corpus().iter().filter(|(n, _)| n.starts_with("programs/")).min_by_key(|(_, t)| t.len()).expect("a program");
    for (_, end) in token_spans(text) {
        check(name, &text[..end]);
    }
}
