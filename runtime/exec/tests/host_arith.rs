//! Host arithmetic follows the device semantics: wrapping by width, signed division and shifts, float precision,
//! saturating float-to-int casts, the built-ins; and division by zero gives 0, as in a kernel.

mod common;

use common::*;
use irgc_artifact::{BinaryOp as B, HostStmt, MathFn, Scalar as T, UnaryOp};
use irgc_runtime::eval::{binary, cast as cast_bits, math, unary};
use irgc_runtime::random;

fn i32b(x: i32) -> u64 {
    x as u32 as u64
}

#[test]
fn integer_arithmetic_wraps_by_width() {
    assert_eq!(binary(B::Add, T::U32, u32::MAX as u64, 2).unwrap(), 1);
    assert_eq!(binary(B::Sub, T::U32, 0, 1).unwrap(), u32::MAX as u64);
    assert_eq!(binary(B::Mul, T::I32, i32b(i32::MAX), 2).unwrap(), i32b(-2));
    assert_eq!(binary(B::Add, T::U64, u64::MAX, 1).unwrap(), 0);
    assert_eq!(binary(B::Add, T::Node, u32::MAX as u64, 1).unwrap(), 0);
    assert_eq!(unary(UnaryOp::Neg, T::I32, i32b(i32::MIN)), i32b(i32::MIN));
    assert_eq!(unary(UnaryOp::BitNot, T::U32, 0), u32::MAX as u64);
    assert_eq!(unary(UnaryOp::Not, T::Bool, 1), 0);
}

#[test]
fn signed_division_remainder_and_shifts() {
    assert_eq!(binary(B::Div, T::I32, i32b(-7), 2).unwrap(), i32b(-3));
    assert_eq!(binary(B::Rem, T::I32, i32b(-7), 2).unwrap(), i32b(-1));
    assert_eq!(binary(B::Div, T::I32, i32b(i32::MIN), i32b(-1)).unwrap(), i32b(i32::MIN));
    assert_eq!(binary(B::Div, T::I64, (-9i64) as u64, 4).unwrap(), (-2i64) as u64);
    // Unsigned: the same bits divide differently.
    assert_eq!(binary(B::Div, T::U32, i32b(-7), 2).unwrap(), (u32::MAX - 6) as u64 / 2);
    assert_eq!(binary(B::Shr, T::I32, i32b(-8), 1).unwrap(), i32b(-4));
    assert_eq!(binary(B::Shr, T::U32, i32b(-8), 1).unwrap(), (i32b(-8)) >> 1);
    // Shift amounts wrap at the width.
    assert_eq!(binary(B::Shl, T::U32, 1, 33).unwrap(), 2);
    assert_eq!(binary(B::Shl, T::U64, 1, 63).unwrap(), 1 << 63);
    assert_eq!(binary(B::Lt, T::I32, i32b(-1), 0).unwrap(), 1);
    assert_eq!(binary(B::Lt, T::U32, i32b(-1), 0).unwrap(), 0);
    assert_eq!(binary(B::Ge, T::I64, (-5i64) as u64, (-5i64) as u64).unwrap(), 1);
}

#[test]
fn floats_keep_their_precision_and_nan_rules() {
    let f = |x: f32| x.to_bits() as u64;
    // 16777216 + 1 is not representable in f32.
    assert_eq!(binary(B::Add, T::F32, f(16_777_216.0), f(1.0)).unwrap(), f(16_777_216.0));
    assert_eq!(binary(B::Div, T::F64, 1f64.to_bits(), 0f64.to_bits()).unwrap(), f64::INFINITY.to_bits());
    let nan = f64::NAN.to_bits();
    assert_eq!(binary(B::Eq, T::F64, nan, nan).unwrap(), 0);
    assert_eq!(binary(B::Ne, T::F64, nan, nan).unwrap(), 1);
    assert_eq!(binary(B::Lt, T::F64, (-1f64).to_bits(), 0f64.to_bits()).unwrap(), 1);
}

#[test]
fn casts() {
    assert_eq!(cast_bits(T::I32, T::I64, i32b(-1)), u64::MAX);
    assert_eq!(cast_bits(T::U32, T::I64, i32b(-1)), u32::MAX as u64);
    assert_eq!(cast_bits(T::U64, T::U32, (1 << 32) + 5), 5);
    assert_eq!(f64::from_bits(cast_bits(T::I32, T::F64, i32b(-3))), -3.0);
    assert_eq!(cast_bits(T::F64, T::I32, (-2.7f64).to_bits()), i32b(-2));
    assert_eq!(cast_bits(T::F64, T::U32, (-2.7f64).to_bits()), 0, "saturates");
    assert_eq!(cast_bits(T::F64, T::I32, 1e20f64.to_bits()), i32b(i32::MAX), "saturates");
    assert_eq!(cast_bits(T::F64, T::I64, f64::NAN.to_bits()), 0);
    assert_eq!(cast_bits(T::Bool, T::F32, 1), 1f32.to_bits() as u64);
    assert_eq!(cast_bits(T::U32, T::Bool, 7), 1);
    assert_eq!(f32::from_bits(cast_bits(T::F64, T::F32, 0.1f64.to_bits()) as u32), 0.1f32);
}

#[test]
fn builtins() {
    let m = |f, ty, args: &[(T, u64)]| math(f, ty, args).unwrap();
    assert_eq!(m(MathFn::Min, T::I32, &[(T::I32, i32b(-5)), (T::I32, 3)]), i32b(-5));
    assert_eq!(m(MathFn::Max, T::U32, &[(T::U32, i32b(-5)), (T::U32, 3)]), i32b(-5));
    assert_eq!(m(MathFn::Abs, T::I64, &[(T::I64, (-9i64) as u64)]), 9);
    assert_eq!(m(MathFn::Abs, T::F64, &[(T::F64, (-2.5f64).to_bits())]), 2.5f64.to_bits());
    assert_eq!(m(MathFn::Ctz, T::U32, &[(T::U64, 0)]), 64);
    assert_eq!(m(MathFn::Ctz, T::U32, &[(T::U32, 0)]), 32);
    assert_eq!(m(MathFn::Clz, T::U32, &[(T::U32, 1)]), 31);
    assert_eq!(m(MathFn::Popcount, T::U32, &[(T::I32, i32b(-1))]), 32);
    assert_eq!(m(MathFn::Sqrt, T::F64, &[(T::F64, 16f64.to_bits())]), 4f64.to_bits());
    assert_eq!(m(MathFn::Select, T::U32, &[(T::Bool, 0), (T::U32, 1), (T::U32, 2)]), 2);
    assert_eq!(m(MathFn::Random, T::U64, &[(T::U64, 7), (T::U64, 9)]), random(7, 9));
    // The documented splitmix-style hash: seed 0, i = u64::MAX gives splitmix's first step of 0.
    assert_eq!(random(0, u64::MAX), 0);
    assert_ne!(random(1, 2), random(2, 1));
}

/// The plan divides as a kernel does (`irgc_scalar`): by zero gives 0, no error and no crash.
#[test]
fn division_by_zero_in_the_plan_gives_zero_as_on_the_device() {
    assert_eq!(binary(B::Div, T::U32, 5, 0).unwrap(), 0);
    let g = graph(1, &[], false, 0);
    let mut a = artifact("div0", None);
    a.plan.locals = vec![("x".into(), T::I64)];
    a.plan.body = vec![HostStmt::Assign {
        local: 0,
        value: bin(B::Rem, lit(T::I64, 3), cast(T::I64, bin(B::Sub, num_nodes(), u32c(1)))),
    }];
    run(&a, &g, &[], vec![]).expect("a plan that divides by zero runs to the end");
    assert_eq!(binary(B::Rem, T::I64, 3, 0).unwrap(), 0);
}

/// Locals keep their type's width: a u32 counter wraps, a `for` counts in its variable's type, and `&&` does not
/// evaluate a right side that would fault.
#[test]
fn plan_locals_loops_and_short_circuit() {
    let g = graph(3, &[], false, 0);
    let mut a = artifact("plan", None);
    a.globals = vec![node_global("out", T::U32)];
    a.plan.locals = vec![("x".into(), T::U32), ("i".into(), T::I32), ("sum".into(), T::I32)];
    let x = || local(T::U32, 0);
    let i = || local(T::I32, 1);
    let sum = || local(T::I32, 2);
    a.plan.body = vec![
        HostStmt::Assign { local: 0, value: u32c(u32::MAX) },
        HostStmt::Assign { local: 0, value: bin(B::Add, x(), u32c(2)) },
        HostStmt::Store { global: 0, index: vec![lit(T::Node, 0)], value: x() },
        // for i in -3..3 { if i == 1 { continue } sum += i }  => -3 -2 -1 0 2 = -4
        HostStmt::For {
            var: 1,
            start: lit(T::I32, i32b(-3)),
            end: lit(T::I32, 3),
            body: vec![
                HostStmt::If {
                    cond: bin(B::Eq, i(), lit(T::I32, 1)),
                    then: vec![HostStmt::Continue],
                    otherwise: vec![],
                },
                HostStmt::Assign { local: 2, value: bin(B::Add, sum(), i()) },
            ],
        },
        HostStmt::Store { global: 0, index: vec![lit(T::Node, 1)], value: cast(T::U32, sum()) },
        // false && out[99] == 0: the load is never evaluated.
        HostStmt::If {
            cond: bin(B::And, lit(T::Bool, 0), bin(B::Eq, load(T::U32, 0, vec![lit(T::Node, 99)]), u32c(0))),
            then: vec![],
            otherwise: vec![HostStmt::Store { global: 0, index: vec![lit(T::Node, 2)], value: u32c(9) }],
        },
    ];
    let run = run(&a, &g, &[], vec![]).unwrap();
    assert_eq!(run.global(0).unwrap(), vec![1, i32b(-4), 9]);
}
