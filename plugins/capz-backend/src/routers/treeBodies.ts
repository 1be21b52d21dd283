import type {
  ClusterSummary,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/**
 * Below this size a tree is sent as it is: with its headers (~0.8 KB) it fits TCP's initial congestion window (10
 * segments, ~14.6 KB: RFC 6928), so gzip saves the client no round trip, while inflating it costs a Node client more
 * than the bytes save (bench: a 4.6 KB tree, 1.1 KB gzipped, took 0.1-0.3 ms longer gzipped than plain).
 */
export const TREE_GZIP_MIN_BYTES = 12 * 1024;

/** The tree route's answer as bytes: JSON, its gzip (made on first ask; none for a small tree) and a strong ETag. */
export interface TreeBody {
  json: Buffer;
  etag: string;
  /** The gzipped JSON, or undefined when the JSON is smaller than TREE_GZIP_MIN_BYTES. */
  gzip(): Buffer | undefined;
}

interface Entry {
  treeJson: string;
  summaryJson?: string;
  body?: TreeBody;
}

/**
 * Serialized tree answers, kept beside the trees they were made from. A view's tree (and each grouped tree) is
 * built once per change of its objects and never mutated (src/cluster/CacheIndex.ts), so the object's identity is
 * the cache key: serializing, hashing and compressing a 50-pool tree costs more than everything else a tree request
 * does above the HTTP floor (the bench's profile). The summary is small and can change without the tree (another
 * namespace's `managedFrom`, the API server read from ARM): it is serialized per request and compared.
 */
export class TreeBodies {
  private readonly entries = new WeakMap<TreeNode, Entry>();

  of(summary: ClusterSummary, tree: TreeNode): TreeBody {
    let entry = this.entries.get(tree);
    if (!entry) {
      entry = { treeJson: JSON.stringify(tree) };
      this.entries.set(tree, entry);
    }
    const summaryJson = JSON.stringify(summary);
    if (entry.body && entry.summaryJson === summaryJson) return entry.body;
    // The same key order as res.json({ summary, tree }).
    const json = Buffer.from(
      `{"summary":${summaryJson},"tree":${entry.treeJson}}`,
    );
    let gzipped: Buffer | undefined;
    entry.summaryJson = summaryJson;
    entry.body = {
      json,
      etag: `"${createHash('sha1').update(json).digest('base64url')}"`,
      gzip: () =>
        json.length < TREE_GZIP_MIN_BYTES
          ? undefined
          : (gzipped ??= gzipSync(json)),
    };
    return entry.body;
  }
}
