//! The rows of `irgc bench` and how they are shown: an aligned text table for people, a JSON array for scripts.
//!
//! Both carry the same fields, so a script never needs to parse the table; the JSON only adds what does not fit
//! a column (the verification's detail, the setup and load times at full precision).

use std::time::Duration;

use irgc_runtime::Quality;
use serde::Serialize;

/// Whether a row's first run gave the right answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verified {
    /// The program's declared check (or the baseline's reference) passed.
    Ok,
    /// It did not: the timing is worthless and the exit status says so.
    #[serde(rename = "FAILED")]
    Failed,
    /// The program declares no checkable output.
    None,
}

impl Verified {
    fn word(&self) -> &'static str {
        match self {
            Verified::Ok => "ok",
            Verified::Failed => "FAILED",
            Verified::None => "-",
        }
    }
}

/// One program (or baseline) on one graph.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The program's file stem (the baseline's program, for `rust` rows).
    pub program: String,
    /// With `--ablation`, the optimizer configuration it ran in: `all`, `-PASS` (that pass disabled) or `none`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    pub graph: String,
    pub n: u64,
    pub m: u64,
    /// `cpu` for irgc's CPU backend, `cuda` for the GPU, `rust` for a hand-written baseline; `cpu×N` or `cuda×N`
    /// on N devices.
    pub backend: String,
    /// Devices the program ran on (1 unless `--devices`).
    pub devices: usize,
    /// Median time of the pairwise merges on several devices (part of `median_ms`).
    pub merge_ms: Option<f64>,
    /// How the merges moved arrays ("CUDA peer copies", "NCCL 2.27.3", ...), on several devices.
    pub moved_by: Option<String>,
    pub threads: usize,
    pub runs: usize,
    pub warmup: usize,
    /// Compute time of the timed runs: median, fastest, slowest (milliseconds).
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Median setup time (allocating and initialising the program's arrays), not part of `median_ms`.
    pub setup_ms: f64,
    /// Time to load (or generate) the graph, once for all rows of that graph.
    pub load_s: f64,
    /// Kernel launches of the median run (parallel phases, for baselines).
    pub launches: u64,
    /// Millions of edges per second: `m / median`.
    pub mteps: f64,
    /// Effective bandwidth: `bytes / median`, in GB/s (10^9 bytes).
    pub gbps: f64,
    /// Bytes of the CSR read once: `8 (n + 1) + 4 m`, plus the weights if the program reads them.
    pub bytes: u64,
    pub verified: Verified,
    /// The quality of the first run's result, one per checked output that rates it (colours, matching weight,
    /// modularity; see [`Quality`]): empty for checks with one right answer, baselines and failed checks.
    pub quality: Vec<Quality>,
    /// The reference's summary, or the mismatch.
    pub verify_detail: String,
    /// With `--ablation --recheck`: this row replaced a flagged program's first, one-pass measurement.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rechecked: bool,
}

/// The timing summary of a set of runs.
pub struct Timing {
    pub median: Duration,
    pub min: Duration,
    pub max: Duration,
    /// Index (into the given runs) of the run taken as the median, for its launch count.
    pub median_index: usize,
}

/// Median, min and max of `times` (not empty). With an even count the median is the mean of the middle two, and
/// `median_index` points at the lower one.
pub fn summarize(times: &[Duration]) -> Timing {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by_key(|&i| times[i]);
    let k = order.len();
    let lower = order[(k - 1) / 2];
    let median = if k % 2 == 1 { times[lower] } else { (times[lower] + times[order[k / 2]]) / 2 };
    Timing { median, min: times[order[0]], max: times[order[k - 1]], median_index: lower }
}

/// Bytes of the CSR read once: row offsets (`u64`), destinations (`u32`), and `weight_size`-byte weights if read.
pub fn csr_bytes(n: u64, m: u64, weight_size: Option<usize>) -> u64 {
    8 * (n + 1) + 4 * m + weight_size.map_or(0, |s| s as u64 * m)
}

/// Millions of traversed edges per second, and GB/s, for `m` edges and `bytes` in `median`.
pub fn rates(m: u64, bytes: u64, median: Duration) -> (f64, f64) {
    let s = median.as_secs_f64();
    if s == 0.0 {
        return (0.0, 0.0);
    }
    (m as f64 / s / 1e6, bytes as f64 / s / 1e9)
}

/// A millisecond figure with about four significant digits, so 0.042 and 8123 both read well in one column.
pub(super) fn ms(x: f64) -> String {
    if x >= 1000.0 {
        format!("{x:.0}")
    } else if x >= 100.0 {
        format!("{x:.1}")
    } else if x >= 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// The quality cell: each rated output's quality, `-` when none is rated.
fn quality(q: &[Quality]) -> String {
    if q.is_empty() {
        return "-".to_string();
    }
    q.iter().map(Quality::to_string).collect::<Vec<_>>().join("; ")
}

/// The aligned text table: text columns left-aligned, numbers right-aligned. The quality column stands beside the
/// times, so a faster row with a worse answer (more colours, a lighter matching) reads as such.
pub fn text(rows: &[Row]) -> String {
    const HEAD: [&str; 14] = [
        "program",
        "graph",
        "n",
        "m",
        "backend",
        "median ms",
        "min",
        "max",
        "quality",
        "setup ms",
        "launches",
        "MTEPS",
        "GB/s",
        "verified",
    ];
    // Which columns are text (left-aligned).
    const LEFT: [bool; 14] =
        [true, true, false, false, true, false, false, false, true, false, false, false, false, true];
    let cells: Vec<[String; 14]> = rows
        .iter()
        .map(|r| {
            [
                r.program.clone(),
                r.graph.clone(),
                r.n.to_string(),
                r.m.to_string(),
                r.backend.clone(),
                ms(r.median_ms),
                ms(r.min_ms),
                ms(r.max_ms),
                quality(&r.quality),
                ms(r.setup_ms),
                r.launches.to_string(),
                format!("{:.1}", r.mteps),
                format!("{:.2}", r.gbps),
                r.verified.word().to_string(),
            ]
        })
        .collect();
    aligned(&HEAD.map(String::from), &cells, |c| LEFT[c])
}

/// Rows of cells as aligned text: the header, a rule of dashes under it, then the rows, two spaces between columns;
/// column `c` left-aligned where `left(c)` (text), right-aligned otherwise (numbers); trailing spaces trimmed.
pub(super) fn aligned<R: AsRef<[String]>>(head: &[String], rows: &[R], left: impl Fn(usize) -> bool) -> String {
    let mut width: Vec<usize> = head.iter().map(|s| s.chars().count()).collect();
    for r in rows {
        for (w, s) in width.iter_mut().zip(r.as_ref()) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| if left(c) { format!("{s:<w$}", w = width[c]) } else { format!("{s:>w$}", w = width[c]) })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(head);
    out += &line(&width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for r in rows {
        out += &line(r.as_ref());
    }
    out
}

/// A verified CPU row of `rem` on a small graph, for the tests of the tables that read rows.
#[cfg(test)]
pub(super) fn example_row() -> Row {
    Row {
        program: "rem".into(),
        config: None,
        graph: "g".into(),
        n: 10,
        m: 20,
        backend: "cpu".into(),
        devices: 1,
        merge_ms: None,
        moved_by: None,
        threads: 2,
        runs: 3,
        warmup: 1,
        median_ms: 1.5,
        min_ms: 1.25,
        max_ms: 2048.0,
        setup_ms: 0.1,
        load_s: 0.0,
        launches: 3,
        mteps: 13.3,
        gbps: 0.1,
        bytes: 168,
        verified: Verified::Ok,
        quality: Vec::new(),
        verify_detail: String::new(),
        rechecked: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn median_min_max() {
        let t = summarize(&[d(5), d(1), d(3)]);
        assert_eq!((t.median, t.min, t.max, t.median_index), (d(3), d(1), d(5), 2));
        let t = summarize(&[d(4), d(2), d(8), d(6)]);
        assert_eq!((t.median, t.min, t.max, t.median_index), (d(5), d(2), d(8), 0));
        assert_eq!(summarize(&[d(7)]).median, d(7));
    }

    #[test]
    fn bytes_and_rates() {
        assert_eq!(csr_bytes(3, 4, None), 8 * 4 + 16);
        assert_eq!(csr_bytes(3, 4, Some(4)), 8 * 4 + 32);
        let (mteps, gbps) = rates(2_000_000, 3_000_000_000, d(1000));
        assert!((mteps - 2.0).abs() < 1e-9 && (gbps - 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_table_is_aligned() {
        let t = text(&[example_row()]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("program  graph   n   m  backend  median ms"));
        assert!(lines[2].contains("1.500") && lines[2].contains(" 2048 ") && lines[2].ends_with("ok"));
        // No rated output: the quality cell is a dash, under its heading.
        let at = lines[0].find("quality").unwrap();
        assert_eq!(&lines[2][at..at + 1], "-");
    }

    #[test]
    fn the_quality_column_shows_each_rated_output() {
        let mut a = example_row();
        a.quality = vec![Quality::Coloring { colors: 27 }];
        let mut b = example_row();
        b.program = "louvain".into();
        b.quality = vec![
            Quality::Communities { modularity: 0.631_249, communities: 3656 },
            Quality::Matching { matched_pairs: 12, weight: 40.0 },
        ];
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json["quality"][0]["communities"], 3656);
        assert_eq!(json["quality"][1], serde_json::json!({ "matched_pairs": 12, "weight": 40.0 }));
        let t = text(&[a, b]);
        let lines: Vec<&str> = t.lines().collect();
        let at = lines[0].find("quality").unwrap();
        assert!(lines[2][at..].starts_with("27 colours "), "{t}");
        assert!(lines[3][at..].starts_with("Q 0.6312 (3656); 12 pairs, w 40 "), "{t}");
    }
}
