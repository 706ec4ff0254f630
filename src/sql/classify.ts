/**
 * SQL by effect: what a statement does to a database, from a real parser's syntax tree (node-sql-parser,
 * see parser.ts), never from patterns over the text.
 *
 *   read       SELECT / VALUES / TABLE without a side-effect function, SHOW, DESCRIBE, EXPLAIN (without
 *              ANALYZE, or of a read), transaction control, harmless session settings, psql/sqlite3 listing
 *              commands;
 *   row-write  INSERT, UPDATE, DELETE, REPLACE, MERGE, COPY … FROM, sequence changes (nextval/setval);
 *   schema     CREATE, ALTER, DROP, TRUNCATE, RENAME, COMMENT ON, SELECT … INTO a table;
 *   admin      roles and grants, extensions, server settings (ALTER SYSTEM, SET GLOBAL, other SET), COPY TO/FROM
 *              PROGRAM or a server file, functions that reach the server's files, processes or other servers
 *              (pg_read_file, lo_import, dblink, pg_sleep, load_extension, …), VACUUM, ATTACH, DO blocks;
 *   unknown    anything not understood: unparseable text, a function outside the known lists, a client command
 *              outside the listing ones, over the size bounds. Unknown is judged like the strictest class: asked.
 *
 * Classify, then decide: this module only classifies; the MCP tier and the database pack map classes to verdicts.
 */
import { loadParser, SQL_DIALECTS, type SqlDialect } from './parser.js';
import { splitSql, type SplitStatement } from './split.js';
import { includeOfStatement, type SqlInclude } from './files.js';

/** In order of strictness: a call's class is its strictest statement's. */
export const SQL_CLASSES = ['read', 'row-write', 'schema', 'admin', 'unknown'] as const;
export type SqlClass = (typeof SQL_CLASSES)[number];

export interface StatementClass {
  class: SqlClass;
  /** What the statement is: `select`, `insert`, `drop table`, `create extension`, `psql \d`, … */
  kind: string;
  /** Why it has that class, where the kind alone does not say (a function, ANALYZE, a parse failure). */
  why?: string;
  /** DELETE or UPDATE without a WHERE clause (every row). */
  everyRow?: boolean;
  /** An ALTER that drops a part of an object (a column, a constraint). */
  dropsPart?: boolean;
  /** The SQL file the statement was read from (`psql -f F`, `\i F`), as written. */
  file?: string;
  /** The statement includes a file that was not read (a link, too big, outside the project, …): why is in `why`. */
  unread?: boolean;
}

/**
 * The statements of a file a client command includes (`\i F`, `.read F`), classified by the caller from text
 * read at the edge; undefined when it has no such text (the include stays unknown).
 */
export type IncludeStatements = (include: SqlInclude) => StatementClass[] | undefined;

export interface SqlClassification {
  class: SqlClass;
  statements: StatementClass[];
  /** Why the whole text is unknown (unsplittable, too large), when it is. */
  problem?: string;
}

/** Parse nodes walked per statement at most: a tree past it is unknown. */
export const MAX_NODES = 50_000;

export function stricterClass(a: SqlClass, b: SqlClass): SqlClass {
  return SQL_CLASSES.indexOf(b) > SQL_CLASSES.indexOf(a) ? b : a;
}

/**
 * Classify SQL text as sent to a database of `dialect` (the others are tried when it does not parse). With
 * `include`, a client command that includes a file stands for that file's statements.
 */
export function classifySql(
  sql: string,
  dialect: SqlDialect = 'postgresql',
  include?: IncludeStatements,
): SqlClassification {
  const split = splitSql(sql, dialect);
  if (!split.ok) return { class: 'unknown', statements: [], problem: split.problem };
  if (split.statements.length === 0)
    return { class: 'unknown', statements: [], problem: 'no SQL statement in the text' };
  const statements = split.statements.flatMap((s) => {
    const included = include === undefined ? undefined : includeOfStatement(s, dialect);
    return (included === undefined ? undefined : include!(included)) ?? [classifyOne(s, dialect)];
  });
  return { class: statements.reduce<SqlClass>((c, s) => stricterClass(c, s.class), 'read'), statements };
}

function classifyOne(statement: SplitStatement, dialect: SqlDialect): StatementClass {
  if (statement.kind === 'meta') return classifyMeta(statement.text);
  const explained = explainPrefix(statement.text);
  if (explained !== undefined) {
    const inner = classifyOne({ kind: 'sql', text: explained.rest }, dialect);
    if (!explained.analyze)
      return {
        class: 'read',
        kind: `explain ${inner.kind}`,
        why: 'EXPLAIN without ANALYZE plans the statement, never runs it',
      };
    return {
      ...inner,
      kind: `explain analyze ${inner.kind}`,
      why: `EXPLAIN ANALYZE runs the statement${inner.why === undefined ? '' : `; ${inner.why}`}`,
    };
  }
  // COPY (query) TO STDOUT sends a query's rows to the client: as strict as the query.
  const copied = /^\s*copy\s*\(([\s\S]*)\)\s*to\s+stdout\b[^()]*$/i.exec(statement.text);
  if (copied !== null) {
    const inner = classifyOne({ kind: 'sql', text: copied[1]! }, dialect);
    return { ...inner, kind: `copy (${inner.kind}) to stdout` };
  }
  const ast = parseAny(statement.text, dialect);
  if (ast === undefined) return byHead(statement.text);
  let result: StatementClass | undefined;
  for (const node of ast) {
    const one = classifyAst(node);
    result = result === undefined || SQL_CLASSES.indexOf(one.class) > SQL_CLASSES.indexOf(result.class) ? one : result;
  }
  return result ?? { class: 'unknown', kind: 'empty', why: 'the parser found no statement' };
}

function parseAny(text: string, dialect: SqlDialect): AstNode[] | undefined {
  for (const d of [dialect, ...SQL_DIALECTS.filter((x) => x !== dialect)]) {
    try {
      const ast = loadParser(d).astify(text, { database: d });
      return (Array.isArray(ast) ? ast : [ast]) as AstNode[];
    } catch {
      // not this dialect's syntax: try the next one, then the statement's leading words
    }
  }
  return undefined;
}

type AstNode = Record<string, unknown>;

// ── from the syntax tree ─────────────────────────────────────────────────────────────────────────────

const ROW_WRITES = new Set(['insert', 'replace', 'update', 'delete', 'merge', 'load_data']);
const SCHEMA_CHANGES = new Set(['create', 'alter', 'drop', 'truncate', 'rename', 'comment']);
const ADMIN = new Set([
  'attach',
  'detach',
  'grant',
  'revoke',
  'lock',
  'unlock',
  'call',
  'exec',
  'execute',
  'declare',
  'deallocate',
]);
const READS = new Set(['select', 'show', 'desc', 'describe', 'explain', 'use', 'transaction', 'values']);
/** CREATE/DROP/ALTER of these objects is administration, not schema. */
const ADMIN_OBJECTS = new Set([
  'role',
  'user',
  'extension',
  'database',
  'server',
  'tablespace',
  'group',
  'publication',
  'subscription',
  'foreign data wrapper',
  'user mapping',
  'language',
]);

function classifyAst(node: AstNode): StatementClass {
  const type = String(node.type ?? '').toLowerCase();
  const keyword = typeof node.keyword === 'string' ? node.keyword.toLowerCase() : undefined;
  const walked = walk(node);
  if (walked.tooBig) return { class: 'unknown', kind: type, why: `its syntax tree has more than ${MAX_NODES} nodes` };
  if (SCHEMA_CHANGES.has(type)) {
    const kind = keyword === undefined ? type : `${type} ${keyword}`;
    if (keyword !== undefined && ADMIN_OBJECTS.has(keyword)) return { class: 'admin', kind };
    const out: StatementClass = { class: 'schema', kind };
    if (type === 'alter' && JSON.stringify(node.expr ?? '').includes('"action":"drop"')) out.dropsPart = true;
    return out;
  }
  if (ADMIN.has(type)) return { class: 'admin', kind: type };
  if (type === 'set') return classifySet(node);
  if (ROW_WRITES.has(type)) {
    const out: StatementClass = { class: 'row-write', kind: type };
    if ((type === 'delete' || type === 'update') && (node.where === null || node.where === undefined))
      out.everyRow = true;
    return withFunctions(out, walked);
  }
  if (READS.has(type)) {
    if (type === 'select') {
      const into = node.into as { position?: unknown; type?: unknown; expr?: unknown } | null | undefined;
      if (into !== null && into !== undefined && into.position !== null && into.position !== undefined) {
        const text = JSON.stringify(into).toLowerCase();
        return text.includes('outfile') || text.includes('dumpfile')
          ? { class: 'admin', kind: 'select into outfile', why: 'writes a file on the database server' }
          : { class: 'schema', kind: 'select into', why: 'creates a table from the result' };
      }
    }
    // A data-modifying statement nested in a read (a CTE, a subquery) makes the read a write.
    if (walked.nestedWrite !== undefined)
      return withFunctions({ class: 'row-write', kind: type, why: `it holds a nested ${walked.nestedWrite}` }, walked);
    return withFunctions({ class: 'read', kind: type }, walked);
  }
  return { class: 'unknown', kind: type || 'statement', why: 'a statement type hookwise does not classify' };
}

/** A statement's class raised by the functions it calls. */
function withFunctions(base: StatementClass, walked: Walked): StatementClass {
  let out = base;
  for (const name of walked.functions) {
    const fn = functionClass(name);
    if (fn === 'read') continue;
    if (SQL_CLASSES.indexOf(fn) > SQL_CLASSES.indexOf(out.class)) {
      out = {
        ...out,
        class: fn,
        why:
          fn === 'unknown'
            ? `it calls ${name}(), which is not a function hookwise knows to be free of side effects`
            : `it calls ${name}(), which ${fn === 'admin' ? "reaches the server's files, processes, settings or other servers" : 'changes data'}`,
      };
    }
  }
  return out;
}

interface Walked {
  functions: string[];
  nestedWrite?: string;
  tooBig: boolean;
}

function walk(root: AstNode): Walked {
  const functions = new Set<string>();
  let nestedWrite: string | undefined;
  let count = 0;
  const stack: unknown[] = [];
  for (const [k, v] of Object.entries(root)) if (k !== 'type') stack.push(v);
  while (stack.length > 0) {
    if (++count > MAX_NODES) return { functions: [...functions], tooBig: true };
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const node = value as AstNode;
    const type = typeof node.type === 'string' ? node.type.toLowerCase() : undefined;
    if (type === 'function' || type === 'aggr_func') {
      const name = functionName(node.name);
      if (name !== undefined) functions.add(name);
    } else if (
      type !== undefined &&
      (ROW_WRITES.has(type) || SCHEMA_CHANGES.has(type)) &&
      ('table' in node || 'where' in node)
    )
      nestedWrite ??= type;
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push(v);
  }
  const out: Walked = { functions: [...functions], tooBig: false };
  if (nestedWrite !== undefined) out.nestedWrite = nestedWrite;
  return out;
}

/** node-sql-parser names functions as a string, `{name: [{value}]}` or `{schema, name}`: the qualified name, lower case. */
function functionName(name: unknown): string | undefined {
  if (typeof name === 'string') return name.toLowerCase();
  if (name === null || typeof name !== 'object') return undefined;
  const n = name as { name?: unknown; schema?: unknown };
  const parts: string[] = [];
  const schema = n.schema as { value?: unknown } | string | undefined;
  if (typeof schema === 'string') parts.push(schema);
  else if (schema !== undefined && schema !== null && typeof schema.value === 'string') parts.push(schema.value);
  if (Array.isArray(n.name)) {
    for (const part of n.name as { value?: unknown }[]) if (typeof part?.value === 'string') parts.push(part.value);
  } else if (typeof n.name === 'string') parts.push(n.name);
  return parts.length === 0 ? undefined : parts.join('.').toLowerCase();
}

/**
 * Functions that reach beyond the rows a query reads: the server's files (pg_read_file, lo_import, readfile),
 * processes and settings (pg_terminate_backend, set_config, pg_reload_conf), other servers (dblink), time
 * (pg_sleep, sleep, benchmark: a query that holds a connection on purpose), code (load_extension).
 */
const ADMIN_FUNCTIONS = new Set([
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'pg_ls_archive_statusdir',
  'pg_file_write',
  'pg_file_rename',
  'pg_file_unlink',
  'pg_logdir_ls',
  'lo_import',
  'lo_export',
  'lo_unlink',
  'lo_create',
  'lo_creat',
  'lo_put',
  'lo_from_bytea',
  'lo_open',
  'lowrite',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'dblink_connect_u',
  'dblink_send_query',
  'dblink_open',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_create_restore_point',
  'pg_start_backup',
  'pg_stop_backup',
  'pg_backup_start',
  'pg_backup_stop',
  'set_config',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_notify',
  'pg_advisory_lock',
  'pg_advisory_xact_lock',
  'pg_try_advisory_lock',
  'query_to_xml',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'table_to_xml',
  'pg_create_logical_replication_slot',
  'pg_drop_replication_slot',
  'load_file',
  'sleep',
  'benchmark',
  'sys_exec',
  'sys_eval',
  'load_extension',
  'readfile',
  'writefile',
  'edit',
  'fts3_tokenizer',
]);

const ROW_WRITE_FUNCTIONS = new Set(['nextval', 'setval', 'lastval']);

/** Functions that compute from their arguments or read the database's own catalogue, and do nothing else. */
const READ_FUNCTIONS = new Set([
  // aggregates and windows
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'total',
  'string_agg',
  'array_agg',
  'json_agg',
  'jsonb_agg',
  'json_object_agg',
  'jsonb_object_agg',
  'group_concat',
  'json_group_array',
  'json_group_object',
  'bool_and',
  'bool_or',
  'every',
  'bit_and',
  'bit_or',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  'row_number',
  'rank',
  'dense_rank',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  'ntile',
  'percent_rank',
  'cume_dist',
  'corr',
  'covar_pop',
  // scalars
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'ifnull',
  'iif',
  'if',
  'isnull',
  'lower',
  'upper',
  'length',
  'char_length',
  'character_length',
  'octet_length',
  'bit_length',
  'substring',
  'substr',
  'trim',
  'ltrim',
  'rtrim',
  'btrim',
  'replace',
  'concat',
  'concat_ws',
  'left',
  'right',
  'position',
  'strpos',
  'instr',
  'split_part',
  'lpad',
  'rpad',
  'repeat',
  'reverse',
  'initcap',
  'translate',
  'ascii',
  'chr',
  'char',
  'starts_with',
  'format',
  'printf',
  'quote_ident',
  'quote_literal',
  'quote_nullable',
  'quote',
  'md5',
  'sha1',
  'sha2',
  'sha256',
  'sha512',
  'encode',
  'decode',
  'hex',
  'unhex',
  'to_hex',
  'regexp_replace',
  'regexp_matches',
  'regexp_match',
  'regexp_like',
  'regexp_substr',
  'regexp_split_to_array',
  'regexp_split_to_table',
  'string_to_array',
  'array_to_string',
  'array_length',
  'array_position',
  'array_append',
  'array_prepend',
  'array_cat',
  'array_remove',
  'cardinality',
  'unnest',
  'generate_series',
  'abs',
  'round',
  'ceil',
  'ceiling',
  'floor',
  'trunc',
  'truncate',
  'mod',
  'power',
  'pow',
  'sqrt',
  'exp',
  'ln',
  'log',
  'log10',
  'sign',
  'pi',
  'degrees',
  'radians',
  'sin',
  'cos',
  'tan',
  'random',
  'rand',
  'width_bucket',
  'cast',
  'convert',
  'typeof',
  'pg_typeof',
  'to_char',
  'to_date',
  'to_timestamp',
  'to_number',
  'now',
  'current_date',
  'current_time',
  'current_timestamp',
  'localtime',
  'localtimestamp',
  'clock_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'make_date',
  'make_time',
  'make_timestamp',
  'make_interval',
  'date',
  'time',
  'datetime',
  'julianday',
  'strftime',
  'unixepoch',
  'date_format',
  'str_to_date',
  'curdate',
  'curtime',
  'datediff',
  'date_add',
  'date_sub',
  'timestampdiff',
  'unix_timestamp',
  'from_unixtime',
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'gen_random_uuid',
  'uuid_generate_v4',
  'uuid',
  'json',
  'json_extract',
  'json_object',
  'json_array',
  'json_build_object',
  'jsonb_build_object',
  'json_build_array',
  'jsonb_build_array',
  'to_json',
  'to_jsonb',
  'row_to_json',
  'array_to_json',
  'json_extract_path',
  'jsonb_extract_path',
  'json_extract_path_text',
  'jsonb_extract_path_text',
  'jsonb_pretty',
  'json_typeof',
  'jsonb_typeof',
  'json_array_length',
  'jsonb_array_length',
  'json_each',
  'jsonb_each',
  'json_each_text',
  'jsonb_each_text',
  'json_array_elements',
  'jsonb_array_elements',
  'json_array_elements_text',
  'jsonb_array_elements_text',
  'json_object_keys',
  'jsonb_object_keys',
  'jsonb_set',
  'jsonb_insert',
  'jsonb_strip_nulls',
  'json_strip_nulls',
  'json_valid',
  'json_unquote',
  'json_contains',
  'json_keys',
  'to_tsvector',
  'to_tsquery',
  'plainto_tsquery',
  'phraseto_tsquery',
  'websearch_to_tsquery',
  'ts_rank',
  'ts_rank_cd',
  'ts_headline',
  'similarity',
  'levenshtein',
  'exists',
  // the database's own catalogue and session
  'version',
  'sqlite_version',
  'current_database',
  'current_schema',
  'current_schemas',
  'current_user',
  'session_user',
  'user',
  'current_role',
  'database',
  'schema',
  'found_rows',
  'last_insert_id',
  'row_count',
  'changes',
  'last_insert_rowid',
  'pg_backend_pid',
  'pg_postmaster_start_time',
  'pg_size_pretty',
  'pg_total_relation_size',
  'pg_relation_size',
  'pg_table_size',
  'pg_indexes_size',
  'pg_database_size',
  'pg_column_size',
  'pg_get_viewdef',
  'pg_get_indexdef',
  'pg_get_constraintdef',
  'pg_get_functiondef',
  'pg_get_function_arguments',
  'pg_get_function_result',
  'pg_get_triggerdef',
  'pg_get_expr',
  'pg_get_userbyid',
  'pg_get_serial_sequence',
  'pg_table_is_visible',
  'pg_function_is_visible',
  'obj_description',
  'col_description',
  'shobj_description',
  'format_type',
  'has_table_privilege',
  'has_schema_privilege',
  'has_database_privilege',
  'has_column_privilege',
  'has_function_privilege',
  'pg_encoding_to_char',
  'pg_is_in_recovery',
  'pg_last_wal_receive_lsn',
  'txid_current',
  'inet_server_addr',
  'inet_server_port',
  'pg_relation_filenode',
  'current_setting',
  'pg_stat_get_numscans',
  'to_regclass',
  'pg_get_keywords',
  'pg_catalog.pg_get_userbyid',
  'pg_catalog.format_type',
  'pg_catalog.pg_table_is_visible',
  'pg_catalog.pg_get_expr',
  'pg_catalog.obj_description',
  'pg_catalog.col_description',
  'pg_catalog.pg_get_constraintdef',
  'pg_catalog.pg_get_indexdef',
  'pg_catalog.pg_get_viewdef',
]);

function functionClass(name: string): SqlClass {
  const bare = name.startsWith('pg_catalog.') ? name.slice('pg_catalog.'.length) : name;
  if (ADMIN_FUNCTIONS.has(bare)) return 'admin';
  if (ROW_WRITE_FUNCTIONS.has(bare)) return 'row-write';
  if (READ_FUNCTIONS.has(name) || READ_FUNCTIONS.has(bare)) return 'read';
  return 'unknown';
}

/** Session settings that change how results read, nothing else. Everything else a SET changes is administration. */
const HARMLESS_SETTINGS = new Set([
  'search_path',
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'timezone',
  'time zone',
  'datestyle',
  'intervalstyle',
  'client_encoding',
  'application_name',
  'extra_float_digits',
  'bytea_output',
  'work_mem',
  'names',
  'character set',
  'sql_mode',
  'transaction',
]);

function classifySet(node: AstNode): StatementClass {
  const text = JSON.stringify(node).toLowerCase();
  if (/"global"|"persist"|"system"/.test(text)) return { class: 'admin', kind: 'set global' };
  const expr = node.expr as { left?: { column?: unknown; name?: unknown } } | { left?: unknown }[] | undefined;
  const names: string[] = [];
  const collect = (e: unknown): void => {
    const left = (e as { left?: unknown } | undefined)?.left;
    const name = JSON.stringify(left ?? '')
      .toLowerCase()
      .match(/"(?:column|value|name)":"([^"]+)"/)?.[1];
    if (name !== undefined) names.push(name);
  };
  if (Array.isArray(expr)) expr.forEach(collect);
  else collect(expr);
  if (names.length > 0 && names.every((n) => HARMLESS_SETTINGS.has(n.replace(/^@+/, ''))))
    return { class: 'read', kind: `set ${names.join(', ')}` };
  return { class: 'admin', kind: 'set', why: 'it changes a setting that is not one of the harmless session ones' };
}

// ── EXPLAIN, client commands, and statements the parser does not take ────────────────────────────────

function explainPrefix(text: string): { analyze: boolean; rest: string } | undefined {
  const m = /^\s*explain\b/i.exec(text);
  if (m === null) return undefined;
  let rest = text.slice(m[0].length);
  let analyze = false;
  const paren = /^\s*\(([^)]*)\)/.exec(rest);
  if (paren !== null) {
    // EXPLAIN (ANALYZE false) does not run it; any other spelling with ANALYZE is read as running it.
    analyze = /\banaly[sz]e\b(?!\s+(?:false|off|0)\b)/i.test(paren[1]!);
    rest = rest.slice(paren[0].length);
  }
  for (;;) {
    const word = /^\s*(analy[sz]e|verbose|extended|partitions|format\s*=\s*\w+|query\s+plan\s+for)\b/i.exec(rest);
    if (word === null) break;
    if (/^analy[sz]e$/i.test(word[1]!)) analyze = true;
    rest = rest.slice(word[0].length);
  }
  // MySQL: EXPLAIN tbl is DESCRIBE tbl.
  if (/^\s*[A-Za-z_`"][\w`".]*\s*$/.test(rest)) return { analyze: false, rest: `DESCRIBE ${rest.trim()}` };
  return { analyze, rest };
}

/** psql's backslash commands and sqlite3's dot commands that only list or describe. */
const LISTING_META =
  /^(?:\\(?:d[a-zA-Z+]*|l\+?|list|dt\+?|dn|du|df|dv|di|ds|dT|dx|conninfo|x|timing|pset|q|\?|h|encoding|echo|qecho|warn)|\.(?:tables|schema|indexes|indices|headers|mode|databases|show|help|width|nullvalue|separator|timer|echo|quit|exit|dbinfo|fullschema|lint))\b/;

function classifyMeta(text: string): StatementClass {
  const word = text.split(/\s+/)[0]!;
  if (LISTING_META.test(text)) return { class: 'read', kind: `client ${word}` };
  return {
    class: 'unknown',
    kind: `client ${word}`,
    why: `${word} is a client command that can run programs, read or write files, or other SQL`,
  };
}

const HEAD_CLASSES: readonly (readonly [RegExp, SqlClass, string])[] = [
  [/^(?:show|describe|desc|values|table)\b/i, 'read', 'show'],
  [/^(?:begin|start\s+transaction|commit|end|rollback|savepoint|release)\b/i, 'read', 'transaction'],
  [
    /^pragma\s+(?:\w+\.)?(?:table_info|table_xinfo|table_list|index_list|index_info|index_xinfo|foreign_key_list|database_list|collation_list|function_list|module_list|pragma_list|compile_options|integrity_check|quick_check|foreign_key_check|page_count|page_size|schema_version|user_version|freelist_count|encoding|journal_mode|foreign_keys)\s*(?:\(\s*[\w'"]*\s*\))?\s*$/i,
    'read',
    'pragma',
  ],
  [/^copy\b[\s\S]*\b(?:from|to)\s+program\b/i, 'admin', 'copy program'],
  [/^copy\b[\s\S]*\bto\s+(?!stdout\b)/i, 'admin', 'copy to file'],
  [/^copy\b[\s\S]*\bfrom\s+(?:stdin\b|'|")/i, 'row-write', 'copy from'],
  [/^(?:insert|update|delete|merge|replace|upsert)\b/i, 'row-write', 'write'],
  [
    /^(?:create|alter|drop)\s+(?:or\s+replace\s+)?(?:role|user|group|extension|database|server|tablespace|publication|subscription|foreign\s+data\s+wrapper|user\s+mapping|(?:trusted\s+)?(?:procedural\s+)?language)\b/i,
    'admin',
    'role or extension',
  ],
  [/^alter\s+system\b/i, 'admin', 'alter system'],
  [
    /^(?:grant|revoke|reassign|security\s+label|set\s+role|set\s+session\s+authorization|reset|set|vacuum|analyze|analyse|reindex|cluster|checkpoint|load|do|call|execute|prepare|deallocate|listen|notify|lock|attach|detach|discard|import\s+foreign\s+schema|refresh\s+materialized\s+view)\b/i,
    'admin',
    'administration',
  ],
  [/^(?:create|alter|drop|truncate|comment\s+on|rename)\b/i, 'schema', 'schema'],
  [/^pragma\b/i, 'admin', 'pragma'],
];

/**
 * A statement the parser did not take, by its leading words. This only ever makes a statement stricter than
 * read (or reads it as a listing whose form fixes what it does), so a gap in the parser costs an ask, never an
 * allow: a WITH or SELECT it could not parse is unknown.
 */
function byHead(text: string): StatementClass {
  const head = text.trim();
  if (/^with\b/i.test(head) && /\b(?:insert|update|delete|merge)\b/i.test(head))
    return { class: 'row-write', kind: 'with', why: 'a data-modifying WITH (the parser did not take it)' };
  for (const [pattern, cls, kind] of HEAD_CLASSES) {
    if (!pattern.test(head)) continue;
    const word = head.split(/\s+/).slice(0, 2).join(' ').toLowerCase();
    const out: StatementClass = {
      class: cls,
      kind: kind === 'write' || kind === 'schema' || kind === 'role or extension' ? word : kind,
      why: 'read from its leading words (the parser did not take it)',
    };
    if (/^alter\b/i.test(head) && /\bdrop\b/i.test(head)) out.dropsPart = true;
    return out;
  }
  return { class: 'unknown', kind: head.split(/\s+/)[0]!.toLowerCase(), why: 'hookwise cannot parse it' };
}
