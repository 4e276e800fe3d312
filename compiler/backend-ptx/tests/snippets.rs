//! Small `.irg` programs covering each construct (the CPU backend's kernel tests, plus float/bool/shared
//! atomics and every reduction): each compiles for `sm_80` and `sm_90`, its PTX has the instructions the
//! construct should produce, and (with `IRGC_PTXAS`) it assembles.

mod common;

use common::{conformance, module, options, ptxas};
use irgc_backend_ptx::{compile, PtxError, PtxOutput};

/// Compiles `src` for both architectures, runs `ptxas` on both when available, returns the `sm_90` output.
fn build(label: &str, src: &str) -> PtxOutput {
    let m = module(src);
    let mut last = None;
    for arch in ["sm_80", "sm_90"] {
        let out = compile(&m, &options(arch)).unwrap_or_else(|e| panic!("{label} ({arch}): {e}"));
        if let Some(Err(e)) = ptxas(label, &out.ptx, arch) {
            panic!("ptxas rejected {e}\n{}", out.ptx);
        }
        last = Some(out);
    }
    last.expect("two architectures")
}

fn has(out: &PtxOutput, needles: &[&str]) {
    for n in needles {
        assert!(out.ptx.contains(n), "`{n}` missing from\n{}", out.ptx);
    }
}

#[test]
fn reductions_of_every_kind() {
    let src = r#"
graph G;
node b: bool;
node f: f64;
node g: f32;
node x: i32;
node u: u32;
node w: u64;
kernel any_b() -> any { forall v in G.nodes { if b[v] { reduce true; } } }
kernel all_b() -> all { forall v in G.nodes { reduce b[v]; } }
kernel sum_f() -> sum f64 { forall v in G.nodes { reduce f[v]; } }
kernel sum_g() -> sum f32 { forall v in G.nodes { reduce g[v]; } }
kernel min_x() -> min i32 { forall v in G.nodes { reduce x[v]; } }
kernel max_x() -> max i32 { forall v in G.nodes { reduce x[v]; } }
kernel min_u() -> min u32 { forall v in G.nodes { reduce u[v]; } }
kernel max_w() -> max u64 { forall v in G.nodes { reduce w[v]; } }
kernel min_f() -> min f64 { forall v in G.nodes { reduce f[v]; } }
kernel max_g() -> max f32 { forall v in G.nodes { reduce g[v]; } }
kernel sum_x() -> sum i64 { forall v in G.nodes { reduce x[v] as i64; } }
plan { any_b(); }
"#;
    let out = build("reductions", src);
    has(
        &out,
        &[
            "atom.global.or.b32",
            // `all`: an atomic and with 0, which LLVM turns into an exchange with 0.
            "atom.global.exch.b32",
            "atom.global.add.f64",
            "atom.global.add.f32",
            "atom.global.min.s32",
            "atom.global.max.s32",
            "atom.global.min.u32",
            "atom.global.max.u64",
            "atom.global.cas.b64",
            "atom.global.cas.b32",
            "atom.global.add.u64",
        ],
    );
}

#[test]
fn float_and_integer_atomics() {
    let src = &conformance("atomics");
    let out = build("atomics", src);
    has(
        &out,
        &[
            "atom.global.add.f64",
            "atom.global.add.f32",
            "atom.global.cas.b32",
            "atom.global.cas.b64",
            "atom.global.exch.b64",
            "atom.global.max.s64",
            "atom.global.and.b32",
            "atom.global.or.b32",
            "atom.global.xor.b32",
            "atom.global.exch.b32",
        ],
    );
}

#[test]
fn shared_atomics() {
    let src = r#"
graph G;
array out: u32[64];
kernel hist(nb: u32) {
    forall tile b in 0..nb threads t in 0..64 {
        shared h: u32[8];
        shared s: f32[8];
        if t < 8 { h[t] = 0; s[t] = 0.0; }
        barrier;
        atomic_add(h[t % 8], 1u32);
        atomic_add(s[t % 8], 0.5f32);
        atomic_max(h[t % 8], t);
        barrier;
        if t < 8 { out[b * 8 + t] = h[t] + (s[t] as u32); }
    }
}
plan { hist(1u32); }
"#;
    let out = build("shared_atomics", src);
    has(&out, &["atom.shared.add.u32", "atom.shared.add.f32", "atom.shared.max.u32", ".reqntid 64", "bar.sync"]);
    assert_eq!(out.block_threads, vec![Some(64)]);
    assert_eq!(out.shared_bytes, vec![64]);
}

#[test]
fn spaces_range2_and_worklists() {
    let src = r#"
graph G;
array a: u32[5, 6];
worklist wl;
worklist nums: u32;
kernel fill(n: u32) {
    forall (i, j) in (1..n, 2..5) {
        a[i, j] = i * 10 + j;
    }
}
kernel one(lo: i32, hi: i32) -> sum u64 {
    forall i in lo..hi { reduce 1; }
}
kernel all() { forall v in G.nodes { wl.push(v); } }
kernel evens() { forall v in wl { if (v as u32) % 2 == 0 { wl.retry(v); } else { nums.push((v as u32) * 3); } } }
plan { fill(4); }
"#;
    let out = build("spaces", src);
    has(&out, &["atom.global.add.u64", ".entry evens(", ".maxntid 256, 1, 1"]);
}

#[test]
fn casts_bits_and_random() {
    let src = &conformance("casts");
    let out = build("casts", src);
    assert!(out.llvm_ir.contains("llvm.fptosi.sat.i32.f64"), "{}", out.llvm_ir);
    assert!(out.llvm_ir.contains("llvm.fptoui.sat.i32.f64"), "{}", out.llvm_ir);
    // The splitmix64 constants of `random`.
    assert!(out.llvm_ir.contains(&(0x9E37_79B9_7F4A_7C15u64 as i64).to_string()), "{}", out.llvm_ir);
    has(&out, &["popc.b64", "clz.b32", "sqrt.rn.f64", "cvt.rzi.f32.f32"]);
}

#[test]
fn control_flow_functions_and_short_circuit() {
    let src = &conformance("control_flow");
    let out = build("control_flow", src);
    // Device functions are inlined away.
    assert!(!out.ptx.contains(".func"), "{}", out.ptx);
}

#[test]
fn tiles_with_barriers_in_loops() {
    let src = &conformance("tile_sum");
    let out = build("tiles", src);
    has(&out, &[".reqntid 16", "bar.sync", ".shared .align 16 .b8 tsum__s[64]", "atom.global.max.u32"]);
}

#[test]
fn barrier_in_a_nested_forall_is_refused() {
    let src = &conformance("nested_barrier");
    match compile(&module(src), &options("sm_90")) {
        Err(PtxError::Unsupported(msg)) => assert!(msg.contains("barrier"), "{msg}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn unknown_architectures_are_refused() {
    let m = module("graph G;\nnode x: u32;\nkernel k() { forall v in G.nodes { x[v] = 1; } }\nplan { k(); }\n");
    assert!(matches!(compile(&m, &options("sm_35")), Err(PtxError::Options(_))));
    assert!(matches!(compile(&m, &options("compute_90")), Err(PtxError::Options(_))));
}
