import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

SCRIPT = r"""
import gymnasium
import agentdesk_gridworld as agw
env = agw.Env()
assert isinstance(env, gymnasium.Env), type(env).__mro__
assert env.action_space.origin == "gymnasium-standin"
assert env.observation_space["inventory"].origin == "gymnasium-standin"
for i in agw.ENV_IDS:
    assert i in gymnasium.registry, i
e = gymnasium.make("IGLUGridworldVector-v0", render=False)
obs, info = e.reset(seed=0)
assert "grid" in obs
print("ok")
"""


def test_gymnasium_path_with_a_stand_in():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "gymnasium_standin"), os.path.dirname(HERE)])
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_without_gymnasium_plain_spaces():
    import agentdesk_gridworld as agw
    from agentdesk_gridworld import spaces
    env = agw.Env()
    assert isinstance(env.action_space, spaces.Discrete) or hasattr(env.action_space, "sample")
