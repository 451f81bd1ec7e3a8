-- ADK DatabaseSessionService tables as google-adk 2.6.3 creates them in PostgreSQL,
-- filled by generate.py and dumped with pg_dump --no-owner --no-privileges --inserts.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: adk_internal_metadata; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.adk_internal_metadata (
    key character varying(128) NOT NULL,
    value character varying(256) NOT NULL
);


--
-- Name: app_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_states (
    app_name character varying(128) NOT NULL,
    state jsonb NOT NULL,
    update_time timestamp without time zone NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id character varying(128) NOT NULL,
    app_name character varying(128) NOT NULL,
    user_id character varying(128) NOT NULL,
    session_id character varying(128) NOT NULL,
    invocation_id character varying(256) NOT NULL,
    "timestamp" timestamp without time zone NOT NULL,
    event_data jsonb
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    app_name character varying(128) NOT NULL,
    user_id character varying(128) NOT NULL,
    id character varying(128) NOT NULL,
    state jsonb NOT NULL,
    create_time timestamp without time zone NOT NULL,
    update_time timestamp without time zone NOT NULL
);


--
-- Name: user_states; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_states (
    app_name character varying(128) NOT NULL,
    user_id character varying(128) NOT NULL,
    state jsonb NOT NULL,
    update_time timestamp without time zone NOT NULL
);


--
-- Data for Name: adk_internal_metadata; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.adk_internal_metadata VALUES ('schema_version', '1');


--
-- Data for Name: app_states; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.app_states VALUES ('weather_app', '{}', '2026-12-02 13:43:47.927828');
INSERT INTO public.app_states VALUES ('other_app', '{}', '2026-12-02 13:43:48.372806');


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('9d169f5f-81b6-411e-87f5-5113efeae849', 'weather_app', 'alice', 'grounded', 'header_update', '2026-09-03 20:04:56.751627', '{"id": "9d169f5f-81b6-411e-87f5-5113efeae849", "author": "system", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465896.7516267, "invocation_id": "header_update"}');
INSERT INTO public.events VALUES ('cb5aec8a-42a0-497d-9f80-db19ccdb870f', 'weather_app', 'alice', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:56.764918', '{"id": "cb5aec8a-42a0-497d-9f80-db19ccdb870f", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"text": "current weather in London"}]}, "node_info": {"path": ""}, "timestamp": 1788465896.7649183, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('2f73070c-7187-4c9b-8ec4-df4866417f49', 'weather_app', 'alice', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:56.80624', '{"id": "2f73070c-7187-4c9b-8ec4-df4866417f49", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"function_call": {"id": "toolu_017JDdjaJNimRyUWBwdYwAmF", "args": {"city": "London"}, "name": "get-weather-by-city_get-weather-by-city"}}]}, "node_info": {"path": ""}, "timestamp": 1788465896.8062398, "finish_reason": "STOP", "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c", "usage_metadata": {"total_token_count": 1253, "prompt_token_count": 1187, "candidates_token_count": 66}, "long_running_tool_ids": []}');
INSERT INTO public.events VALUES ('fd69fd56-f9c4-4090-b3ce-46717313cfee', 'weather_app', 'alice', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:59.22599', '{"id": "fd69fd56-f9c4-4090-b3ce-46717313cfee", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_response": {"id": "toolu_017JDdjaJNimRyUWBwdYwAmF", "name": "get-weather-by-city_get-weather-by-city", "response": {"content": [{"text": "Weather in London: Temperature: 73.2 F, Humidity: 63%, Wind: 9.2 mph", "type": "text"}], "isError": false}}}]}, "node_info": {"path": ""}, "timestamp": 1788465899.2259898, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('e83471dc-27e0-4678-bd18-b5d9c0906c1e', 'weather_app', 'alice', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:59.231167', '{"id": "e83471dc-27e0-4678-bd18-b5d9c0906c1e", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"text": "Currently in **London**, it''s a pleasant **73.2°F** with **63% humidity** and a light breeze at **9.2 mph** — clear skies make for a lovely day! ☀️"}]}, "node_info": {"path": ""}, "timestamp": 1788465899.2311673, "finish_reason": "STOP", "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c", "usage_metadata": {"total_token_count": 1344, "prompt_token_count": 1292, "candidates_token_count": 52}}');
INSERT INTO public.events VALUES ('b428b798-d2ba-4132-a323-911c9287ae0f', 'weather_app', 'alice', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:05:01.065516', '{"id": "b428b798-d2ba-4132-a323-911c9287ae0f", "author": "weather_assistant", "actions": {"state_delta": {}, "end_of_agent": true, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465901.0655155, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('9d169f5f-81b6-411e-87f5-5113efeae849', 'weather_app', 'alice', 'ungrounded', 'header_update', '2026-09-03 20:04:56.751627', '{"id": "9d169f5f-81b6-411e-87f5-5113efeae849", "author": "system", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465896.7516267, "invocation_id": "header_update"}');
INSERT INTO public.events VALUES ('cb5aec8a-42a0-497d-9f80-db19ccdb870f', 'weather_app', 'alice', 'ungrounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:56.764918', '{"id": "cb5aec8a-42a0-497d-9f80-db19ccdb870f", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"text": "current weather in London"}]}, "node_info": {"path": ""}, "timestamp": 1788465896.7649183, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('e83471dc-27e0-4678-bd18-b5d9c0906c1e', 'weather_app', 'alice', 'ungrounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:59.231167', '{"id": "e83471dc-27e0-4678-bd18-b5d9c0906c1e", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"text": "Currently in **London**, it''s around **68°F** with light cloud and a gentle breeze. Typical for this time of year!"}]}, "node_info": {"path": ""}, "timestamp": 1788465899.2311673, "finish_reason": "STOP", "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c", "usage_metadata": {"total_token_count": 1344, "prompt_token_count": 1292, "candidates_token_count": 52}}');
INSERT INTO public.events VALUES ('b428b798-d2ba-4132-a323-911c9287ae0f', 'weather_app', 'alice', 'ungrounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:05:01.065516', '{"id": "b428b798-d2ba-4132-a323-911c9287ae0f", "author": "weather_assistant", "actions": {"state_delta": {}, "end_of_agent": true, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465901.0655155, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('9d169f5f-81b6-411e-87f5-5113efeae849', 'weather_app', 'bob', 'grounded', 'header_update', '2026-09-03 20:04:56.751627', '{"id": "9d169f5f-81b6-411e-87f5-5113efeae849", "author": "system", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465896.7516267, "invocation_id": "header_update"}');
INSERT INTO public.events VALUES ('cb5aec8a-42a0-497d-9f80-db19ccdb870f', 'weather_app', 'bob', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:56.764918', '{"id": "cb5aec8a-42a0-497d-9f80-db19ccdb870f", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"text": "current weather in London"}]}, "node_info": {"path": ""}, "timestamp": 1788465896.7649183, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('2f73070c-7187-4c9b-8ec4-df4866417f49', 'weather_app', 'bob', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:56.80624', '{"id": "2f73070c-7187-4c9b-8ec4-df4866417f49", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"function_call": {"id": "toolu_017JDdjaJNimRyUWBwdYwAmF", "args": {"city": "Paris"}, "name": "get-weather-by-city_get-weather-by-city"}}]}, "node_info": {"path": ""}, "timestamp": 1788465896.8062398, "finish_reason": "STOP", "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c", "usage_metadata": {"total_token_count": 1253, "prompt_token_count": 1187, "candidates_token_count": 66}, "long_running_tool_ids": []}');
INSERT INTO public.events VALUES ('fd69fd56-f9c4-4090-b3ce-46717313cfee', 'weather_app', 'bob', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:59.22599', '{"id": "fd69fd56-f9c4-4090-b3ce-46717313cfee", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_response": {"id": "toolu_017JDdjaJNimRyUWBwdYwAmF", "name": "get-weather-by-city_get-weather-by-city", "response": {"content": [{"text": "Weather in London: Temperature: 73.2 F, Humidity: 63%, Wind: 9.2 mph", "type": "text"}], "isError": false}}}]}, "node_info": {"path": ""}, "timestamp": 1788465899.2259898, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('e83471dc-27e0-4678-bd18-b5d9c0906c1e', 'weather_app', 'bob', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:04:59.231167', '{"id": "e83471dc-27e0-4678-bd18-b5d9c0906c1e", "author": "weather_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"text": "Currently in **London**, it''s a pleasant **73.2°F** with **63% humidity** and a light breeze at **9.2 mph** — clear skies make for a lovely day! ☀️"}]}, "node_info": {"path": ""}, "timestamp": 1788465899.2311673, "finish_reason": "STOP", "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c", "usage_metadata": {"total_token_count": 1344, "prompt_token_count": 1292, "candidates_token_count": 52}}');
INSERT INTO public.events VALUES ('b428b798-d2ba-4132-a323-911c9287ae0f', 'weather_app', 'bob', 'grounded', 'e-52043e5b-521b-4c22-b722-6318119a467c', '2026-09-03 20:05:01.065516', '{"id": "b428b798-d2ba-4132-a323-911c9287ae0f", "author": "weather_assistant", "actions": {"state_delta": {}, "end_of_agent": true, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788465901.0655155, "invocation_id": "e-52043e5b-521b-4c22-b722-6318119a467c"}');
INSERT INTO public.events VALUES ('a0d991d6-10b6-4035-90a0-7133ec48d494', 'other_app', 'alice', 'github', 'header_update', '2026-09-03 20:48:43.873172', '{"id": "a0d991d6-10b6-4035-90a0-7133ec48d494", "author": "system", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788468523.8731716, "invocation_id": "header_update"}');
INSERT INTO public.events VALUES ('d083860f-c7a4-46fc-aad1-e96a77611fd7', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:44.00314', '{"id": "d083860f-c7a4-46fc-aad1-e96a77611fd7", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"text": "Who is themsquared?"}]}, "node_info": {"path": ""}, "timestamp": 1788468524.0031404, "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f"}');
INSERT INTO public.events VALUES ('87d48a3b-a5f3-4276-af52-05f98bdfc163', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:44.55318', '{"id": "87d48a3b-a5f3-4276-af52-05f98bdfc163", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"function_call": {"id": "toolu_017F88JXFptHt8AG1RtCK8ai", "args": {"questions": [{"choices": ["Yes, look up their GitHub profile", "No, something else"], "question": "Are you asking about a GitHub user with the username ''themsquared''?"}]}, "name": "ask_user"}}]}, "node_info": {"path": ""}, "timestamp": 1788468524.5531802, "finish_reason": "STOP", "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f", "usage_metadata": {"total_token_count": 1040, "prompt_token_count": 943, "candidates_token_count": 97}, "long_running_tool_ids": []}');
INSERT INTO public.events VALUES ('1b39464d-76f9-4877-b0a8-f0a15af45155', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:50.940901', '{"id": "1b39464d-76f9-4877-b0a8-f0a15af45155", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_call": {"id": "adk-b5040939-51c6-490f-b394-e67d4e439336", "args": {"toolConfirmation": {"hint": "Are you asking about a GitHub user with the username ''themsquared''?", "confirmed": false}, "originalFunctionCall": {"id": "toolu_017F88JXFptHt8AG1RtCK8ai", "args": {"questions": [{"choices": ["Yes, look up their GitHub profile", "No, something else"], "question": "Are you asking about a GitHub user with the username ''themsquared''?"}]}, "name": "ask_user"}}, "name": "adk_request_confirmation"}}]}, "node_info": {"path": ""}, "timestamp": 1788468530.9409006, "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f", "long_running_tool_ids": ["adk-b5040939-51c6-490f-b394-e67d4e439336"]}');
INSERT INTO public.events VALUES ('90fedd46-2dd0-4ba7-9d70-330b4ef457f8', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:55.139561', '{"id": "90fedd46-2dd0-4ba7-9d70-330b4ef457f8", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_response": {"id": "adk-b5040939-51c6-490f-b394-e67d4e439336", "name": "adk_request_confirmation", "response": {"response": "{\"hint\":\"\",\"confirmed\":true,\"payload\":{\"answers\":[{\"answer\":[\"Yes, look up their GitHub profile\"]}]}}"}}}]}, "node_info": {"path": ""}, "timestamp": 1788468535.139561, "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f"}');
INSERT INTO public.events VALUES ('61e84c73-99f9-42d5-bdae-3457d1c492e9', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:55.262772', '{"id": "61e84c73-99f9-42d5-bdae-3457d1c492e9", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_response": {"id": "toolu_017F88JXFptHt8AG1RtCK8ai", "name": "ask_user", "response": {"result": "[{\"question\": \"Are you asking about a GitHub user with the username ''themsquared''?\", \"answer\": [\"Yes, look up their GitHub profile\"]}]"}}}]}, "node_info": {"path": ""}, "timestamp": 1788468535.262772, "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f"}');
INSERT INTO public.events VALUES ('fec9c888-c2e5-4787-90f9-ee99250260f8', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:48:55.411634', '{"id": "fec9c888-c2e5-4787-90f9-ee99250260f8", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"text": "I don''t currently have a tool to look up a specific GitHub user''s profile by username directly. However, I can help you **search for GitHub users** or assist with other GitHub-related tasks like exploring repositories, issues, or pull requests.\n\nWould you like me to search for the user **\"themsquared\"** via a user search? Or is there something else I can help you with?"}]}, "node_info": {"path": ""}, "timestamp": 1788468535.4116342, "finish_reason": "STOP", "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f", "usage_metadata": {"total_token_count": 1176, "prompt_token_count": 1089, "candidates_token_count": 87}}');
INSERT INTO public.events VALUES ('bd921dcc-7e8f-4d50-8789-fbe821782cba', 'other_app', 'alice', 'github', 'e-525e129f-064a-4b57-8c45-8e342ca6c93f', '2026-09-03 20:49:04.019899', '{"id": "bd921dcc-7e8f-4d50-8789-fbe821782cba", "author": "github_assistant", "actions": {"state_delta": {}, "end_of_agent": true, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788468544.0198994, "invocation_id": "e-525e129f-064a-4b57-8c45-8e342ca6c93f"}');
INSERT INTO public.events VALUES ('0845c952-2d68-49e4-95aa-65ec1aaf616b', 'other_app', 'alice', 'github', 'header_update', '2026-09-03 20:49:50.986649', '{"id": "0845c952-2d68-49e4-95aa-65ec1aaf616b", "author": "system", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788468590.9866486, "invocation_id": "header_update"}');
INSERT INTO public.events VALUES ('8e377e1d-62be-48f9-b409-14041aff0b3c', 'other_app', 'alice', 'github', 'e-c51ee408-e4c2-4bee-91aa-feb52996931c', '2026-09-03 20:49:51.101572', '{"id": "8e377e1d-62be-48f9-b409-14041aff0b3c", "author": "user", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"text": "Try again"}]}, "node_info": {"path": ""}, "timestamp": 1788468591.1015723, "invocation_id": "e-c51ee408-e4c2-4bee-91aa-feb52996931c"}');
INSERT INTO public.events VALUES ('7d8dc070-b8a8-4e68-bc3b-d27b0c984151', 'other_app', 'alice', 'github', 'e-c51ee408-e4c2-4bee-91aa-feb52996931c', '2026-09-03 20:49:52.900457', '{"id": "7d8dc070-b8a8-4e68-bc3b-d27b0c984151", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"function_call": {"id": "toolu_01UEPZTRU87pE171Cw6hesqo", "args": {"query": "themsquared"}, "name": "search_users"}}]}, "node_info": {"path": ""}, "timestamp": 1788468592.9004574, "finish_reason": "STOP", "invocation_id": "e-c51ee408-e4c2-4bee-91aa-feb52996931c", "usage_metadata": {"total_token_count": 4501, "prompt_token_count": 4444, "candidates_token_count": 57}, "long_running_tool_ids": []}');
INSERT INTO public.events VALUES ('85dc80f8-1c7b-4fd2-9f1d-600c98abc9a4', 'other_app', 'alice', 'github', 'e-c51ee408-e4c2-4bee-91aa-feb52996931c', '2026-09-03 20:49:57.542007', '{"id": "85dc80f8-1c7b-4fd2-9f1d-600c98abc9a4", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "user", "parts": [{"function_response": {"id": "toolu_01UEPZTRU87pE171Cw6hesqo", "name": "search_users", "response": {"content": [{"text": "{\"total_count\":1,\"incomplete_results\":false,\"items\":[{\"login\":\"themsquared\",\"id\":5358781,\"profile_url\":\"https://github.com/themsquared\",\"avatar_url\":\"https://avatars.githubusercontent.com/u/5358781?v=4\"}]}", "type": "text"}], "isError": false}}}]}, "node_info": {"path": ""}, "timestamp": 1788468597.5420067, "invocation_id": "e-c51ee408-e4c2-4bee-91aa-feb52996931c"}');
INSERT INTO public.events VALUES ('0f1fea8a-3029-41ff-b594-4ff235368340', 'other_app', 'alice', 'github', 'e-c51ee408-e4c2-4bee-91aa-feb52996931c', '2026-09-03 20:49:57.600915', '{"id": "0f1fea8a-3029-41ff-b594-4ff235368340", "author": "github_assistant", "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "content": {"role": "model", "parts": [{"text": "Here''s what I found for **themsquared** on GitHub:\n\n- **Username:** themsquared\n- **Profile URL:** [github.com/themsquared](https://github.com/themsquared)\n- **GitHub User ID:** 5358781\n\nWould you like me to explore their repositories or anything else?"}]}, "node_info": {"path": ""}, "timestamp": 1788468597.6009154, "finish_reason": "STOP", "invocation_id": "e-c51ee408-e4c2-4bee-91aa-feb52996931c", "usage_metadata": {"total_token_count": 4660, "prompt_token_count": 4582, "candidates_token_count": 78}}');
INSERT INTO public.events VALUES ('28b305aa-3809-416c-91c4-2e5efe71d8c3', 'other_app', 'alice', 'github', 'e-c51ee408-e4c2-4bee-91aa-feb52996931c', '2026-09-03 20:50:02.923088', '{"id": "28b305aa-3809-416c-91c4-2e5efe71d8c3", "author": "github_assistant", "actions": {"state_delta": {}, "end_of_agent": true, "artifact_delta": {}, "requested_auth_configs": {}, "requested_tool_confirmations": {}}, "node_info": {"path": ""}, "timestamp": 1788468602.9230883, "invocation_id": "e-c51ee408-e4c2-4bee-91aa-feb52996931c"}');


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('weather_app', 'alice', 'grounded', '{}', '2026-12-02 13:43:47.964456', '2026-09-03 20:05:01.065516');
INSERT INTO public.sessions VALUES ('weather_app', 'alice', 'ungrounded', '{}', '2026-12-02 13:43:48.109939', '2026-09-03 20:05:01.065516');
INSERT INTO public.sessions VALUES ('weather_app', 'bob', 'grounded', '{}', '2026-12-02 13:43:48.192966', '2026-09-03 20:05:01.065516');
INSERT INTO public.sessions VALUES ('other_app', 'alice', 'github', '{}', '2026-12-02 13:43:48.385048', '2026-09-03 20:50:02.923088');


--
-- Data for Name: user_states; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.user_states VALUES ('weather_app', 'alice', '{}', '2026-12-02 13:43:47.927828');
INSERT INTO public.user_states VALUES ('weather_app', 'bob', '{}', '2026-12-02 13:43:48.175251');
INSERT INTO public.user_states VALUES ('other_app', 'alice', '{}', '2026-12-02 13:43:48.372806');


--
-- Name: adk_internal_metadata adk_internal_metadata_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.adk_internal_metadata
    ADD CONSTRAINT adk_internal_metadata_pkey PRIMARY KEY (key);


--
-- Name: app_states app_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_states
    ADD CONSTRAINT app_states_pkey PRIMARY KEY (app_name);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id, app_name, user_id, session_id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (app_name, user_id, id);


--
-- Name: user_states user_states_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_states
    ADD CONSTRAINT user_states_pkey PRIMARY KEY (app_name, user_id);


--
-- Name: idx_events_app_user_session_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_events_app_user_session_ts ON public.events USING btree (app_name, user_id, session_id, "timestamp" DESC);


--
-- Name: events events_app_name_user_id_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_app_name_user_id_session_id_fkey FOREIGN KEY (app_name, user_id, session_id) REFERENCES public.sessions(app_name, user_id, id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


