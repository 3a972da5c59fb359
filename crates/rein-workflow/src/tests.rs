//! The runtime against a host whose agents answer from their prompt.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::*;

#[derive(Default)]
struct Fake {
    calls: Mutex<Vec<AgentCall>>,
    progress: Mutex<Vec<Progress>>,
    named: Vec<(String, String)>,
}

impl Host for Fake {
    /// An agent answers `echo:<prompt>`, or `{"n": <prompt length>}` with a schema;
    /// a prompt with "fail" fails; "slow" takes 50 ms.
    fn agent(&self, _index: usize, call: AgentCall) -> BoxFuture<'static, Result<AgentAnswer, crate::Rejection>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).push(call.clone());
        Box::pin(async move {
            if call.prompt.contains("slow") {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            if call.prompt.contains("fail") {
                return Err("the agent failed".into());
            }
            let value = match call.schema {
                Some(_) => json!({ "n": call.prompt.len() }),
                None => Value::String(format!("echo:{}", call.prompt)),
            };
            Ok(AgentAnswer { value, output_tokens: 10, tool_uses: 1 })
        })
    }
    fn agent_type_known(&self, name: &str) -> Result<(), crate::Rejection> {
        if name == "Explore" { Ok(()) } else { Err(format!("no agent type {name:?}; the types are: Explore").into()) }
    }
    fn named(&self, key: &str) -> Result<String, crate::Rejection> {
        self.named
            .iter()
            .find(|(n, _)| n == key)
            .map(|(_, s)| s.clone())
            .ok_or_else(|| format!("no workflow {key:?}").into())
    }
    fn progress(&self, progress: Progress) {
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).push(progress);
    }
}

const HEAD: &str = "export const meta = { name: 't', description: 'a test' }\n";

/// A run's value, or its error; the run itself with the value.
async fn go(host: Arc<Fake>, body: &str, args: Value) -> Result<Done, WorkflowError> {
    go_within(host, body, args, Duration::from_millis(500)).await
}

/// [`go`] with `slice` as the longest the script may run without waiting.
async fn go_within(host: Arc<Fake>, body: &str, args: Value, slice: Duration) -> Result<Done, WorkflowError> {
    let script = Script::parse(&format!("{HEAD}{body}"))?;
    let mut f = run(script, args, host, Vec::new(), Limits { slice, ..Limits::default() }).await;
    let value = std::mem::replace(&mut f.result, Ok(Value::Null))?;
    Ok(Done { value, run: f })
}

#[derive(Debug)]
struct Done {
    value: Value,
    run: Finished,
}

#[tokio::test]
async fn agents_answer_and_the_script_returns_its_value() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "phase('One')\nconst a = await agent('hi')\nconst b = await agent('count', { schema: { type: 'object' }, label: 'counter' })\nlog(`got ${a}`)\nreturn { a, n: b.n, args }";
    let done = go(host.clone(), body, json!({ "x": 1 })).await?;
    assert_eq!(done.value, json!({ "a": "echo:hi", "n": 5, "args": { "x": 1 } }));
    assert_eq!((done.run.agents, done.run.output_tokens, done.run.tool_uses), (2, 20, 2));
    let calls = host.calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert_eq!(calls[0].phase.as_deref(), Some("One"));
    assert_eq!(calls[1].label.as_deref(), Some("counter"));
    let progress = host.progress.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert!(progress.contains(&Progress::Phase("One".into())));
    assert!(progress.contains(&Progress::Log("got echo:hi".into())));
    Ok(())
}

#[tokio::test]
async fn parallel_waits_for_all_and_a_failure_is_null() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "return await parallel([() => agent('slow a'), () => agent('fail b'), () => agent('c')])";
    let done = go(host, body, Value::Null).await?;
    assert_eq!(done.value, json!(["echo:slow a", null, "echo:c"]));
    Ok(())
}

#[tokio::test]
async fn parallel_refuses_promises_and_pipeline_runs_items_through_stages() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let e = go(host.clone(), "return await parallel([agent('a')])", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("not promises")), "{e:?}");
    let body = "return await pipeline(['x', 'fail', 'y'], (it) => agent(it), (r, it, i) => agent(`${r}/${it}/${i}`))";
    let done = go(host, body, Value::Null).await?;
    assert_eq!(done.value, json!(["echo:echo:x/x/0", null, "echo:echo:y/y/2"]));
    Ok(())
}

#[tokio::test]
async fn the_clock_and_chance_throw_when_reached_by_another_name() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "const D = Date; const M = Math; const out = [];\ntry { D.now() } catch (e) { out.push('now') }\ntry { M['ran' + 'dom']() } catch (e) { out.push('random') }\ntry { new D() } catch (e) { out.push('new') }\nout.push(new D(0).toISOString())\nreturn out";
    let done = go(host, body, Value::Null).await?;
    assert_eq!(done.value, json!(["now", "random", "new", "1970-01-01T00:00:00.000Z"]));
    Ok(())
}

#[tokio::test]
async fn the_script_has_no_host_access_and_an_endless_loop_is_stopped() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "return [typeof require, typeof process, typeof fetch, typeof std, typeof os]";
    assert_eq!(
        go(host.clone(), body, Value::Null).await?.value,
        json!(["undefined", "undefined", "undefined", "undefined", "undefined"])
    );
    let e = go(host, "while (true) {}", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("endless loop")), "{e:?}");
    Ok(())
}

#[tokio::test]
async fn an_unknown_agent_type_throws_before_any_agent_runs() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let e = go(host.clone(), "await agent('x', { agentType: 'Nope' })", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("the types are: Explore")), "{e:?}");
    assert!(host.calls.lock().unwrap_or_else(|p| p.into_inner()).is_empty());
    assert_eq!(
        go(host, "return await agent('x', { agentType: 'Explore' })", Value::Null).await?.value,
        json!("echo:x")
    );
    Ok(())
}

#[tokio::test]
async fn a_resumed_run_answers_the_unchanged_prefix_from_the_journal() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let first = go(
        host.clone(),
        "const a = await agent('one', {label: 'x'}); const b = await agent('two'); return [a, b, await agent('three')]",
        Value::Null,
    )
    .await?;
    assert_eq!(first.run.agents, 3);
    host.calls.lock().unwrap_or_else(|p| p.into_inner()).clear();
    // The label changed (not part of the key); the second prompt changed: it and what
    // follows run again.
    let script = Script::parse(&format!(
        "{HEAD}const a = await agent('one', {{label: 'y'}}); const b = await agent('TWO'); return [a, b, await agent('three')]"
    ))?;
    let again = run(script, Value::Null, host.clone(), first.run.journal, Limits::default()).await;
    assert_eq!(again.result?, json!(["echo:one", "echo:TWO", "echo:three"]));
    assert_eq!(again.cached, 1);
    let ran: Vec<String> =
        host.calls.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|c| c.prompt.clone()).collect();
    assert_eq!(ran, ["TWO", "three"]);
    Ok(())
}

#[tokio::test]
async fn workflow_runs_a_named_one_one_level_deep() -> Result<(), WorkflowError> {
    let child = format!("{HEAD}return await agent(`child ${{args.n}}`)");
    let grandchild = format!("{HEAD}return await workflow('child', {{ n: 1 }})");
    let host = Arc::new(Fake { named: vec![("child".into(), child), ("nests".into(), grandchild)], ..Fake::default() });
    let done = go(host.clone(), "return await workflow('child', { n: 21 })", Value::Null).await?;
    assert_eq!(done.value, json!("echo:child 21"));
    let e = go(host.clone(), "return await workflow('nests')", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("one level deep")), "{e:?}");
    let e = go(host, "return await workflow('missing')", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("no workflow \"missing\"")), "{e:?}");
    Ok(())
}

#[tokio::test]
async fn a_thrown_error_says_what_and_where() {
    let host = Arc::new(Fake::default());
    let e = go(host.clone(), "\n\nthrow new Error('bad input')", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("bad input")), "{e:?}");
    let e = go(host, "return (", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("does not start")), "{e:?}");
}

#[tokio::test]
async fn a_promise_nothing_settles_ends_the_run() {
    let host = Arc::new(Fake::default());
    let e = go(host, "await new Promise(() => {})", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("nothing will settle")), "{e:?}");
}

#[tokio::test]
async fn timers_fire_and_cleared_ones_do_not() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "const out = []; const t = setTimeout(() => out.push('cleared'), 5); clearTimeout(t);\nawait new Promise((r) => setTimeout(() => { out.push('fired'); r() }, 10));\nreturn out";
    assert_eq!(go(host, body, Value::Null).await?.value, json!(["fired"]));
    Ok(())
}

#[tokio::test]
async fn the_clock_stays_shut_through_the_prototype_and_performance_is_gone() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let body = "const out = [];\ntry { new (Date.prototype.constructor)() } catch (e) { out.push('ctor') }\ntry { Date.prototype.constructor.now() } catch (e) { out.push('ctor.now') }\nout.push(typeof performance)\nreturn out";
    assert_eq!(go(host, body, Value::Null).await?.value, json!(["ctor", "ctor.now", "undefined"]));
    Ok(())
}

#[tokio::test]
async fn code_run_while_reading_the_result_or_the_error_is_held_to_the_time_limit() {
    let host = Arc::new(Fake::default());
    let e = go(host.clone(), "return { toJSON() { for (;;) {} } }", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("endless loop")), "{e:?}");
    let body = "const e = new Error('x'); Object.defineProperty(e, 'message', { get() { for (;;) {} } }); throw e";
    let e = go(host.clone(), body, Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("endless loop")), "{e:?}");
    // A script's own error that says "interrupted" is its own message.
    let e = go(host, "throw new Error('interrupted by me')", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("interrupted by me")), "{e:?}");
}

#[tokio::test]
async fn what_a_script_hands_the_host_is_bounded() -> Result<(), WorkflowError> {
    let host = Arc::new(Fake::default());
    let e = go(host.clone(), "return await agent('x'.repeat(2 * 1024 * 1024))", Value::Null).await;
    assert!(matches!(&e, Err(WorkflowError::Failed(m)) if m.contains("may have")), "{e:?}");
    assert!(host.calls.lock().unwrap_or_else(|p| p.into_inner()).is_empty());
    // 12 000 logs in one slice: seconds on a loaded machine, so a slice long enough.
    let logs = "const s = 'y'.repeat(9000); for (let i = 0; i < 12000; i++) log(s); return 1";
    go_within(host.clone(), logs, Value::Null, Duration::from_secs(60)).await?;
    let progress = host.progress.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert!(progress.len() <= 10_001, "{} lines", progress.len());
    assert!(progress.iter().all(|p| !matches!(p, Progress::Log(t) if t.len() > 8 * 1024)));
    Ok(())
}

#[tokio::test]
async fn a_replaced_eval_does_not_see_a_nested_workflow_s_source() -> Result<(), WorkflowError> {
    let child = format!("{HEAD}// SECRET-IN-CHILD\nreturn 'child ran'");
    let host = Arc::new(Fake { named: vec![("child".into(), child)], ..Fake::default() });
    let body = "let seen = null; globalThis.eval = (s) => { seen = s; return async () => 'fake' };\nconst r = await workflow('child'); return [r, seen]";
    assert_eq!(go(host, body, Value::Null).await?.value, json!(["child ran", null]));
    Ok(())
}
