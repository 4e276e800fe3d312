//! The operator conformance table: every operator × every type it takes × edge values, run through a backend and
//! compared with the language's one scalar evaluator (`irgc_scalar`).
//!
//! The table is data: `tests/conformance/ops/NAME.irg` (a kernel computing each operation into one output array
//! per operation, from operands the plan stores) and `NAME.expected` (what `irgc run --out` must print, less the
//! node-id column; `?` where the specification leaves the value open), both generated here from `irgc_scalar`.
//! `committed_files_are_current` regenerates them and fails when the committed ones differ
//! (`IRGC_BLESS=1 cargo test -p irgc --test conformance_ops` rewrites them).
//! `the_cpu_backend_computes_what_the_evaluator_says` runs each through `irgc run` on the CPU; on a GPU machine
//! `scripts/gpu-conformance.sh` runs the same files with `--backend cuda`. `the_ptx_backend_compiles_every_table`
//! compiles them to PTX (and assembles it with `ptxas` when `IRGC_PTXAS` names one).
//!
//! Tables: `binary_T` (every binary operator, `min`/`max` and `select` on every pair of edge values of `T`),
//! `unary_T` (unary operators, one-argument built-ins and every cast the front end accepts from `T`), `atomic_T`
//! (every atomic on an element holding one edge value, with another as operand: the old value returned and the
//! value stored) and `builtins` (`random`).

use irgc_scalar::{AtomicOp, BinaryOp, MathFn, Scalar, UnaryOp};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn dir() -> PathBuf {
    root().join("tests/conformance/ops")
}

/// The graph every table runs on: `n` nodes in a row, ids 0..n in order (only the node count matters).
fn graph_spec(n: usize) -> String {
    format!("gen:grid:w={n},h=1,drop=0")
}

/// An operand value: how the plan writes it, and its bits.
#[derive(Clone)]
struct Operand {
    text: String,
    bits: u64,
}

/// Edge values of a type (a few ordinary ones, the extremes, and for floats the IEEE specials).
fn edge_values(ty: Scalar) -> Vec<Operand> {
    let int = |v: i128| Operand { text: v.to_string(), bits: (v as i64) as u64 };
    let f64v = |x: f64| Operand { text: float_text(x), bits: x.to_bits() };
    let f32v = |x: f32| Operand { text: float_text(x as f64), bits: x.to_bits() as u64 };
    let norm = |o: Operand| Operand { bits: irgc_scalar::normalize(ty, o.bits), ..o };
    match ty {
        Scalar::Bool => vec![Operand { text: "false".into(), bits: 0 }, Operand { text: "true".into(), bits: 1 }],
        Scalar::I32 => [0, 1, -1, 2, -7, 31, 32, 33, 1_000_003, i32::MIN as i128, i32::MAX as i128]
            .into_iter()
            .map(|v| norm(int(v)))
            .collect(),
        Scalar::U32 | Scalar::Node => [0, 1, 2, 7, 31, 32, 33, 0x8000_0000, 1_000_003, u32::MAX as i128 - 1]
            .into_iter()
            .map(|v| norm(int(v)))
            .collect(),
        Scalar::I64 => [0, 1, -1, 2, -7, 63, 64, 65, 1i128 << 40, i64::MIN as i128, i64::MAX as i128]
            .into_iter()
            .map(|v| norm(int(v)))
            .collect(),
        Scalar::U64 | Scalar::Edge => [0, 1, 2, 7, 63, 64, 65, 1i128 << 63, 1i128 << 40, u64::MAX as i128 - 1]
            .into_iter()
            .map(|v| Operand { text: v.to_string(), bits: v as u64 })
            .collect(),
        Scalar::F32 => {
            let mut v: Vec<Operand> =
                [0.0f32, -0.0, 1.0, -1.0, 1.5, -2.5, 7.5, 3.0, 1e10, f32::MAX, f32::MIN_POSITIVE, 1e-45]
                    .into_iter()
                    .map(f32v)
                    .collect();
            v.push(Operand { text: "inf".into(), bits: f32::INFINITY.to_bits() as u64 });
            v.push(Operand { text: "-inf".into(), bits: f32::NEG_INFINITY.to_bits() as u64 });
            v.push(Operand { text: "NAN".into(), bits: f32::NAN.to_bits() as u64 });
            v
        }
        Scalar::F64 => {
            let mut v: Vec<Operand> =
                [0.0f64, -0.0, 1.0, -1.0, 1.5, -2.5, 7.5, 3.0, 1e10, f64::MAX, f64::MIN_POSITIVE, 5e-324]
                    .into_iter()
                    .map(f64v)
                    .collect();
            v.push(Operand { text: "inf".into(), bits: f64::INFINITY.to_bits() });
            v.push(Operand { text: "-inf".into(), bits: f64::NEG_INFINITY.to_bits() });
            v.push(Operand { text: "NAN".into(), bits: f64::NAN.to_bits() });
            v
        }
    }
}

/// A float literal the lexer reads back to the same value (`-` as a unary minus).
fn float_text(x: f64) -> String {
    if x.is_sign_negative() {
        format!("-{:e}", -x)
    } else {
        format!("{x:e}")
    }
}

/// One operation column of a table: the kernel statements that compute it into its output array (the
/// statement is `NAME[v] = EXPR;` for most), the operation as the messages describe it, the result type, and the
/// expected result bits for each row (`None` where the specification leaves the value open).
struct Column {
    name: String,
    expr: String,
    stmts: Vec<String>,
    ty: Scalar,
    expected: Vec<Option<u64>>,
}

impl Column {
    /// `NAME[v] = EXPR;`
    fn assign(name: String, expr: String, ty: Scalar, expected: Vec<Option<u64>>) -> Column {
        let stmts = vec![format!("{name}[v] = {expr};")];
        Column { name, expr, stmts, ty, expected }
    }
}

/// A table: one program over rows of operands.
struct Table {
    name: String,
    /// Operand arrays: name, type, one value per row.
    operands: Vec<(&'static str, Scalar, Vec<Operand>)>,
    columns: Vec<Column>,
}

impl Table {
    fn rows(&self) -> usize {
        self.operands[0].2.len()
    }

    /// The program: operand arrays the plan fills, one output per column, one kernel computing every column.
    fn program(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Operator conformance table `{}` (generated by compiler/cli/tests/conformance_ops.rs;",
            self.name
        );
        let _ = writeln!(s, "// do not edit). Row v of every output is the operation on the operands of row v.");
        let _ = writeln!(s, "graph G;");
        let nan = |ty: Scalar| if ty == Scalar::F32 { "(0.0f32 / 0.0f32)" } else { "(0.0 / 0.0)" };
        for (name, ty, _) in &self.operands {
            let _ = writeln!(s, "node {name}: {ty};");
        }
        for c in &self.columns {
            let _ = writeln!(s, "node {}: {};", c.name, c.ty);
        }
        for c in &self.columns {
            let _ = writeln!(s, "output {};", c.name);
        }
        let _ = writeln!(s, "kernel compute() {{\n    forall v in G.nodes {{");
        for c in &self.columns {
            for st in &c.stmts {
                let _ = writeln!(s, "        {st}");
            }
        }
        let _ = writeln!(s, "    }}\n}}\nplan {{");
        for (name, ty, vals) in &self.operands {
            for (row, o) in vals.iter().enumerate() {
                let text = if o.text == "NAN" { nan(*ty).to_string() } else { o.text.clone() };
                let _ = writeln!(s, "    {name}[{row}] = {text};");
            }
        }
        let _ = writeln!(s, "    compute();\n}}");
        s
    }

    /// What `irgc run --out` prints for the outputs, without the node-id column.
    fn expected(&self) -> String {
        let mut s = String::new();
        for row in 0..self.rows() {
            let cells: Vec<String> = self
                .columns
                .iter()
                .map(|c| match c.expected[row] {
                    Some(bits) => irgc_runtime::format_value(c.ty, bits, "inf"),
                    None => "?".to_string(),
                })
                .collect();
            let _ = writeln!(s, "{}", cells.join(" "));
        }
        s
    }

    /// Row `row`'s operands, for messages.
    fn describe(&self, row: usize) -> String {
        let v: Vec<String> = self.operands.iter().map(|(n, _, vals)| format!("{n} = {}", vals[row].text)).collect();
        v.join(", ")
    }
}

/// Every pair of edge values of `ty`, as two operand columns.
fn pairs(ty: Scalar) -> (Vec<Operand>, Vec<Operand>) {
    let vals = edge_values(ty);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for x in &vals {
        for y in &vals {
            a.push(x.clone());
            b.push(y.clone());
        }
    }
    (a, b)
}

/// Which binary operators the type checker accepts on `ty`.
fn binary_ops(ty: Scalar) -> Vec<BinaryOp> {
    use BinaryOp as B;
    BinaryOp::ALL
        .into_iter()
        .filter(|&op| match op {
            B::Add | B::Sub | B::Mul | B::Div | B::Rem => ty.is_numeric(),
            B::BitAnd | B::BitOr | B::BitXor | B::Shl | B::Shr => ty.is_int(),
            B::And | B::Or => ty == Scalar::Bool,
            B::Eq | B::Ne => true,
            B::Lt | B::Le | B::Gt | B::Ge => ty != Scalar::Bool,
        })
        .collect()
}

fn op_name(op: BinaryOp) -> String {
    format!("{op:?}").to_lowercase()
}

/// `binary_T`: every binary operator on every pair of edge values, plus `min`/`max` (numbers and ids) and
/// `select` (every type).
fn binary_table(ty: Scalar) -> Table {
    let (a, b) = pairs(ty);
    let mut columns = Vec::new();
    for op in binary_ops(ty) {
        let rty = if op.is_comparison() { Scalar::Bool } else { ty };
        let expected = a.iter().zip(&b).map(|(x, y)| Some(eval(irgc_scalar::binary(op, ty, x.bits, y.bits)))).collect();
        columns.push(Column::assign(format!("r_{}", op_name(op)), format!("a[v] {} b[v]", op.symbol()), rty, expected));
    }
    if ty != Scalar::Bool {
        for f in [MathFn::Min, MathFn::Max] {
            let expected = a
                .iter()
                .zip(&b)
                .map(|(x, y)| Some(eval(irgc_scalar::math(f, ty, &[(ty, x.bits), (ty, y.bits)]))))
                .collect();
            columns.push(Column::assign(format!("r_{}", f.name()), format!("{}(a[v], b[v])", f.name()), ty, expected));
        }
    }
    // `select` on a condition that differs from row to row: b where the operands differ, else a (so -0.0 and
    // 0.0, equal but distinct, show which one was selected).
    let expected = a
        .iter()
        .zip(&b)
        .map(|(x, y)| {
            let c = eval(irgc_scalar::binary(BinaryOp::Ne, ty, x.bits, y.bits));
            Some(eval(irgc_scalar::math(MathFn::Select, ty, &[(Scalar::Bool, c), (ty, y.bits), (ty, x.bits)])))
        })
        .collect();
    columns.push(Column::assign("r_select".into(), "select(a[v] != b[v], b[v], a[v])".into(), ty, expected));
    Table { name: format!("binary_{ty}"), operands: vec![("a", ty, a), ("b", ty, b)], columns }
}

/// The evaluator's answer for an operation the table only generates where it applies.
fn eval(r: Result<u64, irgc_scalar::EvalError>) -> u64 {
    r.unwrap_or_else(|e| panic!("the table applies an operator where it does not apply: {e}"))
}

/// Whether the front end accepts `x as to` for an `x` of type `from` (that the validator accepts, too): from
/// numbers, ids and bool to numbers and ids.
fn cast_ok(from: Scalar, to: Scalar) -> bool {
    to != from && to != Scalar::Bool
}

/// `unary_T`: unary operators, the one-argument built-ins, and a cast to every type the front end accepts.
fn unary_table(ty: Scalar) -> Table {
    let a = edge_values(ty);
    let mut columns = Vec::new();
    for op in UnaryOp::ALL {
        let ok = match op {
            UnaryOp::Neg => ty.is_signed() || ty.is_float(),
            UnaryOp::Not => ty == Scalar::Bool,
            UnaryOp::BitNot => ty.is_int(),
        };
        if ok {
            let expected = a.iter().map(|x| Some(irgc_scalar::unary(op, ty, x.bits))).collect();
            let name = format!("r_{}", format!("{op:?}").to_lowercase());
            columns.push(Column::assign(name, format!("{}a[v]", op.symbol()), ty, expected));
        }
    }
    for f in [MathFn::Abs, MathFn::Ctz, MathFn::Clz, MathFn::Popcount, MathFn::Sqrt] {
        let (ok, rty) = match f {
            MathFn::Abs => (ty.is_signed() || ty.is_float(), ty),
            MathFn::Sqrt => (ty.is_float(), ty),
            _ => (ty.is_int(), Scalar::U32),
        };
        if ok {
            let expected = a.iter().map(|x| Some(eval(irgc_scalar::math(f, rty, &[(ty, x.bits)])))).collect();
            columns.push(Column::assign(format!("r_{}", f.name()), format!("{}(a[v])", f.name()), rty, expected));
        }
    }
    for to in Scalar::ALL {
        if cast_ok(ty, to) {
            let expected = a.iter().map(|x| Some(irgc_scalar::cast(ty, to, x.bits))).collect();
            columns.push(Column::assign(format!("r_as_{to}"), format!("a[v] as {to}"), to, expected));
        }
    }
    Table { name: format!("unary_{ty}"), operands: vec![("a", ty, a)], columns }
}

/// The atomics the front end accepts on elements of `ty`.
fn atomic_ops(ty: Scalar) -> Vec<AtomicOp> {
    use AtomicOp as A;
    [A::Add, A::Sub, A::Min, A::Max, A::And, A::Or, A::Xor, A::Exchange, A::CompareExchange]
        .into_iter()
        .filter(|&op| irgc_scalar::atomic(op, ty, 0, 0, 0).is_ok())
        .collect()
}

/// `atomic_T`: every atomic on an element that holds `a[v]`, with operand `b[v]` (`atomic_cas` compares with
/// `c[v]`: `a[v]` on even rows, so it swaps, `b[v]` on odd ones): the old value each returns (`o_OP`) and the
/// value the element holds afterwards (`x_OP`). Each row's element has one writer, so every result is determined.
fn atomic_table(ty: Scalar) -> Table {
    let (a, b) = pairs(ty);
    let c: Vec<Operand> =
        a.iter().zip(&b).enumerate().map(|(i, (x, y))| (if i % 2 == 0 { x } else { y }).clone()).collect();
    let mut columns = Vec::new();
    for op in atomic_ops(ty) {
        let short = op.name().trim_start_matches("atomic_");
        let (x, o) = (format!("x_{short}"), format!("o_{short}"));
        let call = match op {
            AtomicOp::CompareExchange => format!("{}({x}[v], c[v], b[v])", op.name()),
            _ => format!("{}({x}[v], b[v])", op.name()),
        };
        let stored: Vec<Option<u64>> = (0..a.len())
            .map(|i| {
                let exact = eval(irgc_scalar::atomic(op, ty, a[i].bits, b[i].bits, c[i].bits));
                // The one open point: an f32 add/sub on a global array may flush subnormals (NVIDIA GPUs do).
                let flushed = match op {
                    AtomicOp::Add | AtomicOp::Sub if ty == Scalar::F32 => {
                        let f = |bits| irgc_scalar::flush_subnormal(ty, bits);
                        f(eval(irgc_scalar::atomic(op, ty, f(a[i].bits), f(b[i].bits), 0)))
                    }
                    _ => exact,
                };
                let same = flushed == exact || (is_nan(ty, flushed) && is_nan(ty, exact));
                same.then_some(exact)
            })
            .collect();
        columns.push(Column {
            name: o.clone(),
            expr: format!("the old value of {call}"),
            stmts: vec![format!("{x}[v] = a[v];"), format!("{o}[v] = {call};")],
            ty,
            expected: a.iter().map(|v| Some(v.bits)).collect(),
        });
        columns.push(Column {
            name: x,
            expr: format!("the element after {call}"),
            stmts: Vec::new(),
            ty,
            expected: stored,
        });
    }
    Table { name: format!("atomic_{ty}"), operands: vec![("a", ty, a), ("b", ty, b), ("c", ty, c)], columns }
}

fn is_nan(ty: Scalar, bits: u64) -> bool {
    ty.is_float() && irgc_scalar::to_f64(ty, bits).is_nan()
}

/// `builtins`: `random` on u64 pairs.
fn builtins_table() -> Table {
    let (a, b) = pairs(Scalar::U64);
    let random = a.iter().zip(&b).map(|(x, y)| Some(irgc_scalar::random(x.bits, y.bits))).collect();
    Table {
        name: "builtins".into(),
        operands: vec![("a", Scalar::U64, a), ("b", Scalar::U64, b)],
        columns: vec![Column::assign("r_random".into(), "random(a[v], b[v])".into(), Scalar::U64, random)],
    }
}

/// Every table.
fn tables() -> Vec<Table> {
    let mut t = Vec::new();
    for ty in Scalar::ALL {
        t.push(binary_table(ty));
        t.push(unary_table(ty));
        if !atomic_ops(ty).is_empty() {
            t.push(atomic_table(ty));
        }
    }
    t.push(builtins_table());
    t
}

#[test]
fn committed_files_are_current() {
    let bless = std::env::var_os("IRGC_BLESS").is_some();
    let mut stale = Vec::new();
    for t in tables() {
        for (ext, text) in [("irg", t.program()), ("expected", t.expected())] {
            let path = dir().join(format!("{}.{ext}", t.name));
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                if bless {
                    std::fs::write(&path, &text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
                } else {
                    stale.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale conformance tables (regenerate with `IRGC_BLESS=1 cargo test -p irgc --test conformance_ops`):\n{}",
        stale.join("\n")
    );
}

/// Runs a table with `irgc run --out` on `backend`; returns the output lines without the node-id column.
fn run_table(t: &Table, backend: &str) -> Vec<String> {
    let out = std::env::temp_dir().join(format!("irgc-ops-{}-{}-{backend}.txt", std::process::id(), t.name));
    let program = dir().join(format!("{}.irg", t.name));
    let r = Command::new(env!("CARGO_BIN_EXE_irgc"))
        .args(["run", program.to_str().unwrap(), "--graph", &graph_spec(t.rows()), "--backend", backend, "--out"])
        .arg(&out)
        .output()
        .expect("irgc runs");
    assert!(r.status.success(), "{}: irgc run failed:\n{}", t.name, String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).expect("the output file");
    let _ = std::fs::remove_file(&out);
    text.lines().map(|l| l.split_once(' ').map_or("", |(_, rest)| rest).to_string()).collect()
}

#[test]
fn the_cpu_backend_computes_what_the_evaluator_says() {
    let mut mismatches = Vec::new();
    let (mut cases, mut open) = (0, 0);
    for t in tables() {
        let got = run_table(&t, "cpu");
        let want: Vec<String> = t.expected().lines().map(str::to_string).collect();
        assert_eq!(got.len(), want.len(), "{}: row count", t.name);
        for (row, (g, w)) in got.iter().zip(&want).enumerate() {
            let (g, w): (Vec<&str>, Vec<&str>) = (g.split(' ').collect(), w.split(' ').collect());
            assert_eq!(g.len(), w.len(), "{} row {row}: column count", t.name);
            for (col, (gc, wc)) in g.iter().zip(&w).enumerate() {
                if *wc == "?" {
                    open += 1;
                    continue;
                }
                cases += 1;
                if gc != wc {
                    let c = &t.columns[col];
                    mismatches.push(format!(
                        "{}: {} with {}: got {gc}, expected {wc}",
                        t.name,
                        c.expr,
                        t.describe(row)
                    ));
                }
            }
        }
    }
    assert!(cases > 5_000, "only {cases} cases");
    assert!(open < cases / 100, "{open} results left open by the specification: too many");
    assert!(mismatches.is_empty(), "{} of {cases} cases differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

#[test]
fn the_ptx_backend_compiles_every_table() {
    let ptxas = std::env::var_os("IRGC_PTXAS").map(PathBuf::from);
    for t in tables() {
        let c = irgc_front::compile_source(&t.name, &t.program());
        let mut m = c.module.unwrap_or_else(|| panic!("{}: {}", t.name, c.sources.render(&c.diagnostics, false)));
        irgc_opt::run(&mut m, &irgc_opt::Options::default()).expect("valid after the passes");
        let out =
            irgc_backend_ptx::compile(&m, &irgc_backend_ptx::Options { arch: "sm_90".into(), check_bounds: false })
                .unwrap_or_else(|e| panic!("{}: {e}", t.name));
        if let Some(ptxas) = &ptxas {
            let file = std::env::temp_dir().join(format!("irgc-ops-{}-{}.ptx", std::process::id(), t.name));
            std::fs::write(&file, &out.ptx).expect("write PTX");
            let r =
                Command::new(ptxas).args(["-arch=sm_90", "-o", "/dev/null"]).arg(&file).output().expect("ptxas runs");
            let _ = std::fs::remove_file(&file);
            assert!(r.status.success(), "{}: ptxas rejected the PTX:\n{}", t.name, String::from_utf8_lossy(&r.stderr));
        }
    }
}
