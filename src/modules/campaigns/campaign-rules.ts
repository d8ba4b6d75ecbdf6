import { randomInt } from 'node:crypto';
import type { TemplateFieldRow, TemplateRoleRow, TemplateRow } from '../../db/database.ts';
import { AppError, invalidState, validation } from '../../http/errors.ts';
import { fieldBeyondPages } from '../documents-core/fields.rules.ts';
import { groupOf } from '../documents-core/signing-rules.ts';

/*
 * Rules of a campaign that a schema cannot say: the slug, the redirect URL, and which templates can
 * back a public link.
 */

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SLUG_BASE_MAX = 60;

/** The name in lower-case ASCII words joined by `-` (accents dropped), at most 60 characters; `campaign` when nothing is left. */
function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_BASE_MAX)
    .replace(/-+$/g, '');
  return base || 'campaign';
}

/** `slugify(name)` plus `-` and 6 random characters, so two campaigns of the same name get different links. */
export function newSlug(name: string): string {
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += SLUG_ALPHABET[randomInt(SLUG_ALPHABET.length)];
  return `${slugify(name)}-${suffix}`;
}

/** What a slug can look like (the public routes refuse anything else without a query). */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** `""` (no redirect) or an absolute http(s) URL. */
export function checkRedirectUrl(url: string | undefined): void {
  if (url === undefined || url === '') return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (
    !parsed ||
    !['http:', 'https:'].includes(parsed.protocol) ||
    !/^https?:\/\/[^\s]+$/i.test(url)
  ) {
    throw validation('body.redirectUrl', 'must be an absolute http or https URL');
  }
}

export function checkFutureExpiry(expiresAt: string | null | undefined, nowMs: number): void {
  if (expiresAt && Date.parse(expiresAt) <= nowMs)
    throw validation('body.expiresAt', 'must be in the future');
}

/** Who signs what on a campaign submission: the visitor takes the first role; later roles have fixed signers. */
export interface SubmissionPlan {
  /** The `order` the visitor signs as. */
  submitterOrder: number;
  /** The signing group of the visitor's role (null: its order). */
  submitterGroup: number | null;
  /** Name of the visitor's role ("Signer" for a template without roles). */
  submitterRole: string;
  /** Roles after the first that have fields: each has a fixed signer, invited by email in turn. */
  fixedSigners: {
    order: number;
    name: string;
    email: string;
    locale: string | null;
    group: number | null;
  }[];
}

/**
 * Whether a template can back a public link, and how its roles are filled. Refusals (409):
 * no file (`missing_file`), no field (`missing_fields`), no field for the visitor, a field on a
 * page the file does not have (placed before the file, or kept when a shorter one replaced it),
 * a field for a later role that has no fixed signer (nobody could be invited to fill it), or such a
 * role in a group before the first role's (the visitor signs first) (`invalid_state`).
 * A template without roles has one implicit role at order 0.
 */
export function planSubmission(
  template: TemplateRow,
  roles: TemplateRoleRow[],
  fields: TemplateFieldRow[],
): SubmissionPlan {
  if (!template.file_key)
    throw new AppError('missing_file', 'The template has no file yet; upload one first');
  if (fields.length === 0)
    throw new AppError('missing_fields', 'The template has no fields; add at least one');
  const offPage = fieldBeyondPages(fields, template.page_count);
  if (offPage) {
    throw invalidState(
      `Template field ${offPage.id} is on page ${offPage.page}, but the file has ${template.page_count} page(s); move or delete the field`,
    );
  }
  const sorted = [...roles].sort((a, b) => a.position - b.position);
  const first = sorted[0];
  const submitterOrder = first ? first.position : 0;
  if (!fields.some((f) => f.assigned_to === submitterOrder)) {
    throw invalidState(
      `The template's first role (order ${submitterOrder}) has no field for the visitor to fill`,
    );
  }
  const byOrder = new Map(sorted.map((r) => [r.position, r]));
  const fixedSigners: SubmissionPlan['fixedSigners'] = [];
  for (const order of [...new Set(fields.map((f) => f.assigned_to))].sort((a, b) => a - b)) {
    if (order === submitterOrder) continue;
    const role = byOrder.get(order);
    if (!role || !role.signer_email) {
      throw invalidState(
        `The template has fields for order ${order}, which ${role ? `role "${role.name}" has no fixed signer for` : 'no role has'}; ` +
          'a campaign visitor signs the first role only, so later roles need a fixed signerEmail',
      );
    }
    // The visitor signs as they submit: no role with fields may have its turn before theirs.
    if (template.signing_type !== 'parallel' && first && groupOf(role) < groupOf(first)) {
      throw invalidState(
        `Role "${role.name}" (group ${groupOf(role)}) would sign before the visitor's role "${first.name}" (group ${groupOf(first)}); ` +
          "a campaign visitor signs first, so no later role's group may be lower than the first role's",
      );
    }
    fixedSigners.push({
      order,
      name: role.signer_name ?? role.name,
      email: role.signer_email,
      locale: role.locale ?? null,
      group: role.signing_group,
    });
  }
  return {
    submitterOrder,
    submitterGroup: first?.signing_group ?? null,
    submitterRole: first?.name ?? 'Signer',
    fixedSigners,
  };
}
