"""agentdesk_gridworld: the IGLU voxel gridworld for Python training loops, over Agentdesk's
exact and fast Go engine (a shared library loaded with ctypes; nothing to compile).

    import agentdesk_gridworld as agw
    env = agw.Env()                 # built-in tasks, no rendering
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

VectorEnv(n) steps n environments in one call, writing into shared NumPy arrays.
"""
from ._native import GridworldError
from .env import Env, GymCompat, VectorEnv, action_space, make, observation_space

ENV_IDS = ("IGLUGridworld-v0", "IGLUGridworldVector-v0")

try:
    import gymnasium as _gym
except ImportError:
    _gym = None
if _gym is not None:
    for _id in ENV_IDS:
        if _id not in _gym.registry:
            _gym.register(id=_id, entry_point="agentdesk_gridworld.env:make", kwargs={"env_id": _id})

__all__ = ["Env", "VectorEnv", "GymCompat", "GridworldError", "make", "observation_space", "action_space", "ENV_IDS"]
