"""agentdesk_gridworld: the IGLU voxel gridworld for Python training loops, over Agentdesk's
exact and fast Go engine (a shared library loaded with ctypes; nothing to compile).

    import agentdesk_gridworld as agw
    env = agw.Env()                 # built-in tasks, no rendering
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

VectorEnv(n) steps n environments in one call of the engine (a gymnasium.vector.VectorEnv when
Gymnasium is installed; gym.make_vec(id, num_envs) makes one). Env(render=True), or
render_mode="rgb_array", adds the 64x64 first-person `pov` (OpenGL: a display or Xvfb);
save_png(path, obs["pov"]) writes a frame. Tasks: set_task(Task(...)) or DUMMY_TASK,
set_task_generator(IGLUDataset(path, ...)), or reset(options={"task": ...}).

With Gymnasium installed, importing the package registers IGLUGridworld-v0 (the pov on, as in
IGLU) and IGLUGridworldVector-v0 (vector state, no pov) for gym.make and gym.make_vec.
"""
from ._native import GridworldError, can_render
from .env import (DIALOG_CHARSET, DIALOG_MAX_LENGTH, INFO_KEYS, Env, GymCompat, VectorEnv, action_space, make,
                  make_vec, observation_space)
from .png import load_png, save_png
from .tasks import DUMMY_TASK, IGLUDataset, Task, TaskSpec

ENV_IDS = ("IGLUGridworld-v0", "IGLUGridworldVector-v0")

try:
    import gymnasium as _gym
except ImportError:
    _gym = None
if _gym is not None:
    for _id in ENV_IDS:
        if _id not in _gym.registry:
            _gym.register(id=_id, entry_point="agentdesk_gridworld.env:Env",
                          vector_entry_point="agentdesk_gridworld.env:VectorEnv", kwargs={"env_id": _id})

__all__ = ["Env", "VectorEnv", "GymCompat", "GridworldError", "make", "make_vec", "observation_space", "action_space",
           "ENV_IDS", "INFO_KEYS", "DIALOG_CHARSET", "DIALOG_MAX_LENGTH",
           "Task", "TaskSpec", "IGLUDataset", "DUMMY_TASK", "can_render", "save_png", "load_png"]
