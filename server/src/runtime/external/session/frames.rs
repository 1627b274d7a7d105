//! The client's frames: each read as the protocol's (`agent:action`, `agent:wait`), the turn it
//! names checked against the open one, and what cannot be taken answered with an `error` frame
//! and recorded on the seat once per kind.

use app::contract::external::{ClientFrame, ServerFrame};
use app::domain::events::EventKind;
use serde_json::Value;

use super::{cut, Open, Session, MAX_ACTIONS};

impl Session {
    /// One text frame from the client.
    pub(super) async fn on_frame(&mut self, text: &str) {
        let frame = match serde_json::from_str::<ClientFrame>(text) {
            Ok(frame) => frame,
            Err(e) => {
                let why = match serde_json::from_str::<Value>(text) {
                    Err(_) => format!("a frame that is not JSON: {e}"),
                    Ok(v) => match v["type"].as_str() {
                        Some("agent:register" | "agent:action" | "agent:wait") => {
                            format!("a frame that does not fit its type: {e}")
                        }
                        Some(t) => format!("a frame of unknown type {:?}", cut(t, 40)),
                        None => "a frame with no \"type\"".to_string(),
                    },
                };
                return self.refuse_frame(None, &why).await;
            }
        };
        match frame {
            ClientFrame::Register { .. } => {
                self.refuse_frame(None, "agent:register came twice: it is registered")
                    .await
            }
            ClientFrame::Wait { turn } => {
                if let Some(open) = self.open_turn(turn).await {
                    self.end_turn(open, Some("waited".into()), "waited").await;
                }
            }
            ClientFrame::Action { turn, actions } => {
                if actions.len() > MAX_ACTIONS {
                    let why = format!(
                        "{} actions in one turn: at most {MAX_ACTIONS}",
                        actions.len()
                    );
                    return self.refuse_frame(Some(turn), &why).await;
                }
                if let Some(open) = self.open_turn(turn).await {
                    for (index, action) in actions.iter().enumerate() {
                        self.act(turn, index, action).await;
                    }
                    self.end_turn(open, None, "answered").await;
                }
            }
        }
    }

    /// The open turn, if `turn` names it; else the frame is refused.
    pub(super) async fn open_turn(&mut self, turn: u64) -> Option<Open> {
        match &self.open {
            Some(open) if open.turn == turn => self.open.take(),
            Some(open) => {
                let why = format!("turn {turn} is not the open turn ({})", open.turn);
                self.refuse_frame(Some(turn), &why).await;
                None
            }
            None => {
                let why = format!("turn {turn} is not open: no turn is");
                self.refuse_frame(Some(turn), &why).await;
                None
            }
        }
    }

    /// A frame refused: the client is told why; the seat records each kind once.
    pub(super) async fn refuse_frame(&mut self, turn: Option<u64>, why: &str) {
        self.said_once("frame", why).await;
        self.send(&ServerFrame::Error {
            turn,
            message: why.to_string(),
        })
        .await;
    }

    /// Records a bad frame or action on the seat, once per kind per connection.
    pub(super) async fn said_once(&mut self, kind: &'static str, why: &str) {
        if self.said.contains(&kind) {
            return;
        }
        self.said.push(kind);
        self.record(vec![EventKind::MarkerError {
            seat: Some(self.seat),
            line: format!("external {kind}"),
            error: why.to_string(),
        }])
        .await;
    }
}
