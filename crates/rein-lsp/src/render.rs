//! The LSP tool's answers as the model reads them: `path:line:column` (from 1, relative
//! to the working directory) with the line's text, symbols as an indented outline, hover
//! as the server's Markdown. What lies in a file the Read rules protect is left out, and
//! said.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbol, DocumentSymbolResponse,
    GotoDefinitionResponse, Hover, HoverContents, Location, MarkedString, Range, SymbolKind, Url,
    WorkspaceSymbolResponse,
};
use rein_tools::{PathNames, ToolContext};

/// A workspace symbol: its name, kind, and file (with where in it, when given).
type Found = (String, SymbolKind, Option<(Url, Option<Range>)>);

/// At most this many locations are listed.
const MAX_LOCATIONS: usize = 200;

pub(crate) struct Render<'a> {
    ctx: &'a ToolContext,
    names: PathNames,
    lines: HashMap<PathBuf, Vec<String>>,
    hidden: usize,
}

impl<'a> Render<'a> {
    pub(crate) fn new(ctx: &'a ToolContext) -> Self {
        Render { ctx, names: PathNames::relative_to(&ctx.cwd), lines: HashMap::new(), hidden: 0 }
    }

    /// The file `uri` names, unless the rules keep it from reading, as named or where its
    /// links lead (counted); a server may name any path.
    fn visible(&mut self, uri: &Url) -> Option<PathBuf> {
        let path = uri.to_file_path().ok()?;
        let real = std::fs::canonicalize(&path).ok();
        if self.ctx.read_denied(&path, None) || real.as_deref().is_some_and(|r| self.ctx.read_denied(r, None)) {
            self.hidden += 1;
            return None;
        }
        Some(path)
    }

    /// `path:line:column` of `range`'s start, from 1.
    fn place(&mut self, path: &Path, range: &Range) -> String {
        let lines = self.lines.entry(path.to_path_buf()).or_insert_with(|| line_texts(path));
        let line = lines.get(range.start.line as usize);
        let column =
            line.map_or(range.start.character as usize, |l| crate::position::column_of(l, range.start.character));
        format!("{}:{}:{}", self.names.name(path), range.start.line + 1, column + 1)
    }

    fn line_text(&self, path: &Path, line: u32) -> String {
        let text = self.lines.get(path).and_then(|l| l.get(line as usize)).map_or("", |l| l.trim());
        text.chars().take(160).collect()
    }

    fn location(&mut self, uri: &Url, range: &Range) -> Option<String> {
        let path = self.visible(uri)?;
        let place = self.place(&path, range);
        Some(format!("{place}: {}", self.line_text(&path, range.start.line)))
    }

    fn footer(&self, mut text: String) -> String {
        if self.hidden > 0 {
            text.push_str(&format!("\n({} result(s) in files the Read rules protect are left out)", self.hidden));
        }
        text
    }

    pub(crate) fn definitions(&mut self, found: Option<GotoDefinitionResponse>, definition: bool) -> String {
        let targets: Vec<(Url, Range)> = match found {
            None => Vec::new(),
            Some(GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range)],
            Some(GotoDefinitionResponse::Array(ls)) => ls.into_iter().map(|l| (l.uri, l.range)).collect(),
            Some(GotoDefinitionResponse::Link(links)) => {
                links.into_iter().map(|l| (l.target_uri, l.target_selection_range)).collect()
            }
        };
        let what = if definition { "definition" } else { "implementation" };
        let listed: Vec<String> = targets.iter().filter_map(|(u, r)| self.location(u, r)).collect();
        if listed.is_empty() {
            return self.footer(format!("No {what} found at that position."));
        }
        self.footer(format!("Found {} {what}(s):\n{}", listed.len(), listed.join("\n")))
    }

    pub(crate) fn references(&mut self, found: Vec<Location>) -> String {
        let total = found.len();
        let mut listed: Vec<String> =
            found.iter().take(MAX_LOCATIONS).filter_map(|l| self.location(&l.uri, &l.range)).collect();
        if listed.is_empty() {
            return self.footer("No references found at that position.".into());
        }
        let files: std::collections::HashSet<&str> = listed.iter().filter_map(|l| l.split(':').next()).collect();
        let head = format!("{} reference(s) in {} file(s):", listed.len(), files.len());
        if total > MAX_LOCATIONS {
            listed.push(format!("… and {} more", total - MAX_LOCATIONS));
        }
        self.footer(format!("{head}\n{}", listed.join("\n")))
    }

    pub(crate) fn hover(&mut self, found: Option<Hover>) -> String {
        let marked = |m: MarkedString| match m {
            MarkedString::String(s) => s,
            MarkedString::LanguageString(l) => format!("```{}\n{}\n```", l.language, l.value),
        };
        let text = match found.map(|h| h.contents) {
            None => String::new(),
            Some(HoverContents::Markup(m)) => m.value,
            Some(HoverContents::Scalar(m)) => marked(m),
            Some(HoverContents::Array(ms)) => ms.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
        };
        if text.trim().is_empty() { "No information at that position.".into() } else { text.trim().to_string() }
    }

    pub(crate) fn document_symbols(&mut self, found: Option<DocumentSymbolResponse>, path: &Path) -> String {
        let mut out = Vec::new();
        match found {
            None => {}
            Some(DocumentSymbolResponse::Nested(symbols)) => outline(&symbols, 0, &mut out),
            Some(DocumentSymbolResponse::Flat(symbols)) => {
                for s in symbols {
                    let inside = s.container_name.map(|c| format!(" in {c}")).unwrap_or_default();
                    out.push(format!("{} {} (line {}){inside}", kind(s.kind), s.name, s.location.range.start.line + 1));
                }
            }
        }
        if out.is_empty() {
            return format!("No symbols in {}.", self.names.name(path));
        }
        format!("Symbols in {}:\n{}", self.names.name(path), out.join("\n"))
    }

    pub(crate) fn workspace_symbols(&mut self, found: Option<WorkspaceSymbolResponse>, query: &str) -> String {
        let mut listed = Vec::new();
        let places: Vec<Found> = match found {
            None => Vec::new(),
            Some(WorkspaceSymbolResponse::Flat(symbols)) => {
                symbols.into_iter().map(|s| (s.name, s.kind, Some((s.location.uri, Some(s.location.range))))).collect()
            }
            Some(WorkspaceSymbolResponse::Nested(symbols)) => symbols
                .into_iter()
                .map(|s| {
                    let at = match s.location {
                        lsp_types::OneOf::Left(l) => Some((l.uri, Some(l.range))),
                        lsp_types::OneOf::Right(w) => Some((w.uri, None)),
                    };
                    (s.name, s.kind, at)
                })
                .collect(),
        };
        for (name, k, at) in places.into_iter().take(MAX_LOCATIONS) {
            let Some((uri, range)) = at else { continue };
            let Some(path) = self.visible(&uri) else { continue };
            let place = match range {
                Some(r) => self.place(&path, &r),
                None => self.names.name(&path),
            };
            listed.push(format!("{} {name} — {place}", kind(k)));
        }
        if listed.is_empty() {
            return self.footer(format!("No symbols match {query:?}."));
        }
        self.footer(format!("{} symbol(s) match {query:?}:\n{}", listed.len(), listed.join("\n")))
    }

    fn item(&mut self, item: &CallHierarchyItem) -> Option<String> {
        let path = self.visible(&item.uri)?;
        let place = self.place(&path, &item.selection_range);
        Some(format!("{} {} — {place}", kind(item.kind), item.name))
    }

    pub(crate) fn call_items(&mut self, items: &[CallHierarchyItem]) -> String {
        let listed: Vec<String> = items.iter().filter_map(|i| self.item(i)).collect();
        if listed.is_empty() {
            return self.footer("No function or method at that position.".into());
        }
        self.footer(format!("Call hierarchy item(s):\n{}", listed.join("\n")))
    }

    pub(crate) fn incoming(&mut self, of: &CallHierarchyItem, calls: Vec<CallHierarchyIncomingCall>) -> String {
        let listed: Vec<String> = calls.iter().filter_map(|c| self.item(&c.from)).collect();
        if listed.is_empty() {
            return self.footer(format!("Nothing calls {}.", of.name));
        }
        self.footer(format!("{} caller(s) of {}:\n{}", listed.len(), of.name, listed.join("\n")))
    }

    pub(crate) fn outgoing(&mut self, of: &CallHierarchyItem, calls: Vec<CallHierarchyOutgoingCall>) -> String {
        let listed: Vec<String> = calls.iter().filter_map(|c| self.item(&c.to)).collect();
        if listed.is_empty() {
            return self.footer(format!("{} calls nothing the server knows.", of.name));
        }
        self.footer(format!("{} calls {} function(s):\n{}", of.name, listed.len(), listed.join("\n")))
    }
}

/// The lines of `path`, when it is a regular file of a readable size (a server may name
/// a pipe, a device or something huge: then no line is shown).
fn line_texts(path: &Path) -> Vec<String> {
    const LARGEST: u64 = 8 << 20;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() <= LARGEST => {}
        _ => return Vec::new(),
    }
    std::fs::read_to_string(path).map(|t| t.lines().map(str::to_string).collect()).unwrap_or_default()
}

/// Nested symbols as an indented outline.
fn outline(symbols: &[DocumentSymbol], depth: usize, out: &mut Vec<String>) {
    for s in symbols {
        let detail = s.detail.as_deref().filter(|d| !d.is_empty()).map(|d| format!(": {d}")).unwrap_or_default();
        out.push(format!(
            "{}{} {}{detail} (line {})",
            "  ".repeat(depth),
            kind(s.kind),
            s.name,
            s.selection_range.start.line + 1
        ));
        if let Some(children) = &s.children {
            outline(children, depth + 1, out);
        }
    }
}

fn kind(k: SymbolKind) -> String {
    let name = format!("{k:?}");
    // SymbolKind's Debug is `SymbolKind(12)` or its constant's name, depending on version.
    match k {
        SymbolKind::FILE => "file",
        SymbolKind::MODULE => "module",
        SymbolKind::NAMESPACE => "namespace",
        SymbolKind::PACKAGE => "package",
        SymbolKind::CLASS => "class",
        SymbolKind::METHOD => "method",
        SymbolKind::PROPERTY => "property",
        SymbolKind::FIELD => "field",
        SymbolKind::CONSTRUCTOR => "constructor",
        SymbolKind::ENUM => "enum",
        SymbolKind::INTERFACE => "interface",
        SymbolKind::FUNCTION => "function",
        SymbolKind::VARIABLE => "variable",
        SymbolKind::CONSTANT => "constant",
        SymbolKind::STRUCT => "struct",
        SymbolKind::ENUM_MEMBER => "enum member",
        SymbolKind::TYPE_PARAMETER => "type parameter",
        _ => return name.to_lowercase(),
    }
    .to_string()
}
