"""A kagent-openai agent for capturing task records: an OpenAI Agents SDK
agent served by kagent's KAgentApp, with the model at $OPENAI_API_BASE.

    python agent.py --host 127.0.0.1 --port 8080   # env: KAGENT_URL, KAGENT_NAME, KAGENT_NAMESPACE

kagent-openai points the SDK at OPENAI_API_BASE with the chat-completions API
(the SDK's default, the Responses API, is not what OpenAI-compatible servers
offer). It has no approval flow, so there is no HITL case. Tool exceptions go
back to the model as the SDK's error text.
"""

import argparse
import os

import uvicorn
from agents import Agent, function_tool
from kagent.core import KAgentConfig
from kagent.openai import KAgentApp


@function_tool
def get_weather(city: str) -> str:
    """Returns the current weather in a city."""
    return f"Sunny, 21 degrees Celsius in {city}."


@function_tool
def lookup_order(order_id: str) -> str:
    """Looks up an order by its id."""
    raise ValueError(f"order {order_id} does not exist")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    agent = Agent(name="weather_agent", model="scripted-model",
                  instructions="You answer questions about the weather. Use the get_weather tool.",
                  tools=[get_weather, lookup_order])
    card = {
        "name": "weather-agent",
        "description": "Answers questions about the weather.",
        "url": os.environ.get("AGENT_URL", f"http://{args.host}:{args.port}/"),
        "version": "0.1.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [{"id": "weather", "name": "weather", "description": "Current weather by city", "tags": ["weather"]}],
    }
    app = KAgentApp(agent=agent, agent_card=card, config=KAgentConfig()).build()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
