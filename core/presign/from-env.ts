// A handler built from environment variables, for hosts without a configuration file (a
// Cloudflare Worker's bindings, a Lambda's environment): CAIRN_PRESIGN_CONFIG holds the
// configuration document (./config; no secret in it), the bucket keys come from
// CAIRN_S3_ACCESS_KEY_ID / CAIRN_S3_SECRET_ACCESS_KEY (or a Lambda role's AWS_* variables).
// One handler per configuration text: a redeploy with a new device list takes effect at once.

import { parsePresignConfig, s3SignerFromConfig, type SecretEnv } from './config';
import { presignHandler, type PresignHandler } from './handler';

let cached: { text: string; handler: PresignHandler } | undefined;

function handlerFromEnv(env: SecretEnv): PresignHandler {
  const text = env['CAIRN_PRESIGN_CONFIG'];
  if (!text) throw new Error('CAIRN_PRESIGN_CONFIG is not set');
  if (cached?.text === text) return cached.handler;
  const config = parsePresignConfig(JSON.parse(text));
  const devices = config.devices;
  const handler = presignHandler({
    s3: s3SignerFromConfig(config, env),
    prefix: config.prefix ?? '',
    devices: () => devices,
    origins: config.origins ?? [],
    ...(config.expiresSeconds ? { expiresSeconds: config.expiresSeconds } : {}),
  });
  cached = { text, handler };
  return handler;
}

/** A configuration the host cannot read is a 500 without details (they may name secrets' places). */
export async function answerFromEnv(env: SecretEnv, request: Request): Promise<Response> {
  let handler: PresignHandler;
  try {
    handler = handlerFromEnv(env);
  } catch {
    return new Response('{"error":"the endpoint is not configured","reason":"config"}', { status: 500, headers: { 'content-type': 'application/json' } });
  }
  return handler(request);
}
