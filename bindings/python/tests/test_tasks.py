"""Tasks and task generators through the Python API: DUMMY_TASK and Task objects in set_task,
the built-in generators, and an IGLU dataset folder (written here, in the dataset's layout)
with a structure, a session and a turn pinned, as the command line's task specs."""
import json
import os

import numpy as np
import pytest

import agentdesk_gridworld as agw

DIALOGS = """PartitionKey,structureId,StepId,IsHITQualified,instruction,Answer4ClarifyingQuestion,ClarifyingQuestion,Role
1-c7,c7,1,True,place a blue block,,,architect
1-c7,c7,2,True,,,,builder
1-c7,c7,3,True,now a green one on top,,,architect
1-c7,c7,4,True,,,,builder
4-c7,c7,1,True,a purple block please,,,architect
4-c7,c7,2,True,,,,builder
3-c9,c9,1,True,build a red block,,,architect
3-c9,c9,2,True,,,,builder
5-c9,c9,1,True,"a red block, then “a café-style” tower — 2½ high ✓ 🙂",,,architect
5-c9,c9,2,True,,,,builder
5-c9,c9,3,True,"now	tabs and
new lines",,,architect
5-c9,c9,4,True,,,,builder
"""
STEPS = {
    "1-c7/step-2": [[0, 63, 0, 57]],
    "1-c7/step-4": [[0, 63, 0, 57], [0, 64, 0, 59]],
    "4-c7/step-2": [[2, 63, 2, 56]],
    "3-c9/step-2": [[1, 63, 1, 60]],
    "5-c9/step-2": [[1, 63, 1, 60]],
    "5-c9/step-4": [[1, 63, 1, 60], [1, 64, 1, 60]],
}


@pytest.fixture
def dataset(tmp_path):
    (tmp_path / "dialogs.csv").write_text(DIALOGS, encoding="utf-8")
    for name, blocks in STEPS.items():
        p = tmp_path / "builder-data" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"worldEndingState": {"blocks": blocks}}))
    return str(tmp_path)


def test_dummy_task():
    env = agw.Env(target_in_obs=True)
    env.set_task(agw.DUMMY_TASK)
    obs, _ = env.reset(seed=0)
    assert np.count_nonzero(obs["target_grid"]) == 1 and obs["target_grid"][8, 10, 10] == 1
    assert obs["dialog"] == ""
    with pytest.raises(TypeError):
        env.set_task("not a task")


def test_task_object_and_dialog():
    g = np.zeros((9, 11, 11), np.int32)
    g[0, 5, 5] = 3
    env = agw.Env(target_in_obs=True)
    env.set_task(agw.Task("<Architect> one red block", g, starting_grid=[[1, -1, 1, 2]]))
    obs, _ = env.reset(seed=0)
    assert obs["dialog"] == "<Architect> one red block"
    assert obs["target_grid"][0, 5, 5] == 3
    with pytest.raises(ValueError):
        agw.Task("x", np.zeros((2, 2)))


def test_default_generator_has_dialogs():
    env = agw.Env()
    dialogs = set()
    for s in range(10):
        obs, _ = env.reset(seed=s)
        dialogs.add(obs["dialog"])
    assert len(dialogs) > 1 and all(dialogs), dialogs


def test_every_dataset_observation_is_in_the_space(dataset):
    # every structure, session and turn of the dataset's files, through Env and VectorEnv,
    # reset and stepped: the dialogs (punctuation, non-ASCII letters, new lines, and
    # characters outside the charset, which become U+FFFD) are inside the Text space
    seen = set()
    for structure, sessions in (("c7", ("1-c7", "4-c7")), ("c9", ("3-c9", "5-c9"))):
        for session in sessions:
            for turn in (-1, 0, 1):
                gen = agw.IGLUDataset(dataset, structure=structure, session=session, turn=turn)
                try:
                    env = agw.Env("IGLUGridworldVector-v0", target_in_obs=True, task=gen, max_steps=3)
                except ValueError:
                    continue  # the session has no such turn
                for s in range(3):
                    obs, _ = env.reset(seed=s)
                    assert env.observation_space.contains(obs), obs["dialog"]
                    seen.add(obs["dialog"])
                    for a in (1, 6, 12):
                        obs, *_ = env.step(a)
                        assert env.observation_space.contains(obs)
                env.close()
    vec = agw.VectorEnv(6, "IGLUGridworldVector-v0", target_in_obs=True, task=agw.IGLUDataset(dataset), max_steps=2)
    obs, _ = vec.reset(seed=0)
    for t in range(30):
        for i in range(6):
            one = {k: v[i] for k, v in obs.items()}
            assert vec.single_observation_space.contains(one), one["dialog"]
            seen.add(one["dialog"])
        obs, *_ = vec.step(np.full(6, t % 18))
    joined = "\n".join(seen)
    assert "“a café-style” tower — 2½ high \ufffd \ufffd" in joined, seen  # ✓ and 🙂 are not in the charset
    assert all("🙂" not in d for d in seen)


def test_pinned_structure_session_turn(dataset):
    env = agw.Env(target_in_obs=True, task=agw.IGLUDataset(dataset, structure="c9", session="3-c9"))
    for s in range(5):
        obs, _ = env.reset(seed=s)
        assert "red" in obs["dialog"] and np.count_nonzero(obs["target_grid"]) == 1
    # session by index and by id, turn 0: starts with the blue block, the goal adds green
    for gen in (agw.IGLUDataset(dataset, structure="c7", session=0, turn=0),
                agw.IGLUDataset(dataset, session="1-c7", turn=0),
                "iglu:%s#structure=c7,session=1-c7,turn=0" % dataset):
        env.set_task_generator(gen)
        for s in range(5):
            obs, _ = env.reset(seed=s)
            assert "green" in obs["dialog"], obs["dialog"]
            assert np.count_nonzero(obs["target_grid"]) == 2
    # structure c7 unpinned: both sessions are drawn
    env.set_task_generator(agw.IGLUDataset(dataset, structure="c7", turn=-1))
    seen = {env.reset(seed=s)[0]["dialog"].split("\n")[0] for s in range(30)}
    assert seen == {"<Architect> place a blue block", "<Architect> a purple block please"}, seen


def test_bad_pins_raise(dataset):
    with pytest.raises(ValueError, match='no structure "c8"'):
        agw.Env(task=agw.IGLUDataset(dataset, structure="c8"))
    env = agw.Env()
    with pytest.raises(agw.GridworldError, match="session 5: structure c7 has sessions 0 to 1"):
        env.set_task_generator(agw.IGLUDataset(dataset, structure="c7", session=5))
    with pytest.raises(agw.GridworldError, match="turn 3"):
        env.set_task_generator(agw.IGLUDataset(dataset, structure="c9", turn=3))
    with pytest.raises(ValueError, match="turn"):
        agw.IGLUDataset(dataset, turn="2")
    with pytest.raises(TypeError):
        env.set_task_generator(42)
    with pytest.raises(ValueError, match="dialogs.csv"):
        agw.Env(task=agw.IGLUDataset(os.path.join(dataset, "missing")))


def test_vector_dialogs_follow_autoreset(dataset):
    vec = agw.VectorEnv(4, task=agw.IGLUDataset(dataset), max_steps=3)
    obs, _ = vec.reset(seed=1)
    assert all(obs["dialog"]), obs["dialog"]
    seen = set(obs["dialog"])
    for t in range(40):
        obs, r, term, trunc, _ = vec.step(np.zeros(4, np.int64))
        seen.update(obs["dialog"])
    assert len(seen) >= 3, seen  # new tasks, new dialogs after the resets
