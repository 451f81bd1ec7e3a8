-- kagent's database tables (v0.8 and later), as its first migration creates
-- them; see docs of kagent's storage contract. Used by tests and benchmarks.
CREATE TABLE IF NOT EXISTS session (
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    name TEXT,
    created_at TIMESTAMPTZ,
    updated_at TIMESTAMPTZ,
    deleted_at TIMESTAMPTZ,
    agent_id TEXT,
    source TEXT,
    PRIMARY KEY (id, user_id)
);
CREATE INDEX IF NOT EXISTS idx_session_name ON session (name);
CREATE INDEX IF NOT EXISTS idx_session_agent_id ON session (agent_id);
CREATE INDEX IF NOT EXISTS idx_session_deleted_at ON session (deleted_at);
CREATE INDEX IF NOT EXISTS idx_session_source ON session (source);

CREATE TABLE IF NOT EXISTS event (
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT,
    created_at TIMESTAMPTZ,
    updated_at TIMESTAMPTZ,
    deleted_at TIMESTAMPTZ,
    data TEXT NOT NULL,
    PRIMARY KEY (id, user_id)
);
CREATE INDEX IF NOT EXISTS idx_event_session_id ON event (session_id);
CREATE INDEX IF NOT EXISTS idx_event_deleted_at ON event (deleted_at);

CREATE TABLE IF NOT EXISTS task (
    id TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ,
    updated_at TIMESTAMPTZ,
    deleted_at TIMESTAMPTZ,
    data TEXT NOT NULL,
    session_id TEXT,
    protocol_version TEXT,
    user_id TEXT
);

CREATE TABLE IF NOT EXISTS agent (
    id TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ,
    updated_at TIMESTAMPTZ,
    deleted_at TIMESTAMPTZ,
    type TEXT NOT NULL,
    config JSON,
    workload_type TEXT NOT NULL DEFAULT 'deployment'
);
