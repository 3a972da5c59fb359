#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]
//! Run tools the way the engine does: prepare (schema), validate, call.

use rein_protocol::ToolResultContent;
use rein_tools::{Registry, ToolContext, register_builtins};
use serde_json::Value;

pub(crate) struct Tools {
    pub registry: Registry,
    pub ctx: ToolContext,
    pub dir: tempfile::TempDir,
}

/// What a call produced: Ok(text) or Err(text) for an error result.
pub(crate) type Outcome = Result<String, String>;

impl Tools {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let mut registry = Registry::new();
        register_builtins(&mut registry).unwrap();
        let ctx = ToolContext::new(root.clone(), root.join(".session"));
        Tools { registry, ctx, dir }
    }

    pub(crate) fn root(&self) -> std::path::PathBuf {
        self.ctx.cwd.clone()
    }

    pub(crate) fn path(&self, rel: &str) -> String {
        self.root().join(rel).display().to_string()
    }

    pub(crate) fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> std::path::PathBuf {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    pub(crate) async fn call(&self, tool: &str, input: Value) -> Outcome {
        let input = self.registry.expand_paths(tool, &input, &self.ctx).unwrap_or(input);
        let prepared = self.registry.prepare(tool, &input).map_err(|e| e.to_string())?;
        prepared.validate(&self.ctx).map_err(|e| e.to_string())?;
        match prepared.call(self.ctx.clone()).await {
            Ok(out) => {
                let text = match out.content {
                    ToolResultContent::Text(t) => t,
                    other => serde_json::to_string(&other).unwrap(),
                };
                if out.is_error { Err(text) } else { Ok(text) }
            }
            Err(e) => Err(e.0),
        }
    }

    pub(crate) async fn read(&self, rel: &str) -> String {
        self.call("Read", serde_json::json!({"file_path": self.path(rel)})).await.unwrap()
    }
}
