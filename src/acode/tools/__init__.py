"""Tools the model can call. One module per family; each tool is a pydantic args model plus ``run``."""
