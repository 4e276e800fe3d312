//! Delimited edge tables (`.csv`, `.tsv`), as pandas, Spark, LDBC and graph databases export them: one edge per
//! row, directed as written, usually with a header row naming the columns and often with more columns than an
//! edge needs.
//!
//! - Separator: taken from the first row that is not a comment: a comma if it has one (for `.tsv` files: a tab if
//!   it has one), else a tab, else runs of blanks. Blanks around fields are ignored.
//! - Quoted fields (`"a, b"`, `""` for a quote inside) are read as the text between the quotes; they cannot span
//!   lines.
//! - Header: the first row is a header when its source and destination fields are both not integers (`src,dst`);
//!   columns chosen by name need one.
//! - Columns ([`Columns`]): by default the first two are the source and destination, and the third is the weight if
//!   the first data row has one and it is a number; further columns are ignored. `--columns` picks others by header
//!   name or 0-based index.
//! - Lines starting with `#` or `%` and blank lines are skipped anywhere (SNAP-style `.tsv` files start with them).
//!
//! Node ids are the file's non-negative integer ids, numbered as `ids.rs` describes, so outputs are written back in
//! them. Errors name the file, the line and the column (by header name where there is one, and index).

use std::fmt;
use std::str::FromStr;

use crate::error::{quote, LoadError};
use crate::load::edges::Parsed;
use crate::load::ids::RawEdges;
use crate::load::lines::{is_blank, parse_f64, parse_i64, parse_u64, At, Lines};

/// One column of a table: by 0-based index or by header name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    Index(usize),
    Name(String),
}

/// Which columns of a table hold an edge's source, destination and weight (`--columns SRC,DST[,WEIGHT]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Columns {
    pub src: Column,
    pub dst: Column,
    /// `None`: the edges have no weights, whatever else the table holds.
    pub weight: Option<Column>,
}

impl FromStr for Columns {
    type Err = String;

    /// `SRC,DST[,WEIGHT]`, each a 0-based column index (all digits) or a header name.
    fn from_str(s: &str) -> Result<Columns, String> {
        let col = |t: &str| -> Result<Column, String> {
            let t = t.trim();
            if t.is_empty() {
                return Err(format!("columns `{s}`: an empty column; expected SRC,DST[,WEIGHT]"));
            }
            Ok(match t.parse::<usize>() {
                Ok(i) if t.bytes().all(|b| b.is_ascii_digit()) => Column::Index(i),
                _ => Column::Name(t.to_string()),
            })
        };
        let parts: Vec<&str> = s.split(',').collect();
        let (src, dst, weight) = match parts.as_slice() {
            [a, b] => (col(a)?, col(b)?, None),
            [a, b, w] => (col(a)?, col(b)?, Some(col(w)?)),
            _ => return Err(format!("columns `{s}`: expected SRC,DST[,WEIGHT] (header names or 0-based indices)")),
        };
        let chosen: Vec<&Column> = [Some(&src), Some(&dst), weight.as_ref()].into_iter().flatten().collect();
        if (1..chosen.len()).any(|i| chosen[..i].contains(&chosen[i])) {
            return Err(format!("columns `{s}`: a column is chosen twice"));
        }
        Ok(Columns { src, dst, weight })
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Column::Index(i) => write!(f, "{i}"),
            Column::Name(n) => f.write_str(n),
        }
    }
}

/// The form `--columns` takes, so the cache key and messages name a selection the way a user writes it.
impl fmt::Display for Columns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.src, self.dst)?;
        if let Some(w) = &self.weight {
            write!(f, ",{w}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Separator {
    Comma,
    Tab,
    Blanks,
}

impl Separator {
    /// The separator a table uses, from its first row; `tsv` says the file name ends in `.tsv`.
    fn detect(row: &[u8], tsv: bool) -> Separator {
        let has = |b| memchr::memchr(b, row).is_some();
        if !tsv && has(b',') {
            Separator::Comma
        } else if has(b'\t') {
            Separator::Tab
        } else {
            Separator::Blanks
        }
    }

    fn ends_field(self, b: u8) -> bool {
        match self {
            Separator::Comma => b == b',',
            Separator::Tab => b == b'\t',
            Separator::Blanks => is_blank(b),
        }
    }
}

/// The fields of one row, unquoted into one reusable buffer (no allocation per line once it has grown).
#[derive(Default)]
struct Row {
    buf: Vec<u8>,
    fields: Vec<(usize, usize)>,
}

impl Row {
    fn get(&self, i: usize) -> Option<&[u8]> {
        self.fields.get(i).map(|&(a, b)| &self.buf[a..b])
    }

    fn len(&self) -> usize {
        self.fields.len()
    }

    fn split(&mut self, at: At<'_>, line: &[u8], sep: Separator) -> Result<(), LoadError> {
        self.buf.clear();
        self.fields.clear();
        let n = line.len();
        let mut i = 0;
        loop {
            while i < n && is_blank(line[i]) && !sep.ends_field(line[i]) {
                i += 1;
            }
            if sep == Separator::Blanks {
                while i < n && is_blank(line[i]) {
                    i += 1;
                }
                if i == n {
                    return Ok(());
                }
            }
            let start = self.buf.len();
            if i < n && line[i] == b'"' {
                i += 1;
                loop {
                    match memchr::memchr(b'"', &line[i..]) {
                        None => {
                            return Err(at.err(format!(
                                "field {} has no closing quote (quoted fields cannot span lines)",
                                self.fields.len()
                            )))
                        }
                        Some(q) => {
                            self.buf.extend_from_slice(&line[i..i + q]);
                            i += q + 1;
                            if line.get(i) == Some(&b'"') {
                                self.buf.push(b'"');
                                i += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                while i < n && is_blank(line[i]) && !sep.ends_field(line[i]) {
                    i += 1;
                }
                if i < n && !sep.ends_field(line[i]) {
                    return Err(at.err(format!(
                        "field {} has text after its closing quote: {}",
                        self.fields.len(),
                        quote(&line[i..])
                    )));
                }
            } else {
                let len = line[i..].iter().position(|&b| sep.ends_field(b)).unwrap_or(n - i);
                let mut field = &line[i..i + len];
                while let [rest @ .., b] = field {
                    if !is_blank(*b) {
                        break;
                    }
                    field = rest;
                }
                self.buf.extend_from_slice(field);
                i += len;
            }
            self.fields.push((start, self.buf.len()));
            if i >= n {
                return Ok(());
            }
            // On the separator: a comma or tab at the end of the line leaves one more (empty) field.
            i += 1;
            if i == n && sep != Separator::Blanks {
                self.fields.push((self.buf.len(), self.buf.len()));
                return Ok(());
            }
        }
    }
}

/// Where the weight comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WeightAt {
    /// The default: decided by the first data row (its third field, if it is a number).
    Undecided,
    None,
    Index(usize),
}

/// The table's shape, fixed by its first row.
struct Layout {
    sep: Separator,
    src: usize,
    dst: usize,
    weight: WeightAt,
    /// The header's column names, if it has a header.
    names: Option<Vec<String>>,
}

fn is_integer(tok: &[u8]) -> bool {
    parse_i64(tok).is_some() || parse_u64(tok).is_some()
}

impl Layout {
    /// Reads the first row: the separator, whether it is a header, and the chosen columns' indices. Returns the
    /// layout and whether the row was a header (else it is the first edge).
    fn from_first_row(
        at: At<'_>,
        row: &Row,
        sep: Separator,
        columns: Option<&Columns>,
    ) -> Result<(Layout, bool), LoadError> {
        let by_name = columns.is_some_and(|c| {
            [Some(&c.src), Some(&c.dst), c.weight.as_ref()].into_iter().flatten().any(|c| matches!(c, Column::Name(_)))
        });
        let header = if by_name {
            true
        } else {
            let (s, d) = columns.map_or((0, 1), |c| (index_of(&c.src), index_of(&c.dst)));
            let looks_like_id = |i: usize| row.get(i).is_some_and(is_integer);
            !looks_like_id(s) && !looks_like_id(d) && row.len() > s.max(d)
        };
        let names: Option<Vec<String>> = header
            .then(|| (0..row.len()).map(|i| String::from_utf8_lossy(row.get(i).unwrap_or(b"")).into_owned()).collect());
        let resolve = |c: &Column| -> Result<usize, LoadError> {
            match c {
                Column::Index(i) => Ok(*i),
                Column::Name(n) => {
                    let names = names.as_deref().unwrap_or(&[]);
                    let exact = names.iter().position(|h| h == n);
                    let folded = || {
                        let mut m = names.iter().enumerate().filter(|(_, h)| h.eq_ignore_ascii_case(n));
                        match (m.next(), m.next()) {
                            (Some((i, _)), None) => Some(i),
                            _ => None,
                        }
                    };
                    exact.or_else(folded).ok_or_else(|| {
                        let data = row.get(0).is_some_and(is_integer) && row.get(1).is_some_and(is_integer);
                        let hint =
                            if data { " (this row looks like data: does the file have a header row?)" } else { "" };
                        at.err(format!("no column named '{n}'; the header's columns are: {}{hint}", names.join(", ")))
                    })
                }
            }
        };
        let (src, dst, weight) = match columns {
            None => (0, 1, WeightAt::Undecided),
            Some(c) => (
                resolve(&c.src)?,
                resolve(&c.dst)?,
                match &c.weight {
                    None => WeightAt::None,
                    Some(w) => WeightAt::Index(resolve(w)?),
                },
            ),
        };
        let layout = Layout { sep, src, dst, weight, names };
        if src == dst || weight == WeightAt::Index(src) || weight == WeightAt::Index(dst) {
            return Err(at.err(format!(
                "the columns chosen for source, destination and weight must differ; {} is chosen twice",
                layout.describe(if src == dst { src } else { weight_index(weight) })
            )));
        }
        Ok((layout, header))
    }

    /// A column as messages name it: `column 'dst' (index 1)`, or `column index 1` without a header.
    fn describe(&self, i: usize) -> String {
        match self.names.as_ref().and_then(|n| n.get(i)) {
            Some(name) => format!("column '{name}' (index {i})"),
            None => format!("column index {i}"),
        }
    }

    fn field<'r>(&self, at: At<'_>, row: &'r Row, i: usize, what: &str) -> Result<&'r [u8], LoadError> {
        row.get(i).ok_or_else(|| {
            let n = row.len();
            at.err(format!("the {what} is {}, but this row has only {n} column{}", self.describe(i), plural(n)))
        })
    }

    fn id(&self, at: At<'_>, row: &Row, i: usize, what: &str) -> Result<u64, LoadError> {
        let tok = self.field(at, row, i, what)?;
        parse_u64(tok).ok_or_else(|| {
            let digits = tok.strip_prefix(b"-").unwrap_or(tok);
            let problem = if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                let sign = if tok.starts_with(b"-") { "negative" } else { "too large" };
                format!("node id {} is {sign}", quote(tok))
            } else {
                format!("expected a node id (a non-negative integer), found {}", quote(tok))
            };
            at.err(format!("{}: {problem}", self.describe(i)))
        })
    }

    /// Reads one data row into `raw`.
    fn read(&mut self, at: At<'_>, row: &Row, raw: &mut RawEdges) -> Result<(), LoadError> {
        let u = self.id(at, row, self.src, "source")?;
        let v = self.id(at, row, self.dst, "destination")?;
        if self.weight == WeightAt::Undecided {
            let numeric = row.get(2).is_some_and(|t| parse_f64(t).is_some());
            self.weight = if numeric { WeightAt::Index(2) } else { WeightAt::None };
            raw.weighted = Some(numeric);
        }
        if let WeightAt::Index(w) = self.weight {
            let tok = self.field(at, row, w, "weight")?;
            raw.weights.push(at, Some(tok)).map_err(|e| match e {
                LoadError::Parse { file, line, msg } => {
                    LoadError::Parse { file, line, msg: format!("{}: {msg}", self.describe(w)) }
                }
                e => e,
            })?;
        }
        raw.push_ids(u, v);
        Ok(())
    }
}

fn index_of(c: &Column) -> usize {
    match c {
        Column::Index(i) => *i,
        Column::Name(_) => 0,
    }
}

fn weight_index(w: WeightAt) -> usize {
    match w {
        WeightAt::Index(i) => i,
        _ => 0,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Whether the file name says tab-separated (`x.tsv`, `x.tsv.gz`).
fn named_tsv(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let name = [".xz", ".gz", ".bz2"].iter().find_map(|s| name.strip_suffix(s)).unwrap_or(&name);
    name.ends_with(".tsv")
}

pub(crate) fn parse(lines: &mut Lines<'_>, columns: Option<&Columns>) -> Result<Parsed, LoadError> {
    let name = lines.name().to_string();
    let tsv = named_tsv(&name);
    let mut row = Row::default();
    let mut layout: Option<Layout> = None;
    let mut raw = RawEdges::new();
    if columns.is_some_and(|c| c.weight.is_none()) {
        raw.weighted = Some(false);
    }
    while let Some(line) = lines.next_line()? {
        let t = line.trimmed();
        if t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") {
            continue;
        }
        let at = At { file: &name, line: line.no };
        let l = match &mut layout {
            Some(l) => {
                row.split(at, line.bytes, l.sep)?;
                l
            }
            None => {
                let sep = Separator::detect(line.bytes, tsv);
                row.split(at, line.bytes, sep)?;
                let (l, header) = Layout::from_first_row(at, &row, sep, columns)?;
                if let WeightAt::Index(_) = l.weight {
                    raw.weighted = Some(true);
                }
                let l = layout.insert(l);
                if header {
                    continue;
                }
                l
            }
        };
        l.read(at, &row, &mut raw)?;
    }
    if raw.src.is_empty() {
        let what = if layout.is_some() { "a header, " } else { "" };
        return Err(LoadError::invalid(&name, format!("no edges (only {what}comments and blank lines)")));
    }
    Ok(Parsed { edges: raw.into_edges(&name, None)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str, sep: Separator) -> Result<Vec<String>, String> {
        let mut row = Row::default();
        row.split(At { file: "t.csv", line: 1 }, line.as_bytes(), sep).map_err(|e| e.to_string())?;
        Ok((0..row.len()).map(|i| String::from_utf8_lossy(row.get(i).unwrap()).into_owned()).collect())
    }

    #[test]
    fn fields_quotes_and_separators() {
        assert_eq!(split(" 1 , 2,3.5", Separator::Comma).unwrap(), ["1", "2", "3.5"]);
        assert_eq!(split("\"a, b\",\"say \"\"hi\"\"\" ,", Separator::Comma).unwrap(), ["a, b", "say \"hi\"", ""]);
        assert_eq!(split("1\t\t2", Separator::Tab).unwrap(), ["1", "", "2"]);
        assert_eq!(split("  1   2\t3 ", Separator::Blanks).unwrap(), ["1", "2", "3"]);
        assert_eq!(split("\"x y\" 2", Separator::Blanks).unwrap(), ["x y", "2"]);
        assert_eq!(
            split("\"ab", Separator::Comma).unwrap_err(),
            "t.csv:1: field 0 has no closing quote (quoted fields cannot span lines)"
        );
        assert_eq!(
            split("1,\"a\"b", Separator::Comma).unwrap_err(),
            "t.csv:1: field 1 has text after its closing quote: 'b'"
        );
    }

    #[test]
    fn separator_detection() {
        assert_eq!(Separator::detect(b"a,b\tc", false), Separator::Comma);
        assert_eq!(Separator::detect(b"a,b\tc", true), Separator::Tab);
        assert_eq!(Separator::detect(b"a b", true), Separator::Blanks);
        assert_eq!(Separator::detect(b"a\tb", false), Separator::Tab);
    }

    #[test]
    fn column_specs() {
        let c: Columns = "from, to ,3".parse().unwrap();
        assert_eq!(c.src, Column::Name("from".into()));
        assert_eq!(c.dst, Column::Name("to".into()));
        assert_eq!(c.weight, Some(Column::Index(3)));
        assert_eq!(c.to_string(), "from,to,3");
        assert!("1".parse::<Columns>().unwrap_err().contains("expected SRC,DST[,WEIGHT]"));
        assert!("1,2,3,4".parse::<Columns>().is_err());
        assert!("a,,b".parse::<Columns>().unwrap_err().contains("empty column"));
        assert!("a,b,a".parse::<Columns>().unwrap_err().contains("chosen twice"));
    }
}
