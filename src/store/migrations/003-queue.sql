-- The human queue a team's daemons share (store/queue.ts): one item per distinct pending call across every
-- machine, answered once. The item's text is sanitized by the daemon that sends it and checked again by each
-- daemon that reads it; ids are random (never derived from the call), machines are their random origin ids.
-- Runs with search_path set to the team's schema: every name here is the team's own, and the functions keep
-- that search_path (SET search_path FROM CURRENT), whatever the caller's.
CREATE TABLE queue_items (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z2-7]{10}$'),
  -- identical calls share it: the project, role, tool and normalized call, hashed (queue/tier.ts)
  dedupe      text NOT NULL CHECK (dedupe ~ '^[0-9a-f]{1,64}$'),
  -- what a human reads: role, tool, call, reason, tier, project, task, rule, recommendation (sanitized)
  item        jsonb NOT NULL,
  -- the machine whose call made it
  origin      text NOT NULL,
  created     timestamptz NOT NULL DEFAULT now(),
  state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'answered', 'expired')),
  answer      jsonb,
  -- the machine the winning answer was given on, and the machine whose longest-waiting call remembers it
  answered_by text,
  answered_at timestamptz,
  remembers   text
);

-- One pending item per call across the fleet: a second machine asking the same call joins it.
CREATE UNIQUE INDEX queue_items_one_pending ON queue_items (dedupe) WHERE state = 'pending';
CREATE INDEX queue_items_by_state ON queue_items (state, created);

-- Which machines wait on an item, how many calls each, and until when: a machine that dies (or loses the
-- store) stops counting at its last call's deadline, and an item nobody waits on any more expires.
CREATE TABLE queue_waiters (
  item     text NOT NULL REFERENCES queue_items (id) ON DELETE CASCADE,
  origin   text NOT NULL,
  waiting  int NOT NULL CHECK (waiting > 0),
  sessions jsonb NOT NULL,
  since    timestamptz NOT NULL DEFAULT now(),
  until_at timestamptz NOT NULL,
  PRIMARY KEY (item, origin)
);

-- A machine's calls join the pending item of their call, or make it (p_id is the new item's random id).
-- In a loop: an item answered between the insert's conflict and the select leaves none pending, so try again.
CREATE FUNCTION queue_join(p_id text, p_dedupe text, p_item jsonb, p_origin text, p_waiting int,
                           p_sessions jsonb, p_wait_ms int)
RETURNS TABLE (id text, made boolean) LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
DECLARE
  v_id text;
  v_made boolean := false;
BEGIN
  LOOP
    INSERT INTO queue_items AS q (id, dedupe, item, origin) VALUES (p_id, p_dedupe, p_item, p_origin)
      ON CONFLICT (dedupe) WHERE state = 'pending' DO NOTHING
      RETURNING q.id INTO v_id;
    v_made := v_id IS NOT NULL;
    IF v_id IS NULL THEN
      -- locked until commit: an answer given meanwhile waits for this waiter, and so counts and wakes it
      SELECT q.id INTO v_id FROM queue_items q WHERE q.dedupe = p_dedupe AND q.state = 'pending' FOR UPDATE;
    END IF;
    EXIT WHEN v_id IS NOT NULL;
  END LOOP;
  INSERT INTO queue_waiters AS w (item, origin, waiting, sessions, until_at)
    VALUES (v_id, p_origin, p_waiting, p_sessions, now() + make_interval(secs => p_wait_ms / 1000.0))
    ON CONFLICT (item, origin) DO UPDATE
      SET waiting = excluded.waiting, sessions = excluded.sessions, until_at = greatest(w.until_at, excluded.until_at);
  RETURN QUERY SELECT v_id, v_made;
END $$;

-- A machine's count of calls on an item changed (more joined, some left): 0 removes its row. An item nobody
-- waits on any more expires. Nothing happens to an item no longer pending.
CREATE FUNCTION queue_waiting(p_id text, p_origin text, p_waiting int, p_sessions jsonb, p_wait_ms int)
RETURNS text LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
DECLARE
  v_state text;
BEGIN
  SELECT q.state INTO v_state FROM queue_items q WHERE q.id = p_id FOR UPDATE;
  IF v_state IS DISTINCT FROM 'pending' THEN
    RETURN coalesce(v_state, 'missing');
  END IF;
  IF p_waiting > 0 THEN
    INSERT INTO queue_waiters AS w (item, origin, waiting, sessions, until_at)
      VALUES (p_id, p_origin, p_waiting, p_sessions, now() + make_interval(secs => p_wait_ms / 1000.0))
      ON CONFLICT (item, origin) DO UPDATE
        SET waiting = excluded.waiting, sessions = excluded.sessions, until_at = excluded.until_at;
  ELSE
    DELETE FROM queue_waiters w WHERE w.item = p_id AND w.origin = p_origin;
    IF NOT EXISTS (SELECT 1 FROM queue_waiters w WHERE w.item = p_id AND w.until_at > now()) THEN
      UPDATE queue_items SET state = 'expired' WHERE queue_items.id = p_id;
      RETURN 'expired';
    END IF;
  END IF;
  RETURN 'pending';
END $$;

-- The one answer: the first UPDATE wins, a concurrent second finds the item no longer pending and is told by
-- whom and when it was answered. Only an item some live call waits on can be answered.
CREATE FUNCTION queue_answer(p_id text, p_answer jsonb, p_origin text)
RETURNS TABLE (won boolean, dedupe text, item jsonb, created timestamptz, state text, answer jsonb,
               answered_by text, answered_at timestamptz, remembers text, waiting bigint) LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  RETURN QUERY
    UPDATE queue_items q
       SET state = 'answered', answer = p_answer, answered_by = p_origin, answered_at = now(),
           remembers = (SELECT w.origin FROM queue_waiters w
                         WHERE w.item = q.id AND w.until_at > now() ORDER BY w.since, w.origin LIMIT 1)
     WHERE q.id = p_id AND q.state = 'pending'
       AND EXISTS (SELECT 1 FROM queue_waiters w WHERE w.item = q.id AND w.until_at > now())
    RETURNING true, q.dedupe, q.item, q.created, q.state, q.answer, q.answered_by, q.answered_at, q.remembers,
              (SELECT coalesce(sum(w.waiting), 0) FROM queue_waiters w WHERE w.item = q.id AND w.until_at > now());
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, q.dedupe, q.item, q.created, q.state, q.answer, q.answered_by, q.answered_at, q.remembers, 0::bigint
      FROM queue_items q WHERE q.id = p_id;
  END IF;
END $$;

-- Every daemon of the team LISTENs on the queue's channel: `answered <id> <remembers> <answer>` wakes the
-- machines whose calls wait on it (the answer's closed fields ride along, sparing each a read); `changed <id>`
-- refreshes the pages' lists. Nothing of the call itself is in a payload.
CREATE FUNCTION queue_notify() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
DECLARE
  v_id text;
  v_what text := 'changed';
BEGIN
  IF TG_TABLE_NAME = 'queue_items' THEN
    v_id := NEW.id;
    IF NEW.state = 'answered' THEN
      v_what := 'answered';
      v_id := NEW.id || ' ' || coalesce(NEW.remembers, '-') || ' ' || NEW.answer::text;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    v_id := OLD.item;
  ELSE
    v_id := NEW.item;
  END IF;
  PERFORM pg_notify(TG_TABLE_SCHEMA || '.queue', v_what || ' ' || v_id);
  RETURN NULL;
END $$;

CREATE TRIGGER queue_items_notify AFTER INSERT OR UPDATE OF state ON queue_items
  FOR EACH ROW EXECUTE FUNCTION queue_notify();
CREATE TRIGGER queue_waiters_notify AFTER INSERT OR UPDATE OR DELETE ON queue_waiters
  FOR EACH ROW EXECUTE FUNCTION queue_notify();
