-- Crowdsourcing sites' ids (eval serve's study link on Prolific or MTurk): the ids a participant
-- came in with, one row per distinct set (an MTurk worker may come back with another
-- assignment). site is 'prolific' (PROLIFIC_PID), 'mturk' (workerId) or '' (worker_id with a
-- site's parameters); study_id and session_id are Prolific's STUDY_ID and SESSION_ID, hit_id
-- and assignment_id MTurk's hitId and assignmentId; submit_to is MTurk's turkSubmitTo, kept
-- only when it is MTurk's own (www.mturk.com or workersandbox.mturk.com).
CREATE TABLE eval_crowd_ids (
    id             INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES eval_participants (id) ON DELETE CASCADE,
    site           TEXT    NOT NULL DEFAULT '',
    study_id       TEXT    NOT NULL DEFAULT '',
    session_id     TEXT    NOT NULL DEFAULT '',
    hit_id         TEXT    NOT NULL DEFAULT '',
    assignment_id  TEXT    NOT NULL DEFAULT '',
    submit_to      TEXT    NOT NULL DEFAULT '',
    first_seen     TEXT    NOT NULL,
    last_seen      TEXT    NOT NULL,
    UNIQUE (participant_id, site, study_id, session_id, hit_id, assignment_id)
);
