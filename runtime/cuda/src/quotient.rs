//! `G.contract`'s quotient kernels (run by `contract.rs`, after `groups.rs` has numbered the groups and `scan.rs`
//! laid out their tables).
//!
//! Every group gets an open-addressing hash table of twice as many slots as its members have edges (so it is at
//! most half full), all tables side by side in one slot array (`tables`: each group's first slot). Then:
//! 1. `irgc_quotient_insert_*`, one thread per edge (grid-stride): the edge's source row by a binary search of the
//!    row offsets, its groups `g` and `d`, then a linear probe of `g`'s table from a multiplicative hash of `d`:
//!    the slot whose key is `d + 1` (0 marks an empty slot, so a zeroed allocation is an empty table), claimed
//!    with a compare-and-swap, counted in `counts[g]` (a `u64`) by the thread that claims it; the weight is added
//!    to the slot atomically.
//! 2. The counts' prefix sum is the new row offsets, written into the graph's buffer (`scan.rs`).
//! 3. `irgc_quotient_compact_*`, one thread per slot: a filled slot finds its group by a binary search of the
//!    table offsets and takes the next place of the group's row (the zeroed counts, now a cursor per group),
//!    writing the destination and the summed weight into the graph's own column and weight buffers (the old edges
//!    are no longer needed).
//!
//! Rows come out in no particular order, and float sums in the order the atomics happened (see `G.contract` in
//! docs/language.md). Weights of 4 or 8 bytes are summed (floats as floats, integers wrapping); a program whose
//! weights are narrower gets the host's quotient ([`Sum::of`] is `None`).

use irgc_artifact::Scalar;

use crate::runtime_ptx::{element, prologue, search};

/// How a weight of the program's type is loaded, added and stored; `None` in [`Sum::of`] means the quotient is
/// built on the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sum {
    Unweighted,
    F32,
    F64,
    /// Any 4-byte integer (two's-complement addition wraps the same for signed and unsigned).
    B32,
    B64,
}

impl Sum {
    pub(crate) const ALL: [Sum; 5] = [Sum::Unweighted, Sum::F32, Sum::F64, Sum::B32, Sum::B64];

    pub(crate) fn of(weight: Option<Scalar>) -> Option<Sum> {
        Some(match weight {
            None => Sum::Unweighted,
            Some(Scalar::F32) => Sum::F32,
            Some(Scalar::F64) => Sum::F64,
            Some(ty) if ty.is_int() && ty.size() == 4 => Sum::B32,
            Some(ty) if ty.is_int() && ty.size() == 8 => Sum::B64,
            Some(_) => return None,
        })
    }

    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Sum::Unweighted => "none",
            Sum::F32 => "f32",
            Sum::F64 => "f64",
            Sum::B32 => "b32",
            Sum::B64 => "b64",
        }
    }

    /// (PTX type of a load/store, of the `red.add`, log2 of the size), `None` without weights.
    fn ptx(self) -> Option<(&'static str, &'static str, u32)> {
        match self {
            Sum::Unweighted => None,
            Sum::F32 => Some(("f32", "f32", 2)),
            Sum::F64 => Some(("f64", "f64", 3)),
            Sum::B32 => Some(("b32", "u32", 2)),
            Sum::B64 => Some(("b64", "u64", 3)),
        }
    }

    pub(crate) fn size(self) -> usize {
        self.ptx().map_or(0, |(_, _, shift)| 1 << shift)
    }
}

/// The text of both kernels for every weight kind (part of the module `contract.rs` loads).
pub(crate) fn quotient_kernels() -> String {
    Sum::ALL.iter().map(|&sum| insert_kernel(sum) + &compact_kernel(sum)).collect()
}

/// The register a weight of kind `sum` travels in.
fn weight_reg(sum: Sum) -> &'static str {
    match sum {
        Sum::F32 => "%f1",
        Sum::F64 => "%fd1",
        Sum::B32 => "%r11",
        _ => "%rd31",
    }
}

fn insert_kernel(sum: Sum) -> String {
    let params = ["row_start", "col", "weight", "group", "tables", "keys", "sums", "counts", "n", "m"];
    let mut s = prologue(&format!("irgc_quotient_insert_{}", sum.suffix()), &params, 2);
    // %rd11: the edge e; its source row u (%rd13) by the search.
    s += "$Ledge:\n\tsetp.ge.u64 %p1, %rd11, %rd10;\n\t@%p1 bra $Ldone;\n";
    s += &search("Lrow", "%rd1", "%rd9", "%rd11");
    s += &element("%rd16", "%rd4", "%rd13", 2);
    s += "\tld.global.nc.u32 %r5, [%rd16];\n"; // g
    s += &element("%rd16", "%rd2", "%rd11", 2);
    s += "\tld.global.nc.u32 %r6, [%rd16];\n\tmul.wide.u32 %rd16, %r6, 4;\n\tadd.u64 %rd16, %rd4, %rd16;\n";
    s += "\tld.global.nc.u32 %r7, [%rd16];\n\tadd.u32 %r8, %r7, 1;\n"; // d, its key d + 1
    s += "\tmul.wide.u32 %rd16, %r5, 8;\n\tadd.u64 %rd16, %rd5, %rd16;\n";
    s += "\tld.global.nc.u64 %rd18, [%rd16];\n\tld.global.nc.u64 %rd19, [%rd16+8];\n\tsub.u64 %rd20, %rd19, %rd18;\n";
    if let Some((ty, _, shift)) = sum.ptx() {
        s += &element("%rd16", "%rd3", "%rd11", shift);
        s += &format!("\tld.global.nc.{ty} {}, [%rd16];\n", weight_reg(sum));
    }
    // The first slot: Fibonacci hashing of d, scaled onto the table's `cap` slots by a high multiply.
    s += "\tcvt.u64.u32 %rd21, %r7;\n\tmul.lo.u64 %rd21, %rd21, -7046029254386353131;\n\
          \tmul.hi.u64 %rd21, %rd21, %rd20;\n";
    s += "$Lprobe:\n\tadd.u64 %rd22, %rd18, %rd21;\n";
    s += &element("%rd23", "%rd6", "%rd22", 2);
    s += "\tatom.global.cas.b32 %r9, [%rd23], 0, %r8;\n\tsetp.eq.u32 %p4, %r9, 0;\n\t@%p4 bra $Lclaimed;\n\
          \tsetp.eq.u32 %p5, %r9, %r8;\n\t@%p5 bra $Ladd;\n\tadd.u64 %rd21, %rd21, 1;\n\
          \tsetp.eq.u64 %p6, %rd21, %rd20;\n\tselp.u64 %rd21, 0, %rd21, %p6;\n\tbra.uni $Lprobe;\n";
    s += "$Lclaimed:\n\tmul.wide.u32 %rd24, %r5, 8;\n\tadd.u64 %rd24, %rd8, %rd24;\n\tmov.u64 %rd25, 1;\n\
          \tred.global.add.u64 [%rd24], %rd25;\n";
    s += "$Ladd:\n";
    if let Some((_, add, shift)) = sum.ptx() {
        s += &element("%rd24", "%rd7", "%rd22", shift);
        s += &format!("\tred.global.add.{add} [%rd24], {};\n", weight_reg(sum));
    }
    s + "\tadd.u64 %rd11, %rd11, %rd12;\n\tbra.uni $Ledge;\n$Ldone:\n\tret;\n}\n"
}

fn compact_kernel(sum: Sum) -> String {
    let params = ["keys", "sums", "tables", "row_start", "fill", "col", "weight", "groups", "slots"];
    let mut s = prologue(&format!("irgc_quotient_compact_{}", sum.suffix()), &params, 2);
    // %rd11: the slot s; skipped when empty.
    s += "$Lslot:\n\tsetp.ge.u64 %p1, %rd11, %rd9;\n\t@%p1 bra $Ldone;\n";
    s += &element("%rd16", "%rd1", "%rd11", 2);
    s += "\tld.global.nc.u32 %r5, [%rd16];\n\tsetp.eq.u32 %p4, %r5, 0;\n\t@%p4 bra $Lnext;\n";
    // Its group g (%rd13): tables[g] <= s < tables[g + 1].
    s += &search("Lgroup", "%rd3", "%rd8", "%rd11");
    s += &element("%rd16", "%rd5", "%rd13", 3);
    s += "\tmov.u64 %rd25, 1;\n\tatom.global.add.u64 %rd19, [%rd16], %rd25;\n";
    s += &element("%rd16", "%rd4", "%rd13", 3);
    s += "\tld.global.nc.u64 %rd18, [%rd16];\n\tadd.u64 %rd18, %rd18, %rd19;\n";
    s += &element("%rd16", "%rd6", "%rd18", 2);
    s += "\tsub.u32 %r5, %r5, 1;\n\tst.global.u32 [%rd16], %r5;\n";
    if let Some((ty, _, shift)) = sum.ptx() {
        s += &element("%rd16", "%rd2", "%rd11", shift);
        s += &format!("\tld.global.nc.{ty} {0}, [%rd16];\n", weight_reg(sum));
        s += &element("%rd16", "%rd7", "%rd18", shift);
        s += &format!("\tst.global.{ty} [%rd16], {};\n", weight_reg(sum));
    }
    s + "$Lnext:\n\tadd.u64 %rd11, %rd11, %rd12;\n\tbra.uni $Lslot;\n$Ldone:\n\tret;\n}\n"
}
