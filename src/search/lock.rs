//! Process locks on small files: who builds a repo's index, who embeds it, which
//! background worker runs.
//!
//! On Linux these are open-file-description locks (`F_OFD_SETLK`): the kernel releases
//! one when its holder closes the file or dies, so a killed process never leaves a lock
//! behind, and another process can ask whether a lock is held (`F_OFD_GETLK`) without
//! taking it, so `repo list` and `scry` never get in a worker's way. Elsewhere `flock`,
//! where a probe briefly takes a shared lock.
//!
//! Invariant: the holder writes its pid into the file after taking the lock, so a pid
//! read from a *held* lock names the holder (a free lock's file may name a dead one).
//! Invariant: nothing here creates a directory: locking inside a removed repo directory
//! fails (`NotFound`), which is how a worker learns its repo is gone.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A held lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

/// What a probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    Free,
    /// Held, by the process whose pid the file holds (if it could be read).
    Held {
        pid: Option<u32>,
    },
}

impl LockState {
    pub fn is_held(self) -> bool {
        matches!(self, LockState::Held { .. })
    }
}

fn open_rw(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
}

/// Takes the lock at `path` if no one holds it: `Ok(None)` when someone does.
pub fn try_lock(path: &Path) -> std::io::Result<Option<FileLock>> {
    let file = open_rw(path)?;
    if !sys::lock(&file, false)? {
        return Ok(None);
    }
    Ok(Some(FileLock::holding(file, path)?))
}

/// Takes the lock at `path`, waiting as long as another process holds it.
pub fn lock_wait(path: &Path) -> std::io::Result<FileLock> {
    let file = open_rw(path)?;
    sys::lock(&file, true)?;
    FileLock::holding(file, path)
}

/// Whether the lock at `path` is held, without taking it. A missing file is free.
pub fn probe(path: &Path) -> LockState {
    let Ok(mut file) = std::fs::File::open(path) else {
        return LockState::Free;
    };
    match sys::held(&file) {
        Ok(false) | Err(_) => LockState::Free,
        Ok(true) => {
            let mut text = String::new();
            let pid = file.read_to_string(&mut text).ok().and_then(|_| text.trim().parse().ok());
            LockState::Held { pid }
        }
    }
}

impl FileLock {
    fn holding(mut file: File, path: &Path) -> std::io::Result<FileLock> {
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{}", std::process::id())?;
        Ok(FileLock { file, path: path.to_path_buf() })
    }

    /// Whether the file at the lock's path is still the one locked: false once the
    /// directory was removed (`repo rm`) or replaced, so the holder should stop.
    pub fn still_at_path(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (self.file.metadata(), std::fs::metadata(&self.path)) {
            (Ok(held), Ok(now)) => held.ino() == now.ino() && held.dev() == now.dev(),
            _ => false,
        }
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use super::*;

    fn whole_file(kind: libc::c_short) -> libc::flock {
        // SAFETY: `flock` is a plain C struct; all-zero is a valid value of it.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = kind;
        lock.l_whence = libc::SEEK_SET as libc::c_short;
        lock
    }

    /// Takes an exclusive OFD lock: `Ok(false)` when held elsewhere (non-blocking).
    pub fn lock(file: &File, wait: bool) -> std::io::Result<bool> {
        let mut lock = whole_file(libc::F_WRLCK as libc::c_short);
        let cmd = if wait { libc::F_OFD_SETLKW } else { libc::F_OFD_SETLK };
        loop {
            // SAFETY: fcntl on a descriptor we own with a valid `flock` struct.
            if unsafe { libc::fcntl(file.as_raw_fd(), cmd, &mut lock) } == 0 {
                return Ok(true);
            }
            let err = std::io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN | libc::EACCES) if !wait => return Ok(false),
                _ => return Err(err),
            }
        }
    }

    /// Whether another open file description holds a conflicting lock.
    pub fn held(file: &File) -> std::io::Result<bool> {
        let mut lock = whole_file(libc::F_WRLCK as libc::c_short);
        // SAFETY: fcntl on a descriptor we own with a valid `flock` struct.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_GETLK, &mut lock) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(lock.l_type != libc::F_UNLCK as libc::c_short)
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use super::*;

    pub fn lock(file: &File, wait: bool) -> std::io::Result<bool> {
        let op = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) { Ok(false) } else { Err(err) }
    }

    /// A shared lock that fails means an exclusive holder; released at once.
    pub fn held(file: &File) -> std::io::Result<bool> {
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
            // SAFETY: as above.
            unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
            return Ok(false);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_probes_see_it_and_a_drop_frees_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("embed.lock");
        assert_eq!(probe(&path), LockState::Free, "no file: free");
        let held = try_lock(&path).unwrap().expect("free lock is taken");
        // Another open file description (as another process would have) cannot take it.
        assert!(try_lock(&path).unwrap().is_none());
        assert_eq!(probe(&path), LockState::Held { pid: Some(std::process::id()) });
        assert!(held.still_at_path());
        drop(held);
        assert_eq!(probe(&path), LockState::Free);
        assert!(try_lock(&path).unwrap().is_some());
    }

    #[test]
    fn a_removed_directory_is_noticed_and_never_recreated() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        let held = try_lock(&repo.join("embed.lock")).unwrap().unwrap();
        std::fs::remove_dir_all(&repo).unwrap();
        assert!(!held.still_at_path());
        assert!(try_lock(&repo.join("embed.lock")).is_err());
        assert!(!repo.exists());
    }

    #[test]
    fn a_waiting_lock_gets_it_when_the_holder_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("worker.lock");
        let held = try_lock(&path).unwrap().unwrap();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || lock_wait(&path).map(|_| ()))
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(!waiter.is_finished());
        drop(held);
        waiter.join().unwrap().unwrap();
    }
}
