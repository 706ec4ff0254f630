/** Every way a call hands code (or data) to a program: a benign call, and the same call with other (dangerous) code. */
export const CODE_PAIRS: { kind: string; benign: string; other: string }[] = [
  {
    kind: 'heredoc to psql',
    benign: 'psql -h db.internal -U app app_production <<SQL\nSELECT count(*) FROM users;\nSQL',
    other: 'psql -h db.internal -U app app_production <<SQL\nDROP TABLE users;\nSQL',
  },
  {
    kind: 'here-string',
    benign: "psql -h db.internal -U app app_production <<< 'SELECT count(*) FROM users'",
    other: "psql -h db.internal -U app app_production <<< 'DELETE FROM users WHERE true'",
  },
  {
    kind: 'bash -c',
    benign: "bash -c 'make docs-site --jobs 4 --keep-going'",
    other: "bash -c 'make deploy-prod --jobs 4 --keep-going'",
  },
  {
    kind: 'eval',
    benign: "eval 'make docs-site --jobs 4 --keep-going'",
    other: "eval 'make deploy-prod --jobs 4 --keep-going'",
  },
  {
    kind: 'heredoc to sh',
    benign: "sh <<'EOF'\nmake docs-site --jobs 4 --keep-going\nEOF",
    other: "sh <<'EOF'\nmake deploy-prod --jobs 4 --keep-going\nEOF",
  },
  {
    kind: 'python3 - <<EOF',
    benign: "python3 - <<'EOF'\nprint(sum(range(10)))\nEOF",
    other: "python3 - <<'EOF'\nimport shutil; shutil.rmtree('/srv')\nEOF",
  },
  {
    kind: 'node -e',
    benign: `node -e "require('fs').rmSync('dist',{recursive:true})"`,
    other: `node -e "require('fs').rmSync(require('os').homedir(),{recursive:true})"`,
  },
  { kind: 'python -c', benign: "python -c 'print(42)'", other: 'python -c \'import os; os.system("id")\'' },
  { kind: 'perl -e', benign: "perl -e 'print 42'", other: "perl -e 'unlink glob q(*)'" },
  { kind: 'ruby -e', benign: "ruby -e 'puts 42'", other: "ruby -e 'system %q(id)'" },
  {
    kind: 'psql -c',
    benign: "psql -h db.internal -U app -c 'SELECT 1' app_production",
    other: "psql -h db.internal -U app -c 'DROP SCHEMA public' app_production",
  },
  {
    kind: "sqlite3 db 'sql'",
    benign: "sqlite3 -bail data/app.db 'SELECT count(*) FROM users'",
    other: "sqlite3 -bail data/app.db 'DELETE FROM users'",
  },
  {
    kind: 'mysql -e',
    benign: "mysql -h db.internal -u app -e 'SELECT 1' app_production",
    other: "mysql -h db.internal -u app -e 'DROP DATABASE app_production' app_production",
  },
  {
    kind: 'redis-cli eval',
    benign: "redis-cli -h cache.internal eval 'return 1' 0",
    other: 'redis-cli -h cache.internal eval \'return redis.call("flushall")\' 0',
  },
  {
    kind: 'mongosh --eval',
    benign: "mongosh --quiet app --eval 'db.users.countDocuments()'",
    other: "mongosh --quiet app --eval 'db.users.deleteMany({})'",
  },
  { kind: 'script file', benign: 'python3 scripts/report.py --n 5', other: 'python3 /tmp/evil.py --n 5' },
];
