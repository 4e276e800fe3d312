//! The runtime's own `G.contract` kernels (`contract.rs`: `groups.rs`, `scan.rs`, `quotient.rs`): their PTX,
//! written by hand, assembles for the GPUs we target (when `IRGC_PTXAS` names a `ptxas`; `IRGC_REQUIRE_PTXAS=1`
//! makes that a must). What they compute is checked on a GPU against the host's contraction (`scripts/gpu-louvain.sh`
//! runs the contraction programs with `IRGC_CHECK_QUOTIENTS`, and `compiler/cli/tests/cuda.rs`).

#[test]
fn the_contraction_kernels_assemble() {
    let ptx = irgc_cuda::contract_ptx();
    let mut entries = vec![];
    for kind in ["none", "f32", "f64", "b32", "b64"] {
        for kernel in ["insert", "compact"] {
            entries.push(format!("irgc_quotient_{kernel}_{kind}"));
        }
    }
    for name in ["groups_mark", "groups_assign", "groups_origin", "groups_sources", "scan_sums", "scan_apply"] {
        entries.push(format!("irgc_{name}"));
    }
    for name in entries {
        let entry = format!(".entry {name}(");
        assert!(ptx.contains(&entry), "no {entry}");
    }
    for arch in ["sm_60", "sm_80", "sm_90"] {
        if let Some(result) = irgc_test_support::ptxas("contraction kernels", &ptx, arch) {
            result.unwrap_or_else(|e| panic!("{e}\n{ptx}"));
        }
    }
}
