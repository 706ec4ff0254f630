-- What a human told hookwise to forget (`hookwise invalidate`), so every machine of the team forgets it too
-- (store/forget.ts). A row is a tombstone: the decisions of a scope and owner — with this key and/or role,
-- or all of them — learned at or before `at` (a record's own ts), or the team's supervisor answers for a key.
-- The store deletes what a tombstone covers when it is added, refuses a covered row sent later (an outbox
-- replayed after a long outage), and every daemon applies it to its own files and memory when notified.
CREATE TABLE forgotten (
  id             bigserial PRIMARY KEY,
  -- decisions: learned decisions of scope/owner; answers: the team's supervisor answers (no scope or owner)
  kind           text NOT NULL CHECK (kind IN ('decisions', 'answers')),
  scope          text CHECK (scope IN ('user', 'org')),
  owner          text,
  key            text CHECK (key ~ '^[A-Za-z0-9._:-]{1,128}$'),
  role           text,
  keep_overrides boolean NOT NULL DEFAULT false,
  at             text NOT NULL,
  origin         text NOT NULL,
  xact           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  CHECK ((kind = 'decisions') = (scope IS NOT NULL AND owner IS NOT NULL)),
  -- an answer is keyed by its call's memory key
  CHECK (kind = 'decisions' OR key ~ '^[0-9a-f]{16}$')
);

-- A replayed outbox adds nothing.
CREATE UNIQUE INDEX forgotten_once
  ON forgotten (kind, coalesce(scope, ''), coalesce(owner, ''), coalesce(key, ''), coalesce(role, ''), keep_overrides, at);
CREATE INDEX forgotten_xact ON forgotten (xact);

-- Adds tombstones and deletes what they cover, in one transaction. The lock keeps a decision or answer sent
-- at the same moment from committing unseen by both the delete and the insert's check (forgotten_covers).
CREATE FUNCTION forget(p_rows jsonb, p_origin text) RETURNS int LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
DECLARE
  v_added int;
BEGIN
  LOCK TABLE decisions, supervisor_answers IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO forgotten (kind, scope, owner, key, role, keep_overrides, at, origin)
    SELECT kind, scope, owner, key, role, coalesce(keep_overrides, false), at, p_origin
    FROM jsonb_to_recordset(p_rows) AS x(kind text, scope text, owner text, key text, role text,
      keep_overrides boolean, at text)
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_added = ROW_COUNT;
  DELETE FROM decisions d USING forgotten f
   WHERE f.kind = 'decisions' AND d.scope = f.scope AND d.owner = f.owner AND (f.key IS NULL OR d.key = f.key)
     AND (f.role IS NULL OR d.role = f.role) AND NOT (f.keep_overrides AND d.tier = 'override') AND d.ts <= f.at;
  DELETE FROM supervisor_answers a USING forgotten f
   WHERE f.kind = 'answers' AND a.key = f.key AND (f.role IS NULL OR a.role = f.role) AND a.ts <= f.at;
  RETURN v_added;
END $$;

-- A decision row a tombstone covers (sent after it, from an outbox written before it): not inserted.
CREATE FUNCTION forgotten_decision(p_scope text, p_owner text, p_key text, p_role text, p_tier text, p_ts text)
RETURNS boolean LANGUAGE sql STABLE
  SET search_path FROM CURRENT AS $$
  SELECT EXISTS (SELECT 1 FROM forgotten f
    WHERE f.kind = 'decisions' AND f.scope = p_scope AND f.owner = p_owner AND (f.key IS NULL OR f.key = p_key)
      AND (f.role IS NULL OR f.role = p_role) AND NOT (f.keep_overrides AND p_tier = 'override') AND p_ts <= f.at)
$$;

CREATE FUNCTION forgotten_answer(p_key text, p_role text, p_ts text) RETURNS boolean LANGUAGE sql STABLE
  SET search_path FROM CURRENT AS $$
  SELECT EXISTS (SELECT 1 FROM forgotten f
    WHERE f.kind = 'answers' AND f.key = p_key AND (f.role IS NULL OR f.role = p_role) AND p_ts <= f.at)
$$;

CREATE TRIGGER forgotten_notify AFTER INSERT ON forgotten
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION fleet_notify();
