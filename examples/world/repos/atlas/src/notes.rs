//! Notes on disk: markdown files with optional front matter, and source files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One loaded note.
#[derive(Debug, Clone)]
pub struct Note {
    pub path: PathBuf,
    pub title: String,
    pub tags: Vec<String>,
    pub body: String,
}

/// Extensions atlas reads.
const EXTENSIONS: [&str; 4] = ["md", "txt", "rs", "py"];

/// Walks `dir` recursively and loads every note with a known extension.
pub fn load(dir: &Path) -> io::Result<Vec<Note>> {
    let mut notes = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if has_known_extension(&path) {
                let text = fs::read_to_string(&path)?;
                notes.push(parse_note(path, &text));
            }
        }
    }
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(notes)
}

fn has_known_extension(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e))
}

/// Splits `---`-fenced front matter (`title:`, `tags:`) from the body.
pub fn parse_note(path: PathBuf, text: &str) -> Note {
    let mut title = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tags = Vec::new();
    let mut body = text;
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---\n") {
            for line in rest[..end].lines() {
                if let Some(value) = line.strip_prefix("title:") {
                    title = value.trim().to_string();
                } else if let Some(value) = line.strip_prefix("tags:") {
                    tags = value.split(',').map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect();
                }
            }
            body = &rest[end + 5..];
        }
    }
    Note { path, title, tags, body: body.to_string() }
}
