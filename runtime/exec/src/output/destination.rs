//! Where `--out` (and the Python package's `Result.save`) writes, and in which format: decided from the name.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use irgc_graph::Csr;

use super::OutputData;

/// A file format for a run's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Space-separated lines ([`super::text`]).
    Text,
    /// Comma-separated with a header row ([`super::table`]).
    Csv,
    /// Tab-separated with a header row.
    Tsv,
    /// One JSON object ([`super::json`]).
    Json,
}

impl OutputFormat {
    /// Every format, for `--help` and messages.
    pub const ALL: [(OutputFormat, &'static str); 4] =
        [(Self::Text, "txt"), (Self::Csv, "csv"), (Self::Tsv, "tsv"), (Self::Json, "json")];

    /// The format called `name` (`txt`, `csv`, `tsv`, `json`).
    pub fn named(name: &str) -> Option<OutputFormat> {
        Self::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).map(|(f, _)| *f)
    }

    /// The format a file name asks for, and whether it is gzip-compressed (a final `.gz`): `.csv`, `.tsv`,
    /// `.json`, `.txt`; a name without an extension, or with one that is no data format (`levels.out`,
    /// `run.1`), is text. A binary format irgc does not write (`.npy`, `.parquet`, ...) is refused rather than
    /// filled with text.
    pub fn from_path(path: &Path) -> Result<(OutputFormat, bool), String> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let (stem, gzip) = match name.strip_suffix(".gz") {
            Some(stem) => (stem.to_string(), true),
            None => (name.clone(), false),
        };
        let ext = Path::new(&stem).extension().map(|e| e.to_string_lossy().to_string()).unwrap_or_default();
        const REFUSED: [&str; 20] = [
            "npy", "npz", "parquet", "feather", "arrow", "h5", "hdf5", "xlsx", "xls", "zip", "xz", "bz2", "bz", "zst",
            "zstd", "lz4", "lzma", "7z", "tgz", "br",
        ];
        if REFUSED.contains(&ext.as_str()) {
            let known: Vec<String> = Self::ALL.iter().map(|(_, n)| format!(".{n}")).collect();
            return Err(format!(
                "irgc cannot write .{ext} files; the output formats are {} (any of them gzip-compressed with a final \
                 .gz), or text with another name",
                known.join(", ")
            ));
        }
        Ok((Self::named(&ext).unwrap_or(OutputFormat::Text), gzip))
    }
}

/// A destination for a run's outputs: a file or standard output, a format, maybe gzip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputTarget {
    /// `None` for standard output (`-`).
    pub path: Option<PathBuf>,
    pub format: OutputFormat,
    pub gzip: bool,
}

impl OutputTarget {
    /// The destination `path` names (`-` is standard output, as text unless `format` says otherwise); `format`
    /// overrides what the extension asks for.
    pub fn new(path: &Path, format: Option<OutputFormat>) -> Result<OutputTarget, String> {
        if path.as_os_str() == "-" {
            return Ok(OutputTarget { path: None, format: format.unwrap_or(OutputFormat::Text), gzip: false });
        }
        let (by_name, gzip) = match OutputFormat::from_path(path) {
            Ok(found) => found,
            Err(_) if format.is_some() => (OutputFormat::Text, false),
            Err(e) => return Err(e),
        };
        Ok(OutputTarget { path: Some(path.to_path_buf()), format: format.unwrap_or(by_name), gzip })
    }

    /// Whether this writes to standard output.
    pub fn is_stdout(&self) -> bool {
        self.path.is_none()
    }

    /// Creates the file (or takes standard output) and writes `outputs` to it.
    pub fn write(&self, graph: &Csr, outputs: &[OutputData]) -> io::Result<()> {
        let sink: Box<dyn Write> = match &self.path {
            None => Box::new(io::stdout().lock()),
            Some(p) => Box::new(File::create(p)?),
        };
        if self.gzip {
            let mut gz = flate2::write::GzEncoder::new(sink, flate2::Compression::default());
            self.write_to(&mut gz, graph, outputs)?;
            gz.finish()?.flush()
        } else {
            let mut sink = sink;
            self.write_to(&mut sink, graph, outputs)?;
            sink.flush()
        }
    }

    /// Writes `outputs` to `out` in this target's format, uncompressed.
    pub fn write_to(&self, out: &mut dyn Write, graph: &Csr, outputs: &[OutputData]) -> io::Result<()> {
        match self.format {
            OutputFormat::Text => super::text::write_outputs(out, graph, outputs),
            OutputFormat::Csv => super::table::write_table(out, graph, outputs, ','),
            OutputFormat::Tsv => super::table::write_table(out, graph, outputs, '\t'),
            OutputFormat::Json => super::json::write_json(out, graph, outputs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_format_and_gz_compresses() {
        let t = |p: &str| OutputTarget::new(Path::new(p), None).map(|t| (t.format, t.gzip));
        assert_eq!(t("a/levels.csv"), Ok((OutputFormat::Csv, false)));
        assert_eq!(t("levels.CSV.gz"), Ok((OutputFormat::Csv, true)));
        assert_eq!(t("levels.tsv"), Ok((OutputFormat::Tsv, false)));
        assert_eq!(t("r.json"), Ok((OutputFormat::Json, false)));
        assert_eq!(t("r.txt.gz"), Ok((OutputFormat::Text, true)));
        assert!(t("r.csv.zst").unwrap_err().contains("cannot write .zst files"));
        assert_eq!(t("components.out"), Ok((OutputFormat::Text, false)));
        assert_eq!(t("levels"), Ok((OutputFormat::Text, false)));
        assert_eq!(t("-"), Ok((OutputFormat::Text, false)));
        assert!(OutputTarget::new(Path::new("-"), None).unwrap().is_stdout());
        let err = t("x.npz").unwrap_err();
        assert!(err.contains("cannot write .npz") && err.contains(".csv"), "{err}");
        let forced = OutputTarget::new(Path::new("x.npz"), Some(OutputFormat::Json)).unwrap();
        assert_eq!(forced.format, OutputFormat::Json);
        assert_eq!(OutputTarget::new(Path::new("-"), Some(OutputFormat::Csv)).unwrap().format, OutputFormat::Csv);
    }
}
