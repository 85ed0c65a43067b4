"""The assistant: answers questions about a project's architecture from its graph and history,
citing entity ids; engines are the built-in analyst and an OpenAI-compatible LLM with its tools."""
