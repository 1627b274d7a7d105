"""An external agent for Soulgrid, in one file (protocol: docs/EXTERNAL.md).

    pip install websockets
    python3 examples/echo.py --url ws://127.0.0.1:3000/ws/agent --invite sgi_...

A tiny handler API: write an async function that takes a `Turn`, call its actions
(`say`, `send_message`, `post_finding`, `stage_done`, or any tool by `act`), and return.
Nothing called is a wait. The agent keeps its identity and secret in a state file, so a
restarted program comes back as the same agent; it reconnects when the connection is lost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Optional

import websockets

PROTOCOL = 1
# Close codes after which reconnecting would not help (docs/EXTERNAL.md).
FINAL = {4000: "replaced by a newer connection", 4001: "put to sleep or retired by the human",
         4003: "refused", 4004: "a protocol error"}


@dataclass
class Message:
    """One message of a turn: who sent it (`None` for words the console itself gave), its
    words, and both as a Claude agent would read them (`text`: the sender's header line, then
    the words)."""

    sender: Optional[str]
    body: str
    text: str

    def __str__(self) -> str:
        return self.body


@dataclass
class Turn:
    """One turn: what reached the agent, where it stands, and the actions it answers with."""

    number: int
    messages: list[Message]
    state: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(m.text for m in self.messages)

    @property
    def in_stage(self) -> bool:
        return bool(self.state.get("inStage"))

    def act(self, kind: str, **args: Any) -> None:
        """Any action by its name (`say`, `register`, or one of the agents' tools)."""
        self.actions.append({"type": kind, **args})

    def say(self, text: str) -> None:
        self.act("say", text=text)

    def register(self, name: str, soul: Optional[str] = None) -> None:
        self.act("register", name=name, **({"soul": soul} if soul else {}))

    def send_message(self, to: str, text: str) -> None:
        self.act("send_message", to=to, text=text)

    def post_finding(self, title: str, body: str, severity: Optional[str] = None) -> None:
        self.act("post_finding", title=title, body=body, **({"severity": severity} if severity else {}))

    def stage_done(self) -> None:
        self.act("stage_done")


Handler = Callable[[Turn], Awaitable[None]]


class Agent:
    """Connects, registers (by invite the first time, by identity and secret after), answers
    each turn with the handler, and reconnects."""

    def __init__(self, url: str, invite: Optional[str] = None, name: Optional[str] = None,
                 soul: Optional[str] = None, state_file: str = ".soulgrid-agent.json") -> None:
        self.url, self.invite, self.name, self.soul = url, invite, name, soul
        self.state_file = state_file
        self.handler: Optional[Handler] = None
        self.identity: Optional[str] = None
        self.secret: Optional[str] = None
        self.seat: Optional[int] = None
        self.results: list[dict[str, Any]] = []
        self.connected = False
        if os.path.exists(state_file):
            with open(state_file) as f:
                saved = json.load(f)
            self.identity, self.secret = saved.get("identity"), saved.get("secret")

    def on_turn(self, handler: Handler) -> Handler:
        self.handler = handler
        return handler

    def log(self, *what: Any) -> None:
        print("[soulgrid-agent]", *what, file=sys.stderr, flush=True)

    def register_frame(self) -> dict[str, Any]:
        if self.identity and self.secret:
            return {"type": "agent:register", "identity": self.identity, "secret": self.secret}
        if not self.invite:
            raise SystemExit("no invite and no saved identity: ask the human for an invite")
        frame: dict[str, Any] = {"type": "agent:register", "invite": self.invite}
        if self.name:
            frame["name"] = self.name
        if self.soul:
            frame["soul"] = self.soul
        return frame

    def keep(self, registered: dict[str, Any]) -> None:
        self.identity, self.seat = registered["identity"], registered["seat"]
        if registered.get("secret"):
            self.secret = registered["secret"]
            # Readable by its owner only, from the moment it exists.
            fd = os.open(self.state_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"identity": self.identity, "secret": self.secret}, f)

    async def session(self) -> Optional[int]:
        """One connection, until it closes; its close code."""
        async with websockets.connect(self.url, max_size=None) as ws:
            await ws.send(json.dumps(self.register_frame()))
            self.connected = True
            try:
                async for raw in ws:
                    frame = json.loads(raw)
                    kind = frame.get("type")
                    if kind == "agent:registered":
                        self.keep(frame)
                        who = frame.get("name") or self.name or "a newcomer"
                        self.log(f"registered as {who} ({self.identity}) in seat {self.seat}")
                    elif kind == "turn:start":
                        await self.answer(ws, frame)
                    elif kind == "action:result":
                        self.results.append(frame)
                        if not frame.get("ok"):
                            self.log(f"action {frame['index']} of turn {frame['turn']} refused: "
                                     f"{frame['text']}")
                    elif kind == "error":
                        self.log("the server said:", frame.get("message"))
            except websockets.ConnectionClosed:
                pass
            return ws.close_code

    async def answer(self, ws: Any, frame: dict[str, Any]) -> None:
        messages = [Message(m.get("from"), m.get("body", m["text"]), m["text"])
                    for m in frame.get("messages", [])]
        turn = Turn(frame["turn"], messages, frame.get("state", {}))
        if self.handler is not None:
            try:
                await self.handler(turn)
            except Exception as e:  # the handler's bug is said, and the turn waited
                self.log(f"the handler failed on turn {turn.number}: {e!r}")
                turn.actions.clear()
        if turn.actions:
            await ws.send(json.dumps({"type": "agent:action", "turn": turn.number,
                                      "actions": turn.actions}))
        else:
            await ws.send(json.dumps({"type": "agent:wait", "turn": turn.number}))

    async def run_async(self) -> None:
        backoff = 1.0
        while True:
            self.connected = False
            try:
                code = await self.session()
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed) as e:
                code = None
                self.log(f"connection failed: {e}")
            if code in FINAL:
                self.log(f"closed ({code}: {FINAL[code]}); not reconnecting")
                return
            # A connection that was made starts the waiting over.
            if self.connected:
                backoff = 1.0
            self.log(f"disconnected ({code}); reconnecting in {backoff:.0f} s")
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 30.0)

    def run(self) -> None:
        try:
            asyncio.run(self.run_async())
        except KeyboardInterrupt:
            pass


def from_command_line(description: str, name: Optional[str] = None,
                      soul: Optional[str] = None) -> Agent:
    """An `Agent` from `--url`, `--invite`, `--name`, `--soul`, `--state-file`."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--url", default="ws://127.0.0.1:3000/ws/agent")
    p.add_argument("--invite", help="the invite's token (the first time only)")
    p.add_argument("--name", default=name)
    p.add_argument("--soul", default=soul)
    p.add_argument("--state-file", default=".soulgrid-agent.json",
                   help="where its identity and secret are kept")
    a = p.parse_args()
    return Agent(a.url, a.invite, a.name, a.soul, a.state_file)
