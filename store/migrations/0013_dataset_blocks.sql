-- The episodes, a block of 1,024 ids at a time (block = id >> 10), encoded once as Parquet
-- pages (engine/dataset's PageEncoder, of the layout number `layout`): the block's rows of
-- the episodes config and of the steps config (NULL when its episodes have no steps). An
-- export without frames that takes every episode of a block splices these pages into its
-- files instead of reading and encoding the block's episode and step rows again. Encoded
-- after imports; the triggers drop a block's encoding whenever anything it was made from
-- changes (an episode of its range added, changed or removed, their facets, their steps), so
-- a stale one is never used, and a block without one is exported from its rows.
CREATE TABLE dataset_blocks (
    block     INTEGER PRIMARY KEY,
    layout    INTEGER NOT NULL,
    episodes  INTEGER NOT NULL,
    num_steps INTEGER NOT NULL,
    episode   BLOB    NOT NULL,
    steps     BLOB
);
CREATE TRIGGER dataset_blocks_stale_on_episode_insert AFTER INSERT ON episodes BEGIN
    DELETE FROM dataset_blocks WHERE block = NEW.id >> 10;
END;
CREATE TRIGGER dataset_blocks_stale_on_episode_update AFTER UPDATE ON episodes BEGIN
    DELETE FROM dataset_blocks WHERE block IN (OLD.id >> 10, NEW.id >> 10);
END;
CREATE TRIGGER dataset_blocks_stale_on_episode_delete AFTER DELETE ON episodes BEGIN
    DELETE FROM dataset_blocks WHERE block = OLD.id >> 10;
END;
CREATE TRIGGER dataset_blocks_stale_on_facet_insert AFTER INSERT ON episode_facets BEGIN
    DELETE FROM dataset_blocks WHERE block = NEW.episode_id >> 10;
END;
CREATE TRIGGER dataset_blocks_stale_on_facet_update AFTER UPDATE ON episode_facets BEGIN
    DELETE FROM dataset_blocks WHERE block IN (OLD.episode_id >> 10, NEW.episode_id >> 10);
END;
CREATE TRIGGER dataset_blocks_stale_on_facet_delete AFTER DELETE ON episode_facets BEGIN
    DELETE FROM dataset_blocks WHERE block = OLD.episode_id >> 10;
END;
CREATE TRIGGER dataset_blocks_stale_on_step_insert AFTER INSERT ON steps BEGIN
    DELETE FROM dataset_blocks WHERE block = NEW.episode_id >> 10;
END;
CREATE TRIGGER dataset_blocks_stale_on_step_update AFTER UPDATE ON steps BEGIN
    DELETE FROM dataset_blocks WHERE block IN (OLD.episode_id >> 10, NEW.episode_id >> 10);
END;
CREATE TRIGGER dataset_blocks_stale_on_step_delete AFTER DELETE ON steps BEGIN
    DELETE FROM dataset_blocks WHERE block = OLD.episode_id >> 10;
END;
