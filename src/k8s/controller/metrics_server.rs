//! /metrics (Prometheus text format), /healthz (the process serves) and
//! /readyz (the controllers are running and have listed the runs).

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone)]
struct Endpoints {
    registry: Arc<Registry>,
    ready: Arc<AtomicBool>,
}

async fn metrics(State(e): State<Endpoints>) -> impl IntoResponse {
    let mut text = String::new();
    match prometheus_client::encoding::text::encode(&mut text, &e.registry) {
        Ok(()) => (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        ),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "text/plain")],
            error.to_string(),
        ),
    }
}

async fn readyz(State(e): State<Endpoints>) -> StatusCode {
    if e.ready.load(Ordering::SeqCst) {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    }
}

pub async fn serve(
    listener: tokio::net::TcpListener,
    registry: Arc<Registry>,
    ready: Arc<AtomicBool>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let app = Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(Endpoints { registry, ready });
    if let Err(error) = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
    {
        tracing::error!(%error, "the metrics endpoint stopped");
    }
}
