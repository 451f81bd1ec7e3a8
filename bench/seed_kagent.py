"""Write kagent `session` and `event` rows as CSV for psql's \\copy.

Each session repeats real captured events (tests/data/kagent-captured) until
it has EVENTS rows, with fresh row ids and increasing timestamps, so the
database holds what kagent would store for a busy agent.

usage: seed_kagent.py SESSIONS EVENTS AGENT_ID SESSIONS.csv EVENTS.csv
"""

import csv
import datetime
import pathlib
import sys

CAPTURES = ["weather-grounded.jsonl", "github-assistant-session.jsonl"]


def main():
    sessions, events, agent_id, sessions_path, events_path = sys.argv[1:6]
    sessions, events = int(sessions), int(events)
    root = pathlib.Path(__file__).resolve().parent.parent / "tests/data/kagent-captured"
    pool = [
        line
        for name in CAPTURES
        for line in (root / name).read_text().splitlines()
        if line.strip()
    ]
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=12)
    with open(sessions_path, "w", newline="") as s, open(events_path, "w", newline="") as e:
        session_rows, event_rows = csv.writer(s), csv.writer(e)
        for n in range(sessions):
            session_id = f"bench-{n:06d}"
            created = start + datetime.timedelta(seconds=n)
            for k in range(events):
                stamp = created + datetime.timedelta(milliseconds=10 * k)
                event_rows.writerow(
                    [f"{session_id}-{k:03d}", "admin@kagent.dev", session_id,
                     stamp.isoformat(), stamp.isoformat(), pool[k % len(pool)]]
                )
            updated = created + datetime.timedelta(milliseconds=10 * events)
            session_rows.writerow(
                [session_id, "admin@kagent.dev", created.isoformat(), updated.isoformat(), agent_id]
            )


if __name__ == "__main__":
    main()
