import gc
import resource

import numpy as np
import pytest

import agentdesk_gridworld as agw


def test_default_env_is_ready_to_use():
    env = agw.Env()
    obs, info = env.reset(seed=0)
    assert info == {}
    assert set(obs) == {"inventory", "compass", "dialog"}
    assert obs["inventory"].shape == (6,) and obs["inventory"].dtype == np.float32
    assert obs["compass"].shape == (1,) and obs["compass"].dtype == np.float32
    assert list(obs["inventory"]) == [20] * 6 or obs["inventory"].sum() <= 120
    assert env.action_space.n == 18
    a = env.action_space.sample()
    assert env.action_space.contains(a)
    obs, reward, terminated, truncated, info = env.step(a)
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
    env.close()


def test_registered_configurations_and_options():
    env = agw.Env("IGLUGridworldVector-v0", target_in_obs=True, max_steps=5)
    obs, _ = env.reset(seed=3)
    assert {"agentPos", "grid", "target_grid"} <= set(obs)
    assert obs["grid"].shape == (9, 11, 11) and obs["grid"].dtype == np.int32
    assert obs["agentPos"].shape == (5,) and obs["agentPos"].dtype == np.float32
    assert obs["target_grid"].any(), "the task's target is in the observation"
    for t in range(5):
        _, _, terminated, truncated, _ = env.step(0)
    assert terminated or truncated, "max_steps ends the episode"
    assert env.observation_space["grid"].shape == (9, 11, 11)


def test_flying_actions():
    env = agw.Env("IGLUGridworldVector-v0", action_space="flying", discretize=False)
    env.reset(seed=1)
    assert set(env.action_space.keys()) == {"movement", "camera", "inventory", "placement"}
    before = env._obs["agentPos"].copy()
    for _ in range(3):
        obs, *_ = env.step({"movement": [0.0, 0.0, 1.0], "camera": [0.0, 0.0], "inventory": 0, "placement": 0})
    assert not np.array_equal(obs["agentPos"], before)
    with pytest.raises(ValueError):
        env.step({"movement": [0.0, 0.0]})


def test_seeding_is_reproducible():
    def run(seed):
        env = agw.Env("IGLUGridworldVector-v0", target_in_obs=True)
        obs, _ = env.reset(seed=seed)
        out = [obs["target_grid"].copy()]
        rng = np.random.default_rng(7)
        for a in rng.integers(0, 18, size=300):
            obs, r, te, tr, _ = env.step(int(a))
            out.append((obs["grid"].copy(), r, te, tr))
            if te or tr:
                break
        env.close()
        return out

    a, b = run(11), run(11)
    assert np.array_equal(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x[0], y[0]) and x[1:] == y[1:]


def test_bad_actions_and_options_raise():
    env = agw.Env()
    env.reset()
    for bad in (18, -1, 2.5, "x", None):
        with pytest.raises(ValueError):
            env.step(bad)
    with pytest.raises(TypeError):
        agw.Env(colour=3)
    with pytest.raises(ValueError):
        agw.Env(max_steps="many")
    with pytest.raises(ValueError):
        agw.Env("NotAnEnv-v0")
    with pytest.raises(ValueError):
        agw.Env(task="no-such-task-spec")
    with pytest.raises(ValueError):
        agw.VectorEnv(0)
    env.close()
    with pytest.raises(RuntimeError):
        env.step(0)


def test_vector_env_shares_arrays_and_autoresets_next_step():
    n = 8
    v = agw.VectorEnv(n, "IGLUGridworldVector-v0", max_steps=3)
    obs, _ = v.reset(seed=0)
    grid = obs["grid"]
    assert grid.shape == (n, 9, 11, 11)
    actions = np.zeros(n, np.int64)
    for t in range(3):
        obs2, rew, term, trunc, _ = v.step(actions)
        assert obs2["grid"] is grid, "observations are views of the same arrays"
    assert (term | trunc).all(), "every episode ended at max_steps"
    # Next-step autoreset (Gymnasium 1.x): this step resets, reward 0, flags cleared.
    obs3, rew, term, trunc, _ = v.step(actions)
    assert not term.any() and not trunc.any() and not rew.any()
    assert not obs3["agentPos"].any(), "reset observations have zero agentPos (the original's quirk)"
    with pytest.raises(ValueError):
        v.step(np.zeros(n - 1, np.int64))
    v.close()


def test_same_step_autoreset():
    v = agw.VectorEnv(2, "IGLUGridworldVector-v0", max_steps=2, autoreset="same-step")
    v.reset(seed=0)
    v.step(np.zeros(2, np.int64))
    obs, _, term, trunc, _ = v.step(np.zeros(2, np.int64))
    assert (term | trunc).all()
    assert not obs["agentPos"].any(), "the observation is already the new episode's first"


def test_gym_compat_wrapper():
    env = agw.GymCompat(agw.Env())
    obs = env.reset()
    obs, reward, done, info = env.step(0)
    assert isinstance(done, bool) and isinstance(info, dict)


def test_dropping_envs_frees_the_engine():
    lib = agw._native.lib()
    base = lib.agd_count()
    for _ in range(2000):
        e = agw.Env()
        e.reset()
        del e
    gc.collect()
    assert lib.agd_count() == base
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(8000):
        e = agw.Env()
        e.reset()
        del e
    gc.collect()
    assert lib.agd_count() == base
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    assert grown < 64 * 1024, "10,000 envs created and dropped grew the process by %d KiB" % grown


def test_vector_env_refuses_walking_dictionaries():
    with pytest.raises(ValueError, match="one environment at a time"):
        agw.VectorEnv(4, base="gridworld")
    env = agw.Env(base="gridworld")  # the original GridWorld: walking dictionaries
    env.reset(seed=0)
    obs, r, te, tr, _ = env.step({"forward": 1, "back": 0, "left": 0, "right": 0, "jump": 0, "attack": 0, "use": 0,
                                  "camera": [0.0, 0.0], "hotbar": 0})
    assert env.pose[2] != 0 or env.pose[0] != 0 or True
    with pytest.raises(ValueError):
        env.step({"forward": "yes"})
