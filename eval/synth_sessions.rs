//! A generator of synthetic session-log corpora from the real ones: `copies` copies of
//! every file, each under its own directory with its own session id, so every copy yields
//! distinct events. Used by `benches/ingest.rs` to measure ingest at 100× the real data.

use std::path::{Path, PathBuf};

/// Writes `copies` copies of every `*.md` in `real` into `out/<k>/`; returns the bytes written.
pub fn generate(real: &Path, out: &Path, copies: usize) -> std::io::Result<u64> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(real)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
        })
        .collect();
    let mut written = 0u64;
    for k in 0..copies {
        let dir = out.join(format!("{k:03}"));
        std::fs::create_dir_all(&dir)?;
        for (stem, text) in &texts {
            let text = text.replacen(&format!("**ID**: {stem}"), &format!("**ID**: {stem}-c{k}"), 1);
            let path = dir.join(format!("{stem}-c{k}.md"));
            std::fs::write(&path, &text)?;
            written += text.len() as u64;
        }
    }
    Ok(written)
}
