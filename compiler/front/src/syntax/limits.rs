//! The nesting limit: a pass over the token stream, before parsing, that refuses programs whose syntax tree
//! would be too deep for the compiler's recursive walks.
//!
//! Every stage after the lexer recurses over the tree: the generated parser's reductions build it, and dropping,
//! printing and cloning it, semantic analysis, constant folding and the backends' code generators all walk it
//! recursively. A tree as deep as the program is long (a chain of 10,000 `+`, 30,000 unary minuses, thousands of
//! `else if`s, deeply nested brackets or blocks) would overflow the stack in one of them. So the depth is bounded
//! here, on the tokens, with an explicit stack, before any tree exists.
//!
//! # What counts
//!
//! The pass computes an upper bound of the depth of the syntax tree (the number of nested expression, statement
//! and block nodes on the longest path from an item to a leaf) and refuses the program when it exceeds
//! [`MAX_DEPTH`]. Within one expression every operator adds at most one level: each binary operator of a chain
//! (`a + b + c` is `(a + b) + c`, a tree as deep as the chain is long), each unary operator, each `as` cast,
//! field, method call, call and index. Brackets add the depth of what they contain; a block adds two levels (the
//! block and its statement), and each `else if` of a chain two more (it nests the next `if` in an `else` block).
//! The bound is never smaller than the real depth, so every program that passes is safe for every later stage,
//! whatever it recurses on; it is larger only for expressions that mix long operator chains with postfix
//! operators, which real programs do not come near.
//!
//! [`MAX_DEPTH`] is 256: ten times the deepest shipped program (below 25) and enough for a chain of about 250
//! operators, 120 nested blocks or a 120-branch `else if` chain. It is kept that low because the recursive walks
//! need a few kilobytes of stack per level in a debug build: semantic analysis overflows a 2 MiB stack (the
//! default of a spawned thread, and of every test) at about 400 levels. At 256 the deepest accepted programs compile
//! and print on a 2 MiB stack (`tests/limits.rs`), which leaves the backends' expression walks the same margin.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use crate::syntax::lexer::lex;
use crate::syntax::token::Tok;

/// The deepest syntax tree the front end accepts (see the module documentation for what counts as a level).
pub const MAX_DEPTH: u32 = 256;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    /// The file itself: items, like a block's statements.
    File,
    /// `{ ... }`: a block of statements.
    Brace,
    /// `( ... )`: a grouping, call arguments or a 2-D range.
    Paren,
    /// `[ ... ]`: index arguments, dimensions or an array-reference type.
    Bracket,
}

/// One open bracket (or the file), with the depth of what has been seen inside it so far.
struct Frame {
    group: Group,
    /// Where the opening bracket is.
    open: (usize, usize),
    /// Depth of the tree above this group's content.
    prefix: u32,
    /// `else`s of the if-chain being read (statement groups only).
    else_chain: u32,
    /// Where the last of them is.
    last_else: (usize, usize),
    /// The deepest finished part of the group, relative to its content.
    best: u32,
    /// Binary operators of the expression being read.
    binops: u32,
    /// The deepest finished operand of the expression being read.
    max_unit: u32,
    /// Unary and postfix operators of the operand being read.
    unit_ops: u32,
    /// The deepest bracket group closed within the operand being read.
    unit_child: u32,
    /// The previous token ended an operand (so `-` is binary, `(` a call, `[` an index).
    after_operand: bool,
    /// The previous token closed a block (so an `else` continues an if-chain).
    after_block: bool,
}

impl Frame {
    fn new(group: Group, open: (usize, usize), prefix: u32) -> Self {
        Frame {
            group,
            open,
            prefix,
            else_chain: 0,
            last_else: (0, 0),
            best: 0,
            binops: 0,
            max_unit: 0,
            unit_ops: 0,
            unit_child: 0,
            after_operand: false,
            after_block: false,
        }
    }

    /// Levels a statement adds: the statement itself and the blocks of its `else if` chain.
    fn stmt_base(&self) -> u32 {
        match self.group {
            Group::File | Group::Brace => 1 + 2 * self.else_chain,
            Group::Paren | Group::Bracket => 0,
        }
    }

    fn unit(&self) -> u32 {
        self.unit_ops + self.unit_child.max(1)
    }

    fn segment(&self) -> u32 {
        self.stmt_base() + self.binops + self.max_unit.max(self.unit())
    }

    /// The deepest part of the group so far, relative to its content.
    fn local(&self) -> u32 {
        self.best.max(self.segment())
    }

    fn end_unit(&mut self) {
        self.max_unit = self.max_unit.max(self.unit());
        self.unit_ops = 0;
        self.unit_child = 0;
    }

    /// Ends the expression being read (at a token that cannot be part of one).
    fn end_segment(&mut self) {
        self.best = self.local();
        self.binops = 0;
        self.max_unit = 0;
        self.unit_ops = 0;
        self.unit_child = 0;
        self.after_operand = false;
    }

    /// Depth above a bracket group opened now.
    fn child_prefix(&self) -> u32 {
        self.prefix + self.stmt_base() + self.binops + self.unit_ops
    }
}

/// What grew past the limit, for the diagnostic's wording.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Block,
    Chain,
    Unary,
    Else,
    Other,
}

/// Checks the nesting of `src`'s tokens; returns the diagnostic for the first place that exceeds [`MAX_DEPTH`].
pub fn check_depth(file: FileId, src: &str) -> Option<Diagnostic> {
    check_depth_with(file, src, MAX_DEPTH)
}

/// [`check_depth`] with a given limit.
pub fn check_depth_with(file: FileId, src: &str, limit: u32) -> Option<Diagnostic> {
    let mut stack = vec![Frame::new(Group::File, (0, 0), 0)];
    for triple in lex(src) {
        let Ok((start, tok, end)) = triple else { continue };
        let top = stack.last_mut().expect("the file frame is never popped");
        if top.after_block && tok != Tok::Else {
            top.else_chain = 0;
        }
        top.after_block = false;
        let mut cause = Cause::Other;
        match tok {
            Tok::Ident(_) | Tok::Int(_) | Tok::Float(_) | Tok::True | Tok::False | Tok::Inf | Tok::Node | Tok::Edge => {
                top.after_operand = true
            }
            Tok::Minus | Tok::Bang | Tok::Tilde if !top.after_operand => {
                top.unit_ops += 1;
                cause = Cause::Unary;
            }
            Tok::Plus
            | Tok::Minus
            | Tok::Star
            | Tok::Slash
            | Tok::Percent
            | Tok::Amp
            | Tok::PipeOp
            | Tok::Caret
            | Tok::Shl
            | Tok::Shr
            | Tok::AndAnd
            | Tok::OrOr
            | Tok::EqEq
            | Tok::NotEq
            | Tok::Lt
            | Tok::Le
            | Tok::Gt
            | Tok::Ge => {
                top.end_unit();
                top.binops += 1;
                top.after_operand = false;
                cause = Cause::Chain;
            }
            Tok::Bang | Tok::Tilde => {
                // After an operand: not valid, but counted like a unary operator so the bound stays an upper one.
                top.unit_ops += 1;
                top.after_operand = false;
                cause = Cause::Unary;
            }
            Tok::Dot | Tok::As => {
                top.unit_ops += 1;
                top.after_operand = false;
            }
            Tok::LParen | Tok::LBracket => {
                if top.after_operand {
                    top.unit_ops += 1;
                }
                let prefix = top.child_prefix();
                let group = if tok == Tok::LParen { Group::Paren } else { Group::Bracket };
                stack.push(Frame::new(group, (start, end), prefix));
            }
            Tok::LBrace => {
                top.end_segment();
                let prefix = top.prefix + top.stmt_base() + 1;
                stack.push(Frame::new(Group::Brace, (start, end), prefix));
                cause = Cause::Block;
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                let want = match tok {
                    Tok::RParen => Group::Paren,
                    Tok::RBracket => Group::Bracket,
                    _ => Group::Brace,
                };
                // A closer that does not match is left to the parser to report; the group stays open, which can
                // only make the bound larger.
                if top.group == want {
                    let mut child = stack.pop().expect("checked above");
                    child.end_segment();
                    let parent = stack.last_mut().expect("the file frame is never popped");
                    if want == Group::Brace {
                        parent.best = parent.best.max(parent.stmt_base() + 1 + child.best);
                        parent.after_block = true;
                    } else {
                        parent.unit_child = parent.unit_child.max(child.best);
                        parent.after_operand = true;
                    }
                } else {
                    top.end_segment();
                }
            }
            Tok::Else => {
                top.end_segment();
                top.else_chain += 1;
                top.last_else = (start, end);
                cause = Cause::Else;
            }
            _ => {
                top.end_segment();
                if matches!(tok, Tok::Semi) {
                    top.else_chain = 0;
                }
            }
        }
        let top = stack.last().expect("the file frame is never popped");
        if top.prefix + top.local() > limit {
            let (cause, (l, r)) = attribute(&stack, cause, (start, end));
            return Some(too_deep(Span::new(file, l, r), cause, limit));
        }
    }
    None
}

/// What made the tree too deep, and where to point: the token itself when it lengthens a chain of operators;
/// otherwise the largest contribution of the open groups (an `else if` chain, nested blocks, brackets).
fn attribute(stack: &[Frame], cause: Cause, at: (usize, usize)) -> (Cause, (usize, usize)) {
    if matches!(cause, Cause::Chain | Cause::Unary) {
        return (cause, at);
    }
    let elses: u32 = stack.iter().map(|f| 2 * f.else_chain).sum();
    let blocks = 2 * stack.iter().filter(|f| f.group == Group::Brace).count() as u32;
    let brackets = stack.iter().filter(|f| matches!(f.group, Group::Paren | Group::Bracket)).count() as u32;
    if elses > 0 && elses >= blocks && elses >= brackets {
        let longest = stack.iter().max_by_key(|f| f.else_chain).expect("not empty");
        (Cause::Else, longest.last_else)
    } else if blocks > 0 && blocks >= brackets {
        let innermost = stack.iter().rev().find(|f| f.group == Group::Brace).expect("blocks > 0");
        (Cause::Block, innermost.open)
    } else {
        (Cause::Other, at)
    }
}

fn too_deep(span: Span, cause: Cause, limit: u32) -> Diagnostic {
    let (message, label) = match cause {
        Cause::Block => ("blocks nested too deeply", "this block is too deep"),
        Cause::Chain => ("expression too long", "this operator makes the chain too long"),
        Cause::Unary => ("too many unary operators in a row", "this operator is one too many"),
        Cause::Else => ("`else if` chain too long", "this `else` makes the chain too long"),
        Cause::Other => ("expression nested too deeply", "nested too deeply here"),
    };
    Diagnostic::error(span, format!("{message} (more than {limit} levels)"))
        .label(label)
        .note(format!(
            "the compiler limits programs to {limit} levels of nesting: each operator of a chain like `a + b + c` \
             counts as one, as do each unary operator, bracket, block and `else if`"
        ))
        .note("split the expression with `let` bindings, or the code into functions")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(src: &str, limit: u32) -> bool {
        check_depth_with(FileId(0), src, limit).is_none()
    }

    /// The smallest limit that accepts `src`.
    fn bound(src: &str) -> u32 {
        (0..10_000).find(|&l| depth_ok(src, l)).expect("some limit accepts it")
    }

    #[test]
    fn chains_count_their_operators() {
        let short = bound("const X: u32 = 1 + 1;");
        let long = bound("const X: u32 = 1 + 1 + 1 + 1 + 1 + 1;");
        assert_eq!(long - short, 4);
        // Separate expressions do not add up.
        assert_eq!(bound("const X: u32 = 1 + 1;\nconst Y: u32 = 1 + 1;"), short);
        assert_eq!(bound("plan { f(1 + 1, 1 + 1, 1 + 1); }"), bound("plan { f(1 + 1); }"));
    }

    #[test]
    fn unary_operators_and_brackets_count() {
        let base = bound("fn f() { let x = a; }");
        assert_eq!(bound("fn f() { let x = - - - a; }"), base + 3);
        assert_eq!(bound("fn f() { let x = !!!!a; }"), base + 4);
        assert!(bound("fn f() { let x = ((((a)))); }") >= base);
        assert!(bound("fn f() { let x = f(g(h(a))); }") >= base + 3);
    }

    #[test]
    fn blocks_and_else_if_chains_count() {
        let one = bound("fn f() { if a { } }");
        assert!(bound("fn f() { if a { if b { if c { } } } }") >= one + 4);
        let chain = bound("fn f() { if a { } else if b { } else if c { } else { } }");
        assert!(chain >= one + 6, "{chain} vs {one}");
        // Consecutive `if`s are not a chain.
        assert_eq!(
            bound("fn f() { if a { } else { } if b { } else { } if c { } else { } }"),
            bound("fn f() { if a { } else { } }")
        );
    }

    #[test]
    fn reports_the_place_that_goes_too_deep() {
        let src = format!("fn f() {{ let x = {}1; }}", "-".repeat(300));
        let d = check_depth(FileId(0), &src).expect("too deep");
        assert_eq!(d.message, format!("too many unary operators in a row (more than {MAX_DEPTH} levels)"));
        let at = d.primary.0.start as usize;
        assert_eq!(&src[at..at + 1], "-");
    }
}
