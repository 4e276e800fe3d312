//! CI's short smoke over the fuzzers' entry points: every file of the fuzz corpora (`fuzz/corpus/TARGET/`,
//! seeds and whatever the fuzzers kept), then random inputs shaped like each surface. None may panic.

use proptest::prelude::*;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {} is missing: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    files.iter().map(|p| std::fs::read(p).expect("corpus file")).collect()
}

#[test]
fn every_corpus_input_returns() {
    for (target, entry) in [
        ("front", irgc_fuzz_entry::front as fn(&[u8])),
        ("graph_file", irgc_fuzz_entry::graph_file),
        ("gen_spec", irgc_fuzz_entry::gen_spec),
        ("param", irgc_fuzz_entry::param),
        ("specs", irgc_fuzz_entry::specs),
    ] {
        for input in corpus(target) {
            entry(&input);
        }
    }
}

/// Program-like text: keywords, names, operators and brackets in any order.
fn program_text() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "graph G;",
        "node",
        "edge",
        "kernel",
        "plan",
        "forall",
        "for",
        "in",
        "G.nodes",
        "G.edges(v)",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        "=",
        "+",
        "*",
        "<<",
        "inf",
        "u32",
        "f64",
        "node",
        ":",
        ",",
        "v",
        "x",
        "1",
        "1e400",
        "-",
        "pipe",
        "hybrid",
        "reduce",
        "atomic_min",
        "print",
        "if",
        "else",
        "while",
        "wl",
        "worklist",
        "output",
        "as",
        "bfs",
        "let",
        "var",
        "return",
        "fn",
        "->",
        "sum",
        "\n",
    ]);
    prop::collection::vec(token, 0..80).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn front_end_returns_on_program_like_text(text in program_text()) {
        irgc_fuzz_entry::front(text.as_bytes());
    }

    #[test]
    fn loaders_return_on_any_bytes(pick in any::<u8>(), body in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut data = vec![pick];
        data.extend(body);
        irgc_fuzz_entry::graph_file(&data);
    }

    #[test]
    fn loaders_return_on_line_shaped_text(pick in any::<u8>(), text in "([0-9 %\\-.a-z,\\t]{0,12}\\n){0,12}") {
        let mut data = vec![pick];
        data.extend(text.as_bytes());
        irgc_fuzz_entry::graph_file(&data);
    }

    #[test]
    fn specs_and_params_return(text in "[a-z0-9:=,.\\-#eE+]{0,40}") {
        irgc_fuzz_entry::gen_spec(text.as_bytes());
        irgc_fuzz_entry::param(text.as_bytes());
        irgc_fuzz_entry::specs(text.as_bytes());
    }
}
