//! The server process: finding Java, a free loopback port, the log file, and telling that the
//! listener on a port is the process this launcher started.

use super::{LocalError, env_non_empty};

use std::fs::{self, File};
use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

pub(super) fn find_java() -> Option<PathBuf> {
    env_non_empty("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join("java"))
        .filter(|java| is_executable(java))
        .or_else(|| find_on_path("java"))
}

pub(super) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
pub(super) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
pub(super) fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// A port that was free a moment ago.
pub(super) fn free_port() -> Result<u16, LocalError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(LocalError::io("finding a free port"))?;
    let port = listener.local_addr().map_err(LocalError::io("finding a free port"))?.port();
    Ok(port)
}

/// A process-unique suffix for temporary names.
pub(super) fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{}-{}-{nanos}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

pub(super) fn create_log_file() -> Result<(File, PathBuf), LocalError> {
    let mut attempts = 0;
    loop {
        let path = std::env::temp_dir().join(format!("dynamo-entity-local-{}.log", unique_suffix()));
        match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 10 => attempts += 1,
            Err(e) => return Err(LocalError::io(format!("creating {}", path.display()))(e)),
        }
    }
}

pub(super) fn tail_lines(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Whether the process holds a listening TCP socket on `port`; `None` when that cannot be
/// told (no Linux `/proc`).
pub(super) fn owns_listener(pid: u32, port: u16) -> Option<bool> {
    let mut sockets = Vec::new();
    let mut readable = false;
    for table in ["tcp", "tcp6"] {
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/{table}")) else { continue };
        readable = true;
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [_, local, _, state, _, _, _, _, _, inode, ..] = fields.as_slice() else { continue };
            let local_port = local.rsplit(':').next().and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if *state == "0A" && local_port == Some(port) {
                sockets.push(format!("socket:[{inode}]"));
            }
        }
    }
    if !readable {
        return None;
    }
    if sockets.is_empty() {
        return Some(false);
    }
    let fds = fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(fds.flatten().any(|fd| {
        fs::read_link(fd.path()).is_ok_and(|target| sockets.iter().any(|socket| target.as_os_str() == socket.as_str()))
    }))
}
