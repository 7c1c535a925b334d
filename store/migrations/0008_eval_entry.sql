-- Who may come in through a served study's links (issue 28).
--
-- personal: a personal link was made for the participant id; the id is then usable only through
-- that link, never through the study link. recruiting: the study link admits new ids (0: closed;
-- participants in progress finish). study_floor: the oldest study link generation still honoured
-- for participants in progress (revoking the study link keeps them; evicting raises the floor).
ALTER TABLE eval_links ADD COLUMN personal INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_serving ADD COLUMN recruiting INTEGER NOT NULL DEFAULT 1;
ALTER TABLE eval_serving ADD COLUMN study_floor INTEGER NOT NULL DEFAULT 0;
