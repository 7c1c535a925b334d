-- Model annotators (eval annotate): a participant is a person or a model. A model's answers
-- are stored like a person's (the same units, answer log and qualifications), marked by the
-- participant's kind, so that results keep people and models apart. model names what was
-- asked and model_url the server (never the API key).
ALTER TABLE eval_participants ADD COLUMN kind TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'model'));
ALTER TABLE eval_participants ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_participants ADD COLUMN model_url TEXT NOT NULL DEFAULT '';

-- A page whose answer a model annotator did not give: its replies could not be read as the
-- page's answer after the bounded number of asks, or the server failed. Nothing is guessed:
-- the page stays unanswered and the unit open, for the next run.
CREATE TABLE eval_model_errors (
    id             INTEGER PRIMARY KEY,
    participant_id INTEGER NOT NULL REFERENCES eval_participants (id) ON DELETE CASCADE,
    unit_id        INTEGER REFERENCES eval_units (id) ON DELETE SET NULL,
    dialogue_pos   INTEGER NOT NULL,
    type_name      TEXT    NOT NULL,
    asks           INTEGER NOT NULL,
    message        TEXT    NOT NULL,
    reply          TEXT    NOT NULL DEFAULT '',
    at             TEXT    NOT NULL
);
CREATE INDEX eval_model_errors_by_participant ON eval_model_errors (participant_id);
