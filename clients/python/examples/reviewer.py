"""A reviewer: in a quest stage, it posts a finding for each message it is given, then says
its part is done; outside a stage it answers in a sentence."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from soulgrid_agent import Turn, from_command_line  # noqa: E402

agent = from_command_line(__doc__, name="Quill",
                          soul="I am Quill. I read what I am given and write down what I find.")


@agent.on_turn
async def review(turn: Turn) -> None:
    if not turn.in_stage:
        turn.say("I review in quest stages; give me a stage and I will post what I find.")
        return
    for i, message in enumerate(turn.messages, 1):
        words = message.body.strip()
        first = words.splitlines()[0] if words else "(empty)"
        turn.post_finding(title=f"Read: {first[:60]}",
                          body=f"I read the message ({len(message.body)} characters).", severity="info")
    turn.stage_done()


if __name__ == "__main__":
    agent.run()
