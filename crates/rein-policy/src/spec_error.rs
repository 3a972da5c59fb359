//! Why a rule's specifier does not parse.

/// Why a rule's specifier (what is in its parentheses) does not parse.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum SpecError {
    #[error("`{0}:` rules are for deny and ask lists only")]
    ParamInAllow(String),
    #[error("{0} rules take `domain:HOST`")]
    NotADomain(String),
    #[error("the domain is empty")]
    EmptyDomain,
    #[error(transparent)]
    Path(#[from] rein_effects::PathError),
    #[error("bad path pattern: {0}")]
    Glob(#[source] globset::Error),
}
