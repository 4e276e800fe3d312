//! Range spaces: the size comes from the backend (`CpuKernels::space_size`) for the context with the launch's
//! arguments filled in, and the linearised iterations cover the whole space exactly once.

mod common;

use common::*;
use irgc_artifact::*;
use std::sync::atomic::Ordering::Relaxed;

use Scalar as T;

#[test]
fn a_2d_range_sized_by_its_arguments() {
    let g = graph(1, &[], false, 0);
    let mut a = artifact("range", None);
    a.globals = vec![GlobalDesc { name: "m".into(), elem: T::U32, shape: Shape::Dense(vec![u32c(70), u32c(50)]) }];
    a.kernels = vec![kdesc("fill", vec![T::U32, T::U32], Space::Range { dims: 2 })];
    a.plan.body = vec![invoke(0, vec![u32c(60), u32c(40)], None)];
    // Iteration i is (i / cols, i % cols) over rows x cols = arg0 x arg1.
    let mut k = kernel(|c, i| {
        let cols = c.arg(1);
        let (r, col) = (i / cols, i % cols);
        c.g32(0)[(r * c.dims(0).1 + col) as usize].fetch_add(1 + (r * 1000 + col) as u32, Relaxed);
    });
    k.range = Some(Box::new(|c| c.arg(0) * c.arg(1)));
    let run = run(&a, &g, &[], vec![k]).unwrap();
    let m = run.global(0).unwrap();
    for r in 0..70u64 {
        for col in 0..50u64 {
            let want = if r < 60 && col < 40 { 1 + r * 1000 + col } else { 0 };
            assert_eq!(m[(r * 50 + col) as usize], want, "({r}, {col})");
        }
    }
    assert_eq!(run.stats.launches[0].items, 2400);
}
