//! The ablation figure (`irgc bench --ablation --plot FILE.svg`): the ablation table as a heat map. A line per
//! program and graph, a column per configuration; each cell shows its median time, coloured by how it compares
//! with every pass on — green where turning the pass off is slower (the pass helps), red where it is faster (the
//! pass hurts), white where they are within 5%; grey `=` where the pass does not change the program.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::ablation::{cell, lines, names, rechecked, ALL};
use super::table::{Row, Verified};

const CELL_W: i32 = 118;
const CELL_H: i32 = 40;
const HELPS: RGBColor = RGBColor(46, 160, 67);
const HURTS: RGBColor = RGBColor(214, 39, 40);
const SAME: RGBColor = RGBColor(235, 235, 235);
/// Within this ratio of "all passes" a cell stays white.
const EVEN: f64 = 1.05;
/// At this ratio (or its inverse) a cell has its full colour.
const FULL: f64 = 4.0;

/// The fill of a cell that took `ratio` times as long as with every pass on.
fn shade(ratio: f64) -> RGBColor {
    if (1.0 / EVEN..=EVEN).contains(&ratio) {
        return WHITE;
    }
    let (base, r) = if ratio > 1.0 { (HELPS, ratio) } else { (HURTS, 1.0 / ratio) };
    // Strength on a log scale: from the 5% band to FULL.
    let t = ((r.ln() - EVEN.ln()) / (FULL.ln() - EVEN.ln())).clamp(0.15, 1.0);
    let mix = |c: u8| (255.0 - (255.0 - f64::from(c)) * t).round() as u8;
    RGBColor(mix(base.0), mix(base.1), mix(base.2))
}

/// Draws the rows of an `--ablation` bench as an SVG heat map at `path`.
pub fn draw(rows: &[Row], path: &Path) -> Result<()> {
    let configs = names();
    let keys = lines(rows);
    if keys.is_empty() {
        return Err(anyhow!("the benchmark has no rows to plot"));
    }
    // A line that `--recheck` ran again carries its mark, as in the table.
    let label = |(p, g): (&str, &str)| format!("{p} @ {g}{}", if rechecked(rows, (p, g)) { " ↻" } else { "" });
    let label_w = (keys.iter().map(|k| label(*k).chars().count()).max().unwrap_or(10) as i32 * 8).clamp(140, 560);
    let (top, left) = (96, label_w + 24);
    let width = (left + CELL_W * configs.len() as i32 + 24) as u32;
    let height = (top + CELL_H * keys.len() as i32 + 24) as u32;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let backend = rows.first().map_or("", |r| r.backend.as_str());
    let first = rows.iter().find(|r| !r.rechecked).unwrap_or(&rows[0]);
    let again =
        rows.iter().find(|r| r.rechecked).map_or(String::new(), |r| format!(", of {} on lines marked ↻", r.runs));
    let title = format!("irgc bench --ablation ({backend}; ms, the median of {} run(s){again})", first.runs);
    root.draw(&Text::new(title, (16, 12), ("sans-serif", 20))).map_err(plot_error)?;
    let legend = "colour: against every pass on — green: turning the pass off is slower (it helps), red: faster \
                  (it hurts); = : the pass changes nothing here";
    root.draw(&Text::new(legend, (16, 40), ("sans-serif", 13))).map_err(plot_error)?;
    let centre = Pos::new(HPos::Center, VPos::Center);
    for (c, name) in configs.iter().enumerate() {
        let x = left + CELL_W * c as i32 + CELL_W / 2;
        let style = ("sans-serif", 15).into_font().style(FontStyle::Bold).into_text_style(&root).pos(centre);
        root.draw(&Text::new(name.clone(), (x, top - 16), style)).map_err(plot_error)?;
    }
    for (i, key) in keys.iter().enumerate() {
        let y = top + CELL_H * i as i32;
        let style = ("sans-serif", 14).into_text_style(&root).pos(Pos::new(HPos::Right, VPos::Center));
        root.draw(&Text::new(label(*key), (left - 10, y + CELL_H / 2), style)).map_err(plot_error)?;
        let of = |config: &str| cell(rows, *key, config);
        let all = of(ALL).filter(|r| r.verified != Verified::Failed).map(|r| r.median_ms);
        for (c, name) in configs.iter().enumerate() {
            let x = left + CELL_W * c as i32;
            let (fill, text, ratio) = match of(name) {
                None => (SAME, "=".to_string(), None),
                Some(r) if r.verified == Verified::Failed => (HURTS, "wrong answer".to_string(), None),
                Some(r) => match all {
                    Some(a) if a > 0.0 && name != ALL => {
                        let ratio = r.median_ms / a;
                        (shade(ratio), super::table::ms(r.median_ms), Some(ratio))
                    }
                    _ => (WHITE, super::table::ms(r.median_ms), None),
                },
            };
            let cell = Rectangle::new([(x + 1, y + 1), (x + CELL_W - 1, y + CELL_H - 1)], fill.filled());
            root.draw(&cell).map_err(plot_error)?;
            let outline = Rectangle::new([(x, y), (x + CELL_W, y + CELL_H)], RGBColor(200, 200, 200).stroke_width(1));
            root.draw(&outline).map_err(plot_error)?;
            let main = ("sans-serif", 15).into_text_style(&root).pos(centre);
            let mid = if ratio.is_some() { y + CELL_H / 2 - 7 } else { y + CELL_H / 2 };
            root.draw(&Text::new(text, (x + CELL_W / 2, mid), main)).map_err(plot_error)?;
            if let Some(ratio) = ratio {
                let small = ("sans-serif", 11).into_text_style(&root).pos(centre);
                let note = format!("{ratio:.2}× all");
                root.draw(&Text::new(note, (x + CELL_W / 2, y + CELL_H / 2 + 10), small)).map_err(plot_error)?;
            }
        }
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

fn plot_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the figure: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_within_five_percent_are_white_and_the_sign_picks_the_colour() {
        assert_eq!(shade(1.0), WHITE);
        assert_eq!(shade(1.04), WHITE);
        let (helps, hurts) = (shade(2.0), shade(0.5));
        assert!(helps.1 > helps.0, "green: {helps:?}");
        assert!(hurts.0 > hurts.1, "red: {hurts:?}");
        assert_eq!(shade(100.0), HELPS, "saturates");
        assert!(shade(1.2).1 > shade(3.0).1, "stronger further from 1");
    }
}
