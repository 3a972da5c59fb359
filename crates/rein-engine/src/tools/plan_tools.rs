//! The tools that need the user: `EnterPlanMode` (the model asks to plan first; the user
//! agrees or not), `ExitPlanMode` (the plan for the user to approve; once approved, plan
//! mode ends) and `AskUserQuestion` (multiple-choice questions, each with
//! an "other" answer). Both are always asked: the interactive session shows the plan or
//! the questions, the Agent SDK gets them through `can_use_tool`, and a headless run
//! without a user refuses with a message saying no user is there. The answers come back
//! as the call's edited input.

use rein_policy::PermissionMode;
use rein_tools::{Effects, Other, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn needs_user() -> Effects {
    Effects { other: vec![Other::User], read_only: true, ..Effects::reading(Vec::new()) }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExitPlanModeInput {
    pub plan: String,
}

/// Leaves plan mode once the user approves the plan (the session's policy comes with
/// the call).
pub struct ExitPlanMode;

impl Tool for ExitPlanMode {
    type Input = ExitPlanModeInput;

    fn name(&self) -> &'static str {
        "ExitPlanMode"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "In plan mode, with the plan ready: asks the user to approve it. Approved, plan mode ends; refused, keep \
         planning with their feedback."
            .into()
    }

    fn effects(&self, _: &ExitPlanModeInput, _: &ToolContext) -> Effects {
        needs_user()
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, _input: ExitPlanModeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        // The approver may have chosen the next mode (acceptEdits); otherwise plan mode
        // gives way to the default one.
        let policy = &crate::EngineServices::of(ctx)?.gate.policy;
        if policy.get().mode == PermissionMode::Plan {
            policy.set_mode(PermissionMode::Default, "ExitPlanMode (plan approved)");
        }
        Ok(ToolOutput::text("Plan approved: carry it out."))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EnterPlanModeInput {}

/// Enters plan mode once the user agrees: rein then reads and plans, and changes nothing
/// until ExitPlanMode's plan is approved.
pub struct EnterPlanMode;

impl Tool for EnterPlanMode {
    type Input = EnterPlanModeInput;

    fn name(&self) -> &'static str {
        "EnterPlanMode"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Asks the user to switch to plan mode before a large or unclear change: explore and design first, then \
         present the plan with ExitPlanMode. Nothing is changed in plan mode."
            .into()
    }

    fn effects(&self, _: &EnterPlanModeInput, _: &ToolContext) -> Effects {
        needs_user()
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, _input: EnterPlanModeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let policy = &crate::EngineServices::of(ctx)?.gate.policy;
        policy.set_mode(PermissionMode::Plan, "EnterPlanMode (the user agreed)");
        Ok(ToolOutput::text(
            "Entered plan mode. Explore the code and design the change; do not edit files or run commands that \
             change anything. When the plan is ready, present it with ExitPlanMode.",
        ))
    }
}

// One choice of a question.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
}

// One question.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Question {
    pub question: String,
    /// A label of a dozen characters.
    #[serde(default)]
    pub header: Option<String>,
    pub options: Vec<QuestionOption>,
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskUserQuestionInput {
    pub questions: Vec<Question>,
    /// Filled in by the user's side: each question's text → the answer.
    #[serde(default)]
    pub answers: Option<serde_json::Map<String, Value>>,
}

/// Asks the user multiple-choice questions.
pub struct AskUserQuestion;

impl Tool for AskUserQuestion {
    type Input = AskUserQuestionInput;

    fn name(&self) -> &'static str {
        "AskUserQuestion"
    }

    fn description(&self) -> String {
        "Asks the user one to four multiple-choice questions of two to four options (to settle an ambiguity, a \
         choice of approach, a preference); they may also answer something else."
            .into()
    }

    fn validate(&self, input: &AskUserQuestionInput, _: &ToolContext) -> Result<(), rein_tools::InputError> {
        if input.questions.is_empty() || input.questions.len() > 4 {
            return Err("ask one to four questions".into());
        }
        match input.questions.iter().find(|q| q.options.len() < 2 || q.options.len() > 4) {
            Some(q) => Err(format!("{:?} needs two to four options", q.question).into()),
            None => Ok(()),
        }
    }

    fn hidden_fields(&self) -> Vec<&'static str> {
        vec!["answers"]
    }

    fn effects(&self, _: &AskUserQuestionInput, _: &ToolContext) -> Effects {
        needs_user()
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: AskUserQuestionInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(answers) = input.answers.filter(|a| !a.is_empty()) else {
            return Ok(ToolOutput::failure(
                "No user answered these questions; decide yourself, or say in your final \
                                           answer what you need from the user.",
            ));
        };
        let lines: Vec<String> = input
            .questions
            .iter()
            .map(|q| {
                let a = answers.get(&q.question).map(|v| v.as_str().map_or(v.to_string(), str::to_string));
                format!("\"{}\" = \"{}\"", q.question, a.unwrap_or_else(|| "(no answer)".into()))
            })
            .collect();
        Ok(ToolOutput::text(format!(
            "The user answered your questions: {}. Go on with these answers in mind.",
            lines.join(", ")
        )))
    }
}
