import * as assert from 'node:assert/strict';
import { describeRedaction, findSecrets, redact, RedactPatternError, redactRollout, redactTexts } from '../../../src/core/export/redact';
import { makeStep } from '../../../src/core/model';

// Real-shaped secrets of each kind (made up here: none is a live credential).
const PRIVATE_KEY = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAwJw6V8hUo9d3gM3rQXcS1f4XbO6kFt2jX1xGJ8QmC9V0bLp', 'dGhpcyBpcyBub3QgYSByZWFsIGtleSBidXQgaXQgbG9va3MgbGlrZSBvbmU=', '-----END RSA PRIVATE KEY-----'].join('\n');
const CASES: { what: string; text: string; secret: string; kind: RegExp }[] = [
  { what: 'AWS access key id', text: 'export AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2', secret: 'AKIAQYLPMN5HHHFPZAM2', kind: /^aws-access-key-id$/ },
  { what: 'AWS secret access key', text: 'aws_secret_access_key = 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', secret: '1tUm636uS1yOEcfP5pvfqJ/ml36mF7AkyHsEU0IU', kind: /^aws-secret-access-key$/ },
  { what: 'GitHub token', text: 'git clone https://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@github.com/o/r', secret: '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', kind: /github/ },
  { what: 'Slack bot token', text: 'SLACK=xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJabcd', secret: 'xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJabcd', kind: /slack/ },
  { what: 'npm token', text: '//registry.npmjs.org/:_authToken=npm_1234567890abcdefghijABCDEFGHIJ123456', secret: 'npm_1234567890abcdefghijABCDEFGHIJ123456', kind: /npm/ },
  { what: 'OpenAI project key', text: 'client = OpenAI(api_key="sk-proj-Xc9ufk8wPq3nR2LmZ7vTbY5sD1gH4jK6aQ0eW9rT3BlbkFJ8mN2pL5qR7sT1uV3wX6yZ9aB")', secret: 'sk-proj-Xc9ufk8wPq3nR2LmZ7vTbY5sD1gH4jK6aQ0eW9rT3BlbkFJ8mN2pL5qR7sT1uV3wX6yZ9aB', kind: /openai|secret/ },
  { what: 'Anthropic key', text: `ANTHROPIC_API_KEY=sk-ant-api03-${'a1B2c3D4e5'.repeat(9)}AA`, secret: `sk-ant-api03-${'a1B2c3D4e5'.repeat(9)}AA`, kind: /anthropic|secret/ },
  { what: 'Hugging Face token', text: 'huggingface-cli login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', secret: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', kind: /huggingface/ },
  { what: 'GitLab token', text: 'glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn', secret: 'glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn', kind: /gitlab/ },
  { what: 'Google API key', text: 'key=AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe&q=x', secret: 'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe', kind: /gcp|secret/ },
  { what: 'private key', text: `cat id_rsa\n${PRIVATE_KEY}\n$ `, secret: PRIVATE_KEY, kind: /private-key/ },
  { what: 'password in a connection string', text: 'DATABASE_URL=postgres://app:Xy9pZ2wq@db.internal:5432/prod', secret: 'Xy9pZ2wq', kind: /password|basic-auth/ },
  { what: 'password assignment', text: 'mysql -u root --password=correcthorsebattery -e "select 1"', secret: 'correcthorsebattery', kind: /secret/ },
  { what: 'e-mail address', text: 'Author: Jane Doe <jane.doe@example.org>', secret: 'jane.doe@example.org', kind: /^email$/ },
];

describe('export/redact: secrets and personal details', () => {
  for (const c of CASES) {
    it(`redacts a ${c.what} and leaves the rest of the text as it was`, async () => {
      const r = await redact(c.text);
      assert.ok(!r.text.includes(c.secret), `${c.what} still in ${JSON.stringify(r.text)}`);
      assert.ok(r.total >= 1 && r.counts.some((k) => c.kind.test(k.kind)), `${c.what}: kinds ${JSON.stringify(r.counts)}`);
      // Nothing else altered: the text outside the findings is the original's, in order.
      const findings = await findSecrets(c.text);
      let outside = '';
      let at = 0;
      for (const f of findings) {
        outside += c.text.slice(at, f.start);
        at = f.end;
      }
      outside += c.text.slice(at);
      assert.equal(r.text.replace(/\[REDACTED:[a-z0-9-]+\]|<user>/g, ''), outside);
      const before = c.text.slice(0, c.text.indexOf(c.secret.split('\n')[0]));
      assert.ok(r.text.startsWith(before.slice(0, Math.max(0, before.length - 30))), 'the text before the secret is kept');
    });
  }

  it('replaces the user name of home-directory paths, not system accounts, and keeps the paths readable', async () => {
    const r = await redact('cd /home/alice/project && ls /Users/bob/src C:\\Users\\carol\\dir /home/ubuntu/x /root/y /home/runner/work');
    assert.equal(r.text, 'cd /home/<user>/project && ls /Users/<user>/src C:\\Users\\<user>\\dir /home/ubuntu/x /root/y /home/runner/work');
    assert.deepEqual(r.counts, [{ kind: 'home-user', count: 3 }]);
  });

  it('keeps the host of a connection string whose password looks like an e-mail part', async () => {
    const r = await redact('mongodb+srv://admin:Xy9pass@cluster0.mongodb.net/db');
    assert.equal(r.text, 'mongodb+srv://admin:[REDACTED:password]@cluster0.mongodb.net/db');
  });

  it('leaves ordinary rollout text alone: commands, placeholders, hashes, test output', async () => {
    const text = [
      'python -m pytest tests/test_api.py -x -q',
      'export PASSWORD=${DB_PASSWORD}',
      'token = os.environ["GITHUB_TOKEN"]',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b',
      'FAILED tests/test_auth.py::test_password_reset - AssertionError',
      'def check_password(password): return hash(password)',
      'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ].join('\n');
    const r = await redact(text);
    assert.equal(r.text, text, JSON.stringify(r.counts));
    assert.equal(describeRedaction(r), 'nothing redacted');
  });

  it("applies the user's own patterns, and says which pattern is invalid", async () => {
    const r = await redact('internal host corp-db-17.acme.internal and ticket ACME-4411', { patterns: ['corp-[a-z0-9-]+\\.acme\\.internal', 'ACME-\\d+'] });
    assert.equal(r.text, 'internal host [REDACTED:custom] and ticket [REDACTED:custom]');
    assert.equal(describeRedaction(r), '2 redacted: 2 custom');
    await assert.rejects(redact('x', { patterns: ['(unclosed'] }), (e: unknown) => e instanceof RedactPatternError && /\(unclosed/.test(e.message));
  });

  it('e-mail addresses and home names can be kept on request', async () => {
    const text = 'jane@example.org in /home/jane/x';
    assert.equal((await redact(text, { emails: false, homeUsers: false })).text, text);
  });

  it('counts several findings by kind, most frequent first', async () => {
    const r = await redact('a@example.org b@example.org 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');
    assert.equal(r.total, 3);
    assert.deepEqual(r.counts[0], { kind: 'email', count: 2 });
    assert.match(describeRedaction(r), /^3 redacted: 2 email, 1 github/);
  });
});

describe('export/redact: a whole rollout', () => {
  it('redacts every text of a rollout in one pass, never across two texts, and keeps everything else', async () => {
    const rollout = {
      id: 'r-1', format: 'claude-code' as const, schemaVersion: null, source: { path: '/home/alice/.claude/projects/x/s.jsonl', range: null, line: null },
      task: { id: 't', instruction: 'Use key 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' }, agent: { name: 'claude', version: null, model: null },
      environment: { image: null, workdir: null }, outcome: { reward: 1, rewards: null, resolved: true, status: null, source: null }, groupId: null, metadata: { keep: 'me' },
      steps: [
        makeStep(0, 'agent', {
          message: 'mail jane.doe@example.org',
          actions: [{ kind: 'tool', command: null, tool: 'Write', callId: 'c1', arguments: { file_path: '/home/alice/app/.env', content: 'DB_PASSWORD=correcthorsebattery' } }],
          observations: [{ callId: 'c1', output: 'ok', exitCode: 0, truncated: false }],
        }),
      ],
    };
    const r = await redactRollout(rollout);
    assert.equal(r.rollout.task.instruction, 'Use key [REDACTED:github-token]');
    assert.equal(r.rollout.steps[0].message, 'mail [REDACTED:email]');
    assert.deepEqual(r.rollout.steps[0].actions[0].arguments, { file_path: '/home/<user>/app/.env', content: 'DB_PASSWORD=[REDACTED:secret]' });
    assert.equal(r.rollout.source.path, '/home/<user>/.claude/projects/x/s.jsonl');
    assert.equal(r.rollout.steps[0].observations[0].output, 'ok');
    assert.deepEqual(r.rollout.metadata, { keep: 'me' });
    assert.equal(r.rollout.outcome.reward, 1);
    assert.equal(r.total, 5);
    assert.equal(rollout.steps[0].message, 'mail jane.doe@example.org', 'the original is not changed');
    // Two texts that would make one secret only when joined stay apart.
    const apart = await redactTexts(['token=abcd', 'efgh1234']);
    assert.deepEqual(apart.texts, ['token=abcd', 'efgh1234']);
  });
});
