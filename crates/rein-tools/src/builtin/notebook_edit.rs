//! NotebookEdit: replace, insert or delete one cell of a Jupyter notebook, keeping the
//! rest of the `.ipynb` JSON as it was (key order, metadata, other cells).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::files::{read_for_change, writable_target, write_atomic};
use crate::{Access, Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

pub struct NotebookEdit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Code,
    Markdown,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotebookEditInput {
    pub notebook_path: String,
    /// The cell's id, or `cell-N` (from 0). Insert goes after it, or first without it.
    pub cell_id: Option<String>,
    pub new_source: String,
    /// Required for insert.
    pub cell_type: Option<CellType>,
    /// Default replace.
    pub edit_mode: Option<EditMode>,
}

impl Tool for NotebookEdit {
    type Input = NotebookEditInput;

    fn name(&self) -> &'static str {
        "NotebookEdit"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Replaces, inserts or deletes one cell of a Jupyter notebook you have Read; the rest is kept.".to_string()
    }

    fn validate(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Result<(), crate::InputError> {
        if !input.notebook_path.ends_with(".ipynb") {
            return Err("notebook_path must be a .ipynb file".into());
        }
        let mode = input.edit_mode.unwrap_or_default();
        if mode == EditMode::Insert && input.cell_type.is_none() {
            return Err("cell_type is required to insert a cell".into());
        }
        if mode != EditMode::Insert && input.cell_id.is_none() {
            return Err("cell_id is required to replace or delete a cell".into());
        }
        writable_target(&input.notebook_path, ctx)?;
        Ok(())
    }

    fn effects(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Effects {
        Effects::editing([ctx.effect_path(&input.notebook_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Write, field: "notebook_path" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["notebook_path"]
    }

    async fn call(&self, input: NotebookEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = writable_target(&input.notebook_path, ctx).map_err(|e| ToolError::new(e.to_string()))?;
        let bytes = read_for_change(&path, ctx)?;
        let mut nb: Value = serde_json::from_slice(&bytes)
            .map_err(|e| ToolError::new(format!("{} is not valid notebook JSON: {e}", path.display())))?;
        let cells = nb
            .get_mut("cells")
            .and_then(Value::as_array_mut)
            .ok_or_else(|| ToolError::new(format!("{} has no cells array", path.display())))?;
        let index = match &input.cell_id {
            Some(id) => Some(find_cell(cells, id)?),
            None => None,
        };
        let mode = input.edit_mode.unwrap_or_default();
        let message = match (mode, index) {
            (EditMode::Delete, Some(i)) => {
                cells.remove(i);
                format!("Deleted cell {}", input.cell_id.as_deref().unwrap_or_default())
            }
            (EditMode::Replace, Some(i)) => {
                let cell = cells[i].as_object_mut().ok_or_else(|| ToolError::new("the cell is not an object"))?;
                set_source(cell, &input.new_source);
                if let Some(t) = input.cell_type {
                    retype(cell, t);
                } else if cell.get("cell_type").and_then(Value::as_str) == Some("code") {
                    // Old outputs no longer describe the new code.
                    cell.insert("outputs".into(), json!([]));
                    cell.insert("execution_count".into(), Value::Null);
                }
                format!("Updated cell {}", input.cell_id.as_deref().unwrap_or_default())
            }
            (EditMode::Insert, at) => {
                let t = input.cell_type.unwrap_or(CellType::Code);
                let id = new_cell_id(cells);
                let mut cell = Map::new();
                retype(&mut cell, t);
                cell.insert("id".into(), json!(id));
                cell.insert("metadata".into(), json!({}));
                set_source(&mut cell, &input.new_source);
                cells.insert(at.map(|i| i + 1).unwrap_or(0), Value::Object(cell));
                format!("Inserted cell {id}")
            }
            (_, None) => return Err(ToolError::new("cell_id is required to replace or delete a cell")),
        };
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        serde::Serialize::serialize(&nb, &mut ser).map_err(|e| ToolError::new(e.to_string()))?;
        out.push(b'\n');
        write_atomic(&path, &out, ctx)?;
        Ok(ToolOutput::text(format!("{message} in {}.", path.display())))
    }
}

fn find_cell(cells: &[Value], id: &str) -> Result<usize, ToolError> {
    if let Some(i) = cells.iter().position(|c| c.get("id").and_then(Value::as_str) == Some(id)) {
        return Ok(i);
    }
    if let Some(n) = id.strip_prefix("cell-").and_then(|n| n.parse::<usize>().ok())
        && n < cells.len()
    {
        return Ok(n);
    }
    Err(ToolError::new(format!("No cell with id {id:?} (the notebook has {} cells)", cells.len())))
}

/// Notebook sources are stored as a list of lines, each keeping its newline.
fn set_source(cell: &mut Map<String, Value>, source: &str) {
    let lines: Vec<Value> = source.split_inclusive('\n').map(|l| json!(l)).collect();
    cell.insert("source".into(), Value::Array(lines));
}

fn retype(cell: &mut Map<String, Value>, t: CellType) {
    match t {
        CellType::Code => {
            cell.insert("cell_type".into(), json!("code"));
            cell.entry("execution_count").or_insert(Value::Null);
            cell.insert("outputs".into(), json!([]));
        }
        CellType::Markdown => {
            cell.insert("cell_type".into(), json!("markdown"));
            cell.remove("outputs");
            cell.remove("execution_count");
        }
    }
}

fn new_cell_id(cells: &[Value]) -> String {
    let taken = |id: &str| cells.iter().any(|c| c.get("id").and_then(Value::as_str) == Some(id));
    (1..).map(|n| format!("rein-{n}")).find(|id| !taken(id)).unwrap_or_else(|| "rein-cell".into())
}
