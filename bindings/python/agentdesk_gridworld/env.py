"""The IGLU gridworld environment over Agentdesk's Go engine.

Env is one environment with the Gymnasium API; VectorEnv is n of them stepped in one call by
the engine's goroutines. Observations, rewards and flags live in NumPy arrays that the engine
writes in place: what step returns are views of them, valid until the next step (copy what
you keep).
"""
import ctypes
import json
import weakref

import numpy as np

from . import _native
from . import spaces as _plain
from . import tasks as _tasks

try:  # Gymnasium when it is installed; the package works without it
    import gymnasium as _gym
    _spaces = _gym.spaces
except ImportError:  # pragma: no cover - exercised by the tests' stand-in
    _gym = None
    _spaces = _plain

N_ACTIONS = 18
GRID_SHAPE = (9, 11, 11)

# The original's keyword arguments and the engine's names for them.
_KWARG_NAMES = {
    "render": "render", "render_size": "render_size", "max_steps": "max_steps",
    "select_and_place": "select_and_place", "discretize": "discretize",
    "right_scale": "right_placement_scale", "wrong_scale": "wrong_placement_scale",
    "right_placement_scale": "right_placement_scale", "wrong_placement_scale": "wrong_placement_scale",
    "target_in_obs": "target_in_obs", "action_space": "action_space", "vector_state": "vector_state",
    "size_reward": "size_reward", "fake": "fake",
}

AUTORESET = {"off": 0, "next-step": 1, "same-step": 2}


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


def _free(handle):
    if _native._LIB is not None:
        _native._LIB.agd_free(handle)


class VectorEnv:
    """n gridworld environments stepped together.

    step(actions) takes an array of n actions (walking: integers 0-17; flying: a dict of arrays
    movement (n, 3), camera (n, 2), inventory (n,), placement (n,)) and returns
    (obs, rewards, terminated, truncated, infos) with batched arrays. Autoreset follows
    Gymnasium 1.x's default ("next-step"): the step after an episode ended resets that
    environment (its action is ignored, its reward is 0); "same-step" resets in the same call,
    "off" never resets.
    """

    def __init__(self, n, env_id=None, *, task=None, seed=None, autoreset="next-step", base="create_env", **kwargs):
        if autoreset not in AUTORESET:
            raise ValueError("autoreset: want one of %s" % ", ".join(AUTORESET))
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError("n: want a positive number of environments, got %r" % (n,))
        L = _native.lib()
        self._L = L
        h = L.agd_new(_options(n, env_id, task, seed, kwargs, base))
        if h < 0:
            msg = _native.error(-1)
            if msg.startswith("render=True") and not _native.can_render():
                raise _native.GridworldError("%s\n(why the OpenGL build is not in use: %s)" % (msg, _native.GL_UNAVAILABLE))
            if msg.startswith("render=True"):
                raise _native.GridworldError(msg)
            raise ValueError(msg)
        self._h = h
        self._finalizer = weakref.finalize(self, _free, h)
        self.num_envs = int(n)
        self._autoreset = AUTORESET[autoreset]
        size = L.agd_config(h, None, 0)
        buf = ctypes.create_string_buffer(size + 1)
        L.agd_config(h, buf, size + 1)
        self.config = json.loads(buf.value)
        self.flying = self.config["action_kind"] == "flying"
        if self.config["action_kind"] == "walking-dict" and n > 1:
            self.close()
            raise ValueError("VectorEnv steps discrete (discretize=True) or flying actions; the original "
                             "GridWorld's walking dictionaries go one environment at a time (Env)")
        n = self.num_envs
        self._actions = np.zeros(n, np.int64)
        self._flying = np.zeros((n, 8), np.float32)
        self._inventory = np.zeros((n, 6), np.float32)
        self._compass = np.zeros((n, 1), np.float32)
        self._agent_pos = np.zeros((n, 5), np.float32)
        self._grid = np.zeros((n,) + GRID_SHAPE, np.int32)
        self._target = np.zeros((n,) + GRID_SHAPE, np.int32)
        self._reward = np.zeros(n, np.float64)
        self._terminated = np.zeros(n, np.uint8)
        self._truncated = np.zeros(n, np.uint8)
        self._pose = np.zeros((n, 5), np.float64)
        self._dialog_changed = np.zeros(n, np.uint8)
        self.render_size = tuple(self.config["render_size"]) if self.config["render"] else None
        if self.render_size:  # (height, width, 3) per environment, row 0 at the top
            w, hgt = self.render_size
            self._pov = np.zeros((n, hgt, w, 3), np.uint8)
        bind = [(_native.POSE, self._pose), (_native.ACTIONS, self._actions), (_native.FLYING, self._flying),
                (_native.INVENTORY, self._inventory), (_native.COMPASS, self._compass),
                (_native.REWARD, self._reward), (_native.TERMINATED, self._terminated),
                (_native.TRUNCATED, self._truncated), (_native.DIALOG, self._dialog_changed)]
        # The grids are written only when the observations hold them (they are the costly part).
        if self.config["vector_state"]:
            bind += [(_native.AGENT_POS, self._agent_pos), (_native.GRID, self._grid)]
        if self.config["target_in_obs"]:
            bind.append((_native.TARGET, self._target))
        if self.render_size:
            bind.append((_native.POV, self._pov))
        for kind, arr in bind:
            _native.check(h, L.agd_bind(h, kind, arr.ctypes.data, arr.nbytes))
        self._dialogs = [""] * n
        self._obs = {"inventory": self._inventory, "compass": self._compass, "dialog": self._dialogs}
        if self.config["vector_state"]:
            self._obs["agentPos"] = self._agent_pos
            self._obs["grid"] = self._grid
        if self.config["target_in_obs"]:
            self._obs["target_grid"] = self._target
        if self.render_size:
            self._obs["pov"] = self._pov
        self.single_observation_space = observation_space(self.config)
        self.single_action_space = action_space(self.config)

    def reset(self, *, seed=None, options=None):
        self._check_open()
        if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError("seed: want a non-negative integer, got %r" % (seed,))
        _native.check(self._h, self._L.agd_reset(self._h, int(seed or 0), seed is not None))
        self._read_dialogs()
        self._reward[:] = 0
        self._terminated[:] = 0
        self._truncated[:] = 0
        return dict(self._obs), {}

    def step(self, actions):
        self._check_open()
        if self.flying:
            self._set_flying(actions)
        else:
            a = np.asarray(actions)
            if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
                raise ValueError("actions: want %d integers from 0 to 17, got an array of %s %s"
                                 % (self.num_envs, a.shape, a.dtype))
            self._actions[:] = a
        code = self._L.agd_step(self._h, self._autoreset)
        if code != 0:
            raise ValueError(_native.error(self._h))
        if self._autoreset and self._dialog_changed.any():
            self._read_dialogs()
        return (dict(self._obs), self._reward, self._terminated.view(np.bool_),
                self._truncated.view(np.bool_), {})

    def _read_dialogs(self):
        """Fetches the dialogs the last call changed (they change only when a task begins)."""
        for i in np.flatnonzero(self._dialog_changed):
            n = self._L.agd_dialog(self._h, int(i), None, 0)
            buf = ctypes.create_string_buffer(n + 1)
            self._L.agd_dialog(self._h, int(i), buf, n + 1)
            self._dialogs[i] = buf.value.decode("utf-8", "replace")

    def set_task_generator(self, generator):
        """Every environment's resets draw their tasks from generator (see Env)."""
        self._check_open()
        spec = _tasks.spec_of(generator)
        _native.check(self._h, self._L.agd_set_tasks(self._h, (spec or "samples").encode()))

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

    def close(self):
        if self._h is not None:
            self._finalizer()
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def observation_space(cfg):
    s = _spaces
    d = {"inventory": s.Box(0, 20, (6,), np.float32), "compass": s.Box(-180, 180, (1,), np.float32),
         "dialog": s.Text(1 << 16) if hasattr(s, "Text") else _plain.Text()}
    if cfg["vector_state"]:
        d["agentPos"] = s.Box(np.array([-8, -2, -8, -90, 0], np.float32), np.array([8, 12, 8, 90, 360], np.float32),
                              (5,), np.float32)
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


_EnvBase = _gym.Env if _gym is not None else object


class Env(_EnvBase):
    """One IGLU gridworld environment with the Gymnasium API.

    Env() is ready to use: the built-in task generator, no rendering, IGLU's other defaults.
    Env("IGLUGridworldVector-v0") takes a registered configuration; keyword arguments are the
    original's (max_steps, select_and_place, vector_state, target_in_obs, right_scale,
    wrong_scale, action_space, ...); task is a task spec as on the command line.
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, env_id=None, *, task=None, seed=None, base="create_env", **kwargs):
        self._vec = VectorEnv(1, env_id, task=task, seed=seed, autoreset="off", base=base, **kwargs)
        self.observation_space = self._vec.single_observation_space
        self.action_space = self._vec.single_action_space
        self.config = self._vec.config
        v = self._vec
        self._obs = {"inventory": v._inventory[0], "compass": v._compass[0], "dialog": ""}
        if "grid" in v._obs:
            self._obs["agentPos"] = v._agent_pos[0]
            self._obs["grid"] = v._grid[0]
        if "target_grid" in v._obs:
            self._obs["target_grid"] = v._target[0]
        if "pov" in v._obs:
            self._obs["pov"] = v._pov[0]
        self._step = v._L.agd_step
        self._h = v._h
        self._act = v._actions

    def reset(self, *, seed=None, options=None):
        self._vec.reset(seed=seed, options=options)
        self._obs["dialog"] = self._vec._dialogs[0]
        return self._obs, {}

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
        if self._step(self._h, 0) != 0:
            raise ValueError(_native.error(self._h))
        return self._obs, float(v._reward[0]), bool(v._terminated[0]), bool(v._truncated[0]), {}

    def step_json(self, action):
        """Steps with an action in the original's JSON form (an integer or a dictionary)."""
        v = self._vec
        if isinstance(action, str):
            action = action.encode()
        if v._L.agd_step_json(self._h, 0, action) != 0:
            raise ValueError(_native.error(self._h))
        return self._obs, float(v._reward[0]), bool(v._terminated[0]), bool(v._truncated[0]), {}

    def set_task_generator(self, generator):
        """Every reset draws its task from generator (a TaskSpec, an IGLUDataset or a task spec
        string); the original's set_task_generator."""
        self._vec.set_task_generator(generator)

    def set_task(self, task=None, *, target_grid=None, starting_grid=None, chat="", invariant=True):
        """Fixes the task of every reset (the original's set_task): a Task (DUMMY_TASK, for
        one), or its parts: a (9, 11, 11) target grid, starting blocks as [x, y, z, id] rows,
        the chat shown as the dialog."""
        if task is not None:
            if not isinstance(task, _tasks.Task):
                raise TypeError("set_task: want a Task (or target_grid=...), got %s" % type(task).__name__)
            target_grid, starting_grid, chat, invariant = task.target_grid, task.starting_grid, task.chat, task.invariant
        task = {"chat": chat, "invariant": bool(invariant)}
        if target_grid is not None:
            g = np.asarray(target_grid)
            if g.shape != GRID_SHAPE:
                raise ValueError("target_grid: want shape %s, got %s" % (GRID_SHAPE, g.shape))
            task["target_grid"] = g.astype(int).tolist()
        if starting_grid is not None:
            task["starting_grid"] = np.asarray(starting_grid, dtype=int).reshape(-1, 4).tolist()
        _native.check(self._h, self._vec._L.agd_set_task(self._h, json.dumps(task).encode()))

    def initialize_world(self, position, yaw=0.0, pitch=0.0):
        """Places the agent and resets (the original's initialize_world); returns (obs, info)."""
        x, y, z = (float(c) for c in position)
        _native.check(self._h, self._vec._L.agd_initialize_world(self._h, x, y, z, float(yaw), float(pitch)))
        self._vec._read_dialogs()
        self._obs["dialog"] = self._vec._dialogs[0]
        return self._obs, {}

    def render(self):
        """The last pov frame as a new (height, width, 3) uint8 array (render=True), else None."""
        pov = self._obs.get("pov")
        return None if pov is None else pov.copy()

    @property
    def pose(self):
        """The agent's exact state: x, y, z, yaw, pitch (float64; the observation's agentPos is
        float32 and zero after a reset)."""
        return self._vec._pose[0]

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
