//! The script's own thread: a QuickJS runtime with the prelude's globals and nothing
//! of the host (no file, process, network or module loader). It runs the script's
//! synchronous slices, asks the host for every `agent()` and timer over a channel, and
//! blocks for the answers; a slice that runs 30 s without giving way is stopped (an
//! endless loop), and so is everything when the host goes away.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use rquickjs::{CatchResultExt as _, Context, Ctx, Function, Object, Persistent, Promise, Runtime, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::{AgentCall, Progress, Script};

/// The longest agent prompt, and all prompts of a run together: what the script hands
/// the host is copied out of its heap, so it is bounded apart from the heap's limit.
const MAX_PROMPT_BYTES: usize = 1024 * 1024;
const MAX_PROMPTS_BYTES: usize = 64 * 1024 * 1024;
/// The longest progress line sent, and how many are sent at most (the rest are counted).
const MAX_LINE_BYTES: usize = 8 * 1024;
const MAX_LINES: usize = 10_000;
/// The largest value a script may return (as JSON).
const MAX_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// What the script's thread asks of the host.
pub(crate) enum ToHost {
    Agent {
        id: u64,
        call: AgentCall,
    },
    Sleep {
        id: u64,
        ms: u64,
    },
    Progress(Progress),
    /// The script ended: its value (JSON), or why it failed.
    Done(Result<serde_json::Value, crate::Rejection>),
}

/// The host's answer to a request.
pub(crate) struct Settled {
    pub(crate) id: u64,
    pub(crate) result: Result<serde_json::Value, crate::Rejection>,
}

/// What the script's thread is given.
pub(crate) struct VmSetup {
    pub(crate) script: Script,
    pub(crate) args: serde_json::Value,
    /// Asked (on the script's thread) for agent types and named workflows' sources.
    pub(crate) host: Arc<dyn crate::Host>,
    pub(crate) total: Option<u64>,
    pub(crate) spent: Arc<AtomicU64>,
    pub(crate) max_agents: usize,
    pub(crate) slice_limit: Duration,
    pub(crate) stop: Arc<AtomicBool>,
}

struct Pending {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

#[derive(Default)]
struct State {
    next: u64,
    agents: usize,
    pending: HashMap<u64, Pending>,
    prompt_bytes: usize,
    lines: usize,
}

/// Run the script to its end on this thread, reporting to `to_host`.
pub(crate) fn run(setup: VmSetup, to_host: UnboundedSender<ToHost>, answers: mpsc::Receiver<Settled>) {
    let done = run_inner(&setup, &to_host, &answers);
    let _ = to_host.send(ToHost::Done(done));
}

fn run_inner(
    setup: &VmSetup,
    to_host: &UnboundedSender<ToHost>,
    answers: &mpsc::Receiver<Settled>,
) -> Result<serde_json::Value, crate::Rejection> {
    let rt = Runtime::new().map_err(|e| format!("the script engine did not start: {e}"))?;
    rt.set_memory_limit(256 * 1024 * 1024);
    rt.set_max_stack_size(1024 * 1024);
    let slice_started: Arc<Mutex<Option<Instant>>> = Arc::default();
    let timed_out = Arc::new(AtomicBool::new(false));
    {
        let started = slice_started.clone();
        let stop = setup.stop.clone();
        let limit = setup.slice_limit;
        let timed_out = timed_out.clone();
        rt.set_interrupt_handler(Some(Box::new(move || {
            if started.lock().is_ok_and(|s| s.is_some_and(|at| at.elapsed() > limit)) {
                timed_out.store(true, Ordering::Relaxed);
            }
            stop.load(Ordering::Relaxed) || timed_out.load(Ordering::Relaxed)
        })));
    }
    let ctx = Context::full(&rt).map_err(|e| format!("the script engine did not start: {e}"))?;
    let state = std::rc::Rc::new(std::cell::RefCell::new(State::default()));
    let slice = |f: &mut dyn FnMut()| {
        if let Ok(mut s) = slice_started.lock() {
            *s = Some(Instant::now());
        }
        f();
        if let Ok(mut s) = slice_started.lock() {
            *s = None;
        }
    };

    // The prelude, then the script called with its args.
    let mut outcome: Result<Persistent<Promise<'static>>, crate::Rejection> = Err("the script did not start".into());
    slice(&mut || {
        outcome = ctx.with(|ctx| {
            let native = native(&ctx, setup, to_host, &state).catch(&ctx).map_err(|e| e.to_string())?;
            let prelude: Function = ctx.eval(include_str!("prelude.js")).catch(&ctx).map_err(|e| e.to_string())?;
            prelude.call::<_, ()>((native,)).catch(&ctx).map_err(|e| e.to_string())?;
            let main: Function =
                ctx.eval(setup.script.function_source()).catch(&ctx).map_err(|e| describe(&e.to_string(), true))?;
            let args = ctx.json_parse(setup.args.to_string()).catch(&ctx).map_err(|e| e.to_string())?;
            let workflow: Value = ctx.globals().get("workflow").catch(&ctx).map_err(|e| e.to_string())?;
            let promise: Promise =
                main.call((args, workflow)).catch(&ctx).map_err(|e| describe(&e.to_string(), true))?;
            Ok(Persistent::save(&ctx, promise))
        });
    });
    let result = match outcome {
        Ok(promise) => settle(&rt, &ctx, setup, &state, answers, &promise, &slice),
        Err(e) => Err(e),
    };
    // However it failed, a slice that ran out of time is said as such.
    let result = result
        .map_err(|e| if timed_out.load(Ordering::Relaxed) { describe_timeout(setup.slice_limit).into() } else { e });
    // What the host's functions keep of the script goes before the runtime does.
    state.borrow_mut().pending.clear();
    result
}

/// Run the script's jobs, and hand it the host's answers, until its promise settles.
fn settle(
    rt: &Runtime,
    ctx: &Context,
    setup: &VmSetup,
    state: &std::rc::Rc<std::cell::RefCell<State>>,
    answers: &mpsc::Receiver<Settled>,
    promise: &Persistent<Promise<'static>>,
    slice: &dyn Fn(&mut dyn FnMut()),
) -> Result<serde_json::Value, crate::Rejection> {
    loop {
        if setup.stop.load(Ordering::Relaxed) {
            return Err("stopped".into());
        }
        let mut job_error = None;
        slice(&mut || {
            loop {
                match rt.execute_pending_job() {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(e) => {
                        job_error = Some(e.to_string());
                        break;
                    }
                }
            }
        });
        if let Some(e) = job_error {
            return Err(describe(&e, false).into());
        }
        // Reading the value runs the script's code too (toJSON, getters): a slice.
        let mut settled = None;
        slice(&mut || {
            settled = ctx.with(|ctx| -> Option<Result<serde_json::Value, crate::Rejection>> {
                let p = promise.clone().restore(&ctx).ok()?;
                match p.state() {
                    rquickjs::promise::PromiseState::Pending => None,
                    rquickjs::promise::PromiseState::Resolved => Some(
                        p.result::<Value>()
                            .and_then(|r| r.ok())
                            .map(|v| to_json(&ctx, v))
                            .unwrap_or(Ok(serde_json::Value::Null)),
                    ),
                    rquickjs::promise::PromiseState::Rejected => {
                        let why = match p.result::<Value>() {
                            Some(Err(rquickjs::Error::Exception)) => error_text(&ctx, ctx.catch()),
                            Some(Ok(v)) => error_text(&ctx, v),
                            Some(Err(e)) => e.to_string(),
                            None => "the script failed".into(),
                        };
                        Some(Err(describe(&why, false).into()))
                    }
                }
            });
        });
        if let Some(result) = settled {
            return result;
        }
        if state.borrow().pending.is_empty() {
            return Err("the script is waiting for a promise nothing will settle".into());
        }
        let Ok(answer) = answers.recv() else { return Err("stopped".into()) };
        let Some(p) = state.borrow_mut().pending.remove(&answer.id) else { continue };
        slice(&mut || {
            ctx.with(|ctx| {
                let (Ok(resolve), Ok(reject)) = (p.resolve.clone().restore(&ctx), p.reject.clone().restore(&ctx))
                else {
                    return;
                };
                let _ = match &answer.result {
                    Ok(v) => match ctx.json_parse(v.to_string()) {
                        Ok(js) => resolve.call::<_, ()>((js,)),
                        Err(e) => {
                            reject.call::<_, ()>((rquickjs::Exception::from_message(ctx.clone(), &e.to_string()),))
                        }
                    },
                    Err(why) => match rquickjs::Exception::from_message(ctx.clone(), &why.0) {
                        Ok(err) => reject.call::<_, ()>((err,)),
                        Err(e) => Err(e),
                    },
                };
            });
        });
    }
}

/// The host's side of the prelude: `native.agent`, `sleep`, `progress`, `spent`,
/// `source` and `total`.
fn native<'js>(
    ctx: &Ctx<'js>,
    setup: &VmSetup,
    to_host: &UnboundedSender<ToHost>,
    state: &std::rc::Rc<std::cell::RefCell<State>>,
) -> rquickjs::Result<Object<'js>> {
    let native = Object::new(ctx.clone())?;
    let request = {
        let state = state.clone();
        move |ctx: &Ctx<'js>| -> rquickjs::Result<(u64, Promise<'js>)> {
            let (promise, resolve, reject) = ctx.promise()?;
            let mut s = state.borrow_mut();
            s.next += 1;
            let id = s.next;
            s.pending
                .insert(id, Pending { resolve: Persistent::save(ctx, resolve), reject: Persistent::save(ctx, reject) });
            Ok((id, promise))
        }
    };
    {
        let request = request.clone();
        let to_host = to_host.clone();
        let state = state.clone();
        let host = setup.host.clone();
        let (max, total, spent) = (setup.max_agents, setup.total, setup.spent.clone());
        native.set(
            "agent",
            Function::new(ctx.clone(), move |ctx: Ctx<'js>, prompt: String, opts: String| {
                let call: AgentCall = serde_json::from_str(&opts)
                    .map_err(|e| rquickjs::Exception::throw_type(&ctx, &format!("agent() options: {e}")))?;
                if let Some(kind) = call.agent_type.as_deref() {
                    host.agent_type_known(kind).map_err(|e| rquickjs::Exception::throw_message(&ctx, &e.0))?;
                }
                if call.isolation.as_deref() == Some("remote") {
                    return Err(rquickjs::Exception::throw_message(
                        &ctx,
                        "agent({isolation: 'remote'}) is not available in rein",
                    ));
                }
                if total.is_some_and(|t| spent.load(Ordering::Relaxed) >= t) {
                    return Err(rquickjs::Exception::throw_message(&ctx, "the token budget is spent: no more agents"));
                }
                if prompt.len() > MAX_PROMPT_BYTES {
                    let m = format!("an agent prompt may have {MAX_PROMPT_BYTES} bytes; this one has {}", prompt.len());
                    return Err(rquickjs::Exception::throw_message(&ctx, &m));
                }
                if state.borrow().prompt_bytes + prompt.len() > MAX_PROMPTS_BYTES {
                    let m = format!("a workflow's prompts may have {MAX_PROMPTS_BYTES} bytes in all");
                    return Err(rquickjs::Exception::throw_message(&ctx, &m));
                }
                if state.borrow().agents >= max {
                    return Err(rquickjs::Exception::throw_message(
                        &ctx,
                        &format!("a workflow runs at most {max} agents (a loop that never ends?)"),
                    ));
                }
                {
                    let mut s = state.borrow_mut();
                    s.agents += 1;
                    s.prompt_bytes += prompt.len();
                }
                let (id, promise) = request(&ctx)?;
                let _ = to_host.send(ToHost::Agent { id, call: AgentCall { prompt, ..call } });
                Ok::<_, rquickjs::Error>(promise)
            })?,
        )?;
    }
    {
        let to_host = to_host.clone();
        native.set(
            "sleep",
            Function::new(ctx.clone(), move |ctx: Ctx<'js>, ms: f64| {
                let (id, promise) = request(&ctx)?;
                let ms = if ms.is_finite() && ms > 0.0 { ms.min(3_600_000.0) as u64 } else { 0 };
                let _ = to_host.send(ToHost::Sleep { id, ms });
                Ok::<_, rquickjs::Error>(promise)
            })?,
        )?;
    }
    {
        let to_host = to_host.clone();
        let state = state.clone();
        native.set(
            "progress",
            Function::new(ctx.clone(), move |kind: String, mut text: String| {
                let sent = {
                    let mut s = state.borrow_mut();
                    s.lines += 1;
                    s.lines
                };
                if sent > MAX_LINES + 1 {
                    return;
                }
                if sent == MAX_LINES + 1 {
                    text = format!("(more than {MAX_LINES} lines: the rest are not shown)");
                }
                if text.len() > MAX_LINE_BYTES {
                    let cut = (0..=MAX_LINE_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
                    text.truncate(cut);
                }
                let p = if kind == "phase" { Progress::Phase(text) } else { Progress::Log(text) };
                let _ = to_host.send(ToHost::Progress(p));
            })?,
        )?;
    }
    {
        let spent = setup.spent.clone();
        native.set("spent", Function::new(ctx.clone(), move || spent.load(Ordering::Relaxed) as f64)?)?;
    }
    {
        let host = setup.host.clone();
        native.set(
            "source",
            Function::new(ctx.clone(), move |ctx: Ctx<'js>, key: String| {
                host.named(&key)
                    .and_then(|text| Script::parse(&text).map_err(|e| crate::Rejection(e.to_string())))
                    .map(|s| s.function_source())
                    .map_err(|e| rquickjs::Exception::throw_message(&ctx, &e.0))
            })?,
        )?;
    }
    match setup.total {
        Some(t) => native.set("total", t as f64)?,
        None => native.set("total", rquickjs::Null)?,
    }
    Ok(native)
}

fn to_json<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> Result<serde_json::Value, crate::Rejection> {
    if v.is_undefined() {
        return Ok(serde_json::Value::Null);
    }
    let text = ctx.json_stringify(v).map_err(|e| format!("the result is not JSON: {e}"))?;
    match text {
        Some(t) => {
            let t = t.to_string().map_err(|e| e.to_string())?;
            if t.len() > MAX_RESULT_BYTES {
                return Err(format!(
                    "the result is {} bytes of JSON; a workflow may return {MAX_RESULT_BYTES}",
                    t.len()
                )
                .into());
            }
            serde_json::from_str(&t).map_err(|e| crate::Rejection(format!("the result is not JSON: {e}")))
        }
        None => Ok(serde_json::Value::Null),
    }
}

/// An error value's message and where it was thrown.
fn error_text<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> String {
    if let Some(e) = v.as_exception() {
        let message = e.message().unwrap_or_default();
        return match e.stack() {
            Some(stack) if !stack.trim().is_empty() => format!("{message}\n{}", stack.trim_end()),
            _ => message,
        };
    }
    to_json(ctx, v).map(|j| j.to_string()).unwrap_or_else(|e| e.0)
}

fn describe_timeout(limit: Duration) -> String {
    format!("the script ran {} s without waiting for anything (an endless loop?) and was stopped", limit.as_secs_f64())
}

/// A failure as the person reads it.
fn describe(text: &str, starting: bool) -> String {
    if starting {
        return format!("the script does not start: {text}");
    }
    text.to_string()
}
