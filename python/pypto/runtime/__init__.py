"""pypto.runtime: ``RunConfig``."""
from .runner import RunConfig, default_config, set_default_config

__all__ = ["RunConfig", "default_config", "set_default_config"]
