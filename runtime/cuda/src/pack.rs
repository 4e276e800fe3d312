//! Elements to bytes and back, and how to fill an array with one value using the driver's memset.
//!
//! Device buffers hold packed little-endian elements of 1, 4 or 8 bytes (the kernel ABI); the runtime passes
//! values as `u64` bits. Packing and unpacking run in parallel: a graph's edge array can be a gigabyte.

use rayon::prelude::*;

/// Below this many elements, packing runs on one thread (spawning costs more than the work).
const PARALLEL_MIN: usize = 1 << 16;

/// The low `size` bytes of every element, packed; `pad_to` rounds the length up to a multiple of that many
/// bytes (at least one multiple), zero-filled.
pub fn pack(elems: &[u64], size: usize, pad_to: usize) -> Vec<u8> {
    let len = elems.len() * size;
    let padded = if pad_to > 1 { len.div_ceil(pad_to).max(1) * pad_to } else { len };
    let mut bytes = vec![0u8; padded];
    let put = |(dst, &v): (&mut [u8], &u64)| dst.copy_from_slice(&v.to_le_bytes()[..size]);
    if elems.len() >= PARALLEL_MIN {
        bytes[..len].par_chunks_mut(size).zip(elems.par_iter()).for_each(put);
    } else {
        bytes[..len].chunks_mut(size).zip(elems.iter()).for_each(put);
    }
    bytes
}

/// Elements of `size` bytes, zero-extended to `u64`.
pub fn unpack(bytes: &[u8], size: usize) -> Vec<u64> {
    let get = |c: &[u8]| {
        let mut word = [0u8; 8];
        word[..size].copy_from_slice(c);
        u64::from_le_bytes(word)
    };
    if bytes.len() / size >= PARALLEL_MIN {
        bytes.par_chunks_exact(size).map(get).collect()
    } else {
        bytes.chunks_exact(size).map(get).collect()
    }
}

/// How to set every element of an array to one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Every byte is this one: `cuMemsetD8`.
    Bytes(u8),
    /// Every 4-byte word is this one: `cuMemsetD32`.
    Words(u32),
    /// An 8-byte element whose halves differ: the driver has no 64-bit memset, so the first elements are
    /// copied from the host and then doubled on the device.
    Pattern(u64),
}

/// The cheapest way to fill elements of `size` bytes with `bits` (its low `size` bytes).
pub fn fill_plan(size: usize, bits: u64) -> Fill {
    let v = if size == 8 { bits } else { bits & ((1u64 << (size * 8)) - 1) };
    let mut pattern = 0u64;
    for k in 0..8 / size {
        pattern |= v << (k * size * 8);
    }
    let bytes = pattern.to_le_bytes();
    if bytes.iter().all(|&b| b == bytes[0]) {
        Fill::Bytes(bytes[0])
    } else if pattern as u32 == (pattern >> 32) as u32 {
        Fill::Words(pattern as u32)
    } else {
        Fill::Pattern(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_every_size() {
        let vals = [0u64, 1, 0xAB, 0xFF];
        assert_eq!(pack(&vals, 1, 8), vec![0, 1, 0xAB, 0xFF, 0, 0, 0, 0]);
        assert_eq!(unpack(&pack(&vals, 1, 1), 1), vals);
        let vals = [0xDEAD_BEEFu64, 7, u32::MAX as u64];
        let b = pack(&vals, 4, 8);
        assert_eq!(b.len(), 16);
        assert_eq!(&b[..4], &[0xEF, 0xBE, 0xAD, 0xDE]);
        assert_eq!(unpack(&b[..12], 4), vals);
        let vals: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        assert_eq!(unpack(&pack(&vals, 8, 8), 8), vals);
        let small: Vec<u64> = vals.iter().map(|v| v & 0xFFFF_FFFF).collect();
        assert_eq!(unpack(&pack(&small, 4, 1), 4), small);
    }

    #[test]
    fn empty_arrays_still_get_one_word() {
        assert_eq!(pack(&[], 4, 8), vec![0; 8]);
        assert_eq!(pack(&[], 4, 1), Vec::<u8>::new());
    }

    #[test]
    fn fills_use_the_widest_memset_that_fits() {
        assert_eq!(fill_plan(1, 1), Fill::Bytes(1));
        assert_eq!(fill_plan(4, 0), Fill::Bytes(0));
        assert_eq!(fill_plan(4, u32::MAX as u64), Fill::Bytes(0xFF));
        assert_eq!(fill_plan(4, 1_073_741_823), Fill::Words(1_073_741_823));
        assert_eq!(fill_plan(4, f32::INFINITY.to_bits() as u64), Fill::Words(0x7F80_0000));
        // Only the element's own bytes count.
        assert_eq!(fill_plan(4, 0xFFFF_FFFF_0000_0005), Fill::Words(5));
        assert_eq!(fill_plan(8, u64::MAX), Fill::Bytes(0xFF));
        assert_eq!(fill_plan(8, 0x0000_0003_0000_0003), Fill::Words(3));
        assert_eq!(fill_plan(8, i64::MAX as u64), Fill::Pattern(i64::MAX as u64));
        assert_eq!(fill_plan(8, 1.0f64.to_bits()), Fill::Pattern(1.0f64.to_bits()));
        assert_eq!(fill_plan(8, 5), Fill::Pattern(5));
    }
}
