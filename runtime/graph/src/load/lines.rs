//! A byte-level line reader and field tokenizer for the text formats.
//!
//! Inputs have millions of lines, so nothing here allocates per line or per token: lines are slices of one reusable
//! buffer, fields are sub-slices, and numbers are parsed straight from the bytes. Line ends may be `\n` or `\r\n`.

use std::io::Read;

use crate::error::{quote, LoadError};
use crate::load::input::Input;

/// The initial buffer size; it doubles whenever less than half of it is free after compaction (a long line).
const INITIAL_BUFFER: usize = 1 << 16;
/// The longest line accepted: a guard against a binary file without newlines filling memory.
const MAX_LINE: usize = 256 << 20;

/// One line of input without its line end, and its 1-based number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'b> {
    pub no: u64,
    pub bytes: &'b [u8],
}

impl<'b> Line<'b> {
    pub fn fields(&self) -> Fields<'b> {
        Fields { rest: self.bytes }
    }

    /// The line without leading blanks, for comment and header checks.
    pub fn trimmed(&self) -> &'b [u8] {
        let start = self.bytes.iter().position(|b| !is_blank(*b)).unwrap_or(self.bytes.len());
        &self.bytes[start..]
    }

    pub fn is_blank(&self) -> bool {
        self.trimmed().is_empty()
    }
}

/// Reads lines from a (decompressed) input.
pub(crate) struct Lines<'a> {
    input: Input<'a>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    line_no: u64,
    /// Decompressed bytes handed out so far.
    bytes: u64,
}

impl<'a> Lines<'a> {
    pub fn new(input: Input<'a>) -> Self {
        Lines { input, buf: vec![0; INITIAL_BUFFER], start: 0, end: 0, eof: false, line_no: 0, bytes: 0 }
    }

    /// The file name for messages.
    pub fn name(&self) -> &str {
        &self.input.name
    }

    /// Decompressed bytes consumed so far (plausibility checks compare header counts against it).
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Reads until at least `n` bytes are buffered or the input ends, and returns what is buffered (for format
    /// detection; it does not consume anything).
    pub fn peek(&mut self, n: usize) -> Result<&[u8], LoadError> {
        while self.end - self.start < n && !self.eof {
            self.fill()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    /// Moves buffered data to the front, grows the buffer when a line fills it, and reads more.
    fn fill(&mut self) -> Result<(), LoadError> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < self.buf.len() / 2 {
            if self.buf.len() >= MAX_LINE {
                return Err(LoadError::parse(
                    &self.input.name,
                    self.line_no + 1,
                    format!("line is longer than {} MiB; is this a text file?", MAX_LINE >> 20),
                ));
            }
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.input.read_error(e)),
            }
        }
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, LoadError> {
        let mut searched = 0;
        loop {
            let avail = &self.buf[self.start + searched..self.end];
            if let Some(pos) = memchr::memchr(b'\n', avail) {
                let line_end = self.start + searched + pos;
                return Ok(Some(self.take(line_end, line_end + 1)));
            }
            searched = self.end - self.start;
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let end = self.end;
                return Ok(Some(self.take(end, end)));
            }
            self.fill()?;
        }
    }

    fn take(&mut self, line_end: usize, next_start: usize) -> Line<'_> {
        let mut bytes = &self.buf[self.start..line_end];
        if let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        // A UTF-8 byte order mark (editors on Windows write one) is no part of the first line's text.
        if self.line_no == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        self.bytes += (next_start - self.start) as u64;
        self.start = next_start;
        self.line_no += 1;
        Line { no: self.line_no, bytes }
    }

    /// Maps an error from [`Read::read`] on this reader to a message (see [`Input::read_error`]).
    pub fn read_error(&self, e: std::io::Error) -> LoadError {
        self.input.read_error(e)
    }
}

impl Read for Lines<'_> {
    /// Raw reads continue from where line reading stopped (used by the binary format after sniffing).
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.start == self.end {
            if self.eof {
                return Ok(0);
            }
            let n = self.input.reader.read(out)?;
            self.bytes += n as u64;
            return Ok(n);
        }
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.buf[self.start..self.start + n]);
        self.start += n;
        self.bytes += n as u64;
        Ok(n)
    }
}

pub(crate) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The whitespace-separated fields of a line.
#[derive(Clone, Debug)]
pub(crate) struct Fields<'b> {
    rest: &'b [u8],
}

impl<'b> Iterator for Fields<'b> {
    type Item = &'b [u8];

    fn next(&mut self) -> Option<&'b [u8]> {
        let start = self.rest.iter().position(|b| !is_blank(*b))?;
        let rest = &self.rest[start..];
        let len = rest.iter().position(|b| is_blank(*b)).unwrap_or(rest.len());
        self.rest = &rest[len..];
        Some(&rest[..len])
    }
}

/// Parses an unsigned decimal integer (an optional `+`, then digits), `None` on anything else or overflow.
pub(crate) fn parse_u64(tok: &[u8]) -> Option<u64> {
    let digits = tok.strip_prefix(b"+").unwrap_or(tok);
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// Parses a signed decimal integer.
pub(crate) fn parse_i64(tok: &[u8]) -> Option<i64> {
    match tok.strip_prefix(b"-") {
        Some(digits) if !digits.starts_with(b"+") => {
            let v = parse_u64(digits)?;
            if v == 1 << 63 {
                Some(i64::MIN)
            } else {
                i64::try_from(v).ok().map(|v| -v)
            }
        }
        Some(_) => None,
        None => parse_u64(tok).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Parses a floating-point number as Rust writes and reads them (`1.5`, `-2e10`, `inf`, `NaN`).
/// A number, `None` for text that is not one — NaN included: a weight that is not a number would make every
/// comparison with it false and every sum with it NaN, and answers silently meaningless.
pub(crate) fn parse_f64(tok: &[u8]) -> Option<f64> {
    std::str::from_utf8(tok).ok()?.parse().ok().filter(|x: &f64| !x.is_nan())
}

/// Context for parse errors on one line: the file name and line number.
#[derive(Clone, Copy)]
pub(crate) struct At<'n> {
    pub file: &'n str,
    pub line: u64,
}

impl At<'_> {
    pub fn err(&self, msg: impl Into<String>) -> LoadError {
        LoadError::parse(self.file, self.line, msg)
    }

    /// A node id field (`what` names it in messages), which must be a non-negative integer.
    pub fn id(&self, tok: Option<&[u8]>, what: &str) -> Result<u64, LoadError> {
        let tok = tok.ok_or_else(|| self.err(format!("expected {what}, found the end of the line")))?;
        parse_u64(tok).ok_or_else(|| {
            let digits = tok.strip_prefix(b"-").unwrap_or(tok);
            if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                let sign = if tok.starts_with(b"-") { "negative" } else { "too large" };
                self.err(format!("node id {} is {sign}", quote(tok)))
            } else {
                self.err(format!("expected {what}, found {}", quote(tok)))
            }
        })
    }

    /// A count in a header.
    pub fn count(&self, tok: Option<&[u8]>, what: &str) -> Result<u64, LoadError> {
        let tok = tok.ok_or_else(|| self.err(format!("expected {what}, found the end of the line")))?;
        parse_u64(tok).ok_or_else(|| self.err(format!("expected {what}, found {}", quote(tok))))
    }

    /// Checks that nothing follows the expected fields.
    pub fn end(&self, mut rest: Fields<'_>, expected: &str) -> Result<(), LoadError> {
        match rest.next() {
            None => Ok(()),
            Some(tok) => Err(self.err(format!("expected only {expected}, found extra field {}", quote(tok)))),
        }
    }
}

/// Node ids are 32-bit: a node count in a header must fit.
pub(crate) fn check_node_count(at: At<'_>, n: u64) -> Result<u32, LoadError> {
    u32::try_from(n)
        .map_err(|_| at.err(format!("header says {n} nodes, more than the {} that 32-bit node ids allow", u32::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"+7"), Some(7));
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"1x"), None);
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"--1"), None);
        assert_eq!(parse_i64(b"-+1"), None);
        assert_eq!(parse_f64(b"2.5e-3"), Some(2.5e-3));
        assert_eq!(parse_f64(b"NaN"), None);
        assert_eq!(parse_f64(b"nan"), None);
    }

    #[test]
    fn fields_split_on_blanks() {
        let f: Vec<&[u8]> = Fields { rest: b" 1\t22  333\r" }.collect();
        assert_eq!(f, [&b"1"[..], b"22", b"333"]);
        assert_eq!(Fields { rest: b" \t " }.next(), None);
    }
}
