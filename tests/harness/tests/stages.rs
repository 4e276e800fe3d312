//! Every program and test file through every stage of the pipeline, snapshotted (see the crate docs): shipped
//! programs (`programs/`), the UI cases that compile (`tests/ui/ok`) and those that must not (`tests/ui/err`,
//! whose diagnostics are the snapshot), and the backends' conformance programs (`tests/conformance/*.irg`).
//! Each file is compiled once and its stages are taken from that one compilation; files run on parallel threads.

use irgc_filetests::stages::{compile, stages, Outcome};
use irgc_test_support::{irg_files, root, snap_name};
use std::path::PathBuf;

/// The files the harness walks, with the name the front end sees (relative to `programs/`'s parent or `tests/`,
/// so that no absolute path reaches a snapshot).
fn files() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for p in irg_files(&root().join("programs")) {
        let name = p.strip_prefix(root()).expect("under the root").to_string_lossy().replace('\\', "/");
        out.push((p, name));
    }
    for dir in ["tests/ui/ok", "tests/ui/err", "tests/conformance"] {
        let base = root().join(dir);
        let files = std::fs::read_dir(&base).unwrap_or_else(|e| panic!("cannot read {}: {e}", base.display()));
        let mut ps: Vec<PathBuf> = files
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "irg"))
            .collect();
        ps.sort();
        for p in ps {
            let name = p.strip_prefix(root().join("tests")).expect("under tests/").to_string_lossy().replace('\\', "/");
            out.push((p, name));
        }
    }
    out
}

/// (snapshot name, text) for every stage of one file.
fn snapshots_of(path: &std::path::Path, name: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let snap = snap_name(path);
    let refused = name.starts_with("ui/err/");
    match compile(name, &text) {
        Outcome::Refused(diags) => {
            assert!(refused, "{name} must compile, but:\n{diags}");
            vec![(format!("diagnostics@{snap}"), diags)]
        }
        Outcome::Compiled(c) => {
            assert!(!refused, "{name} must be refused with an error, but it compiles");
            let mut ptx = None;
            stages()
                .into_iter()
                .map(|s| {
                    // A backend's refusal (e.g. `tests/conformance/nested_barrier.irg`) is that stage's result.
                    let text = s.text(&c, &mut ptx).unwrap_or_else(|e| format!("refused: {e}\n"));
                    (format!("{}@{snap}", s.name()), text)
                })
                .collect()
        }
    }
}

#[test]
fn every_file_through_every_stage() {
    let files = files();
    assert!(files.len() >= 100, "only {} files", files.len());
    // Compile on a few threads (the PTX backend dominates), then assert in order on this one.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let chunks: Vec<Vec<(PathBuf, String)>> = files.chunks(files.len().div_ceil(threads)).map(<[_]>::to_vec).collect();
    let results: Vec<Vec<(String, String)>> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| s.spawn(move || chunk.iter().flat_map(|(p, n)| snapshots_of(p, n)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a compiling thread")).collect()
    });
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, text) in results.into_iter().flatten() {
            insta::assert_snapshot!(name, text);
        }
    });
}
