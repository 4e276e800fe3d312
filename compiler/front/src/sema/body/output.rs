//! Program-level results lowered into the plan's prologue: dense-array dimensions, array initialisers
//! (as fills) and output declarations with their `--verify` checks.

use super::*;

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    pub(crate) fn dims(&mut self, dims: &[ast::Expr]) -> Vec<Handle<Expr>> {
        dims.iter().filter_map(|d| self.expr_of(d, Scalar::U32)).collect()
    }

    pub(crate) fn fill(&mut self, g: Handle<ir::Global>, init: &ast::Expr) {
        let elem = self.sema.module.globals[g].elem;
        if let Some(value) = self.expr_of(init, elem) {
            self.emit_plan(PlanOp::Fill { global: g, value }, init.span);
        }
    }

    pub(crate) fn output(&mut self, o: &ast::OutputDecl) {
        let _ = self.try_output(o);
    }

    pub(super) fn try_output(&mut self, o: &ast::OutputDecl) -> Option<()> {
        let g = match self.lookup_global(&o.name)? {
            Symbol::Global(g) => g,
            other => {
                self.error(
                    Diagnostic::error(o.name.span, format!("`{}` is {}, not an array", o.name.node, other.describe()))
                        .label("outputs are arrays"),
                );
                return None;
            }
        };
        let (gkind, elem) = {
            let global = &self.sema.module.globals[g];
            (global.kind.clone(), global.elem)
        };
        let check = match &o.check {
            None => None,
            Some((kind, args)) => {
                let want_args = match kind.node.as_str() {
                    "bfs" | "sssp" | "bc" => 1,
                    "pagerank" => 2,
                    "components" | "coloring" | "matching" | "communities" | "apsp" | "triangles" => 0,
                    other => {
                        self.error(
                            Diagnostic::error(kind.span, format!("unknown result kind `{other}`"))
                                .label("`--verify` does not know this")
                                .note("known kinds: bfs(source), sssp(source), components, coloring, matching, communities, apsp, pagerank(damping, tolerance), triangles, bc(source)"),
                        );
                        return None;
                    }
                };
                if args.len() != want_args {
                    self.error(
                        Diagnostic::error(
                            o.span,
                            format!("`{}` takes {want_args} argument(s), given {}", kind.node, args.len()),
                        )
                        .label("wrong number of arguments"),
                    );
                    return None;
                }
                let is_dense = |n: usize| matches!(&gkind, GlobalKind::Dense(d) if d.len() == n);
                let shape_ok = match kind.node.as_str() {
                    "apsp" => is_dense(2),
                    // Per-node counts, or the total in a one-element array (its length is checked at run time).
                    "triangles" => gkind == GlobalKind::Node || is_dense(1),
                    _ => gkind == GlobalKind::Node,
                };
                if !shape_ok {
                    let want = match kind.node.as_str() {
                        "apsp" => "a dense n×n array",
                        "triangles" => "a `node` array (per node) or a one-element array (the total)",
                        _ => "a `node` array",
                    };
                    self.error(
                        Diagnostic::error(o.name.span, format!("`{}` results must be {want}", kind.node))
                            .label(format!("`{}` is not", o.name.node)),
                    );
                    return None;
                }
                if matches!(kind.node.as_str(), "pagerank" | "bc") && !elem.is_float() {
                    self.error(Diagnostic::error(
                        o.name.span,
                        format!("`{}` scores must be floats (f32 or f64), not {elem}", kind.node),
                    ));
                    return None;
                }
                if kind.node == "triangles" && !elem.is_int() {
                    self.error(Diagnostic::error(o.name.span, format!("triangle counts must be integers, not {elem}")));
                    return None;
                }
                if matches!(kind.node.as_str(), "coloring" | "components" | "communities")
                    && !(elem.is_int() || elem == Scalar::Node)
                {
                    self.error(Diagnostic::error(
                        o.name.span,
                        format!("`{}` labels must be integers or node ids, not {elem}", kind.node),
                    ));
                    return None;
                }
                if kind.node == "matching" && elem != Scalar::Node {
                    self.error(Diagnostic::error(
                        o.name.span,
                        format!("a matching holds each node's mate (`node`), not {elem}"),
                    ));
                    return None;
                }
                Some(match kind.node.as_str() {
                    "bfs" => Check::Bfs { source: self.expr_of(&args[0], Scalar::Node)? },
                    "sssp" => Check::Sssp { source: self.expr_of(&args[0], Scalar::Node)? },
                    "components" => Check::Components,
                    "coloring" => Check::Coloring,
                    "matching" => Check::Matching,
                    "communities" => Check::Communities,
                    "pagerank" => Check::PageRank {
                        damping: self.expr_of(&args[0], Scalar::F64)?,
                        tolerance: self.expr_of(&args[1], Scalar::F64)?,
                    },
                    "triangles" => Check::Triangles,
                    "bc" => Check::Bc { source: self.expr_of(&args[0], Scalar::Node)? },
                    _ => Check::Apsp,
                })
            }
        };
        if let Some(prev) = self.sema.module.outputs.iter().find(|p| p.global == g) {
            let prev = prev.span;
            self.error(
                Diagnostic::error(o.span, format!("`{}` is already an output", o.name.node))
                    .with_secondary(prev, "first listed here"),
            );
            return None;
        }
        self.sema.module.outputs.push(ir::Output { global: g, check, span: o.span });
        Some(())
    }

    // ---- helpers ----
}
