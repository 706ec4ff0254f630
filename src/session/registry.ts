/**
 * The session registry: one JSON file per session in the private runtime directory, replaced atomically
 * (temp file + rename) under a per-session lock. One file per session means concurrent registrations of
 * different sessions never contend and can never overwrite each other; the lock serializes read-modify-
 * write of the same session (e.g. `switch` racing `disable`).
 */
import { lstatSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { HookwiseError } from '../core/errors.js';
import { idFileKey, idStoreKey, shownId } from '../sanitize/ids.js';
import {
  checkPrivateDir,
  ensurePrivateDir,
  readOwnedFile,
  statIfPresent,
  withLockSync,
  writeFileAtomic,
} from '../util/fs-safe.js';

export interface SessionRecord {
  /** The id as shown (sanitized, bounded): the file is named by the id's hash, not by this. */
  session_id: string;
  /** null for a session that was disabled before it ever registered. */
  role: string | null;
  disabled: boolean;
  task?: string;
  prompt_file?: string;
  team?: string;
  registered_at: string;
  updated_at: string;
  /** What a team's store knows this session by (sanitize/ids.ts idStoreKey): how its daemon shares it. */
  store_key?: string;
}

/** The registrations other machines of the team made (store/fleet-share.ts), held in a daemon's memory. */
export interface SharedSessionLookup {
  get(sessionId: string): SessionRecord | undefined;
}

const MAX_HELD = 4096;
const PURPOSE = 'a session registration';
/** A registration file as hookwise before 128-bit names wrote it: `s-` and a 64-bit FNV of the id. */
const LEGACY_NAME = /^s-([0-9a-f]{16})\.json$/;

/** What upgrading the registrations of an older hookwise did (SessionRegistry.upgradeLegacy). */
export interface LegacyUpgrade {
  upgraded: number;
  /** Files whose id was stored cut or redacted: their session is not known by the file any more. */
  left: string[];
}

export class SessionRegistry {
  readonly dir: string;
  constructor(
    runtimeDir: string,
    /** A session not registered on this machine is looked up here (never over the network: in memory). */
    private readonly shared?: SharedSessionLookup,
  ) {
    this.dir = join(runtimeDir, 'sessions');
  }

  /**
   * A session's file is named by its id's hash: an id is untrusted text (it may even hold a secret). The
   * SHA-256 the store knows the session by, cut to 128 bits — a 64-bit FNV name could be made to collide, and
   * a session id chosen to collide would have read another session's registration (its role). The record
   * holds the whole SHA-256, checked on every read.
   */
  fileFor(sessionId: string): string {
    return join(this.dir, `s-${idStoreKey(sessionId).slice(0, 32)}.json`);
  }

  /**
   * Records read, by session, with the stamp (mtime, size, inode) they were read at: a long-lived process
   * (the daemon) asks for the same sessions thousands of times and re-reads a file only when it changed
   * (registration replaces it by rename: a new inode). Bounded; a one-shot process holds one.
   */
  private readonly read = new Map<string, { stamp: string; record: SessionRecord }>();

  /**
   * The session's record, read only from a regular file of this user that nobody else may write, in a
   * private directory of ours: the runtime directory may have existed before hookwise, with files planted
   * in it (RUNTIME_DIR_UNSAFE, naming the file, instead of trusting one). A session this machine has no
   * file for is one another machine of the team may have registered: this machine's own file always wins.
   */
  get(sessionId: string): SessionRecord | undefined {
    let mine = this.local(sessionId);
    if (mine === undefined && this.legacyFileOf(sessionId) !== undefined) {
      this.upgradeLegacy();
      mine = this.local(sessionId);
    }
    return mine ?? this.shared?.get(sessionId);
  }

  private legacyFileOf(sessionId: string): string | undefined {
    const file = join(this.dir, `s-${idFileKey(sessionId)}.json`);
    return statIfPresent(file)?.isFile() === true ? file : undefined;
  }

  /**
   * Registrations an older hookwise wrote under 64-bit names, moved to their 128-bit names with their store
   * key (so a team's store gets them too), each written whole under its lock and the old file removed; a
   * session's rules file moves with it. Each file is vouched for by its own record — the id it holds must
   * hash to its name — never by the id of the call that found it: a colliding id cannot claim a file. A file
   * whose id was stored cut or redacted cannot be: it is left, and its session must register again.
   */
  upgradeLegacy(): LegacyUpgrade {
    const out: LegacyUpgrade = { upgraded: 0, left: [] };
    let names: string[];
    try {
      if (!checkPrivateDir(this.dir)) return out;
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw error;
    }
    for (const name of names) {
      const m = LEGACY_NAME.exec(name);
      if (m === null) continue;
      const old = join(this.dir, name);
      let record: SessionRecord;
      try {
        const bytes = readOwnedFile(old, PURPOSE);
        if (bytes === undefined) continue;
        record = parseRecord(bytes.toString('utf8'), old);
      } catch {
        out.left.push(name);
        continue;
      }
      const id = record.session_id;
      if (idFileKey(id) !== m[1] || shownId(id) !== id) {
        out.left.push(name);
        continue;
      }
      const file = this.fileFor(id);
      withLockSync(`${file}.lock`, () => {
        if (statIfPresent(file) === undefined)
          writeFileAtomic(file, JSON.stringify({ ...record, store_key: idStoreKey(id) }, null, 2) + '\n', {
            durable: true,
          });
        const rules = old.replace(/\.json$/, '.rules.jsonl');
        const newRules = file.replace(/\.json$/, '.rules.jsonl');
        if (statIfPresent(rules) !== undefined && statIfPresent(newRules) === undefined) renameSync(rules, newRules);
        unlinkSync(old);
      });
      out.upgraded++;
    }
    return out;
  }

  private local(sessionId: string): SessionRecord | undefined {
    const file = this.fileFor(sessionId);
    let stamp: string;
    let bytes: Buffer | undefined;
    try {
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (stat === undefined || !checkPrivateDir(this.dir)) {
        this.read.delete(sessionId);
        return undefined;
      }
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
      const held = this.read.get(sessionId);
      if (held !== undefined && held.stamp === stamp && stat.isFile()) return held.record;
      bytes = readOwnedFile(file, PURPOSE);
    } catch (error) {
      if (error instanceof HookwiseError) throw error;
      throw new HookwiseError(
        'REGISTRY_UNREADABLE',
        `cannot read session registry file ${file}: ${(error as Error).message}`,
      );
    }
    if (bytes === undefined) return undefined;
    const record = parseRecord(bytes.toString('utf8'), file);
    // Another id's file under a colliding name (128 bits: not by chance): not this session's registration.
    if (record.store_key !== idStoreKey(sessionId)) return undefined;
    if (this.read.size >= MAX_HELD) this.read.delete(this.read.keys().next().value!);
    this.read.set(sessionId, { stamp, record });
    return record;
  }

  /** Read-modify-write one session under its lock; returns what was written. */
  update(
    sessionId: string,
    change: (existing: SessionRecord | undefined, now: string) => SessionRecord,
  ): SessionRecord {
    ensurePrivateDir(this.dir);
    // Before the lock: the upgrade takes the same session's lock for its file.
    if (this.legacyFileOf(sessionId) !== undefined) this.upgradeLegacy();
    const file = this.fileFor(sessionId);
    return withLockSync(`${file}.lock`, () => {
      const next = {
        ...change(this.local(sessionId) ?? this.shared?.get(sessionId), new Date().toISOString()),
        session_id: shownId(sessionId),
        store_key: idStoreKey(sessionId),
      };
      writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n', { durable: true });
      return next;
    });
  }

  /**
   * Whether a call of this unregistered session already waited for a registration. Every call of an
   * unregistered session is denied; only the first waits (the agent may be registering right now), so a
   * session that never registers is not held up on every call. A marker file only shortens a wait, so one
   * planted or left behind can only make a denial come sooner.
   */
  waitedFor(sessionId: string): boolean {
    return (
      checkPrivateDir(this.dir) && lstatSync(this.waitedFile(sessionId), { throwIfNoEntry: false })?.isFile() === true
    );
  }

  markWaited(sessionId: string): void {
    ensurePrivateDir(this.dir);
    writeFileAtomic(this.waitedFile(sessionId), '', { mode: 0o600 });
  }

  private waitedFile(sessionId: string): string {
    return join(this.dir, `w-${idFileKey(sessionId)}`);
  }

  list(): { records: SessionRecord[]; problems: string[] } {
    this.upgradeLegacy();
    let names: string[];
    try {
      if (!checkPrivateDir(this.dir)) return { records: [], problems: [] };
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [] };
      throw error;
    }
    const records: SessionRecord[] = [];
    const problems: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const file = join(this.dir, name);
      if (LEGACY_NAME.test(name)) {
        problems.push(
          `session registry file ${file} was written by an older hookwise and could not be moved to its new name (its id was stored cut or redacted): register that session again`,
        );
        continue;
      }
      try {
        const bytes = readOwnedFile(file, PURPOSE);
        if (bytes !== undefined) records.push(parseRecord(bytes.toString('utf8'), file));
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    return { records, problems };
  }
}

export function parseRecord(text: string, file: string): SessionRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HookwiseError(
      'REGISTRY_UNREADABLE',
      `session registry file ${file} is not valid JSON (${(error as Error).message}); re-register the session`,
    );
  }
  const record = value as Partial<SessionRecord>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof record.session_id !== 'string' ||
    !(record.role === null || typeof record.role === 'string') ||
    typeof record.disabled !== 'boolean'
  ) {
    throw new HookwiseError(
      'REGISTRY_UNREADABLE',
      `session registry file ${file} lacks session_id, role or disabled; re-register the session`,
    );
  }
  return record as SessionRecord;
}
