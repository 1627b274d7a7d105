"""An echo agent: it says back what it is sent."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from soulgrid_agent import Turn, from_command_line  # noqa: E402

agent = from_command_line(__doc__, name="Echo",
                          soul="I am Echo. I listen closely and say back what I hear.")


@agent.on_turn
async def echo(turn: Turn) -> None:
    if agent.name is None and turn.state.get("name") is None:
        turn.register("Echo", "I am Echo. I listen closely and say back what I hear.")
    for message in turn.messages:
        turn.say(f"I heard: {message.body}")


if __name__ == "__main__":
    agent.run()
