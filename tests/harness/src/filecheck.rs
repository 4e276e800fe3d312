//! FileCheck-style checks written in a test file's comments, matched against generated code.
//!
//! Directives (one per comment line, `// PREFIX: text`, `PREFIX` being `CHECK` for PTX or `CHECK-LLVM` for the
//! LLVM IR as generated; `-NEXT` and `-NOT` attach to either):
//! - `CHECK: text` — a later line (after the previous match) contains `text`;
//! - `CHECK-NEXT: text` — the line right after the previous match contains `text`;
//! - `CHECK-NOT: text` — no line between the previous match and the next positive match (or the end) contains it;
//! - `CHECK-DAG: text` — some line at or after the previous `CHECK`/`CHECK-NEXT` match contains it (any order
//!   among themselves; they do not move the position).
//!
//! Matching is by substring, one line per directive. A file whose code the backend must refuse says so with
//! `// CHECK-ERROR: text` (the error message contains `text`).

/// A directive: what to look for, how, and where it was written (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub kind: Kind,
    pub text: String,
    /// 1-based line in the test file.
    pub line: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Check,
    Next,
    Not,
    Dag,
}

/// The directives with `prefix` (`CHECK` or `CHECK-LLVM`) in `source`.
pub fn directives(source: &str, prefix: &str) -> Vec<Directive> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("//") else { continue };
        let rest = rest.trim_start();
        for (suffix, kind) in [("-NEXT:", Kind::Next), ("-NOT:", Kind::Not), ("-DAG:", Kind::Dag), (":", Kind::Check)] {
            if let Some(text) = rest.strip_prefix(prefix).and_then(|r| r.strip_prefix(suffix)) {
                out.push(Directive { kind, text: text.trim().to_string(), line: i + 1 });
                break;
            }
        }
    }
    out
}

/// The value of a `// KEY: value` line (e.g. `ARCH`), if any.
pub fn setting(source: &str, key: &str) -> Option<String> {
    source.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("//")?.trim_start();
        Some(rest.strip_prefix(key)?.strip_prefix(':')?.trim().to_string())
    })
}

/// Matches `directives` against `output`; the error names the failing directive's line and shows the output
/// around where the search was.
pub fn check(output: &str, directives: &[Directive]) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    // The next line to search from.
    let mut pos = 0;
    let mut last_match: Option<usize> = None;
    let mut pending_not: Vec<&Directive> = Vec::new();
    let context = |at: usize| -> String {
        let lo = at.saturating_sub(3);
        let hi = (at + 6).min(lines.len());
        (lo..hi).map(|i| format!("  {:>5} | {}", i + 1, lines[i])).collect::<Vec<_>>().join("\n")
    };
    for d in directives {
        match d.kind {
            Kind::Not => pending_not.push(d),
            Kind::Dag => {
                if !lines[pos..].iter().any(|l| l.contains(&d.text)) {
                    return Err(format!(
                        "line {}: `{}` not found after the previous match:\n{}",
                        d.line,
                        d.text,
                        context(pos)
                    ));
                }
            }
            Kind::Check | Kind::Next => {
                let found = if d.kind == Kind::Next {
                    let want = last_match.map_or(0, |m| m + 1);
                    (want < lines.len() && lines[want].contains(&d.text)).then_some(want)
                } else {
                    (pos..lines.len()).find(|&i| lines[i].contains(&d.text))
                };
                let Some(at) = found else {
                    let what = if d.kind == Kind::Next { "on the next line" } else { "after the previous match" };
                    return Err(format!(
                        "line {}: `{}` not found {what}; output near there:\n{}",
                        d.line,
                        d.text,
                        context(pos)
                    ));
                };
                for n in pending_not.drain(..) {
                    if let Some(bad) = (pos..at).find(|&i| lines[i].contains(&n.text)) {
                        return Err(format!(
                            "line {}: `{}` found where it must not be:\n{}",
                            n.line,
                            n.text,
                            context(bad)
                        ));
                    }
                }
                last_match = Some(at);
                pos = at + 1;
            }
        }
    }
    for n in pending_not {
        if let Some(bad) = (pos..lines.len()).find(|&i| lines[i].contains(&n.text)) {
            return Err(format!("line {}: `{}` found where it must not be:\n{}", n.line, n.text, context(bad)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "entry:\n  ld.global.u32 %r1\n  add.s32 %r2\n  st.global.u32 %r2\n  ret;";

    fn run(src: &str) -> Result<(), String> {
        check(OUT, &directives(src, "CHECK"))
    }

    #[test]
    fn ordered_matches_pass_and_out_of_order_ones_fail() {
        assert_eq!(run("// CHECK: ld.global\n// CHECK: st.global"), Ok(()));
        let e = run("// CHECK: st.global\n// CHECK: ld.global").unwrap_err();
        assert!(e.starts_with("line 2: `ld.global` not found"), "{e}");
    }

    #[test]
    fn next_must_be_the_following_line() {
        assert_eq!(run("// CHECK: ld.global\n// CHECK-NEXT: add.s32"), Ok(()));
        assert!(run("// CHECK: ld.global\n// CHECK-NEXT: st.global").unwrap_err().contains("on the next line"));
    }

    #[test]
    fn not_fails_between_matches_and_at_the_end() {
        assert_eq!(run("// CHECK: ld.global\n// CHECK-NOT: atom\n// CHECK: ret"), Ok(()));
        let e = run("// CHECK: ld.global\n// CHECK-NOT: add.s32\n// CHECK: ret").unwrap_err();
        assert!(e.starts_with("line 2: `add.s32` found"), "{e}");
        assert!(run("// CHECK: add\n// CHECK-NOT: ret").is_err());
    }

    #[test]
    fn dag_matches_in_any_order_after_the_position() {
        assert_eq!(run("// CHECK-DAG: st.global\n// CHECK-DAG: ld.global"), Ok(()));
        assert!(run("// CHECK: st.global\n// CHECK-DAG: ld.global").is_err());
    }

    #[test]
    fn prefixes_are_kept_apart() {
        let src = "// CHECK-LLVM: define\n// CHECK: ld.global\n// ARCH: sm_80";
        assert_eq!(directives(src, "CHECK").len(), 1);
        assert_eq!(directives(src, "CHECK-LLVM").len(), 1);
        assert_eq!(setting(src, "ARCH").as_deref(), Some("sm_80"));
    }
}
