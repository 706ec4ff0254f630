/**
 * A realistic agent session full of (fake, format-valid) secrets, and a byte-level leak finder. The leak
 * test runs the session through the sanitizer's entry points and writes what hookwise would keep; the
 * check-level leak test (issue 4, "wire it in") runs the same session through `hookwise check` and points
 * `leaksIn` at `.hookwise/`, the runtime dir and the audit log.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { b64, hexEscaped, jwt, pemPrivateKey, percentAll, rnd, unicodeEscaped } from './fakes.js';

export interface ToolCallInput {
  tool: string;
  input: Record<string, unknown>;
}

export interface LeakySession {
  /** Every raw secret the session carries; none may appear, in any form, in anything hookwise writes. */
  secrets: string[];
  calls: ToolCallInput[];
}

export function leakySession(): LeakySession {
  const gh = `ghp_${rnd(36)}`;
  const ghs = `ghs_${rnd(36)}`;
  const openai = `sk-proj-${rnd(48, 'b64url')}`;
  const anthropic = `sk-ant-api03-${rnd(93, 'b64url')}AA`;
  const awsId = `AKIA${rnd(16, 'upperDigits')}`;
  const awsSecret = rnd(40, 'b64');
  const stripe = `sk_live_${rnd(24)}`;
  const npm = `npm_${rnd(36)}`;
  const slackHook = `T${rnd(8, 'upperDigits')}/B${rnd(8, 'upperDigits')}/${rnd(24)}`;
  const dbPass = rnd(16);
  const mysqlPass = rnd(12);
  const dockerPass = rnd(20);
  const sshPass = rnd(14);
  const session = jwt({ sub: 'user-1', role: 'admin' });
  const pem = pemPrivateKey('OPENSSH', 6);
  const pemLine = pem.split('\n')[2]!;
  const envDb = rnd(18);
  const envSecret = rnd(32, 'hex');
  const apiKey = rnd(28);
  const encodedGitlab = `glpat-${rnd(20, 'b64url')}`;
  const escapedSlack = `xoxb-${rnd(12, 'digits')}-${rnd(13, 'digits')}-${rnd(24)}`;
  const urlToken = rnd(30);
  const mcpToken = rnd(40, 'hex');
  const notebookKey = `hf_${rnd(34, 'letters')}`;
  const queryToken = rnd(32);

  const secrets = [
    gh,
    ghs,
    openai,
    anthropic,
    awsId,
    awsSecret,
    stripe,
    npm,
    slackHook,
    dbPass,
    mysqlPass,
    dockerPass,
    sshPass,
    session,
    pemLine,
    envDb,
    envSecret,
    apiKey,
    encodedGitlab,
    escapedSlack,
    urlToken,
    mcpToken,
    notebookKey,
    queryToken,
  ];
  const bash = (command: string): ToolCallInput => ({ tool: 'Bash', input: { command, description: 'run it' } });
  const calls: ToolCallInput[] = [
    bash(`export GITHUB_TOKEN=${gh} && gh pr list`),
    bash(`git clone https://x-access-token:${ghs}@github.com/acme/app.git`),
    bash(`OPENAI_API_KEY=${openai} ANTHROPIC_API_KEY='${anthropic}' python eval.py --model x`),
    bash(`aws configure set aws_access_key_id ${awsId} && aws configure set aws_secret_access_key ${awsSecret}`),
    bash(`curl https://api.stripe.com/v1/charges -u ${stripe}: -d amount=100`),
    bash(`npm config set //registry.npmjs.org/:_authToken=${npm} && npm publish`),
    bash(`curl -X POST -d '{"text":"deployed"}' https://hooks.slack.com/services/${slackHook}`),
    bash(`psql "postgresql://app:${dbPass}@db.internal:5432/app" -c 'select 1'`),
    bash(`mysqldump -h db -uroot -p${mysqlPass} app > dump.sql`),
    bash(`docker login -u ci -p ${dockerPass} registry.example.com`),
    bash(`sshpass -p '${sshPass}' ssh deploy@10.0.0.5 uptime`),
    bash(`curl -H "Cookie: session=${session}" https://app.example.com/admin`), // hookwise:allow
    bash(`echo ${b64(encodedGitlab)} | base64 -d > ~/.config/glab/token`),
    bash(`printf '${hexEscaped(escapedSlack)}' > slack.token`),
    bash(`curl "https://api.example.com/login?next=%2Fhome&token=${percentAll(urlToken)}"`),
    bash(`node -e "console.log('${unicodeEscaped(apiKey)}')"`),
    bash(`curl "https://api.example.com/v2/items?access_token=${queryToken}&page=2"`),
    {
      tool: 'Write',
      input: {
        file_path: '/work/app/.env',
        content: `DATABASE_PASSWORD=${envDb}\nSESSION_SECRET=${envSecret}\nAPI_KEY="${apiKey}"\n`,
      },
    },
    { tool: 'Write', input: { file_path: '/work/app/deploy/id_ed25519', content: `${pem}\n` } },
    {
      tool: 'Edit',
      input: {
        file_path: '/work/app/config.ts',
        old_string: 'apiKey: process.env.API_KEY',
        new_string: `apiKey: '${apiKey}'`,
      },
    },
    {
      tool: 'MultiEdit',
      input: { file_path: '/work/app/ci.yml', edits: [{ old_string: 'token: x', new_string: `token: ${gh}` }] },
    },
    {
      tool: 'NotebookEdit',
      input: { notebook_path: '/work/app/n.ipynb', new_source: `login(token="${notebookKey}")`, edit_mode: 'insert' },
    },
    {
      tool: 'mcp__http__request',
      input: {
        url: 'https://api.example.com/v1/me',
        headers: { Authorization: `token ${mcpToken}`, Accept: 'application/json' },
      },
    }, // hookwise:allow
    { tool: 'WebFetch', input: { url: `https://example.com/hook?key=${apiKey}`, prompt: 'summarize' } },
    bash('npm test -- --reporter=dot && git push origin main'),
  ];
  return { secrets, calls };
}

export interface Leak {
  file: string;
  /** Index of the secret in the session's list (never the secret itself: this goes into test output). */
  secret: number;
  form: 'raw' | 'base64' | 'hex' | 'percent';
}

/** Every file under the given paths (files or directories), read as bytes, searched for each secret in several encodings. */
export function leaksIn(paths: readonly string[], secrets: readonly string[]): Leak[] {
  const files: string[] = [];
  const walk = (p: string): void => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st === undefined) return;
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else if (st.isFile()) files.push(p);
  };
  for (const p of paths) walk(p);
  const forms = (s: string): [Leak['form'], Buffer][] => [
    ['raw', Buffer.from(s, 'utf8')],
    ['base64', Buffer.from(b64(s), 'utf8')],
    ['hex', Buffer.from(Buffer.from(s, 'utf8').toString('hex'), 'utf8')],
    ['percent', Buffer.from(encodeURIComponent(s), 'utf8')],
  ];
  const leaks: Leak[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    secrets.forEach((s, i) => {
      for (const [form, needle] of forms(s)) if (bytes.includes(needle)) leaks.push({ file, secret: i, form });
    });
  }
  return leaks;
}
