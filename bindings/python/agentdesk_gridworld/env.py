"""The IGLU gridworld environment over Agentdesk's Go engine.

Env is one environment with the Gymnasium API; VectorEnv is n of them stepped in one call by
the engine's goroutines (a gymnasium.vector.VectorEnv when Gymnasium is installed). The engine
writes observations, rewards, flags and the step info straight into NumPy arrays. By default
every step's arrays are fresh (Gymnasium's copy=True: nothing returned is written again): the
engine writes each call into the next slot of a block of preallocated arrays, and a new block
is allocated when one is used up, so no copy is made. copy=False returns the same arrays every
step, overwritten by the next one (zero-copy: copy what you keep).
"""
import ctypes
import json
import sys
import weakref

import numpy as np

from . import _native
from . import spaces as _plain
from . import tasks as _tasks

try:  # Gymnasium when it is installed; the package works without it
    import gymnasium as _gym
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space as _batch_space
    _spaces = _gym.spaces
    _VectorEnvBase = _gym.vector.VectorEnv
    _EnvBase = _gym.Env
except ImportError:  # the plain spaces, and classes of the same shape
    _gym = None
    AutoresetMode = None
    _batch_space = None
    _spaces = _plain
    _VectorEnvBase = object
    _EnvBase = object

N_ACTIONS = 18
GRID_SHAPE = (9, 11, 11)
RENDER_FPS = 20

# The original's keyword arguments and the engine's names for them.
_KWARG_NAMES = {
    "render": "render", "render_size": "render_size", "max_steps": "max_steps",
    "select_and_place": "select_and_place", "discretize": "discretize",
    "right_scale": "right_placement_scale", "wrong_scale": "wrong_placement_scale",
    "right_placement_scale": "right_placement_scale", "wrong_placement_scale": "wrong_placement_scale",
    "target_in_obs": "target_in_obs", "action_space": "action_space", "vector_state": "vector_state",
    "size_reward": "size_reward", "fake": "fake",
}

# Autoreset modes: Gymnasium's names (AutoresetMode values) and this package's older ones, to
# the engine's codes (0: the engine never resets; same-step resets are made here, after the
# final observation is read).
_AUTORESET = {"NextStep": "NextStep", "next-step": "NextStep", "SameStep": "SameStep", "same-step": "SameStep",
              "Disabled": "Disabled", "disabled": "Disabled", "off": "Disabled"}
_ENGINE_AUTORESET = {"NextStep": 1, "SameStep": 0, "Disabled": 0}

# The engine's step info: env.step's info keys, in the order of the engine's int64 rows.
INFO_INT_KEYS = ("step", "right_placement", "wrong_placement", "max_intersection", "target_size")
INFO_KEYS = INFO_INT_KEYS + ("task_reward", "completed")

# The dialog (the task's chat) is a Text observation: up to DIALOG_MAX_LENGTH characters of
# DIALOG_CHARSET (printable ASCII, newline and tab, Latin-1 and Latin Extended-A, typographic
# punctuation, the euro and trade mark signs, U+FFFD). A dialog longer than that is cut, and a
# character outside the set becomes U+FFFD, so every observation is inside the space.
DIALOG_MAX_LENGTH = 8192
DIALOG_CHARSET = "".join(
    [chr(c) for c in range(0x20, 0x7F)] + ["\n", "\t"] + [chr(c) for c in range(0xA0, 0x180)]
    + [chr(c) for c in range(0x2010, 0x2028)] + [chr(c) for c in range(0x2030, 0x205F)]
    + ["\u20ac", "\u2122", "\ufffd"])
_DIALOG_SET = frozenset(DIALOG_CHARSET)

# Fresh arrays come from blocks of slots of about this many bytes. A used-up block is kept
# (up to _RETIRED of them) and written again once nothing outside the environment holds a view
# of it: its pages are already in memory, where a new block's pages fault in one by one as the
# engine first writes them (about 30 us a call at 256 environments, a quarter of the call).
_BLOCK_BYTES = 4 << 20
_RETIRED = 2


def _refs_when_free():
    """What sys.getrefcount reports, in _unheld's expression, for an array nothing else holds."""
    if not hasattr(sys, "getrefcount"):
        return None
    return _unheld([np.empty(1)], None)


def _unheld(block, refs):
    """Whether nothing but the block itself holds its arrays (no view of them is alive)."""
    return max(sys.getrefcount(a) for a in block) if refs is None else all(sys.getrefcount(a) <= refs for a in block)


_FREE_REFS = _refs_when_free()


def fit_dialog(text):
    """The dialog as the observation holds it (see DIALOG_CHARSET)."""
    if len(text) > DIALOG_MAX_LENGTH:
        text = text[:DIALOG_MAX_LENGTH]
    if not _DIALOG_SET.issuperset(text):
        text = "".join(c if c in _DIALOG_SET else "\ufffd" for c in text)
    return text


def _options(n, env_id, task, seed, kwargs, base="create_env"):
    kw = {}
    for k, v in kwargs.items():
        if k not in _KWARG_NAMES:
            raise TypeError("unknown option %r (known: %s)" % (k, ", ".join(sorted(_KWARG_NAMES))))
        if isinstance(v, tuple):
            v = list(v)
        if isinstance(v, np.generic):
            v = v.item()
        kw[_KWARG_NAMES[k]] = v
    task = _tasks.spec_of(task)
    if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError("seed: want a non-negative integer, got %r" % (seed,))
    return json.dumps({"n": int(n), "env": env_id or "", "kwargs": kw, "task": task or "",
                       "seed": int(seed or 0), "base": base}).encode()


def _render_kwargs(render_mode, kwargs):
    """Checks render_mode against render= (IGLU's option, kept for old code): "rgb_array"
    turns the pov on; None leaves render= and the id's default (the pov on for
    IGLUGridworld-v0, as in IGLU)."""
    if render_mode is None:
        return kwargs
    if render_mode != "rgb_array":
        raise ValueError("render_mode %r: want \"rgb_array\" (the pov frame) or None" % (render_mode,))
    if kwargs.get("render") is False:
        raise ValueError("render_mode=\"rgb_array\" renders the pov, render=False turns it off: pass one of them")
    kwargs = dict(kwargs)
    kwargs["render"] = True
    return kwargs


def _no_render_message(msg, env_id):
    """The engine's error when a rendering environment cannot be made, with what to do."""
    import os
    why = []
    if not _native.can_render():
        why.append("the OpenGL build of the engine is not in use: %s" % _native.GL_UNAVAILABLE)
    elif not os.environ.get("DISPLAY"):
        why.append("DISPLAY is unset: the pov is drawn with OpenGL on an X display")
    return ("%s\n%s renders the 64x64 pov observation (render=True; the default of IGLUGridworld-v0, as in IGLU). "
            "%sOn a machine without a display, run under a virtual one (xvfb-run -a python train.py), "
            "or pass render=False (with render_mode=None) to train without the pov."
            % (msg, env_id or "This environment", (why[0] + ". ") if why else ""))


def _free(handle):
    if _native._LIB is not None:
        _native._LIB.agd_free(handle)


def _autoreset_mode(mode):
    key = getattr(mode, "value", mode)
    if key not in _AUTORESET:
        raise ValueError("autoreset_mode %r: want next-step, same-step or disabled (gymnasium.vector.AutoresetMode)"
                         % (mode,))
    return _AUTORESET[key]


class VectorEnv(_VectorEnvBase):
    """num_envs gridworld environments stepped together by the engine (a
    gymnasium.vector.VectorEnv when Gymnasium is installed; gym.make_vec(id, num_envs,
    vectorization_mode="vector_entry_point") makes one).

    step(actions) takes num_envs actions (walking: integers 0-17; flying: a dict of arrays
    movement (n, 3), camera (n, 2), inventory (n,), placement (n,)) and returns
    (obs, rewards, terminated, truncated, infos) with batched arrays; infos hold the engine's
    step info (INFO_KEYS) as arrays with Gymnasium's "_key" masks. autoreset_mode follows
    Gymnasium 1.x: "next-step" (the default: the step after an episode ended resets it, its
    action ignored, reward 0), "same-step" (reset in the same call; infos["final_obs"] and
    infos["final_info"] hold the ended episodes' last observation and info), "disabled"
    (reset ended environments with reset(options={"reset_mask": mask})). copy=False returns the
    same arrays every step (zero-copy). reset(options={"task": ...}) sets the task or task
    generator of every environment first.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": RENDER_FPS,
                "autoreset_mode": AutoresetMode.NEXT_STEP if AutoresetMode else "NextStep"}

    def __init__(self, num_envs, env_id=None, *, task=None, seed=None, autoreset_mode="next-step", copy=True,
                 render_mode=None, base="create_env", autoreset=None, **kwargs):
        if autoreset is not None:  # the package's older name
            autoreset_mode = autoreset
        mode = _autoreset_mode(autoreset_mode)
        n = num_envs
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError("num_envs: want a positive number of environments, got %r" % (n,))
        limit = kwargs.pop("max_episode_steps", None)  # Gymnasium's name for the step limit
        if limit is not None:
            kwargs["max_steps"] = limit
        kwargs = _render_kwargs(render_mode, kwargs)
        self._h = None
        L = _native.lib()
        self._L = L
        h = L.agd_new(_options(n, env_id, task, seed, kwargs, base))
        if h < 0:
            msg = _native.error(-1)
            if msg.startswith("render=True"):
                raise _native.GridworldError(_no_render_message(msg, env_id))
            raise ValueError(msg)
        self._h = h
        self._finalizer = weakref.finalize(self, _free, h)
        self.num_envs = int(n)
        self.copy = bool(copy)
        self.autoreset_mode = AutoresetMode(mode) if AutoresetMode else mode
        self._mode = mode
        self._engine_mode = _ENGINE_AUTORESET[mode]
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": RENDER_FPS, "autoreset_mode": self.autoreset_mode}
        size = L.agd_config(h, None, 0)
        buf = ctypes.create_string_buffer(size + 1)
        L.agd_config(h, buf, size + 1)
        self.config = json.loads(buf.value)
        self.flying = self.config["action_kind"] == "flying"
        if self.config["action_kind"] == "walking-dict" and n > 1:
            self.close()
            raise ValueError("VectorEnv steps discrete (discretize=True) or flying actions; the original "
                             "GridWorld's walking dictionaries go one environment at a time (Env)")
        self.render_mode = "rgb_array" if render_mode == "rgb_array" else None
        self.render_size = tuple(self.config["render_size"]) if self.config["render"] else None
        n = self.num_envs
        # Inputs and per-call flags, bound once.
        self._actions = np.zeros(n, np.int64)
        self._flying = np.zeros((n, 8), np.float32)
        self._pose = np.zeros((n, 5), np.float64)
        self._dialog_changed = np.zeros(n, np.uint8)
        for kind, arr in ((_native.POSE, self._pose), (_native.ACTIONS, self._actions),
                          (_native.FLYING, self._flying), (_native.DIALOG, self._dialog_changed)):
            _native.check(h, L.agd_bind(h, kind, arr.ctypes.data, arr.nbytes))
        # The outputs: (kind, observation key or None, shape per environment, dtype).
        out = [(_native.INVENTORY, "inventory", (6,), np.float32), (_native.COMPASS, "compass", (1,), np.float32)]
        if self.config["vector_state"]:
            out += [(_native.AGENT_POS, "agentPos", (5,), np.float32), (_native.GRID, "grid", GRID_SHAPE, np.int32)]
        if self.config["target_in_obs"]:
            out.append((_native.TARGET, "target_grid", GRID_SHAPE, np.int32))
        if self.render_size:  # (height, width, 3) per environment, row 0 at the top
            w, hgt = self.render_size
            out.append((_native.POV, "pov", (hgt, w, 3), np.uint8))
        self._obs_keys = [o[1] for o in out]
        out += [(_native.REWARD, None, (), np.float64), (_native.TERMINATED, None, (), np.bool_),
                (_native.TRUNCATED, None, (), np.bool_), (_native.INFO, None, (len(INFO_INT_KEYS),), np.int64),
                (_native.TASK_REWARD, None, (), np.float64), (_native.COMPLETED, None, (), np.bool_),
                (_native.STEPPED, None, (), np.bool_)]
        self._out = out
        per_slot = sum(n * int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize for _, _, shape, dt in out)
        self._slots = max(2, min(256, _BLOCK_BYTES // max(per_slot, 1))) if self.copy else 1
        self._slot = self._slots  # a block is made at the first call
        self._block = self._zero_copy = self._single = None
        self._retired = []  # used-up blocks, written again once no view of them is alive
        self._dialogs = [""] * n
        self._last_obs = None
        self._ended = np.zeros(n, np.bool_)
        self.single_observation_space = observation_space(self.config)
        self.single_action_space = action_space(self.config)
        if _batch_space is not None:
            self.observation_space = _batch_space(self.single_observation_space, n)
            self.action_space = _batch_space(self.single_action_space, n)

    # -- the blocks of output arrays --

    def _next_slot(self):
        """The slot the next call writes, binding a new block when the last is used up."""
        if self._slot >= self._slots:
            K, n, L, h = self._slots, self.num_envs, self._L, self._h
            if self._block is not None and self.copy and _FREE_REFS is not None:
                self._retired.append(self._block)
            self._block = self._zero_copy = self._single = None  # the environment's own views go
            block = None
            for i, old in enumerate(self._retired):
                if _unheld(old, _FREE_REFS):
                    block = self._retired.pop(i)
                    break
            del self._retired[:-_RETIRED]
            if block is None:
                block = []
                for kind, _, shape, dt in self._out:
                    if kind == _native.INFO:
                        block.append(np.empty((K, shape[0], n), dt))  # one contiguous row per key
                    else:
                        block.append(np.empty((K, n) + shape, dt))
            for (kind, *_), arr in zip(self._out, block):
                _native.check(h, L.agd_bind(h, kind, arr.ctypes.data, arr.nbytes))
            self._block = block
            self._zero_copy = [arr[0] for arr in block]  # copy=False: the same views every call
            # one environment's arrays by slot (Env)
            self._single = [arr[:, :, 0] if kind == _native.INFO else arr[:, 0] for (kind, *_), arr in zip(self._out, block)]
            self._slot = 0
        s = self._slot
        if self.copy:
            self._slot += 1
        return s

    def _views(self, s):
        """The observation dict, rewards, terminated, truncated and the info arrays of slot s."""
        b = [arr[s] for arr in self._block] if self.copy else self._zero_copy
        k = len(self._obs_keys)
        obs = dict(zip(self._obs_keys, b))
        obs["dialog"] = tuple(self._dialogs)
        return (obs,) + tuple(b[k:])

    # -- the Gymnasium API --

    def reset(self, *, seed=None, options=None):
        """Resets every environment (or those of options["reset_mask"], a bool array) and
        returns (obs, {}). seed: an integer (environment i gets seed + i), a list of one seed
        (or None) per environment, or None. options["task"]: a Task, a task generator
        (TaskSpec, IGLUDataset) or a task spec string, set for every environment first."""
        self._check_open()
        n = self.num_envs
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if "task" in options:
            self._set_task_option(options.pop("task"))
        if options:
            raise ValueError("reset options: unknown keys %s (known: task, reset_mask)" % ", ".join(map(repr, options)))
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (n,) or mask.dtype != np.bool_:
                raise ValueError("options['reset_mask']: want a bool array of shape (%d,), got %s %s" % (n, mask.shape, mask.dtype))
            if not mask.any():
                raise ValueError("options['reset_mask']: want at least one True")
        seeds = None
        if seed is not None:
            if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
                if seed < 0:
                    raise ValueError("seed: want a non-negative integer, got %r" % (seed,))
                seeds = np.arange(int(seed), int(seed) + n, dtype=np.int64)
                if _VectorEnvBase is not object:
                    super().reset(seed=int(seed))
            else:
                seed = list(seed)
                if len(seed) != n:
                    raise ValueError("seed: want %d seeds (one per environment), got %d" % (n, len(seed)))
                if any(s is not None and (not isinstance(s, (int, np.integer)) or s < 0) for s in seed):
                    raise ValueError("seed: want non-negative integers or None, got %r" % (seed,))
                seeds = np.array([-1 if s is None else int(s) for s in seed], np.int64)
        s = self._next_slot()
        if mask is not None and self._last_obs is None:  # nothing to keep: every environment starts
            mask = None
        if mask is not None:  # the others keep their observations
            for j, key in enumerate(self._obs_keys):
                self._block[j][s] = self._last_obs[key]
        m8 = None if mask is None else mask.astype(np.uint8)
        _native.check(self._h, self._L.agd_reset_some(
            self._h, s, None if m8 is None else m8.ctypes.data, None if seeds is None else seeds.ctypes.data))
        self._read_dialogs()
        if mask is None:
            self._ended[:] = False
        else:
            self._ended[mask] = False
        obs = self._views(s)[0]
        self._last_obs = obs
        return obs, {}

    def step(self, actions):
        self._check_open()
        if self.flying:
            self._set_flying(actions)
        elif type(actions) is np.ndarray and actions.dtype.kind in "iu" and actions.shape == self._actions.shape:
            self._actions[:] = actions
        else:
            a = np.asarray(actions)
            if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
                raise ValueError("actions: want %d integers from 0 to 17, got an array of %s %s"
                                 % (self.num_envs, a.shape, a.dtype))
            self._actions[:] = a
        if self._mode == "Disabled" and self._ended.any():
            raise ValueError("autoreset_mode disabled: environments %s ended; reset them first with "
                             "reset(options={'reset_mask': mask})" % np.flatnonzero(self._ended).tolist())
        s = self._next_slot()
        flags = self._L.agd_step_slot(self._h, self._engine_mode, s)
        if flags < 0:
            raise ValueError(_native.error(self._h))
        if flags & _native.FLAG_DIALOG:
            self._read_dialogs()
        obs, rew, term, trunc, ints, task_reward, completed, stepped = self._views(s)
        mask = stepped
        info = None
        if flags & _native.FLAG_ENDED:
            if self._mode == "SameStep":
                obs, info = self._same_step_reset(s, obs, term, trunc, ints, task_reward, completed, stepped)
            elif self._mode == "Disabled":
                np.logical_or(term, trunc, out=self._ended)
        if info is None:
            if flags & _native.FLAG_RESET and not stepped.any():
                info = {}
            else:
                info = {"step": ints[0], "_step": mask, "right_placement": ints[1], "_right_placement": mask,
                        "wrong_placement": ints[2], "_wrong_placement": mask, "max_intersection": ints[3],
                        "_max_intersection": mask, "target_size": ints[4], "_target_size": mask,
                        "task_reward": task_reward, "_task_reward": mask, "completed": completed, "_completed": mask}
        self._last_obs = obs
        return obs, rew, term, trunc, info

    def _same_step_reset(self, s, obs, term, trunc, ints, task_reward, completed, stepped):
        """Same-step autoreset: the ended environments' last observations and infos go to
        final_obs and final_info, then they are reset into the same slot."""
        done = term | trunc
        idx = np.flatnonzero(done)
        final_obs = np.full(self.num_envs, None, dtype=object)
        dialogs = list(self._dialogs)
        for i in idx:
            o = {key: obs[key][i].copy() for key in self._obs_keys}
            o["dialog"] = dialogs[i]
            final_obs[i] = o
        values = {"step": ints[0], "right_placement": ints[1], "wrong_placement": ints[2], "max_intersection": ints[3],
                  "target_size": ints[4], "task_reward": task_reward, "completed": completed}
        final_info = {}
        for key, v in values.items():
            final_info[key] = np.where(done, v, np.zeros((), v.dtype))
            final_info["_" + key] = done
        keep = stepped & ~done
        info = {}
        if keep.any():
            for key, v in values.items():
                v[~keep] = 0  # reset infos are empty: Gymnasium's zero where the mask is False
                info[key] = v
                info["_" + key] = keep
        info["final_obs"], info["_final_obs"] = final_obs, done.copy()
        info["final_info"], info["_final_info"] = final_info, done.copy()
        m8 = done.astype(np.uint8)
        _native.check(self._h, self._L.agd_reset_some(self._h, s, m8.ctypes.data, None))
        self._read_dialogs()
        obs["dialog"] = tuple(self._dialogs)
        return obs, info

    def _read_dialogs(self):
        """Fetches the dialogs the last call changed (they change only when a task begins)."""
        for i in np.flatnonzero(self._dialog_changed):
            n = self._L.agd_dialog(self._h, int(i), None, 0)
            buf = ctypes.create_string_buffer(n + 1)
            self._L.agd_dialog(self._h, int(i), buf, n + 1)
            self._dialogs[i] = fit_dialog(buf.value.decode("utf-8", "replace"))

    def _set_task_option(self, task):
        if isinstance(task, _tasks.Task):
            self.set_task(task)
        else:
            self.set_task_generator(task)

    def set_task_generator(self, generator):
        """Every environment's resets draw their tasks from generator (see Env)."""
        self._check_open()
        spec = _tasks.spec_of(generator)
        _native.check(self._h, self._L.agd_set_tasks(self._h, (spec or "samples").encode()))

    def set_task(self, task=None, *, target_grid=None, starting_grid=None, chat="", invariant=True):
        """Fixes the task of every environment's resets (see Env.set_task)."""
        self._check_open()
        if task is not None:
            if not isinstance(task, _tasks.Task):
                raise TypeError("set_task: want a Task (or target_grid=...), got %s" % type(task).__name__)
            target_grid, starting_grid, chat, invariant = task.target_grid, task.starting_grid, task.chat, task.invariant
        spec = {"chat": chat, "invariant": bool(invariant)}
        if target_grid is not None:
            g = np.asarray(target_grid)
            if g.shape != GRID_SHAPE:
                raise ValueError("target_grid: want shape %s, got %s" % (GRID_SHAPE, g.shape))
            spec["target_grid"] = g.astype(int).tolist()
        if starting_grid is not None:
            spec["starting_grid"] = np.asarray(starting_grid, dtype=int).reshape(-1, 4).tolist()
        _native.check(self._h, self._L.agd_set_task(self._h, json.dumps(spec).encode()))

    def render(self):
        """The environments' last pov frames as a tuple of new (height, width, 3) uint8 arrays
        (render_mode="rgb_array"); None otherwise."""
        if self.render_mode != "rgb_array" or self._last_obs is None or "pov" not in self._last_obs:
            return None
        return tuple(np.array(f) for f in self._last_obs["pov"])

    def call(self, name, *args, **kwargs):
        """Calls a method (or reads an attribute) of the environments and returns one result
        per environment. The environments of a VectorEnv share one engine handle, so a method
        (set_task, set_task_generator, ...) is called once for all of them; "render" and "pose"
        give each environment's own."""
        self._check_open()
        if name == "render":
            frames = self.render()
            return frames if frames is not None else (None,) * self.num_envs
        if name == "pose":
            return tuple(p.copy() for p in self._pose)
        if name.startswith("_"):
            raise AttributeError("call: %r is private" % name)
        value = getattr(self, name)
        if callable(value):
            value = value(*args, **kwargs)
        return (value,) * self.num_envs

    def get_attr(self, name):
        """The attribute name of every environment, one per environment (see call)."""
        return self.call(name)

    def set_attr(self, name, values):
        """Sets an attribute of the environments: one value, or one per environment (they must
        be equal: the environments share one configuration)."""
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ValueError("set_attr: want %d values, got %d" % (self.num_envs, len(values)))
            if any(v is not values[0] and v != values[0] for v in values[1:]):
                raise ValueError("set_attr: the environments of a VectorEnv share one engine configuration; "
                                 "give one value (or equal ones)")
            values = values[0]
        if name.startswith("_"):
            raise AttributeError("set_attr: %r is private" % name)
        setattr(self, name, values)

    def _set_flying(self, actions):
        try:
            f = self._flying
            f[:, 0:3] = np.asarray(actions["movement"], np.float32).reshape(self.num_envs, 3)
            f[:, 3:5] = np.asarray(actions["camera"], np.float32).reshape(self.num_envs, 2)
            f[:, 5] = np.asarray(actions["placement"]).reshape(self.num_envs)
            f[:, 6] = np.asarray(actions["inventory"]).reshape(self.num_envs)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError("flying actions: want a dict of movement (n, 3), camera (n, 2), "
                             "inventory (n,), placement (n,): %s" % e) from None

    def _check_open(self):
        if self._h is None:
            raise RuntimeError("the environment is closed")

    def close(self, **kwargs):
        if self._h is not None:
            self._finalizer()
            self._h = None
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        spec = getattr(self, "spec", None)
        return "VectorEnv(%s, num_envs=%d)" % (spec.id if spec is not None else "agentdesk_gridworld", self.num_envs)


def observation_space(cfg):
    s = _spaces
    d = {"inventory": s.Box(0, 20, (6,), np.float32), "compass": s.Box(-180, 180, (1,), np.float32),
         "dialog": s.Text(DIALOG_MAX_LENGTH, min_length=0, charset=DIALOG_CHARSET)}
    if cfg["vector_state"]:
        # x, y, z, pitch, yaw: the agent may walk off the build zone and fall, or fly away
        inf = np.inf
        d["agentPos"] = s.Box(np.array([-inf, -inf, -inf, -90, 0], np.float32),
                              np.array([inf, inf, inf, 90, 360], np.float32), (5,), np.float32)
        d["grid"] = s.Box(-1, 7, GRID_SHAPE, np.int32)
    if cfg["target_in_obs"]:
        d["target_grid"] = s.Box(-1, 7, GRID_SHAPE, np.int32)
    if cfg["render"]:
        w, h = cfg["render_size"]
        d["pov"] = s.Box(0, 255, (h, w, 3), np.uint8)
    return s.Dict(d)


def action_space(cfg):
    s = _spaces
    if cfg.get("action_kind") == "walking-dict":
        return s.Dict({"forward": s.Discrete(2), "back": s.Discrete(2), "left": s.Discrete(2), "right": s.Discrete(2),
                       "jump": s.Discrete(2), "attack": s.Discrete(2), "use": s.Discrete(2),
                       "camera": s.Box(-5, 5, (2,), np.float32), "hotbar": s.Discrete(7)})
    if cfg.get("action_kind") == "flying":
        return s.Dict({"movement": s.Box(-1, 1, (3,), np.float32), "camera": s.Box(-5, 5, (2,), np.float32),
                       "inventory": s.Discrete(7), "placement": s.Discrete(3)})
    return s.Discrete(N_ACTIONS)



class Env(_EnvBase):
    """One IGLU gridworld environment with the Gymnasium API.

    Env() is ready to use: the built-in task generator, no rendering, IGLU's other defaults.
    Env("IGLUGridworld-v0") takes a registered configuration (gym.make's ids: the pov on, as in
    IGLU); keyword arguments are the original's (render, max_steps, select_and_place,
    vector_state, target_in_obs, right_scale, wrong_scale, action_space, ...); task is a task
    spec as on the command line. render_mode="rgb_array" renders the pov (render() returns the
    last frame); render=False turns it off. step's info is the engine's step info
    (INFO_KEYS); reset(options={"task": Task or generator}) sets the task first. Returned
    arrays are fresh every step unless copy=False.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": RENDER_FPS}

    def __init__(self, env_id=None, *, task=None, seed=None, render_mode=None, copy=True, base="create_env", **kwargs):
        self._vec = VectorEnv(1, env_id, task=task, seed=seed, autoreset_mode="disabled", copy=copy,
                              render_mode=render_mode, base=base, **kwargs)
        v = self._vec
        self.render_mode = v.render_mode
        self.observation_space = v.single_observation_space
        self.action_space = v.single_action_space
        self.config = v.config
        self._nobs = len(v._obs_keys)
        self._step = v._L.agd_step_slot
        self._h = v._h
        self._act = v._actions
        self._obs = None

    def _result(self, flags):
        v = self._vec
        if flags & _native.FLAG_DIALOG:
            v._read_dialogs()
        s = v._slot - 1 if v.copy else 0
        one = v._single
        obs = {key: one[j][s] for j, key in enumerate(v._obs_keys)}
        obs["dialog"] = v._dialogs[0]
        self._obs = obs
        return obs, s

    def _stepped(self, flags):
        obs, s = self._result(flags)
        one, k = self._vec._single, self._nobs
        step, right, wrong, mi, size = one[k + 3][s].tolist()
        info = {"step": step, "right_placement": right, "wrong_placement": wrong, "max_intersection": mi,
                "target_size": size, "task_reward": float(one[k + 4][s]), "completed": bool(one[k + 5][s])}
        return obs, float(one[k][s]), bool(one[k + 1][s]), bool(one[k + 2][s]), info

    def reset(self, *, seed=None, options=None):
        if _EnvBase is not object:
            super().reset(seed=seed)
        v = self._vec
        v._check_open()
        options = dict(options or {})
        if "task" in options:
            v._set_task_option(options.pop("task"))
        if options:
            raise ValueError("reset options: unknown keys %s (known: task)" % ", ".join(map(repr, options)))
        if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0):
            raise ValueError("seed: want a non-negative integer, got %r" % (seed,))
        seeds = None if seed is None else np.array([int(seed)], np.int64)
        s = v._next_slot()
        flags = _native.check(self._h, v._L.agd_reset_some(self._h, s, None, None if seeds is None else seeds.ctypes.data))
        return self._result(flags)[0], {}

    def step(self, action):
        v = self._vec
        if v._h is None:
            raise RuntimeError("the environment is closed")
        if isinstance(action, dict) and not v.flying:  # the original's walking dictionary
            return self.step_json(json.dumps(_jsonable(action)))
        if v.flying:
            v._set_flying({k: np.asarray(x)[None] for k, x in action.items()} if isinstance(action, dict) else action)
        else:
            try:
                a = int(action)
            except (TypeError, ValueError):
                raise ValueError("action: want an integer from 0 to 17, got %r" % (action,)) from None
            if a != action or not 0 <= a < N_ACTIONS:
                raise ValueError("action: want an integer from 0 to 17, got %r" % (action,))
            self._act[0] = a
        flags = self._step(self._h, 0, v._next_slot())
        if flags < 0:
            raise ValueError(_native.error(self._h))
        return self._stepped(flags)

    def step_json(self, action):
        """Steps with an action in the original's JSON form (an integer or a dictionary)."""
        v = self._vec
        if isinstance(action, str):
            action = action.encode()
        v._L.agd_set_slot(self._h, v._next_slot())
        flags = v._L.agd_step_json(self._h, 0, action)
        if flags < 0:
            raise ValueError(_native.error(self._h))
        return self._stepped(flags)

    def set_task_generator(self, generator):
        """Every reset draws its task from generator (a TaskSpec, an IGLUDataset or a task spec
        string); the original's set_task_generator."""
        self._vec.set_task_generator(generator)

    def set_task(self, task=None, *, target_grid=None, starting_grid=None, chat="", invariant=True):
        """Fixes the task of every reset (the original's set_task): a Task (DUMMY_TASK, for
        one), or its parts: a (9, 11, 11) target grid, starting blocks as [x, y, z, id] rows,
        the chat shown as the dialog. Also reset(options={"task": task})."""
        self._vec.set_task(task, target_grid=target_grid, starting_grid=starting_grid, chat=chat, invariant=invariant)

    def initialize_world(self, position, yaw=0.0, pitch=0.0):
        """Places the agent and resets (the original's initialize_world); returns (obs, info)."""
        x, y, z = (float(c) for c in position)
        v = self._vec
        v._L.agd_set_slot(self._h, v._next_slot())
        flags = _native.check(self._h, v._L.agd_initialize_world(self._h, x, y, z, float(yaw), float(pitch)))
        return self._result(flags)[0], {}

    def render(self):
        """The last pov frame as a new (height, width, 3) uint8 array when the pov is on
        (render_mode="rgb_array" or render=True), else None."""
        pov = None if self._obs is None else self._obs.get("pov")
        return None if pov is None else pov.copy()

    @property
    def pose(self):
        """The agent's exact state: x, y, z, yaw, pitch (float64; the observation's agentPos is
        float32 and zero after a reset)."""
        return self._vec._pose[0].copy()

    def close(self):
        self._vec.close()


def _jsonable(v):
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_jsonable(x) for x in np.asarray(v).tolist()] if isinstance(v, np.ndarray) else [_jsonable(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


class GymCompat:
    """The old gym API for code written against the original: reset() -> obs,
    step() -> (obs, reward, done, info)."""

    def __init__(self, env):
        self.env = env
        self.observation_space, self.action_space = env.observation_space, env.action_space

    def reset(self):
        return self.env.reset()[0]

    def step(self, action):
        obs, r, term, trunc, info = self.env.step(action)
        return obs, r, term or trunc, info

    def close(self):
        self.env.close()


def make(env_id="IGLUGridworld-v0", **kwargs):
    """Env with a registered IGLU configuration (the original's gym.make)."""
    return Env(env_id, **kwargs)


def make_vec(env_id="IGLUGridworld-v0", num_envs=1, **kwargs):
    """VectorEnv with a registered IGLU configuration (what gym.make_vec makes)."""
    return VectorEnv(num_envs, env_id, **kwargs)
