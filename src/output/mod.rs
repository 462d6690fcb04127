//! Writing results: human text and JSON on stdout.
//!
//! stdout carries results only; warnings and progress go to stderr. JSON listings are
//! one JSON document (an array or an object) streamed as it is produced.
//!
//! Human output passes text that came from the user's files (session sentences, paths)
//! through [`printable`]: a raw escape sequence in a session log must not reach the
//! terminal. JSON needs no such care (serde escapes control characters).

use std::borrow::Cow;
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

/// `text` with its control characters made visible: C0 controls other than `\n` and `\t`,
/// DEL and C1 controls become `\x1b`-style escapes, so text from a session log can never
/// move the cursor, clear the screen or retitle the terminal. Borrows when nothing changes.
pub fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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
        Source::Daemon => json!({ "type": "daemon" }),
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
        Event::Belief(e) => serde_json::to_value(e),
        Event::Observation(e) => serde_json::to_value(e),
        Event::Relation(e) => serde_json::to_value(e),
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

/// The human form of a stored event: one line, safe to print (see [`printable`]).
pub fn event_line(event: &StoredEvent, live: bool) -> String {
    let line = format!(
        "{:>7}  {}  {:<15} {}{}  [{}]",
        event.seq,
        short_time(event.ts_ms),
        event.event.kind().as_str(),
        event.event.summary(),
        if live { "" } else { "  (no longer live)" },
        event.source,
    );
    printable(&line).into_owned()
}

pub mod picture;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_shows_control_characters_and_keeps_the_rest() {
        assert!(matches!(printable("plain text\twith tab\nand é ✓"), Cow::Borrowed(_)));
        assert_eq!(printable("a\x1b]0;pwned\x07b\x1b[2Jc"), "a\\x1b]0;pwned\\x07b\\x1b[2Jc");
        assert_eq!(printable("cr\rdel\x7fcsi\u{9b}31m"), "cr\\x0ddel\\x7fcsi\\x9b31m");
        assert!(!printable("\u{1b}\u{85}\u{0}").chars().any(|c| c.is_control()));
    }
}
