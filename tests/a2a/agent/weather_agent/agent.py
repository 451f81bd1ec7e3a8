"""A kagent-adk agent for the A2A tests, built the way kagent builds declarative agents.

The model, instruction and session store come from config.json beside this
file, read into kagent's own AgentConfig and turned into an ADK agent by
AgentConfig.to_agent() (the same call `kagent-adk static` makes for agents the
controller renders). Python tools are then added, and `delete_file` is put
behind kagent's approval callback, as to_agent() does for MCP tools listed in
requireApproval.
"""

import json
import os
from pathlib import Path

from google.adk.tools import FunctionTool
from kagent.adk._approval import make_approval_callback, strip_confirmation_parts_callback
from kagent.adk.types import AgentConfig

TOOLS_REQUIRING_APPROVAL = {"delete_file"}


def get_weather(city: str) -> str:
    """Returns the current weather in a city."""
    return f"Sunny, 21 degrees Celsius in {city}."


def delete_file(path: str) -> str:
    """Deletes a file. Needs a person's approval first."""
    return f"Deleted {path}."


def lookup_order(order_id: str) -> str:
    """Looks up an order by its id."""
    raise ValueError(f"order {order_id} does not exist")


def build():
    config = AgentConfig.model_validate(json.loads((Path(__file__).parent / "config.json").read_text()))
    # kagent names the agent after KAGENT_NAME with '-' as '_' (KAgentConfig.name).
    agent = config.to_agent(os.environ.get("KAGENT_NAME", "weather-agent").replace("-", "_"))
    agent.tools.extend(FunctionTool(f) for f in (get_weather, delete_file, lookup_order))
    agent.before_tool_callback = make_approval_callback(TOOLS_REQUIRING_APPROVAL)
    # Before kagent's own before-model callbacks, as to_agent() orders them.
    agent.before_model_callback = [strip_confirmation_parts_callback, *agent.before_model_callback]
    return agent


root_agent = build()
