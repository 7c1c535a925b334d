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
echo "wheel check: $wheel installs and runs"
