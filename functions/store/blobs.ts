import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';

/**
 * The blob store: S3 in AWS, a folder locally, with the same keys
 * (`t/{ten}/i/{idn}/out/{msg}.eml`) and the same custom metadata.
 */
export interface BlobStore {
  put(key: string, body: Uint8Array, metadata: Record<string, string>, contentType?: string): Promise<void>;
  get(key: string): Promise<{ body: Uint8Array; metadata: Record<string, string> } | undefined>;
  /** Remove an object (and its metadata); absent objects are fine. */
  delete(key: string): Promise<void>;
  /**
   * The keys under `prefix` that sort after `startAfter`, in key order (S3's ListObjectsV2 order:
   * UTF-8 binary). Lazy: a caller that stops early lists no further page.
   */
  list(prefix: string, startAfter?: string): AsyncIterable<string>;
}

/** `n` > 0: the MIME stored by the n-th request to take the send's Idempotency-Key over. */
export function outboundKey(tenantId: string, identityId: string, messageId: string, n = 0): string {
  return `t/${tenantId}/i/${identityId}/out/${messageId}${n > 0 ? `.${n}` : ''}.eml`;
}

export function inboundKey(tenantId: string, identityId: string, messageId: string): string {
  return `t/${tenantId}/i/${identityId}/in/${messageId}.eml`;
}

/** Writes a file by an atomic rename (a temporary file beside it, then renamed over it). */
function atomicWriter(): (file: string, data: Uint8Array | string) => Promise<void> {
  // Folders this store made: a send's objects go to its identity's folder, made once (a folder
  // removed behind the store's back is made again).
  const made = new Set<string>();
  return async (file, data) => {
    const dir = dirname(file);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    if (!made.has(dir)) await mkdir(dir, { recursive: true });
    try {
      await writeFile(tmp, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(dir, { recursive: true });
      await writeFile(tmp, data);
    }
    made.add(dir);
    await rename(tmp, file);
  };
}

/** Local folder adapter: the object, plus `{key}.meta.json` beside it. Writes are atomic renames. */
export function folderBlobStore(root: string): BlobStore {
  const path = (key: string) => {
    const p = resolve(root, key);
    if (!p.startsWith(resolve(root))) throw new Error('blob key escapes the store');
    return p;
  };
  const writeAtomic = atomicWriter();
  return {
    async put(key, body, metadata, contentType = 'message/rfc822') {
      await writeAtomic(`${path(key)}.meta.json`, JSON.stringify({ contentType, metadata }));
      await writeAtomic(path(key), body);
    },
    async get(key) {
      try {
        const [body, meta] = await Promise.all([
          readFile(path(key)),
          readFile(`${path(key)}.meta.json`, 'utf8'),
        ]);
        return { body: new Uint8Array(body), metadata: JSON.parse(meta).metadata };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key) {
      await rm(path(key), { force: true });
      await rm(`${path(key)}.meta.json`, { force: true });
    },
    async *list(prefix, startAfter = '') {
      // The folder holding the prefix, walked whole (a local store is small), then filtered as S3 would.
      const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
      let names: string[];
      try {
        names = (await readdir(path(dir), { recursive: true, withFileTypes: true }))
          .filter((e) => e.isFile())
          .map((e) => `${dir}${relativeTo(path(dir), join(e.parentPath, e.name))}`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      const keys = names
        .filter((k) => !k.endsWith('.meta.json') && !k.endsWith('.tmp'))
        .filter((k) => k.startsWith(prefix) && k > startAfter)
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      yield* keys;
    },
  };
}

const relativeTo = (from: string, to: string) =>
  to
    .slice(from.length + 1)
    .split(sep)
    .join('/');

export function s3BlobStore(bucket: string, client = new S3Client({})): BlobStore {
  return {
    async put(key, body, metadata, contentType = 'message/rfc822') {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          Metadata: metadata,
          ContentType: contentType,
        }),
      );
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return { body: await out.Body!.transformToByteArray(), metadata: out.Metadata ?? {} };
      } catch (err) {
        if ((err as Error).name === 'NoSuchKey') return undefined;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    // https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html (StartAfter; 1,000 keys a page)
    async *list(prefix, startAfter) {
      for await (const page of paginateListObjectsV2(
        { client },
        { Bucket: bucket, Prefix: prefix, ...(startAfter ? { StartAfter: startAfter } : {}) },
      )) {
        for (const o of page.Contents ?? []) if (o.Key) yield o.Key;
      }
    },
  };
}

export const blobRootFor = (stateDir: string) => join(stateDir, 'blobs');

/**
 * The Lambda factory of the blob store (functions/env.ts › loadLambdaDeps): the stack's bucket.
 * `client` is for `npm run check:deploy`, which replays the recorded calls through it.
 */
export const s3Blobs = (required: (name: string) => string, client?: S3Client): BlobStore =>
  s3BlobStore(required('PMAIL_BLOB_BUCKET'), client);
