-- A large bundle (an assignment's data-file line, 1 MB or more as JSON) is kept in parts of
-- about 1 MB, in order, instead of in eval_assignments.bundle, which then holds 'null': written
-- a part at a time, a 100 MB line is never held whole to be bound and copied. Read back, the
-- parts joined in seq order are the bundle's JSON. Smaller bundles stay in the bundle column.
-- (Projects' definitions stopped carrying the bundles at the same time: config has no
-- [[bundle]] tables for projects stored from then on, their bundles are the assignments'.)
CREATE TABLE eval_bundle_parts (
    assignment_id INTEGER NOT NULL REFERENCES eval_assignments (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL CHECK (seq >= 0),
    part          TEXT    NOT NULL,
    PRIMARY KEY (assignment_id, seq)
);
