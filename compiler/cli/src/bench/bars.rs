//! The bench figure (`irgc bench --plot FILE.svg`): one horizontal bar per row of the table (program on graph),
//! its length the median compute time, the min–max range of the runs as a whisker, and the median printed at its
//! end. Rows that span more than two decades get a log axis, so a 1 ms row stays visible beside a 1 s one.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;

use super::table::{Row, Verified};

/// One colour per program (tab10's first five), so a program's rows read as one series across graphs.
const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];
const FAILED: RGBColor = RGBColor(200, 40, 40);

/// Draws `rows` as an SVG at `path`.
pub fn draw(rows: &[Row], path: &Path) -> Result<()> {
    if rows.is_empty() {
        return Err(anyhow!("the benchmark has no rows to plot"));
    }
    let label = |r: &Row| format!("{} @ {}", r.program, r.graph);
    let height = 110 + 34 * rows.len() as u32;
    let root = SVGBackend::new(path, (1100, height)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let backend = rows.first().map_or("", |r| r.backend.as_str());
    let title = format!("irgc bench: median compute time ({backend}, {} runs)", rows[0].runs);
    let lo = rows.iter().map(|r| r.min_ms.max(1e-4)).fold(f64::MAX, f64::min);
    let hi = rows.iter().map(|r| r.max_ms.max(r.median_ms)).fold(0.0, f64::max).max(1e-3);
    let longest = rows.iter().map(|r| label(r).len()).max().unwrap_or(10) as u32;
    let y_labels = (longest * 8).clamp(120, 520);
    let n = rows.len() as f64;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(16).caption(title, ("sans-serif", 20)).x_label_area_size(40).y_label_area_size(y_labels);
    // Row i sits at y = i (the first row on top); a tick is labelled only at a whole row.
    let ticks = |y: &f64| {
        let i = (n - 1.0 - y).round();
        if (n - 1.0 - y - i).abs() < 1e-6 && i >= 0.0 {
            rows.get(i as usize).map(label).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let y_range = -0.6..n - 0.4;
    if hi / lo > 100.0 {
        let mut chart = builder.build_cartesian_2d((lo / 2.0..hi * 4.0).log_scale(), y_range).map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("median ms (log scale)")
            .y_label_formatter(&ticks)
            .y_labels(rows.len() * 2 + 1)
            .disable_y_mesh()
            .draw()
            .map_err(plot_error)?;
        bars(&mut chart, rows, lo / 2.0)?;
    } else {
        let mut chart = builder.build_cartesian_2d(0.0..hi * 1.25, y_range).map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("median ms")
            .y_label_formatter(&ticks)
            .y_labels(rows.len() * 2 + 1)
            .disable_y_mesh()
            .draw()
            .map_err(plot_error)?;
        bars(&mut chart, rows, 0.0)?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// The bars (one colour per program), whiskers and value labels, on either axis kind; `base` is where bars
/// start.
fn bars<X>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>,
    rows: &[Row],
    base: f64,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
{
    let mut programs: Vec<&str> = rows.iter().map(|r| r.program.as_str()).collect();
    programs.dedup();
    programs.sort_unstable();
    programs.dedup();
    let n = rows.len() as f64;
    for (i, r) in rows.iter().enumerate() {
        let y = n - 1.0 - i as f64;
        let failed = matches!(r.verified, Verified::Failed);
        let k = programs.iter().position(|p| *p == r.program).unwrap_or(0);
        let color = if failed { FAILED } else { PALETTE[k % PALETTE.len()] };
        let bar = Rectangle::new([(base, y - 0.35), (r.median_ms.max(base), y + 0.35)], color.mix(0.85).filled());
        chart.plotting_area().draw(&bar).map_err(plot_error)?;
        let whisker = PathElement::new(vec![(r.min_ms.max(base), y), (r.max_ms.max(base), y)], BLACK.stroke_width(2));
        chart.plotting_area().draw(&whisker).map_err(plot_error)?;
        let note = if failed { " (wrong answer)" } else { "" };
        let text = format!(" {:.3} ms{note}", r.median_ms);
        let at = (r.max_ms.max(r.median_ms), y + 0.12);
        chart.plotting_area().draw(&Text::new(text, at, ("sans-serif", 14))).map_err(plot_error)?;
    }
    Ok(())
}

fn plot_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the figure: {e}")
}
