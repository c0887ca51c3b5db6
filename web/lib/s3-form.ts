// The S3/B2 form's data and its conversion to an engine location + credentials.

import type { S3Auth, S3Location } from '../../workers/api';
import { regionFromEndpoint } from '../../core/backend/s3/location';
import { defaultPathStyle } from '../../core/backend/s3/url-signer';
import { validateS3 } from './locations';

export interface S3FormData {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  /** undefined = decide from the endpoint (virtual-hosted on AWS, path-style elsewhere). */
  pathStyle: boolean | undefined;
  authType: 'keys' | 'presign';
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  presignUrl: string;
  /** The device token `cairn presign token add` printed (optional: an endpoint may sign in otherwise). */
  presignToken: string;
}

export function emptyS3Form(): S3FormData {
  return {
    endpoint: '',
    region: '',
    bucket: '',
    prefix: '',
    pathStyle: undefined,
    authType: 'keys',
    accessKeyId: '',
    secretAccessKey: '',
    sessionToken: '',
    presignUrl: '',
    presignToken: '',
  };
}

/** A region the endpoint implies (AWS, B2), to prefill the field. */
export function impliedRegion(endpoint: string): string | undefined {
  try {
    return regionFromEndpoint(endpoint);
  } catch {
    return undefined;
  }
}

/** The token as typed, without spaces around it or a pasted "Bearer " before it. */
const deviceToken = (f: S3FormData): string => f.presignToken.trim().replace(/^Bearer\s+/i, '');

export function s3FormErrors(f: S3FormData, withLocation: boolean): Record<string, string> {
  const errors = withLocation ? validateS3(f) : {};
  if (f.authType === 'keys') {
    if (!f.accessKeyId.trim()) errors['accessKeyId'] = 'Enter the access key ID (B2: the application key ID).';
    if (!f.secretAccessKey) errors['secretAccessKey'] = 'Enter the secret access key (B2: the application key).';
  } else {
    try {
      const u = new URL(f.presignUrl);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    } catch {
      errors['presignUrl'] = 'Enter the address of your presign endpoint (https://…).';
    }
    if (/\s/.test(deviceToken(f))) errors['presignToken'] = 'A device token is one word, without spaces: paste it as it was printed.';
  }
  return errors;
}

export function s3Auth(f: S3FormData): S3Auth {
  if (f.authType === 'presign') {
    const token = deviceToken(f);
    return token ? { type: 'presign', url: f.presignUrl.trim(), token } : { type: 'presign', url: f.presignUrl.trim() };
  }
  const auth: S3Auth = { type: 'keys', accessKeyId: f.accessKeyId.trim(), secretAccessKey: f.secretAccessKey };
  if (f.sessionToken.trim()) auth.sessionToken = f.sessionToken.trim();
  return auth;
}

export function s3Location(f: S3FormData): S3Location {
  const endpoint = f.endpoint.trim().replace(/\/+$/, '');
  const bucket = f.bucket.trim();
  return {
    kind: 's3',
    endpoint,
    region: f.region.trim() || impliedRegion(endpoint) || 'us-east-1',
    bucket,
    prefix: f.prefix.trim().replace(/^\/+|\/+$/g, ''),
    pathStyle: f.pathStyle ?? defaultPathStyle(endpoint, bucket),
    auth: s3Auth(f),
  };
}

/** Blanks the secrets once they have been handed over. */
export function dropSecrets(f: S3FormData): void {
  f.secretAccessKey = '';
  f.sessionToken = '';
  f.presignToken = '';
}
