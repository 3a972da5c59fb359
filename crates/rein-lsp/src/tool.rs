//! The `LSP` tool, with Claude Code's operations and input: a position in a file (lines
//! and columns from 1), asked of the server for that file's language. Results name files
//! relative to the working directory with the line they point at; results in files the
//! Read rules protect are left out.

use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare, DocumentSymbolRequest,
    GotoDefinition, GotoImplementation, HoverRequest, References, WorkspaceSymbolRequest,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyItem, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    DocumentSymbolParams, GotoDefinitionParams, HoverParams, PartialResultParams, Position, ReferenceContext,
    ReferenceParams, TextDocumentIdentifier, TextDocumentPositionParams, WorkDoneProgressParams, WorkspaceSymbolParams,
};
use rein_tools::{Access, Effects, InputError, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::render::Render;
use crate::servers::SharedServers;

/// What to ask the language server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Operation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LspInput {
    /// What to ask: goToDefinition, findReferences, hover, documentSymbol, workspaceSymbol, goToImplementation, prepareCallHierarchy, incomingCalls or outgoingCalls.
    pub operation: Operation,
    /// The file the position is in (for workspaceSymbol, any file of the language).
    pub file_path: String,
    /// The symbol's line, counting from 1.
    pub line: u32,
    /// The symbol's column on that line, counting from 1.
    pub character: u32,
    /// workspaceSymbol only: the name, or part of it, to look for (default: the word at the position).
    #[serde(default)]
    pub query: Option<String>,
}

/// The tool, over the session's servers.
pub struct Lsp {
    pub servers: SharedServers,
}

impl Tool for Lsp {
    type Input = LspInput;

    fn name(&self) -> &'static str {
        "LSP"
    }

    fn description(&self) -> String {
        format!(
            "Asks the project's language server about code: where the symbol at a position is defined \
             (goToDefinition) or implemented (goToImplementation), every place it is used (findReferences), its \
             type and documentation (hover), the symbols of a file (documentSymbol) or of the whole project \
             (workspaceSymbol), and the calls into or out of a function (prepareCallHierarchy, incomingCalls, \
             outgoingCalls). Lines and columns count from 1, as Read shows them; point at the symbol's name. \
             More exact than searching text for a name. Files handled: {}.",
            self.servers.extensions().join(" ")
        )
    }

    fn validate(&self, input: &LspInput, ctx: &ToolContext) -> Result<(), InputError> {
        if input.line == 0 || input.character == 0 {
            return Err(InputError::Refused("line and character count from 1".into()));
        }
        let path = ctx.resolve(&input.file_path);
        if !self.servers.specs().iter().any(|s| s.language_of(&path).is_some()) {
            return Err(InputError::Refused(format!(
                "no language server handles {}; the servers handle {}",
                input.file_path,
                self.servers.extensions().join(" ")
            )));
        }
        Ok(())
    }

    fn effects(&self, input: &LspInput, ctx: &ToolContext) -> Effects {
        Effects::reading([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Read, field: "filePath" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["filePath"]
    }

    async fn call(&self, input: LspInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.file_path);
        if !path.is_file() {
            return Err(ToolError::new(format!("{} is not a file", path.display())));
        }
        let server = self.servers.server_for(&path).await.map_err(|e| ToolError::new(e.to_string()))?;
        let synced = server.sync(&path, false).await.map_err(|e| ToolError::new(e.to_string()))?;
        if synced.opened {
            // The server's first diagnostics for a file say it has read it (and the
            // workspace): queries before that can come back empty.
            let _ = server.diagnostics_for(&synced, std::time::Duration::from_secs(15), Default::default()).await;
        }
        let line_text = synced.text.lines().nth(input.line as usize - 1).unwrap_or_default();
        let position =
            Position::new(input.line - 1, crate::position::utf16_of(line_text, input.character as usize - 1));
        let doc = TextDocumentIdentifier { uri: synced.uri.clone() };
        let at = TextDocumentPositionParams { text_document: doc.clone(), position };
        let work = WorkDoneProgressParams::default;
        let partial = PartialResultParams::default;
        let mut render = Render::new(ctx);
        let err = |e: crate::LspError| ToolError::new(e.to_string());
        let text = match input.operation {
            Operation::GoToDefinition | Operation::GoToImplementation => {
                let params = GotoDefinitionParams {
                    text_document_position_params: at,
                    work_done_progress_params: work(),
                    partial_result_params: partial(),
                };
                let found = if input.operation == Operation::GoToDefinition {
                    server.request::<GotoDefinition>(params).await.map_err(err)?
                } else {
                    server.request::<GotoImplementation>(params).await.map_err(err)?
                };
                render.definitions(found, input.operation == Operation::GoToDefinition)
            }
            Operation::FindReferences => {
                let params = ReferenceParams {
                    text_document_position: at,
                    work_done_progress_params: work(),
                    partial_result_params: partial(),
                    context: ReferenceContext { include_declaration: true },
                };
                render.references(server.request::<References>(params).await.map_err(err)?.unwrap_or_default())
            }
            Operation::Hover => {
                let params = HoverParams { text_document_position_params: at, work_done_progress_params: work() };
                render.hover(server.request::<HoverRequest>(params).await.map_err(err)?)
            }
            Operation::DocumentSymbol => {
                let params = DocumentSymbolParams {
                    text_document: doc,
                    work_done_progress_params: work(),
                    partial_result_params: partial(),
                };
                render.document_symbols(server.request::<DocumentSymbolRequest>(params).await.map_err(err)?, &path)
            }
            Operation::WorkspaceSymbol => {
                let query = input.query.clone().unwrap_or_else(|| word_at(line_text, input.character as usize - 1));
                let params = WorkspaceSymbolParams {
                    query: query.clone(),
                    work_done_progress_params: work(),
                    partial_result_params: partial(),
                };
                render.workspace_symbols(server.request::<WorkspaceSymbolRequest>(params).await.map_err(err)?, &query)
            }
            Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls => {
                let params =
                    CallHierarchyPrepareParams { text_document_position_params: at, work_done_progress_params: work() };
                let items: Vec<CallHierarchyItem> =
                    server.request::<CallHierarchyPrepare>(params).await.map_err(err)?.unwrap_or_default();
                match (input.operation, items.first()) {
                    (Operation::PrepareCallHierarchy, _) | (_, None) => render.call_items(&items),
                    (Operation::IncomingCalls, Some(item)) => {
                        let params = CallHierarchyIncomingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: work(),
                            partial_result_params: partial(),
                        };
                        let calls = server.request::<CallHierarchyIncomingCalls>(params).await.map_err(err)?;
                        render.incoming(item, calls.unwrap_or_default())
                    }
                    (_, Some(item)) => {
                        let params = CallHierarchyOutgoingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: work(),
                            partial_result_params: partial(),
                        };
                        let calls = server.request::<CallHierarchyOutgoingCalls>(params).await.map_err(err)?;
                        render.outgoing(item, calls.unwrap_or_default())
                    }
                }
            }
        };
        Ok(ToolOutput::text(text))
    }
}

/// The identifier around `column` (characters, from 0) of `line`.
fn word_at(line: &str, column: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    let is_word = |c: &char| c.is_alphanumeric() || *c == '_';
    let mut start = column.min(chars.len());
    while start > 0 && is_word(&chars[start - 1]) {
        start -= 1;
    }
    chars[start..].iter().take_while(|c| is_word(c)).collect()
}
