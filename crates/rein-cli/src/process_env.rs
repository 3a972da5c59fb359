//! The session's own variables (its settings' `env`) in rein's process environment.
//!
//! rein's libraries never set the environment: resolving keeps the settings' `env` as
//! data and the builder lays it over every lookup and every process rein starts
//! (`rein_process::env`). But libraries not of rein's read the process environment
//! themselves — reqwest's proxies (`HTTPS_PROXY`, `NO_PROXY`), the certificate store
//! (`SSL_CERT_FILE`), the AWS and Google credential chains (`AWS_PROFILE`,
//! `GOOGLE_APPLICATION_CREDENTIALS`) — and Claude Code's settings set them there. So
//! the binary puts the variables into its own environment, once, right after resolving
//! and while it is still its only thread (its runtime runs on this thread; none other
//! has started), which is when setting it is sound.

use rein_session::Setup;

/// Resolve the configuration, then lay its variables into the process environment.
pub(crate) fn resolve(options: &rein_session::Options) -> anyhow::Result<Setup> {
    let setup = Setup::from_options(options)?;
    apply(setup.session_vars());
    Ok(setup)
}

fn apply(vars: &[(String, String)]) {
    if vars.is_empty() {
        return;
    }
    if !only_thread() {
        crate::messages::note_message!(
            "the settings' env reaches rein's own lookups and commands only (threads were running)"
        );
        return;
    }
    rein_process::env::keep_started_with();
    for (key, value) in vars {
        // SAFETY: this process has exactly one thread (checked just above, from the
        // kernel's list of its tasks), so nothing reads the environment concurrently.
        unsafe { std::env::set_var(key, value) };
    }
}

/// Whether this process has one thread, as the kernel lists them.
fn only_thread() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.count() == 1)
}
