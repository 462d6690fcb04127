//! Talking to the mother daemon: where it is, and a small blocking HTTP/JSON client.
//!
//! The daemon is used when `PATINA_MOTHER_URL` names it (`off` or empty: never), or,
//! inside a container where `host.docker.internal` resolves, at
//! `http://host.docker.internal:50051`. Unreachable → the caller says so once and works
//! in-process; an answer with an error status is the answer.

use std::time::Duration;

use super::{DEFAULT_PORT, container};

/// Where the daemon is, if one should be used. Inside a container the default host is
/// used only when the name resolves (Docker Desktop and `--add-host` provide it); where it
/// does not, there is no host to ask and nothing is said.
pub fn configured_url() -> Option<String> {
    url_from(std::env::var("PATINA_MOTHER_URL").ok().as_deref(), || {
        use std::net::ToSocketAddrs;
        container::in_container()
            && (DEFAULT_HOST, DEFAULT_PORT).to_socket_addrs().is_ok_and(|mut a| a.next().is_some())
    })
}

/// The host a container reaches its host machine by.
pub const DEFAULT_HOST: &str = "host.docker.internal";

/// [`configured_url`] from the variable's value and a container check (pure, for tests).
pub fn url_from(variable: Option<&str>, in_container: impl FnOnce() -> bool) -> Option<String> {
    match variable.map(str::trim) {
        Some("") | Some("off") | Some("none") => None,
        Some(url) => Some(url.trim_end_matches('/').to_string()),
        None if in_container() => Some(format!("http://{DEFAULT_HOST}:{DEFAULT_PORT}")),
        None => None,
    }
}

/// Why a call to the daemon did not give an answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Not reachable (refused, no route, timed out): work in-process instead.
    #[error("the mother daemon at {url} is unreachable: {why}")]
    Unreachable { url: String, why: String },
    /// The daemon answered with an error.
    #[error("the mother daemon refused the request ({status}): {message}")]
    Refused { status: u16, message: String },
}

/// A client of one daemon.
pub struct MotherClient {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
}

impl MotherClient {
    /// A client of the configured daemon, if any (`PATINA_MOTHER_TOKEN` is its token).
    pub fn configured() -> Option<MotherClient> {
        configured_url().map(|url| MotherClient::new(&url, std::env::var("PATINA_MOTHER_TOKEN").ok()))
    }

    pub fn new(base: &str, token: Option<String>) -> MotherClient {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_millis(800)))
            .timeout_global(Some(Duration::from_secs(120)))
            .http_status_as_error(false)
            .build();
        MotherClient { base: base.trim_end_matches('/').to_string(), token, agent: config.into() }
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// `POST path` with a JSON body; the JSON answer.
    pub fn post(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.agent.post(&url).header("content-type", "application/json");
        if let Some(token) = &self.token {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let response = request.send(body.to_string()).map_err(|e| self.unreachable(e))?;
        self.answer(response)
    }

    /// `GET path`; the JSON answer.
    pub fn get(&self, path: &str) -> Result<serde_json::Value, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.agent.get(&url);
        if let Some(token) = &self.token {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let response = request.call().map_err(|e| self.unreachable(e))?;
        self.answer(response)
    }

    fn unreachable(&self, e: ureq::Error) -> ClientError {
        ClientError::Unreachable { url: self.base.clone(), why: e.to_string() }
    }

    fn answer(&self, response: ureq::http::Response<ureq::Body>) -> Result<serde_json::Value, ClientError> {
        let status = response.status().as_u16();
        let text = response.into_body().read_to_string().map_err(|e| self.unreachable(e))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| ClientError::Unreachable {
            url: self.base.clone(),
            why: format!("the answer is not JSON ({e}): is this a patina daemon?"),
        })?;
        if (200..300).contains(&status) {
            Ok(value)
        } else {
            let message = value["error"].as_str().unwrap_or("no message").to_string();
            Err(ClientError::Refused { status, message })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_comes_from_the_variable_else_the_container() {
        assert_eq!(url_from(Some("http://h:1/"), || true), Some("http://h:1".into()));
        assert_eq!(url_from(Some("off"), || true), None);
        assert_eq!(url_from(Some(""), || true), None);
        assert_eq!(url_from(None, || true), Some("http://host.docker.internal:50051".into()));
        assert_eq!(url_from(None, || false), None);
    }

    #[test]
    fn nothing_listening_is_unreachable_not_an_error_answer() {
        // A port from a listener that is closed again: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let client = MotherClient::new(&format!("http://127.0.0.1:{port}"), None);
        let err = client.get("/health").unwrap_err();
        assert!(matches!(err, ClientError::Unreachable { .. }), "{err}");
    }
}
