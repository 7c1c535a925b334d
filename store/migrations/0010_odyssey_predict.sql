-- Runs of a model over a split's test records (odyssey predict): one row per run, keyed by
-- what decides its answers (output file, split, level, server, model, history length,
-- temperature, max tokens), so that running the same command again resumes it. The API key
-- is never stored.
CREATE TABLE odyssey_predict_runs (
    id          INTEGER PRIMARY KEY,
    out_path    TEXT    NOT NULL,
    split       TEXT    NOT NULL,
    level       TEXT    NOT NULL,
    url         TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    his_len     INTEGER NOT NULL,
    temperature REAL    NOT NULL,
    max_tokens  INTEGER NOT NULL,
    total       INTEGER NOT NULL,
    created_at  TEXT    NOT NULL,
    finished_at TEXT,
    UNIQUE (out_path, split, level, url, model, his_len, temperature, max_tokens)
);

-- A record's answer, once it has one: the prediction as written to the file.
CREATE TABLE odyssey_predict_answers (
    run_id            INTEGER NOT NULL REFERENCES odyssey_predict_runs (id) ON DELETE CASCADE,
    idx               INTEGER NOT NULL,
    record_id         TEXT    NOT NULL,
    pred              TEXT    NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        REAL    NOT NULL,
    attempts          INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
);

-- Every HTTP request of a run (retries and failures included): status, latency, tokens, error.
CREATE TABLE odyssey_predict_requests (
    id                INTEGER PRIMARY KEY,
    run_id            INTEGER NOT NULL REFERENCES odyssey_predict_runs (id) ON DELETE CASCADE,
    idx               INTEGER NOT NULL,
    try               INTEGER NOT NULL,
    status            INTEGER NOT NULL,
    latency_ms        REAL    NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    error             TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX odyssey_predict_requests_run ON odyssey_predict_requests (run_id, idx);
