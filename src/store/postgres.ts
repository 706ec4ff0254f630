/**
 * The PostgreSQL backend: a team's shared decisions in one database, for a fleet of machines.
 *
 * Why PostgreSQL: teams already run it (managed, backed up, monitored), it has LISTEN/NOTIFY to wake every
 * daemon when something is learned, transactions for versioned migrations, and TLS and authentication
 * handled by its client. The driver is `pg` (node-postgres), loaded only here and only when a store URL is
 * set: never on `hookwise check`'s start-up path (scripts/build.mjs keeps it external).
 *
 * Team isolation: a schema per team (`hookwise_<team>`), not row-level security. Every table, the
 * migrations' version table and the notification channel are the team's own; granting each team's login
 * role its own schema only (docs/team.md) makes another team's rows invisible by the database's privileges,
 * where row-level security would rest on each client setting a session variable — on the very clients it is
 * meant to isolate.
 *
 * Every row is checked before it leaves the machine (memory/store.ts `assertWritableRecord`: a valid record,
 * every text field sanitized), owner names too; ids are hashes (their shape is checked) and the origin is a
 * random id. Rows coming back are checked again before they reach this machine's files (store/sync.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, Pool, QueryResultRow } from 'pg';
import { isVerdict } from '../core/decision.js';
import { HookwiseError } from '../core/errors.js';
import { formFitsSubject } from '../memory/form.js';
import { assertWritableRecord, type DecisionRecord } from '../memory/store.js';
import { findSecrets, sanitize } from '../sanitize/index.js';
import { packageRoot } from '../util/package-root.js';
import type { StoreSettings } from './settings.js';
import { isSharedScope, type DecisionStore, type SharedRecord } from './types.js';

type PostgresSettings = Extract<StoreSettings, { kind: 'postgres' }>;

/** How long to wait for a connection or a statement before taking the store for down (not a limit on input). */
const CONNECT_TIMEOUT_MS = 3000;
const QUERY_TIMEOUT_MS = 10_000;
/** Rows per INSERT statement: one parameter (a JSON array), so the batch size bounds the statement's bytes. */
const APPEND_BATCH = 2000;

export interface Migration {
  version: number;
  name: string;
  file: string;
}

/**
 * The migrations, in order: `src/store/migrations/NNN-name.sql`, copied by the build to `dist/store-migrations/`
 * (what an installed package has: it ships no source tree).
 */
export function migrations(dir = migrationsDir()): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = /^(\d{3})-([a-z0-9-]+)\.sql$/.exec(file);
    if (m === null) continue;
    out.push({ version: Number(m[1]), name: m[2]!, file: join(dir, file) });
  }
  // Numbers only rise; a gap is a migration another branch adds (migrate applies every one not yet recorded).
  out.forEach((m, i) => {
    if (i > 0 && m.version <= out[i - 1]!.version)
      throw new HookwiseError('INTERNAL', `migration ${m.file}: its number does not follow ${out[i - 1]!.file}'s`);
  });
  return out;
}

/** The version a store must be at for this hookwise: its newest migration's. */
export const latestMigration = (list: readonly Migration[] = migrations()): number => list.at(-1)?.version ?? 0;

function migrationsDir(): string {
  const built = join(packageRoot(), 'dist', 'store-migrations');
  return existsSync(built) ? built : join(packageRoot(), 'src', 'store', 'migrations');
}

/** The schema a team's rows live in. The team name is checked where it is read (store/settings.ts). */
export function teamSchema(team: string): string {
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(team)) throw new HookwiseError('USAGE', `bad team name "${team}"`);
  return `hookwise_${team}`;
}

/** Where a pull got to: the transactions not yet finished at that pull (text form of an xid8). */
export type PullCursor = string | undefined;

export interface PullResult {
  /** Each with its inserting transaction's id (an xid8, as a bigint): rows at or past `cursor` may come again. */
  records: { shared: SharedRecord; xact: bigint }[];
  /** Rows that failed the checks (a row another writer put there by hand): skipped, named here. */
  problems: string[];
  cursor: PullCursor;
}

interface Row {
  id: string;
  xact_text: string;
  scope: string;
  owner: string;
  key: string;
  tool: string;
  subject: string;
  commands: string[] | null;
  writes: string[] | null;
  /** Since migration 002. */
  form: string | null;
  role: string;
  verdict: string;
  reason: string;
  tier: string;
  decided_by: string;
  ts: string;
}

export class PostgresStore implements DecisionStore {
  readonly kind = 'postgres' as const;
  readonly schema: string;

  private constructor(
    private readonly pool: Pool,
    private readonly settings: PostgresSettings,
    /** This machine's id (store/sync.ts): rows it sent are not pulled back. */
    readonly origin: string,
    private readonly ClientClass: typeof Client,
  ) {
    this.schema = teamSchema(settings.team);
  }

  static async open(settings: PostgresSettings, origin: string): Promise<PostgresStore> {
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({
      connectionString: settings.url,
      max: 2,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      application_name: 'hookwise',
    });
    // An idle client's connection dropping (the server restarted) is reported here; the next query reconnects.
    pool.on('error', () => undefined);
    // A checked-out client's socket failing (the server killed mid-query) fails that query; the event itself
    // must not go unhandled and take the daemon down.
    pool.on('connect', (client) => client.on('error', () => undefined));
    return new PostgresStore(pool, settings, origin, pg.Client);
  }

  private get table(): string {
    return `"${this.schema}".decisions`;
  }

  /** The applied migration version; 0 where the team's schema is not there yet. */
  async version(): Promise<number> {
    const found = await this.pool.query<{ exists: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [
      `"${this.schema}".schema_version`,
    ]);
    if (found.rows[0]?.exists !== true) return 0;
    const v = await this.pool.query<{ v: number | null }>(
      `SELECT max(version) AS v FROM "${this.schema}".schema_version`,
    );
    return v.rows[0]?.v ?? 0;
  }

  /**
   * Applies the migrations not yet applied, in order, in one transaction (all or none), recorded in the
   * team's version table. Concurrent runs wait on an advisory lock: the second finds nothing left to do.
   */
  async migrate(list: readonly Migration[] = migrations()): Promise<{ from: number; to: number; applied: string[] }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS "${this.schema}".schema_version (
           version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set(
        (await client.query<{ version: number }>(`SELECT version FROM "${this.schema}".schema_version`)).rows.map(
          (r) => r.version,
        ),
      );
      const from = Math.max(0, ...done);
      const applied: string[] = [];
      await client.query(`SET LOCAL search_path TO "${this.schema}"`);
      for (const m of list) {
        if (done.has(m.version)) continue;
        await client.query(readFileSync(m.file, 'utf8'));
        await client.query(`INSERT INTO "${this.schema}".schema_version (version, name) VALUES ($1, $2)`, [
          m.version,
          m.name,
        ]);
        applied.push(`${String(m.version).padStart(3, '0')}-${m.name}`);
      }
      await client.query('COMMIT');
      return { from, to: Math.max(from, ...list.map((m) => m.version)), applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Sends records; each is checked first, and nothing is sent when one fails. Duplicates insert nothing. */
  async append(records: readonly SharedRecord[]): Promise<void> {
    const rows = records.map((r) => this.outgoing(r));
    for (let i = 0; i < rows.length; i += APPEND_BATCH) {
      await this.pool.query(
        `INSERT INTO ${this.table}
           (scope, owner, key, tool, subject, commands, writes, form, role, verdict, reason, tier, decided_by, ts,
            origin)
         SELECT scope, owner, key, tool, subject, commands, writes, form, role, verdict, reason, tier, decided_by, ts,
           $2
         FROM jsonb_to_recordset($1::jsonb) AS x(scope text, owner text, key text, tool text, subject text,
           commands jsonb, writes jsonb, form text, role text, verdict text, reason text, tier text,
           decided_by text, ts text)
         -- a row some machine's invalidate forgot since it was learned (an outbox replayed late): not again
         WHERE NOT "${this.schema}".forgotten_decision(scope, owner, key, role, tier, ts)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(rows.slice(i, i + APPEND_BATCH)), this.origin],
      );
    }
  }

  /** Every record of this user and of the orgs (for `rules export` and checks), oldest first. */
  async load(): Promise<SharedRecord[]> {
    const res = await this.pool.query<Row>(
      `SELECT * FROM ${this.table} WHERE scope = 'org' OR owner = $1 ORDER BY id`,
      [this.settings.user],
    );
    return res.rows.flatMap((row) => {
      const r = incoming(row);
      return typeof r === 'string' ? [] : [r.shared];
    });
  }

  /**
   * The rows other machines sent since `cursor` (all of them without one), for this user and the orgs. Read
   * in one snapshot with the horizon it returns, so a row that commits after this read is in the next pull.
   * A row already pulled may come again (its transaction was still open at the last pull): the caller
   * drops repeats by identity.
   */
  async pull(cursor: PullCursor): Promise<PullResult> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const horizon = (await client.query<{ h: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS h'))
        .rows[0]!.h;
      const res = await client.query<Row>(
        `SELECT *, xact::text AS xact_text FROM ${this.table}
         WHERE origin <> $1 AND (scope = 'org' OR owner = $2) ${cursor === undefined ? '' : 'AND xact >= $3::xid8'}
         ORDER BY id`,
        cursor === undefined ? [this.origin, this.settings.user] : [this.origin, this.settings.user, cursor],
      );
      await client.query('COMMIT');
      const records: PullResult['records'] = [];
      const problems: string[] = [];
      for (const row of res.rows) {
        const r = incoming(row);
        if (typeof r === 'string') problems.push(r);
        else {
          records.push({ shared: r.shared, xact: BigInt(row.xact_text) });
          if (r.problem !== undefined) problems.push(r.problem);
        }
      }
      return { records, problems, cursor: horizon };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * A dedicated connection LISTENing on the team's channel: `onChange` when another machine inserted rows,
   * `onLost` once when the connection goes (the caller reconnects and pulls).
   */
  async listen(
    onChange: (channel: string, payload: string) => void,
    onLost: (error: Error) => void,
    tables: readonly string[] = ['decisions'],
  ): Promise<() => Promise<void>> {
    const client: Client = new this.ClientClass({
      connectionString: this.settings.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'hookwise-listen',
    });
    let lost = false;
    const lose = (error: Error): void => {
      if (lost) return;
      lost = true;
      onLost(error);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('the store closed the connection')));
    client.on('notification', (n) => onChange(n.channel, n.payload ?? ''));
    await client.connect();
    for (const table of tables) await client.query(`LISTEN "${this.schema}.${table}"`);
    return async () => {
      lost = true;
      await client.end().catch(() => undefined);
    };
  }

  /** A statement on the team's other tables (store/queue.ts): `@@` in the text names the team's schema. */
  async query<R extends QueryResultRow>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>(text.replaceAll('@@', `"${this.schema}"`), [...params])).rows;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private outgoing(r: SharedRecord): Record<string, unknown> {
    const where = `the ${this.settings.team} team's store`;
    if (!isSharedScope(r.record.scope))
      throw new HookwiseError('INTERNAL', `refusing to send a ${r.record.scope}-scope record to ${where}`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/.test(r.owner) || findSecrets(r.owner).length > 0)
      throw new HookwiseError(
        'INTERNAL',
        `refusing to send a record with an owner name that is not a plain name to ${where}`,
      );
    assertWritableRecord(r.record, where);
    const x = r.record;
    return {
      scope: x.scope,
      owner: r.owner,
      key: x.key,
      tool: x.tool,
      subject: x.subject,
      commands: x.commands ?? null,
      writes: x.writes ?? null,
      form: x.form ?? null,
      role: x.role,
      verdict: x.verdict,
      reason: x.reason,
      tier: x.tier,
      decided_by: x.decided_by,
      ts: x.ts,
    };
  }
}

/**
 * A row as a shared record, or why it is not one (the store is another machine's writing: checked again). A
 * form that is not a form of the row's subject (memory/form.ts formFitsSubject) would generalize over
 * something the decision never covered: it is dropped, and said (the record stays, for exact memory).
 */
function incoming(row: Row): { shared: SharedRecord; problem?: string } | string {
  if (!isSharedScope(row.scope)) return `row ${row.id}: not a shared scope (skipped)`;
  if (!isVerdict(row.verdict)) return `row ${row.id}: not a verdict (skipped)`;
  const record = {
    key: row.key,
    tool: row.tool,
    subject: row.subject,
    ...(row.commands === null ? {} : { commands: row.commands }),
    ...(row.writes === null ? {} : { writes: row.writes }),
    ...(row.form === null || row.form === undefined ? {} : { form: row.form }),
    role: row.role,
    verdict: row.verdict,
    reason: row.reason,
    tier: row.tier,
    scope: row.scope,
    decided_by: row.decided_by,
    ts: row.ts,
  } as DecisionRecord & { scope: 'user' | 'org' };
  try {
    assertWritableRecord(record, 'the store');
  } catch (error) {
    // the message may quote the row's key: what another machine wrote is sanitized before it is shown
    return `row ${row.id}: ${sanitize((error as Error).message).text} (skipped)`;
  }
  if (record.form !== undefined && !formFitsSubject(record.form, record.subject)) {
    delete record.form;
    return {
      shared: { owner: row.owner, record },
      problem: `row ${row.id}: its form is not a form of its subject, so it would generalize over calls the decision never covered (form dropped, decision kept)`,
    };
  }
  return { shared: { owner: row.owner, record } };
}
