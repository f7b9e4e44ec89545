import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

/**
 * `npm run capture-relay`: a local SMTP relay that accepts everything and keeps it, for trying a
 * live tenant's `smtp` domain with `npm start` (docs/guides/domains.md). STARTTLS on 127.0.0.1:2587
 * (PMAIL_CAPTURE_PORT; not 2525, the port of npm start's MX) with a certificate for `localhost` generated at start and written to
 * `.pmail/capture-relay.pem` — start pmail with `PMAIL_SMTP_CA_FILE=.pmail/capture-relay.pem` so
 * its relay client trusts it. Any AUTH user and password are accepted. Each message is written to
 * `.pmail/captured/{n}.eml`; the console shows only the envelope size and recipient count.
 */
const stateDir = resolve(process.env.PMAIL_STATE_DIR ?? '.pmail');
const port = Number(process.env.PMAIL_CAPTURE_PORT ?? 2587);
const outDir = join(stateDir, 'captured');
mkdirSync(outDir, { recursive: true });

const pems = (await generate([{ name: 'commonName', value: 'localhost' }], {
  keySize: 2048,
  algorithm: 'sha256',
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
} as never)) as { cert: string; private: string };
const caFile = join(stateDir, 'capture-relay.pem');
writeFileSync(caFile, pems.cert);

let n = 0;
const server = new SMTPServer({
  key: pems.private,
  cert: pems.cert,
  logger: false,
  authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
  authOptional: true,
  onAuth(auth, _session, cb) {
    cb(null, { user: auth.username ?? 'relay-user' });
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      n++;
      const file = join(outDir, `${n}.eml`);
      writeFileSync(file, Buffer.concat(chunks));
      console.log(`captured message ${n}: ${session.envelope.rcptTo.length} recipient(s) → ${file}`);
      cb();
    });
  },
});
server.on('error', (err: NodeJS.ErrnoException) => {
  // Listening failed (the port is taken): say so and exit non-zero, rather than end as if done.
  if (err.code === 'EADDRINUSE' || err.code === 'EACCES') {
    console.error(
      `capture relay: cannot listen on 127.0.0.1:${port} (${err.code}); set PMAIL_CAPTURE_PORT to a free port`,
    );
    process.exit(1);
  }
  console.error('capture relay error:', err.message);
});
server.listen(port, '127.0.0.1', () => {
  console.log(`capture relay on 127.0.0.1:${port} (STARTTLS, certificate for localhost in ${caFile})`);
});
