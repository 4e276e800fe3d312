//! Opening an input file: progress reporting on the raw bytes and transparent decompression chosen by magic bytes
//! (not by suffix, so a mislabelled or renamed file still loads).

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::{display_name, LoadError};

/// How often, in raw (compressed) bytes, the progress callback is called at most.
const PROGRESS_STEP: u64 = 1 << 20;

/// The compression of an input, recognised by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Xz,
    Gzip,
    Bzip2,
}

impl Compression {
    fn sniff(magic: &[u8]) -> Compression {
        if magic.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if magic.starts_with(&[0x1F, 0x8B]) {
            Compression::Gzip
        } else if magic.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Xz => "xz",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Progress shared by every file of one load (LDBC reads two): raw bytes read so far and the total of all files.
pub(crate) struct Progress<'p> {
    pub done: u64,
    pub total: u64,
    next_report: u64,
    callback: &'p mut dyn FnMut(u64, u64),
}

impl<'p> Progress<'p> {
    pub fn new(total: u64, callback: &'p mut dyn FnMut(u64, u64)) -> Self {
        Progress { done: 0, total, next_report: PROGRESS_STEP, callback }
    }

    fn advance(&mut self, n: u64) {
        self.done += n;
        if self.done >= self.next_report {
            self.next_report = self.done + PROGRESS_STEP;
            (self.callback)(self.done.min(self.total), self.total);
        }
    }

    /// The final report, so a progress bar always reaches its end.
    pub fn finish(&mut self) {
        (self.callback)(self.total, self.total);
    }
}

/// Counts raw bytes as they are read and notes whether the file itself (rather than a decoder) failed.
struct Counting<'a, 'p> {
    file: File,
    progress: &'a mut Progress<'p>,
    file_failed: Rc<Cell<bool>>,
}

impl Read for Counting<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.file.read(buf) {
            Ok(n) => {
                self.progress.advance(n as u64);
                Ok(n)
            }
            Err(e) => {
                self.file_failed.set(true);
                Err(e)
            }
        }
    }
}

/// An opened, decompressing input.
pub(crate) struct Input<'a> {
    /// The file name used in messages.
    pub name: String,
    pub path: PathBuf,
    pub compression: Compression,
    pub reader: Box<dyn Read + 'a>,
    file_failed: Rc<Cell<bool>>,
}

impl<'a> Input<'a> {
    pub fn open<'p>(path: &Path, progress: &'a mut Progress<'p>) -> Result<Input<'a>, LoadError>
    where
        'p: 'a,
    {
        let file = File::open(path).map_err(|e| LoadError::io(path, e))?;
        let file_failed = Rc::new(Cell::new(false));
        let counting = Counting { file, progress, file_failed: file_failed.clone() };
        let (compression, mut reader) = decompress(Box::new(counting)).map_err(|e| LoadError::io(path, e))?;
        // A file compressed twice (`x.mtx.gz.gz`) is read through every layer, up to a few.
        for _ in 0..MAX_LAYERS {
            let (inner, next) = decompress(reader).map_err(|e| match compression {
                Compression::None => LoadError::io(path, e),
                c => LoadError::invalid(&display_name(path), format!("corrupt {} stream: {e}", c.name())),
            })?;
            reader = next;
            if inner == Compression::None {
                break;
            }
        }
        Ok(Input { name: display_name(path), path: path.to_path_buf(), compression, reader, file_failed })
    }

    /// Turns an error from reading `reader` into a message: a failure of the file is an I/O error with the path;
    /// anything else in a compressed input means the compressed stream is damaged.
    pub fn read_error(&self, e: io::Error) -> LoadError {
        if self.file_failed.get() || self.compression == Compression::None {
            LoadError::io(&self.path, e)
        } else {
            LoadError::invalid(&self.name, format!("corrupt {} stream: {e}", self.compression.name()))
        }
    }
}

/// How many compression layers inside the first are undone (a file compressed twice or three times).
const MAX_LAYERS: usize = 3;

/// Sniffs `raw`'s first bytes and wraps it in the matching decoder (or none).
fn decompress<'a>(raw: Box<dyn Read + 'a>) -> io::Result<(Compression, Box<dyn Read + 'a>)> {
    let mut raw = raw;
    let mut magic = Vec::with_capacity(6);
    (&mut raw).take(6).read_to_end(&mut magic)?;
    if let Some(name) = unsupported_compression(&magic) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the file is {name}-compressed, which irgc does not read; decompress it, or recompress it with xz, gzip or bzip2"),
        ));
    }
    let compression = Compression::sniff(&magic);
    let raw = Cursor::new(magic).chain(raw);
    let reader: Box<dyn Read + 'a> = match compression {
        Compression::None => Box::new(raw),
        Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
    };
    Ok((compression, reader))
}

/// The name of a compression recognised by its magic bytes that irgc cannot undo.
fn unsupported_compression(magic: &[u8]) -> Option<&'static str> {
    if magic.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        Some("zstd")
    } else if magic.starts_with(&[0x04, 0x22, 0x4D, 0x18]) {
        Some("lz4")
    } else if magic.starts_with(b"7z\xBC\xAF\x27\x1C") {
        Some("7-Zip")
    } else if magic.starts_with(b"PK\x03\x04") {
        Some("zip")
    } else {
        None
    }
}

/// The size in bytes of `path`, for progress totals and cache keys.
pub(crate) fn file_size(path: &Path) -> Result<u64, LoadError> {
    std::fs::metadata(path).map(|m| m.len()).map_err(|e| LoadError::io(path, e))
}
