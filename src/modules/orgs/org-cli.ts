import fs from 'node:fs/promises';
import path from 'node:path';
import type { UpdateOrganizationInput } from './organization.schemas.ts';

/** Flags of `signet org update`; `none` clears colour, logo and reply-to. */
interface OrgUpdateFlags {
  name?: string;
  'admin-email'?: string;
  'brand-color'?: string;
  logo?: string;
  'reply-to'?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Turns the flags into the same change the API's PATCH takes, with the same rules (the CLI
 * writes to the database directly, so it checks what the route's schema would have).
 */
export async function orgUpdateFromFlags(flags: OrgUpdateFlags): Promise<UpdateOrganizationInput> {
  const change: UpdateOrganizationInput = {};
  const clear = (v: string) => v === 'none' || v === '';
  if (flags.name !== undefined) {
    if (!/\S/.test(flags.name) || flags.name.length > 200)
      throw new Error('--name must be 1-200 characters, not blank');
    change.name = flags.name;
  }
  if (flags['admin-email'] !== undefined) {
    if (!EMAIL.test(flags['admin-email']))
      throw new Error('--admin-email must be an email address');
    change.adminEmail = flags['admin-email'];
  }
  const color = flags['brand-color'];
  if (color !== undefined) {
    if (!clear(color) && !/^#[0-9A-Fa-f]{6}$/.test(color))
      throw new Error("--brand-color must be a hex colour such as '#0F766E', or none");
    change.brandColor = clear(color) ? null : color;
  }
  const replyTo = flags['reply-to'];
  if (replyTo !== undefined) {
    if (!clear(replyTo) && !EMAIL.test(replyTo))
      throw new Error('--reply-to must be an email address, or none');
    change.replyTo = clear(replyTo) ? null : replyTo;
  }
  if (flags.logo !== undefined) {
    if (clear(flags.logo)) change.logo = null;
    else {
      const ext = path.extname(flags.logo).toLowerCase();
      const type = ext === '.png' ? 'png' : ext === '.jpg' || ext === '.jpeg' ? 'jpeg' : null;
      if (!type) throw new Error('--logo must be a .png, .jpg or .jpeg file, or none');
      change.logo = `data:image/${type};base64,${(await fs.readFile(flags.logo)).toString('base64')}`;
    }
  }
  if (Object.keys(change).length === 0)
    throw new Error(
      'Nothing to update: give --name, --admin-email, --brand-color, --logo or --reply-to',
    );
  return change;
}
