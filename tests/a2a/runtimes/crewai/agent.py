"""A kagent-crewai agent for capturing task records: a one-agent, one-task
crew served by kagent's KAgentApp, with the model at $OPENAI_BASE_URL.

    python agent.py --host 127.0.0.1 --port 8080   # env: KAGENT_URL, KAGENT_NAME, KAGENT_NAMESPACE

kagent-crewai passes the user's text to the crew as the `input` variable.
It has no approval flow, so there is no HITL case.
"""

import argparse
import os

import uvicorn
from crewai import LLM, Agent, Crew, Process, Task
from crewai.tools import tool
from kagent.core import KAgentConfig
from kagent.crewai import KAgentApp


@tool("get_weather")
def get_weather(city: str) -> str:
    """Returns the current weather in a city."""
    return f"Sunny, 21 degrees Celsius in {city}."


@tool("lookup_order")
def lookup_order(order_id: str) -> str:
    """Looks up an order by its id."""
    raise ValueError(f"order {order_id} does not exist")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    # provider="openai": a model name crewai does not know would otherwise need LiteLLM.
    llm = LLM(model="scripted-model", provider="openai", base_url=os.environ["OPENAI_BASE_URL"],
              api_key=os.environ["OPENAI_API_KEY"])
    agent = Agent(role="Weather assistant", goal="Answer questions about the weather.",
                  backstory="You answer questions about the weather. Use the get_weather tool.",
                  tools=[get_weather, lookup_order], llm=llm, verbose=False)
    task = Task(description="{input}", expected_output="A short answer to the question.", agent=agent)
    crew = Crew(agents=[agent], tasks=[task], process=Process.sequential, verbose=False)
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
    app = KAgentApp(crew=crew, agent_card=card, config=KAgentConfig()).build()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
