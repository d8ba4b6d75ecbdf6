/*
 * Writes a small MaxMind DB (format v2, IPv4, 24-bit records) so the GeoIP path is tested with a
 * real .mmdb file read by the real `maxmind` reader, without shipping a licensed database.
 */

type Value = string | number | Value[] | { [key: string]: Value };

function controlBytes(type: number, size: number): Buffer {
  const extended = type > 7;
  const first = (extended ? 0 : type) << 5;
  let head: number[];
  if (size < 29) head = [first | size];
  else if (size < 285) head = [first | 29, size - 29];
  else if (size < 65_821) head = [first | 30, (size - 285) >> 8, (size - 285) & 0xff];
  else throw new Error('value too large for this writer');
  if (extended) head.splice(1, 0, type - 7);
  return Buffer.from(head);
}

function uint(value: number): Buffer {
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes);
}

function encode(value: Value, asUint16 = false): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([controlBytes(2, bytes.length), bytes]);
  }
  if (typeof value === 'number') {
    const bytes = uint(value);
    // 5: uint16, 6: uint32, 9: uint64 (extended)
    const type = asUint16 ? 5 : value > 0xffffffff ? 9 : 6;
    return Buffer.concat([controlBytes(type, bytes.length), bytes]);
  }
  if (Array.isArray(value))
    return Buffer.concat([controlBytes(11, value.length), ...value.map((v) => encode(v))]);
  const entries = Object.entries(value);
  return Buffer.concat([
    controlBytes(7, entries.length),
    ...entries.flatMap(([k, v]) => [encode(k), encode(v, UINT16_KEYS.has(k))]),
  ]);
}
const UINT16_KEYS = new Set([
  'record_size',
  'ip_version',
  'binary_format_major_version',
  'binary_format_minor_version',
]);

interface TrieNode {
  children: [TrieNode | number | null, TrieNode | number | null];
}

/** An .mmdb whose networks (`a.b.c.d/len`) map to the given records. */
export function buildMmdb(networks: { cidr: string; record: Value }[]): Buffer {
  const root: TrieNode = { children: [null, null] };
  const data: Buffer[] = [];
  let dataLength = 0;
  for (const { cidr, record } of networks) {
    const [ip, len] = cidr.split('/');
    const bits = ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
    const encoded = encode(record);
    const offset = dataLength;
    data.push(encoded);
    dataLength += encoded.length;
    let node = root;
    const prefix = Number(len);
    for (let i = 0; i < prefix; i++) {
      const bit = Math.floor(bits / 2 ** (31 - i)) % 2;
      if (i === prefix - 1) {
        node.children[bit] = offset;
      } else {
        let next = node.children[bit];
        if (next === null || typeof next === 'number') {
          next = { children: [null, null] };
          node.children[bit] = next;
        }
        node = next;
      }
    }
  }
  const nodes: TrieNode[] = [];
  const queue: TrieNode[] = [root];
  while (queue.length) {
    const n = queue.shift()!;
    nodes.push(n);
    for (const c of n.children) if (c && typeof c === 'object') queue.push(c);
  }
  const index = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;
  const record = (c: TrieNode | number | null) =>
    c === null ? nodeCount : typeof c === 'number' ? nodeCount + 16 + c : index.get(c)!;
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((n, i) => {
    tree.writeUIntBE(record(n.children[0]), i * 6, 3);
    tree.writeUIntBE(record(n.children[1]), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 4,
    database_type: 'Signet-Test-City',
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    description: { en: 'Test database' },
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...data,
    Buffer.from([0xab, 0xcd, 0xef]),
    Buffer.from('MaxMind.com'),
    metadata,
  ]);
}
