"""The package against the real Gymnasium (1.4.0, vendored in ../shared/vendor/python: see
conftest.py): the environment checker on every id with the pov on and off, the passive checker
through make, wrappers, SyncVectorEnv, AsyncVectorEnv with shared memory in every start method,
make_vec in every mode, Gymnasium's vector wrappers around the package's VectorEnv, and that
VectorEnv steps exactly as SyncVectorEnv over single environments in each autoreset mode."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import agentdesk_gridworld as agw
from agentdesk_gridworld import _native

pytestmark = pytest.mark.gymnasium
HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)

if agw.env._gym is not None:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env, data_equivalence
    from gymnasium.vector import AutoresetMode

# The one warning the checkers give: agentPos's position has no bound (the agent can walk off
# the build zone and fall, or fly away).
INFINITE_BOUND = "observation space m"


def _gl():
    if os.environ.get("DISPLAY") and _native.can_render():
        return
    if os.environ.get("AGENTDESK_REQUIRE_GL") == "1":
        pytest.fail("rendering is required (AGENTDESK_REQUIRE_GL=1) but there is no display or OpenGL build")
    pytest.skip("no display or no OpenGL build")


def _no_other_warnings(record):
    other = [str(w.message) for w in record if INFINITE_BOUND not in str(w.message) or "infinity" not in str(w.message)]
    assert not other, other


def test_real_gymnasium_and_registration():
    assert gym.__version__ == "1.4.0", gym.__file__
    for i in agw.ENV_IDS:
        spec = gym.spec(i)
        assert spec.entry_point == "agentdesk_gridworld.env:Env"
        assert spec.vector_entry_point == "agentdesk_gridworld.env:VectorEnv"
    assert issubclass(agw.VectorEnv, gym.vector.VectorEnv) and issubclass(agw.Env, gym.Env)
    assert agw.Env.metadata["render_modes"] == ["rgb_array"] and agw.Env.metadata["render_fps"] > 0


@pytest.mark.parametrize("env_id", agw.ENV_IDS)
def test_check_env_without_pov(env_id):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        env = gym.make(env_id, render=False, target_in_obs=True)
        check_env(env.unwrapped, skip_render_check=True)
        env.close()
    _no_other_warnings(record)


@pytest.mark.parametrize("env_id", agw.ENV_IDS)
def test_check_env_with_pov(env_id):
    _gl()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        env = gym.make(env_id, render_mode="rgb_array")
        assert env.render_mode == "rgb_array" and env.unwrapped.config["render"]
        check_env(env.unwrapped)
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (64, 64, 3) and frame.dtype == np.uint8
        env.close()
    _no_other_warnings(record)
    # IGLU's default: IGLUGridworld-v0 renders the pov without being asked
    env = gym.make("IGLUGridworld-v0")
    obs, _ = env.reset(seed=0)
    assert obs["pov"].shape == (64, 64, 3) and env.render_mode is None
    env.close()


def test_render_mode_and_render_disagree():
    with pytest.raises(ValueError, match="render=False"):
        gym.make("IGLUGridworld-v0", render_mode="rgb_array", render=False)
    env = gym.make("IGLUGridworld-v0", render=False)
    env.reset(seed=0)
    assert env.render_mode is None and env.render() is None


def test_no_display_names_render_false():
    code = """
import gymnasium as gym, agentdesk_gridworld as agw
try:
    gym.make("IGLUGridworld-v0")
except agw.GridworldError as e:
    print("ERROR", e)
env = gym.make("IGLUGridworld-v0", render=False)
env.reset(seed=0)
print("STEPPED", env.step(1)[1])
"""
    e = dict(os.environ, DISPLAY="", WAYLAND_DISPLAY="")
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "ERROR render=True" in r.stdout and "render=False" in r.stdout and "xvfb-run" in r.stdout, r.stdout
    assert "STEPPED" in r.stdout


def test_passive_checker_through_make():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for env_id in agw.ENV_IDS:
            env = gym.make(env_id, render=False, max_steps=40, target_in_obs=True)
            assert "PassiveEnvChecker" in str(env)
            env.action_space.seed(0)
            obs, info = env.reset(seed=0)
            for t in range(120):
                obs, r, te, tr, info = env.step(env.action_space.sample())
                assert env.observation_space.contains(obs)
                if te or tr:
                    obs, info = env.reset()
            env.close()
    _no_other_warnings(record)


def test_wrappers():
    env = gym.wrappers.FlattenObservation(gym.make("IGLUGridworldVector-v0", target_in_obs=True))
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs.ndim == 1
    for _ in range(5):
        obs, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
    # the dialog's characters round-trip through flattening
    inner = env.unwrapped
    o, _ = inner.reset(seed=1)
    text = inner.observation_space["dialog"]
    assert gym.spaces.unflatten(text, gym.spaces.flatten(text, o["dialog"])) == o["dialog"] and "<" in o["dialog"]
    env = gym.wrappers.RecordEpisodeStatistics(gym.wrappers.TimeLimit(gym.make("IGLUGridworld-v0", render=False), 7))
    env.reset(seed=0)
    for t in range(7):
        _, _, te, tr, info = env.step(0)
    assert tr and info["episode"]["l"] == 7
    env = gym.wrappers.FilterObservation(gym.make("IGLUGridworldVector-v0"), ["grid", "inventory"])
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"grid", "inventory"}


def test_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("IGLUGridworldVector-v0", max_steps=5)] * 3)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    for _ in range(8):
        obs, r, te, tr, info = envs.step(envs.action_space.sample())
        assert envs.observation_space.contains(obs)
    envs.close()


@pytest.mark.parametrize("context", ["fork", "spawn", "forkserver"])
def test_async_vector_env_shared_memory(context):
    # Gymnasium 1.4.0's AsyncVectorEnv reads Text observations out of shared memory once, when
    # it is made (strings are not views), so with shared_memory=True the dialogs it returns
    # stay as they were then; every array is read afresh. The README says so.
    # "module:id" imports the package in spawned workers before looking the id up
    make = lambda: gym.make("agentdesk_gridworld:IGLUGridworldVector-v0", max_steps=5)  # noqa: E731
    envs = gym.vector.AsyncVectorEnv([make] * 2, shared_memory=True, context=context)
    sync = gym.vector.SyncVectorEnv([make] * 2)
    a, b = envs.reset(seed=0), sync.reset(seed=0)
    assert envs.observation_space.contains(a[0])
    arrays = lambda o: {k: v for k, v in o.items() if k != "dialog"}  # noqa: E731
    assert data_equivalence(arrays(a[0]), arrays(b[0]))
    for t in range(7):
        acts = np.array([t % 18, 17 - t])
        a, b = envs.step(acts), sync.step(acts)
        assert envs.observation_space.contains(a[0])
        assert data_equivalence((arrays(a[0]),) + a[1:], (arrays(b[0]),) + b[1:]), "step %d" % t
    envs.close()
    sync.close()


def test_async_vector_env_without_shared_memory_keeps_dialogs():
    envs = gym.make_vec("IGLUGridworldVector-v0", num_envs=2, vectorization_mode="async",
                        vector_kwargs={"shared_memory": False})
    obs, _ = envs.reset(seed=0)
    assert obs["dialog"][0].startswith("<Architect>")
    envs.close()


def test_make_vec_modes():
    made = {}
    for mode in ("sync", "async", "vector_entry_point"):
        vector_kwargs = {"shared_memory": False} if mode == "async" else None
        envs = gym.make_vec("IGLUGridworldVector-v0", num_envs=2, vectorization_mode=mode, max_steps=4,
                            vector_kwargs=vector_kwargs)
        obs, _ = envs.reset(seed=3)
        steps = [envs.step(np.array([1, 13]))[:4] for _ in range(5)]
        made[mode] = (obs, steps)
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        envs.close()
    assert data_equivalence(made["sync"], made["async"]) and data_equivalence(made["sync"], made["vector_entry_point"])
    envs = gym.make_vec("IGLUGridworld-v0", num_envs=4, render=False)
    assert isinstance(envs, agw.VectorEnv), "the default mode is the vector entry point"
    assert envs.spec.id == "IGLUGridworld-v0" and envs.num_envs == 4
    assert envs.single_action_space == gym.spaces.Discrete(18)
    assert envs.action_space == gym.spaces.MultiDiscrete([18] * 4)
    envs.close()


def test_vector_wrappers_around_vector_env():
    from gymnasium.wrappers import vector as vw
    envs = agw.VectorEnv(4, "IGLUGridworldVector-v0", max_steps=6)
    envs = vw.RecordEpisodeStatistics(envs)
    envs = vw.FilterObservation(envs, ["grid", "agentPos", "inventory"])
    envs = vw.FlattenObservation(envs)
    envs = vw.NormalizeObservation(envs)
    envs = vw.ClipReward(envs, -1, 1)
    envs = vw.DictInfoToList(envs)
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (4, 9 * 11 * 11 + 5 + 6)
    episodes = 0
    for _ in range(13):
        obs, r, te, tr, infos = envs.step(envs.action_space.sample())
        assert isinstance(infos, list) and len(infos) == 4
        episodes += sum("episode" in i for i in infos)
    assert episodes == 8
    envs.close()


def test_call_get_attr_set_attr_render():
    envs = agw.VectorEnv(3, "IGLUGridworldVector-v0")
    envs.reset(seed=0)
    assert envs.get_attr("flying") == (False,) * 3
    assert len(envs.call("pose")) == 3
    envs.call("set_task", agw.DUMMY_TASK)
    obs, _ = envs.reset(seed=0)
    assert obs["dialog"] == ("", "", "")
    envs.set_attr("note", "x")
    assert envs.get_attr("note") == ("x",) * 3
    with pytest.raises(ValueError):
        envs.set_attr("note", ["a", "b", "c"])
    assert envs.render() is None
    envs.close()


def test_vector_env_renders():
    _gl()
    envs = gym.make_vec("IGLUGridworld-v0", num_envs=2, render_mode="rgb_array")
    envs.reset(seed=0)
    envs.step(np.array([1, 2]))
    frames = envs.render()
    assert len(frames) == 2 and frames[0].shape == (64, 64, 3)
    envs.close()


def _sync(n, mode, **kw):
    return gym.vector.SyncVectorEnv([lambda: agw.Env("IGLUGridworldVector-v0", **kw)] * n, autoreset_mode=mode)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_vector_env_equals_sync_vector_env(mode):
    n, kw = 5, dict(max_steps=6, target_in_obs=True)
    ours = agw.VectorEnv(n, "IGLUGridworldVector-v0", autoreset_mode=AutoresetMode(mode), **kw)
    theirs = _sync(n, AutoresetMode(mode), **kw)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"]
    assert ours.observation_space == theirs.observation_space and ours.action_space == theirs.action_space
    a, b = ours.reset(seed=11), theirs.reset(seed=11)
    assert data_equivalence(a, b, exact=True)
    rng = np.random.default_rng(0)
    ended = np.zeros(n, bool)
    for t in range(40):
        if mode == "Disabled" and ended.any():
            a = ours.reset(options={"reset_mask": ended.copy()})
            b = theirs.reset(options={"reset_mask": ended.copy()})
            assert data_equivalence(a, b, exact=True), "partial reset at step %d" % t
        acts = rng.integers(0, 18, n)
        a, b = ours.step(acts), theirs.step(acts)
        assert data_equivalence(a, b, exact=True), "step %d:\n%s\n%s" % (t, a, b)
        ended = a[2] | a[3]
    ours.close()
    theirs.close()
