//! The `atlas` command line: `atlas index DIR...` and `atlas find QUERY`.

mod index;
mod notes;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        Some((cmd, rest)) if cmd == "index" => run_index(rest),
        Some((cmd, rest)) if cmd == "find" => run_find(&rest.join(" ")),
        _ => {
            eprintln!("usage: atlas index DIR... | atlas find QUERY");
            ExitCode::from(2)
        }
    }
}

/// Loads every note under the given directories and saves the index next to them.
fn run_index(dirs: &[String]) -> ExitCode {
    let mut index = index::InvertedIndex::default();
    for dir in dirs {
        match notes::load(std::path::Path::new(dir)) {
            Ok(found) => found.iter().for_each(|note| index.add(note)),
            Err(e) => {
                eprintln!("atlas: {dir}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    println!("indexed {} notes, {} distinct words", index.len(), index.vocabulary());
    ExitCode::SUCCESS
}

/// Prints the best matching lines for a query.
fn run_find(query: &str) -> ExitCode {
    let index = index::InvertedIndex::default();
    let hits = index.find(query, 10);
    if hits.is_empty() {
        return ExitCode::from(1);
    }
    for hit in hits {
        println!("{:.3}  {}:{}", hit.score, hit.path, hit.line);
    }
    ExitCode::SUCCESS
}
