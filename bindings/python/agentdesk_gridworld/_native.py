"""Loads the engine's shared library with ctypes, once per process.

Two builds sit next to this file: libagentdesk_gridworld_gl.so, the engine with the OpenGL pov
renderer (loading it needs the X11 client library, libX11; rendering opens libGL and needs a
display), and libagentdesk_gridworld.so, the engine alone (it needs only libc). The first that
loads is used: a machine without libGL or X11 still imports the package and runs render=False
environments. AGENTDESK_GRIDWORLD_LIB
names one library to use instead (a development build); AGENTDESK_GRIDWORLD_NO_GL=1 skips the
OpenGL build. The OpenGL context itself is made only when an environment renders.
"""
import ctypes
import os

_LIB = None
LIB_PATH = None
# Why the OpenGL build did not load (None when it did, or was not tried).
GL_UNAVAILABLE = None
LIB_NAME = "libagentdesk_gridworld.so"
GL_LIB_NAME = "libagentdesk_gridworld_gl.so"
FEATURE_RENDER = 1

# Buffer kinds of agd_bind (bindings/gridworld/main.go).
(ACTIONS, INVENTORY, COMPASS, AGENT_POS, GRID, TARGET, REWARD, TERMINATED, TRUNCATED, FLYING, POSE, POV, DIALOG,
 INFO, TASK_REWARD, COMPLETED, STEPPED) = range(1, 18)
# What a successful call returns besides success (bits; negative codes are errors).
FLAG_DIALOG, FLAG_ENDED, FLAG_RESET = 1, 2, 4


class GridworldError(RuntimeError):
    """An error reported by the engine (bad options, a bad action, an internal error)."""


def _load():
    global LIB_PATH, GL_UNAVAILABLE
    explicit = os.environ.get("AGENTDESK_GRIDWORLD_LIB")
    if explicit:
        if not os.path.exists(explicit):
            raise ImportError("agentdesk_gridworld: AGENTDESK_GRIDWORLD_LIB names %s, which does not exist" % explicit)
        LIB_PATH = explicit
        return ctypes.CDLL(explicit)
    here = os.path.dirname(os.path.abspath(__file__))
    gl, plain = os.path.join(here, GL_LIB_NAME), os.path.join(here, LIB_NAME)
    if os.environ.get("AGENTDESK_GRIDWORLD_NO_GL"):
        GL_UNAVAILABLE = "AGENTDESK_GRIDWORLD_NO_GL is set"
    elif not os.path.exists(gl):
        GL_UNAVAILABLE = "%s is missing" % gl
    else:
        try:
            L = ctypes.CDLL(gl)
            LIB_PATH = gl
            return L
        except OSError as e:  # no libGL or X11 here: the engine alone
            GL_UNAVAILABLE = "%s does not load: %s" % (GL_LIB_NAME, e)
    if not os.path.exists(plain):
        raise ImportError("agentdesk_gridworld: the engine library %s is missing (build it with `make pylib`)" % plain)
    LIB_PATH = plain
    return ctypes.CDLL(plain)


def lib():
    global _LIB
    if _LIB is not None:
        return _LIB
    L = _load()
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
    L.agd_set_tasks.argtypes = [ctypes.c_int64, ctypes.c_char_p]
    L.agd_set_tasks.restype = ctypes.c_int
    L.agd_dialog.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    L.agd_dialog.restype = ctypes.c_int
    L.agd_step_slot.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_int]
    L.agd_step_slot.restype = ctypes.c_int
    L.agd_reset_some.argtypes = [ctypes.c_int64, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    L.agd_reset_some.restype = ctypes.c_int
    L.agd_set_slot.argtypes = [ctypes.c_int64, ctypes.c_int]
    L.agd_set_slot.restype = ctypes.c_int
    L.agd_features.argtypes = []
    L.agd_features.restype = ctypes.c_int
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
    """Raises the handle's error when code is one (negative); returns the call's flags."""
    if code < 0:
        raise GridworldError(error(handle))
    return code


def can_render():
    """True when the loaded library has the OpenGL pov renderer (a display is still needed)."""
    return bool(lib().agd_features() & FEATURE_RENDER)
