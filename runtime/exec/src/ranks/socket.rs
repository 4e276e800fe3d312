//! [`SocketLink`]: ranks of one host reaching each other through Unix-domain sockets beside the join file, the
//! arrays staged through host memory (`Device::read` and `Device::write`). It works for every device, so the
//! multi-process path runs, and is tested, without GPUs or NCCL; between GPUs NCCL is the link to use.
//!
//! Rank `r` listens at `JOIN.rank<r>.sock` from the moment it joins (before its plan runs), so a sender never
//! waits for the receiver to start listening, only to exist. A message is a fixed header — magic, kind (barrier
//! or array), sender rank, element size, element count — then the elements, little-endian. Connections that
//! arrive before the receiver wants them (rank 2 may finish before rank 1 in a four-rank run) are kept, headers
//! read, until their turn.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Link, Rank};
use crate::device::Device;
use crate::error::RunError;

const MAGIC: [u8; 8] = *b"IRGCRNK1";
const HEADER: usize = 40;
/// The longest path a Unix-domain socket takes (`sun_path`, with its terminating NUL).
const MAX_SOCKET_PATH: usize = 107;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Barrier = 0,
    Array = 1,
}

struct Header {
    kind: Kind,
    from: usize,
    elem_size: usize,
    len: u64,
}

/// A rank's sockets (see the module documentation).
pub struct SocketLink {
    rank: Rank,
    join: PathBuf,
    listener: UnixListener,
    /// Accepted connections whose header is read but whose turn has not come, by (kind, sender).
    pending: HashMap<(Kind, usize), (UnixStream, Header)>,
    wait: Duration,
}

impl SocketLink {
    /// Joins the run whose ranks meet at `join` (any path whose folder exists and is writable; the sockets go
    /// beside it), as `rank`. Waits up to `wait` for each partner.
    pub fn join(join: &Path, rank: Rank, wait: Duration) -> Result<SocketLink, RunError> {
        let own = socket_path(join, rank.rank);
        if own.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(RunError::ranks(format!(
                "--join {}: the rank sockets' path ({}) is longer than a Unix socket allows ({MAX_SOCKET_PATH} \
                 bytes); name a shorter path",
                join.display(),
                own.display()
            )));
        }
        // A socket left by a run that ended badly would make the bind fail: it is this rank's own name.
        if std::fs::symlink_metadata(&own).is_ok() {
            std::fs::remove_file(&own).map_err(|e| io_error(&format!("cannot remove the old {}", own.display()), e))?;
        }
        let listener =
            UnixListener::bind(&own).map_err(|e| io_error(&format!("cannot listen at {}", own.display()), e))?;
        listener.set_nonblocking(true).map_err(|e| io_error("cannot set up the rank's socket", e))?;
        Ok(SocketLink { rank, join: join.to_path_buf(), listener, pending: HashMap::new(), wait })
    }

    /// Sends one message to `to`, connecting when its socket answers.
    fn send_message(&self, to: usize, kind: Kind, elem_size: usize, elems: &[u64]) -> Result<(), RunError> {
        let path = socket_path(&self.join, to);
        let deadline = Instant::now() + self.wait;
        let mut stream = loop {
            match UnixStream::connect(&path) {
                Ok(s) => break s,
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
                    if Instant::now() > deadline {
                        return Err(RunError::ranks(format!(
                            "rank {to} did not appear at {} within {} s (was it started with the same --join and \
                             --ranks?)",
                            path.display(),
                            self.wait.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(io_error(&format!("cannot reach rank {to} at {}", path.display()), e)),
            }
        };
        let mut bytes = Vec::with_capacity(HEADER + elems.len() * elem_size);
        bytes.extend_from_slice(&MAGIC);
        for word in [kind as u64, self.rank.rank as u64, elem_size as u64, elems.len() as u64] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        for e in elems {
            bytes.extend_from_slice(&e.to_le_bytes()[..elem_size]);
        }
        stream.write_all(&bytes).map_err(|e| io_error(&format!("cannot send to rank {to}"), e))
    }

    /// Waits for the message of `kind` from `from`, keeping any other that arrives first.
    fn receive_message(&mut self, kind: Kind, from: usize) -> Result<(UnixStream, Header), RunError> {
        let deadline = Instant::now() + self.wait;
        loop {
            if let Some(found) = self.pending.remove(&(kind, from)) {
                return Ok(found);
            }
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    stream.set_nonblocking(false).map_err(|e| io_error("cannot read from a rank", e))?;
                    stream.set_read_timeout(Some(self.wait)).map_err(|e| io_error("cannot read from a rank", e))?;
                    let header = read_header(&mut stream)?;
                    if header.from >= self.rank.ranks {
                        return Err(RunError::ranks(format!(
                            "a message from rank {} reached rank {} of a run of {} ranks: two runs share one --join",
                            header.from, self.rank.rank, self.rank.ranks
                        )));
                    }
                    self.pending.insert((header.kind, header.from), (stream, header));
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err(RunError::ranks(format!(
                            "rank {} waited {} s for rank {from}, which sent nothing (did it fail? its own output \
                             says why)",
                            self.rank.rank,
                            self.wait.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(e) => return Err(io_error("cannot accept a rank's connection", e)),
            }
        }
    }
}

impl Drop for SocketLink {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(socket_path(&self.join, self.rank.rank));
    }
}

impl<D: Device> Link<D> for SocketLink {
    fn barrier(&mut self, _dev: &mut D) -> Result<(), RunError> {
        if self.rank.rank == 0 {
            for r in 1..self.rank.ranks {
                self.receive_message(Kind::Barrier, r)?;
            }
            for r in 1..self.rank.ranks {
                self.send_message(r, Kind::Barrier, 8, &[])?;
            }
        } else {
            self.send_message(0, Kind::Barrier, 8, &[])?;
            self.receive_message(Kind::Barrier, 0)?;
        }
        Ok(())
    }

    fn send(&mut self, dev: &mut D, buf: &D::Buffer, elem_size: usize, len: u64, to: usize) -> Result<(), RunError> {
        let elems = dev.read(buf, elem_size, 0, len)?;
        self.send_message(to, Kind::Array, elem_size, &elems)
    }

    fn recv(
        &mut self,
        dev: &mut D,
        buf: &mut D::Buffer,
        elem_size: usize,
        len: u64,
        from: usize,
    ) -> Result<(), RunError> {
        let (mut stream, header) = self.receive_message(Kind::Array, from)?;
        if header.elem_size != elem_size || header.len != len {
            return Err(RunError::ranks(format!(
                "rank {from} sent {} elements of {} bytes where rank {} expects {len} of {elem_size}: the ranks run \
                 different programs or graphs",
                header.len, header.elem_size, self.rank.rank
            )));
        }
        let mut bytes = vec![0u8; len as usize * elem_size];
        stream.read_exact(&mut bytes).map_err(|e| io_error(&format!("cannot receive from rank {from}"), e))?;
        let elems: Vec<u64> = bytes
            .chunks_exact(elem_size)
            .map(|c| {
                let mut word = [0u8; 8];
                word[..elem_size].copy_from_slice(c);
                u64::from_le_bytes(word)
            })
            .collect();
        dev.write(buf, elem_size, 0, &elems)
    }

    fn describe(&self) -> String {
        "local sockets (through host memory)".to_string()
    }
}

/// Where rank `rank` of the run joined at `join` listens.
pub fn socket_path(join: &Path, rank: usize) -> PathBuf {
    let mut name = join.as_os_str().to_owned();
    name.push(format!(".rank{rank}.sock"));
    PathBuf::from(name)
}

fn read_header(stream: &mut UnixStream) -> Result<Header, RunError> {
    let mut h = [0u8; HEADER];
    stream.read_exact(&mut h).map_err(|e| io_error("cannot read a rank's message", e))?;
    let word = |i: usize| u64::from_le_bytes(h[8 + 8 * i..16 + 8 * i].try_into().unwrap_or([0; 8]));
    if h[..8] != MAGIC {
        return Err(RunError::ranks("a connection to a rank's socket did not come from an irgc rank"));
    }
    let kind = match word(0) {
        0 => Kind::Barrier,
        1 => Kind::Array,
        k => return Err(RunError::ranks(format!("a rank sent a message of unknown kind {k}"))),
    };
    let elem_size = word(2) as usize;
    if !(1..=8).contains(&elem_size) {
        return Err(RunError::ranks(format!("a rank sent elements of {elem_size} bytes")));
    }
    Ok(Header { kind, from: word(1) as usize, elem_size, len: word(3) })
}

fn io_error(what: &str, e: std::io::Error) -> RunError {
    RunError::ranks(format!("{what}: {e}"))
}
