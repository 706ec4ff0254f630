/**
 * Secrets found by structure rather than by token format: Kubernetes Secret manifests, XML configuration
 * (NuGet, Maven, web.config, unattend), cookies, environment entries written other than NAME=value, and
 * provider formats added with their documentation (GitHub checksums, HubSpot, Salesforce, Twilio, Mailchimp,
 * code scanners, Bedrock, Azure OpenAI, Bundler / Sidekiq). Each kind: found in realistic contexts, left
 * alone in the obvious near misses. Values are generated at run time (fakes.ts); passwords are low-entropy
 * on purpose, so the entropy layer cannot be what finds them.
 */
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { findSecrets, sanitize } from '../../src/sanitize/index.js';
import {
  base62,
  cookieValueParts,
  crc32,
  fromLiteralParts,
  hasTokenChecksum,
  isMavenEncrypted,
  kubernetesJsonSecretValues,
  kubernetesSecretValues,
} from '../../src/sanitize/structure.js';
import { b64, checksummedToken, rnd, uuid } from './fakes.js';

const human = (): string => `Summer${rnd(4, 'digits')}prod`;

/** Every secret is gone from the sanitized text, every kept string is still there. */
function expectRedacted(text: string, secrets: readonly string[], kept: readonly string[] = []): string {
  const out = sanitize(text).text;
  for (const s of secrets) expect(out, `${s} should be redacted in:\n${out}`).not.toContain(s);
  for (const k of kept) expect(out, `${k} should be kept in:\n${out}`).toContain(k);
  return out;
}

const rules = (text: string): string[] => findSecrets(text).map((f) => f.rule);

describe('Kubernetes Secret manifests', () => {
  it('redacts data and stringData values of a manifest, whatever the key names, and keeps names and metadata', () => {
    const [user, pass, host, cert] = [
      `admin${rnd(2, 'digits')}`,
      human(),
      `db-${rnd(3, 'digits')}.internal`,
      `cert-${human()}`,
    ];
    const text = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\n  namespace: prod\ntype: Opaque\ndata:\n  username: ${b64(user)}\n  password: ${b64(pass)}\n  tls.crt: ${b64(cert)}\nstringData:\n  dbhost: ${host}\n`;
    const out = expectRedacted(
      text,
      [b64(user), b64(pass), b64(cert), host],
      [
        'name: db-credentials',
        'namespace: prod',
        'type: Opaque',
        'username: <REDACTED>',
        'tls.crt: <REDACTED>',
        'dbhost: <REDACTED>',
      ],
    );
    expect(out.split('\n')).toHaveLength(text.split('\n').length);
    expect(rules(text)).toContain('kubernetes-secret');
  });

  it('finds data before kind (kubectl get -o yaml) and the last-applied-configuration annotation that repeats it', () => {
    const token = b64(human());
    const text = [
      'apiVersion: v1',
      'data:',
      `  api-token: ${token}`,
      'kind: Secret',
      'metadata:',
      '  annotations:',
      '    kubectl.kubernetes.io/last-applied-configuration: |',
      `      {"apiVersion":"v1","data":{"api-token":"${token}"},"kind":"Secret","metadata":{"annotations":{},"name":"api","namespace":"default"},"type":"Opaque"}`,
      '  creationTimestamp: "2024-01-01T00:00:00Z"',
      '  name: api',
      'type: Opaque',
      '',
    ].join('\n');
    expectRedacted(text, [token], ['creationTimestamp: "2024-01-01T00:00:00Z"', 'name: api', 'api-token: <REDACTED>']);
  });

  it("in a multi-document file, redacts only the Secret documents (a ConfigMap's data is not secret)", () => {
    const pass = human();
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  LOG_LEVEL: debug\n  DB_HOST: db-1\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  DB_HOST: ${pass}\n---\nkind: ConfigMap\ndata:\n  other: value-1\n`;
    expectRedacted(text, [pass], ['LOG_LEVEL: debug', 'DB_HOST: db-1', 'other: value-1']);
  });

  it('in a List (kubectl get secrets,configmaps -o yaml), redacts the Secret items only', () => {
    const pass = b64(human());
    const text = `apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    key: ${pass}\n  kind: Secret\n  metadata:\n    name: a\n- apiVersion: v1\n  data:\n    key: plain-config\n  kind: ConfigMap\n  metadata:\n    name: b\nkind: List\n`;
    expectRedacted(text, [pass], ['key: plain-config', 'name: a', 'name: b']);
  });

  it('redacts block scalars, quoted values, flow mappings, and values with comments or CRLF line ends', () => {
    const [a, b, c, d, e] = [human(), human(), b64(human()), b64(human()), human()];
    const block = `kind: Secret\nstringData:\n  config.yaml: |\n    database:\n      host: db-1\n      pass: ${a}\n  app.properties: >-\n    token=${b}\n  plain: ok\n`;
    const out = expectRedacted(
      block,
      [a, b],
      ['  config.yaml: |\n    <REDACTED>\n', '  app.properties: >-\n    <REDACTED>\n'],
    );
    expect(out).not.toContain('host: db-1'); // the whole block is the value
    expectRedacted(
      `kind: "Secret"\r\ndata:\r\n  a: "${c}"   # rotated monthly\r\n  b: '${d}'\r\n`,
      [c, d],
      ['# rotated monthly'],
    );
    expectRedacted(`kind: Secret\nstringData: {password: ${e}}\n`, [e]);
  });

  it('keeps template placeholders (Helm, envsubst) and an empty value', () => {
    const text = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  password: {{ .Values.password | b64enc }}\n  user: "{{ .Values.user | b64enc }}"\nstringData:\n  token: \${API_TOKEN}\n  empty: ""\n`; // hookwise:allow
    expect(sanitize(text).text).toBe(text);
  });

  it('leaves alone what is not a Secret document', () => {
    const nearMisses = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  password-policy: strict\n  host: db-1\n',
      'apiVersion: external-secrets.io/v1beta1\nkind: SecretStore\nmetadata:\n  name: vault\nspec:\n  provider:\n    vault:\n      server: vault.internal\n',
      'apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec:\n  data:\n  - remoteRef:\n      key: prod/db\n      property: host\n',
      '# kind: Secret\napiVersion: v1\nkind: ConfigMap\ndata:\n  host: db-1\n',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: empty\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  host: db-1\n',
    ];
    for (const text of nearMisses) {
      expect(rules(text), text).not.toContain('kubernetes-secret');
      expect(sanitize(text).text, text).toBe(text);
    }
  });

  it('finds a Secret whose data is far from its kind line in a long text (the pattern sees the whole text)', () => {
    const pass = human();
    const filler = Array.from({ length: 600 }, (_, i) => `    note-${i}: plain text for the ops team\n`).join('');
    const text = `kind: Secret\nmetadata:\n  annotations:\n${filler}data:\n  token: ${b64(pass)}\n`;
    expect(text.length).toBeGreaterThan(20_000);
    expectRedacted(text, [b64(pass)], ['note-599: plain text for the ops team']);
  });

  // Its speed is bench's (sanitize rows); here: megabytes of hostile structure are read through, not choked on.
  it('reads megabytes of adversarial YAML (deep nesting, many documents, open quotes) through in one pass', () => {
    // hookwise:allow
    const depth = 1200;
    const staircase =
      `kind: Secret\n${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}data:\n`).join('')}${' '.repeat(depth)}k: v\n`.repeat(
        2,
      );
    const documents = 'kind: Secret\ndata:\n  k: v\n  "q: x\n---\n'.repeat(40_000);
    const quotes = `kind: Secret\ndata:\n${"  'k\n".repeat(200_000)}`;
    for (const text of [staircase, documents, quotes]) {
      expect(text.length).toBeGreaterThan(1_000_000);
      // A quadratic scan of these inputs takes minutes, past the test's timeout; the linear one milliseconds.
      expect(() => kubernetesSecretValues(text, () => undefined)).not.toThrow();
    }
  });
});

describe('Kubernetes Secret manifests as people write them: tabs, comments, several documents, JSON', () => {
  it('reads tab-indented YAML as it looks (a tab moves to the next tab stop)', () => {
    const [user, pass] = [`admin${rnd(2, 'digits')}`, human()];
    const text = `apiVersion: v1\nkind: Secret\nmetadata:\n\tname: db\ndata:\n\tusername: ${b64(user)}\n\t# rotated monthly\n\tpassword: ${b64(pass)}\n`;
    expectRedacted(text, [b64(user), b64(pass)], ['\tname: db', '# rotated monthly']);
    const mixed = `kind: Secret\ndata:\n  a: ${b64(user)}\n\tb: ${b64(pass)}\n`;
    expectRedacted(mixed, [b64(user), b64(pass)]);
  });

  it('keeps comments inside data and finds the Secret among other documents', () => {
    const [a, b] = [human(), rnd(24)];
    const text = `kind: ConfigMap\ndata:\n  mode: prod\n---\nkind: Secret\nstringData:\n  # plain values\n  DB_PASS: ${a} # from vault\n  session: ${b}\n---\nkind: Service\nmetadata:\n  name: app\n`;
    expectRedacted(text, [a, b], ['mode: prod', '# plain values', '# from vault', 'name: app']);
  });

  it('leaves an empty data mapping ({}) and the documents after it alone', () => {
    const text = 'kind: Secret\ndata: {}\n---\nkind: ConfigMap\ndata:\n  color: blue\n';
    expect(sanitize(text).text).toBe(text);
  });

  it('redacts the data and stringData values of a Secret in JSON (kubectl get -o json, a List), not a ConfigMap', () => {
    const [user, pass, token] = [`admin${rnd(2, 'digits')}`, human(), rnd(30)];
    const one = `{\n  "apiVersion": "v1",\n  "kind": "Secret",\n  "metadata": {"name": "db"},\n  "data": {\n    "user": "${b64(user)}",\n    "password": "${b64(pass)}"\n  }\n}`;
    expectRedacted(one, [b64(user), b64(pass)], ['"name": "db"', '"user": "<REDACTED>"']);
    const dataFirst = `{"data":{"host":"${b64(user)}"},"kind":"Secret","metadata":{"name":"x"}}`;
    expectRedacted(dataFirst, [b64(user)]);
    const list = JSON.stringify({
      kind: 'List',
      items: [
        { kind: 'ConfigMap', data: { region: 'eu-west-1' } },
        { kind: 'Secret', stringData: { webhook: token } },
      ],
    });
    expectRedacted(list, [token], ['"region":"eu-west-1"']);
    const configMap = '{"kind":"ConfigMap","data":{"LOG_LEVEL":"info"}}';
    expect(sanitize(configMap).text).toBe(configMap);
  });

  it('scans hostile JSON (deep nesting, unclosed strings, stray brackets) without failing, keeping only what a Secret owns', () => {
    const depth = 100_000;
    const spans: number[] = [];
    const deep = `${'['.repeat(depth)}{"kind":"Secret","data":{"k":"v1"}}${']'.repeat(depth)}`;
    kubernetesJsonSecretValues(deep, (start, end) => spans.push(start, end));
    expect(spans.map((_, i) => (i % 2 === 0 ? deep.slice(spans[i], spans[i + 1]) : '')).filter(Boolean)).toEqual([
      'v1',
    ]);
    // A value whose string never closes is still the Secret's: redacted to the end (fail safe).
    const unclosed = '{"kind":"Secret","data":{"k":"unclosed';
    const cut: number[] = [];
    kubernetesJsonSecretValues(unclosed, (start, end) => cut.push(start, end));
    expect(unclosed.slice(cut[0], cut[1])).toBe('unclosed');
    for (const text of [']]]}}}"kind"', '{"data":{"k":"v"}}', '{"kind":"Secret","data":{}}']) {
      const found: number[] = [];
      kubernetesJsonSecretValues(text, (start, end) => found.push(start, end));
      expect(found, text).toEqual([]);
    }
  });
});

describe('kubectl create secret --from-literal', () => {
  it('redacts every literal value whatever the key, quoted or not', () => {
    const [a, b, c] = [human(), human(), human()];
    expectRedacted(
      `kubectl -n prod create secret generic db --from-literal=username=admin --from-literal dbhost=${a} --from-literal='api=${b}' --from-literal=x="${c}"`,
      [a, b, c],
      ['--from-literal=username=', '--from-literal dbhost='],
    ); // hookwise:allow
    expect(
      fromLiteralParts(` generic x --from-literal=k=v --from-literal-file=y --from-literal=k2=\${V}`),
    ).toHaveLength(2);
  });

  it('leaves configmaps and files alone', () => {
    for (const text of [
      'kubectl create configmap cfg --from-literal=host=db-1',
      'kubectl create secret generic tls --from-file=tls.crt=./cert.pem',
    ]) {
      expect(rules(text)).not.toContain('kubectl-secret-literal');
    }
  });
});

describe('XML configuration', () => {
  it('NuGet.config packageSourceCredentials: ClearTextPassword and Password values, not the user name', () => {
    // hookwise:allow
    const [pat, enc] = [human(), b64(human())];
    const text = `<configuration>\n  <packageSourceCredentials>\n    <Contoso>\n      <add key="Username" value="ci-bot" />\n      <add key="ClearTextPassword" value="${pat}" />\n    </Contoso>\n    <Other>\n      <add key="Password" value="${enc}" />\n    </Other>\n  </packageSourceCredentials>\n</configuration>`;
    expectRedacted(text, [pat, enc], ['value="ci-bot"', 'key="ClearTextPassword"']);
    expect(rules(text)).toContain('xml-key-value-secret');
  });

  it('web.config appSettings whose key names a secret; placeholders kept', () => {
    const key = human();
    expectRedacted(
      `<appSettings>\n  <add key="StripeSecretKey" value="${key}" />\n  <add key="Environment" value="prod" />\n</appSettings>`,
      [key],
      ['value="prod"'],
    );
    for (const placeholder of ['$(NUGET_PASSWORD)', '%NUGET_PASSWORD%', '${NUGET_PASSWORD}']) {
      const text = `<add key="ClearTextPassword" value="${placeholder}" />`;
      expect(sanitize(text).text).toBe(text);
    }
  });

  it('Maven settings.xml: <password> and <passphrase>, an encrypted {…} password too; ${env.X} kept', () => {
    const [pass, phrase, encrypted] = [human(), human(), `{${b64(rnd(24))}}`];
    const text = `<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n      <username>deploy</username>\n      <password>${pass}</password>\n    </server>\n    <server>\n      <id>gpg</id>\n      <passphrase>${phrase}</passphrase>\n    </server>\n    <server>\n      <id>enc</id>\n      <password>${encrypted}</password>\n    </server>\n    <server>\n      <id>env</id>\n      <password>\${env.NEXUS_PASSWORD}</password>\n    </server>\n  </servers>\n</settings>`; // hookwise:allow
    expectRedacted(
      text,
      [pass, phrase, encrypted],
      ['<username>deploy</username>', '<password>${env.NEXUS_PASSWORD}</password>', '<id>enc</id>'],
    );
  });

  it('other elements and attributes that say secret: <apiKey>, <clientSecret>, <storepass>, CDATA, unattend <Value>, password="…"', () => {
    const [a, b, c, d, e, f] = [human(), human(), human(), human(), human(), human()];
    expectRedacted(`<config><apiKey>${a}</apiKey><clientSecret>\n  ${b}\n</clientSecret></config>`, [a, b]); // hookwise:allow
    expectRedacted(`<configuration><storepass>${c}</storepass><keypass><![CDATA[${d}]]></keypass></configuration>`, [
      c,
      d,
    ]);
    expectRedacted(
      `<AdministratorPassword>\n  <Value>${e}</Value>\n  <PlainText>true</PlainText>\n</AdministratorPassword>`,
      [e],
      ['<PlainText>true</PlainText>'],
    );
    expectRedacted(
      `<datasource url="jdbc:postgresql://db/app" username="app" password="${f}"/>`,
      [f],
      ['username="app"'],
    );
  });

  it('leaves alone code generics, non-secret elements and self-closing tags', () => {
    const nearMisses = [
      'async function load(): Promise<Token> {\n  return fetchToken();\n}\nconst view = </div>',
      '<passwordPolicy>strict</passwordPolicy><tokenEndpoint>https://id.example.com/token</tokenEndpoint>',
      '<server><id>nexus</id><password/></server>',
      '<add key="Username" value="ci-bot" />',
    ];
    for (const text of nearMisses) expect(sanitize(text).text, text).toBe(text);
  });

  it('isMavenEncrypted: {base64} and Maven 4 {[…]base64}, not templates', () => {
    expect(isMavenEncrypted(`{${b64(rnd(20))}}`)).toBe(true);
    expect(isMavenEncrypted(`{[name=master,cipher=AES/GCM/NoPadding,version=4.0]${b64(rnd(30))}}`)).toBe(true);
    for (const v of ['{{ .Values.password }}', '{access_token}', '{}', '{x y z w v u}'])
      expect(isMavenEncrypted(v), v).toBe(false);
  });
});

describe('cookies', () => {
  it('redacts every cookie value of a Cookie header and keeps the names', () => {
    const [sid, csrf] = [rnd(24), human()];
    const text = `curl -H 'Cookie: theme=dark; sessionid=${sid}; csrftoken=${csrf}' https://example.com/api`; // hookwise:allow
    expectRedacted(text, [sid, csrf], ['sessionid=<REDACTED>', 'csrftoken=<REDACTED>']);
    // The cookie pattern's own spans cover the values only (names are another rule's business: see the report).
    const spans = findSecrets(text).filter((f) => f.rule === 'cookie-header');
    expect(spans.map((f) => text.slice(f.start, f.end))).toEqual(['dark', sid, csrf]);
  });

  it('raw HTTP and curl -v: Cookie values, only the first pair of Set-Cookie (attributes kept)', () => {
    const [a, b] = [rnd(32), rnd(32)];
    expectRedacted(
      `GET /account HTTP/1.1\r\nHost: example.com\r\nCookie: lang=en; sid=${a}\r\n\r\n`,
      [a],
      ['Host: example.com'],
    ); // hookwise:allow
    expectRedacted(
      `HTTP/1.1 200 OK\nSet-Cookie: session=${b}; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure\n`,
      [b],
      ['Path=/', 'HttpOnly; Secure'],
    ); // hookwise:allow
    const c = rnd(32);
    expectRedacted(`< HTTP/2 200\n< set-cookie: __Host-sid=${c}; path=/; secure\n`, [c], ['path=/']); // hookwise:allow
  });

  it('header maps in JSON / code and httpie', () => {
    const [a, b] = [human(), human()];
    expectRedacted(`fetch(url, { headers: { 'Cookie': 'sid=${a}; theme=dark' } })`, [a]); // hookwise:allow
    expectRedacted(`http GET example.com/api Cookie:sid=${b}`, [b]); // hookwise:allow
  });

  it('curl -b / --cookie name=value pairs; a cookie-jar file name is kept', () => {
    const [a, b, c] = [rnd(24), human(), rnd(24)];
    expectRedacted(`curl -b 'sessionid=${a}; lang=en' https://example.com`, [a], ['sessionid=<REDACTED>']); // hookwise:allow
    expectRedacted(`curl --cookie "token=${b}" https://example.com`, [b], ['token=<REDACTED>']);
    expectRedacted(`curl --cookie=sid=${c} https://example.com`, [c]); // hookwise:allow
  });

  it('leaves alone prose, cookie jars, git -b and code that names a cookie', () => {
    const nearMisses = [
      'the Cookie header carries the session id',
      'curl -b cookies.txt -c cookies.txt https://example.com',
      'git checkout -b feature/cookie-banner',
      'interface Request {\n  cookie: req.headers.cookie;\n}',
      'const COOKIE_NAME = "sessionid";',
    ];
    for (const text of nearMisses) expect(sanitize(text).text, text).toBe(text);
  });

  it('cookieValueParts: values only, placeholders kept, nothing without an =', () => {
    const header = 'a=1; b=$B; c="q"; nameless';
    const parts = cookieValueParts(header);
    const values: string[] = [];
    for (let i = 0; i < parts.length; i += 2) values.push(header.slice(parts[i], parts[i + 1]));
    expect(values).toEqual(['1', '"q"', 'nameless']);
    expect(cookieValueParts('cookies.txt')).toEqual([]);
  });
});

describe('GitHub token checksums', () => {
  it('crc32 and base62 are the standard ones', () => {
    expect(crc32('123456789')).toBe(0xcbf43926); // the CRC-32 check value
    const sample = rnd(30);
    const node = (zlib as { crc32?: (data: string) => number }).crc32;
    if (node !== undefined) expect(crc32(sample)).toBe(node(sample));
    expect(base62(0, 6)).toBe('000000');
    expect(base62(61, 2)).toBe('0z');
    expect(base62(62, 1)).toBe('10');
  });

  it('hasTokenChecksum accepts tokens built at test time and rejects a changed checksum', () => {
    for (const prefix of ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'npm_'] as const) {
      expect(hasTokenChecksum(checksummedToken(prefix)), prefix).toBe(true);
      expect(hasTokenChecksum(checksummedToken(prefix, { valid: false })), prefix).toBe(false);
    }
  });

  it('redacts a checksum-valid token glued to the text before it, where github-token needs a boundary', () => {
    const [a, b, c] = [checksummedToken('ghp_'), checksummedToken('ghs_'), checksummedToken('npm_')];
    for (const text of [`x${a}`, `GH_TOKEN_${b}`, `registry.npmjs.org/:_authTokenx${c}`]) {
      const out = sanitize(text);
      expect(
        out.findings.map((f) => f.rule),
        text,
      ).toContain('github-token-checksum');
      for (const t of [a, b, c]) expect(out.text).not.toContain(t);
    }
  });

  it('fails safe: a token with an invalid checksum is still redacted where it was before (github-token)', () => {
    const bad = checksummedToken('ghp_', { valid: false });
    const { text, findings } = sanitize(
      `git push https://x-access-token:${bad}@github.com/acme/app.git && echo ${bad}`,
    );
    expect(text).not.toContain(bad);
    expect(findings.map((f) => f.rule)).toContain('github-token');
    expect(rules(`x${bad}`)).not.toContain('github-token-checksum');
  });
});

describe('CRM, messaging, code-quality and AI providers', () => {
  it('HubSpot private app tokens (na1, eu1), in a header and an env file', () => {
    const [na, eu] = [`pat-na1-${uuid()}`, `pat-eu1-${uuid()}`];
    expectRedacted(
      `curl -H "Authorization: Bearer ${na}" https://api.hubapi.com/crm/v3/objects/contacts\nHUBSPOT_TOKEN_EU=${eu}`,
      [na, eu],
    );
    expect(rules('pat-na1-not-a-uuid and pat-xx1-' + uuid())).not.toContain('hubspot-token');
  });

  it('Salesforce access tokens (with the ! shell-escaped or not); the org id alone is not a secret', () => {
    const [a, b] = [`${rnd(20)}.${rnd(60)}`, rnd(90)];
    expectRedacted(
      `sf data query -o 00D${rnd(12)}!${a} -q "SELECT Id FROM Account"\nexport SF_ACCESS_TOKEN=00D${rnd(15)}\\!${b}`,
      [a, b],
    ); // hookwise:allow
    expect(rules('the org 00D5e000000ABCDEAA is in the sandbox')).not.toContain('salesforce-access-token');
  });

  it('Twilio SID + token pairs in code and curl; a SID next to a variable is kept', () => {
    const [token, secret] = [rnd(32, 'hex'), rnd(32)];
    expectRedacted(
      `client = Client("AC${rnd(32, 'hex')}", "${token}")\nconst c = twilio('SK${rnd(32, 'hex')}', '${secret}', { accountSid })`,
      [token, secret],
    );
    const sidOnly = `client = Client("AC${rnd(32, 'hex')}", auth_token)`;
    expect(rules(sidOnly)).not.toContain('twilio-credential-pair');
  });

  it('Mailchimp API keys, not language tags or --user flags', () => {
    const key = `${rnd(32, 'hex')}-us6`;
    expectRedacted(`MC_KEY = "${key}"\ncurl --user "anystring:${key}" https://us6.api.mailchimp.com/3.0/`, [key]);
    for (const text of [
      'curl -H "Accept-Language: en-us" --user me https://example.com',
      `sha ${rnd(40, 'hex')}-usage`,
    ])
      expect(rules(text), text).not.toContain('mailchimp-api-key');
  });

  it('Codecov, Snyk, SonarQube and DeepSource credentials on command lines', () => {
    const [cc, sn, sq, ds] = [uuid(), uuid(), rnd(40, 'hex'), rnd(32, 'hex')];
    expectRedacted(`bash <(curl -s https://codecov.io/bash) -t ${cc}`, [cc]);
    expectRedacted(`snyk config set api=${sn} && snyk test`, [sn]);
    expectRedacted(
      `./gradlew sonarqube -Dsonar.host.url=https://sonar.acme.io -Dsonar.login=${sq}`,
      [sq],
      ['-Dsonar.host.url=https://sonar.acme.io'],
    );
    expectRedacted(
      `export DEEPSOURCE_DSN=https://${ds}@app.deepsource.com\n./bin/deepsource report --analyzer test-coverage`,
      [ds],
    );
    const nearMisses = [
      'codecov -t ${CODECOV_TOKEN} -f coverage.xml',
      'snyk auth',
      'snyk test --severity-threshold=high',
      'mvn sonar:sonar -Dsonar.login=admin -Dsonar.password=${SONAR_PASSWORD}',
      'open https://app.deepsource.com/gh/acme/app',
    ];
    for (const text of nearMisses) expect(sanitize(text).text, text).toBe(text);
  });

  it('Amazon Bedrock long-term (ABSK…) and short-term (bedrock-api-key-…) keys', () => {
    const long = `ABSK${b64(`BedrockAPIKey-${rnd(4, 'lowerDigits')}-at-${rnd(12, 'digits')}:${rnd(40, 'b64')}`)}`;
    const short = `bedrock-api-key-${b64(`bedrock.amazonaws.com/?Action=CallWithBearerToken&X-Amz-Credential=${rnd(20, 'upperDigits')}&X-Amz-Signature=${rnd(64, 'hex')}&Version=1`)}`;
    expectRedacted(`export AWS_BEARER_TOKEN_BEDROCK=${long}\n{"bedrock_key": "${short}"}`, [long, short]);
    expect(rules('aws secretsmanager get-secret-value --secret-id bedrock-api-key-prod')).not.toContain(
      'aws-bedrock-api-key',
    );
  });

  it('Azure OpenAI keys under any casing / separator of the key name; an endpoint is kept', () => {
    const [a, b] = [rnd(32, 'hex'), rnd(84)];
    expectRedacted(`azure_openai_key: ${a}\n{"AzureOpenAIApiKey": "${b}"}`, [a, b]);
    const endpoint = 'azure_openai_endpoint: https://acme.openai.azure.com/';
    expect(sanitize(endpoint).text).toBe(endpoint);
  });
});

describe('Bundler / Sidekiq Enterprise credentials', () => {
  it('redacts user and password in BUNDLE_<HOST> variables, bundle config and the contribsys URL', () => {
    const hex8 = (): string => rnd(8, 'hex');
    const [u1, p1, u2, p2, u3, p3, u4, p4] = [hex8(), hex8(), hex8(), hex8(), hex8(), hex8(), hex8(), hex8()];
    const text = [
      `export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${u1}:${p1}`,
      `heroku config:set BUNDLE_GEMS__CONTRIBSYS__COM=${u2}:${p2}`,
      `bundle config --local enterprise.contribsys.com ${u3}:${p3}`,
      `source "https://${u4}:${p4}@enterprise.contribsys.com/" do`,
    ].join('\n');
    expectRedacted(
      text,
      [u1, p1, u2, p2, u3, p3, u4, p4],
      ['BUNDLE_ENTERPRISE__CONTRIBSYS__COM=', 'enterprise.contribsys.com'],
    );
    const gh = `x-access-token:${rnd(20)}`;
    expectRedacted(`BUNDLE_RUBYGEMS__PKG__GITHUB__COM=${gh} bundle install`, [gh]);
  });

  it('leaves Bundler settings alone', () => {
    const nearMisses = [
      'BUNDLE_WITHOUT=development:test bundle install',
      'BUNDLE_BUILD__NOKOGIRI=--use-system-libraries bundle install',
      'bundle config set --local path vendor/bundle',
      'bundle config set mirror.https://rubygems.org https://mirror.acme.io',
      'source "https://enterprise.contribsys.com/" do',
      'BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${SIDEKIQ_CREDENTIALS} bundle install',
    ];
    for (const text of nearMisses) expect(sanitize(text).text, text).toBe(text);
  });
});

describe('environment entries written other than NAME=value', () => {
  it('Kubernetes / Compose env lists and ECS / JSON name-value pairs', () => {
    const [a, b, c] = [human(), human(), human()];
    const yaml = `containers:\n  - name: api\n    env:\n      - name: STRIPE_API_KEY\n        value: ${a}\n      - name: LOG_LEVEL\n        value: debug\n      - name: DB_PASSWORD\n        value: "${b}"\n`;
    expectRedacted(yaml, [a, b], ['value: debug', '- name: api']);
    expectRedacted(
      `"environment": [{"name": "NODE_ENV", "value": "production"}, {"name": "OAUTH_CLIENT_SECRET", "value": "${c}"}]`,
      [c],
      ['"value": "production"'],
    );
  });

  it('setx, fish set, launchctl setenv, Dockerfile ENV name value, gh secret set', () => {
    const [a, b, c, d, e, f] = [human(), human(), human(), human(), human(), human()];
    expectRedacted(`setx MY_API_KEY ${a} /M`, [a]);
    expectRedacted(`set -gx OPENAI_ACCESS_TOKEN ${b}; set -Ux MY_SECRET_KEY '${c}'`, [b, c]);
    expectRedacted(`launchctl setenv GITHUB_TOKEN ${d}`, [d]);
    expectRedacted(
      `FROM node:20\nENV NODE_ENV production\nENV NPM_AUTH_TOKEN ${e}\n`,
      [e],
      ['ENV NODE_ENV production'],
    );
    expectRedacted(`gh secret set DEPLOY_WEBHOOK --repo acme/app --body "${f}"`, [f]);
  });

  it('environ[…] = …, ENV[…] = …, setdefault / putenv / Setenv / SetEnvironmentVariable', () => {
    const values = Array.from({ length: 6 }, () => human());
    const text = [
      `os.environ["MY_API_KEY"] = "${values[0]}"`,
      `ENV['SENTRY_AUTH_TOKEN'] = '${values[1]}'`,
      `process.env["DB_PASSWORD"] = "${values[2]}";`,
      `os.environ.setdefault("MY_CLIENT_SECRET", "${values[3]}")`,
      `os.Setenv("SLACK_BOT_TOKEN", "${values[4]}")`,
      `[Environment]::SetEnvironmentVariable("AZURE_CLIENT_SECRET", "${values[5]}", "User")`,
    ].join('\n');
    expectRedacted(text, values);
  });

  it('leaves non-secret names, placeholders, comparisons, reads and multi-line shell options alone', () => {
    const nearMisses = [
      'env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api\n        key: token\n',
      '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
      'setx PATH "C:\\\\tools;%PATH%"',
      'set -euo pipefail\nMAX_TOKENS 100',
      'ENV NODE_ENV production',
      'os.environ["HOME"] = "/tmp/home"',
      "if ENV['API_KEY'] == 'test' then skip end",
      'token = os.environ["GITHUB_TOKEN"]',
      'gh secret set DEPLOY_KEY < deploy_key.pem',
      'gh secret list',
    ];
    for (const text of nearMisses) expect(sanitize(text).text, text).toBe(text);
  });
});
