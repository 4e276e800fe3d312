//! Access sites of bounds-checked code (`--check-bounds`): a checked array or graph access reports its site as
//! one number, which both backends compute the same way from the IR alone (no table travels with the code), and
//! which [`describe`] turns back into the kernel, the array and the source span of the index for the message.
//!
//! A site number packs the body (bits 48..63: a kernel's index, or `0x8000 |` a device function's), what is
//! indexed (bits 32..47: a global's index, `0x2000 |` an array parameter's local, `0x4000 |` a shared array's,
//! `0x8000 |` a graph query's code) and the
//! index expression (bits 0..31: its handle in the body). The bounds report stores the number plus one (0: none).

use crate::ir::{ArrayRef, DeviceBody, Expr, Function, Handle, Kernel, Module};
use crate::span::Span;

/// The body an access is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteBody {
    Kernel(Handle<Kernel>),
    Function(Handle<Function>),
}

/// What an access indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indexed {
    Array(ArrayRef),
    /// A graph query by name (`G.dst`, `G.degree`, ...): one of [`GRAPH_QUERIES`].
    Graph(&'static str),
}

/// The graph queries that take an index, in code order.
pub const GRAPH_QUERIES: [&str; 6] = ["G.src", "G.dst", "G.weight", "G.degree", "G.first_edge", "G.end_edge"];

/// The site number of an access to `what` with index expression `index` in `body` (`None` where the packing has
/// no room: more than 8,192 globals or locals). An array parameter (`a: [T]`) is always a node array, so its
/// bound is the node count.
pub fn site(body: SiteBody, what: Indexed, index: Handle<Expr>) -> Option<u64> {
    let body = match body {
        SiteBody::Kernel(k) => k.index() as u64,
        SiteBody::Function(f) => 0x8000 | f.index() as u64,
    };
    let target = match what {
        Indexed::Array(ArrayRef::Global(g)) if g.index() < 0x2000 => g.index() as u64,
        Indexed::Array(ArrayRef::Param(l)) if l.index() < 0x2000 => 0x2000 | l.index() as u64,
        Indexed::Array(ArrayRef::Shared(s)) if s.index() < 0x2000 => 0x4000 | s.index() as u64,
        Indexed::Array(_) => return None,
        Indexed::Graph(q) => 0x8000 | GRAPH_QUERIES.iter().position(|&g| g == q)? as u64,
    };
    Some(body << 48 | (target & 0xFFFF) << 32 | (index.index() as u64 & 0xFFFF_FFFF))
}

/// Where site `code` is: the body's description (`kernel \`bad\``), the array or query, the index's span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteInfo {
    pub body: String,
    pub array: String,
    pub span: Span,
}

/// Decodes a site number of `module` (`None` if it names nothing there).
pub fn describe(module: &Module, code: u64) -> Option<SiteInfo> {
    let (b, target, expr) = ((code >> 48) as usize, (code >> 32 & 0xFFFF) as usize, (code & 0xFFFF_FFFF) as usize);
    let (body, what): (&DeviceBody, String) = if b & 0x8000 == 0 {
        let k = module.kernels.iter().nth(b)?.1;
        (&k.body, format!("kernel `{}`", k.name))
    } else {
        let f = module.functions.iter().nth(b & 0x7FFF)?.1;
        (&f.body, format!("function `{}`", f.name))
    };
    let array = if target & 0x8000 != 0 {
        GRAPH_QUERIES.get(target & 0x7FFF)?.to_string()
    } else if target & 0x4000 != 0 {
        body.shared.iter().nth(target & 0x3FFF)?.1.name.clone()
    } else if target & 0x2000 != 0 {
        body.locals.iter().nth(target & 0x1FFF)?.1.name.clone()
    } else {
        module.globals.iter().nth(target)?.1.name.clone()
    };
    let span = body.exprs.iter().nth(expr)?.1.span;
    Some(SiteInfo { body: what, array, span })
}
