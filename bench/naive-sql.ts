/** The naive implementation's statements (bench/naive.ts), also timed alone by bench/statements.ts. */
/** The statements, by name; `?` placeholders (pg gets `$n`). */
export const SQL = {
  key: 'select org_id, scopes from api_keys where key_hash = ? and revoked_at is null',
  document: 'select * from documents where id = ? and org_id = ? and deleted_at is null',
  signers: 'select * from signers where document_id = ? order by position',
  fields: 'select * from fields where document_id = ? order by created_at, id',
  attachments: 'select * from attachments where document_id = ? order by created_at, id',
  insertDocument: `insert into documents (id, org_id, name, search_name, status, signing_type,
      message, require_kyc, file_size, document_hash, signed_file_hash, created_at, updated_at)
    values (?, ?, ?, ?, 'draft', 'sequential', ?, 0, 0, '', '', ?, ?)`,
  insertSigner: `insert into signers (id, document_id, name, email, role, position, status,
      created_at, updated_at) values (?, ?, ?, ?, 'signer', ?, 'pending', ?, ?)`,
  insertAudit: `insert into audit_logs (id, org_id, document_id, action, details, ip_address,
      user_agent, geo_city, geo_country, created_at)
    values (?, ?, ?, 'document.created', ?, ?, ?, '', '', ?)`,
  insertEvent: 'insert into events (id, org_id, type, data, created_at) values (?, ?, ?, ?, ?)',
  hooks: `select id, events from webhooks where org_id = ? and status = 'active'`,
  insertDelivery: `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type,
      status, attempt_count, next_attempt_at, created_at, updated_at)
    values (?, ?, ?, ?, 'document.created', 'pending', 0, ?, ?, ?)`,
  ...listStatements(),
};
export type Name = keyof typeof SQL;

/** The four shapes of the first list page: no filter, a status, a search, both. */
function listStatements() {
  const out: Record<string, string> = {};
  for (const status of [false, true])
    for (const search of [false, true]) {
      const where = ['d.org_id = ?', 'd.deleted_at is null'];
      if (status) where.push('d.status = ?');
      if (search) where.push("d.search_name like ? escape '\\'");
      out[listName(status, search)] =
        `select d.*, (select count(*) from signers s where s.document_id = d.id) as signer_count,
          (select count(*) from fields f where f.document_id = d.id) as field_count
        from documents d where ${where.join(' and ')}
        order by d.created_at desc, d.id desc limit ?`;
    }
  return out as Record<'list' | 'listStatus' | 'listSearch' | 'listStatusSearch', string>;
}
export function listName(status: boolean, search: boolean) {
  return `list${status ? 'Status' : ''}${search ? 'Search' : ''}` as Name;
}
