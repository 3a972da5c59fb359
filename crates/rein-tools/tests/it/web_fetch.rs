//! WebFetch against a local HTTP server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use common::Tools;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

async fn serve() -> u16 {
    serve_counting(Arc::default()).await
}

/// The server, counting the requests for `/counted`.
async fn serve_counting(hits: Arc<AtomicUsize>) -> u16 {
    let app = axum::Router::new()
        .route(
            "/counted",
            get(move || {
                let n = hits.fetch_add(1, Ordering::SeqCst) + 1;
                async move { ([(header::CONTENT_TYPE, "text/html")], format!("<p>visit {n}</p>")) }
            }),
        )
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
    assert!(out.starts_with("Not followed") && out.contains("http://localhost:1/page"), "{out}");
}

#[tokio::test]
async fn errors_caps_and_non_text() {
    let port = serve().await;
    let t = Tools::new();
    assert!(fetch(&t, format!("http://127.0.0.1:{port}/plain")).await.unwrap().contains("\n\njust text\n\n"));
    let err = fetch(&t, format!("http://127.0.0.1:{port}/missing")).await.unwrap_err();
    assert!(err.contains("404") && err.contains("no such page"), "{err}");
    let huge = fetch(&t, format!("http://127.0.0.1:{port}/huge")).await.unwrap();
    assert!(
        huge.contains("cut at 100000 characters") && huge.contains("larger than 10 MB"),
        "{}",
        &huge[huge.len() - 400..]
    );
    assert!(huge.len() < 101_000, "{}", huge.len());
    let bin = fetch(&t, format!("http://127.0.0.1:{port}/binary")).await.unwrap_err();
    assert!(bin.contains("not text"));
    let refused = fetch(&t, "http://127.0.0.1:1/".into()).await.unwrap_err();
    assert!(refused.contains("failed"), "{refused}");
}

/// A digest that answers with what it was given, as the small model would be asked.
#[derive(Debug)]
struct EchoDigest;

impl rein_tools::PageDigest for EchoDigest {
    fn answer<'a>(
        &'a self,
        url: &'a str,
        page: &'a str,
        prompt: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<String, rein_tools::DigestError>> {
        Box::pin(async move { Ok(format!("ANSWER to {prompt:?} about {url} from {} chars", page.chars().count())) })
    }
}

#[tokio::test]
async fn the_digest_answers_and_the_whole_page_is_saved_for_a_later_read() {
    let port = serve().await;
    let mut t = Tools::new();
    t.ctx.digest = Some(Arc::new(EchoDigest));
    let url = format!("http://127.0.0.1:{port}/page");
    let out = fetch(&t, url.clone()).await.unwrap();
    assert!(out.starts_with(&format!("ANSWER to \"how to install\" about {url} from ")), "{out}");
    assert!(!out.contains("cargo build"), "the page itself is not in the result: {out}");
    let saved = out.split("saved at ").nth(1).and_then(|r| r.split("; Read").next()).unwrap();
    let page = std::fs::read_to_string(saved).unwrap();
    assert!(page.contains("# Install") && page.contains("`cargo build`"), "{page}");
    assert!(saved.starts_with(&t.ctx.session_dir.join("tool-results").display().to_string()), "{saved}");
}

#[tokio::test]
async fn a_page_is_fetched_once_in_fifteen_minutes() {
    let hits = Arc::new(AtomicUsize::new(0));
    let port = serve_counting(hits.clone()).await;
    let t = Tools::new();
    let url = format!("http://127.0.0.1:{port}/counted");
    assert!(fetch(&t, url.clone()).await.unwrap().contains("visit 1"));
    assert!(fetch(&t, url.clone()).await.unwrap().contains("visit 1"), "the second question reads the kept page");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}
