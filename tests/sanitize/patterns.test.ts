/**
 * Layer 2, pattern by pattern: a true positive that the pattern itself redacts, and a near miss it must
 * leave alone (wrong prefix, too short, a placeholder, a prompt instead of a value). Values come from
 * fakes.ts: right format, random content, nothing real and nothing literal in this file.
 */
import { describe, expect, it } from 'vitest';
import { findSecrets, sanitize, type Finding } from '../../src/sanitize/index.js';
import { keywordIndex, scanKeywords } from '../../src/sanitize/keywords.js';
import { compiledPattern, FAMILIES, PATTERNS, runPatterns } from '../../src/sanitize/patterns.js';
import {
  b64,
  b64url,
  checksummedToken,
  hexOf,
  jwt,
  pemPrivateKey,
  percentAll,
  rnd,
  unicodeEscaped,
  uuid,
} from './fakes.js';

interface Case {
  /** Text holding the secret. */
  text: string;
  /** The secret part that must not survive (default: the whole secret token in `text`). */
  secret: string;
  /** A near miss this pattern must not fire on. */
  nearMiss: string;
}

const token = (secret: string, wrap: (s: string) => string = (s) => s, nearMiss: string): Case => ({
  text: wrap(secret),
  secret,
  nearMiss,
});

const pem = pemPrivateKey('RSA', 6);
const pemBody = pem.split('\n')[1]!;
const puttyBody = rnd(64, 'b64');
const basic = b64(`svc:${rnd(14)}`);
const dbPassword = rnd(14);
/** A password as people choose them: low entropy, so only structure can find it. */
const humanPassword = (): string => `Winter${rnd(4, 'digits')}prod`;

/** One row per pattern id. */
const CASES: Record<string, Case> = {
  // cloud
  'aws-access-key-id': token(
    `AKIA${rnd(16, 'upperDigits')}`,
    (s) => `aws_access_key_id = ${s}`,
    `aws_access_key_id = AKIA${rnd(8, 'upperDigits')}`,
  ),
  'aws-secret-access-key': token(
    rnd(40, 'b64'),
    (s) => `aws configure set aws_secret_access_key ${s}`,
    `aws_secret_access_key = ${rnd(20, 'b64')}`,
  ),
  'aws-session-token': token(rnd(120, 'b64'), (s) => `AWS_SESSION_TOKEN=${s}`, `aws_session_token = ${rnd(30, 'b64')}`),
  'gcp-api-key': token(
    `AIza${rnd(35, 'b64url')}`,
    (s) => `curl "https://maps.googleapis.com/maps/api/geocode/json?key=${s}"`,
    `AIza${rnd(10)}`,
  ),
  'gcp-oauth-client-secret': token(`GOCSPX-${rnd(28, 'b64url')}`, (s) => `client_secret=${s}`, 'GOCSPX-abc'),
  'google-oauth-token': token(`ya29.${rnd(80, 'b64url')}`, (s) => `gcloud auth print-access-token # ${s}`, 'ya29.abc'),
  'azure-storage-account-key': token(
    `${rnd(86, 'b64')}==`,
    (s) => `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${s};EndpointSuffix=core.windows.net`,
    'AccountKey=short',
  ),
  'azure-sas-signature': token(
    `${rnd(43, 'b62')}%3D`,
    (s) => `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sig=${s}`,
    'https://acct.blob.core.windows.net/c/b.txt?sig=abc',
  ),
  'azure-ad-client-secret': token(
    `${rnd(3, 'b62')}8Q~${rnd(34, 'b62')}`,
    (s) => `az login --service-principal -u app -p ${s}`,
    'abc8Q~short',
  ),
  'alibaba-access-key-id': token(`LTAI${rnd(20)}`, (s) => `ALIBABA_CLOUD_ACCESS_KEY_ID ${s}`, 'LTAIshort'),
  'digitalocean-token': token(`dop_v1_${rnd(64, 'hex')}`, (s) => `doctl auth init -t ${s}`, 'dop_v1_abc'),
  'heroku-api-key': token(uuid(), (s) => `heroku_api_key: ${s}`, 'heroku_app_name: my-app'),
  'cloudflare-token': token(`cfat_${rnd(40)}${rnd(8, 'hex')}`, (s) => `wrangler secret put X ${s}`, 'cfat_short'),
  'vercel-token': token(`vcp_${rnd(40)}`, (s) => `vercel deploy --token ${s}`, 'vcp_abc'),
  'netlify-token': token(`nfp_${rnd(40)}`, (s) => `netlify deploy --auth ${s}`, 'nfp_abc'),
  'flyio-token': token(`fo1_${rnd(43, 'b64url')}`, (s) => `fly deploy -t ${s}`, 'fo1_abc'),
  'supabase-token': token(`sbp_${rnd(40, 'hex')}`, (s) => `supabase login ${s}`, 'sbp_abc'),
  'planetscale-token': token(`pscale_tkn_${rnd(43, 'b64url')}`, (s) => `pscale auth ${s}`, 'pscale_tkn_abc'),
  'terraform-cloud-token': token(
    `${rnd(14)}.atlasv1.${rnd(67, 'b64url')}`,
    (s) => `credentials "app.terraform.io" { t = "${s}" }`,
    'abc.atlasv1.def',
  ),
  'pulumi-token': token(`pul-${rnd(40, 'hex')}`, (s) => `pulumi login ${s}`, 'pul-abc'),
  'doppler-token': token(`dp.pt.${rnd(43)}`, (s) => `doppler configure set token ${s}`, 'dp.pt.abc'),
  'vault-token': token(`hvs.${rnd(90, 'b64url')}`, (s) => `vault login ${s}`, 'hvs.abc'),
  'onepassword-token': token(`ops_eyJ${rnd(200, 'b64url')}`, (s) => `op run --token ${s}`, 'ops_eyJabc'),
  'tailscale-key': token(`tskey-auth-${rnd(12)}-${rnd(30)}`, (s) => `tailscale up --authkey=${s}`, 'tskey-foo'),
  'databricks-token': token(`dapi${rnd(32, 'hex')}`, (s) => `databricks configure --token ${s}`, 'dapi1234'),
  'grafana-token': token(`glsa_${rnd(32)}_${rnd(8, 'hex')}`, (s) => `grafana ${s}`, 'glsa_abc'),
  'newrelic-key': token(`NRAK-${rnd(27, 'upperDigits')}`, (s) => `newrelic ${s}`, 'NRAK-ABC'),
  'datadog-key-header': token(
    rnd(32, 'hex'),
    (s) => `curl -H "DD-API-KEY: ${s}" https://api.datadoghq.com/api/v1/validate`,
    'curl -H "DD-API-KEY: $DD_API_KEY" https://api.datadoghq.com',
  ),
  'dynatrace-token': token(
    `dt0c01.${rnd(24, 'upperDigits')}.${rnd(64, 'upperDigits')}`,
    (s) => `dt ${s}`,
    'dt0c01.ABC',
  ),
  'sentry-dsn': token(
    rnd(32, 'hex'),
    (s) => `SENTRY_DSN https://${s}@o123456.ingest.sentry.io/789`,
    'https://sentry.io/organizations/acme/issues/',
  ),
  'sentry-token': token(`sntryu_${rnd(64, 'hex')}`, (s) => `sentry-cli --auth-token ${s}`, 'sntryu_abc'),
  // version control
  'github-token': token(`ghp_${rnd(36)}`, (s) => `git clone https://github.com/acme/app.git && echo ${s}`, 'ghp_abc'),
  'github-fine-grained-token': token(
    `github_pat_${rnd(22)}_${rnd(59)}`,
    (s) => `gh auth login --with-token <<< ${s}`,
    'github_pat_abc',
  ),
  'gitlab-token': token(`glpat-${rnd(20, 'b64url')}`, (s) => `glab auth login -t ${s}`, 'glpat-abc'),
  'bitbucket-app-password': token(`ATBB${rnd(32)}`, (s) => `bb ${s}`, 'ATBBabc'),
  'atlassian-api-token': token(`ATATT3${rnd(186, 'b64url')}`, (s) => `jira ${s}`, 'ATATT3xFf'),
  // chat
  'slack-token': token(`xoxb-${rnd(12, 'digits')}-${rnd(13, 'digits')}-${rnd(24)}`, (s) => `SLACK ${s}`, 'xoxb-123'),
  'slack-webhook': token(
    `T${rnd(8, 'upperDigits')}/B${rnd(8, 'upperDigits')}/${rnd(24)}`,
    (s) => `curl -X POST https://hooks.slack.com/services/${s}`,
    'see https://hooks.slack.com/ for setup',
  ),
  'discord-webhook': token(
    rnd(68, 'b64url'),
    (s) => `https://discord.com/api/webhooks/${rnd(18, 'digits')}/${s}`,
    'https://discord.com/api/webhooks/',
  ),
  'discord-bot-token': token(
    `M${rnd(25)}.${rnd(6)}.${rnd(38, 'b64url')}`,
    (s) => `discord_token: "${s}"`,
    'discord_token: "short"',
  ), // hookwise:allow
  'telegram-bot-token': token(
    `${rnd(10, 'digits')}:AA${rnd(33, 'b64url')}`,
    (s) => `curl https://api.telegram.org/bot${s}/getMe`,
    '12345:AAshort',
  ),
  'teams-webhook': token(
    `${uuid()}@${uuid()}/IncomingWebhook/${rnd(32, 'hex')}/${uuid()}`,
    (s) => `https://acme.webhook.office.com/webhookb2/${s}`,
    'https://acme.webhook.office.com/',
  ),
  // payment
  'stripe-key': token(`sk_live_${rnd(24)}`, (s) => `stripe --api-key ${s}`, 'pk_live_abc'),
  'square-token': token(`sq0atp-${rnd(22, 'b64url')}`, (s) => `square ${s}`, 'sq0atp-abc'),
  'meta-access-token': token(`EAA${rnd(100)}`, (s) => `graph ${s}`, 'EAAshort'),
  'paypal-braintree-token': token(
    `access_token$production$${rnd(16, 'lowerDigits')}$${rnd(32, 'hex')}`,
    (s) => `BT ${s}`,
    'access_token$production$abc',
  ),
  'twitter-bearer-token': token(`AAAAAAAAAAAAAAAAAAAAA${rnd(80)}`, (s) => `twurl ${s}`, 'AAAAAAAAAAAAAAAAAAAAAshort'),
  'shopify-token': token(`shpat_${rnd(32, 'hex')}`, (s) => `shopify ${s}`, 'shpat_abc'),
  // AI APIs
  'anthropic-key': token(`sk-ant-api03-${rnd(93, 'b64url')}AA`, (s) => `claude ${s}`, 'sk-ant-api03-short'),
  'openai-key': token(`sk-proj-${rnd(48, 'b64url')}`, (s) => `openai ${s}`, 'sk-proj-abc'),
  'sk-api-key': token(`sk-${rnd(32)}`, (s) => `deepseek ${s}`, 'run the task-runner-for-everything-in-this-repo now'),
  'groq-key': token(`gsk_${rnd(52)}`, (s) => `groq ${s}`, 'gsk_abc123'),
  'huggingface-token': token(`hf_${rnd(34, 'letters')}`, (s) => `huggingface-cli login --token ${s}`, 'hf_abc'),
  'replicate-token': token(`r8_${rnd(37)}`, (s) => `replicate ${s}`, 'r8_abc'),
  'perplexity-key': token(`pplx-${rnd(48)}`, (s) => `pplx ${s}`, 'pplx-abc'),
  'xai-key': token(`xai-${rnd(80)}`, (s) => `grok ${s}`, 'xai-abc'),
  'langsmith-key': token(`lsv2_pt_${rnd(32, 'hex')}_${rnd(10, 'hex')}`, (s) => `langsmith ${s}`, 'lsv2_pt_abc'),
  'pinecone-key': token(`pcsk_${rnd(60)}`, (s) => `pinecone ${s}`, 'pcsk_abc'),
  'cerebras-together-fireworks-key': token(`csk-${rnd(48, 'lowerDigits')}`, (s) => `cerebras ${s}`, 'csk-abc'),
  'ai-provider-key-assignment': token(rnd(40), (s) => `cohere_api_key = "${s}"`, 'cohere_model = "command-r"'),
  // package registries
  'npm-token': token(`npm_${rnd(36)}`, (s) => `npm config set //registry.npmjs.org/:x ${s}`, 'npm_abc'),
  'npmrc-auth': token(
    uuid(),
    (s) => `//registry.npmjs.org/:_authToken=${s}`,
    '//registry.npmjs.org/:_authToken=${NPM_TOKEN}',
  ),
  'pypi-token': token(`pypi-AgEIcHlwaS5vcmc${rnd(60, 'b64url')}`, (s) => `twine upload -p ${s} dist/*`, 'pypi-AgEIabc'), // hookwise:allow
  'rubygems-key': token(`rubygems_${rnd(48, 'hex')}`, (s) => `gem push ${s}`, 'rubygems_abc'),
  'nuget-key': token(`oy2${rnd(43, 'lowerDigits')}`, (s) => `dotnet nuget push -k ${s}`, 'oy2abc'),
  'docker-hub-token': token(
    `dckr_pat_${rnd(27, 'b64url')}`,
    (s) => `echo ${s} | docker login -u me --password-stdin`,
    'dckr_pat_abc',
  ),
  'crates-io-token': token(`cio${rnd(32)}`, (s) => `cargo login ${s}`, 'the precious ciotta'),
  'jfrog-token': token(`AKCp${rnd(69)}`, (s) => `jf ${s}`, 'AKCpabc'),
  'clojars-token': token(`CLOJARS_${rnd(60, 'lowerDigits')}`, (s) => `lein ${s}`, 'CLOJARS_abc'),
  // SaaS and developer tools
  'sendgrid-key': token(`SG.${rnd(22, 'b64url')}.${rnd(43, 'b64url')}`, (s) => `sendgrid ${s}`, 'SG.abc.def'),
  'mailgun-key': token(`key-${rnd(32, 'hex')}`, (s) => `mailgun ${s}`, 'key-abc'),
  'twilio-api-key': token(`SK${rnd(32, 'hex')}`, (s) => `twilio ${s}`, 'SKIP_TESTS=1 npm test'),
  'resend-key': token(`re_${rnd(8)}_${rnd(24)}`, (s) => `resend ${s}`, 'are_you_sure'),
  'postman-key': token(`PMAK-${rnd(24, 'hex')}-${rnd(34, 'hex')}`, (s) => `postman ${s}`, 'PMAK-abc'),
  'mapbox-secret-token': token(`sk.eyJ${rnd(60, 'b64url')}.${rnd(22, 'b64url')}`, (s) => `mapbox ${s}`, 'sk.eyJabc'),
  'contentful-token': token(`CFPAT-${rnd(43, 'b64url')}`, (s) => `contentful ${s}`, 'CFPAT-abc'),
  'sonar-token': token(`sqp_${rnd(40, 'hex')}`, (s) => `sonar-scanner -Dsonar.login=${s}`, 'sqp_abc'),
  'figma-token': token(`figd_${rnd(40, 'b64url')}`, (s) => `figma ${s}`, 'figd_abc'),
  'linear-key': token(`lin_api_${rnd(40)}`, (s) => `linear ${s}`, 'lin_api_abc'),
  'notion-token': token(`ntn_${rnd(11, 'digits')}${rnd(35)}`, (s) => `notion ${s}`, 'ntn_abc'),
  'airtable-token': token(`pat${rnd(14)}.${rnd(64, 'hex')}`, (s) => `airtable ${s}`, 'cat path/to/patterns.txt'),
  'shopify-token-2': token(`shpss_${rnd(32, 'hex')}`, (s) => `shopify ${s}`, 'shpssSSSSS_SSSS_sssss'),
  // keys and tokens in standard formats
  'private-key': {
    text: `cat > id_rsa <<'EOF'\n${pem}\nEOF`,
    secret: pemBody,
    nearMiss: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----',
  }, // hookwise:allow
  'gcp-service-account-key-id': token(
    rnd(40, 'hex'),
    (s) => `{"type": "service_account", "private_key_id": "${s}"}`,
    '{"private_key_id": "DUMMY"}',
  ),
  'putty-private-key': {
    text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n${puttyBody}\nPrivate-MAC: 00`,
    secret: puttyBody,
    nearMiss: 'Private-Lines: none',
  }, // hookwise:allow
  'age-secret-key': token(
    `AGE-SECRET-KEY-1${rnd(58, 'bech32')}`,
    (s) => `age -d -i <(echo ${s}) f.age`,
    'AGE-SECRET-KEY-1ABC',
  ),
  jwt: token(
    jwt({ sub: 'u1', iat: 1700000000 }),
    (s) => `curl -H "X-Session: ${s}" https://api.example.com`,
    'eyJhbGciOiJIUzI1NiJ9',
  ), // hookwise:allow
  // credentials in URLs, headers, commands and assignments
  'url-credentials': token(
    dbPassword,
    (s) => `psql postgres://app:${s}@db.internal:5432/app`,
    'psql postgres://app:$DB_PASSWORD@db.internal:5432/app',
  ),
  'url-credentials-quoted': token(
    `${dbPassword.slice(0, 6)}# ${dbPassword.slice(6)}!`,
    (s) => `psql 'postgres://admin:${s}@db.internal:5432/app'`,
    "echo 'see https://docs.example.com/x?a=b mail me@example.com'",
  ),
  'authorization-header': token(
    basic,
    (s) => `curl -H "Authorization: Basic ${s}" https://example.com`,
    'curl -H "Authorization: Bearer $TOKEN" https://example.com',
  ), // hookwise:allow
  'bearer-token': token(
    rnd(30),
    (s) => `the response said Bearer ${s} and more`,
    'the response said Bearer $API_TOKEN',
  ),
  'curl-user-password': token(
    rnd(16),
    (s) => `curl -u deploy:${s} https://example.com/upload`,
    'docker run -u 1000:1000 node:20',
  ),
  'db-cli-password': token(rnd(12), (s) => `mysql -uroot -p${s} app < dump.sql`, 'mysql -uroot -p app < dump.sql'),
  'login-password-flag': token(
    rnd(20),
    (s) => `docker login -u ci -p ${s} registry.example.com`,
    'docker login -u ci --password-stdin registry.example.com',
  ),
  'openssl-pass-arg': token(
    rnd(12),
    (s) => `openssl rsa -in k.pem -passin pass:${s} -out k.der`,
    'openssl rsa -in k.pem -passin env:KEY_PASS',
  ),
  'ssh-keygen-passphrase': token(
    rnd(16),
    (s) => `ssh-keygen -t ed25519 -N '${s}' -f ~/.ssh/deploy`,
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/deploy",
  ),
  'htpasswd-password': token(rnd(12), (s) => `htpasswd -b -c .htpasswd admin ${s}`, 'htpasswd -c .htpasswd admin'),
  'htpasswd-password-2': token(
    rnd(12),
    (s) => `docker run --rm --entrypoint htpasswd httpd:2 -Bbn registry ${s} > auth/htpasswd`,
    'htpasswd -n registry > auth/htpasswd',
  ),
  'keytool-password': token(
    rnd(14),
    (s) => `keytool -importkeystore -srckeystore a.p12 -destkeystore app.jks -deststorepass ${s}`,
    'keytool -list -keystore app.jks -storepass:env STORE_PASS',
  ),
  'archive-password': token(
    rnd(12),
    (s) => `zip -r -P ${s} export.zip reports/`,
    'zip -r export.zip reports/ -x "*.log"',
  ),
  'archive-password-2': token(rnd(12), (s) => `7z a -p${s} backup.7z data/`, '7z a -p backup.7z data/'),
  'httpie-auth': token(
    rnd(16),
    (s) => `http -a admin:${s} GET https://api.example.com/health`,
    'rsync -a build/ host:/srv/app/',
  ),
  'redis-auth-command': token(
    rnd(18),
    (s) => `redis-cli -h cache.internal AUTH default ${s}`,
    'redis-cli -h cache.internal PING',
  ),
  'pgpass-line': token(
    rnd(14),
    (s) => `echo "db.internal:5432:app:app_user:${s}" >> ~/.pgpass`,
    'echo "12:30:00:start:ok" >> run.log',
  ),
  'poetry-credentials': token(
    rnd(16),
    (s) => `poetry config http-basic.internal ci ${s}`,
    'poetry config virtualenvs.in-project true',
  ),
  'poetry-credentials-2': token(
    `pypi-${rnd(60, 'b64url')}`,
    (s) => `poetry config pypi-token.pypi ${s}`,
    'poetry config repositories.internal https://pkgs.example.com/simple',
  ),
  'xml-named-secret-value': token(
    rnd(20),
    (s) => `<property name="hibernate.connection.password">${s}</property>`,
    '<property name="hibernate.connection.username">app</property>',
  ),
  'capitalized-password-option': token(
    rnd(12),
    (s) =>
      `nuget sources add -Name internal -Source https://nuget.example.com/v3/index.json -Username ci -Password ${s}`,
    'Get-Credential -Password $Secure',
  ),
  'basic-auth-api-user': token(
    `${rnd(32, 'hex')}-${rnd(8, 'hex')}-${rnd(8, 'hex')}`,
    (s) => `requests.post(url, auth=("api", "${s}"), data=payload)`,
    'requests.post(url, auth=("api", "$MAILGUN_KEY"))',
  ),
  'go-mysql-dsn': token(
    rnd(16),
    (s) => `dsn := "inventory:${s}@tcp(10.0.3.14:3306)/inventory?parseTime=true"`,
    'dsn := "inventory@tcp(10.0.3.14:3306)/inventory"',
  ),
  'netrc-password': token(
    rnd(20),
    (s) => `machine api.example.com login bot password ${s}`,
    'machine api.example.com login bot',
  ),
  'secret-cli-flag': token(
    rnd(24),
    (s) => `tool deploy --api-key ${s} --region eu`,
    'tool deploy --api-key-file ./key.txt --region eu',
  ),
  'secret-env-var': token(
    rnd(20),
    (s) => `export STRIPE_WEBHOOK_SECRET=${s} && npm start`,
    'export SECRET_NAME=prod-db && npm start',
  ),
  'secret-assignment': token(
    rnd(16),
    (s) => `{"db_password": "${s}", "user": "app"}`,
    '{"password_hash_algo": "argon2", "max_tokens": 1024}',
  ),
  // structure: Kubernetes, XML, cookies, name/value environments
  'kubernetes-secret': token(
    b64(humanPassword()),
    (s) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  dbhost: ${s}\n`,
    'apiVersion: v1\nkind: ConfigMap\ndata:\n  dbhost: ZGItMQ==\n',
  ),
  'kubectl-secret-literal': token(
    humanPassword(),
    (s) => `kubectl create secret generic db --from-literal=dbhost=${s}`,
    'kubectl create configmap db --from-literal=dbhost=db-1',
  ), // hookwise:allow
  'xml-secret-element': token(
    humanPassword(),
    (s) => `<server><id>nexus</id><username>ci</username><password>${s}</password></server>`,
    '<server><id>nexus</id><password>${env.NEXUS_PASSWORD}</password></server>',
  ),
  'xml-key-value-secret': token(
    humanPassword(),
    (s) => `<add key="ClearTextPassword" value="${s}" />`,
    '<add key="Username" value="ci-bot" />',
  ),
  'cookie-header': token(
    rnd(24),
    (s) => `curl -H 'Cookie: theme=dark; sessionid=${s}' https://example.com/`,
    'the Cookie header carries the session',
  ), // hookwise:allow
  'curl-cookie-arg': token(
    rnd(24),
    (s) => `curl -b 'sessionid=${s}' https://example.com/`,
    'curl -b cookies.txt https://example.com/',
  ),
  'secret-env-name-value': token(
    humanPassword(),
    (s) => `env:\n  - name: DB_PASSWORD\n    value: ${s}\n`,
    'env:\n  - name: LOG_LEVEL\n    value: debug\n',
  ),
  'env-setter-command': token(humanPassword(), (s) => `setx STRIPE_API_KEY ${s}`, 'setx PATH C:\\tools'),
  'gh-secret-set': token(
    humanPassword(),
    (s) => `gh secret set DEPLOY_KEY --body ${s}`,
    'gh secret set DEPLOY_KEY < key.txt',
  ),
  'env-setter-code': token(
    humanPassword(),
    (s) => `os.environ["MY_API_KEY"] = "${s}"`,
    'os.environ["HOME"] = "/tmp/home"',
  ),
  'vendor-named-secret': token(uuid(), (s) => `SNYK_TOKEN ?= ${s}`, 'SNYK_ORG ?= acme-platform'),
  'vendor-named-secret-2': token(
    rnd(40, 'hex'),
    (s) => `sonar:\n  host: https://sonar.example.com\n  login: ${s}\n`,
    'mvn sonar:sonar -Dsonar.login=admin -Dsonar.projectKey=acme-web',
  ),
  'sumologic-access-id': token(`su${rnd(12)}`, (s) => `SUMOLOGIC_ACCESSID=${s}`, 'aws_access_id: subnet-0a1b2c3d'),
  'sourcegraph-token': token(
    `sgp_${rnd(16, 'hex')}_${rnd(40, 'hex')}`,
    (s) => `src login https://sg.example.com ${s}`,
    'sgp_ is the prefix of Sourcegraph access tokens',
  ),
  'curl-combined-user-password': token(
    `${rnd(8)}~${rnd(4)}!`,
    (s) => `curl -fsSLu 'deploy:${s}' https://example.com/files`,
    'curl -fsSLo out.tgz https://example.com/files:latest',
  ),
  'authorization-header-params': token(
    rnd(64, 'hex'),
    (s) => `Authorization: AWS4-HMAC-SHA256 Credential=x/20240501/us-east-1/s3/aws4_request, Signature=${s}`,
    'Authorization: Bearer $TOKEN',
  ),
  // providers found by format or by name
  'github-token-checksum': token(
    checksummedToken('ghp_'),
    (s) => `export MY_TOKEN_${s}`,
    `export MY_TOKEN_${checksummedToken('ghp_', { valid: false })}`,
  ),
  'hubspot-token': token(
    `pat-na1-${uuid()}`,
    (s) => `curl -H "X: ${s}" https://api.hubapi.com/crm/v3/objects/contacts`,
    'pat-na1-short',
  ),
  'salesforce-access-token': token(
    `${rnd(96, 'b62')}`,
    (s) => `sf org login access-token --instance-url https://acme.my.salesforce.com 00D${rnd(12)}!${s}`,
    'the org id is 00D5e000000ABCD',
  ),
  'twilio-credential-pair': token(
    rnd(32, 'hex'),
    (s) => `client = Client("AC${rnd(32, 'hex')}", "${s}")`,
    `client = Client("AC${rnd(32, 'hex')}", auth_token)`,
  ),
  'mailchimp-api-key': token(
    `${rnd(32, 'hex')}-us21`,
    (s) => `mailchimp.setConfig({ server: 'us21', apiKey: '${s}' })`,
    'curl -H "Accept-Language: en-us" https://example.com',
  ),
  'codecov-token-arg': token(uuid(), (s) => `./codecov do-upload -t ${s}`, './codecov do-upload -t ${CODECOV_TOKEN}'),
  'snyk-token-arg': token(uuid(), (s) => `snyk auth ${s}`, 'snyk auth --auth-type=oauth'),
  'sonar-login-token': token(
    rnd(40, 'hex'),
    (s) => `mvn sonar:sonar -Dsonar.login=${s}`,
    'mvn sonar:sonar -Dsonar.login=admin',
  ),
  'deepsource-dsn': token(
    rnd(32, 'hex'),
    (s) => `deepsource report --dsn https://${s}@app.deepsource.com`,
    'see https://app.deepsource.com/gh/acme',
  ),
  'aws-bedrock-api-key': token(
    `ABSK${b64(`BedrockAPIKey-${rnd(4, 'lowerDigits')}-at-${rnd(12, 'digits')}:${rnd(40, 'b64')}`)}`,
    (s) => `export AWS_BEARER_TOKEN_BEDROCK=${s}`,
    'ABSKshort',
  ),
  'azure-openai-key': token(
    rnd(32, 'hex'),
    (s) => `azure_openai_key: ${s}`,
    'azure_openai_endpoint: https://acme.openai.azure.com/',
  ),
  'bundler-credentials': token(
    `${rnd(8, 'hex')}:${rnd(8, 'hex')}`,
    (s) => `BUNDLE_ENTERPRISE__CONTRIBSYS__COM=${s} bundle install`,
    'BUNDLE_BUILD__NOKOGIRI=--use-system-libraries bundle install',
  ),
};

/** Table ids that name a second case for the same pattern (`shopify-token-2`). */
const patternOf = (caseId: string): string => caseId.replace(/-\d+$/, '');

describe('the pattern table', () => {
  it('has unique ids, ASCII keywords, a family from the closed set, and sources that compile in RE2', () => {
    const ids = PATTERNS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of PATTERNS) {
      expect(FAMILIES).toContain(p.family);
      expect(p.keywords.length, p.id).toBeGreaterThan(0);
      for (const k of p.keywords) expect(/^[\x20-\x7e]+$/.test(k), `${p.id}: ${k}`).toBe(true);
      expect(() => compiledPattern(PATTERNS.indexOf(p)), p.id).not.toThrow();
    }
  });

  it('names, for every pattern, a unique id and an https page documenting its format', () => {
    const ids = PATTERNS.map((p) => p.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const bad = PATTERNS.filter((p) => {
      if (typeof p.reference !== 'string') return true;
      try {
        const url = new URL(p.reference);
        return url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '';
      } catch {
        return true;
      }
    });
    expect(bad.map((p) => `${p.id}: ${String(p.reference)}`)).toEqual([]);
  });

  it('covers the families the issue asks for with at least 90 patterns', () => {
    expect(PATTERNS.length).toBeGreaterThanOrEqual(90);
    const families = new Set(PATTERNS.map((p) => p.family));
    expect([...families].sort()).toEqual([...FAMILIES].sort());
  });

  it('has a test case for every pattern', () => {
    const covered = new Set(Object.keys(CASES).map(patternOf));
    expect(PATTERNS.map((p) => p.id).filter((id) => !covered.has(id))).toEqual([]);
  });

  it('indexes every keyword of every pattern in the automaton', () => {
    const index = keywordIndex();
    expect(index.automaton.keywordCount).toBeGreaterThan(200);
    expect(index.refs.length).toBeGreaterThanOrEqual(PATTERNS.reduce((n, p) => n + p.keywords.length, 0) - 10);
  });
});

describe.each(Object.entries(CASES))('%s', (caseId, c) => {
  const id = patternOf(caseId);

  it('redacts its true positive (the value is gone, the rule is named)', () => {
    const { text, findings } = sanitize(c.text);
    expect(findings.map((f) => f.rule)).toContain(id);
    expect(text).not.toContain(c.secret);
    expect(text).toContain('<REDACTED>');
  });

  it('does not fire on its near miss', () => {
    expect(findSecrets(c.nearMiss).map((f) => f.rule)).not.toContain(id);
  });

  it('the true positive contains one of its keywords (the pre-filter invariant)', () => {
    const spec = PATTERNS.find((p) => p.id === id)!;
    const hay = spec.ignoreCase ? c.text.toLowerCase() : c.text;
    expect(spec.keywords.some((k) => hay.includes(spec.ignoreCase ? k.toLowerCase() : k))).toBe(true);
  });
});

describe('encoded variants of true positives are redacted by the encoding layer', () => {
  const samples = [
    'github-token',
    'stripe-key',
    'url-credentials',
    'secret-env-var',
    'anthropic-key',
    'slack-token',
  ] as const;
  const encodings: [string, (s: string) => string, string][] = [
    ['base64', b64, 'base64>'],
    ['base64url', b64url, 'base64'],
    ['hex', hexOf, 'hex>'],
    ['percent-encoding', percentAll, 'url>'],
    ['\\u escapes', unicodeEscaped, 'unicode-escape>'],
  ];
  it.each(samples.flatMap((id) => encodings.map(([name, encode, rule]) => [id, name, encode, rule] as const)))(
    '%s as %s',
    (id, _name, encode, rule) => {
      const c = CASES[id]!;
      const encoded = encode(c.text);
      const { text, findings } = sanitize(`echo ${encoded} | decode`);
      expect(text).not.toContain(encoded);
      expect(findings.some((f) => f.layer === 'encoding' && f.rule.startsWith(rule))).toBe(true);
    },
  );
});

describe('long texts: patterns run on windows around their keyword hits', () => {
  it('finds the same as a whole-text run, secrets at the start, middle, end and side by side', () => {
    const filler = (n: number): string =>
      Array.from(
        { length: n },
        (_, i) => `const value${i} = computeSomething(input${i}); // ordinary code line\n`,
      ).join('');
    const secrets = [
      `ghp_${rnd(36)}`,
      `sk_live_${rnd(24)}`,
      `xoxb-${rnd(12, 'digits')}-${rnd(13, 'digits')}-${rnd(24)}`,
    ];
    const text = `${secrets[0]} first\n${filler(800)}password = "${rnd(16)}"\nAPI_TOKEN=${rnd(20)} ${secrets[1]}\n${filler(800)}psql postgres://u:${rnd(12)}@db/x\n${secrets[2]}`;
    expect(text.length).toBeGreaterThan(100_000);
    const scan = scanKeywords(text);
    expect(scan.hits.length).toBeGreaterThan(0);
    const windowed: Finding[] = [];
    const whole: Finding[] = [];
    runPatterns(text, scan.patterns, windowed, scan.hits);
    runPatterns(text, scan.patterns, whole);
    const key = (f: Finding): string => `${f.rule}@${f.start}-${f.end}`;
    expect(windowed.map(key).sort()).toEqual(whole.map(key).sort());
    expect(whole.length).toBeGreaterThanOrEqual(7);
    const out = sanitize(text).text;
    for (const s of secrets) expect(out).not.toContain(s);
  });
});

describe('passwords in URLs, written as people write them', () => {
  it.each([
    ['a # or ? in the password', 'psql postgres://admin:Pa#ss?w0rd@db.internal:5432/app', 'Pa#ss?w0rd'],
    ['an empty user', 'redis-cli -u redis://:Redis-Pass-42@cache:6379/0', 'Redis-Pass-42'],
    [
      'a quoted URL whose password holds blanks and punctuation',
      `psql "postgres://admin:my p#ss w0rd!@db.internal/app"`,
      'my p#ss w0rd!',
    ],
    ['an @ in the password (the last @ before the host ends it)', 'mongosh mongodb://bob:p@ss@localhost:27017', 'p@ss'],
  ])('%s: redacted', (_what, text, password) => {
    const out = sanitize(text).text;
    expect(out).not.toContain(password);
    expect(out).toContain('<REDACTED>@');
  });

  it.each([
    ['a port and an @ in the path', 'npm view https://registry.npmjs.org:443/@types/node'],
    ['a query and an address in prose', "echo 'see https://docs.example.com/x?a=b or mail me@example.com'"],
    ['a placeholder', 'psql postgres://app:$DB_PASSWORD@db.internal:5432/app'],
  ])('%s: left alone', (_what, text) => {
    expect(sanitize(text).text).toBe(text);
  });
});

/** Redacted: the secret is gone and something was redacted. Kept: nothing was. */
function expectRedacted(text: string, secret: string): void {
  const out = sanitize(text).text;
  expect(out, text).not.toContain(secret);
  expect(out, text).toContain('<REDACTED>');
}
const expectKept = (text: string): void => expect(sanitize(text).text, text).toBe(text);

describe('userinfo in URLs of any scheme, also with hex-looking parts, ports, paths and query strings', () => {
  const pw = `${rnd(6)}${rnd(4, 'digits')}`;
  it.each([
    `curl https://${rnd(8, 'hex')}:${pw}@api.example.com:8443/v1/items?limit=10&sort=desc`,
    `wget "http://backup:${pw}@10.0.7.12:8080/dumps/latest.tgz"`,
    `DATABASE_URL=postgres://app:${pw}@db.internal:5432/app?sslmode=require`,
    `mysql://root:${pw}@127.0.0.1:3306/shop`,
    `REDIS_URL=rediss://default:${pw}@cache.internal:6380/0`,
    `amqp://billing:${pw}@mq.internal:5672/%2Fbilling`,
    `mongodb+srv://svc:${pw}@cluster0.ab12c.mongodb.net/prod?retryWrites=true`,
    `lftp ftp://uploader:${pw}@ftp.example.com:21/incoming/`,
  ])('%s', (text) => expectRedacted(text, pw));
  it.each([
    'git clone ssh://git@git.example.com:2222/acme/api.git',
    'DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db/app',
  ])('kept: %s', expectKept);
});

describe('user:password arguments of curl and wget, however quoted', () => {
  const pw = `${rnd(5)}~${rnd(3, 'digits')}!${rnd(4)}`;
  it.each([
    `curl --user '${'deploy'}:${pw}' https://example.com`,
    `curl -u "ci:${pw}" https://example.com`,
    `curl --user=deploy:${pw} https://example.com`,
    `curl -u 'svc:/${pw}' https://example.com`,
    `curl -u ci:'${pw}' https://example.com`,
    `curl -u "$CI_USER":'${pw}' https://example.com`,
    `curl -su 'svc:${pw}' https://example.com`,
    `curl -fsSLu ci:${pw} https://example.com`,
    `wget --password='${pw}' https://example.com/f`,
    `wget --http-password="${pw}" --http-user=ops https://example.com/f`,
    `wget --ftp-password ${pw} ftp://example.com/pub/`,
  ])('%s', (text) => expectRedacted(text, pw));
  it('reads the quotes of a command JSON-encoded into a tool input or a log (\\"user:password\\")', () => {
    expectRedacted(JSON.stringify({ command: `curl -fsS --user "release:${pw}" https://example.com` }), pw);
    expectRedacted(JSON.stringify({ command: `curl --user="jenkins:${pw}" -X POST https://example.com` }), pw);
  });
  it('redacts a quoted password that holds blanks whole', () => {
    const spaced = `${rnd(5)} ${rnd(5)} ${rnd(3, 'digits')}`;
    expectRedacted(`curl --user "backup:${spaced}" https://dav.example.com/`, spaced.split(' ')[1]!);
  });
  it.each([
    'curl -u "$JIRA_USER:$JIRA_TOKEN" https://example.atlassian.net/rest/api/3/myself',
    'docker run -u 1000:1000 node:20',
    'date -u +%H:%M',
    'curl -fsSLo out.tgz https://example.com/a',
  ])('kept: %s', expectKept);
});

describe('Authorization headers of any scheme, in curl lines and raw HTTP', () => {
  const t = rnd(40);
  it.each([
    `curl --header 'Authorization: Basic ${t}' https://example.com`,
    `curl -H "Authorization: Token ${t}" https://example.com`,
    `curl -H 'authorization:Bearer ${t}' https://example.com`,
    `curl --header="Authorization: token ${t}" https://example.com`,
    `curl -H "Authorization: SSWS ${t}" https://example.okta.com/api/v1/users`,
    `curl -H "Authorization: Token token=${t}" https://example.com`,
    `curl -H "Authorization: Digest username=\\"ops\\", response=\\"${t}\\"" https://example.com`,
    `GET /me HTTP/1.1\nHost: example.com\nAuthorization: OAuth ${t}\n`,
    `> authorization: Bearer ${t}\n> accept: */*`,
  ])('%s', (text) => expectRedacted(text, t));
  it.each([
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
    "curl --header 'Authorization: Basic ${CREDS}' https://example.com",
    'Authorization: the administrator grants it',
  ])('kept: %s', expectKept);
});

describe('values assigned to secret-named variables in make, shell, env, YAML, JSON and TOML syntax', () => {
  const v = uuid();
  const sonar = rnd(40, 'hex');
  it.each([
    [`SNYK_TOKEN ?= ${v}`, v],
    [`SONAR_LOGIN := ${sonar}`, sonar],
    [`export SONAR_LOGIN=${sonar}`, sonar],
    [`sonarLogin: "${sonar}"`, sonar],
    [`HUBSPOT_API_KEY ::= ${v}`, v],
    [`export HUBSPOT_PRIVATE_KEY :::= ${v}`, v],
    [`DEPLOY_TOKEN += ${v}`, v],
    [`DB_PASSWORD ?= ${v}`, v],
    [`override SNYK_AUTH_TOKEN = ${v}`, v],
    [`snyk_token: ${v}`, v],
    [`{"snykToken": "${v}"}`, v],
    [`[crm]\nhubspot_api_key = "${v}"`, v],
    [`env:\n  HUBSPOT_DEV_KEY: ${v}`, v],
  ])('%s', (text, secret) => expectRedacted(text, secret));
  it.each([
    'SNYK_TOKEN ?= $(shell cat ~/.config/snyk/token)',
    'SONAR_LOGIN := ${SONAR_TOKEN}',
    'SONAR_HOST_URL ?= https://sonar.example.com',
    'mvn sonar:sonar -Dsonar.login=admin -Dsonar.projectKey=acme-web',
    'token += chunk',
    'if (token != previous) refresh();',
  ])('kept: %s', expectKept);
});

describe('XML configuration values: key or name and value attributes in any order and element', () => {
  const pw = `${rnd(4)}%${rnd(3)}%${rnd(2, 'digits')}`;
  it.each([
    `<add key="ClearTextPassword" value="${pw}" />`,
    `<add value="${pw}" key="ClearTextPassword"/>`,
    `<add key='ClearTextPassword' value='${pw}' />`,
    `<add key="ClearTextPassword"\n     value="${pw}" />`,
    `<setting name="PaymentApiKey" value="${pw}" />`,
    `<property name="db.password" value="${pw}"/>`,
    `<param value="${pw}" name="apiToken" />`,
  ])('%s', (text) => expectRedacted(text, pw));
  it('reads the escaped quotes of a config file JSON-encoded into a Write input', () => {
    const content = `<packageSourceCredentials>\n  <acme>\n    <add key="ClearTextPassword" value="${pw}" />\n  </acme>\n</packageSourceCredentials>\n`;
    expectRedacted(JSON.stringify({ file_path: 'NuGet.Config', content }), pw);
  });
  it('a password enclosed in percent signs is not a %NAME% reference', () => {
    const inner = `${rnd(4)}!${rnd(2, 'digits')}`;
    expectRedacted(`<add key="ClearTextPassword" value="%${inner}%" />`, inner);
  });
  it.each([
    '<add key="ClearTextPassword" value="%NUGET_FEED_PASSWORD%" />',
    '<add key="ClearTextPassword" value="$(FeedPassword)" />',
    '<setting name="LogLevel" value="Information" />',
    'const next = { value = compute() };',
  ])('kept: %s', expectKept);
});

describe('Sourcegraph tokens and Sumo Logic access ids', () => {
  it.each([
    `sgp_${rnd(40, 'hex')}`,
    `sgp_${rnd(16, 'hex')}_${rnd(40, 'hex')}`,
    `sgp_local_${rnd(40, 'hex')}`,
    `sgs_${rnd(64, 'hex')}`,
  ])('%s in prose', (t) => expectRedacted(`the CI log printed ${t} before the step failed`, t));
  it.each(['SUMOLOGIC_ACCESSID=', 'sumo_access_id: ', '"sumologicAccessId": "', 'access_id = "'])(
    'an access id after %s',
    (prefix) => {
      const id = `su${rnd(12)}`;
      expectRedacted(`${prefix}${id}`, id);
    },
  );
  it.each(['access_id = "subnet-0a1b2c3d"', 'accessId: summary'])('kept: %s', expectKept);
});
