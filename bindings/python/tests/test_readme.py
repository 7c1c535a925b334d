"""The README's Python examples, run as written: the Gymnasium training loop, and the RLlib
creator through the calls RLlib's SingleAgentEnvRunner makes (Ray itself is not installable on
the build machines)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gymnasium
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "README.md")


def _block(marker):
    text = open(README, encoding="utf-8").read()
    m = re.search(r"<!-- %s -->\s*```python\n(.*?)```" % re.escape(marker), text, re.S)
    assert m, "no %s block in the README" % marker
    return m.group(1)


def test_training_loop_runs_as_written(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_block("training-loop"))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 10 and lines[-1].startswith("update 9: ") and "episodes" in lines[-1], r.stdout
    assert int(lines[-1].split()[2]) >= 64, "episodes of max_steps=64 finish within 320 steps"


def test_rllib_creator_through_rllibs_calls():
    import gymnasium as gym
    from gymnasium.wrappers.vector import DictInfoToList
    text = open(README, encoding="utf-8").read()
    at = text.index("  def iglu(config):")
    start = text.rindex("  ```python\n", 0, at) + len("  ```python\n")
    code = text[start:text.index("  ```\n", at)]
    code = "\n".join(line[2:] for line in code.splitlines())  # the block is indented in a list item
    registered = {}
    ns = {"__name__": "rllib_example"}
    exec(compile(code.replace("from ray.tune.registry import register_env",
                              "register_env = registered.__setitem__"), "README", "exec"),
         dict(ns, registered=registered))
    creator = registered["iglu"]
    env_ctx = {"env_id": "IGLUGridworldVector-v0", "max_steps": 5}
    # what SingleAgentEnvRunner.make_env does with a creator given to register_env
    gym.register("rllib-single-agent-env-v0", entry_point=lambda: creator(env_ctx),
                 vector_entry_point=lambda num_envs: creator(env_ctx | {"num_envs": num_envs}))
    try:
        for mode in ("sync", "vector_entry_point"):
            env = DictInfoToList(gym.make_vec("rllib-single-agent-env-v0", num_envs=4,
                                              vectorization_mode=gym.VectorizeMode(mode)))
            obs, infos = env.reset(seed=0, options=None)
            assert set(obs) == {"agentPos", "grid", "inventory"} and obs["grid"].shape == (4, 9, 11, 11)
            for t in range(7):
                obs, r, te, tr, infos = env.step(env.action_space.sample())
            assert isinstance(infos, list) and len(infos) == 4
            assert env.unwrapped.__class__.__name__ == ("VectorEnv" if mode == "vector_entry_point" else "SyncVectorEnv")
            env.close()
    finally:
        del gym.registry["rllib-single-agent-env-v0"]
    assert np.isfinite(r).all()
