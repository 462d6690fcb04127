//! `patina serve`: the mother daemon (see `crate::daemon`), with `--watch` running the
//! watcher in-process beside it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{Invocation, exit};
use crate::cli::ServeArgs;
use crate::daemon::server::{self, ServeOptions};
use crate::event::log::EventLog;
use crate::ingest::IngestOptions;
use crate::store::OpenOptions;
use crate::watch::{self, Notice, WatchOptions};

pub fn run(ctx: &mut Invocation, args: ServeArgs) -> anyhow::Result<u8> {
    // Created (or a leftover replaced) here, so that is told before serving starts.
    let store = ctx.open_store()?;
    let watch_options = if args.watch {
        let nodes = EventLog::new(&store).nodes()?;
        let roots = watch::default_roots(&nodes);
        if roots.is_empty() {
            anyhow::bail!("--watch: no registered node has a path that exists here");
        }
        let cues = ctx.cues(None)?;
        Some(WatchOptions {
            roots,
            debounce: Duration::from_millis(200),
            ingest: IngestOptions::default(),
            cues,
            params_home: Some(ctx.home.clone()),
            open: OpenOptions::default(),
        })
    } else {
        None
    };
    drop(store);
    let socket = if args.no_socket {
        None
    } else {
        Some(args.socket.clone().unwrap_or_else(|| ctx.home.mother_dir().join("serve.sock")))
    };
    let options =
        ServeOptions { bind: args.bind, socket, token: args.token, allow_remote: args.allow_remote, log: args.log };
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = watch_options.map(|options| {
        let store_path = ctx.home.store_path();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let result = watch::run(&store_path, &options, &stop, |notice| match notice {
                Notice::Batch(report) if !report.diff.is_empty() => eprintln!(
                    "patina serve: watch: graph now {} edges (+{} new, -{} gone, {} reweighted)",
                    report.edges,
                    report.diff.added.len(),
                    report.diff.removed.len(),
                    report.diff.reweighted.len()
                ),
                Notice::Retrying(why) => eprintln!("patina serve: watch: {why} (retrying)"),
                Notice::RootGone(p) => eprintln!("patina serve: watch: {} is gone", p.display()),
                _ => {}
            });
            if let Err(e) = result {
                eprintln!("patina serve: watch stopped: {e}");
            }
        })
    });
    let result = server::serve(ctx.home.clone(), options, |_| {});
    stop.store(true, Ordering::SeqCst);
    if let Some(watcher) = watcher {
        let _ = watcher.join();
    }
    result?;
    Ok(exit::OK)
}
