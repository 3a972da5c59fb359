//! SIGINT in headless mode: the first one interrupts the session (the request in flight
//! and every running tool are stopped and every unanswered call is answered); a second
//! one exits at once, after killing every process group rein started.

use tokio_util::sync::CancellationToken;

/// Watch for SIGINT while the session runs; abort the returned task when done.
pub(crate) fn watch(abort: CancellationToken) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        abort.cancel();
        if tokio::signal::ctrl_c().await.is_ok() {
            rein_tools::kill_all_process_groups();
            crate::messages::message!("interrupted twice; exiting now");
            std::process::exit(130);
        }
    })
}
