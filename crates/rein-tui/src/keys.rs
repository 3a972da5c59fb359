//! Keys in the interactive session's dialogs and helpers: the permission dialog, Ctrl+R
//! search, the Esc Esc picker, exiting.

use std::time::Instant;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rein_engine::Answer;
use rein_policy::{Change, Destination, ListKind, PermissionMode, PermissionUpdate, SettingsFiles, UpdateError};

use crate::app::{App, EXIT_WINDOW};
use crate::dialog;

impl App {
    /// A "don't ask again" answer, through the policy's one door for updates.
    pub(crate) fn apply(
        &self,
        change: Change,
        destination: Destination,
    ) -> Result<Option<std::path::PathBuf>, UpdateError> {
        let files = SettingsFiles { project_root: self.project_root.clone(), user_dir: None };
        self.policy.apply(&PermissionUpdate { change, destination }, &files)
    }

    /// `/resume`: Up/Down choose, Enter continues that session (this one ends), Esc closes.
    pub(crate) fn sessions_key(&mut self, key: KeyEvent) {
        let Some((list, selected)) = &mut self.sessions else { return };
        match key.code {
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected = (*selected + 1).min(list.len().saturating_sub(1)),
            KeyCode::Enter => {
                self.resume_to = list.get(*selected).map(|(id, _)| id.clone());
                self.sessions = None;
                self.quit = true;
            }
            KeyCode::Esc => self.sessions = None,
            _ => {}
        }
    }

    /// Ctrl+R: type to search earlier prompts; Ctrl+R again for an older match; Enter
    /// sends the match, Tab or Esc puts it in the input box, Ctrl+C cancels.
    pub(crate) fn search_key(&mut self, key: KeyEvent) {
        let Some((query, found)) = &mut self.search else { return };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let entries = self.composer.history();
        match key.code {
            KeyCode::Char('r') if ctrl => {
                *found = crate::history::search(entries, query, found.unwrap_or(entries.len())).or(*found);
            }
            KeyCode::Char('c') if ctrl => self.search = None,
            KeyCode::Char(c) if !ctrl => {
                query.push(c);
                *found = crate::history::search(entries, query, entries.len());
            }
            KeyCode::Backspace => {
                query.pop();
                *found = crate::history::search(entries, query, entries.len());
            }
            KeyCode::Enter | KeyCode::Tab | KeyCode::Esc => {
                let text = found.and_then(|i| entries.get(i)).cloned();
                self.search = None;
                if let Some(text) = text {
                    if key.code == KeyCode::Enter {
                        self.composer.clear();
                        self.submit(text);
                    } else {
                        self.composer.set_text(&text);
                    }
                }
            }
            _ => {}
        }
    }

    /// The Esc Esc picker: Up/Down choose; Enter goes back to before that prompt — the
    /// files rein's file tools changed since and the conversation (the prompt is put in
    /// the input box to edit) —, `c` the conversation only, `f` the files only; Esc
    /// closes.
    pub(crate) fn picker_key(&mut self, key: KeyEvent) {
        let Some((list, selected)) = &mut self.picker else { return };
        match key.code {
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected = (*selected + 1).min(list.len().saturating_sub(1)),
            // Enter: the code (what rein's file tools changed) and the conversation;
            // c: the conversation only; f: the code only.
            KeyCode::Enter | KeyCode::Char('c') | KeyCode::Char('f') => {
                let n = *selected;
                let text = list.get(n).cloned().unwrap_or_default();
                let (files, conversation) = match key.code {
                    KeyCode::Char('c') => (false, true),
                    KeyCode::Char('f') => (true, false),
                    _ => (true, true),
                };
                self.picker = None;
                self.ask_engine(crate::worker::ToEngine::Rewind { n, files, conversation, force: false });
                if conversation {
                    self.composer.set_text(&text);
                }
            }
            KeyCode::Esc => self.picker = None,
            _ => {}
        }
    }

    pub(crate) fn arm_exit(&mut self, hint: &str) {
        if self.exit_armed.is_some_and(|t| t.elapsed() < EXIT_WINDOW) {
            self.quit = true;
            return;
        }
        self.exit_armed = Some(Instant::now());
        self.hint = Some((hint.to_string(), Instant::now()));
    }

    pub(crate) fn dialog_key(&mut self, key: KeyEvent) {
        // Tab opens a comment for the model; while it is open, keys type into it.
        if let Some(comment) = &mut self.comment {
            match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    comment.push(c);
                    return;
                }
                KeyCode::Backspace => {
                    comment.pop();
                    return;
                }
                _ => {}
            }
        } else if key.code == KeyCode::Tab {
            self.comment = Some(String::new());
            return;
        }
        let offer_auto = self.offer_auto();
        let Some((q, selected)) = &mut self.question else { return };
        let forced = match ask_user_key(q, selected, key) {
            Some(Step::Handled) => return,
            Some(Step::Done) => Some('\n'),
            None => None,
        };
        let project = self.project_root.display().to_string();
        let options = dialog::options(q, &project, offer_auto);
        let chosen = if forced.is_some() {
            forced
        } else {
            match key.code {
                KeyCode::PageUp => {
                    self.dialog_scroll = self.dialog_scroll.saturating_sub(10);
                    None
                }
                KeyCode::PageDown => {
                    self.dialog_scroll += 10;
                    None
                }
                KeyCode::Up => {
                    *selected = selected.saturating_sub(1);
                    None
                }
                KeyCode::Down => {
                    *selected = (*selected + 1).min(options.len() - 1);
                    None
                }
                KeyCode::Enter => options.get(*selected).map(|o| o.0),
                KeyCode::Esc | KeyCode::Char('n') => Some('3'),
                KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some('3'),
                KeyCode::Char('y') => Some('1'),
                KeyCode::BackTab if q.edits => Some('2'),
                KeyCode::Char(c) if options.iter().any(|o| o.0 == c) => Some(c),
                _ => None,
            }
        };
        let Some(choice) = chosen else { return };
        if let Some((q, selected)) = self.question.as_mut().filter(|(q, _)| crate::user_dialog::is_user_tool(q)) {
            let typed = self.comment.take();
            if key.code == KeyCode::Esc && q.call.name == "AskUserQuestion" {
                if let Some((q, _)) = self.question.take() {
                    let no = Answer { message: Some("The user chose not to answer.".into()), ..Answer::no() };
                    let _ = q.reply.send(no);
                }
                return;
            }
            if let Some(answer) = crate::user_dialog::answer(q, choice, typed, &self.policy) {
                if let Some((q, _)) = self.question.take() {
                    let _ = q.reply.send(answer);
                }
            } else {
                *selected = 0;
            }
            return;
        }
        let Some((q, _)) = self.question.take() else { return };
        let message = self.comment.take().filter(|c| !c.trim().is_empty());
        let answer = match choice {
            '1' => Answer::yes(),
            '2' if q.edits => {
                let _ = self.apply(Change::SetMode(PermissionMode::AcceptEdits), Destination::Session);
                self.note("Edits are allowed for the rest of this session");
                Answer::yes()
            }
            '2' => {
                match self.apply(Change::AddRules(ListKind::Allow, q.remember.clone()), Destination::LocalSettings) {
                    Ok(Some(path)) => self.note(format!("Remembered {} in {}", q.remember.join(", "), path.display())),
                    Ok(None) => {}
                    Err(e) => self.note(format!("Could not save the rule: {e}")),
                }
                Answer::yes()
            }
            'a' => {
                let _ = self.apply(Change::SetMode(PermissionMode::Auto), Destination::Session);
                self.note("Auto mode: a judge model decides the calls the rules leave open (shift+tab to leave)");
                Answer::yes()
            }
            _ => Answer::no(),
        };
        // "No" without a note stops the turn and waits for the person, as the option says;
        // with a note the model reads it and goes on.
        let stop = !answer.allow && message.is_none() && !q.network;
        let _ = q.reply.send(Answer { message, ..answer });
        if stop && let Some(b) = &self.busy {
            b.token.cancel();
        }
    }
}

/// What a key did on AskUserQuestion beyond choosing one option.
enum Step {
    /// Moved back, or ticked: nothing more to do.
    Handled,
    /// Enter on a question that takes several: answer with the ticked ones.
    Done,
}

/// Left goes back to the question before; on a question that takes several, Space or
/// an option's number ticks it and Enter answers with those ticked.
fn ask_user_key(q: &mut crate::approver::Question, selected: &mut usize, key: KeyEvent) -> Option<Step> {
    if q.call.name != "AskUserQuestion" {
        return None;
    }
    if key.code == KeyCode::Left && !q.progress.is_empty() {
        crate::user_dialog::back(q);
        *selected = 0;
        return Some(Step::Handled);
    }
    if !crate::user_dialog::multi(q) {
        return None;
    }
    let options = crate::user_dialog::options(q);
    let tick = match key.code {
        KeyCode::Char(' ') => Some(*selected),
        KeyCode::Char(c) if c.is_ascii_digit() => options.iter().position(|o| o.0 == c),
        _ => None,
    };
    if let Some(i) = tick.filter(|i| options.get(*i).is_some_and(|o| o.0 != 'o')) {
        match q.checked.iter().position(|c| *c == i) {
            Some(at) => {
                q.checked.remove(at);
            }
            None => q.checked.push(i),
        }
        *selected = i;
        return Some(Step::Handled);
    }
    if key.code == KeyCode::Enter && options.get(*selected).is_some_and(|o| o.0 != 'o') {
        if q.checked.is_empty() {
            q.checked.push(*selected);
        }
        return Some(Step::Done);
    }
    None
}
