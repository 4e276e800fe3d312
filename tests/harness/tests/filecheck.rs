//! FileCheck-style checks (see `irgc_filetests::filecheck`): every `.irg` file under `tests/filecheck/` and every
//! conformance program (`tests/conformance/*.irg`) with `// CHECK...` lines is compiled as `irgc` compiles it, for
//! `sm_80` and `sm_90` (each assembled by `ptxas` when `IRGC_PTXAS` names one), and its `sm_90` PTX (`CHECK`) and
//! LLVM IR (`CHECK-LLVM`) must match the directives; `CHECK-ERROR` files must be refused by the PTX backend.

use irgc_filetests::filecheck::{check, directives};
use irgc_test_support::{display_name, irg_files, module_named, ptxas, root};

#[test]
fn every_check_file_matches_its_code() {
    let mut files = irg_files(&root().join("tests/filecheck"));
    assert!(files.len() >= 3, "only {} files under tests/filecheck", files.len());
    files.extend(
        irg_files(&root().join("tests/conformance"))
            .into_iter()
            .filter(|p| p.parent() == Some(&root().join("tests/conformance"))),
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files {
        let name = display_name(&path);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
        let (ptx_dirs, llvm_dirs) = (directives(&text, "CHECK"), directives(&text, "CHECK-LLVM"));
        let error = irgc_filetests::filecheck::setting(&text, "CHECK-ERROR");
        if ptx_dirs.is_empty() && llvm_dirs.is_empty() && error.is_none() {
            assert!(!name.starts_with("tests/filecheck/"), "{name} has no CHECK lines");
            continue;
        }
        checked += 1;
        let m = module_named(&name, &text);
        let mut last = None;
        for arch in ["sm_80", "sm_90"] {
            let result =
                irgc_backend_ptx::compile(&m, &irgc_backend_ptx::Options { arch: arch.into(), check_bounds: false });
            match (&error, result) {
                (Some(want), Err(e)) => {
                    if !e.to_string().contains(want.as_str()) {
                        failures.push(format!("{name}: refused with `{e}`, not with `{want}`"));
                    }
                }
                (Some(want), Ok(_)) => failures.push(format!("{name}: compiled, but must be refused with `{want}`")),
                (None, Err(e)) => failures.push(format!("{name} ({arch}): {e}")),
                (None, Ok(out)) => {
                    if let Some(Err(e)) = ptxas(&name, &out.ptx, arch) {
                        failures.push(format!("ptxas rejected {e}"));
                    }
                    last = Some(out);
                }
            }
        }
        if let Some(out) = last {
            for (dirs, code, what) in [(&ptx_dirs, &out.ptx, "PTX"), (&llvm_dirs, &out.llvm_ir, "LLVM IR")] {
                if let Err(e) = check(code, dirs) {
                    failures.push(format!("{name} ({what}, sm_90): {e}"));
                }
            }
        }
    }
    assert!(checked >= 8, "only {checked} files had checks");
    assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}
