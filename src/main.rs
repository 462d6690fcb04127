//! The `patina` binary: parse, run, report an error once.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = patina::cli::Cli::parse();
    match patina::app::run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("patina: {err:#}");
            ExitCode::from(patina::app::exit::ERROR)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
