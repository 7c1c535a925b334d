"""Loads the engine's shared library (libagentdesk_gridworld.so) with ctypes.

The library sits next to this file in an installed package; AGENTDESK_GRIDWORLD_LIB names
another one (a development build).
"""
import ctypes
import os

_LIB = None

# Buffer kinds of agd_bind (bindings/gridworld/main.go).
ACTIONS, INVENTORY, COMPASS, AGENT_POS, GRID, TARGET, REWARD, TERMINATED, TRUNCATED, FLYING, POSE = range(1, 12)


class GridworldError(RuntimeError):
    """An error reported by the engine (bad options, a bad action, an internal error)."""


def lib():
    global _LIB
    if _LIB is not None:
        return _LIB
    path = os.environ.get("AGENTDESK_GRIDWORLD_LIB") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "libagentdesk_gridworld.so")
    if not os.path.exists(path):
        raise ImportError("agentdesk_gridworld: the engine library %s is missing (build it with `make pylib`)" % path)
    L = ctypes.CDLL(path)
    L.agd_new.argtypes = [ctypes.c_char_p]
    L.agd_new.restype = ctypes.c_int64
    L.agd_error.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int]
    L.agd_error.restype = ctypes.c_int
    L.agd_bind.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_void_p, ctypes.c_int64]
    L.agd_bind.restype = ctypes.c_int
    L.agd_reset.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_int]
    L.agd_reset.restype = ctypes.c_int
    L.agd_step.argtypes = [ctypes.c_int64, ctypes.c_int]
    L.agd_step.restype = ctypes.c_int
    L.agd_free.argtypes = [ctypes.c_int64]
    L.agd_free.restype = None
    L.agd_config.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int]
    L.agd_config.restype = ctypes.c_int
    L.agd_set_task.argtypes = [ctypes.c_int64, ctypes.c_char_p]
    L.agd_set_task.restype = ctypes.c_int
    L.agd_initialize_world.argtypes = [ctypes.c_int64] + [ctypes.c_double] * 5
    L.agd_initialize_world.restype = ctypes.c_int
    L.agd_step_json.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_char_p]
    L.agd_step_json.restype = ctypes.c_int
    L.agd_count.argtypes = []
    L.agd_count.restype = ctypes.c_int64
    _LIB = L
    return L


def error(handle):
    """The text of the last error of a handle (or of agd_new when handle is -1)."""
    L = lib()
    n = L.agd_error(handle, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    L.agd_error(handle, buf, n + 1)
    return buf.value.decode("utf-8", "replace")


def check(handle, code):
    if code != 0:
        raise GridworldError(error(handle))
