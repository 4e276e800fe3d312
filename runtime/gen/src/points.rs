//! Random points in the unit square, shared by the geometric generators.

use rayon::prelude::*;

use crate::rng::{domain, Rng, CHUNK};

/// `n` points uniform in `[0, 1)^2`; point `i` is the same for a given seed whatever `n` is (it depends only on
/// its chunk's stream and position), so a smaller instance is a prefix of a larger one.
pub fn random_points(n: u32, seed: u64) -> Vec<[f64; 2]> {
    let mut points = vec![[0.0; 2]; n as usize];
    points.par_chunks_mut(CHUNK).enumerate().for_each(|(chunk, points)| {
        let mut rng = Rng::new(seed, domain::POINTS, chunk as u64);
        for p in points {
            *p = [rng.next_f64(), rng.next_f64()];
        }
    });
    points
}
