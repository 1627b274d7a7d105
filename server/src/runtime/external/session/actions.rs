//! An answer's actions carried out: `say` and `register` by the translator's own calls, every
//! other action as the agents' tool of that name; each one's result sent (now, or once the
//! team has carried it out) and kept as a line of the agent's thread; what the translator made
//! of it recorded and handed on (`carry`).

use app::contract::external::ServerFrame;
use app::domain::events::EventKind;
use serde_json::Value;

use super::{Pending, Queued, Session};
use crate::runtime::process::answer::Answer;
use crate::runtime::process::supervisor::Report;
use crate::runtime::process::turn::Output;

impl Session {
    /// One action of the open turn, carried out; its result sent (now, or when the team has
    /// carried it out).
    pub(super) async fn act(&mut self, turn: u64, index: usize, action: &Value) {
        let result = |ok: bool, text: String| ServerFrame::ActionResult {
            turn,
            index,
            ok,
            text,
        };
        let Some(fields) = action.as_object() else {
            let why = "an action is an object with a \"type\"".to_string();
            self.said_once("action", &why).await;
            return self.send(&result(false, why)).await;
        };
        let kind = fields.get("type").and_then(Value::as_str).unwrap_or("");
        let mut args = fields.clone();
        args.remove("type");
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        match kind {
            "say" => match text("text") {
                Some(words) => {
                    let out = self.translator.said(&words);
                    self.carry(out).await;
                    self.send(&result(true, "Said.".into())).await;
                }
                None => {
                    let why = "say takes a \"text\"".to_string();
                    self.said_once("action", &why).await;
                    self.send(&result(false, why)).await;
                }
            },
            "register" => match text("name") {
                Some(name) => self.register(Some((turn, index)), name, text("soul")).await,
                None => {
                    let why = "register takes a \"name\"".to_string();
                    self.send(&result(false, why)).await;
                }
            },
            tool => {
                let request_id = format!("external-{}-{turn}-{index}", self.seat);
                let args = Value::Object(args);
                let translator = &mut self.translator;
                let (out, answered) = self
                    .recorder
                    .store
                    .with_docs(|docs| translator.act(tool, &args, &request_id, docs));
                let pending = Pending {
                    turn,
                    index,
                    tool: tool.to_string(),
                    args,
                };
                match answered {
                    None => {
                        self.pending.insert(request_id, pending);
                        self.carry(out).await;
                    }
                    Some((text, is_error)) => {
                        self.carry(out).await;
                        self.answered(pending, !is_error, text).await;
                    }
                }
            }
        }
    }

    /// A tool action's outcome: a line of its thread, and its `action:result`.
    pub(super) async fn answered(&mut self, p: Pending, ok: bool, text: String) {
        let line = self.translator.tool_line(&p.tool, &p.args, &text, !ok);
        self.record(vec![line]).await;
        self.send(&ServerFrame::ActionResult {
            turn: p.turn,
            index: p.index,
            ok,
            text,
        })
        .await;
    }

    /// A newcomer's name (and soul), by the newborn's rules; `at`: the action it answers.
    pub(super) async fn register(
        &mut self,
        at: Option<(u64, usize)>,
        name: String,
        soul: Option<String>,
    ) {
        let naming = self.naming.clone();
        let _one = naming.lock().await;
        let translator = &mut self.translator;
        let out = self
            .recorder
            .store
            .with_docs(|docs| translator.register(name, soul, docs));
        let refused = out.events.iter().find_map(|e| match e {
            EventKind::MarkerError { error, .. } => Some(error.clone()),
            _ => None,
        });
        self.carry(out).await;
        drop(_one);
        let (ok, text) = match (&refused, self.translator.name()) {
            (None, Some(name)) => (true, format!("You are {name}.")),
            (Some(why), _) => (false, why.clone()),
            (None, None) => (false, "no name was registered".to_string()),
        };
        match at {
            Some((turn, index)) => {
                self.send(&ServerFrame::ActionResult {
                    turn,
                    index,
                    ok,
                    text,
                })
                .await
            }
            None if !ok => {
                self.send(&ServerFrame::Error {
                    turn: None,
                    message: text,
                })
                .await
            }
            None => {}
        }
    }

    /// What the translator made of an action: recorded, its requests handed to the runtime
    /// (a tool call's answer with the last), its replies fed back as input.
    pub(super) async fn carry(&mut self, out: Output) {
        self.record(out.events).await;
        if let Some(reason) = out.stop {
            self.ending = Some(reason);
        }
        // What the translator answers itself (a newcomer asked for another name) is a turn.
        for line in out.replies {
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if let (Some("user"), Some(text)) =
                    (v["type"].as_str(), v["message"]["content"].as_str())
                {
                    let uuid = v["uuid"].as_str().unwrap_or_default().to_string();
                    let text = text.to_string();
                    self.queued.push_back(Queued { uuid, text });
                }
            }
        }
        let mut answer = out.answer.map(|call| Answer {
            call,
            stdin: self.live.stdin.clone(),
        });
        let last = out.requests.len().saturating_sub(1);
        for (i, request) in out.requests.into_iter().enumerate() {
            let answer = if i == last { answer.take() } else { None };
            let _ = self.reports.send(Report::Request(request, answer));
        }
    }
}
