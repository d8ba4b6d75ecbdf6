// The public verification page: sends the chosen PDF to /verify/check and explains the report.

import { locale, t } from './i18n.js';

const drop = document.getElementById('verify-drop');
const input = document.getElementById('verify-file');
const result = document.getElementById('verify-result');

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

const utc = new Intl.DateTimeFormat(locale, {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});
const when = (iso) => {
  if (!iso) return t('verify.unknownTime');
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${utc.format(d)} UTC`;
};

const LEVELS = {
  'B-B': 'verify.levelBB',
  'B-T': 'verify.levelBT',
  'B-LT': 'verify.levelBLT',
  'B-LTA': 'verify.levelBLTA',
};

function commonName(dn) {
  const m = /(?:^|, )CN=([^,]+)/.exec(dn || '');
  return m ? m[1] : dn || t('verify.unknownSigner');
}

function renderSignature(sig, index) {
  const card = el('article', `verify-card ${sig.valid ? 'is-valid' : 'is-invalid'}`);
  card.append(
    el(
      'h2',
      null,
      t(sig.valid ? 'verify.signatureIntact' : 'verify.signatureInvalid', { number: index + 1 }),
    ),
  );
  const list = el('ul');
  const line = (text) => list.append(el('li', null, text));
  if (sig.valid) {
    line(sig.coversWholeDocument ? t('verify.coversWhole') : t('verify.dataAdded'));
  } else {
    line(t('verify.mismatch'));
  }
  if (sig.certificate) {
    line(
      t(sig.certificate.selfSigned ? 'verify.signedBySelf' : 'verify.signedBy', {
        subject: commonName(sig.certificate.subject),
        issuer: commonName(sig.certificate.issuer),
        from: when(sig.certificate.notBefore),
        to: when(sig.certificate.notAfter),
      }),
    );
  }
  if (sig.timestamp) {
    line(
      sig.timestamp.valid
        ? t('verify.timestampBy', {
            authority: sig.timestamp.authority || t('verify.timestampAuthority'),
            time: when(sig.timestamp.time),
          })
        : t('verify.timestampInvalid'),
    );
  } else {
    line(t('verify.noTimestamp', { time: when(sig.signedAt) }));
  }
  line(sig.revocationEmbedded ? t('verify.revocationEmbedded') : t('verify.noRevocation'));
  if (sig.level) line(t('verify.level', { level: t(LEVELS[sig.level]) }));
  card.append(list);
  return card;
}

function render(report, fileName) {
  result.replaceChildren(el('p', 'verify-file', t('verify.checkedFile', { fileName })));
  const summary = el('div', 'verify-summary');
  if (report.signatures.length === 0) {
    summary.classList.add('is-invalid');
    summary.textContent = t('verify.noSignature');
  } else {
    const allValid = report.signatures.every((s) => s.valid);
    const ok = allValid && !report.modifiedAfterLastSignature;
    summary.classList.add(ok ? 'is-valid' : 'is-invalid');
    summary.textContent = ok
      ? report.signatures.length === 1
        ? t('verify.allIntactOne')
        : t('verify.allIntact', { count: report.signatures.length })
      : !allValid
        ? t('verify.oneInvalid')
        : t('verify.changedAfter');
  }
  result.append(summary);
  report.signatures.forEach((sig, i) => {
    result.append(renderSignature(sig, i));
  });
  result.focus?.();
}

async function check(file) {
  if (!file) return;
  result.replaceChildren(el('p', 'verify-busy', t('verify.checking', { fileName: file.name })));
  try {
    const res = await fetch('/verify/check', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: file,
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const message = body?.error?.message || t('verify.checkFailed', { status: res.status });
      result.replaceChildren(el('div', 'verify-summary is-invalid', message));
      return;
    }
    render(body.data, file.name);
  } catch {
    result.replaceChildren(el('div', 'verify-summary is-invalid', t('verify.sendFailed')));
  }
}

input.addEventListener('change', () => check(input.files[0]));
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('is-over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('is-over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('is-over');
  check(e.dataTransfer.files[0]);
});
