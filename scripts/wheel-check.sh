#!/usr/bin/env bash
# Installs the newest agentdesk_gridworld wheel in DIST into a fresh venv (with the system's
# NumPy, pip working offline) and steps an environment from outside the source tree.
set -euo pipefail
dist=${1:-dist}
wheel=$(ls -t "$dist"/agentdesk_gridworld-*.whl | head -1)
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-index --no-deps "$wheel"
cd "$venv"
"$venv/bin/python" - <<'PY'
import agentdesk_gridworld as agw, os
print("installed at", os.path.dirname(agw.__file__))
env = agw.Env()
obs, _ = env.reset(seed=0)
for t in range(100):
    obs, r, term, trunc, _ = env.step(env.action_space.sample())
print("wheel check: 100 steps, inventory", obs["inventory"].tolist())
PY
# The OpenGL build from the wheel, under a virtual display: a pov frame saved and read back.
xvfb-run -a "$venv/bin/python" - <<'PY'
import agentdesk_gridworld as agw, numpy as np
from agentdesk_gridworld.png import save_png, load_png
env = agw.Env(render=True)
obs, _ = env.reset(seed=0)
obs, *_ = env.step(1)
save_png("pov.png", obs["pov"])
assert np.array_equal(load_png("pov.png"), obs["pov"]) and obs["pov"].std() > 0
print("wheel check: pov", obs["pov"].shape, "saved as pov.png")
PY
echo "wheel check: $wheel installs and runs"
