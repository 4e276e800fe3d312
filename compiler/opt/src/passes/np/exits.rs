//! The `np` pass's first step: a device function's loop whose only exits are `return K` (one literal) and which
//! writes nothing is rewritten to run every iteration and combine *whether* one would have returned, so that it
//! qualifies for a schedule ([`exits_to_or`]).

use super::{mentions, Cx, FnFacts, Names};
use crate::Remark;
use irgc_front::ir::arena::Arena;
use irgc_front::ir::{
    BinaryOp, DeviceBlock, DeviceBody, DeviceOp, Expr, ExprKind, Handle, Literal, Local, LocalType, Scalar, Statement,
    StmtKind,
};
use irgc_front::span::Span;

/// A step of a path from a block to a statement nested in it: the statement's index and which of its blocks.
type Path = Vec<(usize, usize)>;

/// Rewrites each serial loop of a function that leaves only by `return K` (one literal `K` for all its exits) and
/// otherwise writes nothing that outlives an iteration (no store, atomic or push, no call of a function that does)
/// into a loop without an exit: `found = false; for .. { .. found = found || true .. }; if found { return K; }`.
/// Running the iterations after the first exit changes nothing anyone can see, and the loop then qualifies for a
/// schedule, with `found` combined by or (a first-found search that only asks *whether*). Done only where the
/// rewritten loop qualifies: elsewhere the early exit is kept (it is what makes a serial loop cheap).
pub(super) fn exits_to_or(
    body: &mut DeviceBody,
    fns: &FnFacts,
    names: Names<'_>,
    what: &str,
    remarks: &mut Vec<Remark>,
) {
    let mut paths = Vec::new();
    exiting_loops(&body.exprs, &body.block, &fns.writes, &mut Vec::new(), &mut paths);
    for at in 0..paths.len() {
        let path = paths[at].clone();
        let mut new = body.clone();
        let (var, value, span) = rewrite_exits(&mut new, &path);
        let (block, i) = at_path(&mut new.block, &path);
        let StmtKind::For { body: lb, .. } = &block[i + 1].kind else { continue };
        let lb = lb.clone();
        let mentions = mentions(&new, &new.block);
        let cx = Cx { body: &new, mentions, fns, names, what, remarks: &mut Vec::new() };
        if cx.parallel(var, &lb).is_err() {
            continue;
        }
        let k = match new.exprs[value].kind {
            ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
            ExprKind::Literal(Literal::Int(v)) => v.to_string(),
            _ => "its value".into(),
        };
        let name = &new.locals[var].name;
        let message = format!(
            "{what}: the loop over `{name}` leaves early only by `return {k}` and writes nothing: it runs every \
             iteration, combining whether one would have returned (`found`) by or, and returns {k} after"
        );
        remarks.push(Remark { span, message });
        *body = new;
        // Two statements now stand around the loop: later loops of the same block moved down by two.
        let (d, i) = (path.len() - 1, path[path.len() - 1].0);
        for q in &mut paths[at + 1..] {
            if q.len() > d && q[..d] == path[..d] && q[d].0 > i {
                q[d].0 += 2;
            }
        }
    }
}

/// The paths, in statement order, to the serial loops whose only exits are `return` of one literal, at the loop's
/// own level (not inside a loop nested in it), and whose bodies write nothing that outlives an iteration.
fn exiting_loops(exprs: &Arena<Expr>, block: &DeviceBlock, write_fns: &[bool], at: &mut Path, out: &mut Vec<Path>) {
    for (i, s) in block.iter().enumerate() {
        match &s.kind {
            StmtKind::For { body, .. } => {
                if exits_only_by_literal(exprs, body, write_fns) {
                    at.push((i, 0));
                    out.push(at.clone());
                    at.pop();
                }
            }
            k => {
                for (j, b) in k.own_blocks().into_iter().enumerate() {
                    at.push((i, j));
                    exiting_loops(exprs, b, write_fns, at, out);
                    at.pop();
                }
            }
        }
    }
}

/// Whether a loop body leaves only by `return` of one literal (at least once), has no `break`/`continue` of its
/// own, no nested loop with an exit, and writes nothing but locals.
fn exits_only_by_literal(exprs: &Arena<Expr>, body: &DeviceBlock, write_fns: &[bool]) -> bool {
    struct Walk<'a> {
        exprs: &'a Arena<Expr>,
        write_fns: &'a [bool],
        values: Vec<(Literal, Scalar)>,
        ok: bool,
    }
    impl Walk<'_> {
        fn block(&mut self, b: &DeviceBlock, depth: usize) {
            for s in b {
                match &s.kind {
                    StmtKind::Break | StmtKind::Continue if depth == 0 => self.ok = false,
                    StmtKind::Op(DeviceOp::Return(Some(v))) if depth == 0 => match self.exprs[*v].kind {
                        ExprKind::Literal(l) => self.values.push((l, self.exprs[*v].ty)),
                        _ => self.ok = false,
                    },
                    StmtKind::Op(DeviceOp::Call { function, .. }) => self.ok &= !self.write_fns[function.index()],
                    StmtKind::Op(_) => self.ok = false,
                    k => {
                        let inner = depth + usize::from(matches!(k, StmtKind::For { .. } | StmtKind::Loop { .. }));
                        for b in k.own_blocks() {
                            self.block(b, inner);
                        }
                    }
                }
            }
        }
    }
    let mut w = Walk { exprs, write_fns, values: Vec::new(), ok: true };
    w.block(body, 0);
    w.ok && !w.values.is_empty() && w.values.iter().all(|v| *v == w.values[0])
}

/// Rewrites the loop at `path` as [`exits_to_or`] says: returns its variable, the returned literal and the loop's
/// span. The loop is then at `path`'s index + 1 (after `found = false`).
fn rewrite_exits(body: &mut DeviceBody, path: &[(usize, usize)]) -> (Handle<Local>, Handle<Expr>, Span) {
    let (block, i) = at_path(&mut body.block, path);
    let span = block[i].span;
    let StmtKind::For { var, body: lb, .. } = &mut block[i].kind else { unreachable!("the path names a loop") };
    let (var, mut lb) = (*var, std::mem::take(lb));
    let found = body.locals.append(Local { name: "found".into(), ty: LocalType::Scalar(Scalar::Bool), span });
    let mut expr = |kind| body.exprs.append(Expr { kind, ty: Scalar::Bool, span });
    let (read, yes, no, cond) = (
        expr(ExprKind::Local(found)),
        expr(ExprKind::Literal(Literal::Bool(true))),
        expr(ExprKind::Literal(Literal::Bool(false))),
        expr(ExprKind::Local(found)),
    );
    let or = expr(ExprKind::Binary { op: BinaryOp::Or, left: read, right: yes });
    let mut exit = None;
    replace_exits(&mut lb, found, or, &mut exit);
    let value = exit.expect("the loop returns (exits_only_by_literal)");
    let back = body.exprs.append(body.exprs[value].clone());
    let (block, i) = at_path(&mut body.block, path);
    if let StmtKind::For { body, .. } = &mut block[i].kind {
        *body = lb;
    }
    let ret = Statement { kind: StmtKind::Op(DeviceOp::Return(Some(back))), span };
    block.insert(i + 1, Statement { kind: StmtKind::If { cond, then: vec![ret], otherwise: Vec::new() }, span });
    block.insert(i, Statement { kind: StmtKind::Assign { local: found, value: no }, span });
    (var, value, span)
}

/// Replaces every `return K` of a loop body (at its own level) by `found = found || true`; `exit` gets the first
/// `K`'s expression (they are all the same literal: [`exits_only_by_literal`]).
fn replace_exits(b: &mut DeviceBlock, found: Handle<Local>, or: Handle<Expr>, exit: &mut Option<Handle<Expr>>) {
    for s in b.iter_mut() {
        match &mut s.kind {
            StmtKind::If { then, otherwise, .. } => {
                replace_exits(then, found, or, exit);
                replace_exits(otherwise, found, or, exit);
            }
            StmtKind::Op(DeviceOp::Return(Some(v))) => {
                exit.get_or_insert(*v);
                s.kind = StmtKind::Assign { local: found, value: or };
            }
            _ => {}
        }
    }
}

/// The block holding the statement at `path`, and the statement's index in it.
fn at_path<'b>(block: &'b mut DeviceBlock, path: &[(usize, usize)]) -> (&'b mut DeviceBlock, usize) {
    let (&(i, j), rest) = path.split_first().expect("a path has a step");
    if rest.is_empty() {
        return (block, i);
    }
    let inner = block[i].kind.own_blocks_mut().into_iter().nth(j).expect("the path names a block");
    at_path(inner, rest)
}
