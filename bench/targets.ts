/**
 * The table of performance targets: one row per measured quantity. A suite in bench/suites/ measures the
 * rows it names; bench/run.ts joins measurements to these rows and grades them. To add a target, add a
 * row here and a suite (or a task in an existing suite) that measures its id.
 *
 * Every target is an upper bound on the median ("lower is better"); `target: null` marks a row that is
 * reported, not graded.
 *
 * Units: times (µs, ms), ratios (×), and rates in percent (%): a '%' row is not a timing but a figure computed
 * once per run, deterministically (e.g. the sanitizer's miss rate on the built-in secret corpus); its median
 * and p99 are that figure.
 */

export const UNITS = ['µs', 'ms', '×', '%'] as const;
export type Unit = (typeof UNITS)[number];

export interface TargetSpec {
  id: string;
  description: string;
  unit: Unit;
  /** Upper bound on the median; null = report only. */
  target: number | null;
  /** A tighter bound worth aiming for. */
  stretch?: number;
  /** Measured in a full run only (`bench --full`): its fixture takes tens of seconds to set up. */
  large?: true;
  /**
   * Measured only where this machine can do it (confinement needs bubblewrap): the suite says why it did not
   * measure the row, and the report leaves the row out instead of failing.
   */
  needs?: 'confinement';
}

export const TARGETS = [
  {
    id: 'sql.classify.statement',
    description:
      'the SQL classifier (issue 29) on one SELECT with a join, in process, parser warm: split, parse (node-sql-parser), walk',
    unit: 'µs',
    target: 5000,
  },
  {
    id: 'sql.classify.script',
    description:
      'the SQL classifier on a five-statement migration script (BEGIN, CREATE, INSERT, UPDATE, COMMIT), in process',
    unit: 'µs',
    target: 15000,
  },
  {
    id: 'sql.classify.cold-load',
    description:
      "loading one dialect's parser (node-sql-parser's ~300 KB build) and classifying SELECT 1: what a hook process's first SQL costs; report only",
    unit: 'ms',
    target: null,
  },
  {
    id: 'sql.file.read',
    description:
      "the edge's read of the SQL file `psql -f F` runs (resolve, lstat, open, read, sanitize, includes), in process; its statements then cost sql.classify.*; report only",
    unit: 'µs',
    target: null,
  },
  {
    id: 'path-policy.decide',
    description:
      'Tier 0 path policy, in process: pathPolicyTier.decide for a Write on a pre-canonicalized path, matchers warm',
    unit: 'µs',
    target: 1,
  },
  {
    id: 'path-policy.canonicalize+decide',
    description:
      'resolvePath (realpath on the longest existing prefix) + Tier 0 decide, for a Write creating a new file; report only: dominated by syscalls, which vary by filesystem',
    unit: 'µs',
    target: null,
  },
  {
    id: 'catalog.grammar.lookup-cached',
    description:
      'lookupGrammar of a program this process has already read (git), in process: the hot path’s share of the grammar table',
    unit: 'µs',
    target: 1,
  },
  {
    id: 'catalog.grammar.first-lookup',
    description:
      'the first lookup of git’s grammar and of its log verb (split: the top node ≈ 5 KB, log ≈ 14 KB, each read, XXH64-checked, parsed, decoded), index already read; report only (once per program per process)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'catalog.grammar.first-lookup+index',
    description:
      'the same with the table’s index read first (≈ 34 KB, searched as text): what a fresh `hookwise check` pays for its first program; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'catalog.grammar.first-lookup.split',
    description:
      'the first lookup of aws (split per service: its top node, then s3’s file on first use of s3’s subcommands), index already read; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'cascade.in-process',
    description:
      'decide(state, call, policy, …) for a registered session’s Write, in process: session gate, matchers, canonicalization, cascade; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'check.startup-ratio',
    description:
      'wall time of a spawned `hookwise check` (registered session, Write, policy cache warm) ÷ `node -e 0`, ratio of medians, NODE_EXTRA_CA_CERTS as in the environment',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'check.startup-ratio.no-extra-ca',
    description:
      'the same with NODE_EXTRA_CA_CERTS removed from both commands’ environment (Node reads that file at every start)',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'check.cache-hit-ratio',
    description:
      'wall time of a spawned `hookwise check` for a short Bash call that is an exact-cache hit (the project’s .hookwise/rules/allow.jsonl remembers it; registered session) ÷ `node -e 0`, ratio of medians, NODE_EXTRA_CA_CERTS as in the environment: parser load + parse + memory load + lookup',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'check.cache-hit-ratio.no-extra-ca',
    description: 'the same with NODE_EXTRA_CA_CERTS removed from both commands’ environment',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'confine.decision-ratio',
    description:
      'decision time of a confined allow as the host waits for it in the default set-up: a spawned `hookwise check` (thin client) answered by a running daemon, for a novel project script (the cascade asks, the call is confinable, the mount plan is made, the wrapped command rendered, the note for learning from the walls written) ÷ the same for a Bash call a pack allows (`ls -la src`), interleaved, ratio of medians, no NODE_EXTRA_CA_CERTS',
    unit: '×',
    target: 1.1,
    needs: 'confinement',
  },
  {
    id: 'confine.decision-ratio.no-daemon',
    description:
      'the same in command mode (HOOKWISE_DAEMON=off): each check decides in its own process, so a confined allow also loads the confinement bundle (dist/confine.cjs, through its V8 code cache), reads the probe verdict and builds the envelope',
    unit: '×',
    target: 1.1,
    needs: 'confinement',
  },
  {
    id: 'confine.decision-in-process',
    description:
      'what a confined allow adds inside a warm engine (the daemon’s): Engine.handle of the novel script minus that of the pack-allowed call, medians of interleaved samples (the parts show both); report only: it is the mount plan’s lstats, the rendering and the note write, a few hundred µs to a few ms on a loaded machine',
    unit: 'ms',
    target: null,
    needs: 'confinement',
  },
  {
    id: 'confine.true-overhead',
    description:
      'wall time of the wrapped `true` (bubblewrap, the seccomp filter through a pipe, flock, the mounts of a small project) minus that of `bash -c true`, spawned as a host does, medians of interleaved runs',
    unit: 'ms',
    target: 15,
    needs: 'confinement',
  },
  {
    id: 'daemon.round-trip',
    description:
      'the thin client (askDaemon: connect to the Unix socket, POST /v1/check, read the answer, close) from the bench process to a running `hookwise serve`, sequential calls, the fixture’s Write (registered session, every answer checked to be the allow): transport + the daemon’s decision. Target: measured 0.42 ms median (p99 2.3 ms) on the 2-CPU development VM under load, 0.8–1.2 ms in --quick runs on a saturated one; 1 ms keeps a hook call’s own cost far below the ~40 ms of a Node start, and the CI gate (3×) fails only at 3 ms',
    unit: 'ms',
    target: 1,
    stretch: 0.5,
  },
  {
    id: 'daemon.cache-hit',
    description:
      'the daemon’s decision for a remembered Bash call (exact-cache allow), in process: a long-lived Engine with the daemon’s options (parse cache 4096, live memory) running engine.handle on the payload (JSON, session file, policy stamps, cached parse, memory freshness stats, cascade, audit line); no transport. Report only: it is mostly system calls, which vary by file system and load (54 µs median on the development VM); `bench --swarm` shows what it costs under load',
    unit: 'µs',
    target: null,
  },
  {
    id: 'daemon.settle.nothing-pending',
    description:
      'what every PreToolUse of the http wiring pays, before the cascade, to settle what earlier calls left pending when nothing is (engine/settle.ts: one readdir of the session’s notes, one lstat of its module state): settleSession in process. Report only (system calls)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'daemon.settle.asked-note',
    description:
      'the same with one asked call pending whose result the transcript does not hold yet (the next call after an ask, the worst case of a tool call): a Claude Code transcript of 200 tool calls with 4 KiB outputs (1.7 MiB), its last 512 KiB read and its tool lines parsed, nothing learned. Report only (measured 13 µs and 0.95 ms median under a load average of 16 on 2 CPUs, where daemon.cache-hit took 0.78 ms)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'daemon.settle.run-note',
    description:
      'the same with one confined run’s note pending, its undo snapshot already pinned (engine/settle.ts, session/provenance.ts settleCreations): the note read and left; the snapshot (git, ~0.5 s on 40,000 files) is read after the answer, never here. Report only (system calls)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'check.client-ratio',
    description:
      'wall time of a spawned `hookwise check` answered by a running daemon (default environment: the thin client; registered session, Write) ÷ `node -e 0`, ratio of medians, NODE_EXTRA_CA_CERTS as in the environment; the daemon’s decision counter proves every run went through it',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'check.client-ratio.no-extra-ca',
    description: 'the same with NODE_EXTRA_CA_CERTS removed from both commands’ environment',
    unit: '×',
    target: 1.5,
    stretch: 1.3,
  },
  {
    id: 'sanitize.short-command',
    description:
      'sanitize() of a typical ≤ 200-char command without secrets, in process (keyword index built, no RE2 needed)',
    unit: 'µs',
    target: 10,
  },
  {
    id: 'sanitize.secret-command',
    description:
      'sanitize() of a ~140-char command with two secrets (bearer token, URL password): RE2 patterns run, compiled; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'sanitize.2kb-command',
    description: 'sanitize() of a ~2 KB compound command without secrets, in process; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'sanitize.index-build',
    description:
      'building the keyword index (Aho-Corasick automaton over every pattern keyword) in process, JIT warm; report only (a fresh process loads it from the cache: sanitize.startup.first-call)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'scan.ms-per-mb',
    description:
      '`hookwise scan` throughput over this package’s src/ (files read and scanned, in process), ms per MB; the note gives MB/s; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.dense-1kb',
    description:
      'the detection pipeline (findSecrets, no per-call cap) on ~1 KB of secret-dense text (bench/secret-dense.ts: most lines hold a pattern match, known prefix, high-entropy run or encoded secret), in process, ms per MB; the note gives MB/s; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.dense-64kb',
    description: 'the same at ~64 KB (past the 16 KB at which patterns run on windows around their keyword hits)',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.dense-1mb',
    description: 'the same at ~1 MB (the decoded-text budget of one call is 1 MB)',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.dense-4mb',
    description: 'the same at ~4 MB',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.dense-linearity',
    description:
      'median time of the detection pipeline (findSecrets) on the ~4 MB secret-dense text ÷ on the ~1 MB one (issue 13: quadratic work made it ~11); at most 4.5, i.e. linear with a little slack',
    unit: '×',
    target: 4.5,
  },
  {
    id: 'sanitize.startup.first-call',
    description:
      'the first sanitize() in a fresh `hookwise sanitize` process, typical command, keyword index loaded from its cache (what the hook pays per call); report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.startup.first-secret',
    description:
      'the same for a command with two secrets: also loads re2 (native addon) and compiles the patterns whose keywords hit; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.startup.index-cold',
    description:
      'building and caching the keyword index in a fresh process without a cache (once per install and pattern set); report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'sanitize.miss-rate',
    description:
      'secret rows of the built-in corpus (bench/corpora/secrets.ts, `hookwise sanitize --eval builtin`) that sanitize() does not fully redact: a listed secret survives or nothing is redacted, % of secret rows; computed once per run, deterministic',
    unit: '%',
    target: 2,
  },
  {
    id: 'sanitize.false-positive-rate',
    description:
      'clean rows of the built-in corpus (hard negatives: placeholders, references, SHAs, digests, public keys, ids, …) in which sanitize() redacts anything, % of clean rows; computed once per run, deterministic',
    unit: '%',
    target: 3,
  },
  {
    id: 'shell.parse+unwrap+writes.short',
    description:
      'parseCommand + writeTargets of a typical 116-char command (cd, env prefix, pipeline, redirect), in process, parser loaded; target: well under 1 % of a hook process',
    unit: 'µs',
    target: 250,
    stretch: 100,
  },
  {
    id: 'shell.parse+unwrap+writes.2kb',
    description:
      'parseCommand + writeTargets of a 2 KB compound (loops, if/case, heredoc, substitutions, wrappers, 60 segments), in process',
    unit: 'µs',
    target: 5000,
    stretch: 2500,
  },
  {
    id: 'catalog.match.segment',
    description:
      "matchSegment of a typical 8-word segment (`rg -n --hidden -g '*.ts' -C2 TODO src`: a cluster, values, a glob, paths) against its compiled entry, in process; the catalogue's cost per segment (issue 28: < 5 µs)",
    unit: 'µs',
    target: 5,
    stretch: 2,
  },
  {
    id: 'catalog.match.2kb',
    description: 'matchSegment of every segment of the 2 KB compound (60 segments, most without an entry), in process',
    unit: 'µs',
    target: 300,
    stretch: 120,
  },
  {
    id: 'catalog.table.load',
    description:
      'what the first Bash call of a process pays for the catalogue: reading dist/catalog/index.tsv and one program’s entry (rg), each checked against its checksum, and parsing the entry; report only',
    unit: 'µs',
    target: null,
  },
  {
    id: 'shell.parser.cold-load',
    description:
      'a fresh process loading dist/shell.cjs (native tree-sitter + Bash grammar) and parsing one command, minus `node -e 0`: what the first Bash call of each check pays; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'memory.store.load-10k',
    description:
      'loadScope of 10k decision records from the project scope’s JSONL files (read, parse, validate, newest per key and role), in process; report only (decides whether `.hookwise/.index/` needs a compiled cache)',
    unit: 'ms',
    target: null,
  },
  {
    id: 'memory.exact-hit',
    description:
      'Tier 1 exact cache, in process: cacheKey (XXH3-64 of tool + subject, native) + the tier’s lookup (MemoryView.lookup: entries with the key, for the role or any role, merged across scopes) for a call whose subject is already built, 10k entries parsed from JSONL, a hit',
    unit: 'µs',
    target: 1,
  },
  {
    id: 'memory.jaccard-10k',
    description:
      'Tier 2a similarity, in process: tokenize + JaccardIndex.matches (top-1 at the default threshold) over 10k remembered synthetic commands (git, npm, docker, kubectl, make, pytest, cargo, ls, rg, curl, …), 64 synthetic queries cycled through',
    unit: 'µs',
    target: 50,
  },
  {
    id: 'memory.jaccard-100k',
    description:
      'the same over 100k remembered commands; report only (the inverted index makes a query cost the entries that share a token with it)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'memory.cache-hit-e2e',
    description:
      'a cache hit end to end in process: prepareShell (tree-sitter parse, write targets) + judge() (sanitize, path policy, shell and rules tiers, subject, key, lookup) for `npm run seed` remembered as allowed, memory already loaded; report only: the parse alone costs more than 3× the 15 µs the seed set (see .no-parse for the graded part), and in the built CLI prepareShell also reloads dist/shell.cjs on every call (the note splits it)',
    unit: 'µs',
    target: null,
  },
  {
    id: 'memory.cache-hit-e2e.no-parse',
    description:
      'the same with the shell call already prepared: judge() alone (sanitize, path policy, shell and rules tiers, subject, key, lookup)',
    unit: 'µs',
    target: 15,
  },
  {
    id: 'memory.index.learned-10k',
    description:
      'one learned record, as the next one-shot hook process takes it in: a record appended to a 10k-record project store whose compiled index is current (untimed), then loadMemory (the index read and checksummed, the appended line parsed and layered over it, no rebuild) and the exact lookup of that record, in process; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'memory.index.learned-100k',
    description: 'the same at 100k records',
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'rules.list-100k',
    description:
      '`hookwise rules list` over 100k records (org/user/project), the built CLI spawned, stdout to /dev/null: wall time; the note gives the peak RSS',
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'confine.undo-snapshot.clean-40k',
    description:
      'the undo snapshot a confined command takes first (src/confine/snapshot.ts: a copy of the index, git add -A, write-tree, commit-tree, update-ref), run as the wrapped command runs it, in a committed 40,000-file repository with a clean tree',
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'confine.undo-snapshot.changed-40k',
    description: 'the same with 5 tracked files edited and 1 untracked file added since the last commit',
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'confine.run-additions-40k',
    description:
      "what a confined run's PostToolUse pays for session provenance: the files it added, read from its undo snapshot (src/confine/undo.ts addedSinceSnapshot: the work tree read as the snapshot read it, then git diff-tree), in the same 40,000-file repository",
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'embed.one-call',
    description: 'tier 2b: the shipped model embedding one call’s subject (embedder.embed([text])), in process',
    unit: 'ms',
    target: 5,
    stretch: 1,
  },
  {
    id: 'embed.index-build-10k',
    description:
      'an embedding index of 10k distinct synthetic commands built from nothing (embedded in batches, inserted into HNSW), in process; one build, its memory in the note; report only',
    unit: 'ms',
    target: null,
  },
  {
    id: 'hnsw.top5-10k',
    description:
      'tier 2b: top-5 search (hnswlib, cosine, M 32, ef 128, tool filter) over 10k indexed calls for an unseen call’s embedding, in process',
    unit: 'ms',
    target: 1,
    stretch: 0.2,
  },
  {
    id: 'hnsw.top5-100k',
    description: 'the same over 100k indexed calls; report only',
    unit: 'ms',
    target: null,
    large: true,
  },
  {
    id: 'embed.nearest-roundtrip',
    description:
      'the daemon’s EmbeddingService answering nearest() through its warm piscina worker for a project with a 10k-record store (freshness check of every scope, embedding, search of every scope, merge, thread hops)',
    unit: 'ms',
    target: 10,
    stretch: 5,
  },
  {
    id: 'embed.daemon-hit',
    description:
      'the daemon’s whole decision for a call only tier 2b decides (engine.handle with the daemon’s options and its warm pool, a file-operand swap of a remembered allow in a 10k-record project), in process, no transport: the issue’s end-to-end embedding hit',
    unit: 'ms',
    target: 10,
    stretch: 5,
  },
  {
    id: 'queue.answer-to-return.daemon',
    description:
      'the human queue in the daemon (in memory): from answer() to the waiting call’s promise resolving, in process',
    unit: 'ms',
    target: 100,
    stretch: 1,
  },
  {
    id: 'queue.answer-to-return.files',
    description:
      'the human queue in files (no daemon): from answer() by one FileQueue (as the approve command does) to another FileQueue’s waiting call returning (fs.watch, 200 ms re-check)',
    unit: 'ms',
    target: 100,
    stretch: 10,
  },
  {
    id: 'queue.64-calls-one-answer.daemon',
    description:
      '64 identical waiting calls (64 sessions) on one item in the daemon’s queue: from one answer() to all 64 returned',
    unit: 'ms',
    target: 100,
  },
  {
    id: 'queue.64-calls-one-answer.files',
    description:
      '64 identical calls waiting on one item in the queue files (64 watchers): from one answer() to all 64 returned',
    unit: 'ms',
    target: 100,
  },
] as const satisfies readonly TargetSpec[];

export type TargetId = (typeof TARGETS)[number]['id'];

/** Is the row measured only where the machine can (see TargetSpec.needs)? */
export function isConditional(id: TargetId): boolean {
  return targetOf(id).needs !== undefined;
}

/** Is the row measured in a full run only? */
export function isLarge(id: TargetId): boolean {
  return targetOf(id).large === true;
}

export function targetOf(id: TargetId): TargetSpec {
  const spec: TargetSpec | undefined = TARGETS.find((t) => t.id === id);
  if (spec === undefined) throw new Error(`bench: no target row for ${id}`); // unreachable: id is a TargetId
  return spec;
}
