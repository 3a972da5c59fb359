//! The credentials a home directory commonly holds (the list is `rein_effects`'s). rein's
//! own jails (a command it judged read-only, a workspace command it allowed, a command
//! tried first) mask them, whatever the person's `denyRead` says: rein's judgement never
//! grants them.

pub use rein_effects::credentials::in_home;
