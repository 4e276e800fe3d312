//! Every shipped program on the CPU backend with every optimizer pass, with each pass disabled in turn, and with
//! none: each run must pass `--verify`, and where the result is unique (levels, distances) every configuration
//! must write the same output. A pass may change how the GPU runs a program, never what the program computes.

mod common;

use common::*;

/// The programs of `programs/`, sorted.
fn programs() -> Vec<String> {
    let mut out = Vec::new();
    for family in std::fs::read_dir(root().join("programs")).unwrap() {
        let family = family.unwrap().path();
        for f in std::fs::read_dir(&family).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "irg") {
                out.push(f.strip_prefix(root()).unwrap().to_str().unwrap().to_string());
            }
        }
    }
    out.sort();
    assert!(out.len() >= 21, "expected the shipped programs, found {out:?}");
    out
}

/// The pass names, from `irgc passes` (a pass's line starts with its name; its parameters are indented below it).
fn passes() -> Vec<String> {
    let o = irgc(&["passes"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines().filter(|l| !l.starts_with(' ')).filter_map(|l| l.split_whitespace().next()).map(String::from).collect()
}

#[test]
fn every_program_computes_the_same_with_each_pass_off() {
    let passes = passes();
    assert!(passes.iter().any(|p| p == "np"), "{passes:?}");
    let mut configs: Vec<Vec<String>> = vec![Vec::new()];
    for p in &passes {
        configs.push(vec!["--disable-pass".into(), p.clone()]);
    }
    configs.push(passes.iter().flat_map(|p| ["--disable-pass".to_string(), p.clone()]).collect());
    let graph = "gen:rmat:scale=10,ef=8,seed=7";
    for program in programs() {
        // APSP programs take a dense n×n array: a smaller graph.
        let graph = if program.contains("apsp") { "gen:er:n=300,deg=6,seed=2" } else { graph };
        let unique = ["bfs", "sssp", "apsp"].iter().any(|f| program.starts_with(&format!("programs/{f}/")));
        let mut first: Option<String> = None;
        for c in &configs {
            let out = temp("sweep.out");
            let mut args: Vec<&str> = vec!["--symmetrize", "--weights", "random:1:255", "--out", out.to_str().unwrap()];
            args.extend(c.iter().map(String::as_str));
            run_verified(&program, graph, &args);
            let text = std::fs::read_to_string(&out).unwrap();
            std::fs::remove_file(&out).ok();
            match &first {
                None => first = Some(text),
                Some(f) if unique => assert!(f == &text, "{program} {c:?}: a different result than with every pass"),
                Some(_) => {}
            }
        }
    }
}

/// `irgc bench --ablation`, one run each, on a 32×32 grid (BFS from node 0 reaches every node), with `rest`.
fn ablation(rest: &[&str]) -> std::process::Output {
    let mut args = vec!["bench", "--ablation", "--runs", "1", "--warmup", "0", "--graph", "gen:grid:w=32,h=32,seed=1"];
    args.extend_from_slice(rest);
    irgc(&args)
}

#[test]
fn bench_ablation_prints_a_column_per_configuration_and_runs_only_those_that_change_the_code() {
    let o = ablation(&["programs/bfs/bfs_worklist.irg", "programs/cc/rem.irg"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    let head = out.lines().find(|l| l.starts_with("program")).expect("a header");
    let mut want = vec!["program".to_string(), "graph".into(), "all".into()];
    want.extend(passes().iter().map(|p| format!("-{p}")));
    want.extend(["none".into(), "all/none".into()]);
    assert_eq!(head.split_whitespace().collect::<Vec<_>>(), want);
    // `rem` has no loop any pass changes: every other column is "=", and only its `all` configuration ran.
    let rem = out.lines().find(|l| l.starts_with("rem ")).expect("a rem line");
    assert_eq!(rem.split_whitespace().filter(|c| *c == "=").count(), passes().len() + 1, "{rem}");
    assert_eq!(err.matches("  rem [").count(), 1, "{err}");
    // `bfs_worklist` changes with `np` and with no passes; its later configurations are verified by identity
    // (BFS levels are unique).
    assert!(err.contains("bfs_worklist [-np]") && err.contains("bfs_worklist [none]"), "{err}");
    assert!(!err.contains("FAILED") && !out.contains("FAILED"), "{err}");
    let j = ablation(&["--json", "programs/bfs/bfs_worklist.irg"]);
    let rows: serde_json::Value = serde_json::from_slice(&j.stdout).expect("JSON rows");
    let rows = rows.as_array().expect("an array");
    assert!(rows.iter().all(|r| r["verified"] == "ok"), "{rows:?}");
    assert_eq!(rows[0]["config"], "all");
    assert!(rows[1..]
        .iter()
        .all(|r| r["verify_detail"].as_str().unwrap().contains("the same output as a verified run")));
    let both =
        irgc(&["bench", "--ablation", "--disable-pass", "np", "--graph", "gen:rmat:scale=8", "programs/cc/rem.irg"]);
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("leave out --disable-pass"));
    let svg = std::env::temp_dir().join(format!("irgc-ablation-{}.svg", std::process::id()));
    let plotted = ablation(&["--plot", svg.to_str().unwrap(), "programs/bfs/bfs_worklist.irg"]);
    assert!(plotted.status.success(), "{}", String::from_utf8_lossy(&plotted.stderr));
    let figure = std::fs::read_to_string(&svg).expect("the heat map");
    let _ = std::fs::remove_file(&svg);
    assert!(figure.starts_with("<svg") && figure.contains("-np") && figure.contains("× all"), "{figure:.300}");
    let explain = irgc(&["bench", "--ablation", "--explain", "--graph", "gen:rmat:scale=8", "programs/cc/rem.irg"]);
    assert!(!explain.status.success() && String::from_utf8_lossy(&explain.stderr).contains("--explain"));
}

#[test]
fn bench_ablation_recheck_runs_every_configuration_of_a_flagged_program_again_in_its_place() {
    // `--flag-above 0` flags every line, so each program is re-run in every configuration with two timed runs.
    let svg = std::env::temp_dir().join(format!("irgc-recheck-{}.svg", std::process::id()));
    let j = ablation(&[
        "--json",
        "--recheck",
        "2",
        "--flag-above",
        "0",
        "--plot",
        svg.to_str().unwrap(),
        "programs/bfs/bfs_worklist.irg",
    ]);
    assert!(j.status.success(), "{}", String::from_utf8_lossy(&j.stderr));
    let figure = std::fs::read_to_string(&svg).expect("the heat map");
    let _ = std::fs::remove_file(&svg);
    assert!(figure.contains("of 2 on lines marked ↻") && figure.contains("bfs_worklist @ gen:grid:w=32,h=32,seed=1 ↻"));
    let rows: serde_json::Value = serde_json::from_slice(&j.stdout).expect("JSON rows");
    let rows = rows.as_array().expect("an array");
    let configs: Vec<&str> = rows.iter().map(|r| r["config"].as_str().expect("a config")).collect();
    assert_eq!(configs.first(), Some(&"all"), "{configs:?}");
    assert_eq!(configs.last(), Some(&"none"), "one row per configuration, in table order: {configs:?}");
    let mut unique = configs.clone();
    unique.dedup();
    assert_eq!(unique, configs, "the rechecked rows replace the first ones: {configs:?}");
    assert!(rows.iter().all(|r| r["rechecked"] == true && r["runs"] == 2 && r["verified"] == "ok"), "{rows:?}");
    assert!(String::from_utf8_lossy(&j.stderr).contains("recheck bfs_worklist on"));
    // Unflagged (the default rule on this small grid may or may not flag; a ratio of 100 never does): one run, no mark.
    let t = ablation(&["--recheck", "2", "--flag-above", "100", "programs/bfs/bfs_worklist.irg"]);
    let out = String::from_utf8_lossy(&t.stdout);
    let line = out.lines().find(|l| l.starts_with("bfs_worklist ")).expect("a bfs_worklist line");
    assert!(t.status.success() && !line.contains('↻') && !line.contains('⚠') && !out.contains("--recheck)"), "{out}");
    let bad = ablation(&["--flag-above", "-1", "programs/cc/rem.irg"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("--flag-above"));
    let alone = irgc(&["bench", "--recheck", "3", "--graph", "gen:rmat:scale=8", "programs/cc/rem.irg"]);
    assert!(!alone.status.success() && String::from_utf8_lossy(&alone.stderr).contains("--ablation"));
}
