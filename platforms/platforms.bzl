"""The built-in platforms: one <name>.textproto each in //platforms."""

PLATFORMS = ["a2a3", "a5", "a2a3_cluster", "a3", "a5_supernode", "a2a3_word_safe_set"]
