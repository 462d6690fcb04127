//! Writing results: human text and JSON on stdout.
//!
//! stdout carries results only; warnings and progress go to stderr. JSON listings are
//! one JSON document (an array or an object) streamed as it is produced.

use std::io::{self, BufWriter, Stdout, Write};

use serde::Serialize;
use serde_json::{Value, json};

use crate::event::{Event, Source, StoredEvent};

/// Buffered stdout.
pub struct Out {
    inner: BufWriter<Stdout>,
}

impl Default for Out {
    fn default() -> Self {
        Out { inner: BufWriter::new(io::stdout()) }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Out {
    /// Writes one value as pretty JSON followed by a newline.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.inner, value)?;
        self.inner.write_all(b"\n")
    }
}

/// Formats milliseconds since the epoch as RFC 3339 in UTC.
pub fn rfc3339(ts_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ts_ms).map(|t| t.to_string()).unwrap_or_else(|_| ts_ms.to_string())
}

/// Formats milliseconds since the epoch as `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn short_time(ts_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ts_ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|_| ts_ms.to_string())
}

pub fn source_json(source: &Source) -> Value {
    match source {
        Source::Cli => json!({ "type": "cli" }),
        Source::Mcp => json!({ "type": "mcp" }),
        Source::File { path, start_line, end_line } => {
            json!({ "type": "file", "path": path, "start_line": start_line, "end_line": end_line })
        }
    }
}

pub fn payload_json(event: &Event) -> Value {
    let value = match event {
        Event::NodeRegistered(e) => serde_json::to_value(e),
        Event::NodeRemoved(e) => serde_json::to_value(e),
        Event::Mention(e) => serde_json::to_value(e),
        Event::Import(e) => serde_json::to_value(e),
        Event::BenchRun(e) => serde_json::to_value(e),
        Event::LinkAdded(e) => serde_json::to_value(e),
        Event::LinkRemoved(e) => serde_json::to_value(e),
        Event::RouteFeedback(e) => serde_json::to_value(e),
        Event::Retracted(e) => serde_json::to_value(e),
    };
    value.unwrap_or(Value::Null)
}

/// The JSON form of a stored event (documented in the README).
pub fn event_json(event: &StoredEvent, live: bool) -> Value {
    json!({
        "seq": event.seq,
        "ts": rfc3339(event.ts_ms),
        "kind": event.event.kind().as_str(),
        "source": source_json(&event.source),
        "hash": event.hash.to_hex(),
        "live": live,
        "payload": payload_json(&event.event),
    })
}

/// The human form of a stored event: one line.
pub fn event_line(event: &StoredEvent, live: bool) -> String {
    format!(
        "{:>7}  {}  {:<15} {}{}  [{}]",
        event.seq,
        short_time(event.ts_ms),
        event.event.kind().as_str(),
        event.event.summary(),
        if live { "" } else { "  (no longer live)" },
        event.source,
    )
}
pub mod picture;
