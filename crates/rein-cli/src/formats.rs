//! What `--input-format` and `--output-format` take.

use clap::ValueEnum;

/// `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InputFormat {
    Text,
    StreamJson,
}

/// `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    Text,
    Json,
    StreamJson,
}
