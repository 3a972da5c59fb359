//! In the interactive session, a sandboxed command's connection to a host no rule names
//! is put to the person; yes lets it through, no refuses it.

use crate::common::{Env, have_bwrap, http_answering, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn an_unknown_host_is_asked_about_and_the_answer_decides() {
    if !have_bwrap() {
        return;
    }
    let port = http_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nHELLO\n");
    let fetch_from = |host: &str, file: &str| {
        format!(
            "python3 -c \"import os,urllib.request as u; [os.environ.pop(k, None) for k in ('NO_PROXY', 'no_proxy')]; \
         o=u.build_opener(u.ProxyHandler({{'http': os.environ['HTTP_PROXY']}})); \
         f=open('{file}', 'w'); f.write('got ' + o.open('http://{host}:{port}/', timeout=20).read().decode())\""
        )
    };
    let env = Env::new();
    env.write(
        ".claude/settings.json",
        r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash(python3 *)"]}}"#,
    );
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": fetch_from("127.0.0.1", "fetched.txt")}))]),
        reply([text("Fetched."), call("b", "Bash", json!({"command": fetch_from("localhost", "second.txt")}))]),
        reply([text("Refused.")]),
    ]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("fetch it");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for(&format!("wants to connect to 127.0.0.1:{port}"));
    assert!(screen.contains("Do you want to proceed?"), "{screen}");
    pane.keys(&["1"]);
    pane.wait_for("Fetched.");
    let fetched = std::fs::read_to_string(env.cwd().join("fetched.txt")).unwrap_or_default();
    assert!(fetched.contains("got HELLO"), "{fetched}");
    // Another host: asked again; Esc refuses it, and the command sees a 403.
    pane.wait_for(&format!("wants to connect to localhost:{port}"));
    pane.keys(&["Escape"]);
    pane.wait_for("Refused.");
    let second = std::fs::read_to_string(env.cwd().join("second.txt")).unwrap_or_default();
    assert!(!second.contains("HELLO"), "{second}");
    let reqs = server.requests();
    let result = crate::common::tool_result(reqs[2].body["messages"].as_array().unwrap(), "b");
    assert!(result.1 && result.0.contains("403") && result.0.contains("refused"), "{result:?}");
}
