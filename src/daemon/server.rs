//! `patina serve`: HTTP/JSON on loopback (and a Unix socket under `$PATINA_HOME`).
//!
//! Routes (bodies and answers are JSON; an error is `{"error": "..."}` with its status):
//! - `GET /health`: `{status, version, pid, home, through_seq}`;
//! - `POST /scry` `{query, project?, cwd?, repos?, all?, limit?, lexical_only?, no_beliefs?}`:
//!   the object `patina scry --json` prints;
//! - `POST /scry/detail` `{query_id, rank, part?}`, `POST /scry/feedback` `{query_id, rank, useful}`;
//! - `POST /persona/query` `{query, project?, cwd?, limit?, lexical_only?, persona_only?, threshold?}`:
//!   `scry --persona --json`'s object (local first, the mother when local is weak);
//! - `POST /graph/neighbors` `{id, direction?, types?, limit?}`, `POST /graph/path`
//!   `{from, to, max_hops?}`, `GET /graph/stats`, `POST /graph/explain` `{from, type, to, max_events?}`.
//!
//! A malformed body is 400, a body over [`MAX_BODY_BYTES`] 413, an unknown route 404, a
//! missing or wrong bearer token 401. Binding anything but loopback needs `--allow-remote`
//! and a token; without both the daemon refuses to start.
//!
//! Architecture Invariant: one daemon per home. `mother/serve.pid` is held with an
//! exclusive `flock` for the daemon's life (the kernel drops it if the process dies, so a
//! killed daemon never blocks the next), and a second daemon on the same home says which
//! pid holds it and exits 2.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::event::log::EventLog;
use crate::event::nodes::resolve_node;
use crate::event::{EdgeType, Source};
use crate::graph::query::{self, Direction};
use crate::graph::{Params, store as graph_store};
use crate::home::PatinaHome;
use crate::scry::{self, ScryError};
use crate::search::Searcher;
use crate::store::{OpenOptions, Store};

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: SocketAddr,
    /// The Unix socket to serve on too (`None`: TCP only).
    pub socket: Option<PathBuf>,
    /// Required as `Authorization: Bearer TOKEN` on every request when set.
    pub token: Option<String>,
    /// Binding a non-loopback address is refused unless this is set (and a token given).
    pub allow_remote: bool,
    /// One line per request on stderr.
    pub log: bool,
}

/// Why the daemon would not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "refusing to bind {0}: it is not a loopback address; pass --allow-remote and a token (--token or PATINA_MOTHER_TOKEN)"
    )]
    Remote(SocketAddr),
    #[error("a daemon already serves {home} (pid {pid}); stop it first")]
    Running { home: String, pid: String },
    #[error("{what} {path}: {source}")]
    Io { what: &'static str, path: String, source: std::io::Error },
}

/// The lock that makes one daemon per home; released when dropped or when the process dies.
pub struct PidLock {
    _file: std::fs::File,
}

/// Takes `mother/serve.pid` of `home`, or says which daemon holds it.
pub fn lock(home: &PatinaHome) -> Result<PidLock, ServeError> {
    let dir = home.mother_dir();
    let io = |what: &'static str, path: &Path| {
        let path = path.display().to_string();
        move |source| ServeError::Io { what, path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io("creating", &dir))?;
    let path = dir.join("serve.pid");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io("opening", &path))?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file descriptor we own; no memory is shared with the call.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !locked {
        let pid = std::fs::read_to_string(&path).unwrap_or_default().trim().to_string();
        return Err(ServeError::Running {
            home: home.root().display().to_string(),
            pid: if pid.is_empty() { "unknown".into() } else { pid },
        });
    }
    file.set_len(0).map_err(io("writing", &path))?;
    write!(file, "{}", std::process::id()).map_err(io("writing", &path))?;
    Ok(PidLock { _file: file })
}

/// What the daemon keeps warm: the searcher (model, open indexes) and the routing world.
struct Engine {
    searcher: Searcher,
    world: Option<(WorldKey, scry::World)>,
}

/// The store file's size and modification time, and the repos directory's: when either
/// moves, the routing world is read again.
type WorldKey = (u64, Option<SystemTime>, Option<SystemTime>);

fn world_key(home: &PatinaHome) -> WorldKey {
    let store = std::fs::metadata(home.store_path()).ok();
    let repos = std::fs::metadata(home.repos_dir()).ok();
    (
        store.as_ref().map_or(0, |m| m.len()),
        store.and_then(|m| m.modified().ok()),
        repos.and_then(|m| m.modified().ok()),
    )
}

struct Daemon {
    home: PatinaHome,
    token: Option<String>,
    log: bool,
    started: Instant,
    engine: Mutex<Engine>,
    /// Neighbours and paths answer from memory; loaded again when the graph moves.
    graph: crate::graph::memory::GraphCache,
}

/// An error answer: a status and a message.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, axum::Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        if let Some(scry) = e.downcast_ref::<ScryError>() {
            return scry_failure(scry);
        }
        let status = match e.downcast_ref::<crate::Error>() {
            Some(crate::Error::Invalid(_)) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Failure(status, format!("{e:#}"))
    }
}

fn scry_failure(e: &ScryError) -> Failure {
    let status = match e {
        ScryError::UnknownQuery { .. } | ScryError::RankOutOfRange { .. } | ScryError::PartOutOfRange { .. } => {
            StatusCode::NOT_FOUND
        }
        ScryError::Route(_) | ScryError::NotCode { .. } | ScryError::Search(_) => StatusCode::BAD_REQUEST,
        ScryError::ChunkGone { .. } => StatusCode::GONE,
        ScryError::Index(_) | ScryError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Failure(status, e.to_string())
}

type Answer = Result<axum::Json<serde_json::Value>, Failure>;

/// A JSON body, or 400 (413 when too large) with what was wrong.
fn body<T>(given: Result<axum::Json<T>, JsonRejection>) -> Result<T, Failure> {
    given.map(|axum::Json(v)| v).map_err(|r| {
        let status = if r.status() == StatusCode::PAYLOAD_TOO_LARGE { r.status() } else { StatusCode::BAD_REQUEST };
        Failure(status, r.body_text())
    })
}

/// Runs blocking work (store, indexes, model) off the async workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> anyhow::Result<T> + Send + 'static) -> Result<T, Failure> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(Failure::from),
        Err(e) => Err(Failure(StatusCode::INTERNAL_SERVER_ERROR, format!("the request's worker failed: {e}"))),
    }
}

impl Daemon {
    /// The store with a current graph, the graph parameters it is current for, and the given
    /// node ids or aliases resolved.
    fn graph_store<const N: usize>(&self, given: [&str; N]) -> anyhow::Result<(Store, Params, [String; N])> {
        let store = self.open()?;
        let nodes = EventLog::new(&store).nodes()?;
        let mut ids = [const { String::new() }; N];
        for (id, given) in ids.iter_mut().zip(given) {
            *id = resolve_node(&nodes, given)?;
        }
        let params = self.params()?;
        graph_store::refresh(&store, &params)?;
        Ok((store, params, ids))
    }

    /// The home's graph parameters, read each call (so an edited cue file is seen).
    fn params(&self) -> anyhow::Result<Params> {
        // A broken cue file in the home is the server's fault (500), not the request's: its
        // error is passed on as a message, not as the crate's `Invalid`.
        Params::for_home(&self.home).map_err(|e| anyhow::anyhow!("{e}"))
    }

    fn open(&self) -> anyhow::Result<Store> {
        Ok(Store::open(&self.home.store_path(), &OpenOptions::default(), |n| eprintln!("patina serve: {n}"))?)
    }

    /// For reading only: nothing written, so the store file (whose size and mtime key the
    /// warm world) moves only when something else writes it.
    fn open_read_only(&self) -> anyhow::Result<Store> {
        Ok(Store::open_read_only(&self.home.store_path(), &OpenOptions::default(), |n| eprintln!("patina serve: {n}"))?)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScryBody {
    query: String,
    #[serde(default)]
    project: Option<String>,
    /// The client's working directory: the project is the registered repo around it.
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    repos: Vec<String>,
    #[serde(default)]
    all: bool,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    lexical_only: bool,
    #[serde(default)]
    no_beliefs: bool,
}

/// The warm routing world, read again when the store or the repos moved; the searcher's
/// indexes refreshed.
fn warm_world<'e>(
    d: &Daemon,
    searcher: &mut Searcher,
    cached: &'e mut Option<(WorldKey, scry::World)>,
) -> anyhow::Result<&'e mut scry::World> {
    searcher.refresh();
    let key = world_key(&d.home);
    if cached.as_ref().is_none_or(|(k, _)| *k != key) {
        let store = d.open_read_only()?;
        *cached = Some((key, scry::World::load(&store, &d.home, std::iter::empty())?));
    }
    Ok(&mut cached.as_mut().expect("loaded above").1)
}

/// `choice` with its project found from the client's `cwd`, and that project's edges loaded.
fn with_project<'w>(
    d: &Daemon,
    world: &'w mut scry::World,
    choice: scry::RouteChoice,
    cwd: Option<String>,
) -> anyhow::Result<(&'w scry::World, scry::RouteChoice)> {
    let cwd = cwd.map(PathBuf::from).unwrap_or_default();
    let choice = if cwd.as_os_str().is_empty() { choice } else { choice.or_project_at(world, &cwd) };
    if let Some(project) = choice.project_id(world)
        && !world.edges.contains_key(&project)
    {
        let store = d.open_read_only()?;
        world.add_projects(&store, [project.as_str()])?;
    }
    Ok((world, choice))
}

async fn scry_route(State(d): State<Arc<Daemon>>, given: Result<axum::Json<ScryBody>, JsonRejection>) -> Answer {
    let b = body(given)?;
    let limit = b.limit.unwrap_or(10);
    if limit == 0 || limit > 200 {
        return Err(Failure(StatusCode::BAD_REQUEST, format!("limit must be 1..=200, not {limit}")));
    }
    let value = blocking(move || {
        let mut engine = d.engine.lock().map_err(|_| anyhow::anyhow!("the search engine failed earlier"))?;
        let engine = &mut *engine;
        let world = warm_world(&d, &mut engine.searcher, &mut engine.world)?;
        let choice = scry::RouteChoice { project: b.project, repos: b.repos, all: b.all };
        let (world, choice) = with_project(&d, world, choice, b.cwd)?;
        let mut query = scry::Query::new(&b.query, choice, limit);
        query.semantic = !b.lexical_only;
        query.knowledge = !b.no_beliefs;
        let result = scry::run(&d.home, &mut engine.searcher, world, &query)?;
        Ok(serde_json::to_value(&result)?)
    })
    .await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PersonaBody {
    query: String,
    #[serde(default)]
    project: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    lexical_only: bool,
    #[serde(default)]
    persona_only: bool,
    #[serde(default)]
    threshold: Option<f32>,
}

async fn persona_route(State(d): State<Arc<Daemon>>, given: Result<axum::Json<PersonaBody>, JsonRejection>) -> Answer {
    let b = body(given)?;
    let limit = b.limit.unwrap_or(10);
    if limit == 0 || limit > 200 {
        return Err(Failure(StatusCode::BAD_REQUEST, format!("limit must be 1..=200, not {limit}")));
    }
    let value = blocking(move || {
        let mut engine = d.engine.lock().map_err(|_| anyhow::anyhow!("the search engine failed earlier"))?;
        let engine = &mut *engine;
        let world = warm_world(&d, &mut engine.searcher, &mut engine.world)?;
        let choice = scry::RouteChoice { project: b.project, repos: Vec::new(), all: false };
        let (world, choice) = with_project(&d, world, choice, b.cwd)?;
        let mut query = scry::Query::new(&b.query, choice, limit);
        query.semantic = !b.lexical_only;
        let options = scry::persona::PersonaOptions {
            threshold: b.threshold.unwrap_or(scry::persona::DEFAULT_THRESHOLD),
            persona_only: b.persona_only,
        };
        let result = scry::persona::run(&d.home, &mut engine.searcher, world, &query, &options)?;
        Ok(serde_json::to_value(&result)?)
    })
    .await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DetailBody {
    query_id: String,
    rank: usize,
    #[serde(default)]
    part: Option<usize>,
}

async fn detail_route(State(d): State<Arc<Daemon>>, given: Result<axum::Json<DetailBody>, JsonRejection>) -> Answer {
    let b = body(given)?;
    let value =
        blocking(move || Ok(serde_json::to_value(scry::detail(&d.home, &b.query_id, b.rank, b.part)?)?)).await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FeedbackBody {
    query_id: String,
    rank: usize,
    useful: bool,
}

async fn feedback_route(
    State(d): State<Arc<Daemon>>,
    given: Result<axum::Json<FeedbackBody>, JsonRejection>,
) -> Answer {
    let b = body(given)?;
    let value = blocking(move || {
        let store = d.open()?;
        let (stored, hit, seq) = scry::feedback(&store, &d.home, &b.query_id, b.rank, b.useful, Source::Daemon)?;
        graph_store::refresh(&store, &d.params()?)?;
        Ok(serde_json::json!({
            "query_id": b.query_id, "rank": b.rank, "repo": hit.repo, "project": stored.project,
            "useful": b.useful, "seq": seq,
        }))
    })
    .await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NeighborsBody {
    id: String,
    #[serde(default)]
    direction: Option<String>,
    #[serde(default)]
    types: Vec<String>,
    #[serde(default)]
    limit: Option<usize>,
}

async fn neighbors_route(
    State(d): State<Arc<Daemon>>,
    given: Result<axum::Json<NeighborsBody>, JsonRejection>,
) -> Answer {
    let b = body(given)?;
    let value = blocking(move || {
        let direction = match b.direction.as_deref() {
            None => Direction::Both,
            Some(given) => Direction::parse(given).ok_or_else(|| {
                crate::Error::from(crate::error::InvalidInput::Other(format!(
                    "direction must be in, out or both, not '{given}'"
                )))
            })?,
        };
        let types = b.types.iter().map(|t| EdgeType::parse(t)).collect::<Result<Vec<_>, _>>()?;
        let (store, _, [id]) = d.graph_store([b.id.as_str()])?;
        let mut found = d.graph.get(&store)?.neighbors(&id, direction, &types);
        found.truncate(b.limit.unwrap_or(50));
        Ok(serde_json::json!({ "id": id, "neighbors": found }))
    })
    .await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathBody {
    from: String,
    to: String,
    #[serde(default)]
    max_hops: Option<usize>,
}

async fn path_route(State(d): State<Arc<Daemon>>, given: Result<axum::Json<PathBody>, JsonRejection>) -> Answer {
    let b = body(given)?;
    let value = blocking(move || {
        let (store, _, [from, to]) = d.graph_store([b.from.as_str(), b.to.as_str()])?;
        let max_hops = b.max_hops.unwrap_or(4).min(16);
        Ok(match d.graph.get(&store)?.path(&from, &to, max_hops)? {
            Some(hops) => serde_json::json!({
                "from": from, "to": to, "found": true,
                "hops": hops.iter().map(|(a, t, b, w)| serde_json::json!({"from": a, "type": t, "to": b, "weight": w})).collect::<Vec<_>>(),
            }),
            None => serde_json::json!({ "from": from, "to": to, "found": false, "max_hops": max_hops }),
        })
    })
    .await?;
    Ok(axum::Json(value))
}

async fn stats_route(State(d): State<Arc<Daemon>>) -> Answer {
    let value = blocking(move || {
        let (store, params, []) = d.graph_store([])?;
        let graph = graph_store::read(&store)?
            .ok_or_else(|| anyhow::anyhow!("the graph is empty: nothing was synced or ingested yet"))?;
        Ok(serde_json::to_value(query::stats(&graph, params.max_domain_members))?)
    })
    .await?;
    Ok(axum::Json(value))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainBody {
    from: String,
    #[serde(rename = "type")]
    edge_type: String,
    to: String,
    #[serde(default)]
    max_events: Option<usize>,
}

async fn explain_route(State(d): State<Arc<Daemon>>, given: Result<axum::Json<ExplainBody>, JsonRejection>) -> Answer {
    let b = body(given)?;
    let value = blocking(move || {
        let edge_type = EdgeType::parse(&b.edge_type)?;
        let (store, params, [from, to]) = d.graph_store([b.from.as_str(), b.to.as_str()])?;
        let max = b.max_events.unwrap_or(25).min(500);
        Ok(serde_json::to_value(crate::graph::explain::explain(&store, &params, &from, edge_type, &to, max)?)?)
    })
    .await?;
    Ok(axum::Json(value))
}

async fn health_route(State(d): State<Arc<Daemon>>) -> Answer {
    let value = blocking(move || {
        let store = d.open_read_only()?;
        let through = EventLog::new(&store).last_seq()?;
        Ok(serde_json::json!({
            "status": "ok", "version": env!("CARGO_PKG_VERSION"), "pid": std::process::id(),
            "home": d.home.root().display().to_string(), "through_seq": through,
            "uptime_s": d.started.elapsed().as_secs(),
        }))
    })
    .await?;
    Ok(axum::Json(value))
}

async fn not_found(request: Request) -> Failure {
    Failure(StatusCode::NOT_FOUND, format!("no route {} {}", request.method(), request.uri().path()))
}

/// Checks the bearer token (when one is set) and logs the request (with `--log`).
async fn guard(State(d): State<Arc<Daemon>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let authorised = match &d.token {
        None => true,
        Some(token) => request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes())),
    };
    let response = if authorised {
        next.run(request).await
    } else {
        Failure(StatusCode::UNAUTHORIZED, "missing or wrong bearer token".into()).into_response()
    };
    if d.log {
        eprintln!(
            "patina serve: {method} {path} {} {:.1} ms",
            response.status().as_u16(),
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    response
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn router(daemon: Arc<Daemon>) -> Router {
    Router::new()
        .route("/health", get(health_route))
        .route("/scry", post(scry_route))
        .route("/scry/detail", post(detail_route))
        .route("/scry/feedback", post(feedback_route))
        .route("/persona/query", post(persona_route))
        .route("/graph/neighbors", post(neighbors_route))
        .route("/graph/path", post(path_route))
        .route("/graph/stats", get(stats_route))
        .route("/graph/explain", post(explain_route))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(daemon.clone(), guard))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(daemon)
}

/// Resolves when SIGINT or SIGTERM arrives.
async fn shutdown_signal() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(term) => term,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// Serves until SIGINT or SIGTERM. `ready` gets the bound TCP address once listening.
pub fn serve(home: PatinaHome, options: ServeOptions, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let remote_allowed = options.allow_remote && options.token.is_some();
    if !(options.bind.ip().is_loopback() || remote_allowed) {
        return Err(ServeError::Remote(options.bind).into());
    }
    let _lock = lock(&home)?;
    let daemon = Arc::new(Daemon {
        home: home.clone(),
        token: options.token.clone(),
        log: options.log,
        started: Instant::now(),
        engine: Mutex::new(Engine { searcher: Searcher::new(&home), world: None }),
        graph: Default::default(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.bind)
            .await
            .map_err(|e| anyhow::anyhow!("binding {}: {e}", options.bind))?;
        let address = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let wait = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|stop| *stop).await;
        };
        let tcp = axum::serve(listener, router(daemon.clone())).with_graceful_shutdown(wait(stopped.clone()));
        let unix = match &options.socket {
            Some(path) => {
                let _ = std::fs::remove_file(path);
                let listener = tokio::net::UnixListener::bind(path)
                    .map_err(|e| anyhow::anyhow!("binding the socket {}: {e}", path.display()))?;
                Some(axum::serve(listener, router(daemon.clone())).with_graceful_shutdown(wait(stopped.clone())))
            }
            None => None,
        };
        eprintln!(
            "patina serve: listening on http://{address}{} for {}",
            options.socket.as_ref().map(|p| format!(" and {}", p.display())).unwrap_or_default(),
            home.root().display()
        );
        ready(address);
        let signal = async move {
            shutdown_signal().await;
            eprintln!("patina serve: shutting down");
            let _ = stop.send(true);
        };
        let tcp = tokio::spawn(async move { tcp.await });
        let unix = unix.map(|u| tokio::spawn(async move { u.await }));
        signal.await;
        tcp.await??;
        if let Some(unix) = unix {
            unix.await??;
        }
        if let Some(path) = &options.socket {
            let _ = std::fs::remove_file(path);
        }
        anyhow::Ok(())
    })
}
