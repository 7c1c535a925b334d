-- Serving a study to participants' own browsers (eval serve, the workspace's Serve button).
--
-- A project's serving secret signs its participant links, its study link and its forms; it is
-- made on first use and never leaves the store. Revoking a participant's links raises their
-- generation (links signed for an older one stop working); the study link has its own
-- generation. A participant who came in through the study link (a crowdsourcing site's
-- shared URL with their id appended) is bound to the browser that started: `browser` holds a
-- hash of that browser's cookie.
CREATE TABLE eval_serving (
    project_id       INTEGER PRIMARY KEY REFERENCES eval_projects (id) ON DELETE CASCADE,
    secret           BLOB    NOT NULL CHECK (length(secret) >= 32),
    study_generation INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE eval_links (
    project_id  INTEGER NOT NULL REFERENCES eval_projects (id) ON DELETE CASCADE,
    participant TEXT    NOT NULL CHECK (participant <> ''),
    generation  INTEGER NOT NULL DEFAULT 0,
    browser     TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, participant)
) WITHOUT ROWID;
