"""Speed of the Python API (make pybench): single-environment steps with actions drawn
beforehand and observations returned as views of reused arrays, VectorEnv steps, reset time,
and the cost of one ctypes call."""
import time

import numpy as np

import agentdesk_gridworld as agw


def rate(f, n):
    t = time.perf_counter()
    f()
    return n / (time.perf_counter() - t)


def main():
    env = agw.Env()
    env.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 18, size=500_000).tolist()
    step = env.step
    r = rate(lambda: [step(a) for a in acts], len(acts))
    print("Env() walking, random actions: %.0f steps/s" % r)
    for n in (64, 256):
        v = agw.VectorEnv(n)
        v.reset(seed=0)
        A = np.random.default_rng(1).integers(0, 18, size=(max(1, 1_000_000 // n), n))
        r = rate(lambda: [v.step(a) for a in A], A.size)
        print("VectorEnv(%d) walking, no grid: %.0f steps/s" % (n, r))
        v.close()
    v = agw.VectorEnv(64, "IGLUGridworldVector-v0", target_in_obs=True)
    v.reset(seed=0)
    A = np.random.default_rng(1).integers(0, 18, size=(10_000, 64))
    print("VectorEnv(64) IGLUGridworldVector-v0 with target: %.0f steps/s" % rate(lambda: [v.step(a) for a in A], A.size))
    e = agw.Env("IGLUGridworldVector-v0")
    print("reset (new task from the generator): %.1f us" % (1e6 / rate(lambda: [e.reset() for _ in range(20_000)], 20_000)))
    if agw.can_render() and __import__("os").environ.get("DISPLAY"):
        e = agw.Env(render=True)
        e.reset(seed=0)
        a1 = acts[:20_000]
        print("Env(render=True) 64x64 pov: %.0f steps/s" % rate(lambda: [e.step(a) for a in a1], len(a1)))
        v = agw.VectorEnv(64, render=True)
        v.reset(seed=0)
        A = np.random.default_rng(1).integers(0, 18, size=(300, 64))
        print("VectorEnv(64) 64x64 pov: %.0f steps/s" % rate(lambda: [v.step(a) for a in A], A.size))
        print("reset with pov: %.1f us" % (1e6 / rate(lambda: [e.reset() for _ in range(2_000)], 2_000)))
    else:
        print("pov: not measured (no display or no OpenGL build; run under xvfb-run)")
    L = agw._native.lib()
    print("one ctypes call: %.3f us" % (1e6 / rate(lambda: [L.agd_count() for _ in range(500_000)], 500_000)))


if __name__ == "__main__":
    main()
