"""A kagent-langgraph agent for capturing task records: one LangGraph graph
served by kagent's KAgentApp, checkpointed through the controller
(KAgentCheckpointer), with the model at $OPENAI_BASE_URL.

    python agent.py --host 127.0.0.1 --port 8080   # env: KAGENT_URL, KAGENT_NAME, KAGENT_NAMESPACE

`delete_file` needs approval: the tool node calls LangGraph's interrupt() with
the `action_requests` kagent-langgraph turns into an input-required task, and
reads the decision ({"decision_type": "approve" | "reject", ...}) it resumes with.
Tool exceptions come back to the model as error tool messages.
"""

import argparse
import os

import httpx
import uvicorn
from kagent.core import KAgentConfig
from kagent.langgraph import KAgentApp, KAgentCheckpointer
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt

INSTRUCTION = "You answer questions about the weather. Use the get_weather tool."
NEEDS_APPROVAL = {"delete_file"}


@tool
def get_weather(city: str) -> str:
    """Returns the current weather in a city."""
    return f"Sunny, 21 degrees Celsius in {city}."


@tool
def delete_file(path: str) -> str:
    """Deletes a file. Needs a person's approval first."""
    return f"Deleted {path}."


@tool
def lookup_order(order_id: str) -> str:
    """Looks up an order by its id."""
    raise ValueError(f"order {order_id} does not exist")


TOOLS = [get_weather, delete_file, lookup_order]
model = ChatOpenAI(model="scripted-model", base_url=os.environ["OPENAI_BASE_URL"]).bind_tools(TOOLS)
tool_node = ToolNode(TOOLS, handle_tool_errors=True)


async def call_model(state: MessagesState):
    return {"messages": [await model.ainvoke([SystemMessage(INSTRUCTION), *state["messages"]])]}


async def call_tools(state: MessagesState):
    last = state["messages"][-1]
    pending = [c for c in last.tool_calls if c["name"] in NEEDS_APPROVAL]
    rejected = set()
    if pending:
        # The node reruns from the top on resume; nothing above has side effects.
        decision = interrupt({"action_requests": [{"name": c["name"], "args": c["args"], "id": c["id"]}
                                                  for c in pending]})
        kind = decision.get("decision_type")
        for c in pending:
            verdict = (decision.get("decisions") or {}).get(c["id"], "approve") if kind == "batch" else kind
            if verdict != "approve":
                rejected.add(c["id"])
    allowed = [c for c in last.tool_calls if c["id"] not in rejected]
    messages = []
    if allowed:
        result = await tool_node.ainvoke({"messages": [last.model_copy(update={"tool_calls": allowed})]})
        messages += result["messages"]
    messages += [ToolMessage("Tool call was rejected by user.", tool_call_id=c["id"], name=c["name"])
                 for c in last.tool_calls if c["id"] in rejected]
    return {"messages": messages}


def route(state: MessagesState):
    return "tools" if state["messages"][-1].tool_calls else END


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    config = KAgentConfig()
    builder = StateGraph(MessagesState)
    builder.add_node("agent", call_model)
    builder.add_node("tools", call_tools)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    checkpointer = KAgentCheckpointer(client=httpx.AsyncClient(base_url=config.url), app_name=config.app_name)
    graph = builder.compile(checkpointer=checkpointer)
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
    app = KAgentApp(graph=graph, agent_card=card, config=config).build()
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    main()
