"""How the advisor's notes read in the conversation: the prefix the agent, the UI and the session view recognise.

Apart from ``advisor.py`` (pydantic, tools, hooks): a resumed session's first frame tells advisor messages apart
and must not import the advisor to do it.
"""

ADVISOR_PREFIX = "Advisor (a senior reviewer watching your work — weigh it, don't blindly obey):"
