"""A small stand-in for the gymnasium package (not installable on the build machines): the
names agentdesk_gridworld uses, so that its Gymnasium path is tested."""
from . import spaces

registry = {}


class Env:
    metadata = {}


class EnvSpec:
    def __init__(self, id, entry_point, kwargs):
        self.id, self.entry_point, self.kwargs = id, entry_point, kwargs


def register(id, entry_point, kwargs=None):
    registry[id] = EnvSpec(id, entry_point, kwargs or {})


def make(id, **kwargs):
    spec = registry[id]
    module, name = spec.entry_point.split(":")
    import importlib
    f = getattr(importlib.import_module(module), name)
    return f(**{**spec.kwargs, **kwargs})
