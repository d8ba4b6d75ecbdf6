/**
 * The identifiers the API reference's examples use, one per kind of resource (and a second where
 * an example needs two), so every example speaks of the same organization, document, signers and
 * template. The test suite sends every example to a real server with real ids put in their place.
 */
export const EX = {
  org: 'org_01jdx0a1b2c3d4e5f6g7h8j9k0',
  key: 'key_01jdx0a1b2c3d4e5f6g7h8j9k1',
  doc: 'doc_01jdx3m4n5p6q7r8s9t0v1w2x3',
  sgn: 'sgn_01jdx3m4n5p6q7r8s9t0v1w2y4',
  sgn2: 'sgn_01jdx3m4n5p6q7r8s9t0v1w2y5',
  fld: 'fld_01jdx3m4n5p6q7r8s9t0v1w2z6',
  fld2: 'fld_01jdx3m4n5p6q7r8s9t0v1w2z7',
  fol: 'fol_01jdx2c3d4e5f6g7h8j9k0m1n2',
  tpl: 'tpl_01jdx1f2g3h4j5k6m7n8p9q0r1',
  rol: 'rol_01jdx1f2g3h4j5k6m7n8p9q0r2',
  tfld: 'fld_01jdx1f2g3h4j5k6m7n8p9q0r3',
  cmp: 'cmp_01jdx5s6t7v8w9x0y1z2a3b4c5',
  whk: 'whk_01jdx6d7e8f9g0h1j2k3m4n5p6',
  evt: 'evt_01jdx7q8r9s0t1v2w3x4y5z6a7',
  dlv: 'dlv_01jdx7q8r9k3m8w2v9c4d7e1f0',
  aud: 'aud_01jdx8b9c0d1e2f3g4h5j6k7m8',
  att: 'att_01jdx9n0p1q2r3s4t5v6w7x8y9',
  bsd: 'bsd_01jdxaz1a2b3c4d5e6f7g8h9j0',
  exp: 'exp_01jdxbq2r3s4t5v6w7x8y9z0a1',
  /** A signing link's token (the part after `/sign/`). */
  token: 'pTx3Vd8qLw2mZ7kHc9nRb4yFj6sGe1aU5oXi0tNvQrE',
  /** A builder link's token (the part after `/build/`). */
  builderToken: 'b7Hk2Qw9Lm4Xp1Zr8Tc5Vn3Jy6Fd0Gs2Ae7Ku4Ow9Pi',
  /** An upload URL's token (the part after `/uploads/`). */
  uploadToken: 'eyJkIjoiZG9jXzAxamR4M200bjVwNnE3cjhzOXQwdjF3MngzIn0.Qm9vZ2xlLXNpZ25hdHVyZQ',
  slug: 'volunteers-2026-k3m9qz',
} as const;

/** Times the examples use: a morning in late 2026, and deadlines well after it. */
export const AT = {
  created: '2026-11-21T09:30:00.000Z',
  updated: '2026-11-21T09:32:14.512Z',
  sent: '2026-11-21T09:35:02.118Z',
  viewed: '2026-11-21T10:02:47.903Z',
  signed: '2026-11-21T10:04:31.276Z',
  completed: '2026-11-21T10:04:33.640Z',
  expires: '2030-12-31T17:00:00.000Z',
} as const;
