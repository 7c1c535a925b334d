"""Tasks and task generators, as the original's gridworld.tasks.

A Task is one building goal (env.set_task(task)); DUMMY_TASK is the original's placeholder (one
blue block in a corner). A generator draws a task on every reset
(env.set_task_generator(gen), or Env(task=gen)); the generators are the engine's task specs:

    TaskSpec("samples")                       the built-in samples (Env()'s default)
    TaskSpec("random")                        random structures
    TaskSpec("tower")                         one built-in sample by name
    IGLUDataset("/data/iglu")                 an IGLU multi-turn dataset folder
    IGLUDataset("/data/iglu", structure="c118", session=0, turn=2)   pinned parts of it

Any of them is also a plain string, as on the command line (`agentdesk gridworld run --task`).
"""
import numpy as np

GRID_SHAPE = (9, 11, 11)


class Task:
    """A building goal: the chat shown as the dialog, a (9, 11, 11) target grid of colour ids
    (y, x, z; 0 = empty), starting blocks as [x, y, z, id] rows in world coordinates, and
    whether the target may be matched rotated and shifted (invariant)."""

    def __init__(self, chat="", target_grid=None, starting_grid=None, invariant=True):
        self.chat = chat
        self.target_grid = np.zeros(GRID_SHAPE, np.int32) if target_grid is None else np.asarray(target_grid)
        if self.target_grid.shape != GRID_SHAPE:
            raise ValueError("target_grid: want shape %s, got %s" % (GRID_SHAPE, self.target_grid.shape))
        self.starting_grid = None if starting_grid is None else np.asarray(starting_grid, dtype=int).reshape(-1, 4)
        self.invariant = bool(invariant)

    def __repr__(self):
        return "Task(chat=%r, %d target blocks, %d starting blocks)" % (
            self.chat[:40], int(np.count_nonzero(self.target_grid)),
            0 if self.starting_grid is None else len(self.starting_grid))


def _dummy():
    g = np.zeros(GRID_SHAPE, np.int32)
    g[8, 10, 10] = 1
    return Task("", g, invariant=False)


DUMMY_TASK = _dummy()


class TaskSpec:
    """A task generator given by the engine's task spec string."""

    def __init__(self, spec):
        if not isinstance(spec, str) or not spec:
            raise ValueError("task spec: want a non-empty string such as 'samples', 'random' or 'iglu:DIR'")
        self.spec = spec

    def __str__(self):
        return self.spec

    def __repr__(self):
        return "TaskSpec(%r)" % self.spec


class IGLUDataset(TaskSpec):
    """The tasks of an IGLU multi-turn dataset folder (dialogs.csv and builder-data/): a random
    structure, session and turn per reset, or the pinned ones: structure by id, session by id
    or index within the structure, turn as the original's create_task (the task that starts
    after that turn; -1 = the empty world)."""

    def __init__(self, path, structure=None, session=None, turn=None):
        pins = []
        if structure is not None:
            pins.append("structure=%s" % structure)
        if session is not None:
            pins.append("session=%s" % session)
        if turn is not None:
            if not isinstance(turn, (int, np.integer)):
                raise ValueError("turn: want an integer, got %r" % (turn,))
            pins.append("turn=%d" % turn)
        super().__init__("iglu:%s%s" % (path, "#" + ",".join(pins) if pins else ""))
        self.path, self.structure, self.session, self.turn = path, structure, session, turn


def spec_of(generator):
    """The task spec string of a generator or string (None stays None)."""
    if generator is None or isinstance(generator, str):
        return generator
    if isinstance(generator, TaskSpec):
        return generator.spec
    raise TypeError("task generator: want a TaskSpec, an IGLUDataset or a task spec string, got %s"
                    % type(generator).__name__)
