import gc
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

import agentdesk_gridworld as agw


def test_default_env_is_ready_to_use():
    env = agw.Env()
    obs, info = env.reset(seed=0)
    assert info == {}
    assert set(obs) == {"inventory", "compass", "dialog"}
    assert env.observation_space.contains(obs)
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


def test_vector_env_autoresets_next_step_with_fresh_arrays():
    n = 8
    v = agw.VectorEnv(n, "IGLUGridworldVector-v0", max_steps=3)
    obs, _ = v.reset(seed=0)
    assert obs["grid"].shape == (n, 9, 11, 11)
    actions = np.zeros(n, np.int64)
    kept = []
    for t in range(3):
        obs2, rew, term, trunc, info = v.step(actions)
        kept.append((obs2, rew, term, trunc, info))
        assert not np.shares_memory(obs2["grid"], obs["grid"]), "every step's arrays are fresh"
        assert set(info) >= {"step", "_step", "right_placement", "task_reward", "completed"}
        assert (info["step"] == t + 1).all() and info["_step"].all()
    assert (term | trunc).all(), "every episode ended at max_steps"
    assert [int(k[4]["step"][0]) for k in kept] == [1, 2, 3], "earlier infos are not overwritten"
    # Next-step autoreset (Gymnasium 1.x): this step resets, reward 0, flags cleared, no info.
    obs3, rew, term, trunc, info = v.step(actions)
    assert not term.any() and not trunc.any() and not rew.any()
    assert info == {}, "reset environments have no step info (as SyncVectorEnv)"
    assert not obs3["agentPos"].any(), "reset observations have zero agentPos (the original's quirk)"
    assert (kept[-1][2] | kept[-1][3]).all(), "the flags returned before are not overwritten"
    with pytest.raises(ValueError):
        v.step(np.zeros(n - 1, np.int64))
    v.close()


def test_used_blocks_are_written_again_only_when_no_view_is_alive():
    """Fresh arrays come from blocks of slots; a used-up block is written again only once no
    array of it is held anywhere, so whatever a caller keeps stays as it was returned."""
    import sys
    n = 4
    v = agw.VectorEnv(n, "IGLUGridworldVector-v0", max_steps=5)
    v.reset(seed=0)
    v._slots = v._slot = 3  # small blocks: a new one every three calls
    rng = np.random.default_rng(0)
    kept, copies, bases = [], [], set()
    for t in range(60):
        obs, rew, term, trunc, info = v.step(rng.integers(0, 18, n))
        bases.add(id(obs["grid"].base))
        if t % 7 == 0:  # a caller keeping some steps' results (a rollout buffer, say)
            kept.append((obs, rew, info))
            copies.append((obs["grid"].copy(), obs["inventory"].copy(), rew.copy(), info.get("step", np.zeros(0)).copy()))
    for (obs, rew, info), (g, inv, r, st) in zip(kept, copies):
        assert (obs["grid"] == g).all() and (obs["inventory"] == inv).all() and (rew == r).all()
        assert (info.get("step", np.zeros(0)) == st).all(), "a kept step's info was overwritten"
    if hasattr(sys, "getrefcount"):
        # 20 blocks were used; those with a kept array are new, the others alternate
        assert len(bases) <= len(kept) + 3, "used blocks are not written again: %d blocks for 60 calls" % len(bases)
    del kept, obs, rew, term, trunc, info
    before = len(bases)
    for t in range(30):
        obs, *_ = v.step(rng.integers(0, 18, n))
        bases.add(id(obs["grid"].base))
    if hasattr(sys, "getrefcount"):
        assert len(bases) - before <= 2, "%d new blocks with nothing kept" % (len(bases) - before)
    v.close()


def test_zero_copy_is_an_option():
    v = agw.VectorEnv(4, "IGLUGridworldVector-v0", copy=False)
    obs, _ = v.reset(seed=0)
    obs2, rew, *_ = v.step(np.zeros(4, np.int64))
    obs3, rew3, *_ = v.step(np.zeros(4, np.int64))
    assert obs3["grid"] is obs2["grid"] and rew3 is rew, "copy=False: the same arrays every step"
    env = agw.Env(copy=False)
    o1, _ = env.reset(seed=0)
    o2, *_ = env.step(1)
    assert np.shares_memory(o1["inventory"], o2["inventory"])


def test_env_step_returns_fresh_values():
    env = agw.Env("IGLUGridworldVector-v0")
    obs, _ = env.reset(seed=0)
    seen, rewards = [], []
    for a in (1, 1, 13, 6, 6):
        o, r, te, tr, info = env.step(a)
        seen.append(o)
        rewards.append(r)
        assert set(info) == set(agw.INFO_KEYS) and isinstance(info["completed"], bool)
    assert len({id(o) for o in seen}) == len(seen) and len({id(o["agentPos"]) for o in seen}) == len(seen)
    assert not np.array_equal(seen[0]["agentPos"], seen[2]["agentPos"]), "earlier observations are kept as they were"


def test_same_step_autoreset():
    v = agw.VectorEnv(2, "IGLUGridworldVector-v0", max_steps=2, autoreset_mode="same-step")
    v.reset(seed=0)
    last, *_ = v.step(np.array([1, 2]))
    obs, _, term, trunc, info = v.step(np.array([1, 2]))
    assert (term | trunc).all()
    assert not obs["agentPos"].any(), "the observation is already the new episode's first"
    assert info["_final_obs"].all() and info["_final_info"].all()
    final = info["final_obs"][0]
    assert final["agentPos"].any() and final["grid"].shape == (9, 11, 11) and isinstance(final["dialog"], str)
    assert (info["final_info"]["step"] == 2).all()
    assert "step" not in info, "the reset environments' own info is empty"


def test_disabled_autoreset_and_reset_mask():
    v = agw.VectorEnv(3, "IGLUGridworldVector-v0", max_steps=2, autoreset_mode="disabled")
    v.reset(seed=0)
    v.step(np.array([1, 1, 1]))
    before, _, term, trunc, _ = v.step(np.array([1, 1, 1]))
    assert (term | trunc).all()
    with pytest.raises(ValueError, match="reset_mask"):
        v.step(np.array([1, 1, 1]))
    mask = np.array([True, False, True])
    obs, info = v.reset(options={"reset_mask": mask})
    assert not obs["agentPos"][0].any() and np.array_equal(obs["agentPos"][1], before["agentPos"][1])
    with pytest.raises(ValueError, match="reset_mask"):
        v.step(np.array([1, 1, 1]))
    v.reset(options={"reset_mask": ~mask})
    v.step(np.array([1, 1, 1]))


def test_reset_options_task():
    env = agw.Env(target_in_obs=True)
    obs, _ = env.reset(seed=0, options={"task": agw.DUMMY_TASK})
    assert np.count_nonzero(obs["target_grid"]) == 1 and obs["dialog"] == ""
    obs, _ = env.reset(seed=0, options={"task": "samples"})
    assert obs["dialog"]
    with pytest.raises(ValueError, match="unknown keys"):
        env.reset(options={"colour": 1})
    v = agw.VectorEnv(2, target_in_obs=True)
    obs, _ = v.reset(options={"task": agw.DUMMY_TASK})
    assert (np.count_nonzero(obs["target_grid"].reshape(2, -1), axis=1) == 1).all()


def test_seeded_reset_starts_afresh():
    # a reset keeps the fall speed (the original's quirk, for replay); a seeded one does not
    env = agw.Env("IGLUGridworldVector-v0")
    runs = []
    for _ in range(3):
        env.reset(seed=5)
        runs.append([env.step(5)[0]["agentPos"].copy() for _ in range(3)])
    for r in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(runs[0], r))


def test_gym_compat_wrapper():
    env = agw.GymCompat(agw.Env())
    obs = env.reset()
    obs, reward, done, info = env.step(0)
    assert isinstance(done, bool) and isinstance(info, dict)


def test_dropping_envs_frees_the_engine():
    lib = agw._native.lib()
    gc.collect()
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


def test_package_imports_without_gymnasium():
    code = """
import sys
sys.modules["gymnasium"] = None  # import gymnasium fails
import agentdesk_gridworld as agw, numpy as np
assert agw.env._gym is None and agw.VectorEnv.__mro__[1] is object
v = agw.VectorEnv(3)
obs, _ = v.reset(seed=0)
obs, r, te, tr, info = v.step(np.array([1, 2, 3]))
assert v.single_observation_space.contains({k: x[0] for k, x in obs.items() if k != "dialog"} | {"dialog": obs["dialog"][0]})
e = agw.Env()
e.reset(seed=0)
print("ok", type(e.action_space).__module__, e.step(1)[4]["step"])
"""
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "ok agentdesk_gridworld.spaces 1" in r.stdout, r.stdout
