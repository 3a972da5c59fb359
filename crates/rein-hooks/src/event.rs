//! Hook event names (spec §A4): the events rein fires, and the other events of Claude
//! Code's that a user's configuration may name (accepted, never fired yet). Any other
//! name in a `hooks` block is a mistake and stops rein at start.

use std::fmt;

macro_rules! events {
    ($($name:ident $fired:literal),* $(,)?) => {
        /// A hook event.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum HookEvent {
            $($name),*
        }

        impl HookEvent {
            /// Every event, in the order of spec §A4.
            pub const ALL: &'static [HookEvent] = &[$(HookEvent::$name),*];

            /// The name used in settings and in `hook_event_name`.
            pub fn name(self) -> &'static str {
                match self {
                    $(HookEvent::$name => stringify!($name)),*
                }
            }

            /// Whether rein fires this event (the others are accepted in settings).
            pub fn fired_by_rein(self) -> bool {
                match self {
                    $(HookEvent::$name => $fired),*
                }
            }
        }
    };
}

events! {
    SessionStart true,
    Setup true,
    InstructionsLoaded true,
    UserPromptSubmit true,
    UserPromptExpansion true,
    MessageDisplay true,
    PreToolUse true,
    PermissionRequest true,
    PermissionDenied true,
    PostToolUse true,
    PostToolUseFailure true,
    PostToolBatch true,
    Notification true,
    SubagentStart true,
    SubagentStop true,
    TaskCreated true,
    TaskCompleted true,
    Stop true,
    StopFailure true,
    TeammateIdle true,
    ConfigChange true,
    CwdChanged true,
    DirectoryAdded true,
    FileChanged true,
    WorktreeCreate true,
    WorktreeRemove true,
    PreCompact true,
    PostCompact true,
    Elicitation true,
    ElicitationResult true,
    PreModelSwitch true,
    PostModelSwitch true,
    PreSkillShellCommand true,
    SessionEnd true,
}

impl HookEvent {
    /// The event named `name`, exactly as Claude Code spells it.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The event whose name is closest to `name` (for a misspelt one).
    pub fn nearest(name: &str) -> HookEvent {
        let distance =
            |e: &HookEvent| strsim::damerau_levenshtein(&name.to_ascii_lowercase(), &e.name().to_ascii_lowercase());
        HookEvent::ALL.iter().copied().min_by_key(distance).unwrap_or(HookEvent::PreToolUse)
    }

    /// Whether the event is about one tool call (a handler's `if` rule applies).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::PermissionRequest
                | HookEvent::PermissionDenied
        )
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.name()), Some(*e));
        }
        assert_eq!(HookEvent::parse("PreToolUsee"), None);
        assert_eq!(HookEvent::parse("pretooluse"), None);
        assert_eq!(HookEvent::nearest("PreToolUsee"), HookEvent::PreToolUse);
        assert_eq!(HookEvent::nearest("subagentstop"), HookEvent::SubagentStop);
        assert_eq!(HookEvent::nearest("PostCompcat"), HookEvent::PostCompact);
    }
}
