//! The rounds figure of a run (`irgc run --plot`, `irgc plot STATS.json`): time per round above, the worklist's
//! size per round below (log scale), rounds where a `hybrid` ran its `dense` branch shaded in both. It is the
//! figure seed 002 (IPGC) reads its hybrid threshold from: where the frontier is large, the topology-driven
//! branch pays; where it is small, the data-driven one.
//!
//! A round is a round of the plan's `pipe`; a program without one (a `loop` that stops on a reduction) gets a
//! point per launch instead, its size being the launch's items, and a third panel with each launch's reduction
//! value (its convergence trace). A round such a loop ran inside its GPU kernel is one point among the launches,
//! with its clock time and first reduction, and no size.

use std::path::Path;

use anyhow::{anyhow, Result};
use irgc_runtime::{Mode, RunStep, Stats};
use plotters::prelude::*;

/// One point of the figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// The pipe round (from 1), or the launch's number for a program without a pipe.
    pub x: u64,
    /// Kernel time in the round, ms.
    pub ms: f64,
    /// The worklist's size when the round started (the launch's items without a pipe; none for a loop's round
    /// in its kernel).
    pub size: Option<u64>,
    pub dense: bool,
    /// The last reduction value of the round, if a kernel of it reduces.
    pub reduced: Option<f64>,
}

/// The figure's points, and what they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub rounds: Vec<Round>,
    /// `true` for pipe rounds, `false` for one point per launch.
    pub by_pipe: bool,
    /// The worklist the sizes are of (empty without a pipe).
    pub worklist: String,
    /// Whether some rounds ran inside an outlined pipe's or loop's kernel (their time is the GPU clock's, barriers
    /// included).
    pub clocked: bool,
}

impl Series {
    /// The points of `stats`: pipe rounds if the run had any, else launches (and loops' rounds in their kernels,
    /// where they ran among the launches).
    pub fn of(stats: &Stats) -> Series {
        if stats.pipe_rounds.is_empty() {
            let rounds = stats
                .in_run_order()
                .enumerate()
                .map(|(i, step)| {
                    let x = i as u64 + 1;
                    match step {
                        RunStep::Launch(l) => Round {
                            x,
                            ms: l.seconds * 1e3,
                            size: Some(l.items),
                            dense: l.mode == Some(Mode::Dense),
                            reduced: l.reduced,
                        },
                        RunStep::LoopRound(r) => Round { x, ms: r.ms, size: None, dense: false, reduced: r.reduced },
                    }
                })
                .collect();
            let clocked = !stats.loop_rounds.is_empty();
            return Series { rounds, by_pipe: false, worklist: String::new(), clocked };
        }
        let mut rounds: Vec<Round> = stats
            .pipe_rounds
            .iter()
            .map(|r| Round {
                x: r.round,
                ms: r.ms.unwrap_or(0.0),
                size: Some(r.size),
                dense: r.dense.unwrap_or(false),
                reduced: None,
            })
            .collect();
        // Launch records carry their pipe round; both lists are in order, so one pass pairs them.
        let mut at = 0;
        for l in &stats.launches {
            while at + 1 < rounds.len() && rounds[at].x < l.round {
                at += 1;
            }
            if let Some(r) = rounds.get_mut(at).filter(|r| r.x == l.round) {
                r.ms += l.seconds * 1e3;
                r.dense |= l.mode == Some(Mode::Dense);
                r.reduced = l.reduced.or(r.reduced);
            }
        }
        let worklist = stats.pipe_rounds[0].worklist.clone();
        let clocked = stats.pipe_rounds.iter().any(|r| r.ms.is_some());
        Series { rounds, by_pipe: true, worklist, clocked }
    }
}

const BLUE: RGBColor = RGBColor(31, 119, 180);
const ORANGE: RGBColor = RGBColor(214, 96, 39);
const GREEN: RGBColor = RGBColor(44, 140, 60);
const SHADE: RGBColor = RGBColor(255, 200, 120);

/// Draws `series` as an SVG at `path`, titled `title`.
pub fn draw(series: &Series, title: &str, path: &Path) -> Result<()> {
    if series.rounds.is_empty() {
        return Err(anyhow!("the run recorded no launches, so there is nothing to plot"));
    }
    let with_reduced = !series.by_pipe && series.rounds.iter().any(|r| r.reduced.is_some());
    let height = if with_reduced { 900 } else { 640 };
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let root = root.titled(title, ("sans-serif", 22)).map_err(plot_error)?;
    let panels = root.split_evenly((if with_reduced { 3 } else { 2 }, 1));
    let what = match (series.by_pipe, series.clocked) {
        (true, _) => "round",
        (false, false) => "launch",
        (false, true) => "launch or round in the kernel",
    };
    // Rounds sit at whole numbers, each owning the unit around it (so a shaded round is as wide as its step).
    let first = series.rounds[0].x as f64 - 0.5;
    let last = series.rounds.last().map_or(1, |r| r.x) as f64 + 0.5;
    let markers = series.rounds.len() <= 60;
    let whole = |v: &f64| if (v - v.round()).abs() < 1e-6 { format!("{v:.0}") } else { String::new() };

    let max_ms = series.rounds.iter().map(|r| r.ms).fold(0.0, f64::max).max(1e-3) * 1.1;
    let mut time = ChartBuilder::on(&panels[0])
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .caption(
            if series.clocked {
                format!("time per {what} (ms): kernel time from the host, the GPU clock inside the outlined kernel")
            } else {
                format!("kernel time per {what} (ms)")
            },
            ("sans-serif", 16),
        )
        .build_cartesian_2d(first..last, 0.0..max_ms)
        .map_err(plot_error)?;
    time.configure_mesh().x_label_formatter(&whole).x_desc(what).y_desc("ms").draw().map_err(plot_error)?;
    shade_dense(&mut time, series, 0.0, max_ms)?;
    let points: Vec<(f64, f64)> = series.rounds.iter().map(|r| (r.x as f64, r.ms)).collect();
    line(&mut time, points, BLUE, markers, "time")?;
    legend(&mut time)?;

    let max_size = series.rounds.iter().filter_map(|r| r.size).max().unwrap_or(1).max(1) as f64 * 2.0;
    let label = if series.by_pipe {
        format!("size of `{}` per round (log)", series.worklist)
    } else if series.clocked {
        "items per launch from the host (log; a round in the kernel has none)".to_string()
    } else {
        "items per launch (log)".to_string()
    };
    let mut size = ChartBuilder::on(&panels[1])
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .caption(label, ("sans-serif", 16))
        .build_cartesian_2d(first..last, (0.5..max_size).log_scale())
        .map_err(plot_error)?;
    size.configure_mesh()
        .x_label_formatter(&whole)
        .x_desc(what)
        .y_desc("items")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(plot_error)?;
    shade_dense(&mut size, series, 0.5, max_size)?;
    let points: Vec<(f64, f64)> =
        series.rounds.iter().filter_map(|r| Some((r.x as f64, (r.size? as f64).max(0.5)))).collect();
    let name = if series.by_pipe { "worklist items" } else { "items" };
    line(&mut size, points, ORANGE, markers, name)?;
    legend(&mut size)?;

    if with_reduced {
        let values: Vec<(f64, f64)> = series.rounds.iter().filter_map(|r| r.reduced.map(|v| (r.x as f64, v))).collect();
        let (lo, hi) = values.iter().fold((f64::MAX, f64::MIN), |(a, b), &(_, v)| (a.min(v), b.max(v)));
        let pad = ((hi - lo).abs() * 0.1).max(1e-9);
        let mut red = ChartBuilder::on(&panels[2])
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .caption(format!("reduction value per {what}"), ("sans-serif", 16))
            .build_cartesian_2d(first..last, (lo - pad)..(hi + pad))
            .map_err(plot_error)?;
        red.configure_mesh().x_label_formatter(&whole).x_desc(what).draw().map_err(plot_error)?;
        line(&mut red, values, GREEN, markers, "reduction")?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>;

/// A line through `points`, with a dot on each when there are few enough to tell apart.
fn line<'b, Y>(
    chart: &mut Chart<'b, 'b, Y>,
    points: Vec<(f64, f64)>,
    color: RGBColor,
    markers: bool,
    label: &str,
) -> Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    if markers {
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(plot_error)?;
    }
    chart
        .draw_series(LineSeries::new(points, color.stroke_width(2)))
        .map_err(plot_error)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    Ok(())
}

/// Shades the dense rounds of `series`, from `lo` to `hi` on the y axis (and names them in the legend if any).
fn shade_dense<'b, Y>(chart: &mut Chart<'b, 'b, Y>, series: &Series, lo: f64, hi: f64) -> Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    if !series.rounds.iter().any(|r| r.dense) {
        return Ok(());
    }
    let dense = series.rounds.iter().filter(|r| r.dense);
    let x = |r: &Round| r.x as f64;
    chart
        .draw_series(dense.map(|r| Rectangle::new([(x(r) - 0.5, lo), (x(r) + 0.5, hi)], SHADE.mix(0.45).filled())))
        .map_err(plot_error)?
        .label("dense (topology-driven) rounds")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], SHADE.mix(0.45).filled()));
    Ok(())
}

fn legend<'b, Y: Ranged<ValueType = f64>>(chart: &mut Chart<'b, 'b, Y>) -> Result<()> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(plot_error)
}

fn plot_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the figure: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_runtime::{LaunchRecord, PipeRound};

    fn launch(round: u64, ms: f64, mode: Option<Mode>) -> LaunchRecord {
        LaunchRecord {
            round,
            kernel: "k".into(),
            items: 7,
            pushed: vec![],
            retry: 0,
            mode,
            reduced: None,
            seconds: ms / 1e3,
        }
    }

    #[test]
    fn pipe_rounds_sum_their_launches_and_take_the_dense_mode() {
        let stats = Stats {
            launches: vec![
                launch(0, 1.0, None),
                launch(1, 2.0, Some(Mode::Sparse)),
                launch(2, 3.0, Some(Mode::Dense)),
                launch(2, 4.0, Some(Mode::Dense)),
            ],
            pipe_rounds: vec![
                PipeRound { worklist: "w".into(), round: 1, size: 1, ms: None, dense: None },
                PipeRound { worklist: "w".into(), round: 2, size: 50, ms: None, dense: None },
                // Rounds run inside an outlined pipe's kernel bring their clock time and mode along.
                PipeRound { worklist: "w".into(), round: 3, size: 9, ms: Some(0.5), dense: Some(true) },
                PipeRound { worklist: "w".into(), round: 4, size: 2, ms: Some(0.25), dense: Some(false) },
            ],
            ..Stats::default()
        };
        let s = Series::of(&stats);
        assert!(s.by_pipe && s.clocked);
        assert_eq!(s.worklist, "w");
        assert_eq!(
            s.rounds.iter().map(|r| (r.x, r.ms, r.size, r.dense)).collect::<Vec<_>>(),
            [(1, 2.0, Some(1), false), (2, 7.0, Some(50), true), (3, 0.5, Some(9), true), (4, 0.25, Some(2), false)]
        );
    }

    #[test]
    fn a_loops_kernel_rounds_are_points_among_its_launches() {
        use irgc_runtime::LoopRound;
        let in_kernel =
            |after_launches, reduced| LoopRound { round: 0, iteration: 0, after_launches, reduced, ms: 0.1 };
        let stats = Stats {
            launches: vec![launch(0, 1.0, None), launch(0, 2.0, None)],
            loop_rounds: vec![in_kernel(1, Some(3.0)), in_kernel(1, None), in_kernel(2, Some(1.0))],
            ..Stats::default()
        };
        let s = Series::of(&stats);
        assert!(!s.by_pipe && s.clocked);
        assert_eq!(
            s.rounds.iter().map(|r| (r.x, r.ms, r.size, r.reduced)).collect::<Vec<_>>(),
            [
                (1, 1.0, Some(7), None),
                (2, 0.1, None, Some(3.0)),
                (3, 0.1, None, None),
                (4, 2.0, Some(7), None),
                (5, 0.1, None, Some(1.0)),
            ]
        );
    }

    #[test]
    fn without_a_pipe_every_launch_is_a_point() {
        let stats = Stats { launches: vec![launch(0, 1.0, None), launch(0, 2.0, None)], ..Stats::default() };
        let s = Series::of(&stats);
        assert!(!s.by_pipe);
        assert_eq!(s.rounds.iter().map(|r| r.x).collect::<Vec<_>>(), [1, 2]);
    }
}
