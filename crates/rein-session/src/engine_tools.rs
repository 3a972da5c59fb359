//! The engine's own tools as a session makes them (the Agent tool with its subagent
//! types, Skill, the plan and question tools), and subagents given as JSON.

use std::sync::Arc;

use rein_tools::Registry;

use crate::Setup;

impl Setup {
    /// Subagents given as JSON (`--agents`, the SDK's `initialize.agents`):
    /// `{"name": {"description", "prompt", "tools", "model", …}}`; a name given again
    /// replaces the earlier definition.
    pub fn add_agents(&mut self, agents: &serde_json::Value) {
        for (name, a) in agents.as_object().into_iter().flatten() {
            self.agents.retain(|d| &d.name != name);
            self.agents.insert(0, rein_prompt::agents::AgentDef::from_json(name, a));
        }
    }

    /// The session's tools, made once by the builder: the built-in ones with the shell
    /// of this session (its sandbox, its settings), `--json-schema`'s StructuredOutput,
    /// and the engine's own as this session makes them (its subagent types and skills,
    /// the environment block of subagents' prompts, where their transcripts go).
    pub(crate) fn tools(&self, sandbox: Option<Arc<rein_sandbox::Sandbox>>) -> crate::Result<Registry> {
        // As `builtin_tools` makes them (the order the model sees), then made this
        // session's own.
        let mut registry = crate::builtin::fresh_builtin_tools()?;
        rein_tools::use_session_shell(&mut registry, sandbox, self.bash)?;
        if let (Some(limit), Some(shell)) = (self.env.max_background_agents, registry.session_shell()) {
            shell.agents().set_limit(limit);
        }
        if let (Some(schema), Some(slot)) = (&self.structured_schema, &self.structured_output) {
            registry.register_external(Arc::new(rein_tools::StructuredOutput::new(schema.clone(), slot.clone())))?;
        }
        let tools = rein_engine::EngineTools {
            agents: self.agents.clone(),
            environment: rein_prompt::environment_block(
                &self.cwd,
                &self.model,
                &chrono::Local::now().format("%Y-%m-%d").to_string(),
            ),
            transcripts: self.transcript.as_ref().map(|t| t.with_extension("").join("subagents")),
            skills: self.skills.clone(),
            commands: self.commands.clone(),
            subagent_model: self.env.subagent_model.clone(),
            web_search: self.provider.searches_the_web(),
            workflows: self.workflows.clone(),
            workflows_enabled: self.workflows_enabled,
            workflow_size: self.workflow_size.clone(),
        };
        rein_engine::register_engine_tools(&mut registry, tools)?;
        if let Some(servers) = &self.language_servers {
            registry.register(rein_lsp::Lsp { servers: servers.clone() })?;
        }
        Ok(registry)
    }
}
