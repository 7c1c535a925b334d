"""Speed of the Python API (make pybench), side by side with the Go engine in one run.

The machine may be busy with other work: the numbers that matter are the ratios, measured in
one run, rounds interleaved: the Go engine's own `gridworld bench --envs 2` (AGENTDESK_BENCH_BIN
names the agentdesk binary), gym.make_vec(..., num_envs=64, vectorization_mode=
"vector_entry_point", render=False) and VectorEnv(256), both with fresh arrays (Gymnasium's
copy=True, the default). Then the single environment, other shapes and one ctypes call."""
import json
import os
import subprocess
import time

import numpy as np

import agentdesk_gridworld as agw

ROUNDS = int(os.environ.get("AGENTDESK_BENCH_ROUNDS", "7"))


def rate(f, n):
    t = time.perf_counter()
    f()
    return n / (time.perf_counter() - t)


def go_rate():
    binary = os.environ.get("AGENTDESK_BENCH_BIN")
    if not binary:
        return None
    out = subprocess.run([binary, "gridworld", "bench", "--envs", "2", "--steps", "1000000", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["steps_per_second"]


def vec_rate(v, seconds):
    """Steps/s of a vector env with random actions drawn beforehand (fresh arrays returned)."""
    v.reset(seed=0)
    n = v.num_envs
    A = np.random.default_rng(1).integers(0, 18, size=(256, n))
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for a in A:
            v.step(a)
        steps += A.size
    return steps / (time.perf_counter() - t0)


def main():
    try:
        import gymnasium as gym
    except ImportError:
        gym = None
    print("load average before: %.1f %.1f %.1f (2 cores; other builds share them)" % os.getloadavg())
    # Short windows, interleaved, so that each ratio compares rates measured a second apart.
    rows = []
    mv = gym.make_vec("IGLUGridworld-v0", num_envs=64, vectorization_mode="vector_entry_point", render=False) if gym else None
    v = agw.VectorEnv(256)
    for r in range(ROUNDS):
        g = go_rate()
        m = vec_rate(mv, 0.7) if mv is not None else None
        v256 = vec_rate(v, 0.7)
        rows.append((g, m, v256))
        print("round %d: Go gridworld bench --envs 2 %s steps/s | make_vec(64, vector_entry_point) %s | VectorEnv(256) %.0f%s"
              % (r + 1, "%.0f" % g if g else "(no AGENTDESK_BENCH_BIN)", "%.0f" % m if m else "(no gymnasium)", v256,
                 "" if not g else " | ratios %s, %.2fx" % ("%.2fx" % (m / g) if m else "-", v256 / g)))
    if mv is not None:
        mv.close()
    v.close()
    if rows and rows[0][0]:
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        print("median ratio over %d rounds: make_vec(64) %s (target 0.3x), VectorEnv(256) %.2fx (target 0.5x)"
              % (len(rows), "%.2fx" % med([x[1] / x[0] for x in rows]) if gym else "-", med([x[2] / x[0] for x in rows])))
    print("load average after: %.1f %.1f %.1f" % os.getloadavg())

    env = agw.Env()
    env.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 18, size=200_000).tolist()
    step = env.step
    print("Env() walking, random actions, fresh arrays: %.0f steps/s" % rate(lambda: [step(a) for a in acts], len(acts)))
    for n, copy in ((64, True), (64, False), (256, False), (1024, True)):
        v = agw.VectorEnv(n, copy=copy)
        print("VectorEnv(%d)%s walking, no grid: %.0f steps/s" % (n, "" if copy else " copy=False", vec_rate(v, 1.0)))
        v.close()
    v = agw.VectorEnv(64, "IGLUGridworldVector-v0", target_in_obs=True)
    print("VectorEnv(64) IGLUGridworldVector-v0 with target: %.0f steps/s" % vec_rate(v, 1.0))
    e = agw.Env("IGLUGridworldVector-v0")
    print("reset (new task from the generator): %.1f us" % (1e6 / rate(lambda: [e.reset() for _ in range(20_000)], 20_000)))
    if agw.can_render() and os.environ.get("DISPLAY"):
        e = agw.Env(render=True)
        e.reset(seed=0)
        a1 = acts[:5_000]
        print("Env(render=True) 64x64 pov: %.0f steps/s" % rate(lambda: [e.step(a) for a in a1], len(a1)))
        v = agw.VectorEnv(64, render=True)
        v.reset(seed=0)
        A = np.random.default_rng(1).integers(0, 18, size=(100, 64))
        print("VectorEnv(64) 64x64 pov: %.0f steps/s" % rate(lambda: [v.step(a) for a in A], A.size))
        print("reset with pov: %.1f us" % (1e6 / rate(lambda: [e.reset() for _ in range(1_000)], 1_000)))
    else:
        print("pov: not measured (no display or no OpenGL build; run under xvfb-run)")
    L = agw._native.lib()
    print("one ctypes call: %.3f us" % (1e6 / rate(lambda: [L.agd_count() for _ in range(500_000)], 500_000)))


if __name__ == "__main__":
    main()
