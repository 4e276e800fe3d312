//! End-to-end tests of the `irgc` binary: exit codes, where output goes, and what it says.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// Runs `irgc ARGS` in the repository root, so paths in messages are the relative ones given.
fn irgc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irgc"))
        .args(args)
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .output()
        .expect("run irgc")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("irgc exited normally, not by a signal")
}

/// The shipped programs, as paths relative to the repository root, sorted.
fn programs() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read programs/") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "irg") {
                out.push(p);
            }
        }
    }
    let root = repo();
    let mut paths = Vec::new();
    walk(&root.join("programs"), &mut paths);
    paths.sort();
    assert!(!paths.is_empty(), "no programs found");
    paths.iter().map(|p| p.strip_prefix(&root).unwrap().to_string_lossy().into_owned()).collect()
}

/// A path in the system's temporary directory unique to this test process and `tag`.
fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("irgc-cli-test-{}-{tag}", std::process::id()))
}

#[test]
fn check_accepts_every_shipped_program() {
    let programs = programs();
    let mut args = vec!["check"];
    args.extend(programs.iter().map(String::as_str));
    let o = irgc(&args);
    assert_eq!(code(&o), 0, "stdout:\n{}\nstderr:\n{}", stdout(&o), stderr(&o));
    assert_eq!(stderr(&o), "", "a clean check prints no diagnostics");
    // With several files, one status line each.
    for p in &programs {
        assert!(stdout(&o).contains(&format!("ok     {p}")), "no status line for {p}:\n{}", stdout(&o));
    }
}

#[test]
fn check_on_a_single_clean_file_is_silent() {
    let o = irgc(&["check", "programs/cc/rem.irg"]);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
}

#[test]
fn check_reports_errors_with_locations_and_exits_1() {
    let o = irgc(&["check", "--color", "never", "tests/ui/err/unknown_name.irg"]);
    assert_eq!(code(&o), 1, "stderr:\n{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error: cannot find `levle` in this scope"), "{err}");
    assert!(err.contains("tests/ui/err/unknown_name.irg:6:9"), "no file:line:col location in:\n{err}");
    assert!(err.contains("1 of 1 file(s) had errors"), "{err}");
    assert!(!err.contains('\u{1b}'), "--color never must not emit escape codes:\n{err}");
    assert!(stdout(&o).contains("FAILED tests/ui/err/unknown_name.irg"), "{}", stdout(&o));
}

#[test]
fn check_counts_failures_across_files() {
    let o = irgc(&["check", "programs/cc/rem.irg", "tests/ui/err/no_plan.irg", "tests/ui/err/two_plans.irg"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("2 of 3 file(s) had errors"), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ok     programs/cc/rem.irg"), "{out}");
    assert!(out.contains("FAILED tests/ui/err/no_plan.irg"), "{out}");
}

#[test]
fn color_always_emits_escape_codes() {
    let o = irgc(&["check", "--color", "always", "tests/ui/err/unknown_name.irg"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains('\u{1b}'), "expected ANSI colour codes:\n{}", stderr(&o));
}

#[test]
fn check_time_prints_a_line_per_file() {
    let o = irgc(&["check", "--time", "programs/cc/rem.irg"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.starts_with("ok") && out.contains(" ms  programs/cc/rem.irg"), "{out}");
}

#[test]
fn compile_emit_ir_prints_the_module() {
    let o = irgc(&["compile", "programs/cc/rem.irg", "--emit", "ir"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("module rem\n"), "{out}");
    assert!(out.contains("kernel unite()"), "{out}");
    assert!(out.contains("plan {"), "{out}");
}

#[test]
fn compile_emit_ast_to_a_file() {
    let path = temp_path("rem.ast");
    let _ = std::fs::remove_file(&path);
    let o = irgc(&["compile", "programs/cc/rem.irg", "--emit", "ast", "-o", path.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "with -o nothing goes to stdout");
    let text = std::fs::read_to_string(&path).expect("the AST file was written");
    let _ = std::fs::remove_file(&path);
    assert!(text.starts_with("SourceFile {"), "{}", &text[..text.len().min(200)]);
    assert!(text.contains("\"unite\""), "the AST names the kernels");
}

#[test]
fn compile_with_long_output_option_matches_stdout() {
    let path = temp_path("rem.ir");
    let o = irgc(&["compile", "programs/cc/rem.irg", "--emit", "ir", "--output", path.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let written = std::fs::read_to_string(&path).expect("the IR file was written");
    let _ = std::fs::remove_file(&path);
    let printed = stdout(&irgc(&["compile", "programs/cc/rem.irg", "--emit", "ir"]));
    assert_eq!(written, printed);
}

#[test]
fn compile_of_a_bad_program_fails_without_output() {
    for emit in ["ir", "ast"] {
        let o = irgc(&["compile", "--color", "never", "tests/ui/err/type_mismatch_node_u32.irg", "--emit", emit]);
        assert_eq!(code(&o), 1, "--emit {emit}");
        assert_eq!(stdout(&o), "", "--emit {emit}: nothing is emitted for a program with errors");
        assert!(stderr(&o).contains("error: mismatched types"), "{}", stderr(&o));
        assert!(stderr(&o).contains("tests/ui/err/type_mismatch_node_u32.irg:6:20"), "{}", stderr(&o));
    }
}

#[test]
fn unknown_option_is_a_usage_error() {
    let o = irgc(&["check", "--frobnicate", "programs/cc/rem.irg"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("unexpected argument '--frobnicate'"), "{err}");
    assert!(err.contains("Usage:"), "{err}");
}

#[test]
fn bad_emit_value_and_missing_arguments_are_usage_errors() {
    let o = irgc(&["compile", "programs/cc/rem.irg", "--emit", "spirv"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("invalid value 'spirv'"), "{}", stderr(&o));
    let o = irgc(&["compile", "programs/cc/rem.irg", "--arch", "sm_100", "--emit", "ptx"]);
    assert_eq!(code(&o), 2, "unsupported GPU architectures are refused");
    assert_eq!(code(&irgc(&["check"])), 2, "check needs at least one file");
    assert_eq!(code(&irgc(&["compile"])), 2, "compile needs a file");
    assert_eq!(code(&irgc(&[])), 2, "a subcommand is required");
}

#[test]
fn missing_file_is_reported_by_name() {
    let o = irgc(&["check", "no/such/program.irg"]);
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains("no/such/program.irg"), "{}", stderr(&o));
    let o = irgc(&["compile", "no/such/program.irg", "--emit", "ir"]);
    assert_ne!(code(&o), 0);
    assert!(stderr(&o).contains("no/such/program.irg"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn non_utf8_file_is_reported() {
    let path = temp_path("latin1.irg");
    std::fs::write(&path, b"graph G; // caf\xe9\nplan {}\n").unwrap();
    let o = irgc(&["check", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
}

#[test]
fn help_mentions_the_examples() {
    let o = irgc(&["--help"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.contains("Examples:"), "{out}");
    assert!(out.contains("irgc check programs/bfs/bfs_worklist.irg"), "{out}");
    assert!(out.contains("irgc compile programs/cc/rem.irg --emit ir"), "{out}");
    for sub in ["check", "compile"] {
        assert!(out.contains(sub), "--help lists `{sub}`");
    }
    let o = irgc(&["check", "--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Exit status"), "{}", stdout(&o));
}

#[test]
fn run_and_bench_help_name_every_gpu_environment_knob() {
    let knobs = [
        irgc_runtime::context::SKEWED_VAR,
        irgc_cuda::HEAVY_ROUND_VAR,
        irgc_cuda::SOLO_ITEMS_VAR,
        irgc_cuda::PIPE_CLUSTER_VAR,
        irgc_cuda::PIPE_BLOCKS_VAR,
        irgc_cuda::ENTER_PIPES_AT_ONCE,
    ];
    for cmd in ["run", "bench"] {
        let o = irgc(&[cmd, "--help"]);
        assert_eq!(code(&o), 0);
        let out = stdout(&o);
        for knob in knobs {
            assert!(out.contains(&format!("\n  {knob}")), "`irgc {cmd} --help` does not name {knob}:\n{out}");
        }
    }
}

#[test]
fn version_is_printed() {
    let o = irgc(&["--version"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("irgc "), "{}", stdout(&o));
}

#[test]
fn compile_writes_ptx_and_the_artifact_beside_it() {
    let dir = std::env::temp_dir().join(format!("irgc-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("rem.ptx");
    let o = irgc(&["compile", "programs/cc/rem.irg", "-o", ptx.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    for k in ["init", "unite", "compress"] {
        assert!(text.contains(&format!(".entry {k}(")), "kernel {k} missing from the PTX");
    }
    assert!(text.contains(".target sm_90"));
    let artifact = std::fs::read_to_string(dir.join("rem.artifact.json")).unwrap();
    assert!(artifact.contains("\"name\": \"unite\""), "{artifact}");
    std::fs::remove_dir_all(&dir).ok();
    for stage in ["llvm", "ptx", "artifact"] {
        let o = irgc(&["compile", "programs/bfs/bfs_worklist.irg", "--emit", stage]);
        assert_eq!(code(&o), 0, "--emit {stage}: {}", stderr(&o));
        assert!(!o.stdout.is_empty());
    }
}

#[test]
fn check_accepts_standard_library_modules_and_reports_their_errors() {
    let o = irgc(&["check", "stdlib/unionfind.irg", "stdlib/coloring.irg", "stdlib/random.irg"]);
    assert_eq!(code(&o), 0, "stdout:\n{}\nstderr:\n{}", stdout(&o), stderr(&o));
    let dir = std::env::temp_dir().join(format!("irgc-check-module-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.irg");
    std::fs::write(&bad, "fn twice(x: u32) -> u32 {\n    return x * undefined_name;\n}\n").unwrap();
    let o = irgc(&["check", "--color", "never", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "stderr:\n{}", stderr(&o));
    assert!(stderr(&o).contains("bad.irg:2:16"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ir_opt_shows_the_nested_loop_and_outlining_decisions_and_explain_gives_the_reasons() {
    let o = irgc(&["compile", "programs/bfs/bfs_worklist.irg", "--emit", "ir-opt", "--explain"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let ir = stdout(&o);
    assert!(ir.contains("forall e: edge in G.first_edge(v)..G.end_edge(v) schedule fine interleave 4 {"), "{ir}");
    assert!(ir.contains("outlined #0 pipe frontier {"), "{ir}");
    let why = stderr(&o);
    assert!(
        why.contains(
            "programs/bfs/bfs_worklist.irg:12:9: np: kernel `expand`: the loop over `e` is spread over the block"
        ),
        "{why}"
    );
    // Disabled, the loop stays serial and nothing is explained for it.
    let o =
        irgc(&["compile", "programs/bfs/bfs_worklist.irg", "--emit", "ir-opt", "--disable-pass", "np", "--explain"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("for e: edge in G.first_edge(v)..G.end_edge(v) {"), "{}", stdout(&o));
    assert!(!stderr(&o).contains("np:"), "{}", stderr(&o));
    // A loop that must stay serial says why.
    let o = irgc(&["compile", "programs/louvain/louvain_local.irg", "--emit", "ir-opt", "--explain"]);
    assert!(stderr(&o).contains("stays in its thread: it assigns `best`"), "{}", stderr(&o));
    // Suitor's argmax, written as a `max` of packed keys, is combined over the warp.
    let o = irgc(&["compile", "programs/matching/suitor.irg", "--emit", "ir-opt", "--explain"]);
    assert!(stderr(&o).contains("spread over the warp, combining `best_key` by max"), "{}", stderr(&o));
}

#[test]
fn a_pass_parameter_changes_the_factor_beside_program_params_and_a_bad_one_is_refused_with_the_choices() {
    let bfs = "programs/bfs/bfs_worklist.irg";
    let o = irgc(&["compile", bfs, "--emit", "ir-opt", "--pass-param", "interleave.factor=8"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("schedule fine interleave 8 {"), "{}", stdout(&o));
    // On `run` beside the program's own `--param` (the two must not mix), and verified.
    let o = irgc(&[
        "run",
        bfs,
        "--graph",
        "gen:grid:w=30,h=30",
        "--param",
        "source=5",
        "--pass-param",
        "interleave.factor=2",
        "--verify",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("verify    level: ok against BFS from node 5"), "{}", stdout(&o));
    let o = irgc(&["compile", bfs, "--pass-param", "interleave.factor=3"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("it takes 2, 4, 8, not `3`"), "{}", stderr(&o));
    let o = irgc(&["run", bfs, "--graph", "gen:grid:w=3,h=3", "--pass-param", "outline.factor=2"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no pass parameter `outline.factor` (parameters: unroll.factor, interleave.factor)"));
    let o = irgc(&["passes"]);
    assert!(stdout(&o).contains("--pass-param interleave.factor=N: iterations at once (2, 4, 8; default 4)"));
}

#[test]
fn a_closed_pipe_ends_the_run_quietly_and_thread_counts_are_capped() {
    use std::io::Read;
    use std::process::Stdio;
    // The reader takes one byte and goes away; irgc must not panic on the writes that follow (2,000 rounds of
    // statistics: more than a pipe holds).
    let mut child = Command::new(env!("CARGO_BIN_EXE_irgc"))
        .current_dir(repo())
        .args(["run", "programs/bfs/bfs_worklist.irg", "--graph", "gen:grid:w=1000,h=1000,seed=1", "--stats"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("irgc starts");
    let mut first = [0u8; 1];
    child.stdout.as_mut().unwrap().read_exact(&mut first).expect("some output");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("irgc ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(out.status.code(), Some(0) | Some(141)), "{:?}: {err}", out.status);
    // Too many threads: a clear refusal, not a hang.
    let o = irgc(&["run", "programs/cc/rem.irg", "--graph", "gen:rmat:scale=8,ef=4,seed=1", "--threads", "100000"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--threads 100000 is more than irgc allows (4096)"), "{}", stderr(&o));
}

#[test]
fn out_refuses_to_overwrite_an_input() {
    let dir = std::env::temp_dir().join(format!("irgc-out-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.txt");
    std::fs::write(&graph, "0 1\n1 2\n").unwrap();
    // The same file by another spelling.
    let other = dir.join(".").join("g.txt");
    let o = irgc(&[
        "run",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        graph.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("is one of the command's inputs"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&graph).unwrap(), "0 1\n1 2\n", "the input must be untouched");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timeout_stops_a_plan_that_never_launches() {
    let dir = std::env::temp_dir().join(format!("irgc-timeout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("spin.irg");
    std::fs::write(
        &program,
        "graph G;\nnode x: u32;\nplan {\n    var i: u32 = 0;\n    while true {\n        i += 1;\n    }\n}\n",
    )
    .unwrap();
    // A short limit: the plan's statement budget, which also ends a loop that never launches, takes about a second
    // in a release build and must not come first.
    let start = std::time::Instant::now();
    let o = irgc(&["run", program.to_str().unwrap(), "--graph", "gen:er:n=100,deg=2,seed=1", "--timeout", "0.2"]);
    assert_eq!(code(&o), 124, "{}", stderr(&o));
    assert!(stderr(&o).contains("stopped after --timeout 0.2 s"), "{}", stderr(&o));
    assert!(start.elapsed().as_secs_f64() < 30.0);
    let o = irgc(&["run", program.to_str().unwrap(), "--graph", "gen:er:n=100,deg=2,seed=1", "--timeout", "0"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("above 0"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generators_too_large_for_memory_are_refused_before_allocating() {
    let out = std::env::temp_dir().join(format!("irgc-huge-{}.mtx", std::process::id()));
    for spec in ["rmat:scale=31,ef=100000", "er:n=4294967295,deg=1000"] {
        let o = irgc(&["gen", spec, "-o", out.to_str().unwrap()]);
        assert_eq!(code(&o), 1, "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("generating `{spec}` needs about")), "{}", stderr(&o));
        assert!(stderr(&o).contains("GiB available"), "{}", stderr(&o));
        assert!(!out.exists(), "nothing is written");
    }
    let o = irgc(&["run", "programs/cc/rem.irg", "--graph", "gen:rmat:scale=31,ef=100000"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("needs about"), "{}", stderr(&o));
}

#[test]
fn outline_loops_takes_when_with_an_equals_sign_and_alone_means_always() {
    let topo = "programs/bfs/bfs_topology.irg";
    // On the CPU nothing is outlined: every form runs, and verifies, the same way. `--outline-loops` alone does
    // not take the program path after it as its value.
    for flag in ["--outline-loops", "--outline-loops=never", "--outline-loops=auto", "--outline-loops=always"] {
        let o = irgc(&["run", "--graph", "gen:grid:w=20,h=20", "--verify", flag, topo]);
        assert_eq!(code(&o), 0, "{flag}: {}", stderr(&o));
        assert!(stdout(&o).contains("verify    level: ok"), "{flag}: {}", stdout(&o));
    }
    let o = irgc(&["bench", "--graph", "gen:grid:w=3,h=3", "--outline-loops=sometimes", topo]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("[possible values: never, auto, always]"), "{}", stderr(&o));
    let o = irgc(&["run", "--graph", "gen:grid:w=3,h=3", "--outline-loops=always", "--no-outline", topo]);
    assert_eq!(code(&o), 2, "contradictory: {}", stderr(&o));
}
