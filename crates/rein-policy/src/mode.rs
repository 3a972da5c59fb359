//! Permission modes (spec §B5): default, acceptEdits, plan, dontAsk, bypassPermissions,
//! and auto (the rules decide as in default; what they would ask, a judge model decides
//! first — see the engine's gate).

/// Permission modes (spec §B5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    DontAsk,
    BypassPermissions,
    /// Questions the rules leave open go to the auto-mode judge first.
    Auto,
}

impl PermissionMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "dontAsk" => PermissionMode::DontAsk,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "auto" => PermissionMode::Auto,
            _ => return None,
        })
    }

    /// How much the mode lets through without a question, least first: dontAsk, plan,
    /// default, acceptEdits, auto, bypassPermissions.
    pub fn permissiveness(self) -> u8 {
        match self {
            PermissionMode::DontAsk => 0,
            PermissionMode::Plan => 1,
            PermissionMode::Default => 2,
            PermissionMode::AcceptEdits => 3,
            PermissionMode::Auto => 4,
            PermissionMode::BypassPermissions => 5,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Auto => "auto",
        }
    }
}
