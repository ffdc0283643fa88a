// A bill's stored PDF, its checksum verified as it is read: a damaged row is reported,
// never sent as if it were the bill.
import crypto from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { AppError, invalidState, notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import { documentToCome, readDocument } from './documentStore.ts';

export async function getBillDocument(db: Queryable, appCode: number, billId: number, setHeader: (k: string, v: string) => void): Promise<RawAnswer> {
  const d = await readDocument(db, appCode, billId);
  // Pending: queued with its term's run or correction, rendered by the document jobs within
  // moments. So is a bill whose term's document plan has not run yet: it was NOT_FOUND, as if
  // it would never have one, to a client asking right after the term was processed.
  if (!d && !(await documentToCome(db, appCode, billId))) throw notFound('bill document', 'data.billID');
  if (!d || d.status !== 'rendered' || !d.pdf) {
    throw invalidState(
      !d || d.status === 'pending'
        ? "The bill's document is being rendered; ask again in a moment (get-bill-documents lists its status)."
        : "The bill's document could not be rendered (get-bill-documents gives the error); render-bill-documents renders it again.",
      'data.billID',
    );
  }
  const sha256 = crypto.createHash('sha256').update(d.pdf).digest('hex');
  if (sha256 !== d.sha256) throw new AppError('INTERNAL', `The stored document of bill ${billId} does not match its checksum; render it again.`);
  setHeader('x-billrun-document-sha256', sha256);
  setHeader('x-billrun-template-id', d.template_id);
  setHeader('x-billrun-template-version', String(d.template_version));
  return { type: 'application/pdf', payload: d.pdf };
}
