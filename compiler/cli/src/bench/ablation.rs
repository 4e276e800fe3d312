//! `irgc bench --ablation`: the optimizer's ablation table. Each program is compiled with every pass, with each
//! pass disabled, and with none, and run in each configuration whose optimized IR differs from "all passes" (the
//! others would run the very same code); the table has a column per configuration and flags a program that is
//! more than 10% slower with every pass than with none (issue #11's rule).
//!
//! One process does it all, so the graph is loaded once per graph and a run whose output is identical to a
//! verified one's is verified by that identity instead of recomputing the reference (`super::Results::known`).
//! One timed run a cell keeps a table of many programs and configurations cheap, but one run is noisy; with
//! `--recheck N` a flagged program is run again in every configuration with N timed runs before the table is
//! printed, so a flag that stands is a measured cost, not a bad run.

use anyhow::{anyhow, Result};
use irgc_front::ir::print::print_module;
use irgc_front::ir::Module;

use super::table::{Row, Verified};

/// The name of the configuration with every pass.
pub const ALL: &str = "all";
/// The name of the configuration with no pass.
pub const NONE: &str = "none";
/// Every pass on is flagged when it is more than this many times slower than none (issue #11's rule), unless
/// `--flag-above` says otherwise.
pub const SLOWER: f64 = 1.10;

/// The configuration names in table order: `all`, `-PASS` for every pass in pipeline order, `none`.
pub fn names() -> Vec<String> {
    let mut v = vec![ALL.to_string()];
    v.extend(irgc_opt::PASSES.iter().map(|p| format!("-{}", p.name)));
    v.push(NONE.to_string());
    v
}

/// `module` optimized in every configuration that gives other code than `all` (which always comes first), each with
/// the pass parameters `params` (`--pass-param`).
pub fn configs(module: &Module, params: &[(String, u32)]) -> Result<Vec<(String, Module)>> {
    let optimized = |disabled: &[&str]| -> Result<Module> {
        let mut m = module.clone();
        let mut o = irgc_opt::Options::default();
        o.disabled.extend(disabled.iter().map(|s| s.to_string()));
        o.params.extend(params.iter().cloned());
        irgc_opt::run(&mut m, &o).map_err(|e| anyhow!("{e}"))?;
        Ok(m)
    };
    let all = optimized(&[])?;
    let all_ir = print_module(&all);
    let mut out = vec![(ALL.to_string(), all)];
    let every: Vec<&str> = irgc_opt::PASSES.iter().map(|p| p.name).collect();
    let mut candidates: Vec<(String, Vec<&str>)> = every.iter().map(|p| (format!("-{p}"), vec![*p])).collect();
    candidates.push((NONE.to_string(), every.clone()));
    for (name, disabled) in candidates {
        let m = optimized(&disabled)?;
        if print_module(&m) != all_ir {
            out.push((name, m));
        }
    }
    Ok(out)
}

/// The programs and graphs of an `--ablation` bench's rows, each once, in row order: the table's lines.
pub fn lines(rows: &[Row]) -> Vec<(&str, &str)> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if !keys.contains(&(r.program.as_str(), r.graph.as_str())) {
            keys.push((&r.program, &r.graph));
        }
    }
    keys
}

/// The row of `program` on `graph` in configuration `config` (none: the configuration did not change its code).
pub fn cell<'r>(rows: &'r [Row], (program, graph): (&str, &str), config: &str) -> Option<&'r Row> {
    rows.iter().find(|r| r.program == program && r.graph == graph && r.config.as_deref() == Some(config))
}

/// Every pass on against none for one line: the time with every pass over the time with none (`all` alone when no
/// pass changes the program); `None` where either gave a wrong answer.
pub fn ratio(rows: &[Row], key: (&str, &str)) -> Option<f64> {
    let time = |config: &str| cell(rows, key, config).filter(|r| r.verified != Verified::Failed).map(|r| r.median_ms);
    // No `none` row: no pass changes the program, and `none` is the code of `all`; a failed one has no time.
    let none = if cell(rows, key, NONE).is_some() { time(NONE) } else { time(ALL) };
    match (time(ALL), none) {
        (Some(a), Some(n)) if n > 0.0 => Some(a / n),
        _ => None,
    }
}

/// The lines of `rows` whose every-pass time is more than `flag_above` times their no-pass time, with that ratio.
pub fn flagged(rows: &[Row], flag_above: f64) -> Vec<((&str, &str), f64)> {
    lines(rows).into_iter().filter_map(|key| ratio(rows, key).filter(|&r| r > flag_above).map(|r| (key, r))).collect()
}

/// Whether `--recheck` ran this line again (its rows replaced the first pass's).
pub fn rechecked(rows: &[Row], key: (&str, &str)) -> bool {
    cell(rows, key, ALL).is_some_and(|r| r.rechecked)
}

/// The kernel launches of the every-pass and the no-pass runs of a line, where both ran and they differ: a program
/// whose round count depends on its races (Louvain's stop test) then did different work in the two, and their
/// times do not compare one configuration's cost.
pub fn launches_differ(rows: &[Row], key: (&str, &str)) -> Option<(u64, u64)> {
    let (all, none) = (cell(rows, key, ALL)?, cell(rows, key, NONE)?);
    (all.launches != none.launches).then_some((all.launches, none.launches))
}

/// The ablation table: a line per program and graph, a column per configuration (`=`: the same code as `all`,
/// not run; `FAILED`: a wrong answer), and all passes against none, flagged above `flag_above`.
pub fn text(rows: &[Row], flag_above: f64) -> String {
    let names = names();
    let mut head = vec!["program".to_string(), "graph".to_string()];
    head.extend(names.iter().cloned());
    head.push("all/none".to_string());
    let mut body = Vec::new();
    // Whether a flag shows differing launch counts (the legend then explains the mark).
    let mut differ_shown = false;
    for key in lines(rows) {
        let mut line = vec![key.0.to_string(), key.1.to_string()];
        for name in &names {
            line.push(match cell(rows, key, name) {
                None => "=".to_string(),
                Some(r) if r.verified == Verified::Failed => "FAILED".to_string(),
                Some(r) => super::table::ms(r.median_ms),
            });
        }
        let again = rechecked(rows, key);
        line.push(match ratio(rows, key) {
            Some(ratio) => {
                let mut cell = format!("{ratio:.2}×");
                if ratio > flag_above {
                    cell += " ⚠";
                    if let Some((a, n)) = launches_differ(rows, key) {
                        cell += &format!(" ≠ {a}/{n}");
                        differ_shown = true;
                    }
                }
                if again {
                    cell += " ↻";
                }
                cell
            }
            None => "-".to_string(),
        });
        body.push(line);
    }
    let mut legend = format!(
        "= : the pass changes nothing in this program (same code as `all`, not run); ⚠ : every pass on takes more \
         than {flag_above:.2}× the time of none"
    );
    if differ_shown {
        legend += "; ≠ A/B : every pass launched A kernels and none B (rounds that depend on races): the two times \
                   are of different work";
    }
    if rows.iter().any(|r| r.rechecked) {
        legend += "; ↻ : flagged after one pass over the table and re-run in every configuration (--recheck)";
    }
    super::table::aligned(&head, &body, |c| c < 2) + &legend + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "graph G;\nworklist wl;\nnode x: u32 = inf;\noutput x as bfs(s);\nparam s: node = 0;\n\
        kernel k(d: u32) { forall v in wl { for e in G.edges(v) { let w = G.dst(e); \
        if atomic_min(x[w], d + 1) > d + 1 { wl.push(w); } } } }\n\
        plan { x[s] = 0; wl.push(s); var d: u32 = 0; pipe wl { k(d); d += 1; } }";

    fn timed(program: &str, config: &str, ms: f64, verified: Verified) -> Row {
        let mut r = crate::bench::table::example_row();
        r.program = program.into();
        r.config = Some(config.into());
        r.median_ms = ms;
        r.verified = verified;
        r
    }

    #[test]
    fn a_line_is_flagged_when_every_pass_is_slower_than_none_by_more_than_the_rule() {
        let rows = vec![
            timed("slow", ALL, 1.2, Verified::Ok),
            timed("slow", "-np", 1.0, Verified::Ok),
            timed("slow", NONE, 1.0, Verified::Ok),
            // No pass changes it: `all` alone, all against itself.
            timed("same", ALL, 3.0, Verified::Ok),
            // A failed run has no time to compare.
            timed("wrong", ALL, 1.0, Verified::Ok),
            timed("wrong", NONE, 0.5, Verified::Failed),
        ];
        assert_eq!(ratio(&rows, ("same", "g")), Some(1.0));
        assert_eq!(ratio(&rows, ("wrong", "g")), None);
        assert_eq!(flagged(&rows, SLOWER).iter().map(|&(key, _)| key).collect::<Vec<_>>(), vec![("slow", "g")]);
        assert!(flagged(&rows, 1.3).is_empty());
        assert_eq!(flagged(&rows, 0.0).len(), 2);
        let table = text(&rows, SLOWER);
        let slow = table.lines().find(|l| l.starts_with("slow ")).expect("a line");
        assert!(slow.ends_with("1.20× ⚠") && !table.contains("--recheck"), "{table}");
        let mut again = rows.clone();
        again.iter_mut().filter(|r| r.program == "slow").for_each(|r| r.rechecked = true);
        let table = text(&again, SLOWER);
        assert!(table.contains("1.20× ⚠ ↻") && table.contains("--recheck"), "{table}");
        assert!(!table.contains("different work"), "{table}");
        // A flagged line whose two runs launched different numbers of kernels says so.
        let mut rounds = rows.clone();
        rounds
            .iter_mut()
            .filter(|r| r.program == "slow" && r.config.as_deref() == Some(ALL))
            .for_each(|r| r.launches = 8);
        rounds
            .iter_mut()
            .filter(|r| r.program == "slow" && r.config.as_deref() == Some(NONE))
            .for_each(|r| r.launches = 5);
        assert_eq!(launches_differ(&rounds, ("slow", "g")), Some((8, 5)));
        let table = text(&rounds, SLOWER);
        assert!(table.contains("1.20× ⚠ ≠ 8/5") && table.contains("different work"), "{table}");
    }

    #[test]
    fn only_configurations_that_change_the_code_are_kept_all_first() {
        let m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let got: Vec<String> = configs(&m, &[]).expect("optimizes").into_iter().map(|(n, _)| n).collect();
        assert_eq!(got.first().map(String::as_str), Some(ALL));
        assert!(got.contains(&"-np".to_string()) && got.contains(&NONE.to_string()), "{got:?}");
        // `unroll` only touches loops that write nothing; this one pushes.
        assert!(!got.contains(&"-unroll".to_string()), "{got:?}");
        let order: Vec<usize> = got.iter().map(|n| names().iter().position(|x| x == n).expect("a name")).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "table order: {got:?}");
        // `--pass-param` applies to every configuration that runs the pass.
        let eight = [("interleave.factor".to_string(), 8)];
        let ir: Vec<String> = configs(&m, &eight).expect("optimizes").iter().map(|(_, m)| print_module(m)).collect();
        assert!(ir[0].contains("interleave 8") && !ir[0].contains("interleave 4"), "{}", ir[0]);
    }
}
