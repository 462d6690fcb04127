//! Text → vector: the [`Embedder`] trait and its real implementation, [`OnnxEmbedder`]
//! (all-MiniLM-L6-v2 run by ONNX Runtime through `ort`, tokenised by `tokenizers`).
//!
//! Invariant: every vector an embedder returns has [`DIMENSIONS`] finite components and
//! unit L2 norm (or is all zeros for an empty input), so cosine distance is a dot product
//! and vectors from different runs of the same model are comparable.
//! Invariant: the runtime library is loaded with `ort::init_from(path)` only, never by
//! `ort::init()`'s defaults (which panic when the library is missing).

use std::path::Path;
use std::sync::OnceLock;

use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::models::{MODEL_ID, ModelPaths};

/// Dimensions of the embedding space.
pub const DIMENSIONS: usize = 384;
/// Tokens per input; longer chunks are embedded by their beginning (doc comment and signature).
pub const MAX_TOKENS: usize = 256;
/// Inputs per model call. With ONNX Runtime's memory pattern off, 8 embeds as fast as 32
/// on two cores and keeps the peak RSS at ~375 MiB instead of ~850 (1.4 GiB with the
/// pattern on): `benches/embed.rs`, figures in ARCHITECTURE.md.
pub const BATCH: usize = 8;

/// How the ONNX session runs. The defaults are what indexing uses; `benches/embed.rs`
/// measures the alternatives (throughput and peak RSS) on this kind of machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedOptions {
    /// Tokens per input (truncation).
    pub max_tokens: usize,
    /// Inputs per model call.
    pub batch: usize,
    /// Intra-op threads (0: the number of cores, at most 4).
    pub threads: usize,
    /// ONNX Runtime's CPU memory arena (keeps the largest activations it ever saw).
    pub cpu_arena: bool,
    /// ONNX Runtime's memory pattern planning (pre-plans buffers per input shape).
    pub memory_pattern: bool,
}

impl Default for EmbedOptions {
    /// The arena stays on (off, every run allocates its activations afresh: ~25% slower);
    /// the memory pattern is off (on, it plans buffers per input shape and keeps them:
    /// with batches padded to their longest input every shape is new, and RSS grows to
    /// 1.4 GiB with no gain in speed).
    fn default() -> Self {
        EmbedOptions { max_tokens: MAX_TOKENS, batch: BATCH, threads: 0, cpu_arena: true, memory_pattern: false }
    }
}

/// Loading or running the embedding model failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    #[error("loading the ONNX Runtime library {path}: {detail}")]
    Runtime { path: String, detail: String },
    #[error("loading the embedding model {path}: {detail}")]
    Model { path: String, detail: String },
    #[error("loading the tokenizer {path}: {detail}")]
    Tokenizer { path: String, detail: String },
    #[error("embedding failed: {0}")]
    Run(String),
}

/// Turns texts into unit vectors of [`DIMENSIONS`] floats.
pub trait Embedder: Send {
    /// Names the embedding space; vectors of different ids are never mixed.
    fn model_id(&self) -> &str;
    /// One vector per text, in order.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// The process-wide ONNX Runtime environment (ort keeps the library loaded for the
/// process's lifetime anyway; we initialise it once).
static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

fn environment(runtime: &Path) -> Result<&'static ort::environment::Environment, EmbedError> {
    let env = ENVIRONMENT.get_or_init(|| {
        let builder = ort::init_from(runtime).map_err(|e| e.to_string())?;
        builder.with_name("patina").build().map_err(|e| e.to_string())
    });
    env.as_ref().map_err(|detail| EmbedError::Runtime { path: runtime.display().to_string(), detail: detail.clone() })
}

/// all-MiniLM-L6-v2 (int8) through ONNX Runtime: mean pooling over the attention mask,
/// then L2 normalisation.
pub struct OnnxEmbedder {
    session: Session,
    tokenizer: Tokenizer,
    wants_token_types: bool,
    batch: usize,
}

impl OnnxEmbedder {
    pub fn load(paths: &ModelPaths) -> Result<OnnxEmbedder, EmbedError> {
        OnnxEmbedder::load_with(paths, &EmbedOptions::default())
    }

    pub fn load_with(paths: &ModelPaths, options: &EmbedOptions) -> Result<OnnxEmbedder, EmbedError> {
        let env = environment(&paths.runtime)?;
        let model_err = |e: &dyn std::fmt::Display| EmbedError::Model {
            path: paths.model.display().to_string(),
            detail: e.to_string(),
        };
        let threads = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(4),
            n => n,
        };
        let cpu = ort::ep::CPU::default().with_arena_allocator(options.cpu_arena).build();
        let session = Session::builder(env)
            .map_err(|e| model_err(&e))?
            .with_intra_threads(threads)
            .map_err(|e| model_err(&e))?
            .with_memory_pattern(options.memory_pattern)
            .map_err(|e| model_err(&e))?
            .with_execution_providers([cpu])
            .map_err(|e| model_err(&e))?
            .commit_from_file(&paths.model)
            .map_err(|e| model_err(&e))?;
        let wants_token_types = session.inputs().iter().any(|input| input.name() == "token_type_ids");

        let tok_err = |detail: String| EmbedError::Tokenizer { path: paths.tokenizer.display().to_string(), detail };
        let mut tokenizer = Tokenizer::from_file(&paths.tokenizer).map_err(|e| tok_err(e.to_string()))?;
        // The file pins padding and truncation at 128; pad per batch and truncate at ours.
        let padding = tokenizer.get_padding().cloned().unwrap_or_default();
        tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..padding }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: options.max_tokens.max(2),
                ..TruncationParams::default()
            }))
            .map_err(|e| tok_err(e.to_string()))?;
        Ok(OnnxEmbedder { session, tokenizer, wants_token_types, batch: options.batch.max(1) })
    }

    fn embed_batch(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let run = |e: &dyn std::fmt::Display| EmbedError::Run(e.to_string());
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true).map_err(|e| run(&e))?;
        let batch = encodings.len();
        let seq = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0i64; batch * seq];
        let mut mask = vec![0i64; batch * seq];
        for (row, encoding) in encodings.iter().enumerate() {
            for (col, (&id, &m)) in encoding.get_ids().iter().zip(encoding.get_attention_mask()).enumerate() {
                ids[row * seq + col] = i64::from(id);
                mask[row * seq + col] = i64::from(m);
            }
        }
        let shape = [batch as i64, seq as i64];
        let ids_tensor = Tensor::from_array((shape, ids)).map_err(|e| run(&e))?;
        let mask_tensor = Tensor::from_array((shape, mask.clone())).map_err(|e| run(&e))?;
        let outputs = if self.wants_token_types {
            let types = Tensor::from_array((shape, vec![0i64; batch * seq])).map_err(|e| run(&e))?;
            self.session.run(ort::inputs![
                "input_ids" => ids_tensor,
                "attention_mask" => mask_tensor,
                "token_type_ids" => types,
            ])
        } else {
            self.session.run(ort::inputs!["input_ids" => ids_tensor, "attention_mask" => mask_tensor])
        }
        .map_err(|e| run(&e))?;
        let hidden = outputs[0].try_extract_array::<f32>().map_err(|e| run(&e))?;
        let dims = hidden.shape().to_vec();
        if dims.len() != 3 || dims[0] != batch || dims[1] != seq || dims[2] != DIMENSIONS {
            return Err(EmbedError::Run(format!("unexpected output shape {dims:?}")));
        }
        let hidden = hidden.as_standard_layout();
        let hidden = hidden.as_slice().ok_or_else(|| EmbedError::Run("output is not contiguous".into()))?;
        let mut vectors = Vec::with_capacity(batch);
        for row in 0..batch {
            let mut sum = vec![0f32; DIMENSIONS];
            let mut count = 0f32;
            for col in 0..seq {
                if mask[row * seq + col] == 0 {
                    continue;
                }
                count += 1.0;
                let token = &hidden[(row * seq + col) * DIMENSIONS..][..DIMENSIONS];
                for (s, x) in sum.iter_mut().zip(token) {
                    *s += x;
                }
            }
            if count > 0.0 {
                sum.iter_mut().for_each(|s| *s /= count);
            }
            vectors.push(normalize(sum));
        }
        Ok(vectors)
    }
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        MODEL_ID
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Sorting by length keeps padding small inside each batch.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for group in order.chunks(self.batch) {
            let batch: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
            for (&i, vector) in group.iter().zip(self.embed_batch(&batch)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }
}

/// L2-normalises a vector; zero and non-finite vectors become all zeros.
pub fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm.is_finite() && norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else {
        v.iter_mut().for_each(|x| *x = 0.0);
    }
    v
}

/// Cosine similarity of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A deterministic stand-in for unit tests and smoke benches: hashes the code tokens of a
/// text into a bag-of-words vector. It has no notion of meaning (paraphrases do not meet);
/// integration tests and CI run the real model.
#[derive(Debug, Default, Clone)]
pub struct HashEmbedder;

impl Embedder for HashEmbedder {
    fn model_id(&self) -> &str {
        "hash-bag-of-words"
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut v = vec![0f32; DIMENSIONS];
                for token in super::text::code_tokens(text) {
                    let h = blake3::hash(token.as_bytes());
                    let bytes = h.as_bytes();
                    let slot = u16::from_le_bytes([bytes[0], bytes[1]]) as usize % DIMENSIONS;
                    v[slot] += if bytes[2] & 1 == 0 { 1.0 } else { -1.0 };
                }
                normalize(v)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_embedder_is_deterministic_and_normalised() {
        let mut e = HashEmbedder;
        let a = e.embed(&["spawn_entity in the world", "spawn entity world"]).unwrap();
        let b = e.embed(&["spawn_entity in the world"]).unwrap();
        assert_eq!(a[0], b[0]);
        let norm: f32 = a[0].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
        assert!(cosine(&a[0], &a[1]) > 0.5, "shared tokens are close");
    }

    #[test]
    fn normalize_handles_zero_and_nan() {
        assert_eq!(normalize(vec![0.0; 3]), vec![0.0; 3]);
        assert_eq!(normalize(vec![f32::NAN, 1.0]), vec![0.0, 0.0]);
        assert_eq!(normalize(vec![3.0, 4.0]), vec![0.6, 0.8]);
    }

    #[test]
    fn missing_runtime_is_an_error_not_a_panic() {
        // Only meaningful when no environment was initialised earlier in this process.
        let paths = ModelPaths {
            runtime: "/nonexistent/libonnxruntime.so".into(),
            model: "/nonexistent/model.onnx".into(),
            tokenizer: "/nonexistent/tokenizer.json".into(),
        };
        assert!(OnnxEmbedder::load(&paths).is_err());
    }
}
