// The messages between the page's file server (../client/file-server.ts) and the engine and
// savers that ask it for Files (./file-server.ts); the whole design is explained at the top
// of ./file-server.ts.

/** A file of the page's list, by its index there: what a served list's entries hold as their ref. */
export interface ServedFileRef {
  served: number;
}

export function isServedRef(ref: unknown): ref is ServedFileRef {
  return typeof ref === 'object' && ref !== null && typeof (ref as ServedFileRef).served === 'number';
}

export type ToServer = { type: 'connect'; port: MessagePort } | { type: 'metadata'; order: Uint32Array };
/** The page's answers to 'metadata': the files at positions [from, from + sizes.length) of the order. */
export type FromServer =
  { type: 'metadata'; from: number; sizes: number[]; lastModified: number[] } | { type: 'metadataFailed'; code: 'ABORTED' | 'SOURCE_READ'; message: string };
export interface FileRequest {
  req: number;
  indices: number[];
}
export interface FileReply {
  req: number;
  files: (File | null)[];
}
