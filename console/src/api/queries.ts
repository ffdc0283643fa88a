// The reads several pages share, each under one query key so that a write can refresh it.
import { useQuery } from '@tanstack/react-query';
import { ApiError, read } from './client.ts';
import { apiToIso } from './dates.ts';

export function useTemplates() {
  return useQuery({
    queryKey: ['services'],
    queryFn: () => read('/billing/services/get-services', { method: 'Retrieve', action: 'Retrieve Packages', apiVersion: 'v2' }),
  });
}

export function useBatches() {
  return useQuery({
    queryKey: ['batches'],
    queryFn: () => read('/billing/batches/get-batches', { method: 'Retrieve', action: 'Retrieve Batches', apiVersion: 'v2' }),
  });
}

export function useTerm(termID: number, refetchInterval: (status: string | undefined) => number | false) {
  return useQuery({
    queryKey: ['term', termID],
    queryFn: async () => {
      const d = await read('/billing/terms/get-terms', { method: 'Retrieve', action: 'Retrieve Terms', apiVersion: 'v2', operation: 'schedule', data: { termID } });
      const t = d.terms[0];
      // A refusal, not a failure: asked again (three times, 3.4 s of spinner) it stays missing (an officer's walk).
      if (!t) throw new ApiError(404, 'NOT_FOUND', `No term ${termID}.`, []);
      return t;
    },
    refetchInterval: (q) => refetchInterval(q.state.data?.status),
  });
}

/** The app's invoice and e-mail templates, archived ones included (a template may still name one). */
export function useDocumentTemplates() {
  return useQuery({
    queryKey: ['document-templates'],
    queryFn: () => read('/billing/documents/get-document-templates', { method: 'Retrieve', action: 'Retrieve Document Templates', apiVersion: 'v2', data: {} }),
  });
}

/** A template's versions, newest first (all of them: a template has tens, not thousands). */
export function useTemplateVersions(serviceCode: string | null | undefined) {
  return useQuery({
    queryKey: ['service-versions', serviceCode, 'all'],
    enabled: serviceCode !== null && serviceCode !== undefined,
    queryFn: () => read('/billing/services/get-service-versions', { method: 'Retrieve', action: 'Retrieve Package Versions', apiVersion: 'v2', serviceCode: serviceCode ?? '', limit: 1000, offset: 0 }),
  });
}

type DatedVersion = { version: number; effectiveFrom: string | null };

/**
 * The version in force on a day (YYYY-MM-DD), as the API decides it (docs/templates.md,
 * Effective dates): the latest effectiveFrom on or before the day (none: from the
 * beginning), and of two from the same day the later saved.
 */
export function versionInForce<V extends DatedVersion>(versions: readonly V[], isoDay: string): V | undefined {
  let best: V | undefined;
  for (const v of versions) {
    const from = v.effectiveFrom === null ? '' : apiToIso(v.effectiveFrom);
    if (from > isoDay) continue;
    const bestFrom = best === undefined ? null : best.effectiveFrom === null ? '' : apiToIso(best.effectiveFrom);
    if (best === undefined || from > bestFrom! || (from === bestFrom && v.version > best.version)) best = v;
  }
  return best;
}
