-- Qualifications are shared by participant name across projects (evaluation.go): the reads that
-- join participants on their name (every assignment, sign-in and roster) look names up here
-- instead of building a transient index per query.
CREATE INDEX eval_participants_by_name ON eval_participants (name);
