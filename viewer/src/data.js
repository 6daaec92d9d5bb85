// Where a replay's data comes from, and the binary chunk format.
//
// A replay is `meta` (JSON: frames, chunk_frames, time, geometries,
// first_poses, moving, stats; written by src/coulomb/viewer/replay_source.cc)
// and chunks of `chunk_frames` frames each, binary little-endian:
//   uint32 first, count, moving M, contacts N
//   float32 poses[count][M][7]        x y z qw qx qy qz of each of meta.moving
//   uint32  offsets[count + 1]        frame f's contacts: [offsets[f], offsets[f+1])
//   float32 contacts[N][10]           point (3), normal (3), impulse (3), depth
// Served by `coulomb view` (replay/meta.json, replay/chunk/I) or inlined in
// an exported HTML file (script elements coulomb-meta and coulomb-chunk-I).

export function parseChunk(buffer) {
  const header = new Uint32Array(buffer, 0, 4);
  const [first, count, moving, contacts] = header;
  let offset = 16;
  const poses = new Float32Array(buffer, offset, count * moving * 7);
  offset += poses.byteLength;
  const offsets = new Uint32Array(buffer, offset, count + 1);
  offset += offsets.byteLength;
  const rows = new Float32Array(buffer, offset, contacts * 10);
  return { first, count, moving, poses, offsets, contacts: rows };
}

function base64ToBuffer(text) {
  const bytes = Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0));
  return bytes.buffer;
}

// The data of an exported file: everything is in the page.
export class InlineSource {
  constructor(document) {
    this.document = document;
    this.live = false;
  }
  async meta() {
    return JSON.parse(this.document.getElementById("coulomb-meta").textContent);
  }
  async chunk(index) {
    const element = this.document.getElementById(`coulomb-chunk-${index}`);
    if (!element) throw new Error(`chunk ${index} is not in this file`);
    return parseChunk(base64ToBuffer(element.textContent));
  }
}

// The data `coulomb view` serves (relative URLs: the page's own server).
export class ServerSource {
  async meta() {
    const response = await fetch("replay/meta.json", { cache: "no-store" });
    if (!response.ok) throw new Error(`replay/meta.json: HTTP ${response.status}`);
    return response.json();
  }
  async chunk(index) {
    const response = await fetch(`replay/chunk/${index}`, { cache: "no-store" });
    if (!response.ok) throw new Error(`replay/chunk/${index}: HTTP ${response.status}`);
    return parseChunk(await response.arrayBuffer());
  }
}

// Chunks on demand, with the next ones prefetched and about `budget` bytes
// of them kept (at least 4 chunks): large runs stream, never loaded whole.
export class ChunkCache {
  constructor(source, meta, budget = 64e6) {
    this.source = source;
    this.meta = meta;
    const chunkBytes = 28 * meta.chunk_frames * Math.max(1, meta.moving.length);
    this.capacity = Math.max(4, Math.floor(budget / chunkBytes));
    this.chunks = new Map(); // index → parsed chunk
    this.pending = new Map(); // index → promise
    this.onLoad = () => {};
  }
  get chunkCount() {
    return Math.ceil(this.meta.frames / this.meta.chunk_frames);
  }
  // The chunk holding `frame`, or null while it loads (requested now).
  frame(frame) {
    const index = Math.floor(frame / this.meta.chunk_frames);
    for (let ahead = 1; ahead <= 2; ++ahead) this.request(index + ahead);
    const chunk = this.chunks.get(index);
    if (chunk && frame < chunk.first + chunk.count) {
      this.chunks.delete(index); // most recently used last
      this.chunks.set(index, chunk);
      return chunk;
    }
    this.request(index, chunk !== undefined);
    return null;
  }
  request(index, reload = false) {
    if (index >= this.chunkCount || this.pending.has(index)) return;
    if (this.chunks.has(index) && !reload) return;
    const promise = this.source
      .chunk(index)
      .then((chunk) => {
        this.chunks.set(index, chunk);
        while (this.chunks.size > this.capacity) {
          this.chunks.delete(this.chunks.keys().next().value);
        }
        this.onLoad(index);
      })
      .finally(() => this.pending.delete(index));
    this.pending.set(index, promise);
  }
  // Resolves when `index` is loaded.
  async load(index) {
    this.request(index);
    await this.pending.get(index);
    return this.chunks.get(index);
  }
}
