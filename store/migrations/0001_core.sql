-- Core schema shared by every workspace. Later features add tables in new migration files;
-- this file is never edited once released.

-- Files imported into the store (pickles, dataset folders, task files), identified by content
-- so that importing the same bytes twice is recognised.
CREATE TABLE imported_files (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    path        TEXT    NOT NULL,
    sha256      TEXT    NOT NULL CHECK (length(sha256) = 64),
    size        INTEGER NOT NULL CHECK (size >= 0),
    imported_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (kind, sha256)
);

CREATE TABLE episodes (
    id           INTEGER PRIMARY KEY,
    source       TEXT    NOT NULL CHECK (source <> ''),
    external_id  TEXT    NOT NULL CHECK (external_id <> ''),
    task         TEXT    NOT NULL DEFAULT '',
    instruction  TEXT    NOT NULL DEFAULT '',
    num_steps    INTEGER NOT NULL DEFAULT 0,
    total_reward REAL    NOT NULL DEFAULT 0,
    metadata     TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    file_id      INTEGER REFERENCES imported_files (id) ON DELETE SET NULL,
    created_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (source, external_id)
);
CREATE INDEX episodes_by_file ON episodes (file_id);

CREATE TABLE steps (
    episode_id      INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    idx             INTEGER NOT NULL CHECK (idx >= 0),
    action          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(action)),
    action_kind     TEXT    NOT NULL DEFAULT '',
    reward          REAL    NOT NULL DEFAULT 0,
    instruction     TEXT    NOT NULL DEFAULT '',
    observation_ref TEXT    NOT NULL DEFAULT '',
    observation     BLOB,
    extra           TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
    PRIMARY KEY (episode_id, idx)
) WITHOUT ROWID;
CREATE INDEX steps_by_action_kind ON steps (action_kind);

CREATE TABLE splits (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (name <> ''),
    kind        TEXT NOT NULL CHECK (kind IN ('official', 'user')),
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE split_members (
    split_id   INTEGER NOT NULL REFERENCES splits (id) ON DELETE CASCADE,
    episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    part       TEXT    NOT NULL,
    position   INTEGER NOT NULL,
    PRIMARY KEY (split_id, episode_id)
) WITHOUT ROWID;
CREATE INDEX split_members_by_episode ON split_members (episode_id);

-- Template folders the Templates workspace has opened (the files stay in the original format
-- on disk; the store remembers them).
CREATE TABLE template_folders (
    id        INTEGER PRIMARY KEY,
    path      TEXT NOT NULL UNIQUE,
    name      TEXT NOT NULL DEFAULT '',
    opened_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Evaluation projects, imported from the original layout or created in the app.
CREATE TABLE eval_projects (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE CHECK (name <> ''),
    origin     TEXT NOT NULL CHECK (origin IN ('imported', 'created')),
    source     TEXT NOT NULL DEFAULT '',
    config     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE recent_files (
    path      TEXT PRIMARY KEY,
    kind      TEXT NOT NULL,
    opened_at TEXT NOT NULL
);
