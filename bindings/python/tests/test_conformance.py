"""The public conformance episodes (produced by the original environment) replayed through the
Python API: rewards, done flags, inventories, grids and observations exactly, the agent's
position and rotation within 1e-9, as the Go tests check them. The folder named by
AGENTDESK_CONFORMANCE replaces the repository's testdata/conformance."""
import glob
import json
import os

import numpy as np
import pytest

import agentdesk_gridworld as agw

ROOT = os.environ.get("AGENTDESK_CONFORMANCE") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "testdata", "conformance")
FILES = sorted(glob.glob(os.path.join(ROOT, "gridworld", "episodes", "*.json")))


def test_episodes_were_found():
    print("conformance: read %d episode files from %s" % (len(FILES), ROOT))
    assert FILES, "no conformance episodes in %s" % ROOT


def check_obs(obs, want, where):
    for key, got_key in (("inventory", "inventory"), ("compass", "compass"), ("agentPos", "agentPos"),
                         ("grid", "grid"), ("target_grid", "target_grid")):
        if want.get(key) is None:
            continue
        assert got_key in obs, "%s: no %s in the observation" % (where, key)
        got = np.asarray(obs[got_key])
        exp = np.asarray(want[key], dtype=got.dtype)
        assert np.array_equal(got, exp), "%s: %s %s, want %s" % (where, key, got.tolist(), exp.tolist())
    if want.get("dialog") is not None:
        assert obs["dialog"] == want["dialog"], where


def check_agent(env, want, where):
    pose = env.pose
    assert np.allclose(pose[:3], want["position"], rtol=0, atol=1e-9), "%s: position %s, want %s" % (where, pose[:3], want["position"])
    yaw, pitch = want["rotation"]
    assert abs(pose[3] - yaw) <= 1e-9 and abs(pose[4] - pitch) <= 1e-9, "%s: rotation %s, want %s" % (where, pose[3:], want["rotation"])


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_episode(path):
    with open(path) as f:
        ep = json.load(f)
    kwargs = dict(ep.get("env_kwargs") or {})
    kwargs["render"] = False  # pov frames are compared by the Go tests
    env = agw.Env(base="create_env" if ep.get("uses_create_env_wrapper") else "gridworld", **kwargs)
    task = ep["task"]
    env.set_task(target_grid=task.get("target_grid"), starting_grid=task.get("starting_grid") or None,
                 chat=task.get("chat", ""), invariant=task.get("invariant", True))
    if ep.get("initialize_world"):
        x, y, z, yaw, pitch = ep["initialize_world"]
        obs, _ = env.initialize_world((x, y, z), yaw, pitch)
    else:
        obs, _ = env.reset()
    reset = ep.get("reset") or {}
    if reset.get("obs"):
        check_obs(obs, reset["obs"], "reset")
    if reset.get("agent"):
        check_agent(env, reset["agent"], "reset")
    checked = 0
    for s in ep["steps"]:
        a = s["action"]
        if isinstance(a, dict) and not env._vec.flying:
            obs, reward, term, trunc, _ = env.step_json(json.dumps(a))
        else:
            obs, reward, term, trunc, _ = env.step(a)
        if s["t"] < ep.get("checked_from_t", 0):
            continue
        checked += 1
        where = "%s step %d" % (os.path.basename(path), s["t"])
        if s.get("reward") is not None:
            assert abs(reward - s["reward"]) <= 1e-12, "%s: reward %r, want %r" % (where, reward, s["reward"])
        if s.get("done") is not None:
            assert (term or trunc) == s["done"], "%s: done %s, want %s" % (where, term or trunc, s["done"])
        if s.get("agent"):
            check_agent(env, s["agent"], where)
        if s.get("obs"):
            check_obs(obs, s["obs"], where)
        if term or trunc:
            break
    assert checked > 0
    env.close()
