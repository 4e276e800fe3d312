//! PageRank as the GAP benchmark suite defines it, and a check of a candidate's ranks against its fixed point.
//!
//! One step maps ranks `r` to `T(r)[v] = (1 - d) / n + d · Σ_{u → v} r[u] / outdeg(u)` (an edge listed twice counts
//! twice, as the CSR stores it). A dangling node (out-degree 0) passes its rank to nobody, as in GAP, so the
//! ranks sum to less than 1 on a graph that has some. `T` is a contraction in the L1 norm with factor `d` (every
//! column of the step's matrix sums to at most 1), so it has one fixed point `r*`, which the reference reaches by
//! iterating from `1/n` until a step changes the ranks by less than [`REFERENCE_TOLERANCE`] in L1.
//!
//! A program stops when one of its steps changes the ranks by less than its tolerance `ε` in L1. If its result is
//! `x = T(y)` with `‖x - y‖₁ < ε`, then `‖x - r*‖₁ ≤ d‖y - r*‖₁ ≤ d(ε + ‖x - r*‖₁)`, so `‖x - r*‖₁ ≤ d/(1-d) · ε`.
//! That is the bound the check enforces (5.67 ε at GAP's d = 0.85), plus a rounding allowance for the
//! candidate's own arithmetic (see [`check_pagerank`]). It also bounds GAP's own verifier number, the L1 residual
//! `‖T(x) - x‖₁ ≤ d‖x - y‖₁ < d ε`, which catches a result stopped by an iteration cap before converging even
//! where `d/(1-d)` makes the first bound loose (`d` near 1).

use irgc_graph::Csr;
use rayon::prelude::*;

use crate::{check_len, Mismatch};

/// The reference iterates until one step changes the ranks by less than this, in L1; its own distance from the
/// fixed point is then below `d/(1-d)` times this, far below any tolerance a program would use.
pub const REFERENCE_TOLERANCE: f64 = 1e-14;

/// The reference stops after this many steps even if it has not reached [`REFERENCE_TOLERANCE`] (rounding can keep
/// the change above it on a huge graph); at `d = 0.85` the bound is reached in about 200.
pub const REFERENCE_MAX_STEPS: u32 = 10_000;

/// What the reference found, and how far the candidate is from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankSummary {
    /// `‖candidate - r*‖₁`.
    pub l1_error: f64,
    /// The largest error allowed: `d/(1-d) · ε` plus the rounding allowance.
    pub allowed: f64,
    /// GAP's verifier number: `‖T(candidate) - candidate‖₁`.
    pub residual: f64,
    /// The largest `|candidate[v] - r*[v]| / r*[v]`.
    pub max_relative_error: f64,
    /// `Σ r*` (1 minus what dangling nodes lose).
    pub rank_sum: f64,
    /// Steps the reference took.
    pub reference_steps: u32,
}

/// One step `T(r)`, sequential, pushing each node's share along its out-edges.
pub fn pagerank_step(g: &Csr, damping: f64, r: &[f64]) -> Vec<f64> {
    let n = g.num_nodes() as usize;
    let mut incoming = vec![0.0f64; n];
    for u in 0..g.num_nodes() {
        let deg = g.degree(u);
        if deg > 0 {
            let share = r[u as usize] / deg as f64;
            for &v in g.neighbors(u) {
                incoming[v as usize] += share;
            }
        }
    }
    let base = (1.0 - damping) / n as f64;
    incoming.iter().map(|&s| base + damping * s).collect()
}

/// The graph's in-edges: for each node, the sources of the edges into it, in increasing order ([`Csr::transpose`]).
struct InEdges {
    start: Vec<u64>,
    src: Vec<u32>,
}

impl InEdges {
    fn of(g: &Csr) -> InEdges {
        let (start, src) = g.transpose();
        InEdges { start, src }
    }

    /// [`pagerank_step`], pulled over the in-edges in parallel: the same sums (each node adds its in-shares in
    /// source order, as the push does), so the same result; the reference takes hundreds of steps, which on a
    /// 2^22-node Kronecker graph took minutes sequentially.
    fn step(&self, g: &Csr, damping: f64, r: &[f64]) -> Vec<f64> {
        let base = (1.0 - damping) / g.num_nodes() as f64;
        let share: Vec<f64> = (0..g.num_nodes())
            .into_par_iter()
            .map(|u| match g.degree(u) {
                0 => 0.0,
                deg => r[u as usize] / deg as f64,
            })
            .collect();
        (0..g.num_nodes() as usize)
            .into_par_iter()
            .map(|v| {
                let into = &self.src[self.start[v] as usize..self.start[v + 1] as usize];
                base + damping * into.iter().fold(0.0, |sum, &u| sum + share[u as usize])
            })
            .collect()
    }
}

/// The fixed point of [`pagerank_step`] (within [`REFERENCE_TOLERANCE`]) and the number of steps taken.
pub fn pagerank(g: &Csr, damping: f64) -> (Vec<f64>, u32) {
    let n = g.num_nodes() as usize;
    let in_edges = InEdges::of(g);
    let mut r = vec![1.0 / n as f64; n];
    for step in 1..=REFERENCE_MAX_STEPS {
        let next = in_edges.step(g, damping, &r);
        let change: f64 = next.iter().zip(&r).map(|(a, b)| (a - b).abs()).sum();
        r = next;
        if change < REFERENCE_TOLERANCE {
            return (r, step);
        }
    }
    (r, REFERENCE_MAX_STEPS)
}

/// Checks PageRank scores computed with damping `damping` and stopped at an L1 change below `tolerance`.
///
/// Passes when `‖candidate - r*‖₁ ≤ d/(1-d) · tolerance + rounding`, where `rounding` allows every rank a relative
/// error of `unit_roundoff · (indegree + 3)` (the sum of its shares, the multiply-add, the division), amplified
/// by `1/(1-d)` over the steps, as errors made in one step shrink by `d` in each later one. Pass the candidate's
/// unit roundoff: `2^-53` for `f64` ranks, `2^-24` for `f32`.
pub fn check_pagerank(
    g: &Csr,
    damping: f64,
    tolerance: f64,
    unit_roundoff: f64,
    candidate: &[f64],
) -> Result<PageRankSummary, Mismatch> {
    check_len("PageRank scores", g, candidate.len())?;
    if !(0.0..1.0).contains(&damping) {
        let reason = format!("the damping factor must be in [0, 1), not {damping}");
        return Err(Mismatch::Unsupported { what: "PageRank", reason });
    }
    if !(tolerance >= 0.0 && tolerance.is_finite()) {
        let reason = format!("the tolerance must be a finite number >= 0, not {tolerance}");
        return Err(Mismatch::Unsupported { what: "PageRank", reason });
    }
    let (expected, reference_steps) = pagerank(g, damping);
    let mut indegree = vec![0u64; expected.len()];
    for &v in &g.col {
        indegree[v as usize] += 1;
    }
    let rounding: f64 = expected.iter().zip(&indegree).map(|(r, &k)| r * unit_roundoff * (k as f64 + 3.0)).sum::<f64>()
        / (1.0 - damping);
    let allowed = damping / (1.0 - damping) * tolerance + rounding;
    let diff = |v: usize| (candidate[v] - expected[v]).abs();
    let l1_error: f64 = (0..candidate.len()).map(diff).sum();
    if l1_error.is_nan() || l1_error > allowed {
        let worst = (0..candidate.len()).max_by(|&a, &b| diff(a).total_cmp(&diff(b))).unwrap_or(0);
        let found = if candidate.is_empty() {
            format!("{l1_error:.3e}")
        } else {
            format!(
                "{l1_error:.3e} (the largest difference at node {}: expected {:.6e}, found {:.6e})",
                g.labels.label(worst as u32),
                expected[worst],
                candidate[worst]
            )
        };
        return Err(Mismatch::Total {
            what: "PageRank L1 distance from the fixed point",
            expected: format!("at most {allowed:.3e}"),
            found,
        });
    }
    // A converged result `x = T(y)` with `‖x - y‖₁ < ε` also has `‖T(x) - x‖₁ ≤ d‖x - y‖₁ < d ε`. This catches a
    // result stopped early that the distance bound lets through when `d` is near 1 (`d/(1-d)` grows without end).
    let stepped = pagerank_step(g, damping, candidate);
    let residual: f64 = stepped.iter().zip(candidate).map(|(a, b)| (a - b).abs()).sum();
    let residual_allowed = damping * tolerance + rounding;
    if residual.is_nan() || residual > residual_allowed {
        return Err(Mismatch::Total {
            what: "PageRank L1 residual ‖T(x) - x‖₁ (a converged result's is below damping × tolerance)",
            expected: format!("at most {residual_allowed:.3e}"),
            found: format!("{residual:.3e}: the ranks were not iterated to the tolerance"),
        });
    }
    let max_relative_error =
        (0..candidate.len()).map(|v| diff(v) / expected[v].abs().max(f64::MIN_POSITIVE)).fold(0.0, f64::max);
    Ok(PageRankSummary {
        l1_error,
        allowed,
        residual,
        max_relative_error,
        rank_sum: expected.iter().sum(),
        reference_steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{directed, undirected};

    const F64_ROUNDOFF: f64 = f64::EPSILON / 2.0;

    #[test]
    fn a_symmetric_cycle_has_uniform_ranks() {
        let g = undirected(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let (r, _) = pagerank(&g, 0.85);
        for x in &r {
            assert!((x - 0.25).abs() < 1e-15, "{r:?}");
        }
        let ok = check_pagerank(&g, 0.85, 1e-4, F64_ROUNDOFF, &[0.25; 4]).unwrap();
        assert!(ok.l1_error < 1e-14 && ok.residual < 1e-14, "{ok:?}");
        assert!((ok.rank_sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_parallel_pull_step_equals_the_push_step_bit_for_bit() {
        // Parallel arcs, a self loop, a dangling node (5) and one with no in-edges (6); uneven ranks.
        let edges = [(0, 1), (0, 1), (1, 2), (2, 0), (2, 2), (3, 1), (4, 3), (0, 5), (6, 0), (2, 4), (1, 4), (3, 0)];
        let g = directed(7, &edges);
        let r: Vec<f64> = (0..7).map(|i| 1.0 / (3.0 + i as f64 * 1.7)).collect();
        let pulled = InEdges::of(&g).step(&g, 0.85, &r);
        let pushed = pagerank_step(&g, 0.85, &r);
        assert_eq!(
            pulled.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            pushed.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn dangling_nodes_leak_rank_as_in_gap() {
        // 0 -> 1, 1 dangling: r1 = b + d r0, r0 = b, with b = 0.15 / 2.
        let g = directed(2, &[(0, 1)]);
        let (r, _) = pagerank(&g, 0.85);
        let b = 0.15 / 2.0;
        assert!((r[0] - b).abs() < 1e-15 && (r[1] - (b + 0.85 * b)).abs() < 1e-15, "{r:?}");
    }

    #[test]
    fn a_result_stopped_early_fails_even_when_damping_near_one_loosens_the_distance_bound() {
        let g = directed(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 0), (1, 3)]);
        let d = 0.9999;
        // One step from uniform ranks: far from converged, but within d/(1-d) · 1e-4 ≈ 1 of the fixed point.
        let one_step = pagerank_step(&g, d, &[0.2; 5]);
        let err = check_pagerank(&g, d, 1e-4, F64_ROUNDOFF, &one_step).unwrap_err().to_string();
        assert!(err.contains("were not iterated to the tolerance"), "{err}");
    }

    #[test]
    fn the_bound_follows_the_tolerance() {
        let g = directed(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 0), (1, 3)]);
        let (exact, _) = pagerank(&g, 0.85);
        // Stop a plain iteration at an L1 change below 1e-4, as a program would: it must pass.
        let mut r = vec![0.2; 5];
        loop {
            let next = pagerank_step(&g, 0.85, &r);
            let change: f64 = next.iter().zip(&r).map(|(a, b)| (a - b).abs()).sum();
            r = next;
            if change < 1e-4 {
                break;
            }
        }
        let ok = check_pagerank(&g, 0.85, 1e-4, F64_ROUNDOFF, &r).unwrap();
        assert!(ok.l1_error <= 0.85 / 0.15 * 1e-4 && ok.residual < 1e-4, "{ok:?}");
        // Off by 1e-3 at one node: more than 5.67e-4 allows.
        let mut bad = exact.clone();
        bad[3] += 1e-3;
        let err = check_pagerank(&g, 0.85, 1e-4, F64_ROUNDOFF, &bad).unwrap_err().to_string();
        assert!(err.starts_with("PageRank L1 distance from the fixed point: expected at most 5.667e-4"), "{err}");
        assert!(err.contains("at node 103"), "{err}");
        // The ranks of another damping factor fail, and so does NaN.
        let (other, _) = pagerank(&g, 0.8);
        assert!(check_pagerank(&g, 0.85, 1e-4, F64_ROUNDOFF, &other).is_err());
        bad = exact;
        bad[0] = f64::NAN;
        assert!(check_pagerank(&g, 0.85, 1e-4, F64_ROUNDOFF, &bad).is_err());
    }

    #[test]
    fn rejects_bad_parameters_and_shapes() {
        let g = directed(2, &[(0, 1)]);
        assert!(matches!(check_pagerank(&g, 1.0, 1e-4, 0.0, &[0.5; 2]), Err(Mismatch::Unsupported { .. })));
        assert!(matches!(check_pagerank(&g, 0.85, f64::NAN, 0.0, &[0.5; 2]), Err(Mismatch::Unsupported { .. })));
        assert!(matches!(check_pagerank(&g, 0.85, 1e-4, 0.0, &[0.5]), Err(Mismatch::Length { .. })));
    }
}
