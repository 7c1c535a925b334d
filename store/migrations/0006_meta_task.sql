-- The task template an episode instantiates (GUI Odyssey's task_info.meta_task): shown in the
-- Explorer, filtered by (a facet) and searched (a third column of the full-text index).

ALTER TABLE episodes ADD COLUMN meta_task TEXT NOT NULL DEFAULT '';

-- What the full-text index holds of the meta-task: nothing when the task is the meta-task with
-- its "{}" filled in (as every GUI Odyssey task is), since the task's words are then all of the
-- meta-task's and the task is indexed already; the meta-task otherwise. Indexing the same words
-- twice made searches a quarter slower for no more matches.
ALTER TABLE episodes ADD COLUMN meta_task_search TEXT GENERATED ALWAYS AS (
    CASE WHEN instr(meta_task, '{}') > 0
        AND length(task) >= length(meta_task) - 2
        AND substr(task, 1, instr(meta_task, '{}') - 1) = substr(meta_task, 1, instr(meta_task, '{}') - 1)
        AND substr(task, length(task) - (length(meta_task) - instr(meta_task, '{}') - 1) + 1)
            = substr(meta_task, instr(meta_task, '{}') + 2)
        -- the filled-in value is a word of its own (not "{}s": "s" would not be a task word)
        AND (instr(meta_task, '{}') = 1
            OR substr(meta_task, instr(meta_task, '{}') - 1, 1) IN (' ', '''', '"', '(', '[', ',', '.', ':', ';', '-', '/', '«', '“', '‘'))
        AND (instr(meta_task, '{}') + 2 > length(meta_task)
            OR substr(meta_task, instr(meta_task, '{}') + 2, 1) IN (' ', '''', '"', ')', ']', ',', '.', ':', ';', '!', '?', '-', '/', '»', '”', '’'))
    THEN '' ELSE meta_task END) VIRTUAL;

-- Episodes stored before this migration keep task_info verbatim in their metadata.
UPDATE episodes SET meta_task = json_extract(metadata, '$.task_info.meta_task')
    WHERE json_type(metadata, '$.task_info.meta_task') = 'text';

-- The filter reads the facet index like the category, app and device filters.
INSERT OR IGNORE INTO episode_facets (episode_id, facet, value)
    SELECT id, 'meta_task', meta_task FROM episodes WHERE meta_task <> '';

-- The full-text index gains the meta-task: made again with three columns, its triggers too.
DROP TRIGGER episodes_text_insert;
DROP TRIGGER episodes_text_delete;
DROP TRIGGER episodes_text_update;
DROP TABLE episode_text;
CREATE VIRTUAL TABLE episode_text USING fts5 (
    task, instruction, meta_task_search,
    content = 'episodes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER episodes_text_insert AFTER INSERT ON episodes BEGIN
    INSERT INTO episode_text (rowid, task, instruction, meta_task_search)
    VALUES (new.id, new.task, new.instruction, new.meta_task_search);
END;
CREATE TRIGGER episodes_text_delete AFTER DELETE ON episodes BEGIN
    INSERT INTO episode_text (episode_text, rowid, task, instruction, meta_task_search)
    VALUES ('delete', old.id, old.task, old.instruction, old.meta_task_search);
END;
CREATE TRIGGER episodes_text_update AFTER UPDATE OF task, instruction, meta_task ON episodes BEGIN
    INSERT INTO episode_text (episode_text, rowid, task, instruction, meta_task_search)
    VALUES ('delete', old.id, old.task, old.instruction, old.meta_task_search);
    INSERT INTO episode_text (rowid, task, instruction, meta_task_search)
    VALUES (new.id, new.task, new.instruction, new.meta_task_search);
END;
INSERT INTO episode_text (episode_text) VALUES ('rebuild');
