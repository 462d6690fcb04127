//! Reading a file found by a walk (or named by a file watcher) without trusting that it is
//! still the file the walk saw: ingest, watch and indexing read through [`read_regular`].
//!
//! Architecture Invariant: only regular files are read. The file is opened with
//! `O_NOFOLLOW | O_NONBLOCK`, so a symlink in the last path component is refused and a
//! FIFO or device cannot block the open, and then the *opened handle* is checked with
//! `fstat`: a FIFO, socket, device, directory or a symlink swapped in after the walk is
//! refused with the reason ([`ReadError::NotRegular`]) and never read. `O_NONBLOCK` has no
//! effect on reads of a regular file.
//!
//! Limit: only the last component is protected; a parent directory swapped for a symlink
//! between the walk and the read is still followed.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The path is (now) something other than a regular file: says what.
    #[error("not a regular file but {0}; not read")]
    NotRegular(&'static str),
    #[error("{bytes} bytes is over the size cap of {cap} bytes")]
    TooLarge { bytes: u64, cap: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// What a non-regular file is, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let t = meta.file_type();
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        "an unknown kind of file"
    }
}

/// Opens `path` for reading if, and only if, it is a regular file; returns the handle and
/// the handle's own metadata.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), ReadError> {
    // Cheap early refusal, so a device node is not even opened in the common case; the
    // check that counts is the fstat below, on what was actually opened.
    let seen = std::fs::symlink_metadata(path)?;
    if !seen.is_file() {
        return Err(ReadError::NotRegular(kind_of(&seen)));
    }
    open_checked(path)
}

/// The open and the fstat: what protects against a swap after the lstat above.
fn open_checked(path: &Path) -> Result<(File, Metadata), ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        #[cfg(unix)]
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(ReadError::NotRegular("a symbolic link"));
        }
        #[cfg(unix)]
        Err(err) if err.raw_os_error() == Some(libc::ENXIO) => return Err(ReadError::NotRegular("a socket")),
        Err(err) => return Err(err.into()),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `cap` of them (a file over the cap,
/// or one that grows past it while being read, is refused).
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > cap {
        return Err(ReadError::TooLarge { bytes: meta.len(), cap });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { bytes: bytes.len() as u64, cap });
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("run mkfifo");
        assert!(status.success());
    }

    #[test]
    fn a_regular_file_is_read_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, b"hello").unwrap();
        assert_eq!(read_regular(&path, 5).unwrap(), b"hello");
        assert!(matches!(read_regular(&path, 4), Err(ReadError::TooLarge { bytes: 5, cap: 4 })));
        assert!(matches!(read_regular(&dir.path().join("missing"), 5), Err(ReadError::Io(_))));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.md");
        mkfifo(&path);
        // No writer ever opens the FIFO: a plain read would block forever.
        let err = read_regular(&path, 1 << 20).unwrap_err();
        assert!(matches!(err, ReadError::NotRegular("a named pipe (FIFO)")), "{err}");
        assert!(err.to_string().contains("FIFO"), "{err}");
    }

    #[test]
    fn a_directory_and_a_symlink_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read_regular(dir.path(), 10), Err(ReadError::NotRegular("a directory"))));
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), b"secret").unwrap();
        let link = dir.path().join("lib.rs");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        assert!(matches!(read_regular(&link, 100), Err(ReadError::NotRegular("a symbolic link"))));
    }

    #[test]
    fn what_is_swapped_in_after_the_lstat_is_refused_by_the_open_and_the_fstat() {
        // The lstat in `open_regular` cannot close the race; the open and fstat must.
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), b"secret").unwrap();
        let link = dir.path().join("lib.rs");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        assert!(matches!(open_checked(&link), Err(ReadError::NotRegular("a symbolic link"))));
        let fifo = dir.path().join("Cargo.toml");
        mkfifo(&fifo);
        assert!(matches!(open_checked(&fifo), Err(ReadError::NotRegular("a named pipe (FIFO)"))));
        let file = dir.path().join("ok.rs");
        std::fs::write(&file, b"fn main() {}").unwrap();
        assert!(open_checked(&file).is_ok());
    }

    #[test]
    fn a_socket_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.md");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert!(matches!(read_regular(&path, 10), Err(ReadError::NotRegular("a socket"))));
    }
}
