use super::*;

fn api(status: Option<u16>, kind: &str) -> ModelError {
    ModelError::Api { status, kind: kind.into(), message: String::new(), retry_after: None }
}

fn retries() -> Retries {
    Retries::new(10, Duration::from_millis(500))
}

#[test]
fn backoff_doubles_caps_and_honours_retry_after() {
    let base = Duration::from_millis(500);
    let d1 = backoff(1, base, None);
    let d3 = backoff(3, base, None);
    assert!(d1 >= Duration::from_millis(400) && d1 <= Duration::from_millis(600), "{d1:?}");
    assert!(d3 >= Duration::from_millis(1600) && d3 <= Duration::from_millis(2400), "{d3:?}");
    assert!(backoff(20, base, None) <= Duration::from_secs(39));
    assert_eq!(backoff(1, base, Some(Duration::from_secs(7))), Duration::from_secs(7));
}

#[test]
fn jitter_differs_between_retries_of_one_process() {
    let base = Duration::from_millis(500);
    let mut seen: Vec<Duration> = (0..16).map(|_| backoff(2, base, None)).collect();
    seen.sort();
    seen.dedup();
    assert!(seen.len() > 4, "the same delays again and again: {seen:?}");
}

#[test]
fn what_is_retried() {
    assert!(retryable(&api(Some(529), "overloaded_error")));
    assert!(retryable(&api(Some(429), "rate_limit_error")));
    assert!(retryable(&api(None, "overloaded_error")));
    assert!(retryable(&ModelError::Incomplete));
    for s in [400, 401, 403, 404] {
        assert!(!retryable(&api(Some(s), "x")), "{s}");
    }
}

#[test]
fn transient_failures_are_retried_up_to_the_maximum_then_given_up() {
    let mut r = Retries::new(3, Duration::from_millis(1));
    for n in 1..=3 {
        match r.next(&api(Some(500), "api_error"), false) {
            Recovery::Retry { attempt, fall_back: false, .. } => assert_eq!(attempt, n),
            other => panic!("attempt {n}: {other:?}"),
        }
    }
    assert_eq!(r.next(&api(Some(500), "api_error"), false), Recovery::GiveUp);
    assert_eq!(retries().next(&api(Some(400), "invalid_request_error"), true), Recovery::GiveUp);
}

#[test]
fn a_server_s_retry_after_sets_the_wait() {
    let error = ModelError::Api {
        status: Some(429),
        kind: "rate_limit_error".into(),
        message: String::new(),
        retry_after: Some(Duration::from_secs(9)),
    };
    assert!(matches!(retries().next(&error, false), Recovery::Retry { delay, .. } if delay == Duration::from_secs(9)));
}

#[test]
fn a_rejected_key_is_read_again_once() {
    let mut r = retries();
    let rejected = api(Some(401), "authentication_error");
    assert_eq!(r.next(&rejected, false), Recovery::RefreshCredentials);
    assert_eq!(r.next(&rejected, false), Recovery::GiveUp, "a second 401 is the turn's");
}

#[test]
fn a_prompt_too_long_is_compacted_once() {
    let mut r = retries();
    let long = api(Some(400), "invalid_request_error");
    let long = match long {
        ModelError::Api { status, kind, retry_after, .. } => ModelError::Api {
            status,
            kind,
            retry_after,
            message: "prompt is too long: 250000 tokens > 200000 maximum".into(),
        },
        other => other,
    };
    assert_eq!(r.next(&long, false), Recovery::Compact);
    assert_eq!(r.next(&long, false), Recovery::GiveUp);
}

#[test]
fn three_overloads_in_a_row_switch_to_the_fallback_model_once_there_is_one() {
    let overloaded = api(Some(529), "overloaded_error");
    let mut r = retries();
    let steps: Vec<bool> = (0..3)
        .map(|_| match r.next(&overloaded, true) {
            Recovery::Retry { fall_back, .. } => fall_back,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(steps, [false, false, true]);
    // Another failure between overloads starts the count again; no fallback, no switch.
    let mut r = retries();
    r.next(&overloaded, true);
    r.next(&overloaded, true);
    r.next(&api(Some(500), "api_error"), true);
    assert!(matches!(r.next(&overloaded, true), Recovery::Retry { fall_back: false, .. }));
    let mut r = retries();
    let last = (0..3).map(|_| r.next(&overloaded, false)).last();
    assert!(matches!(last, Some(Recovery::Retry { fall_back: false, .. })));
}
