//! Launch shapes: how many blocks of how many threads run a kernel over `size` iterations.
//!
//! The PTX backend's kernels loop over their space (a grid-stride loop over iterations; tile kernels loop over
//! tiles by block index), so any grid is correct and the grid only trades parallelism against per-block overhead:
//! a few resident blocks per multiprocessor is enough to hide latency, and more only adds scheduling. Tile kernels
//! must run with exactly `product(threads)` threads per block (their PTX says so with `.reqntid`).

use irgc_artifact::Space;

/// Threads per block of an ordinary (`forall`) kernel: the PTX backend's `.maxntid`.
pub const FORALL_BLOCK: u32 = 256;
/// Blocks per multiprocessor for ordinary kernels.
pub const FORALL_BLOCKS_PER_SM: u64 = 8;
/// Blocks per multiprocessor for tile kernels (smaller blocks of shared-memory work: more of them fit).
pub const TILE_BLOCKS_PER_SM: u64 = 16;
/// The most threads a block may have on every GPU irgc supports.
pub const MAX_BLOCK: u64 = 1024;

/// A grid of `grid` blocks of `block` threads (both one-dimensional: the kernels index with `.x` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: u32,
    pub block: u32,
}

/// The threads per block a kernel over `space` must or may use: `product(threads)` for tiles, else
/// [`FORALL_BLOCK`]. Fails (with the reason) for a tile shape no GPU can run.
pub fn block_threads(space: &Space) -> Result<u32, String> {
    match space {
        Space::Tiles { threads, .. } => {
            let product = threads.iter().try_fold(1u64, |acc, &t| acc.checked_mul(t as u64)).unwrap_or(u64::MAX);
            if product == 0 || product > MAX_BLOCK {
                let shown: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
                return Err(format!(
                    "its tiles have {} threads ({}), but a GPU block has between 1 and {MAX_BLOCK}",
                    product,
                    shown.join(" x ")
                ));
            }
            Ok(product as u32)
        }
        _ => Ok(FORALL_BLOCK),
    }
}

/// The launch shape for `size` iterations (tiles, for a tile kernel) of a kernel over `space` on a GPU with `sms`
/// multiprocessors: ordinary kernels get `min(ceil(size / 256), sms × 8)` blocks of 256 threads, tile kernels
/// `min(tiles, sms × 16)` blocks of `product(threads)`; always at least one block.
pub fn launch_shape(space: &Space, size: u64, sms: u32) -> Result<LaunchShape, String> {
    let block = block_threads(space)?;
    let (wanted, cap) = match space {
        Space::Tiles { .. } => (size, sms as u64 * TILE_BLOCKS_PER_SM),
        _ => (size.div_ceil(FORALL_BLOCK as u64), sms as u64 * FORALL_BLOCKS_PER_SM),
    };
    let grid = wanted.min(cap).clamp(1, i32::MAX as u64) as u32;
    Ok(LaunchShape { grid, block })
}

/// The launch shape of a kernel that deals small rounds out block by block ([`irgc_artifact::KernelDesc::deals`]),
/// on a skewed graph: a block per item, up to the ordinary cap (`sms × 8`), and never fewer blocks than
/// [`launch_shape`] gives. With the ordinary shape, 40 heavy items would all sit in the first block.
pub fn dealing_shape(space: &Space, size: u64, sms: u32) -> Result<LaunchShape, String> {
    let plain = launch_shape(space, size, sms)?;
    let dealt = size.min(sms as u64 * FORALL_BLOCKS_PER_SM).clamp(1, i32::MAX as u64) as u32;
    Ok(LaunchShape { grid: plain.grid.max(dealt), block: plain.block })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(threads: Vec<u32>) -> Space {
        Space::Tiles { dims: 1, threads }
    }

    #[test]
    fn ordinary_kernels_get_256_threads_and_a_capped_grid() {
        let sms = 132; // H100 SXM
        assert_eq!(launch_shape(&Space::Nodes, 1, sms).unwrap(), LaunchShape { grid: 1, block: 256 });
        assert_eq!(launch_shape(&Space::Nodes, 256, sms).unwrap(), LaunchShape { grid: 1, block: 256 });
        assert_eq!(launch_shape(&Space::Edges, 257, sms).unwrap(), LaunchShape { grid: 2, block: 256 });
        assert_eq!(launch_shape(&Space::Worklist(0), 1 << 30, sms).unwrap(), LaunchShape { grid: 1056, block: 256 });
        // Dealing: a block per item up to the cap, never fewer blocks than the ordinary shape.
        assert_eq!(dealing_shape(&Space::Worklist(0), 40, sms).unwrap(), LaunchShape { grid: 40, block: 256 });
        assert_eq!(dealing_shape(&Space::Worklist(0), 0, sms).unwrap(), LaunchShape { grid: 1, block: 256 });
        assert_eq!(dealing_shape(&Space::Worklist(0), 5000, sms).unwrap(), LaunchShape { grid: 1056, block: 256 });
        assert_eq!(dealing_shape(&Space::Worklist(0), 1 << 30, sms).unwrap(), LaunchShape { grid: 1056, block: 256 });
        assert_eq!(launch_shape(&Space::Range { dims: 2 }, 0, sms).unwrap().grid, 1);
    }

    #[test]
    fn tile_kernels_get_one_block_per_tile_up_to_a_cap() {
        let s = tiles(vec![32, 32]);
        assert_eq!(launch_shape(&s, 1, 132).unwrap(), LaunchShape { grid: 1, block: 1024 });
        assert_eq!(launch_shape(&s, 100, 132).unwrap(), LaunchShape { grid: 100, block: 1024 });
        assert_eq!(launch_shape(&s, 1 << 20, 132).unwrap(), LaunchShape { grid: 132 * 16, block: 1024 });
        assert_eq!(launch_shape(&tiles(vec![16, 8]), 5, 8).unwrap(), LaunchShape { grid: 5, block: 128 });
    }

    #[test]
    fn impossible_tile_shapes_are_refused_with_the_reason() {
        let e = block_threads(&tiles(vec![64, 32])).unwrap_err();
        assert!(e.contains("2048 threads (64 x 32)"), "{e}");
        assert!(block_threads(&tiles(vec![0])).is_err());
        assert!(block_threads(&tiles(vec![u32::MAX, u32::MAX, u32::MAX])).is_err());
    }
}
