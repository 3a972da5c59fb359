//! WebFetch against a local HTTP server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use common::Tools;
use serde_json::json;

async fn serve() -> u16 {
    let app = axum::Router::new()
        .route(
            "/page",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    "<html><head><style>p{color:red}</style><script>alert(1)</script></head>\
                     <body><h1>Install</h1><p>Run <code>cargo build</code> then <a href=\"/x\">read more</a>.</p></body></html>",
                )
            }),
        )
        .route("/moved", get(|| async { Redirect::temporary("/page") }))
        .route("/elsewhere", get(|| async { Redirect::temporary("http://localhost:1/page") }))
        .route("/plain", get(|| async { "just text" }))
        .route("/missing", get(|| async { (StatusCode::NOT_FOUND, "no such page") }))
        .route(
            "/huge",
            get(|| async {
                let body = "x".repeat(11 * 1024 * 1024);
                ([(header::CONTENT_TYPE, "text/plain")], body).into_response()
            }),
        )
        .route("/binary", get(|| async { Response::builder().header("content-type", "image/png").body(axum::body::Body::from(vec![0u8; 10])).unwrap() }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    port
}

async fn fetch(t: &Tools, url: String) -> Result<String, String> {
    t.call("WebFetch", json!({"url": url, "prompt": "how to install"})).await
}

#[tokio::test]
async fn html_becomes_markdown_without_scripts_or_styles() {
    let port = serve().await;
    let t = Tools::new();
    let out = fetch(&t, format!("http://127.0.0.1:{port}/page")).await.unwrap();
    assert!(out.contains("# Install"), "{out}");
    assert!(out.contains("`cargo build`"), "{out}");
    assert!(out.contains("[read more](/x)"), "{out}");
    assert!(!out.contains("alert") && !out.contains("color:red"), "{out}");
    assert!(out.contains("asked: how to install"));
}

#[tokio::test]
async fn same_host_redirects_are_followed_other_hosts_reported() {
    let port = serve().await;
    let t = Tools::new();
    assert!(fetch(&t, format!("http://127.0.0.1:{port}/moved")).await.unwrap().contains("# Install"));
    let out = fetch(&t, format!("http://127.0.0.1:{port}/elsewhere")).await.unwrap();
    assert!(out.starts_with("REDIRECT DETECTED") && out.contains("http://localhost:1/page"), "{out}");
}

#[tokio::test]
async fn errors_caps_and_non_text() {
    let port = serve().await;
    let t = Tools::new();
    assert!(fetch(&t, format!("http://127.0.0.1:{port}/plain")).await.unwrap().ends_with("just text"));
    let err = fetch(&t, format!("http://127.0.0.1:{port}/missing")).await.unwrap_err();
    assert!(err.contains("404") && err.contains("no such page"), "{err}");
    let huge = fetch(&t, format!("http://127.0.0.1:{port}/huge")).await.unwrap();
    assert!(
        huge.contains("cut at 80000 characters") && huge.contains("larger than 10 MB"),
        "{}",
        &huge[huge.len() - 200..]
    );
    assert!(huge.len() < 81_000, "{}", huge.len());
    let bin = fetch(&t, format!("http://127.0.0.1:{port}/binary")).await.unwrap_err();
    assert!(bin.contains("not text"));
    let refused = fetch(&t, "http://127.0.0.1:1/".into()).await.unwrap_err();
    assert!(refused.contains("failed"), "{refused}");
}
