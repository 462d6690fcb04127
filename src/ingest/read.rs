//! Reading an input file safely: regular files only (through [`crate::safe_read`], so a
//! FIFO, socket, device or swapped-in symlink is skipped and never blocks), size cap,
//! binary detection, lossy UTF-8.

use std::path::Path;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    TooLarge {
        bytes: u64,
        cap: u64,
    },
    /// A FIFO, socket, device, directory or symlink: says which.
    NotRegular(&'static str),
    Binary,
    Io(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::TooLarge { bytes, cap } => {
                write!(f, "{bytes} bytes is over the size cap of {cap} bytes (raise it with --max-file-size)")
            }
            Unreadable::NotRegular(what) => write!(f, "not a regular file but {what}; not read"),
            Unreadable::Binary => f.write_str("binary file (contains NUL bytes)"),
            Unreadable::Io(err) => f.write_str(err),
        }
    }
}

/// A regular file's bytes, checked against the cap.
pub fn read_bytes(path: &Path, cap: u64) -> Result<Vec<u8>, Unreadable> {
    use crate::safe_read::{ReadError, read_regular};
    read_regular(path, cap).map_err(|err| match err {
        ReadError::NotRegular(what) => Unreadable::NotRegular(what),
        ReadError::TooLarge { bytes, cap } => Unreadable::TooLarge { bytes, cap },
        other => Unreadable::Io(other.to_string()),
    })
}

/// Decodes bytes as text. Binary (a NUL in the first 8 KiB) is refused; invalid UTF-8 is
/// decoded lossily and reported as a warning with the first bad byte offset.
pub fn decode(bytes: Vec<u8>) -> Result<(String, Option<String>), Unreadable> {
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(Unreadable::Binary);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok((text, None)),
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            Ok((text, Some(format!("invalid UTF-8 at byte {at}: decoded lossily (bad bytes became U+FFFD)"))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_and_invalid_utf8() {
        assert_eq!(decode(b"ab\0cd".to_vec()), Err(Unreadable::Binary));
        let (text, warning) = decode(b"ok \xff\xfe dojo".to_vec()).unwrap();
        assert!(text.contains("dojo") && text.contains('\u{FFFD}'));
        assert!(warning.unwrap().contains("byte 3"));
        assert_eq!(decode(b"fine".to_vec()).unwrap(), ("fine".to_string(), None));
    }

    #[test]
    fn size_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.md");
        std::fs::write(&path, vec![b'a'; 100]).unwrap();
        assert!(matches!(read_bytes(&path, 99), Err(Unreadable::TooLarge { bytes: 100, cap: 99 })));
        assert_eq!(read_bytes(&path, 100).unwrap().len(), 100);
        assert!(matches!(read_bytes(&dir.path().join("missing"), 100), Err(Unreadable::Io(_))));
    }
}
