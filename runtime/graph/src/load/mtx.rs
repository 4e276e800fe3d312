//! MatrixMarket coordinate files (`.mtx`): entry `i j [v]` is the edge `i -> j` (1-based) with weight `v`.
//!
//! Symmetric files list one triangle; the mirror of every off-diagonal entry is added so the graph holds both
//! directions, while a diagonal entry (a self loop) is stored once. Skew-symmetric files mirror with the negated
//! value. Complex and Hermitian matrices and dense `array` files have no graph reading and are refused.

use crate::csr::{EdgeList, NodeLabels};
use crate::error::{quote, LoadError};
use crate::load::edges::{one_based, reserve_hint, Parsed, WeightColumn};
use crate::load::lines::{check_node_count, parse_i64, At, Lines};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    Skew,
}

pub(crate) fn parse(lines: &mut Lines<'_>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let (field, symmetry) = banner(&name, lines)?;

    // The size line: the first line that is neither a comment nor blank.
    let (n, nnz) = loop {
        let Some(line) = lines.next_line()? else {
            return Err(LoadError::invalid(&name, "file ends before the size line 'rows columns entries'"));
        };
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let mut f = line.fields();
        let rows = at.count(f.next(), "the number of rows")?;
        let cols = at.count(f.next(), "the number of columns")?;
        let nnz = at.count(f.next(), "the number of entries")?;
        at.end(f, "'rows columns entries'")?;
        if rows != cols {
            return Err(at.err(format!("the matrix is {rows}x{cols}; a graph needs a square matrix")));
        }
        break (check_node_count(at, rows)?, nnz);
    };

    let mirror = symmetry != Symmetry::General;
    let cap = reserve_hint(if mirror { nnz.saturating_mul(2) } else { nnz });
    let mut src = Vec::with_capacity(cap);
    let mut dst = Vec::with_capacity(cap);
    let mut weights = match field {
        Field::Pattern => WeightColumn::default(),
        Field::Integer => WeightColumn::with_capacity(cap),
        Field::Real => WeightColumn::floats_with_capacity(cap),
    };
    let mut seen: u64 = 0;
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        seen += 1;
        if seen > nnz {
            return Err(at.err(format!("more entries than the {nnz} the size line announced")));
        }
        let mut f = line.fields();
        let i = one_based(at, at.id(f.next(), "a row index")?, n)?;
        let j = one_based(at, at.id(f.next(), "a column index")?, n)?;
        src.push(i);
        dst.push(j);
        match field {
            Field::Pattern => {}
            Field::Integer => {
                let tok = f.next().ok_or_else(|| at.err("expected an integer value after the indices"))?;
                let v =
                    parse_i64(tok).ok_or_else(|| at.err(format!("expected an integer value, found {}", quote(tok))))?;
                weights.push_int(v);
            }
            Field::Real => {
                let tok = f.next().ok_or_else(|| at.err("expected a real value after the indices"))?;
                weights.push_float(crate::load::edges::float_weight(at, tok, "a real value (the edge's weight)")?);
            }
        }
        at.end(f, "'row column [value]'")?;
        if mirror && i != j {
            src.push(j);
            dst.push(i);
            if field != Field::Pattern {
                weights.repeat_last();
                if symmetry == Symmetry::Skew {
                    weights.negate_last();
                }
            }
        }
    }
    if seen != nnz {
        return Err(LoadError::invalid(&name, format!("the size line says {nnz} entries but the file has {seen}")));
    }
    let mut edges = EdgeList::new(n);
    edges.src = src;
    edges.dst = dst;
    edges.labels = NodeLabels::Offset(1);
    if field != Field::Pattern {
        edges.weights = Some(weights.finish());
    }
    Ok(Parsed { edges })
}

/// Reads and checks `%%MatrixMarket matrix coordinate <field> <symmetry>`.
fn banner(name: &str, lines: &mut Lines<'_>) -> Result<(Field, Symmetry), LoadError> {
    let Some(line) = lines.next_line()? else {
        return Err(LoadError::invalid(name, "empty file"));
    };
    let at = At { file: name, line: line.no };
    let expected = "'%%MatrixMarket matrix coordinate <field> <symmetry>'";
    let mut f = line.fields();
    match f.next() {
        Some(tok) if tok.eq_ignore_ascii_case(b"%%MatrixMarket") => {}
        _ => {
            let shown = line.bytes;
            return Err(at.err(format!("expected the banner {expected}, found {}", quote(shown))));
        }
    }
    let lower = |t: Option<&[u8]>| t.map(|t| t.to_ascii_lowercase());
    match lower(f.next()).as_deref() {
        Some(b"matrix") => {}
        Some(other) => {
            return Err(at.err(format!("unsupported MatrixMarket object {}; only 'matrix' is a graph", quote(other))))
        }
        None => return Err(at.err(format!("incomplete banner; expected {expected}"))),
    }
    match lower(f.next()).as_deref() {
        Some(b"coordinate") => {}
        Some(b"array") => {
            return Err(at.err("dense 'array' MatrixMarket files are not supported; expected 'coordinate'"))
        }
        Some(other) => {
            return Err(at.err(format!("unknown MatrixMarket format {}; expected 'coordinate'", quote(other))))
        }
        None => return Err(at.err(format!("incomplete banner; expected {expected}"))),
    }
    let field = match lower(f.next()).as_deref() {
        Some(b"pattern") => Field::Pattern,
        Some(b"integer") => Field::Integer,
        Some(b"real") | Some(b"double") => Field::Real,
        Some(other) => {
            return Err(
                at.err(format!("unsupported MatrixMarket field {}; expected pattern, integer or real", quote(other)))
            )
        }
        None => return Err(at.err(format!("incomplete banner; expected {expected}"))),
    };
    let symmetry = match lower(f.next()).as_deref() {
        Some(b"general") => Symmetry::General,
        Some(b"symmetric") => Symmetry::Symmetric,
        Some(b"skew-symmetric") if field != Field::Pattern => Symmetry::Skew,
        Some(b"skew-symmetric") => {
            return Err(at.err(
                "a pattern matrix cannot be skew-symmetric (that needs values to negate); use general or symmetric",
            ))
        }
        Some(other) => {
            return Err(at.err(format!(
                "unsupported MatrixMarket symmetry {}; expected general, symmetric or skew-symmetric",
                quote(other)
            )))
        }
        None => return Err(at.err(format!("incomplete banner; expected {expected}"))),
    };
    Ok((field, symmetry))
}
