//! E1: an external agent's turn in the server: the `turn:start` frame made (where the agent
//! stands, the team as the `team` tool says it, its mail), the agent's `agent:action` frame
//! read (a `say` and a `set_work_state`), each action carried out by the translator with its
//! `action:result` frame and its tool line, and the `turn:end` frame. Eight agents, one per
//! seat around the lead (the grid holds eight: more cannot be seated, so "100 connected"
//! is eight here). Not in it: the socket (loopback WebSocket framing) and the store's commit
//! of the turn's events (P3 measures that).

use std::time::Instant;

use app::contract::external::{ClientFrame, ServerFrame, TurnMessage, TurnState};
use app::domain::Seat;
use serde_json::{json, Value};
use soulgrid::runtime::turn::Translator;

use crate::table::Row;

#[expect(
    clippy::too_many_lines,
    reason = "longer than 80 lines: to be split (issue 54)"
)]
pub fn round_trip(quick: bool) -> Row {
    let turns = if quick { 400 } else { 4_000 };
    eprintln!("E1: {turns} external agents' turns through the server's part…");
    let docs = crate::tools::team();
    let seats: Vec<Seat> = app::domain::agent_seats().collect();
    let mut agents: Vec<Translator> = seats
        .iter()
        .enumerate()
        .map(|(i, seat)| {
            Translator::new(*seat, Some(format!("Agent{i}")), false)
                .with_team_names("Julian", "Marcus")
        })
        .collect();
    let mut took = Vec::with_capacity(turns);
    for turn in 0..turns {
        let at = seats.len();
        let (seat, agent) = (seats[turn % at], &mut agents[turn % at]);
        // What the agent answers, as its client would write it (made outside the timing).
        let answer = json!({"type": "agent:action", "turn": turn, "actions": [
            {"type": "say", "text": format!("On it: turn {turn}.")},
            {"type": "set_work_state", "state": "bootstrap", "summary": format!("turn {turn}")},
        ]})
        .to_string();
        let start = Instant::now();
        let mut out_bytes = 0usize;
        let state = TurnState {
            seat,
            name: agent.name().map(str::to_string),
            work_state: None,
            team: app::domain::tools::team(&docs),
            in_stage: app::domain::tools::Standing::of(&docs, seat, agent.name()).in_stage,
        };
        let frame = ServerFrame::TurnStart {
            turn: turn as u64,
            messages: TurnMessage::cut(&app::domain::provenance::delivered(
                "Marcus",
                &format!("Please look at item {turn}."),
            )),
            state,
        };
        out_bytes += serde_json::to_string(&frame).map_or(0, |s| s.len());
        let Ok(ClientFrame::Action { actions, .. }) = serde_json::from_str(&answer) else {
            panic!("the answer is an agent:action frame");
        };
        let mut events = 0;
        for (index, action) in actions.iter().enumerate() {
            let kind = action["type"].as_str().unwrap_or_default();
            let (ok, text) = match kind {
                "say" => {
                    let out = agent.said(action["text"].as_str().unwrap_or_default());
                    events += out.events.len();
                    (true, "Said.".to_string())
                }
                tool => {
                    let mut args = action.as_object().cloned().unwrap_or_default();
                    args.remove("type");
                    let args = Value::Object(args);
                    let (out, answered) = agent.act(tool, &args, "external-bench", &docs);
                    events += out.events.len();
                    let (text, is_error) = answered.expect("answered by the translator");
                    std::hint::black_box(agent.tool_line(tool, &args, &text, is_error));
                    events += 1;
                    (!is_error, text)
                }
            };
            let result = ServerFrame::ActionResult {
                turn: turn as u64,
                index,
                ok,
                text,
            };
            out_bytes += serde_json::to_string(&result).map_or(0, |s| s.len());
        }
        events += agent.turn_over(None, &docs).events.len();
        let end = ServerFrame::TurnEnd {
            turn: turn as u64,
            how: "answered".into(),
        };
        out_bytes += serde_json::to_string(&end).map_or(0, |s| s.len());
        took.push(start.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box((out_bytes, events));
        assert!(
            events >= 3,
            "a say, a work state and its tool line made events"
        );
    }
    Row::new(
        "E1",
        "an external agent's turn in the server: turn:start made → agent:action read, each action's result and the turn:end made (8 agents, one per seat; the socket and the store's commit not in it: P3)",
        "p95 ≤ 1 ms",
    )
    .p95_within(took, 1.0)
}
