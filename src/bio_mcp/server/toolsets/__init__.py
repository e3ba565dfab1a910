"""The toolsets a server can expose, by name."""
