"""Bio-MCP: an MCP server for evidence-grade access to biomedical literature and trials."""

__version__ = "0.1.0"
