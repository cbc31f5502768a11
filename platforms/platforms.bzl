"""The built-in platforms: one <name>.textproto each in //platforms."""

PLATFORMS = ["a2a3", "a5"]
