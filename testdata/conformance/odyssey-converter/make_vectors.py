#!/usr/bin/python3
"""Makes the odyssey-converter conformance vectors.

Writes two small synthetic GUI Odyssey datasets (annotations and splits; no screenshots) under
datasets/, then runs the ORIGINAL data/format_converter.py of OpenGVLab/GUI-Odyssey, unchanged, on
each case and stores what it wrote under <case>/expected/ with the data folder's absolute path
removed from every string (so paths read "screenshots/<file>").

    git --git-dir=<GUI-Odyssey clone>/.git show HEAD:data/format_converter.py > /tmp/format_converter.py
    /usr/bin/python3 make_vectors.py /tmp/format_converter.py

The converter finds its data next to itself (DATA_DIR is the folder of __file__) and converts
every file in splits/; so for each case it is copied, byte for byte, into a fresh temporary data
folder holding the dataset's annotations and only the case's split file, and run there (the
history index is written to the working directory, which is that folder). It needs numpy
(/usr/bin/python3 has it); nothing is stubbed or patched.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def step(i, ep, action, info, low, desc, intention, context, bbox, shot=None):
    return {
        "step": i,
        "screenshot": shot if shot is not None else f"{ep}_{i}.png",
        "action": action,
        "info": info,
        "ps": "",
        "description": desc,
        "intention": intention,
        "context": context,
        "low_level_instruction": low,
        "sam2_bbox": bbox,
    }


def episode(ep, device, category, apps, instruction, steps):
    return {
        "episode_id": ep,
        "device_info": {"product": "sdk_gphone64_x86_64", "release_version": "14", "sdk_version": "34",
                        "h": device[1], "w": device[2], "device_name": device[0]},
        "task_info": {"category": category, "app": apps, "meta_task": instruction + " {}",
                      "task": instruction, "instruction": instruction},
        "step_length": len(steps),
        "steps": steps,
    }


PIXEL7 = ("Pixel 7 Pro", 3120, 1440)
TABLET = ("Pixel Tablet", 1600, 2560)
FOLD = ("Pixel Fold", 2208, 1840)

# every action kind the converter knows, as (action, info, low-level instruction)
KINDS = [
    ("CLICK", [[156, 813], [156, 813]], "Tap the music icon."),
    ("CLICK", "KEY_HOME", "Go to the home screen."),
    ("CLICK", "KEY_BACK", "Go back."),
    ("CLICK", "KEY_APPSELECT", "Open the recent apps."),
    ("LONG_PRESS", [[400, 620]], "Long press the note."),
    ("LONG_PRESS", "KEY_BACK", "Hold the back key."),
    ("SCROLL", [[500, 800], [500, 200]], "Scroll up."),
    ("SCROLL", [[500, 200], [510, 900]], "Scroll down."),
    ("SCROLL", [[800, 500], [100, 480]], "Swipe left."),
    ("SCROLL", [[100, 500], [900, 520]], "Swipe right."),
    ("TEXT", "photography for beginners", "Type the query."),
    ("TEXT", "note: buy milk", "Type the note."),
    ("COMPLETE", "", "The task is done."),
    ("INCOMPLETE", "", "The task cannot be done."),
]


def basic():
    """Six episodes over three devices and four categories; every action kind appears."""
    plans = [
        ("0141354101910412", PIXEL7, "Media_Entertainment", ["Amazon Music", "Things"],
         "Use Amazon Music to listen to a podcast, then note it in Things.", [0, 10, 6, 1, 4, 11, 12]),
        ("2431605640004308", TABLET, "Web_Shopping", ["Chrome", "eBay"],
         "Compare a camera's price on Chrome and eBay.", [0, 7, 8, 2, 9, 13]),
        ("4691471567147560", FOLD, "Social_Sharing", ["Instagram"],
         "Share a photo on Instagram.", [3, 5, 0, 12]),
        ("5063819007097866", PIXEL7, "General_Tool", ["Settings", "Clock"],
         "Turn on dark mode in Settings and set an alarm in Clock.", [1, 0, 6, 7, 2, 0, 10, 12]),
        ("6984211619236435", TABLET, "Information_Management", ["Keep Notes"],
         "Write a shopping list in Keep Notes.", [4, 11, 13]),
        ("8432796915913390", FOLD, "Multi_Apps", ["Maps", "Messages"],
         "Find a cafe in Maps and send its address in Messages.", [0, 9, 8, 3, 1, 10, 12]),
    ]
    eps = []
    for ep, dev, cat, apps, instr, kinds in plans:
        steps = []
        for i, k in enumerate(kinds):
            action, info, low = KINDS[k]
            steps.append(step(i, ep, action, info, low,
                              f"Screen {i} of {apps[0]} on a {dev[0]}.",
                              f"To finish the task I need to do this next: {low}",
                              "This is the first step of the task." if i == 0 else f"So far {i} steps were taken.",
                              [] if isinstance(info, str) else [100 + i, 200 + i, 300 + i, 400 + i]))
        eps.append(episode(ep, dev, cat, apps, instr, steps))
    ids = [e["episode_id"] for e in eps]
    splits = {
        "random_split": {"train": [ids[3], ids[0], ids[4], ids[1]], "test": [ids[5], ids[2]]},
        "app_split": {"train": [ids[1], ids[2], ids[5]], "test": [ids[0], ids[4], ids[3]]},
        "device_split": {"train": [ids[0], ids[3], ids[2], ids[5]], "test": [ids[1], ids[4]]},
    }
    return eps, splits


def tricky():
    """Four episodes with strings and numbers that test the conversions: quotes and backslashes
    (Python repr switches quotes), non-ASCII text, float and negative coordinates, one-point and
    tied scrolls, a screenshot name with an apostrophe, a one-step episode, null semantic fields."""
    eps = []
    e1 = "0000000000000001"
    eps.append(episode(e1, PIXEL7, "General_Tool", ["Files"],
                       'Rename the file "report.txt" to Tom\'s report in Files',
                       [step(0, e1, "CLICK", [[500.5, 300.25]], "Tap 'report.txt'.", "Files lists \"report.txt\".",
                             "I need to open it", "This is the first step of the task.", [1, 2, 3, 4]),
                        step(1, e1, "TEXT", "Tom's \"final\" report\\v2", "Type Tom's name.", "A text box.",
                             "Type the new name", "So far: Tap 'report.txt'.", []),
                        step(2, e1, "SCROLL", [[500, 500], [700, 300]], "Scroll (a tie goes up or down).",
                             "A list.", "Scroll", "So far: two steps.", [0, 0, 1000, 1000]),
                        step(3, e1, "SCROLL", [[500, 500], [500, 500]], "A scroll that does not move.",
                             "A list.", "Scroll", "So far: three steps.", [5, 5, 6, 6]),
                        step(4, e1, "COMPLETE", "", "Done.", "Done.", "Done", "All steps done.", [])]))
    e2 = "0987654321098765"
    eps.append(episode(e2, TABLET, "Social_Sharing", ["微信", "Café Lumière"],
                       "在微信里分享 Café Lumière 的地址 🍰",
                       [step(0, e2, "CLICK", [[0, 1000]], "点击微信图标。", "主屏幕。",
                             "打开微信", "这是任务的第一步。", [0, 990, 10, 1000]),
                        step(1, e2, "LONG_PRESS", [[-5, 12.0]], "Long press at the edge.", "Chat list.",
                             "Select the chat", "So far: 点击微信图标。", [1, 1, 2, 2]),
                        step(2, e2, "LONG_PRESS", "KEY_HOME", "Hold home.", "Chat.",
                             "Leave", "So far: two steps.", []),
                        step(3, e2, "TEXT", "line one\nline\ttwo ✓", "Type two lines.", "Chat.",
                             "Write", "So far: three steps.", []),
                        step(4, e2, "INCOMPLETE", "", "Give up.", None, None, None, [])]))
    e3 = "1111111111111111"
    eps.append(episode(e3, FOLD, "Information_Management", ["Keep Notes"],
                       "Just finish",
                       [step(0, e3, "COMPLETE", "", "Already done.", "Home screen.", "Stop",
                             "This is the first step of the task.", [])]))
    e4 = "2222222222222222"
    eps.append(episode(e4, PIXEL7, "Web_Shopping", ["Chrome"],
                       "Open a back\\slash path in Chrome",
                       [step(i, e4, a, info, low, f"Screen {i}.", f"Intention {i}.", f"Context {i}.", bbox,
                             shot=f"it's_{e4}_{i}.png")
                        for i, (a, info, low, bbox) in enumerate([
                            ("CLICK", "KEY_APPSELECT", "Recent apps.", []),
                            ("SCROLL", [[900, 100], [100, 900]], "Swipe across.", [1, 2, 3, 4]),
                            ("SCROLL", [[100.5, 900], [100, 100]], "Swipe up.", [1, 2, 3, 4]),
                            ("CLICK", "KEY_BACK", "Back.", []),
                            ("CLICK", "KEY_HOME", "Home.", []),
                            ("TEXT", "C:\\Users\\tom", "Type the path.", []),
                            ("CLICK", [[1, 2]], "Tap.", [0, 0, 3, 3]),
                            ("COMPLETE", "", "Done.", [])])]))
    ids = [e["episode_id"] for e in eps]
    splits = {
        "random_split": {"train": [ids[0], ids[1]], "test": [ids[2], ids[3]]},
        "task_split": {"train": [ids[3], ids[2], ids[0]], "test": [ids[1]]},
    }
    return eps, splits


DATASETS = {"basic": basic, "tricky": tricky}

# (case, dataset, split, his_len, level, type, seed); seed only names our shuffle (the original's
# is unseeded), so semantic cases are compared as multisets.
CASES = [
    ("basic-standard-high-random", "basic", "random_split", 4, "high", "standard", None),
    ("basic-standard-low-random", "basic", "random_split", 4, "low", "standard", None),
    ("basic-standard-high-app-his2", "basic", "app_split", 2, "high", "standard", None),
    ("basic-standard-low-device-his0", "basic", "device_split", 0, "low", "standard", None),
    ("basic-semantic-high-random", "basic", "random_split", 4, "high", "semantic", 1),
    ("basic-semantic-low-app-his1", "basic", "app_split", 1, "low", "semantic", 7),
    ("tricky-standard-high-random", "tricky", "random_split", 4, "high", "standard", None),
    ("tricky-standard-low-task-his1", "tricky", "task_split", 1, "low", "standard", None),
    ("tricky-standard-high-task-his8", "tricky", "task_split", 8, "high", "standard", None),
    ("tricky-semantic-high-random", "tricky", "random_split", 4, "high", "semantic", 3),
    ("tricky-semantic-low-task-his2", "tricky", "task_split", 2, "low", "semantic", 11),
]


def dump(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f, indent=4, ensure_ascii=False)


def write_dataset(name):
    eps, splits = DATASETS[name]()
    root = os.path.join(HERE, "datasets", name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "annotations"))
    os.makedirs(os.path.join(root, "splits"))
    for e in eps:
        dump(e, os.path.join(root, "annotations", e["episode_id"] + ".json"))
    for s, parts in splits.items():
        dump({k: [i + ".json" for i in v] for k, v in parts.items()}, os.path.join(root, "splits", s + ".json"))
    return root


def strip_root(v, prefix):
    if isinstance(v, str):
        return v.replace(prefix, "")
    if isinstance(v, list):
        return [strip_root(x, prefix) for x in v]
    if isinstance(v, dict):
        return {strip_root(k, prefix): strip_root(x, prefix) for k, x in v.items()}
    return v


def run_case(converter, case):
    name, ds, split, his_len, level, typ, seed = case
    src = os.path.join(HERE, "datasets", ds)
    out = os.path.join(HERE, name)
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(os.path.realpath(tmp), "GUI-Odyssey-data")
        shutil.copytree(os.path.join(src, "annotations"), os.path.join(data, "annotations"))
        os.makedirs(os.path.join(data, "splits"))
        shutil.copy(os.path.join(src, "splits", split + ".json"), os.path.join(data, "splits"))
        shutil.copy(converter, os.path.join(data, "format_converter.py"))
        subprocess.run([PYTHON, "format_converter.py", "--his_len", str(his_len), "--level", level, "--type", typ],
                       cwd=data, check=True, stdout=subprocess.DEVNULL)
        for rel in ["train_anno", "test_anno"]:
            os.makedirs(os.path.join(out, "expected", rel))
            for f in sorted(os.listdir(os.path.join(data, rel))):
                with open(os.path.join(data, rel, f)) as fh:
                    dump(strip_root(json.load(fh), data + "/"), os.path.join(out, "expected", rel, f))
        with open(os.path.join(data, "his_index.json")) as fh:
            dump(strip_root(json.load(fh), data + "/"), os.path.join(out, "expected", "his_index.json"))
    c = {"dataset": "datasets/" + ds, "split": split, "his_len": his_len, "level": level, "type": typ}
    if seed is not None:
        c["seed"] = seed
    with open(os.path.join(out, "case.json"), "w") as f:
        json.dump(c, f, indent=2)
        f.write("\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_vectors.py FORMAT_CONVERTER_PY")
    converter = os.path.abspath(sys.argv[1])
    for ds in DATASETS:
        write_dataset(ds)
    for case in CASES:
        run_case(converter, case)
        print("wrote", case[0])


if __name__ == "__main__":
    main()
