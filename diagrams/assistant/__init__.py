"""The assistant: answers questions about one project's architecture, grounded in its graph
and history, citing the entity ids it used. Engines: the built-in analyst (default) and an
OpenAI-compatible LLM given the analyst's tools."""
