// The public verification page: sends the chosen PDF to /verify/check and explains the report.

const drop = document.getElementById('verify-drop');
const input = document.getElementById('verify-file');
const result = document.getElementById('verify-result');

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

const when = (iso) => {
  if (!iso) return 'an unknown time';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

const LEVELS = {
  'B-B': 'a basic electronic signature (PAdES B-B)',
  'B-T': 'a signature with a trusted timestamp (PAdES B-T)',
  'B-LT': 'a long-term signature: timestamp and revocation data embedded (PAdES B-LT)',
  'B-LTA': 'a long-term archival signature, protected by a document timestamp (PAdES B-LTA)',
};

function commonName(dn) {
  const m = /(?:^|, )CN=([^,]+)/.exec(dn || '');
  return m ? m[1] : dn || 'an unknown signer';
}

function renderSignature(sig, index) {
  const card = el('article', `verify-card ${sig.valid ? 'is-valid' : 'is-invalid'}`);
  card.append(el('h2', null, `Signature ${index + 1}: ${sig.valid ? 'intact' : 'not valid'}`));
  const list = el('ul');
  const line = (text) => list.append(el('li', null, text));
  if (sig.valid) {
    line(
      sig.coversWholeDocument
        ? 'The signed content has not changed since it was signed, and the signature covers the whole file.'
        : 'The signed content has not changed since it was signed. Data was added to the file afterwards (see below).',
    );
  } else {
    line(
      'This signature does not match the file: the content was changed after signing, or the signature is damaged.',
    );
  }
  if (sig.certificate) {
    line(
      `Signed by ${commonName(sig.certificate.subject)}, with a certificate issued by ${sig.certificate.selfSigned ? 'itself (self-signed)' : commonName(sig.certificate.issuer)}, valid from ${when(sig.certificate.notBefore)} to ${when(sig.certificate.notAfter)}.`,
    );
  }
  if (sig.timestamp) {
    line(
      sig.timestamp.valid
        ? `Time certified by ${sig.timestamp.authority || 'a timestamp authority'}: ${when(sig.timestamp.time)}.`
        : 'It carries a timestamp that does not verify.',
    );
  } else {
    line(
      `No trusted timestamp: the time ${when(sig.signedAt)} is what the signer's computer said.`,
    );
  }
  line(
    sig.revocationEmbedded
      ? "The certificate's revocation status at signing time is embedded, so it can be checked for years to come."
      : 'No revocation data for the certificate is embedded.',
  );
  if (sig.level) line(`This is ${LEVELS[sig.level]}.`);
  card.append(list);
  return card;
}

function render(report) {
  result.replaceChildren();
  const summary = el('div', 'verify-summary');
  if (report.signatures.length === 0) {
    summary.classList.add('is-invalid');
    summary.textContent = 'This PDF has no digital signature.';
  } else {
    const allValid = report.signatures.every((s) => s.valid);
    const ok = allValid && !report.modifiedAfterLastSignature;
    summary.classList.add(ok ? 'is-valid' : 'is-invalid');
    summary.textContent = ok
      ? report.signatures.length === 1
        ? 'The signature is intact and nothing was changed after it.'
        : `All ${report.signatures.length} signatures are intact and nothing was changed after the last one.`
      : !allValid
        ? 'At least one signature does not match this file.'
        : 'The signatures are intact, but the file was changed after the last signature.';
  }
  result.append(summary);
  report.signatures.forEach((sig, i) => {
    result.append(renderSignature(sig, i));
  });
  result.focus?.();
}

async function check(file) {
  if (!file) return;
  result.replaceChildren(el('p', 'verify-busy', `Checking ${file.name}…`));
  try {
    const res = await fetch('/verify/check', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: file,
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const message = body?.error?.message || `The check failed (${res.status}).`;
      result.replaceChildren(el('div', 'verify-summary is-invalid', message));
      return;
    }
    render(body.data);
  } catch {
    result.replaceChildren(
      el(
        'div',
        'verify-summary is-invalid',
        'The file could not be sent. Check your connection and try again.',
      ),
    );
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
