//! The output file, compressed according to its suffix.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// A buffered output file, plain or compressed; [`Sink::finish`] must be called to flush and close the stream.
pub(crate) enum Sink {
    Plain(BufWriter<File>),
    Xz(xz2::write::XzEncoder<BufWriter<File>>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Bzip2(bzip2::write::BzEncoder<BufWriter<File>>),
}

impl Sink {
    pub fn create(path: &Path) -> io::Result<Sink> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        Ok(if name.ends_with(".xz") {
            Sink::Xz(xz2::write::XzEncoder::new(file, 6))
        } else if name.ends_with(".gz") {
            Sink::Gzip(flate2::write::GzEncoder::new(file, flate2::Compression::default()))
        } else if name.ends_with(".bz2") {
            Sink::Bzip2(bzip2::write::BzEncoder::new(file, bzip2::Compression::default()))
        } else {
            Sink::Plain(file)
        })
    }

    pub fn finish(self) -> io::Result<()> {
        let mut file = match self {
            Sink::Plain(f) => f,
            Sink::Xz(e) => e.finish()?,
            Sink::Gzip(e) => e.finish()?,
            Sink::Bzip2(e) => e.finish()?,
        };
        file.flush()
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Xz(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
            Sink::Bzip2(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Xz(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
            Sink::Bzip2(w) => w.flush(),
        }
    }
}
