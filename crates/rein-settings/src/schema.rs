//! Claude Code's settings keys, each with how its values merge across scopes and whether
//! rein acts on it — one table from which `rein doctor`, the start-up warnings and the
//! documentation's table (`docs/settings.md`) are made. Nothing a user writes is ignored
//! without a word: a key is honoured, named as not supported, or named as having no
//! meaning for rein (a desktop app's or Claude.ai's); a key the table does not know is
//! named as unknown. The names are Claude Code's (its public settings schema); the
//! classification is rein's.

use crate::{Settings, SettingsFile};

/// How a key's values from several scopes combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// The most specific scope that sets it wins.
    Highest,
    /// Lists are joined (duplicates dropped).
    Union,
    /// Objects merge key by key, the most specific scope winning each key.
    ByKey,
    /// A wall: any scope may make it stricter; a repository's scope never loosens it.
    Tighten,
}

impl Merge {
    pub fn describe(self) -> &'static str {
        match self {
            Merge::Highest => "most specific wins",
            Merge::Union => "joined",
            Merge::ByKey => "merged key by key",
            Merge::Tighten => "stricter wins",
        }
    }
}

/// Whether rein acts on a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    Honoured,
    /// Claude Code acts on it; rein does not yet. Named at start.
    NotSupported,
    /// It concerns something rein does not have (why): named by `rein doctor`.
    NotApplicable(&'static str),
}

/// One key of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub name: &'static str,
    pub merge: Merge,
    pub support: Support,
}

const fn key(name: &'static str, merge: Merge, support: Support) -> Key {
    Key { name, merge, support }
}

/// The top-level keys.
pub const TOP_LEVEL: &[Key] = &[
    key("$schema", Merge::Highest, Support::Honoured),
    key("advisorModel", Merge::Highest, Support::NotSupported),
    key("agent", Merge::Highest, Support::NotSupported),
    key("agentPushNotifEnabled", Merge::Highest, Support::NotApplicable("rein sends no phone notifications")),
    key("allowAllClaudeAiMcps", Merge::Highest, Support::NotApplicable("rein connects no claude.ai connectors")),
    key("allowedChannelPlugins", Merge::Union, Support::NotApplicable("rein has no channels")),
    key("allowedHttpHookUrls", Merge::Union, Support::NotSupported),
    key("allowedMcpServers", Merge::Union, Support::Honoured),
    key("allowManagedHooksOnly", Merge::Tighten, Support::Honoured),
    key("allowManagedMcpServersOnly", Merge::Tighten, Support::Honoured),
    key("allowManagedPermissionRulesOnly", Merge::Tighten, Support::Honoured),
    key("alwaysThinkingEnabled", Merge::Highest, Support::Honoured),
    key("apiKeyHelper", Merge::Highest, Support::Honoured),
    key("askUserQuestionTimeout", Merge::Highest, Support::NotSupported),
    key("attribution", Merge::ByKey, Support::Honoured),
    key("autoCompactEnabled", Merge::Highest, Support::Honoured),
    key("autoConnectIde", Merge::Highest, Support::NotApplicable("rein has no IDE connection")),
    key("autoInstallIdeExtension", Merge::Highest, Support::NotApplicable("rein has no IDE connection")),
    key("autoMemoryDirectory", Merge::Highest, Support::Honoured),
    key("autoMemoryEnabled", Merge::Highest, Support::Honoured),
    key("autoMode", Merge::ByKey, Support::NotSupported),
    key("autoScrollEnabled", Merge::Highest, Support::NotSupported),
    key("autoUpdatesChannel", Merge::Highest, Support::NotApplicable("rein has no self-updater")),
    key("availableModels", Merge::Union, Support::Honoured),
    key("awaySummaryEnabled", Merge::Highest, Support::NotSupported),
    key("awsAuthRefresh", Merge::Highest, Support::NotSupported),
    key("awsCredentialExport", Merge::Highest, Support::NotSupported),
    key("axScreenReader", Merge::Highest, Support::NotSupported),
    key("blockedMarketplaces", Merge::Union, Support::NotSupported),
    key("browserExternalPageTools", Merge::Highest, Support::NotApplicable("desktop app only")),
    key("channelsEnabled", Merge::Highest, Support::NotApplicable("rein has no channels")),
    key("claudeMd", Merge::Highest, Support::NotSupported),
    key("claudeMdExcludes", Merge::Union, Support::Honoured),
    key("cleanupPeriodDays", Merge::Highest, Support::Honoured),
    key("companyAnnouncements", Merge::Union, Support::NotSupported),
    key("defaultShell", Merge::Highest, Support::NotSupported),
    key("deniedMcpServers", Merge::Tighten, Support::Honoured),
    key("diffTool", Merge::Highest, Support::NotApplicable("rein has no IDE connection")),
    key("disableAgentView", Merge::Highest, Support::NotSupported),
    key("disableAllHooks", Merge::Tighten, Support::Honoured),
    key("disableArtifact", Merge::Highest, Support::NotApplicable("rein has no Artifact tool")),
    key("disableAutoMode", Merge::Tighten, Support::Honoured),
    key("disableBrowserExternalNavigation", Merge::Highest, Support::NotApplicable("desktop app only")),
    key("disableBundledSkills", Merge::Highest, Support::NotSupported),
    key("disableClaudeAiConnectors", Merge::Highest, Support::NotApplicable("rein connects no claude.ai connectors")),
    key("disableDeepLinkRegistration", Merge::Highest, Support::NotApplicable("rein registers no URL handler")),
    key("disabledMcpjsonServers", Merge::Union, Support::Honoured),
    key("disableMobileSimulatorTools", Merge::Highest, Support::NotApplicable("desktop app only")),
    key("disableRemoteControl", Merge::Highest, Support::NotApplicable("rein has no Remote Control")),
    key("disableSideloadFlags", Merge::Highest, Support::NotSupported),
    key("disableSkillShellExecution", Merge::Tighten, Support::Honoured),
    key("disableWorkflows", Merge::Tighten, Support::Honoured),
    key("editorMode", Merge::Highest, Support::Honoured),
    key("effortLevel", Merge::Highest, Support::Honoured),
    key("emojiCompletionEnabled", Merge::Highest, Support::NotSupported),
    key("enableAllProjectMcpServers", Merge::Highest, Support::Honoured),
    key("enableArtifact", Merge::Highest, Support::NotApplicable("rein has no Artifact tool")),
    key("enabledMcpjsonServers", Merge::Union, Support::Honoured),
    key("enabledPlugins", Merge::ByKey, Support::Honoured),
    key("enforceAvailableModels", Merge::Highest, Support::NotSupported),
    key("env", Merge::ByKey, Support::Honoured),
    key("externalEditorContext", Merge::Highest, Support::NotSupported),
    key("extraKnownMarketplaces", Merge::ByKey, Support::Honoured),
    key("fallbackModel", Merge::Union, Support::Honoured),
    key("fastMode", Merge::Highest, Support::NotSupported),
    key("fastModePerSessionOptIn", Merge::Highest, Support::NotSupported),
    key("feedbackSurveyRate", Merge::Highest, Support::NotApplicable("rein shows no survey")),
    key("fileCheckpointingEnabled", Merge::Highest, Support::Honoured),
    key("fileSuggestion", Merge::ByKey, Support::NotSupported),
    key("footerLinksRegexes", Merge::Union, Support::NotSupported),
    key("forceLoginGatewayUrl", Merge::Highest, Support::NotApplicable("rein has no Claude.ai login")),
    key("forceLoginMethod", Merge::Highest, Support::NotApplicable("rein has no Claude.ai login")),
    key("forceLoginOrgUUID", Merge::Highest, Support::NotApplicable("rein has no Claude.ai login")),
    key("forceRemoteSettingsRefresh", Merge::Highest, Support::NotApplicable("rein fetches no remote settings")),
    key("gcpAuthRefresh", Merge::Highest, Support::NotSupported),
    key("hooks", Merge::ByKey, Support::Honoured),
    key("httpHookAllowedEnvVars", Merge::Union, Support::NotSupported),
    key("includeCoAuthoredBy", Merge::Highest, Support::Honoured),
    key("includeGitInstructions", Merge::Highest, Support::Honoured),
    key("inputNeededNotifEnabled", Merge::Highest, Support::NotApplicable("rein sends no phone notifications")),
    key("language", Merge::Highest, Support::Honoured),
    key("lspServers", Merge::ByKey, Support::Honoured),
    key("managedMcpServers", Merge::Union, Support::NotApplicable("desktop app only")),
    key("minimumVersion", Merge::Highest, Support::NotApplicable("rein has no self-updater")),
    key("model", Merge::Highest, Support::Honoured),
    key("modelOverrides", Merge::ByKey, Support::NotSupported),
    key("otelHeadersHelper", Merge::Highest, Support::NotSupported),
    key("outputStyle", Merge::Highest, Support::Honoured),
    key("parentSettingsBehavior", Merge::Highest, Support::NotApplicable("no SDK parent tier in rein")),
    key("permissionExplainerEnabled", Merge::Highest, Support::NotSupported),
    key("permissions", Merge::ByKey, Support::Honoured),
    key("plansDirectory", Merge::Highest, Support::NotSupported),
    key("pluginConfigs", Merge::ByKey, Support::NotSupported),
    key("pluginSuggestionMarketplaces", Merge::Union, Support::NotApplicable("rein suggests no plugins")),
    key("pluginTrustMessage", Merge::Highest, Support::NotApplicable("rein shows no plugin trust warning")),
    key("policyHelper", Merge::ByKey, Support::NotApplicable("rein runs no policy helper")),
    key("preferredNotifChannel", Merge::Highest, Support::NotSupported),
    key("prefersReducedMotion", Merge::Highest, Support::NotSupported),
    key("processWrapper", Merge::Highest, Support::NotSupported),
    key("prUrlTemplate", Merge::Highest, Support::NotSupported),
    key("remoteControlAtStartup", Merge::Highest, Support::NotApplicable("rein has no Remote Control")),
    key("requireCoworkFullVmSandbox", Merge::Highest, Support::NotApplicable("desktop app only")),
    key("requiredMaximumVersion", Merge::Highest, Support::NotApplicable("versions of Claude Code, not rein")),
    key("requiredMinimumVersion", Merge::Highest, Support::NotApplicable("versions of Claude Code, not rein")),
    key("respectGitignore", Merge::Highest, Support::Honoured),
    key("respondToBashCommands", Merge::Highest, Support::NotSupported),
    key("sandbox", Merge::ByKey, Support::Honoured),
    key("showClearContextOnPlanAccept", Merge::Highest, Support::NotSupported),
    key("showThinkingSummaries", Merge::Highest, Support::NotSupported),
    key("showTurnDuration", Merge::Highest, Support::NotSupported),
    key("skillListingBudgetFraction", Merge::Highest, Support::NotSupported),
    key("skillListingMaxDescChars", Merge::Highest, Support::NotSupported),
    key("skillOverrides", Merge::ByKey, Support::NotSupported),
    key("skipDangerousModePermissionPrompt", Merge::Highest, Support::NotApplicable("Claude Code's own prompt state")),
    key("skippedMarketplaces", Merge::Union, Support::NotApplicable("Claude Code's own prompt state")),
    key("skippedPlugins", Merge::Union, Support::NotApplicable("Claude Code's own prompt state")),
    key("skipWebFetchPreflight", Merge::Highest, Support::NotApplicable("rein makes no blocklist preflight")),
    key("spinnerTipsEnabled", Merge::Highest, Support::NotSupported),
    key("spinnerTipsOverride", Merge::ByKey, Support::NotSupported),
    key("spinnerVerbs", Merge::ByKey, Support::NotSupported),
    key("sshConfigs", Merge::Union, Support::NotApplicable("desktop app only")),
    key("sshHostAllowlist", Merge::Union, Support::NotApplicable("desktop app only")),
    key("statusLine", Merge::ByKey, Support::Honoured),
    key("strictKnownMarketplaces", Merge::Union, Support::NotSupported),
    key("strictPluginOnlyCustomization", Merge::Highest, Support::NotSupported),
    key("subagentStatusLine", Merge::ByKey, Support::NotSupported),
    key("syntaxHighlightingDisabled", Merge::Highest, Support::NotSupported),
    key("teammateDefaultModel", Merge::Highest, Support::NotSupported),
    key("teammateMode", Merge::Highest, Support::NotSupported),
    key("terminalProgressBarEnabled", Merge::Highest, Support::NotSupported),
    key("theme", Merge::Highest, Support::Honoured),
    key("tui", Merge::Highest, Support::NotSupported),
    key("useAutoModeDuringPlan", Merge::Highest, Support::NotSupported),
    key("verbose", Merge::Highest, Support::NotSupported),
    key("viewMode", Merge::Highest, Support::NotSupported),
    key("vimInsertModeRemaps", Merge::ByKey, Support::NotSupported),
    key("voice", Merge::ByKey, Support::NotApplicable("rein has no voice dictation")),
    key("voiceEnabled", Merge::Highest, Support::NotApplicable("rein has no voice dictation")),
    key("wheelScrollAccelerationEnabled", Merge::Highest, Support::NotSupported),
    key("workflowKeywordTriggerEnabled", Merge::Highest, Support::Honoured),
    key("workflowSizeGuideline", Merge::Highest, Support::Honoured),
    key("worktree", Merge::ByKey, Support::NotSupported),
    key("wslInheritsWindowsSettings", Merge::Highest, Support::NotApplicable("Windows policy only")),
];

/// The keys under `permissions`.
pub const PERMISSIONS: &[Key] = &[
    key("allow", Merge::Union, Support::Honoured),
    key("deny", Merge::Union, Support::Honoured),
    key("ask", Merge::Union, Support::Honoured),
    key("defaultMode", Merge::Highest, Support::Honoured),
    key("disableBypassPermissionsMode", Merge::Tighten, Support::Honoured),
    key("disableAutoMode", Merge::Tighten, Support::Honoured),
    key("additionalDirectories", Merge::Union, Support::Honoured),
    key("blockReadsOutsideWorkingDirectories", Merge::Tighten, Support::Honoured),
];

/// The keys under `sandbox`.
pub const SANDBOX: &[Key] = &[
    key("network", Merge::ByKey, Support::Honoured),
    key("ignoreViolations", Merge::Tighten, Support::NotSupported),
    key("excludedCommands", Merge::Union, Support::Honoured),
    key("autoAllowBashIfSandboxed", Merge::Tighten, Support::Honoured),
    key("enableWeakerNetworkIsolation", Merge::Tighten, Support::NotApplicable("macOS only")),
    key("enableWeakerNestedSandbox", Merge::Tighten, Support::NotApplicable("rein's tiers decide")),
    key("allowUnsandboxedCommands", Merge::Tighten, Support::Honoured),
    key("enabled", Merge::Tighten, Support::Honoured),
    key("filesystem", Merge::ByKey, Support::Honoured),
    key("ripgrep", Merge::ByKey, Support::NotSupported),
    key("bwrapPath", Merge::Highest, Support::Honoured),
    key("socatPath", Merge::Highest, Support::NotApplicable("rein relays without socat")),
    key("failIfUnavailable", Merge::Tighten, Support::Honoured),
    key("enabledPlatforms", Merge::Tighten, Support::NotApplicable("rein sandboxes on every platform it runs on")),
    key("credentials", Merge::ByKey, Support::NotSupported),
    key("allowAppleEvents", Merge::Tighten, Support::NotApplicable("macOS Seatbelt only")),
    key("trustProjectSettings", Merge::Tighten, Support::Honoured),
];

/// Top-level keys whose value names a program a session runs (a command, a helper):
/// what the trust question names before a folder's settings take effect.
pub const RUNS_PROGRAMS: &[&str] = &[
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "fileSuggestion",
    "gcpAuthRefresh",
    "hooks",
    "lspServers",
    "otelHeadersHelper",
    "policyHelper",
    "processWrapper",
    "statusLine",
    "subagentStatusLine",
];

/// `name` in `table`.
pub fn find(table: &[Key], name: &str) -> Option<Key> {
    table.iter().find(|k| k.name == name).copied()
}

/// A key a settings file sets that rein does not act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    /// `file:line` (or the file alone).
    pub at: String,
    /// The key as written (`permissions.x` for nested ones).
    pub key: String,
    pub class: Class,
}

/// Why a key is noted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    NotSupported,
    NotApplicable(&'static str),
    /// Not in the schema at all (a newer Claude Code's, or a typo).
    Unknown,
}

impl std::fmt::Display for Noted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.class {
            Class::NotSupported => write!(f, "{}: `{}` is not supported by rein yet; ignored", self.at, self.key),
            Class::NotApplicable(why) => write!(f, "{}: `{}` has no meaning in rein ({why})", self.at, self.key),
            Class::Unknown => write!(f, "{}: `{}` is not a settings key rein knows; ignored", self.at, self.key),
        }
    }
}

/// Every key of every file that rein does not act on, in file order.
pub fn noted(settings: &Settings) -> Vec<Noted> {
    let mut out = Vec::new();
    for file in &settings.files {
        let Some(map) = file.value.as_object() else { continue };
        for (name, value) in map {
            note(file, name, name, find(TOP_LEVEL, name), &mut out);
            let nested = match name.as_str() {
                "permissions" => PERMISSIONS,
                "sandbox" => SANDBOX,
                _ => continue,
            };
            for sub in value.as_object().into_iter().flat_map(|m| m.keys()) {
                note(file, sub, &format!("{name}.{sub}"), find(nested, sub), &mut out);
            }
        }
    }
    out
}

fn note(file: &SettingsFile, written: &str, shown: &str, known: Option<Key>, out: &mut Vec<Noted>) {
    let class = match known.map(|k| k.support) {
        Some(Support::Honoured) => return,
        Some(Support::NotSupported) => Class::NotSupported,
        Some(Support::NotApplicable(why)) => Class::NotApplicable(why),
        None => Class::Unknown,
    };
    let at = match file.line_of(written) {
        Some(line) => format!("{}:{line}", file.origin()),
        None => file.origin(),
    };
    out.push(Noted { at, key: shown.to_string(), class });
}

/// The documentation's table (`docs/settings.md`), made from the schema.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Claude Code settings in rein\n\nMade from `crates/rein-settings/src/schema.rs` (a test keeps the two equal: \
         `REIN_UPDATE_DOCS=1 cargo test -p rein-settings` rewrites this file). Every key is honoured, named at start \
         as not supported, or named by `rein doctor` as having no meaning in rein; a key not listed here is named \
         as unknown.\n",
    );
    for (title, prefix, table) in
        [("Top level", "", TOP_LEVEL), ("permissions", "permissions.", PERMISSIONS), ("sandbox", "sandbox.", SANDBOX)]
    {
        out.push_str(&format!("\n## {title}\n\n| key | across scopes | in rein |\n|---|---|---|\n"));
        for k in table {
            let support = match k.support {
                Support::Honoured => "honoured".to_string(),
                Support::NotSupported => "not supported yet (named at start)".to_string(),
                Support::NotApplicable(why) => format!("no meaning: {why}"),
            };
            out.push_str(&format!("| `{prefix}{}` | {} | {support} |\n", k.name, k.merge.describe()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_listed_once_in_exactly_one_class() {
        for table in [TOP_LEVEL, PERMISSIONS, SANDBOX] {
            let mut names: Vec<&str> = table.iter().map(|k| k.name).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(before, names.len(), "a key is listed twice");
        }
        let classes = |s: fn(&Support) -> bool| TOP_LEVEL.iter().filter(|k| s(&k.support)).count();
        let honoured = classes(|s| *s == Support::Honoured);
        let not = classes(|s| *s == Support::NotSupported);
        let na = classes(|s| matches!(s, Support::NotApplicable(_)));
        assert_eq!(honoured + not + na, TOP_LEVEL.len());
        assert!(TOP_LEVEL.len() >= 140, "Claude Code's schema has about 140 top-level keys");
        assert!(RUNS_PROGRAMS.iter().all(|k| find(TOP_LEVEL, k).is_some()), "a program key is not in the schema");
    }

    #[test]
    fn the_documentation_table_is_made_from_the_schema() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/settings.md");
        let want = markdown();
        if std::env::var_os("REIN_UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "docs/settings.md is stale: run REIN_UPDATE_DOCS=1 cargo test -p rein-settings");
    }
}
