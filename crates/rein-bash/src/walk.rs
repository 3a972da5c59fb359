//! Walking the syntax tree: every command, substitution and redirection.

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use crate::unwrap::unwrap;
use crate::words::word;
use crate::{Analysis, Problem, ProblemClass, Redirect, Word};

/// More commands than this in one line are not analysed further.
pub(crate) const MAX_COMMANDS: usize = 50;
/// How deep `bash -c '…'` and `eval` may nest.
const MAX_DEPTH: usize = 4;
/// The syntax nodes that are one word of a command.
const WORD_KINDS: &[&str] =
    &["word", "string", "raw_string", "number", "concatenation", "simple_expansion", "expansion", "ansi_c_string"];
/// Longer command lines are not analysed.
const MAX_LEN: usize = 10_000;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Analyse a command line.
pub fn analyze(src: &str) -> Analysis {
    let mut a = Analysis::default();
    analyze_into(src, 0, &mut a);
    if a.commands.len() > MAX_COMMANDS {
        a.problems.push(Problem::new(ProblemClass::Syntax, format!("more than {MAX_COMMANDS} commands")));
    }
    a
}

/// Analyse `src` (possibly an inner `bash -c` script) into `a`.
pub(crate) fn analyze_into(src: &str, depth: usize, a: &mut Analysis) {
    if depth > MAX_DEPTH {
        a.problems.push(Problem::new(ProblemClass::Syntax, "commands nested too deeply"));
        return;
    }
    if src.len() > MAX_LEN {
        a.problems.push(Problem::new(ProblemClass::Syntax, format!("the command is longer than {MAX_LEN} characters")));
    }
    if src.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        a.problems.push(Problem::new(ProblemClass::Syntax, "the command contains control characters"));
    }
    if src.chars().any(|c| c.is_whitespace() && !c.is_ascii()) {
        a.problems.push(Problem::new(ProblemClass::Syntax, "the command contains Unicode whitespace"));
    }
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = Parser::new();
            if p.set_language(&tree_sitter_bash::LANGUAGE.into()).is_ok() {
                *slot = Some(p);
            }
        }
        slot.as_mut().and_then(|p| p.parse(src, None))
    });
    let Some(tree) = tree else {
        a.problems.push(Problem::new(ProblemClass::Syntax, "the command could not be parsed"));
        return;
    };
    let root = tree.root_node();
    if root.has_error() {
        a.problems.push(Problem::new(ProblemClass::Syntax, "the command has a syntax error"));
    }
    let mut w = Walker { src, depth, a, loop_vars: Vec::new() };
    w.node(root);
}

struct Walker<'s, 'a> {
    src: &'s str,
    depth: usize,
    a: &'a mut Analysis,
    /// The variables of the `for` loops being walked whose values rein knows.
    loop_vars: Vec<(String, Vec<Word>)>,
}

impl Walker<'_, '_> {
    fn children(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in kids {
            self.node(child);
        }
    }

    fn node(&mut self, node: Node<'_>) {
        if self.a.commands.len() > super::walk::MAX_COMMANDS * 4 {
            return;
        }
        match node.kind() {
            "pipeline" => {
                let first = self.a.commands.len();
                let stages = self.stage_words(node);
                self.children(node);
                if let Some(stages) = stages {
                    crate::compose::find_into_xargs(self.a, first, &stages);
                }
            }
            "program" | "list" | "subshell" | "compound_statement" | "negated_command" | "do_group" => {
                self.children(node);
            }
            "redirected_statement" => self.children(node),
            "command" => self.command(node),
            "file_redirect" | "herestring_redirect" => self.redirect(node),
            "heredoc_redirect" => {
                // The body is data, but an unquoted here-document still runs its
                // substitutions, and a redirect may ride along (`cat <<EOF > file`).
                self.heredoc_problem(node);
                self.children(node);
            }
            "heredoc_body" | "heredoc_start" | "heredoc_end" | "heredoc_content" | "comment" | "string_content" => {
                self.substitutions_in(node);
            }
            "command_substitution" | "process_substitution" => {
                self.backquote_problem(node);
                self.children(node);
            }
            "variable_assignment" | "variable_assignments" => {
                self.assignments(node);
                self.substitutions_in(node);
            }
            "declaration_command" | "unset_command" => self.declaration(node),
            "test_command" => {
                self.substitutions_in(node);
                self.single_bracket_test(node);
            }
            "for_statement" if let Some(known) = crate::loops::modelled_loop(node, self.src) => {
                if let Some(body) = node.child_by_field_name("body") {
                    let first = self.a.commands.len();
                    self.loop_vars.push(known);
                    self.node(body);
                    self.loop_vars.pop();
                    // The body runs once per value: one that moves the shell (however
                    // `cd` is spelled) or runs a program only known at run time is not
                    // judged by one pass.
                    let moves = self.a.commands[first..]
                        .iter()
                        .any(|c| c.program().is_none_or(|p| matches!(p, "cd" | "pushd" | "popd" | "source" | ".")));
                    if moves {
                        self.problem(Problem::new(
                            ProblemClass::ControlFlow,
                            "a loop whose body changes directory or runs what only the run knows",
                        ));
                    }
                }
            }
            "for_statement"
            | "c_style_for_statement"
            | "while_statement"
            | "if_statement"
            | "case_statement"
            | "function_definition"
            | "elif_clause"
            | "else_clause"
            | "case_item" => {
                self.problem(Problem::new(
                    ProblemClass::ControlFlow,
                    format!("it uses shell control flow ({})", node.kind()),
                ));
                self.children(node);
            }
            "ERROR" => {
                self.problem(Problem::new(ProblemClass::Syntax, "the command has a syntax error"));
                self.children(node);
            }
            kind if WORD_KINDS.contains(&kind) || kind == "arithmetic_expansion" => self.substitutions_in(node),
            other => {
                self.problem(Problem::new(
                    ProblemClass::Syntax,
                    format!("it uses shell syntax rein does not analyse ({other})"),
                ));
                self.children(node);
            }
        }
    }

    /// Inside `` `…` `` bash removes a backslash before `` ` ``, `$` and `\\` before it
    /// parses the body, so `` \` `` opens a nested substitution the syntax tree reads as
    /// a literal backtick: such a body is not what the tree says.
    fn backquote_problem(&mut self, node: Node<'_>) {
        let text = node.utf8_text(self.src.as_bytes()).unwrap_or_default();
        if text.starts_with('`') && (text.contains("\\`") || text.contains("\\$") || text.contains("\\\\")) {
            self.problem(Problem::new(
                ProblemClass::Syntax,
                "a backquoted substitution holds escapes bash removes before it runs the body",
            ));
        }
    }

    /// The words of each stage of a pipeline of plain commands (none for any other shape).
    fn stage_words(&self, node: Node<'_>) -> Option<Vec<Vec<Word>>> {
        let mut cursor = node.walk();
        let stages: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        stages
            .iter()
            .map(|stage| {
                if stage.kind() != "command" {
                    return None;
                }
                let mut c = stage.walk();
                let kids: Vec<Node<'_>> = stage.named_children(&mut c).collect();
                if kids.iter().any(|k| {
                    k.kind() != "command_name"
                        && !matches!(k.kind(), "word" | "string" | "raw_string" | "concatenation" | "number")
                }) {
                    return None;
                }
                Some(kids.iter().map(|k| word(*k, self.src)).collect())
            })
            .collect()
    }

    /// `[ … ]` is the `test` builtin: its words are split and globbed like any command's
    /// (`[[ … ]]` is syntax and does neither), so it is judged as the command `[`.
    fn single_bracket_test(&mut self, node: Node<'_>) {
        let text = node.utf8_text(self.src.as_bytes()).unwrap_or_default();
        if text.starts_with("[[") {
            return;
        }
        let mut words = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let leaf = WORD_KINDS.contains(&n.kind()) || n.kind() == "command_substitution";
            let text = n.utf8_text(self.src.as_bytes()).unwrap_or_default();
            if leaf {
                words.push(word(n, self.src));
            } else if n.child_count() == 0 || n.kind() == "test_operator" {
                // In `[ … ]` bash reads `>`, `<`, `2>`, `&>` as redirections.
                let t = text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
                if t.starts_with(['<', '>']) {
                    self.problem(Problem::new(
                        ProblemClass::Syntax,
                        format!("`{text}` inside `[ … ]` is a redirection rein does not analyse"),
                    ));
                }
                // Any other leaf: literal only when it holds nothing bash expands.
                let plain =
                    !text.contains(['*', '?', '[', ']', '$', '`', '{', '~', '\\']) || text == "[" || text == "]";
                words.push(if plain {
                    Word::literal(text)
                } else {
                    Word { text: text.to_string(), literal: false, glob: true }
                });
            } else {
                let mut cursor = n.walk();
                stack.extend(n.children(&mut cursor).collect::<Vec<Node<'_>>>().into_iter().rev());
            }
        }
        if words.first().is_some_and(|w| w.text == "[") {
            unwrap(words, self.depth, self.a, analyze_into);
        }
    }

    /// An unquoted here-document expands its body, and the syntax tree does not find
    /// every substitution there (a body line that starts with a tab, a delimiter that
    /// holds `$`): such a body with `$(`, `` ` `` or `${` is not analysed.
    fn heredoc_problem(&mut self, node: Node<'_>) {
        let text = node.utf8_text(self.src.as_bytes()).unwrap_or_default();
        let mut cursor = node.walk();
        let start = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "heredoc_start")
            .and_then(|c| c.utf8_text(self.src.as_bytes()).ok())
            .unwrap_or_default();
        let quoted = start.contains(['\'', '"', '\\']);
        // The body follows the redirect (where the tree puts it varies): all that follows.
        let rest = self.src.get(node.start_byte()..).unwrap_or_default();
        if start.contains('$') || (!quoted && (rest.contains("$(") || rest.contains('`') || rest.contains("${"))) {
            self.problem(Problem::new(
                ProblemClass::Dynamic,
                format!(
                    "the here-document `{}` expands what rein does not analyse",
                    text.lines().next().unwrap_or(text)
                ),
            ));
        }
    }

    fn problem(&mut self, p: Problem) {
        if !self.a.problems.contains(&p) {
            self.a.problems.push(p);
        }
    }

    /// Walk into every command or process substitution below `node`, and note
    /// arithmetic that could execute.
    fn substitutions_in(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if let Some(p) = crate::arith::problem(n, self.src) {
                self.problem(p);
            }
            if matches!(n.kind(), "command_substitution" | "process_substitution") {
                self.backquote_problem(n);
                self.children(n);
                continue;
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
    }

    fn command(&mut self, node: Node<'_>) {
        let mut words: Vec<Word> = Vec::new();
        // Words that are exactly `"$VAR"` of a loop rein models, and which variable.
        let mut slots: Vec<(usize, String)> = Vec::new();
        // The trees of a listing substituted unquoted (`cat $(find src)`), in its place.
        let mut listed: Option<(Word, Vec<Word>)> = None;
        let mut cursor = node.walk();
        let kids: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for child in kids {
            match child.kind() {
                "variable_assignment" => {
                    self.assignments(child);
                    self.substitutions_in(child);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => self.node(child),
                _ => {
                    self.substitutions_in(child);
                    if let Some(var) = crate::loops::loop_word(child, self.src, &self.loop_vars) {
                        slots.push((words.len(), var.to_string()));
                    }
                    let w = word(child, self.src);
                    if listed.is_none()
                        && let Some(roots) = crate::compose::listing_roots(child, self.src)
                    {
                        listed = Some((w.clone(), roots));
                    }
                    words.push(w);
                }
            }
        }
        if words.is_empty() {
            return;
        }
        let first = self.a.commands.len();
        match crate::loops::expand(&words, &slots, &self.loop_vars).filter(|_| !slots.is_empty()) {
            Some(each) => each.into_iter().for_each(|w| unwrap(w, self.depth, self.a, analyze_into)),
            None => unwrap(words, self.depth, self.a, analyze_into),
        }
        if let Some((listing, roots)) = listed {
            crate::compose::feed_listing(self.a, first, &listing, &roots);
        }
    }

    /// `NAME=value` (before a command, or alone): only inert names are understood.
    fn assignments(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "variable_assignment" {
                let name = n.child_by_field_name("name");
                let text = name.and_then(|c| c.utf8_text(self.src.as_bytes()).ok()).unwrap_or_default();
                let simple = name.is_some_and(|c| c.kind() == "variable_name");
                match crate::assign::assignment_problem(text) {
                    Some(p) => self.problem(p),
                    None if !simple => {
                        self.problem(Problem::new(ProblemClass::Arithmetic, format!("it assigns `{text}`")));
                    }
                    None => {}
                }
                continue;
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
    }

    fn declaration(&mut self, node: Node<'_>) {
        // `export A=$(…)` runs what is inside; the declaration itself changes only the
        // shell's own variables.
        self.substitutions_in(node);
        let keyword = node.child(0).and_then(|c| c.utf8_text(self.src.as_bytes()).ok()).unwrap_or("declare");
        let mut words = vec![Word::literal(keyword)];
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            words.push(word(child, self.src));
        }
        unwrap(words, self.depth, self.a, analyze_into);
    }

    fn redirect(&mut self, node: Node<'_>) {
        self.substitutions_in(node);
        let mut op = String::new();
        let mut target = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                op.push_str(child.utf8_text(self.src.as_bytes()).unwrap_or_default());
            } else if child.kind() != "file_descriptor" {
                target = Some(word(child, self.src));
            }
        }
        if node.kind() == "herestring_redirect" {
            return;
        }
        if let Some(target) = target {
            let dup = (op.ends_with('&') || op == ">&" || op == "<&")
                && target.text.chars().all(|c| c.is_ascii_digit() || c == '-');
            if !target.literal && !dup {
                self.problem(Problem::new(
                    ProblemClass::Dynamic,
                    format!("the redirection target `{}` is only known at run time", target.text),
                ));
            }
            self.a.redirects.push(Redirect { op, target });
        }
    }
}
