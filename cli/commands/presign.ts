// `cairn presign …`: the presign endpoint (core/presign) run and administered from the CLI.
//   init          writes a new configuration file (bucket, prefix, origins; no secret in it)
//   serve         answers on --listen (or the file's "listen", default 127.0.0.1:8788) until
//                 SIGINT/SIGTERM, then finishes the requests in flight; the bucket's keys come
//                 from CAIRN_S3_ACCESS_KEY_ID / CAIRN_S3_SECRET_ACCESS_KEY (or AWS_*)
//   token add     --name N --role read|append-only|maintenance: prints the token once, stores its hash
//   token list    names, roles and dates (never tokens)
//   token revoke  --name N: refused from the next request on, also by a running server

import fs from 'node:fs';
import { CairnError } from '../../core/errors';
import {
  newToken,
  parsePresignConfig,
  presignHandler,
  ROLES,
  s3SignerFromConfig,
  tokenHash,
  DEFAULT_EXPIRES_SECONDS,
  type PresignFileConfig,
} from '../../core/presign';
import { defineFlags, oneOf } from '../args';
import type { Context } from '../context';
import { configPath, fileDevices, readConfig, writeConfig } from '../presign/config-file';
import { startNodeServer } from '../presign/node-server';

export const summary = 'Run and administer a presign endpoint (devices back up without the bucket keys)';
export const usage = 'init|serve|token add|token list|token revoke [flags]';

export const flags = defineFlags({
  config: { type: 'string', help: 'the endpoint configuration file (default $CAIRN_PRESIGN_CONFIG)' },
  name: { type: 'string', help: 'token add/revoke: the device name' },
  role: { type: 'string', help: 'token add: read, append-only (default) or maintenance' },
  's3-endpoint': { type: 'string', help: 'init: the S3 service URL, e.g. https://s3.us-west-004.backblazeb2.com' },
  bucket: { type: 'string', help: 'init: the bucket' },
  region: { type: 'string', help: 'init: the bucket region (default: from the endpoint, else us-east-1)' },
  prefix: { type: 'string', help: 'init: the repository prefix inside the bucket' },
  origin: { type: 'strings', help: 'init: a browser origin allowed to use the endpoint (repeatable)' },
  'path-style': { type: 'bool', help: 'init: path-style bucket URLs (host/bucket/key)' },
  listen: { type: 'string', help: 'serve/init: host:port to listen on (default 127.0.0.1:8788)' },
});

const MAX_BODY = 8 * 1024;

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [sub, verb] = ctx.args;
  const file = configPath(ctx.flags.config, ctx.globals.env);
  if (sub === 'init') return init(ctx, file);
  if (sub === 'serve') return serve(ctx, file);
  if (sub === 'token' && verb === 'add') return addToken(ctx, file);
  if (sub === 'token' && verb === 'list') return listTokens(ctx, file);
  if (sub === 'token' && verb === 'revoke') return revokeToken(ctx, file);
  throw new CairnError('USAGE', `usage: cairn presign ${usage}`);
}

function init(ctx: Context<typeof flags>, file: string): number {
  if (fs.existsSync(file)) throw new CairnError('ALREADY_EXISTS', `${file} already exists`);
  const f = ctx.flags;
  const config = parsePresignConfig({
    s3: { endpoint: f['s3-endpoint'], bucket: f.bucket, ...(f.region ? { region: f.region } : {}), ...(f['path-style'] ? { pathStyle: true } : {}) },
    prefix: f.prefix ?? '',
    origins: f.origin ?? [],
    expiresSeconds: DEFAULT_EXPIRES_SECONDS,
    listen: f.listen ?? '127.0.0.1:8788',
    devices: [],
  });
  writeConfig(file, config);
  ctx.out.stdout(`wrote ${file}; add a device with: cairn presign token add --config ${file} --name laptop --role append-only\n`);
  return 0;
}

async function addToken(ctx: Context<typeof flags>, file: string): Promise<number> {
  const name = ctx.flags.name;
  const role = oneOf(ROLES, ctx.flags.role ?? 'append-only');
  if (!role) throw new CairnError('USAGE', `--role must be one of ${ROLES.join(', ')}`);
  const config = readConfig(file);
  if (!name) throw new CairnError('USAGE', 'token add needs --name');
  if (config.devices.some((d) => d.name === name)) throw new CairnError('ALREADY_EXISTS', `a device named "${name}" exists; revoke it first`);
  const token = newToken();
  const next: PresignFileConfig = {
    ...config,
    devices: [...config.devices, { name, role, tokenSha256: await tokenHash(token), created: new Date().toISOString() }],
  };
  writeConfig(file, parsePresignConfig(next));
  if (ctx.globals.json) ctx.out.stdout(JSON.stringify({ name, role, token }) + '\n');
  else ctx.out.stdout(`device "${name}" (${role}) added. Its token, shown only now:\n\n  ${token}\n\nGive it to the device as CAIRN_PRESIGN_TOKEN.\n`);
  return 0;
}

function listTokens(ctx: Context<typeof flags>, file: string): number {
  const { devices } = readConfig(file);
  if (ctx.globals.json) ctx.out.stdout(JSON.stringify(devices.map(({ name, role, created }) => ({ name, role, created }))) + '\n');
  else for (const d of devices) ctx.out.stdout(`${d.name.padEnd(20)} ${d.role.padEnd(12)} ${d.created ?? ''}\n`);
  return 0;
}

function revokeToken(ctx: Context<typeof flags>, file: string): number {
  const name = ctx.flags.name;
  const config = readConfig(file);
  if (!name || !config.devices.some((d) => d.name === name)) throw new CairnError('NOT_FOUND', `no device named "${name ?? ''}"`);
  writeConfig(file, { ...config, devices: config.devices.filter((d) => d.name !== name) });
  if (!ctx.globals.quiet) ctx.out.stdout(`device "${name}" revoked\n`);
  return 0;
}

async function serve(ctx: Context<typeof flags>, file: string): Promise<number> {
  const config = readConfig(file);
  const listen = ctx.flags.listen ?? config.listen ?? '127.0.0.1:8788';
  const at = listen.lastIndexOf(':');
  const handler = presignHandler({
    s3: s3SignerFromConfig(config, ctx.globals.env),
    prefix: config.prefix ?? '',
    devices: fileDevices(file),
    origins: config.origins ?? [],
    expiresSeconds: config.expiresSeconds ?? DEFAULT_EXPIRES_SECONDS,
    maxBodyBytes: MAX_BODY,
    onAnswer: (a) => {
      if (a.status >= 400 || ctx.globals.verbose) ctx.out.stderr(`${a.status} ${a.device ?? '-'} ${a.method ?? ''} ${a.key ?? ''} ${a.reason ?? ''}\n`);
    },
  });
  const server = await startNodeServer(handler, {
    host: listen.slice(0, at).replace(/^\[|\]$/g, ''),
    port: Number(listen.slice(at + 1)),
    maxBodyBytes: MAX_BODY,
  });
  ctx.out.stdout(`presign endpoint for ${config.s3.endpoint}/${config.s3.bucket}/${config.prefix ?? ''} listening on ${server.url}\n`);
  // main's signal handler aborts ctx.signal on SIGINT/SIGTERM: finish what is in flight, then exit.
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close(1_000);
  ctx.out.stdout('presign endpoint stopped\n');
  return 0;
}
