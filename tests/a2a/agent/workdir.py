"""Lay out a working directory for `kagent-adk run weather_agent --working-dir DIR`.

    python3 workdir.py DIR --model-url http://127.0.0.1:PORT/v1 [--session-db-url URL]
                           [--stream] [--agent-url http://127.0.0.1:PORT/]

kagent-adk reads DIR/weather_agent/config.json (model, `stream`, `session_db_url`)
and DIR/weather_agent/agent-card.json, and imports DIR/weather_agent as a
package, so each test gets its own copy with its own ports. Prints DIR.
"""

import argparse
import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--model-url", required=True, help="OpenAI base URL, ending in /v1")
    parser.add_argument("--session-db-url", help="e.g. sqlite+aiosqlite:///DIR/sessions.db")
    parser.add_argument("--stream", action="store_true", help="stream the model's answers (SSE)")
    parser.add_argument("--agent-url", default="http://127.0.0.1:8080/")
    args = parser.parse_args()

    target = Path(args.dir) / "weather_agent"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("__init__.py", "agent.py"):
        shutil.copyfile(HERE / "weather_agent" / name, target / name)
    config = {
        "model": {"type": "openai", "model": "scripted-model", "base_url": args.model_url},
        "description": "Answers questions about the weather.",
        "instruction": "You answer questions about the weather. Use the get_weather tool.",
        "stream": args.stream,
    }
    if args.session_db_url:
        config["session_db_url"] = args.session_db_url
    (target / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    card = {
        "name": "weather-agent",
        "description": "Answers questions about the weather.",
        "url": args.agent_url,
        "version": "0.1.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": [{"id": "weather", "name": "weather", "description": "Current weather by city",
                    "tags": ["weather"]}],
    }
    (target / "agent-card.json").write_text(json.dumps(card, indent=2) + "\n")
    print(args.dir)


if __name__ == "__main__":
    main()
