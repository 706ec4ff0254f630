-- Learned decisions of the shared scopes (user, org; a record's role field is its role scope). The project
-- scope stays in git. Rows are sanitized by the daemon before they are sent (store/postgres.ts), and checked
-- again before they are written to a machine's files (memory/store.ts appendRecords).
-- Runs with search_path set to the team's schema: every name here is the team's own.
CREATE TABLE decisions (
  id          bigserial PRIMARY KEY,
  scope       text NOT NULL CHECK (scope IN ('user', 'org')),
  -- the user name (user scope) or the org name (org scope) the record belongs to
  owner       text NOT NULL,
  key         text NOT NULL,
  tool        text NOT NULL,
  subject     text NOT NULL,
  commands    jsonb,
  writes      jsonb,
  role        text NOT NULL,
  verdict     text NOT NULL CHECK (verdict IN ('allow', 'ask', 'deny')),
  reason      text NOT NULL,
  tier        text NOT NULL,
  decided_by  text NOT NULL,
  ts          text NOT NULL,
  -- the machine that sent it (a random id per runtime directory): a daemon skips its own rows when it pulls
  origin      text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  -- the inserting transaction: a daemon pulls the rows of every transaction not finished at its last pull
  -- (ids are handed out before commit, so "id > last id seen" could skip a row that commits late)
  xact        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  -- one row per decision: a replayed outbox or a record echoed back inserts nothing
  UNIQUE (scope, owner, key, role, ts, verdict)
);

CREATE INDEX decisions_xact ON decisions (xact);

-- Every daemon of the team LISTENs on its schema's channel and, when told, pulls the rows past its cursor:
-- one notification per statement that inserted something (a batch of 10k rows is one wake-up, not 10k).
CREATE FUNCTION decisions_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added) THEN
    PERFORM pg_notify(TG_TABLE_SCHEMA || '.decisions', '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER decisions_notify AFTER INSERT ON decisions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION decisions_notify();
