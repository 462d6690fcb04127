//! A JSON-RPC framing guard in front of rmcp on stdio.
//!
//! rmcp drops a line that is not JSON without a word. JSON-RPC 2.0 (§5.1) wants a Parse
//! error reply, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}`. So stdin is read
//! here line by line: a line that is not a JSON value (invalid UTF-8 included) gets that
//! reply and never reaches rmcp; every other line passes through unchanged. rmcp's output
//! and these replies are written to stdout whole lines at a time, never interleaved.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The largest message echoed back in a parse error.
const MAX_DETAIL: usize = 200;

/// The Parse error reply for a line that is not JSON.
pub fn parse_error(line: &[u8]) -> String {
    let detail = match std::str::from_utf8(line) {
        Err(e) => format!("not UTF-8 ({e})"),
        Ok(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Err(e) => e.to_string(),
            Ok(_) => String::new(),
        },
    };
    let detail: String = detail.chars().take(MAX_DETAIL).collect();
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("Parse error: {detail}")}})
        .to_string()
}

/// Whether a line is a JSON value (what rmcp may parse).
fn is_json(line: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

/// The transport rmcp serves on, and the task that writes stdout (await it after the
/// service ends, so every reply is flushed).
pub fn guard(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> ((DuplexStream, DuplexStream), tokio::task::JoinHandle<()>) {
    let (rmcp_in, mut feed) = tokio::io::duplex(1 << 16);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
    let (errors, mut error_lines) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let content = line.trim_ascii();
            if content.is_empty() {
                continue;
            }
            if is_json(content) {
                if feed.write_all(&line).await.is_err() {
                    break;
                }
                if !line.ends_with(b"\n") && feed.write_all(b"\n").await.is_err() {
                    break;
                }
            } else if errors.send(parse_error(content)).is_err() {
                break;
            }
        }
        let _ = feed.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut lines = BufReader::new(from_rmcp).lines();
        let mut rmcp_open = true;
        loop {
            tokio::select! {
                line = lines.next_line(), if rmcp_open => match line {
                    Ok(Some(line)) => {
                        if output.write_all(format!("{line}\n").as_bytes()).await.is_err() { break; }
                        let _ = output.flush().await;
                    }
                    _ => rmcp_open = false,
                },
                error = error_lines.recv() => match error {
                    Some(error) => {
                        if output.write_all(format!("{error}\n").as_bytes()).await.is_err() { break; }
                        let _ = output.flush().await;
                    }
                    None if !rmcp_open => break,
                    None => {}
                },
                else => break,
            }
        }
        let _ = output.flush().await;
    });
    ((rmcp_in, rmcp_out), writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_follow_json_rpc() {
        let reply: serde_json::Value = serde_json::from_str(&parse_error(b"{this is not json")).unwrap();
        assert_eq!(reply["error"]["code"], -32700);
        assert_eq!(reply["id"], serde_json::Value::Null);
        assert!(reply["error"]["message"].as_str().unwrap().starts_with("Parse error: "));
        let bad_utf8: serde_json::Value = serde_json::from_str(&parse_error(b"{\"a\": \"\xff\"}")).unwrap();
        assert!(bad_utf8["error"]["message"].as_str().unwrap().contains("not UTF-8"));
        let long = format!("{{{}", "x".repeat(100_000));
        assert!(parse_error(long.as_bytes()).len() < 400, "the detail is clipped");
        assert!(is_json(b"{\"jsonrpc\":\"2.0\"}") && !is_json(b"{nope"));
    }
}
