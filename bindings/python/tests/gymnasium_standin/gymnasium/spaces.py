"""Stand-in spaces that record they came from 'gymnasium'."""
import numpy as np


class Space:
    origin = "gymnasium-standin"


class Discrete(Space):
    def __init__(self, n):
        self.n = n

    def sample(self):
        return int(np.random.randint(self.n))

    def contains(self, x):
        return 0 <= int(x) < self.n


class Box(Space):
    def __init__(self, low, high, shape=None, dtype=np.float32):
        self.shape, self.dtype = tuple(shape) if shape is not None else np.shape(low), np.dtype(dtype)
        self.low, self.high = low, high

    def sample(self):
        return np.zeros(self.shape, self.dtype)


class Text(Space):
    def __init__(self, max_length):
        self.max_length = max_length


class Dict(Space):
    def __init__(self, spaces):
        self.spaces = dict(spaces)

    def __getitem__(self, k):
        return self.spaces[k]

    def keys(self):
        return self.spaces.keys()
