"""Write ADK DatabaseSessionService databases from the captured sessions.

    python3 -m venv /tmp/adk && /tmp/adk/bin/pip install 'google-adk[db]==2.6.3' greenlet asyncpg
    /tmp/adk/bin/python generate.py sqlite sessions.db
    /tmp/adk/bin/python generate.py postgres postgresql+asyncpg://USER:PASS@HOST:PORT/DB   # then pg_dump

The sessions are the kagent captures replayed through ADK's own
append_event, so the rows are exactly what ADK stores:

- app `weather_app`: alice's `grounded` and `ungrounded` sessions, and bob's
  session also named `grounded` (same id, another user), holding the
  wrong-city capture;
- app `other_app`: a session no weather suite may see.
"""

import asyncio
import json
import sys
from pathlib import Path

from google.adk.events import Event
from google.adk.sessions import DatabaseSessionService

CAPTURED = Path(__file__).resolve().parent.parent / "kagent-captured"

SESSIONS = [
    ("weather_app", "alice", "grounded", "weather-grounded.jsonl"),
    ("weather_app", "alice", "ungrounded", "weather-ungrounded.jsonl"),
    ("weather_app", "bob", "grounded", "weather-wrong-city.jsonl"),
    ("other_app", "alice", "github", "github-assistant-session.jsonl"),
]


async def main(url: str) -> None:
    service = DatabaseSessionService(db_url=url)
    for app, user, session_id, capture in SESSIONS:
        session = await service.create_session(app_name=app, user_id=user, session_id=session_id)
        for line in (CAPTURED / capture).read_text().splitlines():
            if line.strip():
                event = Event.model_validate(json.loads(line))
                if event.invocation_id == "header_update":
                    # Request headers are kagent's, not ADK's: keep them out of state.
                    event.actions.state_delta = {}
                await service.append_event(session, event)


if __name__ == "__main__":
    kind, target = sys.argv[1], sys.argv[2]
    if kind == "sqlite":
        Path(target).unlink(missing_ok=True)
        target = f"sqlite+aiosqlite:///{target}"
    asyncio.run(main(target))
