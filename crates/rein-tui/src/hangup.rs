//! The terminal went away (it closed, or a background session's host was told to stop
//! it): SIGHUP or SIGTERM ends the session as quitting does, instead of the default
//! death that would leave its commands running.

/// SIGHUP and SIGTERM: the terminal closed, or the session was told to end.
pub(crate) struct Hangup {
    #[cfg(unix)]
    signals: Vec<tokio::signal::unix::Signal>,
}

impl Hangup {
    pub(crate) fn listen() -> Hangup {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let signals = [SignalKind::hangup(), SignalKind::terminate()].into_iter().filter_map(|k| signal(k).ok());
            Hangup { signals: signals.collect() }
        }
        #[cfg(not(unix))]
        Hangup {}
    }

    /// The next one.
    pub(crate) async fn next(&mut self) {
        #[cfg(unix)]
        if !self.signals.is_empty() {
            let waits = self.signals.iter_mut().map(|s| Box::pin(s.recv()));
            futures::future::select_all(waits).await;
            return;
        }
        std::future::pending::<()>().await;
    }
}
