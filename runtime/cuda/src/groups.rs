//! `G.contract`'s group kernels (run by `contract.rs`): the labels' groups numbered on the GPU, so a contraction
//! never moves a node array between host and device (reading kron22's 4 M labels back, numbering them on the host
//! and sending the group numbers and table offsets took 60 of its first contraction's 94 ms on an H200).
//!
//! - `irgc_groups_mark`: `used[label[v]] = 1` for every node (`used` zeroed, one `u64` per node, so the scan can
//!   number them in place); a label that is no node leaves its node's index in `bad` (the smallest, by `min`).
//!   The exclusive prefix sum of `used` (`scan.rs`) then gives every label in use its group number, in the
//!   labels' order, as the host numbered them.
//! - `irgc_groups_assign`: `group[v] = rank[label[v]]`, and each group's table size (two slots per edge of its
//!   members) summed with atomics, to be scanned into the table offsets.
//! - `irgc_groups_origin`: each input node's node in the new graph, `origin[i] = group[origin[i]]` (or
//!   `group[i]` the first time, when the current graph is the input).
//! - `irgc_groups_sources`: each edge's source row of the new graph, for a program that reads `G.src`.

use crate::runtime_ptx::{element, prologue, search};

/// The text of the four kernels (part of the module `contract.rs` loads).
pub(crate) fn group_kernels() -> String {
    mark() + &assign() + &origin() + &sources()
}

/// The end of a grid-stride loop over `%rd11` started at `$Lnext`'s loop head `head`.
fn next(head: &str) -> String {
    format!("$Lnext:\n\tadd.u64 %rd11, %rd11, %rd12;\n\tbra.uni {head};\n$Ldone:\n\tret;\n}}\n")
}

fn mark() -> String {
    // %rd1 labels (u32), %rd2 used (u64), %rd3 bad (one u64), %rd4 n.
    let mut s = prologue("irgc_groups_mark", &["labels", "used", "bad", "n"], 1);
    s += "$Lnode:\n\tsetp.ge.u64 %p1, %rd11, %rd4;\n\t@%p1 bra $Ldone;\n";
    s += &element("%rd16", "%rd1", "%rd11", 2);
    s += "\tld.global.nc.u32 %r5, [%rd16];\n\tcvt.u64.u32 %rd17, %r5;\n\tsetp.ge.u64 %p2, %rd17, %rd4;\n\
          \t@%p2 bra $Lbad;\n";
    s += &element("%rd16", "%rd2", "%rd17", 3);
    s += "\tmov.u64 %rd18, 1;\n\tst.global.u64 [%rd16], %rd18;\n\tbra.uni $Lnext;\n";
    s += "$Lbad:\n\tred.global.min.u64 [%rd3], %rd11;\n";
    s + &next("$Lnode")
}

fn assign() -> String {
    // %rd1 labels (u32), %rd2 row_start (u64), %rd3 rank (u64), %rd4 group (u32), %rd5 sizes (u64), %rd6 n.
    let mut s = prologue("irgc_groups_assign", &["labels", "row_start", "rank", "group", "sizes", "n"], 1);
    s += "$Lnode:\n\tsetp.ge.u64 %p1, %rd11, %rd6;\n\t@%p1 bra $Ldone;\n";
    s += &element("%rd16", "%rd1", "%rd11", 2);
    s += "\tld.global.nc.u32 %r5, [%rd16];\n\tcvt.u64.u32 %rd17, %r5;\n";
    s += &element("%rd16", "%rd3", "%rd17", 3);
    s += "\tld.global.u64 %rd18, [%rd16];\n\tcvt.u32.u64 %r6, %rd18;\n";
    s += &element("%rd16", "%rd4", "%rd11", 2);
    s += "\tst.global.u32 [%rd16], %r6;\n";
    s += &element("%rd16", "%rd2", "%rd11", 3);
    s += "\tld.global.nc.u64 %rd19, [%rd16];\n\tld.global.nc.u64 %rd20, [%rd16+8];\n\tsub.u64 %rd20, %rd20, %rd19;\n\
          \tshl.b64 %rd20, %rd20, 1;\n";
    s += &element("%rd16", "%rd5", "%rd18", 3);
    s += "\tred.global.add.u64 [%rd16], %rd20;\n";
    s + &next("$Lnode")
}

fn origin() -> String {
    // %rd1 origin (u32, input nodes), %rd2 group (u32), %rd3 input nodes, %rd4 first (origin is the identity).
    let mut s = prologue("irgc_groups_origin", &["origin", "group", "inputs", "first"], 2);
    s += "\tsetp.eq.u64 %p2, %rd4, 0;\n";
    s += "$Lnode:\n\tsetp.ge.u64 %p1, %rd11, %rd3;\n\t@%p1 bra $Ldone;\n";
    s += &element("%rd16", "%rd1", "%rd11", 2);
    s += "\tmov.u64 %rd17, %rd11;\n\t@%p2 ld.global.u32 %r5, [%rd16];\n\t@%p2 cvt.u64.u32 %rd17, %r5;\n";
    s += &element("%rd18", "%rd2", "%rd17", 2);
    s += "\tld.global.nc.u32 %r6, [%rd18];\n\tst.global.u32 [%rd16], %r6;\n";
    s + &next("$Lnode")
}

fn sources() -> String {
    // %rd1 row_start (u64, k + 1), %rd2 src (u32), %rd3 k, %rd4 m.
    let mut s = prologue("irgc_groups_sources", &["row_start", "src", "k", "m"], 2);
    s += "$Ledge:\n\tsetp.ge.u64 %p1, %rd11, %rd4;\n\t@%p1 bra $Ldone;\n";
    s += &search("Lrow", "%rd1", "%rd3", "%rd11");
    s += &element("%rd16", "%rd2", "%rd11", 2);
    s += "\tcvt.u32.u64 %r5, %rd13;\n\tst.global.u32 [%rd16], %r5;\n";
    s + &next("$Ledge")
}
