-- Session registrations, the audit log and the supervisor's answers, shared by a team's daemons
-- (store/fleet-share.ts). Every row is checked and sanitized by the daemon before it is sent, and checked
-- again on the way in. Runs with search_path set to the team's schema: every name here is the team's own.

-- A session registered on one machine, known on all. The id itself is never here: `session_key` is the
-- SHA-256 of the id (what a daemon looks a call's session up by), `shown_id` the id sanitized and cut.
CREATE TABLE sessions (
  session_key   text PRIMARY KEY CHECK (session_key ~ '^[0-9a-f]{64}$'),
  shown_id      text NOT NULL,
  role          text,
  disabled      boolean NOT NULL,
  task          text,
  team          text,
  registered_at text NOT NULL,
  updated_at    text NOT NULL,
  origin        text NOT NULL,
  -- the last writing transaction: a daemon pulls the rows of every transaction not finished at its last pull
  xact          xid8 NOT NULL DEFAULT pg_current_xact_id()
);

CREATE INDEX sessions_xact ON sessions (xact);

-- Each daemon's audit lines (audit/log.ts), as written there: sanitized text only.
CREATE TABLE audit (
  id          bigserial PRIMARY KEY,
  -- the machine: its random id (store/sync.ts) and its host name, sanitized
  origin      text NOT NULL,
  machine     text NOT NULL,
  ts          timestamptz NOT NULL,
  session     text NOT NULL,
  role        text,
  host        text,
  tool        text NOT NULL,
  verdict     text NOT NULL CHECK (verdict IN ('allow', 'ask', 'deny')),
  tier        text NOT NULL,
  rule        text,
  latency_ms  double precision NOT NULL,
  paths       jsonb NOT NULL,
  input       text NOT NULL,
  secrets     integer NOT NULL,
  input_hash  text NOT NULL,
  project     text,
  supervisor  jsonb,
  received_at timestamptz NOT NULL DEFAULT now(),
  -- where the line was in the machine's log (inode, byte offset): a replayed outbox inserts nothing
  src_ino     bigint NOT NULL,
  src_offset  bigint NOT NULL,
  -- the inserting transaction: `monitor --fleet` follows rows past its last pull's horizon (as for decisions)
  xact        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  UNIQUE (origin, src_ino, src_offset, ts)
);

CREATE INDEX audit_ts ON audit (ts);
CREATE INDEX audit_xact ON audit (xact);

-- Tier 3's answers, so one machine's answer serves the others for the same call (memory key) and role.
CREATE TABLE supervisor_answers (
  id         bigserial PRIMARY KEY,
  key        text NOT NULL CHECK (key ~ '^[0-9a-f]{16}$'),
  role       text NOT NULL,
  tool       text NOT NULL,
  verdict    text NOT NULL CHECK (verdict IN ('allow', 'ask', 'deny')),
  confidence double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  reason     text NOT NULL,
  answered_by text NOT NULL,
  ts         text NOT NULL,
  origin     text NOT NULL,
  xact       xid8 NOT NULL DEFAULT pg_current_xact_id(),
  UNIQUE (key, role, answered_by, ts)
);

CREATE INDEX supervisor_answers_xact ON supervisor_answers (xact);

-- One notification per statement that wrote something, on `<schema>.<table>`.
CREATE FUNCTION fleet_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added) THEN
    PERFORM pg_notify(TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_notify_insert AFTER INSERT ON sessions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fleet_notify();
CREATE TRIGGER sessions_notify_update AFTER UPDATE ON sessions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fleet_notify();
CREATE TRIGGER audit_notify AFTER INSERT ON audit
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fleet_notify();
CREATE TRIGGER supervisor_answers_notify AFTER INSERT ON supervisor_answers
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fleet_notify();
