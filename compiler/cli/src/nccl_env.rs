//! Making NCCL loadable for a run that may use it. cudarc looks for `libnccl.so` (and a few versioned names), but
//! pip's NCCL wheels and Debian's `libnccl2` ship only `libnccl.so.2` (see `irgc_cuda::find_nccl_library`). When
//! the loader cannot find NCCL under cudarc's names and such a file exists, irgc links it as `libnccl.so` in its
//! cache folder and starts itself again with that folder first on `LD_LIBRARY_PATH`: the loader reads the
//! variable only when a process starts. `IRGC_NCCL_REEXEC` marks the second start, so it happens once.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

const REEXEC: &str = "IRGC_NCCL_REEXEC";

/// Returns at once when NCCL loads, when no NCCL library is to be found (the run then says so, or does without),
/// or in the restarted process; otherwise replaces this process with one that can load NCCL.
pub fn ensure_loadable() -> Result<()> {
    if std::env::var_os(REEXEC).is_some() || irgc_cuda::nccl_loadable() {
        return Ok(());
    }
    let Some(library) = irgc_cuda::find_nccl_library() else { return Ok(()) };
    let folder = link_folder(&library)?;
    let mut path = std::ffi::OsString::from(folder.as_os_str());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let exe = std::env::current_exe().context("cannot find irgc's own executable to start it with NCCL")?;
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
    let err =
        std::process::Command::new(&exe).arg0(arg0).args(args).env("LD_LIBRARY_PATH", path).env(REEXEC, "1").exec();
    Err(anyhow!("cannot start {} again with NCCL ({}) on the library path: {err}", exe.display(), library.display()))
}

/// A folder holding `libnccl.so`, a link to `library`: in irgc's cache folder, else the temporary folder. The
/// link is made beside and renamed into place, so ranks starting together never see a half-made one.
fn link_folder(library: &Path) -> Result<PathBuf> {
    let base = irgc_driver::graph::cache_dir()
        .filter(|d| irgc_driver::graph::writable(d))
        .unwrap_or_else(|| std::env::temp_dir().join(format!("irgc-{}", whoami())));
    let folder = base.join("nccl");
    std::fs::create_dir_all(&folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let link = folder.join("libnccl.so");
    if std::fs::read_link(&link).is_ok_and(|target| target == library) {
        return Ok(folder);
    }
    let fresh = folder.join(format!(".libnccl.so.{}", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(library, &fresh)
        .and_then(|()| std::fs::rename(&fresh, &link))
        .with_context(|| format!("cannot link {} as {}", library.display(), link.display()))?;
    Ok(folder)
}

/// A name for this user's temporary folder (their user name, or "user").
fn whoami() -> String {
    std::env::var("USER").ok().filter(|u| !u.is_empty() && !u.contains('/')).unwrap_or_else(|| "user".to_string())
}
