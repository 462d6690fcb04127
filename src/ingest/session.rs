//! Session logs: markdown written during AI coding sessions.
//!
//! The formats seen in real logs drift: YAML front matter (`id:`, `date:`), a
//! `# Session: title` header with bold fields (`**ID**: 20250728-182427`, `**Started**:
//! 2025-07-28T22:24:27Z`, `**Date**: …`), init records (`Initialized on: …`) and bare
//! notes. The session id comes from front matter, then the `**ID**` field, then the file
//! name; the date from the id's `YYYYMMDD` prefix, then the date fields, then the file
//! name.

use std::path::Path;

/// What identifies a session log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMeta {
    pub id: String,
    /// `YYYY-MM-DD`.
    pub date: Option<String>,
    pub title: Option<String>,
}

/// Whether a file looks like a session log (markdown).
pub fn is_session_log(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(), Some("md" | "markdown"))
}

/// Reads the session's id, date and title from its text and file name.
pub fn meta(path: &Path, text: &str) -> SessionMeta {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
    let mut id = None;
    let mut date_field = None;
    let mut title = None;
    let mut lines = text.lines().take(60).peekable();
    if lines.peek().map(|l| l.trim()) == Some("---") {
        lines.next();
        for line in lines.by_ref() {
            let line = line.trim();
            if line == "---" || line == "..." {
                break;
            }
            if let Some((key, value)) = line.split_once(':') {
                let value = value.trim().trim_matches(['"', '\'']).to_string();
                match key.trim().to_ascii_lowercase().as_str() {
                    "id" | "session_id" | "session-id" | "session" if !value.is_empty() => id = Some(value),
                    "date" | "started" | "created" | "start" if !value.is_empty() => date_field = Some(value),
                    "title" if !value.is_empty() => title = Some(value),
                    _ => {}
                }
            }
        }
    }
    for line in lines {
        let line = line.trim();
        if title.is_none()
            && let Some(rest) = line.strip_prefix("# ")
        {
            let rest = rest.trim();
            title = Some(rest.strip_prefix("Session:").unwrap_or(rest).trim().to_string());
            continue;
        }
        let Some((key, value)) = field(line) else { continue };
        match key.as_str() {
            "id" | "session id" if id.is_none() && !value.is_empty() => id = Some(value),
            "started" | "date" | "initialized on" if date_field.is_none() && !value.is_empty() => {
                date_field = Some(value)
            }
            _ => {}
        }
    }
    let id = id.unwrap_or(stem.clone());
    let date = date_prefix(&id).or_else(|| date_field.as_deref().and_then(iso_date)).or_else(|| date_prefix(&stem));
    SessionMeta { id, date, title: title.filter(|t| !t.is_empty()) }
}

/// `**Key**: value` or `Key: value` → (lower-cased key, value).
fn field(line: &str) -> Option<(String, String)> {
    let line = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).unwrap_or(line).trim_start();
    let (key, value) = if let Some(rest) = line.strip_prefix("**") {
        let (key, rest) = rest.split_once("**")?;
        (key.trim_end_matches(':'), rest.trim_start_matches(':'))
    } else {
        let (key, value) = line.split_once(':')?;
        if key.len() > 20 || key.contains(['#', '`']) {
            return None;
        }
        (key, value)
    };
    Some((key.trim().to_ascii_lowercase(), value.trim().to_string()))
}

/// `20250728-182427…` → `2025-07-28`.
fn date_prefix(s: &str) -> Option<String> {
    let digits: String = s.chars().take(8).collect();
    if digits.len() == 8 && digits.chars().all(|c| c.is_ascii_digit()) {
        valid_date(&digits[0..4], &digits[4..6], &digits[6..8])
    } else {
        None
    }
}

/// `2025-07-28T22:24:27Z`, `2025-07-28` → `2025-07-28`.
fn iso_date(s: &str) -> Option<String> {
    let s = s.trim();
    let b = s.as_bytes();
    // Checked slicing: a hostile header may put a multi-byte char where a digit belongs.
    if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' {
        valid_date(s.get(0..4)?, s.get(5..7)?, s.get(8..10)?)
    } else {
        None
    }
}

fn valid_date(y: &str, m: &str, d: &str) -> Option<String> {
    let (y, m, d): (i16, i8, i8) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    jiff::civil::Date::new(y, m, d).ok().map(|date| date.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_with_a_multi_byte_char_where_a_digit_belongs_is_no_date() {
        assert_eq!(iso_date("2025-08-1é3T13:26:13Z"), None);
        assert_eq!(iso_date("2025-0é-13"), None);
        assert_eq!(iso_date("2é25-08-13"), None);
        assert_eq!(iso_date("2025-08-13T13:26:13Z").as_deref(), Some("2025-08-13"));
    }

    #[test]
    fn header_format() {
        let text = "# Session: scrape\n**ID**: 20250905-111908\n**Started**: 2025-09-05T15:19:08Z\n";
        let meta = meta(Path::new("/s/whatever.md"), text);
        assert_eq!(meta.id, "20250905-111908");
        assert_eq!(meta.date.as_deref(), Some("2025-09-05"));
        assert_eq!(meta.title.as_deref(), Some("scrape"));
    }

    #[test]
    fn front_matter_format() {
        let text = "---\nid: abc\ndate: 2025-11-30\ntitle: \"Routing\"\n---\n# Heading\n";
        let meta = meta(Path::new("/s/x.md"), text);
        assert_eq!(
            (meta.id.as_str(), meta.date.as_deref(), meta.title.as_deref()),
            ("abc", Some("2025-11-30"), Some("Routing"))
        );
    }

    #[test]
    fn checkpoint_and_init_records_fall_back_to_fields_and_file_name() {
        let meta1 =
            meta(Path::new("/s/20250728-session-checkpoint.md"), "# Session Checkpoint\n**Date**: 2025-07-28\n");
        assert_eq!(meta1.id, "20250728-session-checkpoint");
        assert_eq!(meta1.date.as_deref(), Some("2025-07-28"));
        let meta2 =
            meta(Path::new("/s/notes.md"), "# . Initialization\n\nInitialized on: 2025-08-18T17:38:47.272052+00:00\n");
        assert_eq!(meta2.date.as_deref(), Some("2025-08-18"));
        let meta3 = meta(Path::new("/s/notes.md"), "nothing here\n");
        assert_eq!((meta3.id.as_str(), meta3.date), ("notes", None));
        assert_eq!(date_prefix("20251399-x"), None);
    }
}
