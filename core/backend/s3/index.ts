// The S3 backend: restic's repository layout in a user's own S3 / B2 / radosgw bucket,
// reached only through SigV4 presigned URLs and plain `fetch` (no SDK, no server of ours).
// It owns: SigV4 query and header signing (sigv4), where URLs come from (url-signer: keys
// held locally; endpoint-signer: the user's presign endpoint, contract in PRESIGN-ENDPOINT.md),
// the Backend itself (s3-backend, with S3 answers mapped to coded errors in s3-errors and
// ListObjectsV2 read by the small scanner in xml), Content-MD5 (md5), and restic's
// `s3:…` repository strings plus AWS_* credentials (location, open).
// Retry and concurrency caps are the generic decorators in ../retry and ../limit.

export { S3Backend, type S3BackendOptions } from './s3-backend';
export { openS3FromEnv, type OpenS3Options } from './open';
export { localSigner, defaultPathStyle, type UrlSigner, type SignRequest, type SignedUrl, type S3Method, type LocalSignerConfig } from './url-signer';
export { endpointSigner, type EndpointSignerOptions } from './endpoint-signer';
export { parseS3Location, formatS3Location, regionFromEndpoint, s3SignerConfigFromEnv, cleanPath, type S3Location, type S3Env } from './location';
export {
  presignUrl,
  signHeaders,
  uriEncode,
  encodePath,
  canonicalQuery,
  amzDate,
  UNSIGNED_PAYLOAD,
  EMPTY_SHA256,
  type Credentials,
  type SignParams,
  type PresignParams,
} from './sigv4';
export { md5 } from './md5';
export { parseListObjectsV2, parseS3Error, decodeXmlText, type ListPage, type ListedObject } from './xml';
