//! The engine's own tools (Agent, ExitPlanMode, AskUserQuestion, Skill) and what they
//! get from the engine that runs them. They reach the model, the tool table, the gate
//! (policy, hooks, approver, judge) and the configuration through the tool context at
//! call time, never through their constructors: so they are registered with the
//! built-in tools before the policy exists, and the policy reads their rules from the
//! registry like any other tool's.

use std::path::PathBuf;
use std::sync::Arc;

use rein_model::Model;
use rein_prompt::agents::AgentDef;
use rein_prompt::skills::SkillDef;
use rein_tools::{EngineSlot, Registry, RegistryError, ToolContext, ToolError};

use crate::{AgentTool, AskUserQuestion, Engine, EngineConfig, EnterPlanMode, ExitPlanMode, Gate, SkillTool};

/// What a call of an engine gets from it, live (the model the session uses now, the
/// policy as it is now).
pub struct EngineServices {
    pub model: Arc<dyn Model>,
    pub registry: Arc<Registry>,
    pub gate: Gate,
    pub config: EngineConfig,
    /// The worktree the session works in, and a move still to make.
    pub workdir: crate::worktree_tools::SharedWorkdir,
    /// Where the tools' own model requests count what they cost.
    pub side: crate::SideUsage,
}

impl EngineServices {
    /// The services of the engine running the call.
    pub fn of(ctx: &ToolContext) -> Result<&EngineServices, ToolError> {
        ctx.engine::<EngineServices>().ok_or_else(|| ToolError::new("this tool runs only inside a rein session"))
    }
}

impl Engine {
    /// The context a call of this engine runs in: the session's, with the engine's
    /// services as they are now.
    pub(crate) fn tool_context(&self) -> ToolContext {
        let mut ctx = self.ctx.clone();
        // The policy's roots are the session's: `/add-dir` and an SDK's addDirectories
        // widen them while it runs.
        let policy = self.gate.policy.get();
        ctx.workspace_roots = policy.roots.clone();
        // The memories (Markdown files directly in the persistent memory's directory) are
        // writable by the file tools too; the policy lets them go unasked.
        ctx.memory_dir = policy.memory_dir.clone();
        ctx.engine = EngineSlot::new(EngineServices {
            model: self.model.clone(),
            registry: self.registry.clone(),
            gate: self.gate.clone(),
            config: self.config.clone(),
            workdir: self.workdir.clone(),
            side: self.side.clone(),
        });
        ctx.digest = Some(Arc::new(crate::web_digest::ModelDigest {
            model: self.model.clone(),
            model_name: self.config.small_model_name(),
            side: self.side.clone(),
        }));
        ctx
    }
}

/// What the engine's own tools are made of: the session's subagent types, the
/// environment block of their prompts, where their transcripts go, and the skills.
#[derive(Default)]
pub struct EngineTools {
    pub agents: Vec<AgentDef>,
    pub environment: String,
    pub transcripts: Option<PathBuf>,
    pub skills: Vec<SkillDef>,
    /// Custom commands the model may run through the Skill tool.
    pub commands: Vec<rein_prompt::commands::CommandDef>,
    /// `CLAUDE_CODE_SUBAGENT_MODEL`.
    pub subagent_model: Option<String>,
    /// The provider searches the web: WebSearch is offered.
    pub web_search: bool,
    /// Named workflow scripts (the Workflow tool and `/name`).
    pub workflows: Vec<rein_prompt::workflows::WorkflowDef>,
    /// The Workflow tool is offered (not `disableWorkflows`).
    pub workflows_enabled: bool,
    /// `workflowSizeGuideline` (`small`, `medium`, `large`): advice in its description.
    pub workflow_size: Option<String>,
}

/// Register the engine's tools in `registry`, or put them in place of the ones there
/// (the Agent SDK's `initialize` adds subagent types after the session was assembled).
/// `Task` is Agent's legacy name; Skill is offered when the model may call a skill.
pub fn register_engine_tools(registry: &mut Registry, tools: EngineTools) -> Result<(), RegistryError> {
    let EngineTools {
        agents,
        environment,
        transcripts,
        skills,
        commands,
        subagent_model,
        web_search,
        workflows,
        workflows_enabled,
        workflow_size,
    } = tools;
    registry.replace(crate::WebSearchTool { offered: web_search })?;
    let agent_tool = AgentTool { agents, environment, transcripts, skills: skills.clone(), subagent_model };
    let agents = std::sync::Arc::new(agent_tool.clone());
    registry.replace(agent_tool)?;
    registry.replace(crate::workflow_tool::WorkflowTool {
        agents,
        workflows,
        enabled: workflows_enabled,
        size: workflow_size,
    })?;
    registry.alias("Task", "Agent");
    registry.replace(EnterPlanMode)?;
    registry.replace(crate::worktree_tools::EnterWorktree)?;
    registry.replace(crate::worktree_tools::ExitWorktree)?;
    registry.replace(ExitPlanMode)?;
    registry.replace(AskUserQuestion)?;
    let commands = commands.into_iter().filter(crate::skill_tool::model_may_run).collect();
    registry.replace(SkillTool { skills, commands })?;
    Ok(())
}
