"""pypto_sim: the pytest plugin that runs PyPTO-style test modules on our
simulator (``python3 -m pytest -p pypto_sim.pytest_plugin``, docs/python.md)."""
