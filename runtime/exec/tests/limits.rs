//! The runtime's refusals: worklist overflow (kernel and host pushes), the launch limit, arrays too big for memory.

mod common;

use common::*;
use irgc_artifact::*;
use irgc_runtime::{RunError, RunOptions};

#[test]
fn a_kernel_pushing_past_capacity_fails_naming_the_worklist() {
    // 5 nodes, 0 edges: capacity 6; every node pushes itself twice (10 items).
    let g = graph(5, &[], false, 0);
    let mut a = artifact("overflow", None);
    a.worklists = vec![WorklistDesc { name: "todo".into(), elem: Scalar::Node }];
    let mut k = kdesc("twice", vec![], Space::Nodes);
    k.pushes = vec![0];
    a.kernels = vec![k];
    a.plan.body = vec![invoke(0, vec![], None)];
    let err = run(&a, &g, &[], vec![kernel(|c, v| (0..2).for_each(|_| c.push(0, v as u32)))]).err().unwrap();
    assert!(matches!(err, RunError::Overflow(_)));
    assert_eq!(
        err.to_string(),
        "worklist `todo` overflowed: kernel `twice` pushed more than its capacity of 6 items (max(nodes, edges) + 1); \
         a node is probably pushed more than once per round"
    );
}

#[test]
fn a_host_push_past_capacity_fails() {
    let g = graph(1, &[], false, 0);
    let mut a = artifact("overflow", None);
    a.worklists = vec![WorklistDesc { name: "todo".into(), elem: Scalar::Node }];
    a.plan.body = (0..3).map(|_| HostStmt::Push { worklist: 0, value: lit(Scalar::Node, 0) }).collect();
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert_eq!(err.to_string(), "worklist `todo` is full: the plan pushed more than its capacity of 2 items");
}

#[test]
fn a_runaway_loop_stops_at_the_launch_limit() {
    let g = graph(1, &[], false, 0);
    let mut a = artifact("forever", None);
    a.kernels = vec![kdesc("spin", vec![], Space::Nodes)];
    a.plan.body = vec![HostStmt::Loop {
        body: vec![invoke(0, vec![], None)],
        continuing: vec![],
        break_if: None,
        outlined: None,
    }];
    let opts = RunOptions { max_launches: 50, ..Default::default() };
    let err = run_with(&a, &g, &[], vec![kernel(|_, _| {})], opts).err().unwrap();
    assert!(matches!(err, RunError::LaunchLimit { limit: 50, .. }));
    assert!(err.to_string().starts_with("stopped after 50 kernel launches (the last one: `spin`)"), "{err}");
}

fn dense(name: &str, elem: Scalar, dims: Vec<HostExpr>) -> Artifact {
    let mut a = artifact("big", None);
    a.globals = vec![GlobalDesc { name: name.into(), elem, shape: Shape::Dense(dims) }];
    a
}

#[test]
fn arrays_beyond_available_memory_are_refused_by_name() {
    let g = graph(1000, &[], false, 0);
    let a = dense("dist", Scalar::I32, vec![num_nodes(), num_nodes()]);
    let opts = RunOptions { memory_limit: Some(1 << 20), ..Default::default() };
    let err = run_with(&a, &g, &[], vec![], opts).err().unwrap();
    assert!(matches!(err, RunError::Memory(_)));
    let msg = err.to_string();
    assert!(msg.starts_with("array `dist` (i32[1000, 1000]) needs 4000000 bytes, but only "), "{msg}");
}

#[test]
fn arrays_beyond_a_tebibyte_are_refused_whatever_the_machine() {
    let g = graph(1, &[], false, 0);
    let big = lit(Scalar::U64, 1 << 21);
    let a = dense("huge", Scalar::F64, vec![big.clone(), big]);
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert_eq!(
        err.to_string(),
        "array `huge` (f64[2097152, 2097152]) would need 35184372088832 bytes (32768.0 GiB), more than the runtime's \
         limit of 2^40 bytes per array; check its size"
    );
    // A product that overflows 64 bits is refused the same way.
    let a = dense("worse", Scalar::U32, vec![lit(Scalar::U64, u64::MAX), lit(Scalar::U64, 4)]);
    let err = run(&a, &g, &[], vec![]).err().unwrap();
    assert!(err.to_string().contains("would need more than 2^64 bytes"), "{err}");
}
