"""The tests run against the real Gymnasium (1.4.0, pure Python), vendored beside the checkout in
../shared/vendor/python (AGENTDESK_VENDOR_PYTHON names another folder). Where it is missing the
Gymnasium tests are skipped, saying why; under CI (CI=true) a missing folder fails the run."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PKG))
VENDOR = os.environ.get("AGENTDESK_VENDOR_PYTHON") or os.path.join(REPO, "..", "shared", "vendor", "python")
VENDOR = os.path.abspath(VENDOR)
VENDOR_FOUND = os.path.isdir(os.path.join(VENDOR, "gymnasium"))

# The package from this folder (the engine library is built next to it by `make pylib`), and
# the vendored Gymnasium before anything imports the package (it registers its ids then).
for p in ([VENDOR] if VENDOR_FOUND else []) + [PKG]:
    if p not in sys.path:
        sys.path.insert(0, p)
# Subprocesses (the tests' scripts, AsyncVectorEnv's workers) see the same.
os.environ["PYTHONPATH"] = os.pathsep.join(
    ([VENDOR] if VENDOR_FOUND else []) + [PKG] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

try:
    import gymnasium  # noqa: F401
    GYMNASIUM = True
except ImportError:
    GYMNASIUM = False

WHY_NO_GYMNASIUM = ("the real Gymnasium is not at %s (../shared/vendor/python beside the checkout, or set "
                    "AGENTDESK_VENDOR_PYTHON) and is not installed: the Gymnasium tests are skipped" % VENDOR)


def pytest_configure(config):
    config.addinivalue_line("markers", "gymnasium: needs the real Gymnasium (skipped without it, fails under CI)")
    if os.environ.get("CI") == "true" and not VENDOR_FOUND:
        raise pytest.UsageError("CI=true: the vendored Gymnasium is missing at %s (../shared/vendor/python beside "
                                "the checkout); the Gymnasium tests must run in CI" % VENDOR)


def pytest_report_header(config):
    if GYMNASIUM:
        import gymnasium
        return "gymnasium %s from %s" % (gymnasium.__version__, os.path.dirname(gymnasium.__file__))
    return WHY_NO_GYMNASIUM


def pytest_collection_modifyitems(config, items):
    if GYMNASIUM:
        return
    skip = pytest.mark.skip(reason=WHY_NO_GYMNASIUM)
    for item in items:
        if "gymnasium" in item.keywords:
            item.add_marker(skip)
