"""Builds the agentdesk_gridworld wheel (make wheel): the package with the engine's shared
library inside, so the wheel is platform-specific (linux x86-64) but needs no compiler."""
import os

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ["libagentdesk_gridworld.so", "libagentdesk_gridworld_gl.so"]  # the engine alone; with the OpenGL renderer


class BinaryDistribution(Distribution):
    """The package ships a native library: a platform wheel, not a pure one."""

    def has_ext_modules(self):
        return True


class Wheel(bdist_wheel):
    """The library speaks a C ABI, not Python's: any Python 3, this platform."""

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


for lib in LIBS:
    if not os.path.exists(os.path.join(HERE, "agentdesk_gridworld", lib)):
        raise SystemExit("build the engine libraries first (%s is missing): make pylib" % lib)

setup(
    name="agentdesk-gridworld",
    version=os.environ.get("AGENTDESK_VERSION", "0.1.0"),
    description="The IGLU voxel gridworld for Python training loops, over Agentdesk's Go engine",
    packages=["agentdesk_gridworld"],
    package_data={"agentdesk_gridworld": LIBS},
    install_requires=["numpy"],
    python_requires=">=3.9",
    distclass=BinaryDistribution,
    cmdclass={"bdist_wheel": Wheel},
    zip_safe=False,
)
