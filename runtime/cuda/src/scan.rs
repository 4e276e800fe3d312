//! Exclusive prefix sums of `u64` arrays on the GPU, for `G.contract` (`contract.rs`): group numbers from the
//! labels in use, table offsets from table sizes, row offsets from row lengths.
//!
//! In chunks of 256 elements, one block of 256 threads per chunk at a time (grid-stride over chunks):
//! `irgc_scan_sums` writes each chunk's sum (and the largest element, by `max`, after the sums); the host reads
//! the sums (one word per 256 elements: 128 KiB for 4 M), turns them into each chunk's offset and writes them
//! back; `irgc_scan_apply` adds to each chunk's offset the chunk's own exclusive scan (across the warp by
//! shuffles, across the block's eight warps through shared memory). Input and output may be one array.

use cudarc::driver::CudaFunction;
use irgc_runtime::{Device, DeviceBuffer, RunError};

use crate::driver::GpuBuffer;
use crate::runtime_ptx::{element, prologue, BLOCK};

const _: () = assert!(BLOCK == 256, "a scan chunk is one block of eight warps");

/// The text of both kernels (part of the module `contract.rs` loads).
pub(crate) fn scan_kernels() -> String {
    sums() + &apply()
}

/// Lines common to both: `%rd4` the chunks, `%rd5` this block's first chunk, `%rd6` the stride in chunks, `%rd7`
/// the thread, `%r5` its lane, `%r6` its warp; `%rd20` the shared array `shared` of eight words, `%rd23` this
/// warp's word; then the chunk loop's head: `%rd8` the element, `%rd9` its value (0 past `len`, `%p2` false).
fn chunk_loop(shared: &str, input: &str, len: &str) -> String {
    let mut s = format!(
        "\t.shared .align 8 .b64 {shared}[8];\n\
         \tadd.u64 %rd4, {len}, 255;\n\tshr.u64 %rd4, %rd4, 8;\n\tcvt.u64.u32 %rd5, %r1;\n\tcvt.u64.u32 %rd6, %r4;\n\
         \tcvt.u64.u32 %rd7, %r3;\n\tand.b32 %r5, %r3, 31;\n\tshr.u32 %r6, %r3, 5;\n\
         \tmov.u64 %rd20, {shared};\n\tmul.wide.u32 %rd22, %r6, 8;\n\tadd.u64 %rd23, %rd20, %rd22;\n"
    );
    s += "$Lchunk:\n\tsetp.ge.u64 %p1, %rd5, %rd4;\n\t@%p1 bra $Ldone;\n\tshl.b64 %rd8, %rd5, 8;\n\
          \tadd.u64 %rd8, %rd8, %rd7;\n\tmov.u64 %rd9, 0;\n";
    s += &format!("\tsetp.lt.u64 %p2, %rd8, {len};\n");
    s += &element("%rd10", input, "%rd8", 3);
    s + "\t@%p2 ld.global.u64 %rd9, [%rd10];\n"
}

/// `%rd15` := `reg` of the lane `delta` away (`shfl` mode `mode`, clamp `clamp`), with `%p5` whether it exists.
fn shuffle(reg: &str, mode: &str, delta: u32, clamp: u32) -> String {
    format!(
        "\tmov.b64 {{%r7, %r8}}, {reg};\n\tshfl.sync.{mode}.b32 %r9|%p5, %r7, {delta}, {clamp}, 0xffffffff;\n\
         \tshfl.sync.{mode}.b32 %r10, %r8, {delta}, {clamp}, 0xffffffff;\n\tmov.b64 %rd15, {{%r9, %r10}};\n"
    )
}

/// The end of the chunk loop.
const NEXT_CHUNK: &str = "\tbar.sync 0;\n\tadd.u64 %rd5, %rd5, %rd6;\n\tbra.uni $Lchunk;\n$Ldone:\n\tret;\n}\n";

fn sums() -> String {
    // %rd1 input, %rd2 sums (chunks + 1 words: each chunk's sum, then the largest element), %rd3 len.
    let mut s = prologue("irgc_scan_sums", &["input", "sums", "len"], 1);
    s += &chunk_loop("irgc_scan_sums_warp", "%rd1", "%rd3");
    // The warp's sum in %rd13 and largest in %rd14, in every lane (butterfly).
    s += "\tmov.u64 %rd13, %rd9;\n\tmov.u64 %rd14, %rd9;\n";
    for delta in [16, 8, 4, 2, 1] {
        s += &shuffle("%rd13", "bfly", delta, 31);
        s += "\tadd.u64 %rd13, %rd13, %rd15;\n";
        s += &shuffle("%rd14", "bfly", delta, 31);
        s += "\tmax.u64 %rd14, %rd14, %rd15;\n";
    }
    // Lane 0 of each warp leaves its sum in shared memory; thread 0 adds them up. The largest goes straight to
    // the word after the sums (its lane 0 of every warp).
    s += "\tsetp.eq.u32 %p3, %r5, 0;\n\t@%p3 st.shared.u64 [%rd23], %rd13;\n";
    s += &element("%rd10", "%rd2", "%rd4", 3);
    s += "\t@%p3 red.global.max.u64 [%rd10], %rd14;\n\tbar.sync 0;\n";
    s += "\tsetp.ne.u32 %p4, %r3, 0;\n\t@%p4 bra $Lskip;\n\tld.shared.u64 %rd13, [%rd20];\n";
    for w in 1..8 {
        s += &format!("\tld.shared.u64 %rd15, [%rd20+{}];\n\tadd.u64 %rd13, %rd13, %rd15;\n", 8 * w);
    }
    s += &element("%rd10", "%rd2", "%rd5", 3);
    s += "\tst.global.u64 [%rd10], %rd13;\n$Lskip:\n";
    s + NEXT_CHUNK
}

fn apply() -> String {
    // %rd1 input, %rd2 output, %rd3 offsets (one per chunk), %rd4 len (moved to %rd24: the loop uses %rd4).
    let mut s = prologue("irgc_scan_apply", &["input", "output", "offsets", "len"], 1);
    s += "\tmov.u64 %rd24, %rd4;\n";
    s += &chunk_loop("irgc_scan_apply_warp", "%rd1", "%rd24");
    // The inclusive scan across the warp in %rd13 (shuffles up; %p5: the lane `delta` below exists).
    s += "\tmov.u64 %rd13, %rd9;\n";
    for delta in [1, 2, 4, 8, 16] {
        s += &shuffle("%rd13", "up", delta, 0);
        s += "\t@%p5 add.u64 %rd13, %rd13, %rd15;\n";
    }
    s += "\tsetp.eq.u32 %p3, %r5, 31;\n\t@%p3 st.shared.u64 [%rd23], %rd13;\n\tbar.sync 0;\n";
    // The chunk's offset, plus the warps before this one, plus the warp's scan before this lane.
    s += &element("%rd10", "%rd3", "%rd5", 3);
    s += "\tld.global.u64 %rd14, [%rd10];\n";
    for w in 0..7 {
        s += &format!(
            "\tsetp.gt.u32 %p6, %r6, {w};\n\tld.shared.u64 %rd15, [%rd20+{}];\n\t@%p6 add.u64 %rd14, %rd14, %rd15;\n",
            8 * w
        );
    }
    s += "\tadd.u64 %rd14, %rd14, %rd13;\n\tsub.u64 %rd14, %rd14, %rd9;\n";
    s += &element("%rd10", "%rd2", "%rd8", 3);
    s += "\t@%p2 st.global.u64 [%rd10], %rd14;\n";
    s + NEXT_CHUNK
}

/// The two loaded scan kernels.
#[derive(Clone)]
pub(crate) struct Scan {
    pub sums: CudaFunction,
    pub apply: CudaFunction,
}

impl crate::CudaDevice {
    /// The exclusive prefix sum of the `len` words at device address `input`, written to `output` (may be
    /// `input`), with `chunks` (at least `len / 256 + 2` words) for the chunks' sums: the total and the largest
    /// element (both wrap at 64 bits, as the sums do).
    pub(crate) fn scan(
        &mut self,
        k: &Scan,
        input: u64,
        output: u64,
        len: u64,
        chunks: &mut GpuBuffer,
    ) -> Result<(u64, u64), RunError> {
        if len == 0 {
            return Ok((0, 0));
        }
        let n_chunks = len.div_ceil(u64::from(BLOCK));
        Device::fill(self, chunks, 8, n_chunks + 1, 0)?;
        self.launch_runtime(&k.sums, "irgc_scan_sums", &[input, chunks.address(), len], len)?;
        let mut sums = Device::read(self, chunks, 8, 0, n_chunks + 1)?;
        let largest = sums.pop().unwrap_or(0);
        let mut total = 0u64;
        for s in sums.iter_mut() {
            let x = *s;
            *s = total;
            total = total.wrapping_add(x);
        }
        Device::write(self, chunks, 8, 0, &sums)?;
        self.launch_runtime(&k.apply, "irgc_scan_apply", &[input, output, chunks.address(), len], len)?;
        Ok((total, largest))
    }
}
