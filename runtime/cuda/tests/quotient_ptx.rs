//! The runtime's own `G.contract` kernels (`quotient.rs`): their PTX, written by hand, assembles for the GPUs we
//! target (when `IRGC_PTXAS` names a `ptxas`; `IRGC_REQUIRE_PTXAS=1` makes that a must). What they compute is
//! checked on a GPU (`compiler/cli/tests/cuda.rs` and the contraction tests under `scripts/`).

#[test]
fn the_quotient_kernels_assemble() {
    let ptx = irgc_cuda::quotient_ptx();
    for kind in ["none", "f32", "f64", "b32", "b64"] {
        for kernel in ["insert", "compact"] {
            let name = format!(".entry irgc_quotient_{kernel}_{kind}(");
            assert!(ptx.contains(&name), "no {name}");
        }
    }
    for arch in ["sm_60", "sm_80", "sm_90"] {
        if let Some(result) = irgc_test_support::ptxas("quotient kernels", &ptx, arch) {
            result.unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        }
    }
}
