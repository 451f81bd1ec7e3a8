from . import agent  # noqa: F401  (ADK's AgentLoader looks for weather_agent.agent.root_agent)
