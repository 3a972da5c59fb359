//! Names → tools, schema generation and input checking.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use rein_effects::{Effects, RuleKind, ToolKinds, ToolRules};
use rein_protocol::ToolSpec;
use serde_json::Value;

pub use crate::checked_call::PreparedCall;
pub(crate) use crate::checked_call::{DynTool, input_error, problems};
use crate::{InputError, Tool, ToolContext, ToolError, ToolOutput, compact_for_model};

struct Registered<T: Tool> {
    tool: Arc<T>,
    spec: ToolSpec,
    /// The full input schema, compiled into a validator the first time the tool is
    /// called: most tools of a session never are, and validators are not small.
    schema: Value,
    validator: std::sync::OnceLock<Result<jsonschema::Validator, Box<jsonschema::ValidationError<'static>>>>,
}

struct Prepared<T: Tool> {
    tool: Arc<T>,
    input: T::Input,
}

impl<T: Tool> PreparedCall for Prepared<T> {
    fn tool_name(&self) -> &str {
        self.tool.name()
    }
    fn effects(&self, ctx: &ToolContext) -> Effects {
        self.tool.effects(&self.input, ctx)
    }
    fn validate(&self, ctx: &ToolContext) -> Result<(), InputError> {
        self.tool.validate(&self.input, ctx)
    }
    fn call(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let Prepared { tool, input } = *self;
        Box::pin(async move {
            let output = tool.call(input, &ctx).await?;
            Ok(crate::budget::apply_budget(tool.name(), output, tool.max_result_chars(), &ctx))
        })
    }
}

impl<T: Tool> DynTool for Registered<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn rule_kind(&self) -> RuleKind {
        self.tool.rule_kind()
    }

    fn path_fields(&self) -> &'static [&'static str] {
        self.tool.path_fields()
    }

    fn collapses_repeats(&self) -> bool {
        self.tool.collapses_repeats()
    }

    fn max_result_chars(&self) -> Option<usize> {
        self.tool.max_result_chars()
    }

    fn offered_to_subagents(&self) -> bool {
        self.tool.offered_to_subagents()
    }

    fn offered_to_model(&self) -> bool {
        self.tool.offered_to_model()
    }

    fn deferred_by_default(&self) -> bool {
        self.tool.deferred_by_default()
    }

    fn prepare(&self, input: &Value) -> Result<Box<dyn PreparedCall>, InputError> {
        let validator = self.validator.get_or_init(|| jsonschema::validator_for(&self.schema).map_err(Box::new));
        let validator = validator
            .as_ref()
            .map_err(|why| InputError::BadSchema { tool: self.spec.name.clone(), why: why.to_string() })?;
        let found = problems(validator, input);
        if !found.is_empty() {
            return Err(input_error(self.spec.name.as_str(), &found));
        }
        let typed: T::Input = serde_json::from_value(input.clone())
            .map_err(|e| input_error(self.spec.name.as_str(), &[e.to_string()]))?;
        Ok(Box::new(Prepared { tool: self.tool.clone(), input: typed }))
    }
}

/// A tool as the registry keeps it: its definition for the model (hidden fields left
/// out) and its full schema, compiled on first use.
/// An input type's schema and its compact form for the model, made once per process
/// (a start builds the built-in tools more than once; generating a schema is the
/// costly part of registering a tool).
fn schemas<T: Tool>() -> (Value, Value) {
    type Cache = std::sync::Mutex<std::collections::HashMap<std::any::TypeId, (Value, Value)>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = std::any::TypeId::of::<T::Input>();
    if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&id) {
        return hit.clone();
    }
    let schema = schema_for::<T::Input>();
    let compact = compact_for_model(&schema);
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert(id, (schema.clone(), compact.clone()));
    (schema, compact)
}

fn entry<T: Tool>(tool: T) -> Arc<dyn DynTool> {
    let (schema, mut input_schema) = schemas::<T>();
    if let Some(props) = input_schema.get_mut("properties").and_then(Value::as_object_mut) {
        for field in tool.hidden_fields() {
            props.remove(field);
        }
    }
    let spec = ToolSpec { name: tool.name().to_string(), description: tool.description(), input_schema };
    Arc::new(Registered { tool: Arc::new(tool), spec, schema, validator: std::sync::OnceLock::new() })
}

/// The top-level fields of an input schema.
pub fn input_fields(schema: &Value) -> Vec<String> {
    schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

/// The `input_schema` for `T`: draft 2020-12, subschemas inlined, no `$schema`/`title`.
pub fn schema_for<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("title");
        obj.entry("properties").or_insert_with(|| Value::Object(Default::default()));
    }
    schema
}

/// Why a tool could not be registered.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("tool {0} is registered twice")]
    Duplicate(String),
    #[error("cannot set up the tools: {0}")]
    Setup(String),
}

/// Which tool names a registry keeps.
type NameFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The tool table.
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn DynTool>>,
    by_name: HashMap<String, usize>,
    /// Tools that join after the session started.
    late: Option<Arc<crate::LateTools>>,
    /// Which of the late tools this registry offers (a subagent's tool list); all
    /// when `None`.
    late_keep: Option<NameFilter>,
    /// The shell's background commands, for frontends (`/tasks`).
    jobs: Option<Arc<dyn crate::jobs::SessionShell>>,
    /// How the shell tools' shell was made, so that a subagent working elsewhere (a
    /// worktree) can have a shell of its own made the same way.
    pub(crate) shell_recipe: Option<crate::builtin::ShellRecipe>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The session's background commands (set by the shell tools).
    pub fn session_shell(&self) -> Option<Arc<dyn crate::jobs::SessionShell>> {
        self.jobs.clone()
    }

    pub fn set_session_shell(&mut self, jobs: Arc<dyn crate::jobs::SessionShell>) {
        self.jobs = Some(jobs);
    }

    pub fn register<T: Tool>(&mut self, tool: T) -> Result<(), RegistryError> {
        let name = tool.name().to_string();
        if self.by_name.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(entry(tool));
        Ok(())
    }

    /// Register a tool defined at run time (an MCP server's); its name must be new.
    pub fn register_external(&mut self, tool: Arc<dyn crate::ExternalTool>) -> Result<(), RegistryError> {
        let name = tool.spec().name.clone();
        if self.by_name.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(Arc::new(crate::external::RegisteredExternal::new(tool)));
        Ok(())
    }

    /// Accept `alias` as another name of the registered tool `name` (legacy names such
    /// as `Task` for `Agent`). The model is only offered the tool's own name.
    pub fn alias(&mut self, alias: &str, name: &str) -> bool {
        match self.by_name.get(name).copied() {
            Some(i) if !self.by_name.contains_key(alias) => {
                self.by_name.insert(alias.to_string(), i);
                true
            }
            _ => false,
        }
    }

    /// Tools that join `other` later (MCP servers) join this one too.
    pub fn share_late_tools(&mut self, other: &Registry) {
        self.late = other.late.clone();
    }

    /// Those of the tools that join `other` later whose names `keep` accepts join this
    /// one too.
    pub fn share_late_tools_where(&mut self, other: &Registry, keep: impl Fn(&str) -> bool + Send + Sync + 'static) {
        self.late = other.late.clone();
        self.late_keep = Some(Arc::new(keep));
    }

    /// A subagent's tools: those of `self` offered to subagents whose names `keep`
    /// accepts (legacy names are not carried over).
    pub fn for_subagent(&self, keep: impl Fn(&str) -> bool) -> Registry {
        let mut out = Registry { shell_recipe: self.shell_recipe.clone(), ..Registry::new() };
        for t in &self.tools {
            let name = t.spec().name.clone();
            if t.offered_to_subagents() && keep(&name) && !out.by_name.contains_key(&name) {
                out.by_name.insert(name, out.tools.len());
                out.tools.push(t.clone());
            }
        }
        out
    }

    /// Put `tool` in place of the registered tool of the same name (a new tool joins at
    /// the end).
    pub fn replace<T: Tool>(&mut self, tool: T) -> Result<(), RegistryError> {
        match self.by_name.get(tool.name()).copied() {
            Some(i) => {
                self.tools[i] = entry(tool);
                Ok(())
            }
            None => self.register(tool),
        }
    }

    /// Where tools that arrive later join this registry (and its clones).
    pub fn late_tools(&mut self) -> Arc<crate::LateTools> {
        self.late.get_or_insert_with(Default::default).clone()
    }

    /// Wait while `name` may still arrive (its MCP server is connecting).
    /// Wait until every tool on its way has arrived or will not.
    pub async fn settled(&self) {
        if let Some(late) = &self.late {
            late.wait_all().await;
        }
    }

    pub async fn ready(&self, name: &str) {
        if let Some(late) = &self.late
            && !self.contains(name)
        {
            late.wait_for(name).await;
        }
    }

    /// System-prompt text that arrived with late tools.
    pub fn late_instructions(&self) -> Vec<String> {
        self.late.as_ref().map(|l| l.instructions()).unwrap_or_default()
    }

    /// Changes each time a late tool joins (0 without any).
    pub fn version(&self) -> u64 {
        self.late.as_ref().map_or(0, |l| l.version())
    }

    /// The late tools whose names are not already taken.
    fn joined(&self) -> Vec<Arc<crate::external::RegisteredExternal>> {
        let late = self.late.as_ref().map(|l| l.snapshot()).unwrap_or_default();
        late.into_iter()
            .filter(|t| !self.by_name.contains_key(&t.tool.spec().name))
            .filter(|t| self.late_keep.as_ref().is_none_or(|keep| keep(&t.tool.spec().name)))
            .collect()
    }

    /// The definitions sent to the model, in registration order (late tools last).
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> =
            self.tools.iter().filter(|t| t.offered_to_model()).map(|t| t.spec().clone()).collect();
        specs.extend(self.joined().iter().map(|t| t.tool.spec().clone()));
        specs
    }

    /// Whether `name` is a built-in tool whose definition waits behind ToolSearch (see
    /// [`Tool::deferred_by_default`]).
    pub fn deferred_by_default(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.spec().name == name && t.deferred_by_default())
    }

    /// Every registered tool's own name, offered to the model now or not (no legacy
    /// names, no late tools).
    pub fn registered_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.spec().name.clone()).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.specs().into_iter().map(|s| s.name).collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name) || self.joined().iter().any(|t| t.tool.spec().name == name)
    }

    /// How each tool (and alias) reads its permission rules, with the top-level fields
    /// of its input: what the policy parses rules with.
    pub fn rule_kinds(&self) -> ToolKinds {
        let mut out = ToolKinds::new();
        for (name, i) in &self.by_name {
            if let Some(t) = self.tools.get(*i) {
                out.insert(
                    name.clone(),
                    ToolRules { kind: t.rule_kind(), fields: input_fields(&t.spec().input_schema) },
                );
            }
        }
        out
    }

    /// The input schema of `name`.
    pub fn schema(&self, name: &str) -> Option<&Value> {
        self.by_name.get(name).and_then(|i| self.tools.get(*i)).map(|t| &t.spec().input_schema)
    }

    /// Whether `name`'s repeated results may be sent as pointers (see
    /// [`Tool::collapses_repeats`]); never for tools defined at run time.
    pub fn collapses_repeats(&self, name: &str) -> bool {
        self.by_name.get(name).and_then(|i| self.tools.get(*i)).is_some_and(|t| t.collapses_repeats())
    }

    /// Whether `name`'s results are never saved to a file in place of the model's copy
    /// (Read: reading a saved output must not save it again).
    pub fn never_spilled(&self, name: &str) -> bool {
        self.by_name.get(name).and_then(|i| self.tools.get(*i)).is_some_and(|t| t.max_result_chars().is_none())
    }

    /// `input` with the tool's file paths made absolute against `ctx`'s working
    /// directory and resolved as the kernel resolves them, or `None` when nothing needed
    /// it (see [`Tool::path_fields`]). Hooks, rules and the tool then see one path: the
    /// one that was checked is the one opened.
    pub fn expand_paths(&self, name: &str, input: &Value, ctx: &ToolContext) -> Option<Value> {
        let tool = self.by_name.get(name).and_then(|i| self.tools.get(*i))?;
        let mut expanded: Option<Value> = None;
        for field in tool.path_fields() {
            let Some(path) = input.get(*field).and_then(Value::as_str) else { continue };
            if path.is_empty() {
                continue;
            }
            let absolute = ctx.effect_path(path).to_string_lossy().into_owned();
            if absolute == path {
                continue;
            }
            let target = expanded.get_or_insert_with(|| input.clone());
            target[*field] = Value::String(absolute);
        }
        expanded
    }

    /// Look the tool up and check `input` against its schema, then its type. The error is
    /// the message for the paired `is_error` result.
    pub fn prepare(&self, name: &str, input: &Value) -> Result<Box<dyn PreparedCall>, InputError> {
        if let Some(tool) = self.by_name.get(name).and_then(|i| self.tools.get(*i)) {
            return tool.prepare(input);
        }
        match self.joined().into_iter().find(|t| t.tool.spec().name == name) {
            Some(late) => late.prepare(input),
            None => Err(InputError::NoSuchTool {
                name: name.to_string(),
                why: self.late.as_ref().and_then(|l| l.why_unavailable(name)),
            }),
        }
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
